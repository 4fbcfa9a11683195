// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_kunit.c - KUnit suites of the twheel wheel (twheel_kunit.ko)
 *
 * twheel_geometry: bucket and level arithmetic at every edge.
 * twheel_base: private bases driven tick by tick with a synthetic clock:
 *	cascades, exact expiry, ordering, never early, the budget.
 * twheel_api: the exported API on the live per-CPU wheels: every state of
 *	cancel, cancel_sync against a running callback, self re-arm, races
 *	from several CPUs, tickless, CPU hotplug and a 100,000-timeout load.
 *
 * Private bases are only touched by the test thread, under their lock as
 * the wheel expects. Counters shared with callbacks are atomics.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "twheel.h"
#include "wheel_internal.h"

/* Lateness allowed on top of one tick: a 2-vCPU TCG guest with KASAN. */
#define TEST_LATENCY_SLACK_NS	(500 * NSEC_PER_MSEC)
#define LOAD_COUNT		100000
#define LOAD_SPREAD_MS		2000

static u64 lvl_start(unsigned int lvl)
{
	return 1ULL << (lvl * TW_LVL_BITS);
}

static void geometry_level0_edges(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, twheel_calc_idx(0, 1), 1U);
	KUNIT_EXPECT_EQ(test, twheel_calc_idx(0, 63), 63U);
	KUNIT_EXPECT_EQ(test, twheel_calc_idx(64, 127), 63U);
	KUNIT_EXPECT_EQ(test, twheel_bucket_tick(0, 1), 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_bucket_tick(0, 63), 63ULL);
	KUNIT_EXPECT_EQ(test, twheel_bucket_tick(64, 127 % TW_LVL_SIZE), 127ULL);
}

static void geometry_level1_edges(struct kunit *test)
{
	/* 64 and 65 share level 1 digit 1: cascaded at tick 64. */
	KUNIT_EXPECT_EQ(test, twheel_calc_idx(0, 64), TW_LVL_SIZE + 1);
	KUNIT_EXPECT_EQ(test, twheel_calc_idx(0, 65), TW_LVL_SIZE + 1);
	KUNIT_EXPECT_EQ(test, twheel_bucket_tick(0, TW_LVL_SIZE + 1), 64ULL);
	/* A carry out of level 0 is level 1 even one tick ahead. */
	KUNIT_EXPECT_EQ(test, twheel_calc_idx(63, 64), TW_LVL_SIZE + 1);
	KUNIT_EXPECT_EQ(test, twheel_bucket_tick(63, TW_LVL_SIZE + 1), 64ULL);
	KUNIT_EXPECT_EQ(test, twheel_calc_idx(0, 4095), 2 * TW_LVL_SIZE - 1);
}

static void geometry_every_level_boundary(struct kunit *test)
{
	unsigned int lvl, idx;

	for (lvl = 1; lvl < TW_LEVELS; lvl++) {
		u64 e = lvl_start(lvl);

		idx = twheel_calc_idx(e - 1, e);
		KUNIT_EXPECT_EQ_MSG(test, idx, lvl * TW_LVL_SIZE + 1,
				    "level %u", lvl);
		KUNIT_EXPECT_EQ_MSG(test, twheel_bucket_tick(e - 1, idx), e,
				    "level %u", lvl);
		idx = twheel_calc_idx(0, e - 1);
		KUNIT_EXPECT_EQ_MSG(test, idx / TW_LVL_SIZE, lvl - 1,
				    "level %u", lvl);
	}
}

static void geometry_max_range_and_high_clock(struct kunit *test)
{
	/* Clocks near the top of what ktime allows; carries through all digits. */
	u64 clks[] = { 0, (1ULL << 40) - 1, (1ULL << 53) - 1,
		       (1ULL << 60) - 1, (1ULL << 62) + 12345 };
	u64 deltas[] = { 1, 63, 64, 65, 4095, 4096, 4097,
			 TW_MAX_DELTA_TICKS - 1, TW_MAX_DELTA_TICKS };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(clks); i++) {
		for (j = 0; j < ARRAY_SIZE(deltas); j++) {
			u64 e = clks[i] + deltas[j];
			unsigned int idx = twheel_calc_idx(clks[i], e);
			u64 due = twheel_bucket_tick(clks[i], idx);

			KUNIT_EXPECT_LT(test, idx, TW_NR_BUCKETS);
			KUNIT_EXPECT_GT(test, due, clks[i]);
			KUNIT_EXPECT_LE(test, due, e);
		}
	}
}

