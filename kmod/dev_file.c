// SPDX-License-Identifier: GPL-2.0
/*
 * dev_file.c - the timeouts of one open /dev/twheel file
 *
 * Each open file owns a set of timeouts, found by handle in an xarray. A
 * handle is the timeout's slot in that xarray (lower 32 bits) and a
 * generation (upper 32 bits). Neither slot 0 nor generation 0 is ever handed
 * out, so no handle is 0.
 *
 * Reuse
 * -----
 * A timeout that dies (cancelled, or a one-shot whose record was read) keeps
 * its slot and goes on the file's free list, up to TWHEEL_FREE_MAX of them;
 * an arm takes a timeout from there before it allocates one. Churn (arm,
 * cancel, arm...) then costs no slab allocation, no memory cgroup charge and
 * no change to the xarray. A dead timeout stays charged to the memory
 * cgroup that allocated it, does not count against the per-file limit and is
 * freed on close; its stored handle has generation 0, which no handle has,
 * so no handle reaches it. A new slot is the lowest free one, which keeps
 * the xarray dense.
 *
 * Generations
 * -----------
 * Generations come from a module-wide counter, so no two files share one. A
 * file hands out its current generation, @gen, until a handle of that
 * generation dies (@gen_spent); the next arm then takes a new one. So a slot
 * never gets the same generation twice: a slot is handed out again only
 * after its handle died, and if that handle had the current generation, the
 * current generation changes before the next handle is made. A stale
 * handle, or one from another file, finds no timeout or one whose stored
 * handle differs (-ENOENT).
 *
 * The counter goes up once per open and at most once per arm. Under churn a
 * file takes a new generation about once per round of the timeouts it has
 * in flight, and at every arm only if it arms and cancels a single timeout
 * over and over. A handle could be mistaken for a newer one only if it were
 * kept while the counter went all the way round (2^32 - 1 generations,
 * machine-wide) and its slot were then live with exactly its generation.
 *
 * The timeout is its own event: when it expires, its callback stores the
 * expiry time and sets the READY mark on its slot; read() finds marked slots,
 * copies their records out and then consumes them. Nothing is allocated on
 * the expiry path, and a cancel or re-arm drops a queued record by clearing
 * the mark. Like timerfd, a periodic timeout is re-armed when its record is
 * read, never by its callback: a short period cannot keep a CPU busy while
 * nobody reads, and a reader that fell behind sees one record with an
 * overrun count (fixed rate) instead of a queue of them.
 *
 * Locking
 * -------
 * tf->lock (a mutex) serialises every ioctl that touches timeouts and every
 * read() of the file. The set of timeouts, their handles, deadlines and
 * periods, the free list and the counters @nr_live, @nr_free, @gen,
 * @gen_spent and @read_cursor only change under it, in process context, so
 * read() may copy a record to userspace and only then consume it (a fault
 * that stalls in the caller's memory holds up only this file's ioctls and
 * reads, interruptibly).
 *
 * The xarray's own lock (taken with softirqs disabled; the callbacks run in
 * softirq context) guards what a callback changes: the READY marks,
 * tf->nr_queued and the timeout's @expired. The callback takes only that
 * lock and, inside it, the wait queue's; it never takes tf->lock, so
 * twheel_cancel_sync() may be called with tf->lock held, but never with the
 * xa_lock held. Only tf->lock holders clear marks and lower nr_queued, so a
 * tf->lock holder that reads nr_queued as 0 knows that no timeout whose
 * callback it has waited for has a record queued.
 *
 * The callback wakes the wait queue with the xa_lock still held and does
 * nothing to the file after it drops it. A timeout dies only once its
 * callback cannot run (twheel_cancel_sync(), also when a one-shot's record
 * is consumed), so a dead timeout, cached or freed, is touched by no
 * callback: an arm may reuse it on any CPU, and release may free it after
 * cancelling what is left.
 *
 * Lock order: tf->lock, then the xa_lock, then tf->wqh.lock.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/twheel.h>

#include "twheel.h"
#include "twheel_internal.h"
#include "dev_file.h"

/* Slot mark of a timeout whose record is waiting to be read. */
#define TWHEEL_READY		XA_MARK_1

/* Dead timeouts a file keeps for reuse (still charged to its memcg). */
#define TWHEEL_FREE_MAX		1024U

