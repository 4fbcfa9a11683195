/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel_internal.h - the wheel's per-CPU base and geometry
 *
 * Shared by wheel.c (the wheel), stats.c (debugfs) and the KUnit suite,
 * which drives private bases through the functions declared at the bottom.
 * Nothing here is kernel API: modules use twheel.h.
 */
#ifndef _TWHEEL_WHEEL_INTERNAL_H
#define _TWHEEL_WHEEL_INTERNAL_H

#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/smp.h>

#include "twheel.h"

/* Each level has 2^TW_LVL_BITS buckets and covers TW_LVL_BITS bits of the tick. */
#define TW_LVL_BITS		6
/* Buckets per level: one u64 occupancy word per level. */
#define TW_LVL_SIZE		BIT(TW_LVL_BITS)
/* Digit mask of one level. */
#define TW_LVL_MASK		(TW_LVL_SIZE - 1)
/* Enough levels to cover every bit of a u64 tick (11 x 6 >= 64). */
#define TW_LEVELS		DIV_ROUND_UP(64, TW_LVL_BITS)
/* Buckets per base. */
#define TW_NR_BUCKETS		(TW_LEVELS * TW_LVL_SIZE)
/* Longest accepted delay in ticks: 2^40 ticks is 34 years at 1 ms. */
#define TW_MAX_DELTA_TICKS	BIT_ULL(40)

/* t->idx of a timeout queued on the expired list, waiting for its callback. */
#define TW_IDX_EXPIRED		(TW_NR_BUCKETS + 1)
/* t->idx of a timeout on the cascade list, waiting to be re-bucketed. */
#define TW_IDX_CASCADE		(TW_NR_BUCKETS + 2)

/* t->flags: owning CPU in the low bits. */
#define TW_F_CPU_MASK		0x0000ffffU
/* t->flags: moving between bases; lock_timeout_base() waits for it. */
#define TW_F_MIGRATING		0x00010000U

/**
 * struct twheel_stats - per-CPU counters, updated under the base lock
 * @pending: timeouts queued on this base now (wheel, cascade and expired)
 * @armed: arms of idle timeouts
 * @rearmed: arms of pending timeouts (moved to a new expiry)
 * @cancelled: pending timeouts removed by a cancel
 * @expired: callbacks run
 * @cascaded: timeouts moved from an upper level to a lower one
 * @migrated: timeouts moved here from another base (hotplug, CPU choice)
 * @hrtimer_fires: runs of the base's hrtimer callback
 * @ticks_skipped: ticks that passed without an hrtimer run (tickless)
 * @max_late_ns: largest delay from a tick's start to its callback
 * @max_cb_ns: longest single callback run
 */
struct twheel_stats {
	u64 pending;
	u64 armed;
	u64 rearmed;
	u64 cancelled;
	u64 expired;
	u64 cascaded;
	u64 migrated;
	u64 hrtimer_fires;
	u64 ticks_skipped;
	u64 max_late_ns;
	u64 max_cb_ns;
};

/**
 * struct twheel_base - one CPU's wheel
 * @lock: protects every field below and the lists of all queued timeouts
 * @running: timeout whose callback runs right now, or NULL
 * @clk: last tick processed; everything due at or before it is expired
 * @programmed: tick the hrtimer is set for, U64_MAX when it is not armed
 * @last_fire: tick of the previous hrtimer run, for @stats.ticks_skipped
 * @levels_map: bit L set when level L has an occupied bucket
 * @online: the CPU is up and the base takes timeouts and programs its timer
 * @in_timer: the hrtimer callback is running; it reprograms on exit
 * @cpu: the CPU this base belongs to
 * @occupied: per level, bit i set when bucket i of that level is non-empty
 * @cascade: timeouts taken from a due upper-level bucket, to be re-bucketed
 * @expired: due timeouts waiting for their callbacks, in expiry order
 * @timer: pinned soft hrtimer that drives the base
 * @kick_sent: @kick_csd is on its way and its handler has not taken @lock yet
 * @kick_csd: IPI that reprograms @timer on @cpu after an arm from another CPU
 * @stats: counters for debugfs
 * @buckets: TW_LEVELS levels of TW_LVL_SIZE buckets
 */
struct twheel_base {
	raw_spinlock_t lock;	/* see the kernel-doc above */
	struct twheel_timeout *running;
	u64 clk;
	u64 programmed;
	u64 last_fire;
	unsigned long levels_map;
	bool online;
	bool in_timer;
	bool kick_sent;
	unsigned int cpu;
	u64 occupied[TW_LEVELS];
	struct list_head cascade;
	struct list_head expired;
	struct hrtimer timer;
	call_single_data_t kick_csd;
	struct twheel_stats stats;
	struct list_head buckets[TW_NR_BUCKETS];
};

/* Wheel internals that the KUnit suite drives on private bases. */
#if IS_ENABLED(CONFIG_KUNIT)
unsigned int twheel_calc_idx(u64 clk, u64 expires);
u64 twheel_bucket_tick(u64 clk, unsigned int idx);
u64 twheel_next_event(const struct twheel_base *base);
void twheel_base_setup(struct twheel_base *base, unsigned int cpu, u64 clk);
void twheel_enqueue(struct twheel_base *base, struct twheel_timeout *t);
bool twheel_detach(struct twheel_base *base, struct twheel_timeout *t);
bool twheel_base_advance(struct twheel_base *base, u64 now_tick,
			 unsigned int budget);
u64 twheel_ns_to_tick(u64 ns);
#endif
void twheel_stats_snapshot(unsigned int cpu, struct twheel_stats *out);
bool twheel_base_timer_armed(unsigned int cpu);

int twheel_stats_init(void);
void twheel_stats_exit(void);

#endif /* _TWHEEL_WHEEL_INTERNAL_H */
