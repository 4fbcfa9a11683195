/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wheel.h - the wheel's private header: per-CPU base, geometry, internals
 *
 * Shared by the files of the wheel layer (wheel.c: geometry and the arm and
 * cancel primitives; expire.c: the hrtimer, expiry runs and the kick; cpu.c:
 * per-CPU bases, CPU choice and hotplug; stats.c: debugfs), by the device
 * layer, which arms its timeouts through tw_mod() after validating them
 * itself, and by the KUnit suites, which drive private bases. Every name
 * here starts with tw_. Kernel clients use <linux/twheel.h> only.
 */
#ifndef _TWHEEL_WHEEL_H
#define _TWHEEL_WHEEL_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/twheel.h>
#include <linux/types.h>

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
/* Timeouts moved with a base lock held, at most: bounds irqs-off time. */
#define TW_LOCKED_CHUNK		64U
/* Time the hrtimer runs of one CPU's bases may take before yielding. */
#define TW_RUN_NS		NSEC_PER_MSEC
/* How long the CPU is left to others after that: 20% of its time. */
#define TW_YIELD_NS		(TW_RUN_NS / 4)

/* t->idx of a timeout queued on the expired list, waiting for its callback. */
#define TW_IDX_EXPIRED		(TW_NR_BUCKETS + 1)

/* t->flags: owning CPU in the low bits. */
#define TW_F_CPU_MASK		0x0000ffffU
/* t->flags: moving between bases; tw_lock_timeout_base() waits for it. */
#define TW_F_MIGRATING		0x00010000U
/* t->flags: shut down; arms are ignored until it is initialised again. */
#define TW_F_SHUTDOWN		0x00020000U
/* t->flags: runs on CLOCK_BOOTTIME; set by twheel_timeout_init_clock(). */
#define TW_F_BOOTTIME		0x00040000U
/* t->flags: the owner's queue (struct tw_wheel of its base), tw_set_queue(). */
#define TW_F_QUEUE_SHIFT	24
#define TW_F_QUEUE_MASK		0x0f000000U

/*
 * Owners whose timeouts a base keeps apart, each on a wheel of its own:
 * queue 0 is the kernel clients', the others are handed out to the users of
 * /dev/twheel (tw_queue_get()); more users than that share them.
 */
#define TW_NR_QUEUES		((TW_F_QUEUE_MASK >> TW_F_QUEUE_SHIFT) + 1)
/* Timeouts one owner's turn of an expiry run may re-file. */
#define TW_TURN_REFILES		TW_LOCKED_CHUNK

/*
 * The clocks a timeout can run on. Each CPU has one base per clock, each
 * with its own hrtimer on that clock, so a CLOCK_BOOTTIME timeout whose
 * deadline passed during suspend fires on resume, as the hrtimer core
 * fires its own CLOCK_BOOTTIME timers.
 */
enum tw_clock {
	TW_CLOCK_MONO,
	TW_CLOCK_BOOT,
	TW_NR_CLOCKS,
};

/* The clock of a timeout whose flags are @tf. */
static inline enum tw_clock tw_flags_clock(u32 tf)
{
	return tf & TW_F_BOOTTIME ? TW_CLOCK_BOOT : TW_CLOCK_MONO;
}

/* The current time of @clock in nanoseconds. */
static inline u64 tw_clock_ns(enum tw_clock clock)
{
	return clock == TW_CLOCK_BOOT ? ktime_get_boottime_ns() :
					ktime_get_ns();
}

/* The coarse time of @clock: the last tick's, never ahead of tw_clock_ns(). */
static inline u64 tw_coarse_ns(enum tw_clock clock)
{
	return clock == TW_CLOCK_BOOT ? ktime_get_coarse_boottime_ns() :
					ktime_get_coarse_ns();
}

/*
 * @mono_ns, a CLOCK_MONOTONIC reading, as the same instant of @clock:
 * cheaper than a second clock read, and never later than a reading of
 * @clock taken after @mono_ns.
 */
static inline u64 tw_clock_from_mono(u64 mono_ns, enum tw_clock clock)
{
	if (clock == TW_CLOCK_MONO)
		return mono_ns;
	return ktime_to_ns(ktime_mono_to_any(ns_to_ktime(mono_ns),
					     TK_OFFS_BOOT));
}

/**
 * tw_idle_word() - the word an idle timeout lends its owner
 * @t: a timeout that is not pending: between the start of its callback (or
 *	its initialisation) and its next arm
 *
 * The wheel reads a timeout's expiry tick only while the timeout is pending
 * and when it takes it off to run its callback; a cancel, a shutdown or an
 * arm that skips an idle timeout (TWHEEL_MOD_PENDING_ONLY) leaves it alone.
 * In between, the owner may keep a value of its own there. The next arm
 * overwrites it.
 *
 * Return: the word.
 */