static void geometry_random_never_early(struct kunit *test)
{
	struct rnd_state rnd;
	unsigned int i;

	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 100000; i++) {
		u64 clk = ((u64)prandom_u32_state(&rnd) << 20) ^
			  prandom_u32_state(&rnd);
		u64 d = 1 + (prandom_u32_state(&rnd) >>
			     (prandom_u32_state(&rnd) % 32));
		unsigned int idx = twheel_calc_idx(clk, clk + d);
		u64 due = twheel_bucket_tick(clk, idx);

		/* A bucket comes due after the clock and not after its timeouts. */
		if (due <= clk || due > clk + d) {
			KUNIT_FAIL(test, "clk %llu d %llu idx %u due %llu",
				   clk, d, idx, due);
			return;
		}
	}
}

static void geometry_ns_to_tick_rounds_up(struct kunit *test)
{
	u64 tick = twheel_tick_ns();

	KUNIT_EXPECT_EQ(test, twheel_ns_to_tick(0), 0ULL);
	KUNIT_EXPECT_EQ(test, twheel_ns_to_tick(1), 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_ns_to_tick(tick), 1ULL);
	KUNIT_EXPECT_EQ(test, twheel_ns_to_tick(tick + 1), 2ULL);
	KUNIT_EXPECT_EQ(test, twheel_ns_to_tick(1000 * tick - 1), 1000ULL);
}

static void geometry_ns_to_tick_matches_division(struct kunit *test)
{
	u64 tick = twheel_tick_ns();
	struct rnd_state rnd;
	unsigned int i;

	prandom_seed_state(&rnd, 3);
	for (i = 0; i < 100000; i++) {
		u64 ns = (((u64)prandom_u32_state(&rnd) << 32) |
			  prandom_u32_state(&rnd)) >> (1 + i % 40);

		if (i % 3 == 0)
			ns -= ns % tick;	/* exact multiples of the tick */
		if (twheel_ns_to_tick(ns) != div64_u64(ns + tick - 1, tick)) {
			KUNIT_FAIL(test, "ns %llu: %llu, want %llu", ns,
				   twheel_ns_to_tick(ns),
				   div64_u64(ns + tick - 1, tick));
			return;
		}
	}
	KUNIT_EXPECT_EQ(test, twheel_ns_to_tick(KTIME_MAX),
			div64_u64(KTIME_MAX + tick - 1, tick));
}

static struct kunit_case geometry_cases[] = {
	KUNIT_CASE(geometry_level0_edges),
	KUNIT_CASE(geometry_level1_edges),
	KUNIT_CASE(geometry_every_level_boundary),
	KUNIT_CASE(geometry_max_range_and_high_clock),
	KUNIT_CASE(geometry_random_never_early),
	KUNIT_CASE(geometry_ns_to_tick_rounds_up),
	KUNIT_CASE(geometry_ns_to_tick_matches_division),
	{}
};

static struct kunit_suite geometry_suite = {
	.name = "twheel_geometry",
	.test_cases = geometry_cases,
};

/* Private-base tests: the wheel without hrtimers, on a synthetic clock. */

static void nop_fn(struct twheel_timeout *t)
{
}

static struct twheel_base *new_base(struct kunit *test, u64 clk)
{
	struct twheel_base *base = kunit_kzalloc(test, sizeof(*base),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, base);
	twheel_base_setup(base, 0, clk);
	return base;
}

static void vfree_action(void *p)
{
	vfree(p);
}

/* vzalloc() that KUnit frees when the test ends, however it ends. */
static void *test_vzalloc(struct kunit *test, size_t size)
{
	void *p = vzalloc(size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, vfree_action, p),
			0);
	return p;
}

/* Keep the test thread on one CPU so that its arms are local ones. */
static void restore_affinity(void *unused)
{
	set_cpus_allowed_ptr(current, cpu_possible_mask);
}

static unsigned int pin_to_cpu(struct kunit *test, unsigned int cpu)
{
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)),
			0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, restore_affinity,
							NULL), 0);
	KUNIT_ASSERT_EQ(test, raw_smp_processor_id(), cpu);
	return cpu;
}

