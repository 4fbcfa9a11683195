// SPDX-License-Identifier: GPL-2.0
/*
 * dev_read.c - /dev/twheel: expiry -> ready queue -> read() and poll()
 *
 * The timeout is its own event: when it expires, its callback
 * (twdev_expire(), softirq) stores the expiry time and sets the READY mark
 * on its slot; read() finds marked slots, copies their records out and then
 * consumes them. Nothing is allocated on the expiry path, and a cancel or
 * re-arm drops a queued record by clearing the mark. Like timerfd, a
 * periodic timeout is re-armed when its record is read, never by its
 * callback: a short period cannot keep a CPU busy while nobody reads, and a
 * reader that fell behind sees one record with an overrun count (fixed
 * rate) instead of a queue of them.
 *
 * Wake-ups
 * --------
 * A callback does not wake the file's readers itself. The first one of an
 * expiry run arms the file's waker (a twheel timeout due at once on the
 * same CPU, behind the callbacks already due), whose callback wakes the
 * wait queue once for all the records queued before it ran. So a file in K
 * epoll sets costs K callbacks per run, not per record. waker_armed says the
 * waker is armed or about to be: a callback that sees it set knows the
 * waker has not yet woken anyone, since the waker clears it (fully ordered)
 * before it wakes, and will see the callback's record.
 *
 * Blocking readers wait exclusively: a wake-up gets one of them going, and a
 * reader that leaves records behind wakes the next.
 *
 * Locking: the xa_lock guards the READY marks, tf->nr_queued, tf->ringed
 * and the idle word of each timeout (twdev_expired()); only tf->lock holders clear marks and lower
 * nr_queued, so a tf->lock holder that reads nr_queued as 0 knows that no
 * timeout whose callback it has waited for has a record queued. See
 * dev_file.c for the rest.
 *
 * This file and dev_file.c are the two halves of a device timeout and call
 * each other: dev_file.c arms with this file's callback and drops records
 * (twdev_unqueue()); a read here re-arms a periodic timeout and frees a
 * one-shot one there (twdev_start(), twdev_discard()).
 */
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/uio.h>

#include "compat.h"
#include "dev.h"

/* Bit of tf->waker_armed. */
#define TWDEV_WAKER_ARMED	0

static bool twdev_ring_record(struct twdev_file *tf,
			      struct twdev_timeout *tdt, u64 now, u64 *next);

/* Records waiting for read(), told to the ring too; under the xa_lock. */
static void twdev_set_queued(struct twdev_file *tf, unsigned int nr)
{
	WRITE_ONCE(tf->nr_queued, nr);
	twdev_ring_waiting(tf, nr);
}

/* Count an expiry @late ns after its deadline; under the xa_lock. */
static void twdev_count_fired(struct twdev_counters *c, u64 late)
{
	unsigned int i = fls64(div_u64(late, NSEC_PER_USEC));

	c->fired++;
	c->late[min_t(unsigned int, i, TWHEEL_STATS_LATE_BUCKETS - 1)]++;
}

/*
 * File @tdt again if its program stored a later deadline that has not come
 * yet: a refresh (dev_share.c). On its own CPU, or the one it was armed for.
 * A stored deadline that passed already is the one that fired. Return:
 * true if it was filed again.
 */
static bool twdev_refile(struct twdev_timeout *tdt, u64 now)
{
	u64 pushed = twdev_pushed(tdt, tdt->deadline, now);

	if (!pushed)
		return false;
	WRITE_ONCE(tdt->deadline, pushed);
	if (pushed <= now)
		return false;
	tw_mod(&tdt->tw, pushed, now, tdt->cpu, 0);
	return true;
}

/**
 * twdev_expire() - callback of a file's timeout: queue its record
 * @t: the timeout
 *
 * The timeout is not armed again until its record is consumed, so its mark
 * is clear here. If its program pushed its deadline out, it is filed for
 * that deadline instead.
 *
 * Context: softirq, on the CPU that owns the timeout, no twheel lock held.
 */