/*
 * Per-timeout memory is charged to the caller's memory cgroup. Past its
 * limit an arm fails with -ENOMEM instead of waking the OOM killer, and a
 * failure is the caller's business: no allocation warning.
 */
#define TWHEEL_GFP		(GFP_KERNEL_ACCOUNT | __GFP_NORETRY | \
				 __GFP_NOWARN)

/**
 * struct twheel_dev_timeout - one timeout of an open file
 * @tw: the wheel's timeout
 * @tf: the file that owns it
 * @handle: its handle: its slot in the lower half, its generation in the
 *	upper half (0 while it is on the free list)
 * @cookie: the caller's cookie (live timeouts)
 * @next_free: next timeout on the file's free list (dead timeouts)
 * @deadline: CLOCK_MONOTONIC deadline of the current arming, in ns
 * @expired: when the callback ran for that arming (under the xa_lock)
 * @period: 0 for a one-shot timeout, else the period in ns
 * @cpu: CPU it was armed on, or TWHEEL_CPU_LOCAL
 * @flags: TWHEEL_ARM_FIXED_DELAY or 0
 */
struct twheel_dev_timeout {
	struct twheel_timeout tw;
	struct twheel_file *tf;
	u64 handle;
	union {
		u64 cookie;
		struct twheel_dev_timeout *next_free;
	};
	u64 deadline;
	u64 expired;
	u64 period;
	s32 cpu;
	u32 flags;
};

/**
 * struct twheel_record - a record on its way to userspace
 * @ev: the record as read() returns it
 * @tdt: the timeout it belongs to
 * @now: when it was filled in
 * @next: next deadline of a periodic timeout
 */
struct twheel_record {
	struct twheel_event ev;
	struct twheel_dev_timeout *tdt;
	u64 now;
	u64 next;
};

static struct kmem_cache *twheel_timeout_cache;

/* Source of handle generations; see the top of this file. */
static atomic_t twheel_gen_seq = ATOMIC_INIT(0);

/* A generation no file has had yet (until the counter wraps); never 0. */
static u32 twheel_new_gen(void)
{
	u32 gen;

	do {
		gen = atomic_inc_return(&twheel_gen_seq);
	} while (!gen);
	return gen;
}

static u32 twheel_slot(const struct twheel_dev_timeout *tdt)
{
	return lower_32_bits(tdt->handle);
}

/*
 * Softirq, on the CPU that owns the timeout, with no twheel lock held. The
 * timeout is not armed again until its record is consumed, so its mark is
 * clear here.
 */
static void twheel_file_expire(struct twheel_timeout *t)
{
	struct twheel_dev_timeout *tdt =
		container_of(t, struct twheel_dev_timeout, tw);
	struct twheel_file *tf = tdt->tf;

	xa_lock(&tf->timeouts);
	tdt->expired = ktime_get_ns();
	__xa_set_mark(&tf->timeouts, twheel_slot(tdt), TWHEEL_READY);
	WRITE_ONCE(tf->nr_queued, tf->nr_queued + 1);
	wake_up_poll(&tf->wqh, EPOLLIN | EPOLLRDNORM);
	xa_unlock(&tf->timeouts);
}

/*
 * Drop the queued record of @tdt, if any. Caller holds tf->lock, and no
 * callback of @tdt can still queue one (it is not armed, and a callback that
 * ran was waited for or its record found): then its mark cannot change under
 * us, and with no record queued in the file it has none.
 */
static void twheel_unqueue(struct twheel_file *tf,
			   struct twheel_dev_timeout *tdt)
{
	if (!READ_ONCE(tf->nr_queued))
		return;
	xa_lock_bh(&tf->timeouts);
	if (xa_get_mark(&tf->timeouts, twheel_slot(tdt), TWHEEL_READY)) {
		__xa_clear_mark(&tf->timeouts, twheel_slot(tdt), TWHEEL_READY);
		WRITE_ONCE(tf->nr_queued, tf->nr_queued - 1);
	}
	xa_unlock_bh(&tf->timeouts);
}

/*
 * Kill a live timeout that is neither armed nor running: its record goes,
 * its handle dies, and it goes on the free list or, when that is full, back
 * to the slab. Caller holds tf->lock.
 */