static struct twheel_timeout *new_timeouts(struct kunit *test, unsigned int n)
{
	struct twheel_timeout *t;
	unsigned int i;

	t = test_vzalloc(test, n * sizeof(*t));
	for (i = 0; i < n; i++)
		twheel_timeout_init(&t[i], nop_fn);
	return t;
}

static void add_at(struct twheel_base *base, struct twheel_timeout *t,
		   u64 expires)
{
	raw_spin_lock_irq(&base->lock);
	t->expires = expires;
	twheel_enqueue(base, t);
	base->stats.pending++;
	raw_spin_unlock_irq(&base->lock);
}

/*
 * Advance @base to @now and take its expired timeouts off; checks each one
 * is due (never early) and returns how many there were.
 */
static unsigned int advance_and_reap(struct kunit *test,
				     struct twheel_base *base, u64 now,
				     u64 *last_expires)
{
	struct twheel_timeout *t, *tmp;
	unsigned int n = 0;

	raw_spin_lock_irq(&base->lock);
	KUNIT_EXPECT_FALSE(test, twheel_base_advance(base, now, UINT_MAX));
	list_for_each_entry_safe(t, tmp, &base->expired, entry) {
		KUNIT_EXPECT_LE(test, t->expires, now);
		if (last_expires) {
			KUNIT_EXPECT_GE(test, t->expires, *last_expires);
			*last_expires = t->expires;
		}
		twheel_detach(base, t);
		n++;
	}
	raw_spin_unlock_irq(&base->lock);
	return n;
}

static void base_cascade_exact_tick(struct kunit *test)
{
	static const u64 due[] = { 1, 2, 63, 64, 65, 127, 128, 4095, 4096,
				   4097, 262143, 262144, 262145, 300000,
				   16777216 + 3 };
	struct twheel_base *base = new_base(test, 0);
	struct twheel_timeout *t = new_timeouts(test, ARRAY_SIZE(due));
	unsigned int i, fired = 0;
	u64 next;

	for (i = 0; i < ARRAY_SIZE(due); i++)
		add_at(base, &t[i], due[i]);

	/* Jump from event to event: each timeout fires exactly at its tick. */
	while ((next = twheel_next_event(base)) != U64_MAX) {
		struct twheel_timeout *e, *tmp;

		raw_spin_lock_irq(&base->lock);
		twheel_base_advance(base, next, UINT_MAX);
		list_for_each_entry_safe(e, tmp, &base->expired, entry) {
			KUNIT_EXPECT_EQ(test, e->expires, base->clk);
			twheel_detach(base, e);
			fired++;
		}
		raw_spin_unlock_irq(&base->lock);
	}
	KUNIT_EXPECT_EQ(test, fired, (unsigned int)ARRAY_SIZE(due));
	KUNIT_EXPECT_GT(test, base->stats.cascaded, 0ULL);
	KUNIT_EXPECT_EQ(test, base->stats.pending, 0ULL);
	KUNIT_EXPECT_EQ(test, base->levels_map, 0UL);
}

static void base_not_due_one_tick_early(struct kunit *test)
{
	static const u64 due[] = { 64, 4096, 262144, 1ULL << 30 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(due); i++) {
		struct twheel_base *base = new_base(test, 0);
		struct twheel_timeout *t = new_timeouts(test, 1);

		add_at(base, t, due[i]);
		KUNIT_EXPECT_EQ(test, advance_and_reap(test, base, due[i] - 1,
						       NULL), 0U);
		KUNIT_EXPECT_EQ(test, advance_and_reap(test, base, due[i],
						       NULL), 1U);
	}
}

static void base_random_never_early_in_order(struct kunit *test)
{
	const unsigned int n = 20000;
	struct twheel_base *base = new_base(test, 1000);
	struct twheel_timeout *t = new_timeouts(test, n);
	u64 now = 1000, last = 0;
	unsigned int i, fired = 0;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, 7);
	for (i = 0; i < n; i++)
		add_at(base, &t[i], 1001 + (prandom_u32_state(&rnd) >>
					    (10 + prandom_u32_state(&rnd) % 22)));
	while (fired < n) {
		now += 1 + (prandom_u32_state(&rnd) % 5000);
		fired += advance_and_reap(test, base, now, &last);
		for (i = 0; i < n; i += 97)
			if (!list_empty(&t[i].entry))
				KUNIT_EXPECT_GT(test, t[i].expires, now);
	}
	KUNIT_EXPECT_EQ(test, fired, n);
}

