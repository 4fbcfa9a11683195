/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dev.h - the device layer's private header: /dev/twheel
 *
 * Shared by the files of the device layer: dev_misc.c (the misc device
 * and its file operations), dev_ioctl.c (ioctl -> request), dev_file.c
 * (the open file and its timeouts: requests applied, limits) and
 * dev_read.c (expiry -> ready queue -> read/poll). Every name here starts
 * with twdev_. What each lock protects is described at the top of
 * dev_file.c.
 */
#ifndef _TWHEEL_DEV_H
#define _TWHEEL_DEV_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/twheel.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <uapi/linux/twheel.h>

#include "wheel.h"

struct file;
struct iov_iter;
struct kiocb;
struct poll_table_struct;
struct seq_file;
struct twdev_share;
struct twdev_user;
struct vm_area_struct;

/* A slot that reached this generation is retired (dev_file.c). */
#define TWDEV_GEN_LAST		(U32_MAX - 1)

/* Users a file charges at most: user namespaces nest 32 deep below init. */
#define TWDEV_USER_LEVELS	33

/* Dead timeouts a file keeps for reuse (still charged to its memcg). */
#define TWDEV_FREE_MAX		1024U

/*
 * Kernel memory one timeout costs, for the default per-user limit: the
 * object (80 bytes, 88 with a period) and its share of the xarray, rounded
 * up. Other memory a user makes a file hold is charged as this many bytes
 * per timeout.
 */
#define TWDEV_TIMEOUT_COST	128UL

/*
 * Memory a file allocates for its user is charged to the caller's memory
 * cgroup. Past its limit the call fails with -ENOMEM instead of waking the
 * OOM killer, and a failure is the caller's business: no allocation warning.
 */
#define TWDEV_GFP		(GFP_KERNEL_ACCOUNT | __GFP_NORETRY | \
				 __GFP_NOWARN)

/* Slot mark of a timeout whose record is waiting to be read. */
#define TWDEV_READY		XA_MARK_1
/*
 * xarray mark of a spare slot: its timeout was freed and the entry is
 * xa_mk_value() of the slot's last generation, for the next timeout there.
 */
#define TWDEV_SPARE		XA_MARK_2

/**
 * struct twdev_counters - a file's counters (TWHEEL_IOC_STATS)
 * @armed: arms (under tf->lock)
 * @cancelled: successful cancels (under tf->lock)
 * @overruns: overruns of the records read (under tf->lock)
 * @ring_overruns: overruns of the records put in the ring (under the
 *	xa_lock)
 * @fired: expiries (under the xa_lock)
 * @late: @fired by lateness, as struct twheel_stats (under the xa_lock)
 */
struct twdev_counters {
	u64 armed;
	u64 cancelled;
	u64 overruns;
	u64 ring_overruns;
	u64 fired;
	u64 late[TWHEEL_STATS_LATE_BUCKETS];
};

/**
 * struct twdev_file - private context of one open /dev/twheel file
 * @lock: serialises every ioctl and read() of the file
 * @timeouts: slot -> struct twdev_timeout, live, cached or retired, or the
 *	last generation of a spare slot (TWDEV_SPARE);
 *	its xa_lock also guards the ready marks, @nr_queued and each
 *	timeout's expiry time
 * @wqh: readers and pollers wait here for a record
 * @waker: wakes @wqh once per expiry run of the file's timeouts
 * @waker_armed: bit 0 set while @waker is armed or about to be
 * @users: the users the file's timeouts are charged to: its opener's real
 *	user ID first, then the owners of the opener's user namespace and of
 *	each one above it, each once (as the kernel's ucounts charge)
 * @nr_users: how many of @users there are
 * @free: dead timeouts kept for reuse, each with its slot (under @lock)
 * @nr_queued: records ready to be read (written under the xa_lock)
 * @nr_live: live handles; at most @max_pending (under @lock)
 * @nr_free: timeouts on @free (under @lock)
 * @max_pending: the per-file limit, from the max_pending module parameter
 * @key: random; the upper half of every handle is XORed with it
 * @ns_off: per clock, the offset of the opener's time namespace: absolute
 *	times the file takes and gives are the kernel's plus this
 * @read_cursor: slot at which read() looks for the next record (under @lock)
 * @share: the table shared with the program, or NULL (dev_share.c)
 * @ringed: timeouts whose last record went into the ring, dead but not
 *	freed yet, linked through their idle words (twdev_next_ringed()): a
 *	callback adds them under the xa_lock, tf->lock holders take them
 *	(twdev_reap())
 * @counters: what TWHEEL_IOC_STATS reports
 */