static void twheel_put(struct twheel_file *tf, struct twheel_dev_timeout *tdt)
{
	u32 slot = twheel_slot(tdt);

	twheel_unqueue(tf, tdt);
	if (upper_32_bits(tdt->handle) == tf->gen)
		tf->gen_spent = true;
	WRITE_ONCE(tf->nr_live, tf->nr_live - 1);
	if (tf->nr_free < TWHEEL_FREE_MAX) {
		tdt->handle = slot;
		tdt->next_free = tf->free;
		tf->free = tdt;
		WRITE_ONCE(tf->nr_free, tf->nr_free + 1);
		return;
	}
	xa_erase_bh(&tf->timeouts, slot);
	kmem_cache_free(twheel_timeout_cache, tdt);
}

/*
 * Arm @tdt for @tdt->deadline, which the caller has checked against the
 * longest delay from @now. The only failure left is that the chosen CPU went
 * offline since it was checked; then the timeout runs on this CPU, as the
 * wheel does with the timeouts of a CPU that goes offline.
 */
static void twheel_start(struct twheel_dev_timeout *tdt, u64 now)
{
	if (twheel_arm_abs_now(&tdt->tw, tdt->deadline, now, tdt->cpu) ==
	    -EINVAL)
		twheel_arm_abs_now(&tdt->tw, tdt->deadline, now,
				   TWHEEL_CPU_LOCAL);
}

/**
 * twheel_deadline() - CLOCK_MONOTONIC deadline of an arm or re-arm request
 * @expires: delay in ns, or absolute deadline if @flags has TWHEEL_ARM_ABS
 * @flags: TWHEEL_ARM_* flags of the request
 * @now: current CLOCK_MONOTONIC time in ns
 * @deadline: out: the deadline
 *
 * A deadline in the past is accepted: the timeout fires at once.
 *
 * Return: 0, -EINVAL if an absolute deadline is not a CLOCK_MONOTONIC time,
 * -ERANGE if the deadline lies further than twheel_max_delay_ns() ahead.
 */
static int twheel_deadline(u64 expires, u32 flags, u64 now, u64 *deadline)
{
	u64 max_delay = twheel_max_delay_ns();

	if (flags & TWHEEL_ARM_ABS) {
		if (expires > KTIME_MAX)
			return -EINVAL;
		if (expires > now && expires - now > max_delay)
			return -ERANGE;
		*deadline = expires;
		return 0;
	}
	if (expires > max_delay || check_add_overflow(now, expires, deadline) ||
	    *deadline > KTIME_MAX)
		return -ERANGE;
	return 0;
}

/*
 * Check the flags, CPU and period of an arm request. A period must be at
 * least a tick and, like a delay, must not take the clock past its range.
 */
static int twheel_check_arm(const struct twheel_arm *arm, u64 now)
{
	u64 next;

	if (arm->flags & ~TWHEEL_ARM_FLAGS_ALL)
		return -EINVAL;
	if (arm->flags & TWHEEL_ARM_CPU) {
		if (arm->cpu >= nr_cpu_ids || !cpu_online(arm->cpu))
			return -EINVAL;
	} else if (arm->cpu) {
		return -EINVAL;
	}
	if (!arm->period)
		return arm->flags & TWHEEL_ARM_FIXED_DELAY ? -EINVAL : 0;
	if (arm->period < twheel_tick_ns())
		return -EINVAL;
	return twheel_deadline(arm->period, 0, now, &next);
}

/*
 * A dead timeout with a slot: one from the free list, else a new one in the
 * lowest free slot. The free list is empty only while every slot in use is
 * live, so fewer than max_pending are in use and that slot exists. Caller
 * holds tf->lock.
 */
static struct twheel_dev_timeout *twheel_get(struct twheel_file *tf)
{
	struct twheel_dev_timeout *tdt = tf->free;
	u32 slot;
	int ret;

	if (tdt) {
		tf->free = tdt->next_free;
		WRITE_ONCE(tf->nr_free, tf->nr_free - 1);
		return tdt;
	}
	tdt = kmem_cache_alloc(twheel_timeout_cache, TWHEEL_GFP);
	if (!tdt)
		return ERR_PTR(-ENOMEM);
	twheel_timeout_init(&tdt->tw, twheel_file_expire);
	tdt->tf = tf;
	ret = xa_alloc_bh(&tf->timeouts, &slot, tdt,
			  XA_LIMIT(1, tf->max_pending), TWHEEL_GFP);
	if (ret) {
		kmem_cache_free(twheel_timeout_cache, tdt);
		return ERR_PTR(ret);
	}
	tdt->handle = slot;
	return tdt;
}