static void base_cancel_clears_bitmaps(struct kunit *test)
{
	struct twheel_base *base = new_base(test, 0);
	struct twheel_timeout *t = new_timeouts(test, 3);

	add_at(base, &t[0], 10);
	add_at(base, &t[1], 10);
	add_at(base, &t[2], 5000);
	raw_spin_lock_irq(&base->lock);
	KUNIT_EXPECT_TRUE(test, twheel_detach(base, &t[0]));
	KUNIT_EXPECT_NE(test, base->occupied[0], 0ULL);
	KUNIT_EXPECT_TRUE(test, twheel_detach(base, &t[1]));
	KUNIT_EXPECT_EQ(test, base->occupied[0], 0ULL);
	KUNIT_EXPECT_FALSE(test, twheel_detach(base, &t[1]));
	KUNIT_EXPECT_EQ(test, twheel_next_event(base),
			twheel_bucket_tick(0, twheel_calc_idx(0, 5000)));
	KUNIT_EXPECT_TRUE(test, twheel_detach(base, &t[2]));
	KUNIT_EXPECT_EQ(test, base->levels_map, 0UL);
	KUNIT_EXPECT_EQ(test, twheel_next_event(base), U64_MAX);
	raw_spin_unlock_irq(&base->lock);
}

static void base_budget_resumes(struct kunit *test)
{
	const unsigned int n = 1000;
	struct twheel_base *base = new_base(test, 0);
	struct twheel_timeout *t = new_timeouts(test, n);
	unsigned int i, rounds = 0, fired = 0;

	/* All in one level-1 bucket: one cascade of n timeouts. */
	for (i = 0; i < n; i++)
		add_at(base, &t[i], 64 + (i % 64));
	raw_spin_lock_irq(&base->lock);
	while (twheel_base_advance(base, 200, 100))
		rounds++;
	raw_spin_unlock_irq(&base->lock);
	KUNIT_EXPECT_GE(test, rounds, n / 100 - 1);
	fired = advance_and_reap(test, base, 200, NULL);
	KUNIT_EXPECT_EQ(test, fired, n);
}

static void base_past_due_goes_to_expired(struct kunit *test)
{
	struct twheel_base *base = new_base(test, 500);
	struct twheel_timeout *t = new_timeouts(test, 2);

	add_at(base, &t[0], 500);
	add_at(base, &t[1], 3);
	KUNIT_EXPECT_EQ(test, t[0].idx, (u32)TW_IDX_EXPIRED);
	KUNIT_EXPECT_EQ(test, t[1].idx, (u32)TW_IDX_EXPIRED);
	KUNIT_EXPECT_EQ(test, twheel_next_event(base), 500ULL);
	KUNIT_EXPECT_EQ(test, advance_and_reap(test, base, 500, NULL), 2U);
}

static struct kunit_case base_cases[] = {
	KUNIT_CASE(base_cascade_exact_tick),
	KUNIT_CASE(base_not_due_one_tick_early),
	KUNIT_CASE(base_random_never_early_in_order),
	KUNIT_CASE(base_cancel_clears_bitmaps),
	KUNIT_CASE(base_budget_resumes),
	KUNIT_CASE(base_past_due_goes_to_expired),
	{}
};

static struct kunit_suite base_suite = {
	.name = "twheel_base",
	.test_cases = base_cases,
};

/* API tests: the live per-CPU wheels. */

/**
 * struct probe - a timeout with a record of its callbacks
 * @t: the timeout
 * @deadline: CLOCK_MONOTONIC deadline of the current arming
 * @fired: callbacks run
 * @early: callbacks that ran before @deadline
 * @max_late: largest lateness seen, ns
 * @rearm: times the callback still re-arms itself
 * @hold_ms: how long the callback spins, to be caught running
 * @running: set while the callback spins
 * @done: completed at the end of each callback
 */
struct probe {
	struct twheel_timeout t;
	u64 deadline;
	atomic_t fired;
	atomic_t early;
	atomic64_t max_late;
	atomic_t rearm;
	unsigned int hold_ms;
	atomic_t running;
	struct completion done;
};