struct twdev_file {
	struct mutex lock;		/* serialises ioctls and read() */
	struct xarray timeouts;
	wait_queue_head_t wqh;
	struct twheel_timeout waker;
	unsigned long waker_armed;
	struct twdev_user *users[TWDEV_USER_LEVELS];
	unsigned int nr_users;
	struct twdev_timeout *free;
	unsigned int nr_queued;
	unsigned int nr_live;
	unsigned int nr_free;
	unsigned int max_pending;
	u32 key;
	s64 ns_off[TW_NR_CLOCKS];
	unsigned long read_cursor;
	struct twdev_share *share;
	struct twdev_timeout *ringed;
	struct twdev_counters counters;
};

/**
 * struct twdev_timeout - one timeout of an open file
 * @tw: the wheel's timeout; while it is idle, its word (tw_idle_word())
 *	holds when the callback ran for a record that waits to be read
 *	(twdev_expired()), or links a timeout on tf->ringed
 * @tf: the file that owns it
 * @handle: its handle while it is live: its slot in the lower half, its
 *	generation XORed with the file's key in the upper; just the slot (an
 *	upper half of 0, which no handle has) while it is dead
 * @cookie: the caller's cookie (live timeouts)
 * @next_free: next timeout on the file's free list (dead timeouts)
 * @deadline: deadline of the current arming in its clock, in ns
 * @gen: the slot's latest generation; the next handle of the slot gets a
 *	higher one, and a slot whose generation is used up is retired
 * @cpu: CPU it was armed on, or TWHEEL_CPU_LOCAL
 * @flags: TWHEEL_ARM_FIXED_DELAY as armed (the clock is @tw's own, set
 *	when it was armed: twdev_clock()), and TWDEV_PERIODIC if it is the
 *	head of a struct twdev_periodic
 *
 * Most timeouts are one-shots: the period of the others is kept out of
 * line, in the longer struct twdev_periodic.
 */
struct twdev_timeout {
	struct twheel_timeout tw;
	struct twdev_file *tf;
	u64 handle;
	union {
		u64 cookie;
		struct twdev_timeout *next_free;
	};
	u64 deadline;
	u32 gen;
	s16 cpu;
	u16 flags;
};

/* tdt->flags: the timeout has room for a period (struct twdev_periodic). */
#define TWDEV_PERIODIC		0x8000U

/**
 * struct twdev_periodic - a timeout with room for a period
 * @t: the timeout, with TWDEV_PERIODIC in its flags
 * @period: 0 for a one-shot, else the period in ns
 *
 * A dead one may serve a one-shot arm, a dead struct twdev_timeout never
 * serves a periodic one: it gives its slot to one of these (dev_file.c).
 */
struct twdev_periodic {
	struct twdev_timeout t;
	u64 period;
};

/* The period of @tdt in ns, or 0 for a one-shot timeout. */
static inline u64 twdev_period(const struct twdev_timeout *tdt)
{
	if (!(tdt->flags & TWDEV_PERIODIC))
		return 0;
	return container_of(tdt, struct twdev_periodic, t)->period;
}

/*
 * When the callback of idle @tdt ran, for its record that waits to be read;
 * set by the callback, read by a tf->lock holder, both under the xa_lock.
 */
static inline u64 twdev_expired(struct twdev_timeout *tdt)
{
	return *tw_idle_word(&tdt->tw);
}

static inline void twdev_set_expired(struct twdev_timeout *tdt, u64 expired)
{
	*tw_idle_word(&tdt->tw) = expired;
}