/*
 * Make a live timeout for @arm, already checked, due at @deadline, and give
 * it a handle. Caller holds tf->lock.
 */
static struct twheel_dev_timeout *twheel_new(struct twheel_file *tf,
					     const struct twheel_arm *arm,
					     u64 deadline)
{
	struct twheel_dev_timeout *tdt;

	if (tf->nr_live >= tf->max_pending)
		return ERR_PTR(-ENOSPC);
	tdt = twheel_get(tf);
	if (IS_ERR(tdt))
		return tdt;
	tdt->cookie = arm->cookie;
	tdt->deadline = deadline;
	tdt->period = arm->period;
	tdt->cpu = arm->flags & TWHEEL_ARM_CPU ? arm->cpu : TWHEEL_CPU_LOCAL;
	tdt->flags = arm->flags & TWHEEL_ARM_FIXED_DELAY;
	if (tf->gen_spent) {
		tf->gen = twheel_new_gen();
		tf->gen_spent = false;
	}
	tdt->handle = (u64)tf->gen << 32 | twheel_slot(tdt);
	WRITE_ONCE(tf->nr_live, tf->nr_live + 1);
	return tdt;
}

/**
 * twheel_file_arm() - arm a new timeout
 * @tf: the file, with @tf->lock held
 * @arm: the request; its @handle is ignored
 * @now: CLOCK_MONOTONIC time of the request in ns, read at the earliest when
 *	the request was made: a delay counts from it
 * @handle: out: the new timeout's handle
 *
 * Context: process context; may sleep to allocate.
 * Return: 0; -EINVAL for unknown flags, a bad CPU or period, or an absolute
 * deadline past the clock's range; -ERANGE for a delay or period longer than
 * twheel_max_delay_ns(); -ENOSPC if the file holds its limit of timeouts;
 * -ENOMEM if memory (or the caller's memory cgroup) is exhausted.
 */
int twheel_file_arm(struct twheel_file *tf, const struct twheel_arm *arm,
		    u64 now, u64 *handle)
{
	struct twheel_dev_timeout *tdt;
	u64 deadline;
	int ret;

	lockdep_assert_held(&tf->lock);
	ret = twheel_check_arm(arm, now);
	if (ret)
		return ret;
	ret = twheel_deadline(arm->expires, arm->flags, now, &deadline);
	if (ret)
		return ret;
	tdt = twheel_new(tf, arm, deadline);
	if (IS_ERR(tdt))
		return PTR_ERR(tdt);
	twheel_start(tdt, now);
	*handle = tdt->handle;
	return 0;
}

/*
 * The live timeout that @handle names, or NULL. A dead timeout's stored
 * handle has generation 0, so a handle with generation 0 names none. Caller
 * holds tf->lock.
 */
static struct twheel_dev_timeout *twheel_lookup(struct twheel_file *tf,
						u64 handle)
{
	struct twheel_dev_timeout *tdt;

	if (!upper_32_bits(handle))
		return NULL;
	tdt = xa_load(&tf->timeouts, lower_32_bits(handle));
	if (!tdt || tdt->handle != handle)
		return NULL;
	return tdt;
}

/**
 * twheel_file_rearm() - move a live timeout to a new expiry
 * @tf: the file, with @tf->lock held
 * @handle: the timeout
 * @expires: delay in ns, or absolute deadline with TWHEEL_ARM_ABS
 * @flags: TWHEEL_ARM_ABS or 0
 * @now: CLOCK_MONOTONIC time of the request, as for twheel_file_arm()
 *
 * The timeout keeps its cookie, period and CPU. A record of it that waits to
 * be read is dropped.
 *
 * Context: process context; may busy-wait for the timeout's callback.
 * Return: 0; -EINVAL for other flags or an absolute deadline past the
 * clock's range; -ENOENT if @handle names no live timeout of @tf; -ERANGE if
 * the deadline lies further than twheel_max_delay_ns() ahead.
 */
