/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libtwheel.h - userspace library for /dev/twheel
 *
 * A struct twheel is one open file of /dev/twheel (a private set of
 * timeouts) plus a submission queue and an event buffer:
 *
 *   twheel_open()          open + TWHEEL_IOC_INFO handshake, feature checks
 *   twheel_prep_arm()      queue an arm        \
 *   twheel_prep_rearm()    queue a re-arm       } results in caller slots
 *   twheel_prep_cancel()   queue a cancel       }
 *   twheel_prep_get()      queue a look-up     /
 *   twheel_flush()         submit the queue in one TWHEEL_IOC_BATCH
 *   twheel_fill()          flush, then read() expiry records into the
 *                          event buffer
 *   twheel_for_each_event  iterate over them
 *   twheel_fd()            the file descriptor, for poll/epoll
 *   twheel_share()         share the file's timeout table and expiry ring
 *   twheel_refresh()       push a deadline out: a store into that table
 *   twheel_get_stats(), twheel_drain()   the file's counters, its timeouts
 *   twheel_clock_ns()      now, in the clock of a timeout's arm flags
 *   twheel_version()       the release of the library
 *
 * Cancel means gone, here too: twheel_fill() and twheel_read() submit the
 * queued operations before they read, and a queued cancel or re-arm drops
 * the records of its handle that twheel_fill() buffered and the program has
 * not iterated yet. No record of a cancelled timeout reaches the program.
 *
 * Every function that can fail returns a negative errno; errno itself is
 * left alone. Thread safety: a struct twheel is not locked. Use one per
 * thread, or serialise all calls on one struct twheel yourself. Different
 * struct twheel objects are independent and may be used concurrently.
 * The man pages libtwheel(3), twheel_open(3), twheel_prep_arm(3),
 * twheel_fill(3) and twheel_get_stats(3) describe every call.
 */
#ifndef LIBTWHEEL_H
#define LIBTWHEEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/twheel.h>