/* The timeout after @tdt on tf->ringed, or NULL; under the xa_lock. */
static inline struct twdev_timeout *twdev_next_ringed(struct twdev_timeout *tdt)
{
	return (struct twdev_timeout *)(unsigned long)*tw_idle_word(&tdt->tw);
}

static inline void twdev_set_next_ringed(struct twdev_timeout *tdt,
					 struct twdev_timeout *next)
{
	*tw_idle_word(&tdt->tw) = (unsigned long)next;
}

/**
 * struct twdev_req - one request, checked and in kernel terms
 * @op: TWHEEL_OP_*
 * @flags: TWHEEL_ARM_FIXED_DELAY (ARM; the clock is @clock),
 *	TWHEEL_ARM_ABS (REARM), TWHEEL_CANCEL_REPORT (CANCEL) or 0
 * @handle: the timeout (REARM, CANCEL, GET)
 * @cookie: the caller's cookie (ARM)
 * @deadline: deadline in @clock, accepted by the wheel (ARM)
 * @expires: the caller's delay or absolute time (REARM: resolved by
 *	twdev_resolve() once the timeout, and so its clock, is known)
 * @period: 0 or the period in ns, at least a tick (ARM)
 * @mono_now: CLOCK_MONOTONIC reading of the call
 * @now: @mono_now in @clock, which @deadline was checked against (ARM)
 * @clock: the timeout's clock (ARM)
 * @cpu: the chosen CPU, or TWHEEL_CPU_LOCAL (ARM)
 * @slot: the table entry the program picked (ARM with TWHEEL_ARM_SLOT),
 *	else 0
 */
struct twdev_req {
	u32 op;
	u32 flags;
	u64 handle;
	u64 cookie;
	u64 deadline;
	u64 expires;
	u64 period;
	u64 mono_now;
	u64 now;
	enum tw_clock clock;
	int cpu;
	u32 slot;
};

/**
 * struct twdev_record - a record on its way to userspace
 * @ev: the record as read() returns it
 * @tdt: the timeout it belongs to
 * @now: when it was filled in
 * @next: next deadline of a periodic timeout that goes on
 */
struct twdev_record {
	struct twheel_event ev;
	struct twdev_timeout *tdt;
	u64 now;
	u64 next;
};

/* A handle's slot in the file's xarray: its lower 32 bits (dev_file.c). */
static inline u32 twdev_handle_slot(u64 handle)
{
	return lower_32_bits(handle);
}

static inline u32 twdev_slot(const struct twdev_timeout *tdt)
{
	return twdev_handle_slot(tdt->handle);
}

/*
 * The clock of a live timeout, kept once: in its wheel timeout's flags
 * (tw_set_clock() at arm; unchanged while the timeout lives).
 */
static inline enum tw_clock twdev_clock(const struct twdev_timeout *tdt)
{
	return tw_flags_clock(READ_ONCE(tdt->tw.flags));
}

/**
 * twdev_has_ready() - is at least one record ready to be read
 * @tf: the file
 *
 * Lockless; see the comment in twdev_poll() about ordering.
 *
 * Return: true if read() would find a record now.
 */
static inline bool twdev_has_ready(const struct twdev_file *tf)
{
	return READ_ONCE(tf->nr_queued) != 0;
}

/* @ns moved by @off, kept inside 0..KTIME_MAX. */
static inline u64 twdev_shift_time(u64 ns, s64 off)
{
	s64 t;

	if (check_add_overflow((s64)ns, off, &t))
		return KTIME_MAX;
	return t < 0 ? 0 : t;
}

/**
 * twdev_to_user_time() - a kernel time as the file's opener reads it
 * @tf: the file
 * @clock: the clock of @ns
 * @ns: a time of @clock as the kernel reads it, at most KTIME_MAX
 *
 * Return: @ns in @clock of the opener's time namespace, as timerfd and
 * clock_gettime() give it.
 */
static inline u64 twdev_to_user_time(const struct twdev_file *tf,
				     enum tw_clock clock, u64 ns)
{
	return twdev_shift_time(ns, tf->ns_off[clock]);
}