static void probe_fn(struct twheel_timeout *t)
{
	struct probe *p = container_of(t, struct probe, t);
	u64 now = ktime_get_ns();
	s64 late = now - p->deadline;

	if (late < 0)
		atomic_inc(&p->early);
	else if (late > atomic64_read(&p->max_late))
		atomic64_set(&p->max_late, late);
	atomic_inc(&p->fired);
	if (p->hold_ms) {
		atomic_set(&p->running, 1);
		mdelay(p->hold_ms);
		atomic_set(&p->running, 0);
	}
	if (atomic_dec_if_positive(&p->rearm) >= 0) {
		p->deadline = ktime_get_ns() + twheel_tick_ns();
		twheel_arm_abs(t, p->deadline, TWHEEL_CPU_LOCAL);
	}
	complete(&p->done);
}

static struct probe *new_probe(struct kunit *test)
{
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	twheel_timeout_init(&p->t, probe_fn);
	init_completion(&p->done);
	return p;
}

static int probe_arm(struct probe *p, u64 delay_ns)
{
	p->deadline = ktime_get_ns() + delay_ns;
	return twheel_arm_abs(&p->t, p->deadline, TWHEEL_CPU_LOCAL);
}

static void api_arm_fires_once_not_early(struct kunit *test)
{
	struct probe *p = new_probe(test);

	/* Far enough that a slow guest cannot see it fire before the check. */
	KUNIT_EXPECT_EQ(test, probe_arm(p, 10 * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_TRUE(test, twheel_pending(&p->t));
	KUNIT_EXPECT_EQ(test, probe_arm(p, 5 * NSEC_PER_MSEC), 1);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->early), 0);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
	KUNIT_EXPECT_LE(test, (u64)atomic64_read(&p->max_late),
			twheel_tick_ns() + TEST_LATENCY_SLACK_NS);
}

static void api_cancel_never_armed(struct kunit *test)
{
	struct probe *p = new_probe(test);

	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 0);
	KUNIT_EXPECT_EQ(test, twheel_try_cancel(&p->t), 0);
	KUNIT_EXPECT_EQ(test, twheel_cancel_sync(&p->t), 0);
	KUNIT_EXPECT_EQ(test, twheel_rearm(&p->t, NSEC_PER_MSEC), 0);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
}

static void api_cancel_pending(struct kunit *test)
{
	struct probe *p = new_probe(test);

	/* Far off, so that a stalled guest cannot fire it before the cancel. */
	KUNIT_EXPECT_EQ(test, probe_arm(p, 10 * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 1);
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 0);
	msleep(60);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 0);
}

static void api_cancel_after_expiry(struct kunit *test)
{
	struct probe *p = new_probe(test);

	probe_arm(p, NSEC_PER_MSEC);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
	usleep_range(5000, 6000);
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 0);
	KUNIT_EXPECT_EQ(test, twheel_cancel_sync(&p->t), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 1);
}

static void api_rearm_moves_and_reports(struct kunit *test)
{
	struct probe *p = new_probe(test);

	/* Re-arm further out: the old deadline must not fire. */
	KUNIT_EXPECT_EQ(test, probe_arm(p, 5 * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, probe_arm(p, 10 * NSEC_PER_SEC), 1);
	msleep(40);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 0);
	p->deadline = ktime_get_ns() + 10 * NSEC_PER_MSEC;
	KUNIT_EXPECT_EQ(test, twheel_rearm(&p->t, 10 * NSEC_PER_MSEC), 1);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 1);
	KUNIT_EXPECT_EQ(test, twheel_arm(&p->t, twheel_max_delay_ns() + 1),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, twheel_arm_abs(&p->t, ktime_get_ns(), nr_cpu_ids),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
}