#ifdef __cplusplus
extern "C" {
#endif


/* Default device path and queue depth. */
#define TWHEEL_DEVICE		"/dev/twheel"
#define TWHEEL_DEFAULT_DEPTH	256

/* Flags of twheel_open(). */
/* read() (twheel_fill(), twheel_read()) fails with -EAGAIN instead of waiting. */
#define TWHEEL_OPEN_NONBLOCK	0x1U
#define TWHEEL_OPEN_FLAGS_ALL	TWHEEL_OPEN_NONBLOCK

struct twheel;

/*
 * Where a queued operation's outcome is delivered when its batch has been
 * submitted. @result is the operation's negative errno (-ENOENT for a handle
 * that is not live, ...), else 0, or for a cancel with TWHEEL_CANCEL_REPORT
 * a TWHEEL_CANCELLED_*, for a get a TWHEEL_STATE_*. @handle is the new
 * handle of an arm (0 if it failed), else the handle operated on. For a get
 * that succeeded, @cookie, @deadline (in the timeout's clock), @period,
 * @flags (TWHEEL_ARM_CPU, TWHEEL_ARM_FIXED_DELAY, TWHEEL_ARM_BOOTTIME), @cpu
 * and @remaining (ns from the flush to @deadline, read on the timeout's
 * clock; 0 once it has passed) describe the timeout; they are 0 for the
 * other operations. The slot must stay valid until the twheel_flush() that
 * submits it returns.
 *
 * Growth: new fields take the room of @reserved, which the library always
 * writes as zero, so the size of this structure does not change. (Programs
 * built against libtwheel 1.0 pass the 48 bytes up to @remaining; the
 * library writes only those for them.)
 */
struct twheel_result {
	uint64_t handle;
	int32_t result;
	uint32_t op;	/* TWHEEL_OP_ARM, _REARM, _CANCEL or _GET */
	uint64_t cookie;
	uint64_t deadline;
	uint64_t period;
	uint32_t flags;
	uint32_t cpu;
	uint64_t remaining;
	uint64_t reserved[5];
};

/* Open and handshake. @path NULL means TWHEEL_DEVICE; @depth 0 means
 * TWHEEL_DEFAULT_DEPTH (capped at the module's max_batch). */
int twheel_open(struct twheel **twp, const char *path, unsigned int depth,
		unsigned int flags);
void twheel_close(struct twheel *tw);
int twheel_fd(const struct twheel *tw);
const struct twheel_info *twheel_get_info(const struct twheel *tw);
int twheel_supports(const struct twheel *tw, uint32_t arm_flags);

/*
 * Queue; the queue is flushed automatically when it is full, and before
 * every twheel_fill() and twheel_read().
 */
int twheel_prep_arm(struct twheel *tw, uint64_t cookie, uint64_t expires,
		    uint64_t period, uint32_t flags, uint32_t cpu,
		    struct twheel_result *res);
int twheel_prep_rearm(struct twheel *tw, uint64_t handle, uint64_t expires,
		      uint32_t flags, struct twheel_result *res);
int twheel_prep_cancel(struct twheel *tw, uint64_t handle, uint32_t flags,
		       struct twheel_result *res);
int twheel_prep_get(struct twheel *tw, uint64_t handle,
		    struct twheel_result *res);
int twheel_flush(struct twheel *tw);
unsigned int twheel_queued(const struct twheel *tw);
unsigned int twheel_discard(struct twheel *tw);

/* Events. */
int twheel_read(struct twheel *tw, struct twheel_event *ev, unsigned int nr);
int twheel_fill(struct twheel *tw);
const struct twheel_event *twheel_next_event(struct twheel *tw);

#define twheel_for_each_event(tw, ev) \
	for ((ev) = twheel_next_event(tw); (ev); (ev) = twheel_next_event(tw))

/* How late an event was delivered, in ns (never negative). */
static inline uint64_t twheel_event_late_ns(const struct twheel_event *ev)
{
	return ev->expired > ev->deadline ? ev->expired - ev->deadline : 0;
}

static inline int twheel_event_is_periodic(const struct twheel_event *ev)
{
	return !!(ev->flags & TWHEEL_EV_PERIODIC);
}

/*
 * Set by the library in a one-shot record it returns (twheel_read(),
 * twheel_fill()): the table entry held a later deadline than the one that
 * fired, which the kernel did not apply. It was stored after the kernel had
 * taken the record (by another thread during the read; with a ring, any
 * time after the record went into the ring), or it was past the wheel's
 * range. The timeout is dead: a program that still wants it arms a new
 * one. Never set by the kernel.
 */
#define TWHEEL_EV_REFRESH_MISSED	0x80000000U

/*
 * The shared timeout table (TWHEEL_FEAT_SHARE): before the first arm.
 * @slots 0 means as many as the module allows a file (max_pending + 1).
 * @ring_entries, if not 0, also asks for an expiry ring of that many
 * records (rounded up to a power of two): twheel_read() and twheel_fill()
 * then take records from memory, with no system call while there are some.
 * (A failure after the table is set up leaves the table in place.)
 * Then twheel_refresh() of a deadline at or after the one in the table is a
 * store, no system call (0); an earlier one, or any without a table, queues
 * a re-arm to @deadline (absolute, the timeout's clock) like
 * twheel_prep_rearm() with TWHEEL_ARM_ABS (1: @res gets its result at the
 * flush). -ENOENT: the handle is not live (with a table, known at once).
 */
int twheel_share(struct twheel *tw, unsigned int slots,
		 unsigned int ring_entries);
/*
 * As twheel_share(), with TWHEEL_SHARE_PICK_SLOTS in @flags (the only one
 * taken; -EOPNOTSUPP from a module without TWHEEL_ARM_SLOT): the program
 * then picks the table entry of every timeout it arms, with
 * twheel_prep_arm_slot() (twheel_prep_arm() fails there), and may use the
 * entries as an array of its own. An arm into an entry whose timeout is
 * live gets -EBUSY at the flush.
 */
int twheel_share_flags(struct twheel *tw, unsigned int slots,
		       unsigned int ring_entries, uint32_t flags);
int twheel_prep_arm_slot(struct twheel *tw, uint32_t slot, uint64_t cookie,
			 uint64_t expires, uint64_t period, uint32_t flags,
			 uint32_t cpu, struct twheel_result *res);
int twheel_refresh(struct twheel *tw, uint64_t handle, uint64_t deadline,
		   struct twheel_result *res);
const struct twheel_slot *twheel_table(const struct twheel *tw,
				       unsigned int *slots);

/* Whole-file queries (-EOPNOTSUPP without TWHEEL_FEAT_STATS / _DRAIN). */
int twheel_get_stats(struct twheel *tw, struct twheel_stats *st);
int twheel_drain(struct twheel *tw, struct twheel_get *entries, unsigned int nr,
		 uint64_t *cursor, uint32_t flags);

/*
 * Now, in ns, in the clock of a timeout armed with @arm_flags:
 * CLOCK_BOOTTIME with TWHEEL_ARM_BOOTTIME, else CLOCK_MONOTONIC. Deadlines
 * (twheel_event.deadline and .expired, twheel_result.deadline) are in that
 * clock, as the calling process sees it (its time namespace).
 */
uint64_t twheel_clock_ns(uint32_t arm_flags);

/* CLOCK_MONOTONIC now, in ns: twheel_clock_ns(0). */
uint64_t twheel_now_ns(void);

/* The release of the library, e.g. "0.2.0": for messages, not for feature
 * tests (twheel_get_info()->ioctls and ->arm_flags say what the module has). */
const char *twheel_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LIBTWHEEL_H */