/**
 * twdev_from_user_time() - an absolute time of the file's opener, for the
 *	kernel
 * @tf: the file
 * @clock: the clock of @ns
 * @ns: a time of @clock in the opener's time namespace, at most KTIME_MAX
 *
 * Like timens_ktime_to_host(), which modules cannot call: a time before the
 * namespace's offset has passed for the kernel too, and is 0.
 *
 * Return: @ns as the kernel reads @clock.
 */
static inline u64 twdev_from_user_time(const struct twdev_file *tf,
				       enum tw_clock clock, u64 ns)
{
	return twdev_shift_time(ns, -tf->ns_off[clock]);
}

/* dev_file.c */
struct twdev_file *twdev_file_new(void);
void twdev_file_free(struct twdev_file *tf);
int twdev_arm(struct twdev_file *tf, const struct twdev_req *req,
	      u64 *handle);
bool twdev_may_use_cpu(int cpu);
int twdev_rearm(struct twdev_file *tf, const struct twdev_req *req);
int twdev_cancel(struct twdev_file *tf, u64 handle, u32 flags);
int twdev_query(struct twdev_file *tf, u64 handle, u64 now,
		struct twheel_get *out);
unsigned int twdev_list(struct twdev_file *tf, unsigned long *cursor,
			u64 now, struct twheel_get *out, unsigned int max);
void twdev_stats(struct twdev_file *tf, struct twheel_stats *out);
void twdev_discard(struct twdev_file *tf, struct twdev_timeout *tdt);
void twdev_reap(struct twdev_file *tf);
void twdev_start(struct twdev_timeout *tdt, u64 now);
unsigned long twdev_max_user_timeouts(void);
void twdev_show_fdinfo(struct seq_file *m, struct file *file);
int twdev_file_init(void);
void twdev_file_exit(void);
int twdev_resolve(const struct twdev_file *tf, enum tw_clock clock,
		  u64 expires, u32 flags, u64 mono_now, u64 *deadline,
		  u64 *now);

/* dev_file.c: the users' allowance, in timeouts; the shared table */
int twdev_charge(struct twdev_file *tf, unsigned long n);
void twdev_uncharge(struct twdev_file *tf, unsigned long n);
int twdev_share(struct twdev_file *tf, struct twheel_share *req);

/* dev_share.c */
size_t twdev_share_size(const struct twheel_share *req);
struct twdev_share *twdev_share_new(struct twheel_share *req, u32 most);
void twdev_share_release(struct twdev_share *sh);
bool twdev_share_limit(const struct twdev_file *tf, struct xa_limit *limit);
bool twdev_share_picks(const struct twdev_file *tf);
int twdev_check_slot(const struct twdev_file *tf, u32 flags, u64 handle,
		     u32 *slot);
void twdev_share_set(const struct twdev_timeout *tdt);
void twdev_share_next(const struct twdev_timeout *tdt, u64 old);
void twdev_share_clear(const struct twdev_timeout *tdt);
u64 twdev_pushed(const struct twdev_timeout *tdt, u64 deadline, u64 now);
size_t twdev_share_bytes(const struct twdev_file *tf);
int twdev_mmap(struct file *file, struct vm_area_struct *vma);
bool twdev_has_ring(const struct twdev_file *tf);
bool twdev_ring_put(struct twdev_file *tf, const struct twheel_event *ev);
bool twdev_ring_ready(const struct twdev_file *tf);
void twdev_ring_waiting(struct twdev_file *tf, unsigned int nr);

/* dev_read.c */
void twdev_expire(struct twheel_timeout *t);
void twdev_wake(struct twheel_timeout *t);
void twdev_unqueue(struct twdev_file *tf, struct twdev_timeout *tdt);
void twdev_fill_record(struct twdev_timeout *tdt, u64 expired, u64 now,
		       struct twdev_record *rec);
ssize_t twdev_read_iter(struct kiocb *iocb, struct iov_iter *to);
__poll_t twdev_poll(struct file *file, struct poll_table_struct *wait);

/* dev_ioctl.c */
long twdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* dev_misc.c */
int twdev_init(void);
void twdev_exit(void);

#endif /* _TWHEEL_DEV_H */
