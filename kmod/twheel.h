/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel.h - kernel API of the twheel per-CPU hierarchical timing wheel
 *
 * Other modules include this header and link against the symbols that
 * twheel.ko exports (EXPORT_SYMBOL_GPL). A struct twheel_timeout is owned by
 * the caller (embed it in your own object); twheel never allocates on the
 * arm, cancel or expiry paths.
 *
 * Times are CLOCK_MONOTONIC nanoseconds (ktime_get()). A timeout never fires
 * before its deadline; it fires at most one wheel tick (module parameter
 * tick_ns) plus the machine's hrtimer/softirq latency after it.
 *
 * Callbacks run in softirq context on the CPU that owns the timeout, with no
 * twheel lock held. A callback may re-arm its own timeout and may arm or
 * cancel other timeouts; it must not call twheel_cancel_sync() on itself.
 */
#ifndef _TWHEEL_H
#define _TWHEEL_H

#include <linux/list.h>
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
 * @idx: bucket index while queued in the wheel (private)
 *
 * Initialise with twheel_timeout_init() before first use. All fields are
 * private to twheel except @func, which is set by twheel_timeout_init().
 */
struct twheel_timeout {
	struct list_head entry;
	u64 expires;
	twheel_fn_t func;
	u32 flags;
	u32 idx;
};

/* Arm on whichever CPU the caller runs on. */
#define TWHEEL_CPU_LOCAL	(-1)

void twheel_timeout_init(struct twheel_timeout *t, twheel_fn_t func);
int twheel_arm(struct twheel_timeout *t, u64 delay_ns);
int twheel_arm_abs(struct twheel_timeout *t, u64 deadline_ns, int cpu);
int twheel_rearm(struct twheel_timeout *t, u64 delay_ns);
int twheel_cancel(struct twheel_timeout *t);
int twheel_try_cancel(struct twheel_timeout *t);
int twheel_cancel_sync(struct twheel_timeout *t);
bool twheel_pending(const struct twheel_timeout *t);
u64 twheel_tick_ns(void);
u64 twheel_max_delay_ns(void);

#endif /* _TWHEEL_H */