void twdev_expire(struct twheel_timeout *t)
{
	struct twdev_timeout *tdt =
		container_of(t, struct twdev_timeout, tw);
	struct twdev_file *tf = tdt->tf;
	u64 now = tw_clock_ns(twdev_clock(tdt)), next = 0;

	if (twdev_refile(tdt, now))
		return;
	xa_lock(&tf->timeouts);
	twdev_count_fired(&tf->counters, now > tdt->deadline ?
				       now - tdt->deadline : 0);
	if (!twdev_ring_record(tf, tdt, now, &next)) {
		twdev_set_expired(tdt, now);
		__xa_set_mark(&tf->timeouts, twdev_slot(tdt), TWDEV_READY);
		twdev_set_queued(tf, tf->nr_queued + 1);
	}
	xa_unlock(&tf->timeouts);
	/* A periodic timeout whose record went into the ring goes on. */
	if (next)
		tw_mod(&tdt->tw, next, now, tdt->cpu, 0);
	/*
	 * Due at time 0: at once, behind the callbacks already due, on this
	 * CPU's CLOCK_MONOTONIC base whatever the clock of @tdt. A past
	 * deadline needs no clock reading.
	 */
	if (!test_and_set_bit(TWDEV_WAKER_ARMED, &tf->waker_armed))
		tw_mod(&tf->waker, 0, 0, TWHEEL_CPU_LOCAL, 0);
}

/**
 * twdev_wake() - callback of a file's waker: wake its readers and pollers
 * @t: the waker
 *
 * Context: softirq.
 */
void twdev_wake(struct twheel_timeout *t)
{
	struct twdev_file *tf = container_of(t, struct twdev_file, waker);

	clear_bit(TWDEV_WAKER_ARMED, &tf->waker_armed);
	/* Pairs with test_and_set_bit() in twdev_expire(): see the top. */
	smp_mb__after_atomic();
	wake_up_poll(&tf->wqh, EPOLLIN | EPOLLRDNORM);
}

/**
 * twdev_unqueue() - drop the queued record of a timeout, if any
 * @tf: the file, with tf->lock held
 * @tdt: a timeout no callback of which can still queue a record (it is not
 *	armed, and a callback that ran was waited for or its record found)
 *
 * Then its mark cannot change under us, and with no record queued in the
 * file it has none.
 */
void twdev_unqueue(struct twdev_file *tf, struct twdev_timeout *tdt)
{
	if (!READ_ONCE(tf->nr_queued))
		return;
	xa_lock_bh(&tf->timeouts);
	if (xa_get_mark(&tf->timeouts, twdev_slot(tdt), TWDEV_READY)) {
		__xa_clear_mark(&tf->timeouts, twdev_slot(tdt), TWDEV_READY);
		twdev_set_queued(tf, tf->nr_queued - 1);
	}
	xa_unlock_bh(&tf->timeouts);
}

/*
 * Next deadline of periodic @tdt read at @now, into rec->next. A fixed-rate
 * timeout counts the further periods that have passed as overruns and next
 * expires on the first period boundary after @now; a fixed-delay one next
 * expires a period after @now. One whose next deadline the wheel cannot
 * take (past the clock's range) stops: its record says so.
 */
static void twdev_fill_next(struct twdev_timeout *tdt, u64 now,
			    struct twdev_record *rec)
{
	u64 period = twdev_period(tdt), late, rem;

	if (tdt->flags & TWHEEL_ARM_FIXED_DELAY) {
		rec->next = now + period;
	} else {
		late = now > tdt->deadline ? now - tdt->deadline : 0;
		rec->ev.overrun = div64_u64_rem(late, period, &rem);
		rec->next = now + period - rem;
	}
	if (tw_check_deadline(rec->next, now))
		rec->ev.flags |= TWHEEL_EV_STOPPED;
}

/**
 * twdev_fill_record() - the record of a timeout that expired
 * @tdt: the timeout
 * @expired: when its callback ran, in its clock
 * @now: when the record is read, in its clock
 * @rec: out: the record, and for a periodic timeout its next deadline
 *
 * The record's times are as the file's opener reads the clock.
 */
void twdev_fill_record(struct twdev_timeout *tdt, u64 expired, u64 now,
		       struct twdev_record *rec)
{
	enum tw_clock clock = twdev_clock(tdt);

	rec->tdt = tdt;
	rec->now = now;
	rec->ev.handle = tdt->handle;
	rec->ev.cookie = tdt->cookie;
	rec->ev.deadline = twdev_to_user_time(tdt->tf, clock, tdt->deadline);
	rec->ev.expired = twdev_to_user_time(tdt->tf, clock, expired);
	rec->ev.overrun = 0;
	rec->ev.flags = twdev_period(tdt) ? TWHEEL_EV_PERIODIC : 0;
	rec->ev.reserved = 0;
	if (twdev_period(tdt))
		twdev_fill_next(tdt, now, rec);
}
EXPORT_SYMBOL_IF_KUNIT(twdev_fill_record);