static inline u64 *tw_idle_word(struct twheel_timeout *t)
{
	return &t->expires;
}

/**
 * struct tw_stats - per-CPU counters for debugfs; nothing reads them back
 * @armed: arms of idle timeouts
 * @rearmed: arms of pending timeouts (moved to a new expiry)
 * @cancelled: pending timeouts removed by a cancel
 * @expired: callbacks run
 * @cascaded: timeouts moved from an upper level to a lower one
 * @migrated: timeouts moved here from another base (hotplug, CPU choice)
 * @hrtimer_fires: runs of the base's hrtimer callback
 * @ticks_skipped: ticks that passed without an hrtimer run (tickless)
 * @runs_cut: expiry runs that stopped at their budget and continue later
 * @max_late_ns: largest delay from a tick's start to its callback
 * @max_cb_ns: longest single callback run
 */
struct tw_stats {
	u64 armed;
	u64 rearmed;
	u64 cancelled;
	u64 expired;
	u64 cascaded;
	u64 migrated;
	u64 hrtimer_fires;
	u64 ticks_skipped;
	u64 runs_cut;
	u64 max_late_ns;
	u64 max_cb_ns;
};

/**
 * struct tw_wheel - the timeouts of one owner on one base
 * @clk: last tick processed; everything due at or before it is expired
 * @nr_pending: timeouts queued on the wheel (buckets, cascade, expired)
 * @levels_map: bit L set when level L has an occupied bucket
 * @occupied: per level, bit i set when bucket i of that level is non-empty
 * @cascade: timeouts of a due bucket, taken whole, to be re-filed; a bucket
 *	is taken only while it is empty
 * @expired: due timeouts waiting for their callbacks, in expiry order
 * @expired_last: the last entry of @expired (added behind), NULL if empty
 * @buckets: TW_LEVELS levels of TW_LVL_SIZE buckets
 *
 * Everything is protected by the lock of the base the wheel belongs to.
 */
struct tw_wheel {
	u64 clk;
	unsigned long nr_pending;
	unsigned long levels_map;
	u64 occupied[TW_LEVELS];
	struct hlist_head cascade;
	struct hlist_head expired;
	struct hlist_node *expired_last;
	struct hlist_head buckets[TW_NR_BUCKETS];
};

/**
 * struct tw_base - one CPU's wheels for one clock
 * @lock: protects every field below but @expiry_lock and @expiry_waiters,
 *	the wheels, and the lists of all timeouts queued on the base
 * @running: timeout whose callback runs right now, or NULL
 * @programmed: tick the hrtimer is set for, U64_MAX when it is not armed
 * @last_fire: tick of the previous hrtimer run: the hrtimer is never set
 *	for it or before it again, so a base runs at most once a tick
 * @nr_pending: timeouts queued on the base, over all its wheels
 * @active: bit q set when wheel q has timeouts queued
 * @next_turn: the wheel whose turn comes next in an expiry run
 * @online: the CPU is up and the base takes timeouts and programs its timer
 * @in_timer: the hrtimer callback is running; it reprograms on exit
 * @kick_sent: @kick_csd is on its way and its handler has not taken @lock yet
 * @cpu: the CPU this base belongs to
 * @clock: the clock of its ticks, its hrtimer and its timeouts
 * @moved: timeouts re-filed since the lock was last dropped
 * @wheels: the wheel of each queue, NULL until the queue is first used;
 *	wheels[0] is @own
 * @expiry_lock: held by the hrtimer callback while it runs callbacks; a
 *	cancel that finds its timeout's callback running waits on it (sleeps
 *	and boosts the callback on PREEMPT_RT instead of spinning)
 * @expiry_waiters: tasks waiting on @expiry_lock; the callback lets them in
 *	between two callbacks
 * @timer: pinned soft hrtimer that drives the base
 * @kick_csd: IPI that reprograms @timer on @cpu after an arm from another CPU
 * @stats: counters for debugfs
 * @own: the wheel of queue 0, the kernel clients'
 */
struct tw_base {
	raw_spinlock_t lock;	/* see the kernel-doc above */
	struct twheel_timeout *running;
	u64 programmed;
	u64 last_fire;
	unsigned long nr_pending;
	unsigned long active;
	unsigned int next_turn;
	bool online;
	bool in_timer;
	bool kick_sent;
	unsigned int cpu;
	enum tw_clock clock;
	unsigned int moved;
	struct tw_wheel *wheels[TW_NR_QUEUES];
	spinlock_t expiry_lock;	/* see the kernel-doc above */
	atomic_t expiry_waiters;
	struct hrtimer timer;
	call_single_data_t kick_csd;
	struct tw_stats stats;
	struct tw_wheel own;
};