static void api_cancel_while_callback_runs(struct kunit *test)
{
	struct probe *p = new_probe(test);
	unsigned int other;
	u64 start;

	/* The callback runs on the other CPU while this thread watches. */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	other = cpumask_any_but(cpu_online_mask,
				pin_to_cpu(test, cpumask_first(cpu_online_mask)));
	p->hold_ms = 100;
	p->deadline = ktime_get_ns() + NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, twheel_arm_abs(&p->t, p->deadline, other), 0);
	start = ktime_get_ns();
	while (!atomic_read(&p->running)) {
		KUNIT_ASSERT_LT(test, ktime_get_ns() - start, 5 * NSEC_PER_SEC);
		cpu_relax();
	}
	/* Not pending any more, but running: try_cancel reports it. */
	KUNIT_EXPECT_EQ(test, twheel_try_cancel(&p->t), -EBUSY);
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 0);
	KUNIT_EXPECT_EQ(test, twheel_cancel_sync(&p->t), 0);
	/* cancel_sync returned: the callback must be over. */
	KUNIT_EXPECT_EQ(test, atomic_read(&p->running), 0);
	KUNIT_EXPECT_TRUE(test, completion_done(&p->done));
}

static void api_cancel_sync_vs_self_rearm(struct kunit *test)
{
	struct probe *p = new_probe(test);
	u64 start = ktime_get_ns();

	atomic_set(&p->rearm, INT_MAX);
	probe_arm(p, NSEC_PER_MSEC);
	while (atomic_read(&p->fired) < 10) {
		KUNIT_ASSERT_LT(test, ktime_get_ns() - start, 10 * NSEC_PER_SEC);
		msleep(20);
	}
	twheel_cancel_sync(&p->t);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
	KUNIT_EXPECT_EQ(test, atomic_read(&p->running), 0);
	{
		int fired = atomic_read(&p->fired);

		msleep(30);
		KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), fired);
	}
}

static void api_rearm_from_callback(struct kunit *test)
{
	struct probe *p = new_probe(test);
	u64 start = ktime_get_ns();

	atomic_set(&p->rearm, 9);
	probe_arm(p, NSEC_PER_MSEC);
	while (atomic_read(&p->fired) < 10) {
		KUNIT_ASSERT_LT(test, ktime_get_ns() - start, 10 * NSEC_PER_SEC);
		usleep_range(5000, 6000);
	}
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->early), 0);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
}

/* Shared by the race threads. */
struct race_ctx {
	struct probe *probes;
	unsigned int n;
	u64 until;
	atomic_t ops;
};

static int race_thread(void *data)
{
	struct race_ctx *ctx = data;
	struct rnd_state rnd;

	prandom_seed_state(&rnd, smp_processor_id() + 1);
	while (!kthread_should_stop() && ktime_get_ns() < ctx->until) {
		struct probe *p = &ctx->probes[prandom_u32_state(&rnd) % ctx->n];
		u64 delay = (prandom_u32_state(&rnd) % 4) * twheel_tick_ns();
		int cpu = prandom_u32_state(&rnd) % 2 ?
			  (int)cpumask_any(cpu_online_mask) : TWHEEL_CPU_LOCAL;

		switch (prandom_u32_state(&rnd) % 4) {
		case 0:
			twheel_arm_abs(&p->t, ktime_get_ns() + delay, cpu);
			break;
		case 1:
			twheel_rearm(&p->t, delay);
			break;
		case 2:
			twheel_cancel(&p->t);
			break;
		default:
			twheel_try_cancel(&p->t);
			break;
		}
		atomic_inc(&ctx->ops);
		cond_resched();
	}
	return 0;
}