/*
 * Put the record of @tdt, which expired at @now, in the file's ring, if it
 * has one with room. The record is then the program's: a one-shot (or a
 * periodic one that stops) is dead, its table entry says so at once, and it
 * goes on tf->ringed for a tf->lock holder to free; a periodic one gets its
 * next deadline, in @next for the caller to file it once the lock is
 * dropped, its table entry updated as read() would. Under the xa_lock.
 * Return: true if the record is in the ring.
 */
static bool twdev_ring_record(struct twdev_file *tf,
			      struct twdev_timeout *tdt, u64 now, u64 *next)
{
	struct twdev_record rec;
	u64 old = tdt->deadline;

	if (!twdev_has_ring(tf))
		return false;
	twdev_fill_record(tdt, now, now, &rec);
	if (!twdev_ring_put(tf, &rec.ev))
		return false;
	tf->counters.ring_overruns += rec.ev.overrun;
	if (!twdev_period(tdt) || (rec.ev.flags & TWHEEL_EV_STOPPED)) {
		twdev_share_clear(tdt);
		twdev_set_next_ringed(tdt, tf->ringed);
		WRITE_ONCE(tf->ringed, tdt);
		return true;
	}
	WRITE_ONCE(tdt->deadline, rec.next);
	twdev_share_next(tdt, old);
	*next = rec.next;
	return true;
}

/**
 * struct twdev_pass - the slots one read() looks at
 * @next: first slot not looked at yet
 * @end: last slot of the current leg
 * @start: the read cursor when the pass began
 *
 * A pass goes from the read cursor up, then from slot 0 to just before where
 * it began: every slot gets its turn, and no timeout gives two records in one
 * read() (a periodic timeout re-armed by this read() may be due again before
 * the pass ends).
 */
struct twdev_pass {
	unsigned long next;
	unsigned long end;
	unsigned long start;
};

/* Find the next ready record of the pass. Caller holds tf->lock. */
static bool twdev_peek(struct twdev_file *tf, struct twdev_pass *pass,
		       struct twdev_record *rec)
{
	struct twdev_timeout *tdt;
	u64 expired = 0;

	xa_lock_bh(&tf->timeouts);
	tdt = xa_find(&tf->timeouts, &pass->next, pass->end, TWDEV_READY);
	if (!tdt && pass->end == ULONG_MAX && pass->start) {
		pass->next = 0;
		pass->end = pass->start - 1;
		tdt = xa_find(&tf->timeouts, &pass->next, pass->end,
			      TWDEV_READY);
	}
	if (tdt)
		expired = twdev_expired(tdt);
	xa_unlock_bh(&tf->timeouts);
	if (!tdt)
		return false;
	twdev_fill_record(tdt, expired, tw_clock_ns(twdev_clock(tdt)), rec);
	return true;
}

/*
 * Arm @tdt, whose record is queued or consumed and whose callback is done,
 * for @deadline; its record goes. Caller holds tf->lock.
 */
static void twdev_restart(struct twdev_file *tf, struct twdev_timeout *tdt,
			  u64 deadline, u64 now)
{
	u64 old = tdt->deadline;

	twdev_unqueue(tf, tdt);
	tdt->deadline = deadline;
	twdev_share_next(tdt, old);
	/* A reader that may not use the timeout's CPU runs it on its own. */
	if (!twdev_may_use_cpu(tdt->cpu))
		tdt->cpu = TWHEEL_CPU_LOCAL;
	twdev_start(tdt, now);
}

/* The record went out: kill a one-shot or stopped timeout, re-arm the rest. */
static void twdev_consume(struct twdev_file *tf, struct twdev_record *rec)
{
	struct twdev_timeout *tdt = rec->tdt;

	tf->read_cursor = twdev_slot(tdt) + 1;
	tf->counters.overruns += rec->ev.overrun;
	if (!twdev_period(tdt) || (rec->ev.flags & TWHEEL_EV_STOPPED)) {
		/* Its callback may not have returned yet. */
		twheel_cancel_sync(&tdt->tw);
		twdev_discard(tf, tdt);
		return;
	}
	twdev_restart(tf, tdt, rec->next, rec->now);
}

/*
 * A record found by read() whose timeout's program stored a later deadline
 * since it fired: the timeout is filed for that one instead, and the
 * record goes, even if that deadline has passed too (it then fires at the
 * next tick, with a record that says so). So only a store made after
 * read() took the record is late (libtwheel tells its caller). Caller
 * holds tf->lock.
 */
static bool twdev_refreshed(struct twdev_file *tf, struct twdev_record *rec)
{
	struct twdev_timeout *tdt = rec->tdt;
	u64 pushed = twdev_pushed(tdt, tdt->deadline, rec->now);

	if (!pushed)
		return false;
	/* Its callback may not have returned yet. */
	twheel_cancel_sync(&tdt->tw);
	twdev_restart(tf, tdt, pushed, rec->now);
	return true;
}