/* The queue of a timeout whose flags are @tf. */
static inline unsigned int tw_flags_queue(u32 tf)
{
	return (tf & TW_F_QUEUE_MASK) >> TW_F_QUEUE_SHIFT;
}

/* The wheel of @base that holds (or would hold) timeouts with flags @tf. */
static inline struct tw_wheel *tw_wheel_of(const struct tw_base *base, u32 tf)
{
	return base->wheels[tw_flags_queue(tf)];
}

/* wheel.c: the setter of every unsigned int module parameter */
struct kernel_param;
int tw_param_set_uint(const char *val, const struct kernel_param *kp,
		      unsigned int min, unsigned int max);

/* wheel.c: where timeouts go when they cannot stay on a CPU */
unsigned int tw_other_cpu(unsigned int cpu);

/* wheel.c: geometry and clock */
u64 tw_ns_to_tick(u64 ns);
u64 tw_ns_to_tick_floor(u64 ns);
u64 tw_tick_to_ns(u64 tick);
void tw_set_tick(void);
unsigned int tw_calc_idx(u64 clk, u64 expires);
u64 tw_bucket_tick(u64 clk, unsigned int idx);
int tw_check_deadline(u64 deadline_ns, u64 now_ns);

/* wheel.c: a base and its timeouts, called with base->lock held */
void tw_base_init(struct tw_base *base, unsigned int cpu,
		  enum tw_clock clock, u64 clk);
void tw_wheel_init(struct tw_wheel *w, u64 clk);
u64 tw_wheel_next_event(const struct tw_wheel *w);
u64 tw_next_event(const struct tw_base *base);
void tw_enqueue(struct tw_base *base, struct twheel_timeout *t);
bool tw_dequeue(struct tw_base *base, struct twheel_timeout *t);
bool tw_wheel_advance(struct tw_base *base, struct tw_wheel *w, u64 now,
		      unsigned int *budget);
void tw_program(struct tw_base *base, u64 due);
void tw_idle_base(struct tw_base *base);
void tw_debug_deactivate(struct twheel_timeout *t);

/* wheel.c: the arm primitive without validation, for the device layer */
int tw_mod(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns, int cpu,
	   unsigned int flags);
void tw_shutdown_many(struct twheel_timeout **ts, unsigned int n);
void tw_set_clock(struct twheel_timeout *t, enum tw_clock clock);
void tw_set_queue(struct twheel_timeout *t, unsigned int queue);

/* expire.c */
enum hrtimer_restart tw_hrtimer_fn(struct hrtimer *timer);
void tw_kick_fn(void *info);
void tw_send_kick(struct tw_base *base);
void tw_kicks_drain(void);
void tw_wait_running(struct twheel_timeout *t);
bool tw_in_callback(void);
void tw_sync_callbacks(void);

/* cpu.c */
/* One CPU's bases, indexed by enum tw_clock. */
struct tw_cpu_bases {
	struct tw_base base[TW_NR_CLOCKS];
};

/* Every CPU's bases (cpu.c), looked up on every arm and cancel. */
extern struct tw_cpu_bases __percpu *tw_bases;

/**
 * tw_base_of() - a CPU's base of a clock
 * @cpu: a possible CPU
 * @clock: the clock
 *
 * Return: its base.
 */
static inline struct tw_base *tw_base_of(unsigned int cpu,
					 enum tw_clock clock)
{
	return &per_cpu_ptr(tw_bases, cpu)->base[clock];
}

int tw_queue_get(void);
void tw_queue_put(unsigned int queue);
int tw_init(void);
void tw_exit(void);

/* stats.c */
void tw_stats_snapshot(unsigned int cpu, struct tw_stats *out,
		       unsigned long *nr_pending);
void tw_stats_init(void);
void tw_stats_exit(void);

/* The bits of t->flags that name a base (and say it is being left). */
#define TW_F_BASE_MASK		(TW_F_CPU_MASK | TW_F_BOOTTIME | TW_F_MIGRATING)

/* t->flags & TW_F_BASE_MASK of a timeout queued on @base. */
static inline u32 tw_base_flags(const struct tw_base *base)
{
	return base->cpu | (base->clock == TW_CLOCK_BOOT ? TW_F_BOOTTIME : 0);
}

/* The base a timeout whose flags are @tf is queued on (or was last). */
static inline struct tw_base *tw_base_of_flags(u32 tf)
{
	return tw_base_of(tf & TW_F_CPU_MASK, tw_flags_clock(tf));
}

#if IS_ENABLED(CONFIG_KUNIT)
bool tw_base_timer_armed(unsigned int cpu, enum tw_clock clock);
#endif

#endif /* _TWHEEL_WHEEL_H */