static void api_races_from_all_cpus(struct kunit *test)
{
	struct race_ctx ctx = { .n = 64 };
	struct task_struct **tasks;
	unsigned int cpu, i, nr = 0;
	int fired_after;

	tasks = kunit_kcalloc(test, nr_cpu_ids, sizeof(*tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tasks);
	ctx.probes = kunit_kcalloc(test, ctx.n, sizeof(*ctx.probes),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx.probes);
	for (i = 0; i < ctx.n; i++) {
		twheel_timeout_init(&ctx.probes[i].t, probe_fn);
		init_completion(&ctx.probes[i].done);
		ctx.probes[i].deadline = 0;
	}
	ctx.until = ktime_get_ns() + 500 * NSEC_PER_MSEC;
	for_each_online_cpu(cpu) {
		tasks[nr] = kthread_create(race_thread, &ctx, "twheel_race/%u",
					   cpu);
		KUNIT_ASSERT_FALSE(test, IS_ERR(tasks[nr]));
		kthread_bind(tasks[nr], cpu);
		get_task_struct(tasks[nr]);
		wake_up_process(tasks[nr]);
		nr++;
	}
	msleep(div64_u64(ctx.until - ktime_get_ns(), NSEC_PER_MSEC) + 1);
	for (i = 0; i < nr; i++) {
		kthread_stop(tasks[i]);
		put_task_struct(tasks[i]);
	}
	for (i = 0; i < ctx.n; i++)
		twheel_cancel_sync(&ctx.probes[i].t);
	fired_after = 0;
	for (i = 0; i < ctx.n; i++) {
		KUNIT_EXPECT_FALSE(test, twheel_pending(&ctx.probes[i].t));
		fired_after += atomic_read(&ctx.probes[i].fired);
	}
	msleep(20);
	for (i = 0; i < ctx.n; i++)
		fired_after -= atomic_read(&ctx.probes[i].fired);
	KUNIT_EXPECT_EQ(test, fired_after, 0);
	KUNIT_EXPECT_GT(test, atomic_read(&ctx.ops), 1000);
	kunit_info(test, "%d operations from %u CPUs\n",
		   atomic_read(&ctx.ops), nr);
}

static bool any_timer_armed(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if (twheel_base_timer_armed(cpu))
			return true;
	return false;
}

static void api_tickless_when_empty(struct kunit *test)
{
	struct probe *p = new_probe(test);
	struct twheel_stats before, after;
	unsigned int cpu = pin_to_cpu(test, cpumask_first(cpu_online_mask));

	msleep(20);
	KUNIT_EXPECT_FALSE(test, any_timer_armed());
	twheel_stats_snapshot(cpu, &before);
	msleep(100);
	twheel_stats_snapshot(cpu, &after);
	KUNIT_EXPECT_EQ(test, after.hrtimer_fires, before.hrtimer_fires);

	/* One timeout ten minutes away: armed, then cancelled, then idle. */
	KUNIT_EXPECT_EQ(test, twheel_arm_abs(&p->t, ktime_get_ns() +
					     600 * NSEC_PER_SEC, cpu), 0);
	KUNIT_EXPECT_TRUE(test, twheel_base_timer_armed(cpu));
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 1);
	KUNIT_EXPECT_FALSE(test, twheel_base_timer_armed(cpu));
}

static void api_hotplug_moves_timeouts(struct kunit *test)
{
	const unsigned int n = 1000;
	unsigned int victim = cpumask_last(cpu_online_mask);
	struct probe *probes;
	unsigned int i, fired = 0, early = 0;
	u64 start;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	probes = test_vzalloc(test, n * sizeof(*probes));
	for (i = 0; i < n; i++) {
		twheel_timeout_init(&probes[i].t, probe_fn);
		init_completion(&probes[i].done);
		probes[i].deadline = ktime_get_ns() +
				     (50 + i % 200) * NSEC_PER_MSEC;
		KUNIT_ASSERT_EQ(test, twheel_arm_abs(&probes[i].t,
						     probes[i].deadline,
						     victim), 0);
	}
	ret = remove_cpu(victim);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, twheel_base_timer_armed(victim));
	/* Every deadline is 250 ms away at most: wait for them all to fire. */
	start = ktime_get_ns();
	do {
		msleep(50);
		for (fired = 0, i = 0; i < n; i++)
			fired += atomic_read(&probes[i].fired);
	} while (fired < n && ktime_get_ns() - start < 10 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, add_cpu(victim), 0);
	for (fired = 0, i = 0; i < n; i++) {
		twheel_cancel_sync(&probes[i].t);
		fired += atomic_read(&probes[i].fired);
		early += atomic_read(&probes[i].early);
	}
	KUNIT_EXPECT_EQ(test, fired, n);
	KUNIT_EXPECT_EQ(test, early, 0U);
	/* The returning CPU's wheel works again. */
	probes[0].deadline = ktime_get_ns() + NSEC_PER_MSEC;
	reinit_completion(&probes[0].done);
	KUNIT_EXPECT_EQ(test, twheel_arm_abs(&probes[0].t, probes[0].deadline,
					     victim), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&probes[0].done,
							  5 * HZ), 0UL);
}

/* 100,000 timeouts: each fires exactly once, never early, bounded late. */
struct load_item {
	struct twheel_timeout t;
	u64 deadline;
	atomic_t fired;
};

static atomic_t load_early;
static atomic64_t load_max_late;
static atomic_t load_fired;