/*
 * Copy ready records to @to and consume them. A record is consumed only once
 * it has been copied whole, so a fault part-way loses nothing: the records
 * not copied stay queued. Each timeout gives at most one record per call.
 * Caller holds tf->lock. Return: bytes copied (whole records), 0 if no
 * record was ready, -EFAULT if not even the first record could be copied.
 */
static ssize_t twdev_copy_records(struct twdev_file *tf, struct iov_iter *to)
{
	struct twdev_pass pass = {
		.next = tf->read_cursor,
		.end = ULONG_MAX,
		.start = tf->read_cursor,
	};
	struct twdev_record rec;
	size_t done = 0, n;

	lockdep_assert_held(&tf->lock);
	twdev_reap(tf);
	while (iov_iter_count(to) >= sizeof(rec.ev) &&
	       twdev_peek(tf, &pass, &rec)) {
		cond_resched();
		if (twdev_refreshed(tf, &rec)) {
			pass.next = twdev_slot(rec.tdt) + 1;
			continue;
		}
		n = copy_to_iter(&rec.ev, sizeof(rec.ev), to);
		if (n != sizeof(rec.ev)) {
			iov_iter_revert(to, n);
			return done ? done : -EFAULT;
		}
		twdev_consume(tf, &rec);
		pass.next = tf->read_cursor;
		done += sizeof(rec.ev);
	}
	return done;
}

/* Wait until a record is ready, unless @nonblock. */
static int twdev_wait(struct twdev_file *tf, bool nonblock)
{
	if (twdev_has_ready(tf))
		return 0;
	if (nonblock)
		return -EAGAIN;
	return wait_event_interruptible_exclusive(tf->wqh,
						  twdev_has_ready(tf));
}

/**
 * twdev_read_iter() - the read_iter of /dev/twheel
 * @iocb: the request; IOCB_NOWAIT (io_uring) or O_NONBLOCK make it
 *	non-blocking
 * @to: where the records go
 *
 * Returns as many whole records as fit and are ready, at least one. Another
 * reader may take the records this one was woken for: then it waits again
 * (or returns -EAGAIN). The file is FMODE_NOWAIT, so io_uring reads it
 * inline and polls it, without a worker thread.
 *
 * Context: process context; may sleep and fault (not with IOCB_NOWAIT).
 * Return: bytes read, -EINVAL if the buffer is smaller than one record,
 * -EAGAIN when non-blocking and nothing is ready (or tf->lock is taken),
 * -EFAULT for a bad buffer, -ERESTARTSYS on a signal.
 */
ssize_t twdev_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct twdev_file *tf = iocb->ki_filp->private_data;
	bool nonblock = (iocb->ki_flags & IOCB_NOWAIT) ||
			(iocb->ki_filp->f_flags & O_NONBLOCK);
	ssize_t ret;

	if (iov_iter_count(to) < sizeof(struct twheel_event))
		return -EINVAL;
	do {
		ret = twdev_wait(tf, nonblock);
		if (ret)
			return ret;
		if (iocb->ki_flags & IOCB_NOWAIT) {
			if (!mutex_trylock(&tf->lock))
				return -EAGAIN;
		} else if (mutex_lock_interruptible(&tf->lock)) {
			return -ERESTARTSYS;
		}
		ret = twdev_copy_records(tf, to);
		mutex_unlock(&tf->lock);
	} while (!ret);
	/* Records left behind: the next exclusive waiter takes them. */
	if (twdev_has_ready(tf))
		wake_up_poll(&tf->wqh, EPOLLIN | EPOLLRDNORM);
	return ret;
}

/**
 * twdev_poll() - the poll of /dev/twheel
 * @file: the open file
 * @wait: the poll table
 *
 * poll_wait() adds us to tf->wqh under tf->wqh.lock before the lockless
 * check. A record raises tf->nr_queued before the waker wakes tf->wqh,
 * which takes the same lock: either the check sees the new record or the
 * wake-up finds us queued. Every expiry run that queues a record wakes the
 * queue, so edge-triggered epoll sees each run.
 *
 * Return: EPOLLIN | EPOLLRDNORM while a record is ready (or in the ring,
 * not consumed yet), else 0.
 */
__poll_t twdev_poll(struct file *file, struct poll_table_struct *wait)
{
	struct twdev_file *tf = file->private_data;

	poll_wait(file, &tf->wqh, wait);
	if (twdev_has_ready(tf) || twdev_ring_ready(tf))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}