int twheel_file_rearm(struct twheel_file *tf, u64 handle, u64 expires,
		      u32 flags, u64 now)
{
	struct twheel_dev_timeout *tdt;
	u64 deadline;
	int ret;

	lockdep_assert_held(&tf->lock);
	if (flags & ~TWHEEL_ARM_ABS)
		return -EINVAL;
	tdt = twheel_lookup(tf, handle);
	if (!tdt)
		return -ENOENT;
	ret = twheel_deadline(expires, flags, now, &deadline);
	if (ret)
		return ret;
	tdt->deadline = deadline;
	/*
	 * Still pending: moved in one step, and its old arming can no longer
	 * fire (a pending timeout has no record queued: a fired one is armed
	 * again only when its record is read). Otherwise its callback may be
	 * running and would queue a record for the old arming: wait for it
	 * and drop the record.
	 */
	if (twheel_rearm_abs_now(&tdt->tw, deadline, now, tdt->cpu) == 1)
		return 0;
	twheel_cancel_sync(&tdt->tw);
	twheel_unqueue(tf, tdt);
	twheel_start(tdt, now);
	return 0;
}

/**
 * twheel_file_cancel() - cancel a live timeout and free its handle
 * @tf: the file, with @tf->lock held
 * @handle: the timeout
 *
 * Once this returns 0, no record of @handle is read, even one that was
 * already queued.
 *
 * Context: process context; may busy-wait for the timeout's callback.
 * Return: 0, or -ENOENT if @handle names no live timeout of @tf.
 */
int twheel_file_cancel(struct twheel_file *tf, u64 handle)
{
	struct twheel_dev_timeout *tdt;

	lockdep_assert_held(&tf->lock);
	tdt = twheel_lookup(tf, handle);
	if (!tdt)
		return -ENOENT;
	twheel_cancel_sync(&tdt->tw);
	twheel_put(tf, tdt);
	return 0;
}

/*
 * Fill the record of @tdt, whose callback ran at @expired, as read at @now.
 * A fixed-rate timeout counts the further periods that have passed as
 * overruns and next expires on the first period boundary after @now; a
 * fixed-delay one next expires a period after @now.
 */
static void twheel_fill_record(struct twheel_dev_timeout *tdt, u64 expired,
			       u64 now, struct twheel_record *rec)
{
	u64 late, rem;

	rec->tdt = tdt;
	rec->now = now;
	rec->ev.handle = tdt->handle;
	rec->ev.cookie = tdt->cookie;
	rec->ev.deadline = tdt->deadline;
	rec->ev.expired = expired;
	rec->ev.overrun = 0;
	rec->ev.flags = tdt->period ? TWHEEL_EV_PERIODIC : 0;
	rec->ev.reserved = 0;
	if (!tdt->period)
		return;
	if (tdt->flags & TWHEEL_ARM_FIXED_DELAY) {
		rec->next = now + tdt->period;
		return;
	}
	late = now > tdt->deadline ? now - tdt->deadline : 0;
	rec->ev.overrun = div64_u64_rem(late, tdt->period, &rem);
	rec->next = now + tdt->period - rem;
}

/**
 * struct twheel_pass - the slots one read() looks at
 * @next: first slot not looked at yet
 * @end: last slot of the current leg
 * @start: the read cursor when the pass began
 *
 * A pass goes from the read cursor up, then from slot 0 to just before where
 * it began: every slot gets its turn, and no timeout gives two records in one
 * read() (a periodic timeout re-armed by this read() may be due again before
 * the pass ends).
 */
struct twheel_pass {
	unsigned long next;
	unsigned long end;
	unsigned long start;
};

/* Find the next ready record of the pass. Caller holds tf->lock. */
static bool twheel_peek(struct twheel_file *tf, struct twheel_pass *pass,
			struct twheel_record *rec)
{
	struct twheel_dev_timeout *tdt;
	u64 expired = 0;

	xa_lock_bh(&tf->timeouts);
	tdt = xa_find(&tf->timeouts, &pass->next, pass->end, TWHEEL_READY);
	if (!tdt && pass->end == ULONG_MAX && pass->start) {
		pass->next = 0;
		pass->end = pass->start - 1;
		tdt = xa_find(&tf->timeouts, &pass->next, pass->end,
			      TWHEEL_READY);
	}
	if (tdt)
		expired = tdt->expired;
	xa_unlock_bh(&tf->timeouts);
	if (!tdt)
		return false;
	twheel_fill_record(tdt, expired, ktime_get_ns(), rec);
	return true;
}

/* The record went out: kill a one-shot timeout, re-arm a periodic one. */
static void twheel_consume(struct twheel_file *tf, struct twheel_record *rec)
{
	struct twheel_dev_timeout *tdt = rec->tdt;

	tf->read_cursor = twheel_slot(tdt) + 1;
	if (!tdt->period) {
		/* Its callback may not have returned yet. */
		twheel_cancel_sync(&tdt->tw);
		twheel_put(tf, tdt);
		return;
	}
	twheel_unqueue(tf, tdt);
	tdt->deadline = rec->next;
	twheel_start(tdt, rec->now);
}

