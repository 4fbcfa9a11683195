/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel.h - kernel API of the twheel per-CPU hierarchical timing wheel
 *
 * The one header a kernel client includes: build with
 * "ccflags-y += -I<twheel>/kmod/include" and link against the symbols that
 * twheel.ko exports (EXPORT_SYMBOL_GPL). A struct twheel_timeout is owned by
 * the caller (embed it in your own object); twheel never allocates on the
 * arm, cancel or expiry paths.
 *
 * Times are nanoseconds of the timeout's clock, chosen when it is
 * initialised: CLOCK_MONOTONIC (ktime_get(); twheel_timeout_init()) or
 * CLOCK_BOOTTIME (ktime_get_boottime(), which goes on counting during
 * suspend; twheel_timeout_init_clock()). A timeout never fires before its
 * deadline in its clock; it fires at most one wheel tick (module parameter
 * tick_ns) plus the machine's hrtimer/softirq latency after it, and a
 * CLOCK_BOOTTIME timeout whose deadline passed during suspend fires on
 * resume.
 *
 * Callbacks run in softirq context on the CPU that owns the timeout, with no
 * twheel lock held. A callback may re-arm its own timeout and may arm or
 * cancel other timeouts; it must not call twheel_cancel_sync() on itself.
 * Before the memory of a timeout is freed, twheel_shutdown_sync() (or
 * twheel_cancel_sync() when nothing can arm it any more) must have returned.
 */
#ifndef _LINUX_TWHEEL_H
#define _LINUX_TWHEEL_H

#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/time.h>
#include <linux/types.h>

struct twheel_timeout;

/**
 * typedef twheel_fn_t - expiry callback
 * @t: the timeout that expired; it is no longer pending when this runs.
 */
typedef void (*twheel_fn_t)(struct twheel_timeout *t);

/**
 * struct twheel_timeout - one timeout; embed it in your own structure
 * @entry: bucket, cascade or expired list linkage (private)
 * @expires: absolute wheel tick at which the timeout is due (private)
 * @func: callback run when the timeout expires
 * @flags: owning CPU and state bits (private, read with READ_ONCE)
 * @idx: bucket index while queued in a bucket (private)
 * @lockdep_map: lets lockdep see a cancel_sync that waits on a callback
 *	holding a lock the caller holds (private)
 *
 * Initialise with twheel_timeout_init() before first use. All fields are
 * private to twheel except @func, which is set by twheel_timeout_init().
 */
struct twheel_timeout {
	struct hlist_node entry;
	u64 expires;
	twheel_fn_t func;
	u32 flags;
	u32 idx;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map lockdep_map;
#endif
};

/* Arm on whichever CPU the caller runs on. */
#define TWHEEL_CPU_LOCAL	(-1)

/* Flags of twheel_mod(). */
/* Move the timeout only if it is pending; leave an idle one idle. */
#define TWHEEL_MOD_PENDING_ONLY	0x1U
/* Arm the timeout only if it is idle; leave a pending one as it is. */
#define TWHEEL_MOD_IDLE_ONLY	0x2U

void __twheel_timeout_init(struct twheel_timeout *t, twheel_fn_t func,
			   clockid_t clockid, const char *name,
			   struct lock_class_key *key);

#ifdef CONFIG_LOCKDEP
/**
 * twheel_timeout_init_clock() - prepare a timeout for use, on a clock
 * @t: the timeout
 * @func: callback run when it expires
 * @clockid: CLOCK_MONOTONIC or CLOCK_BOOTTIME: the clock of @t's deadlines
 *	until it is initialised again
 *
 * Must be called once before @t is armed; never on a pending timeout. Each
 * call site is its own lockdep class, as with timer_setup().
 *
 * Context: any context.
 */
#define twheel_timeout_init_clock(t, func, clockid)			\
	do {								\
		static struct lock_class_key __key;			\
									\
		__twheel_timeout_init((t), (func), (clockid), #t, &__key); \
	} while (0)
#else
#define twheel_timeout_init_clock(t, func, clockid)			\
	__twheel_timeout_init((t), (func), (clockid), NULL, NULL)
#endif

/**
 * twheel_timeout_init() - prepare a CLOCK_MONOTONIC timeout for use
 * @t: the timeout
 * @func: callback run when it expires
 *
 * twheel_timeout_init_clock() with CLOCK_MONOTONIC.
 *
 * Context: any context.
 */
#define twheel_timeout_init(t, func)					\
	twheel_timeout_init_clock((t), (func), CLOCK_MONOTONIC)

int twheel_mod(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns,
	       int cpu, unsigned int flags);
int twheel_arm(struct twheel_timeout *t, u64 delay_ns);
int twheel_arm_abs(struct twheel_timeout *t, u64 deadline_ns, int cpu);
int twheel_rearm(struct twheel_timeout *t, u64 delay_ns);
int twheel_cancel(struct twheel_timeout *t);
int twheel_try_cancel(struct twheel_timeout *t);
int twheel_cancel_sync(struct twheel_timeout *t);
int twheel_shutdown(struct twheel_timeout *t);
int twheel_shutdown_sync(struct twheel_timeout *t);
bool twheel_pending(const struct twheel_timeout *t);
u64 twheel_clock_ns(const struct twheel_timeout *t);
u64 twheel_tick_ns(void);
u64 twheel_max_delay_ns(void);

#endif /* _LINUX_TWHEEL_H */