static void load_fn(struct twheel_timeout *t)
{
	struct load_item *it = container_of(t, struct load_item, t);
	s64 late = ktime_get_ns() - it->deadline;

	if (late < 0)
		atomic_inc(&load_early);
	else if (late > atomic64_read(&load_max_late))
		atomic64_set(&load_max_late, late);
	atomic_inc(&it->fired);
	atomic_inc(&load_fired);
}

static void sum_stats(struct twheel_stats *sum)
{
	struct twheel_stats s;
	unsigned int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		twheel_stats_snapshot(cpu, &s);
		sum->cascaded += s.cascaded;
		sum->expired += s.expired;
		sum->hrtimer_fires += s.hrtimer_fires;
		sum->max_late_ns = max(sum->max_late_ns, s.max_late_ns);
		sum->max_cb_ns = max(sum->max_cb_ns, s.max_cb_ns);
	}
}

static void api_load_100k(struct kunit *test)
{
	struct twheel_stats before, after;
	struct load_item *items;
	struct rnd_state rnd;
	unsigned int i, once = 0;
	u64 start;

	items = test_vzalloc(test, LOAD_COUNT * sizeof(*items));
	atomic_set(&load_early, 0);
	atomic64_set(&load_max_late, 0);
	atomic_set(&load_fired, 0);
	sum_stats(&before);
	prandom_seed_state(&rnd, 100000);
	for (i = 0; i < LOAD_COUNT; i++) {
		twheel_timeout_init(&items[i].t, load_fn);
		items[i].deadline = ktime_get_ns() + NSEC_PER_MSEC +
			(u64)(prandom_u32_state(&rnd) % (LOAD_SPREAD_MS * 1000)) *
			NSEC_PER_USEC;
		KUNIT_ASSERT_EQ(test, twheel_arm_abs(&items[i].t,
						     items[i].deadline,
						     TWHEEL_CPU_LOCAL), 0);
	}
	start = ktime_get_ns();
	while (atomic_read(&load_fired) < LOAD_COUNT &&
	       ktime_get_ns() - start < 30 * NSEC_PER_SEC)
		msleep(50);
	msleep(50);
	for (i = 0; i < LOAD_COUNT; i++) {
		twheel_cancel_sync(&items[i].t);
		if (atomic_read(&items[i].fired) == 1)
			once++;
	}
	sum_stats(&after);
	KUNIT_EXPECT_EQ(test, once, (unsigned int)LOAD_COUNT);
	KUNIT_EXPECT_EQ(test, atomic_read(&load_early), 0);
	KUNIT_EXPECT_LE(test, (u64)atomic64_read(&load_max_late),
			twheel_tick_ns() + TEST_LATENCY_SLACK_NS);
	kunit_info(test, "fired %d cascaded %llu hrtimer runs %llu max late %llu ns (%llu ticks) longest callback %llu ns\n",
		   atomic_read(&load_fired), after.cascaded - before.cascaded,
		   after.hrtimer_fires - before.hrtimer_fires,
		   (u64)atomic64_read(&load_max_late),
		   div64_u64(atomic64_read(&load_max_late), twheel_tick_ns()),
		   after.max_cb_ns);
}

static struct kunit_case api_cases[] = {
	/* First: its "longest callback" is then that of its own callbacks. */
	KUNIT_CASE_SLOW(api_load_100k),
	KUNIT_CASE(api_arm_fires_once_not_early),
	KUNIT_CASE(api_cancel_never_armed),
	KUNIT_CASE(api_cancel_pending),
	KUNIT_CASE(api_cancel_after_expiry),
	KUNIT_CASE(api_rearm_moves_and_reports),
	KUNIT_CASE(api_cancel_while_callback_runs),
	KUNIT_CASE(api_cancel_sync_vs_self_rearm),
	KUNIT_CASE(api_rearm_from_callback),
	KUNIT_CASE(api_races_from_all_cpus),
	KUNIT_CASE(api_tickless_when_empty),
	KUNIT_CASE(api_hotplug_moves_timeouts),
	{}
};

static struct kunit_suite api_suite = {
	.name = "twheel_api",
	.test_cases = api_cases,
};

kunit_test_suites(&geometry_suite, &base_suite, &api_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suites of the twheel timing wheel");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