/**
 * twheel_file_read() - copy ready records to userspace and consume them
 * @tf: the file, with @tf->lock held
 * @buf: user buffer
 * @count: its size, at least one record
 *
 * A record is consumed only once it has been copied, so a fault part-way
 * loses nothing: the records not copied stay queued. Each timeout gives at
 * most one record per call.
 *
 * Context: process context; may fault.
 * Return: bytes copied (whole records), 0 if no record was ready, or
 * -EFAULT if not even the first record could be copied.
 */
ssize_t twheel_file_read(struct twheel_file *tf, char __user *buf,
			 size_t count)
{
	struct twheel_pass pass = {
		.next = tf->read_cursor,
		.end = ULONG_MAX,
		.start = tf->read_cursor,
	};
	struct twheel_record rec;
	size_t done = 0;

	lockdep_assert_held(&tf->lock);
	while (count - done >= sizeof(rec.ev) &&
	       twheel_peek(tf, &pass, &rec)) {
		if (copy_to_user(buf + done, &rec.ev, sizeof(rec.ev)))
			return done ? done : -EFAULT;
		twheel_consume(tf, &rec);
		pass.next = tf->read_cursor;
		done += sizeof(rec.ev);
		cond_resched();
	}
	return done;
}

/**
 * twheel_file_show() - print a file's counters for /proc/<pid>/fdinfo
 * @tf: the file
 * @m: where to print
 *
 * The counters are read without locks and may be a moment old.
 */
void twheel_file_show(struct twheel_file *tf, struct seq_file *m)
{
	seq_printf(m, "pending:\t%u\nqueued:\t%u\nmax_pending:\t%u\n",
		   READ_ONCE(tf->nr_live), READ_ONCE(tf->nr_queued),
		   tf->max_pending);
	seq_printf(m, "cached:\t%u\n", READ_ONCE(tf->nr_free));
}

/**
 * twheel_file_create() - allocate the context of a newly opened file
 *
 * Context: process context.
 * Return: the new context, or NULL if out of memory.
 */
struct twheel_file *twheel_file_create(void)
{
	struct twheel_file *tf;

	tf = kzalloc(sizeof(*tf), GFP_KERNEL_ACCOUNT);
	if (!tf)
		return NULL;
	mutex_init(&tf->lock);
	xa_init_flags(&tf->timeouts, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH |
		      XA_FLAGS_ACCOUNT);
	init_waitqueue_head(&tf->wqh);
	tf->gen = twheel_new_gen();
	tf->max_pending = twheel_param_max_pending;
	return tf;
}

/**
 * twheel_file_destroy() - cancel and free everything a file owns
 * @tf: the file; nothing else uses it any more
 *
 * Callbacks of timeouts not cancelled yet may run on other CPUs meanwhile;
 * each timeout, live or on the free list, is freed only once its callback
 * cannot run.
 *
 * Context: process context; may busy-wait for callbacks.
 */
void twheel_file_destroy(struct twheel_file *tf)
{
	struct twheel_dev_timeout *tdt;
	unsigned long slot;

	xa_for_each(&tf->timeouts, slot, tdt) {
		twheel_cancel_sync(&tdt->tw);
		kmem_cache_free(twheel_timeout_cache, tdt);
		cond_resched();
	}
	xa_destroy(&tf->timeouts);
	mutex_destroy(&tf->lock);
	kfree(tf);
}

/**
 * twheel_file_cache_init() - create the slab cache of the timeouts
 *
 * The cache is SLAB_ACCOUNT: every timeout is charged to the memory cgroup
 * of the task whose arm allocated it.
 *
 * Return: 0 or -ENOMEM.
 */
int twheel_file_cache_init(void)
{
	twheel_timeout_cache = KMEM_CACHE(twheel_dev_timeout, SLAB_ACCOUNT);
	return twheel_timeout_cache ? 0 : -ENOMEM;
}

/**
 * twheel_file_cache_exit() - destroy the slab cache of the timeouts
 *
 * Every file must have been released.
 */
void twheel_file_cache_exit(void)
{
	kmem_cache_destroy(twheel_timeout_cache);
}
