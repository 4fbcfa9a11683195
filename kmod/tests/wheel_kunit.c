// SPDX-License-Identifier: GPL-2.0
/*
 * wheel_kunit.c - deterministic KUnit suites of the wheel (twheel_kunit.ko)
 *
 * twheel_geometry: bucket and level arithmetic at every edge.
 * twheel_base: private bases driven tick by tick with a synthetic clock:
 *	cascades, exact expiry, ordering, never early, the budget.
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

#include <linux/twheel.h>

#include "../compat.h"
#include "kunit_helpers.h"
#include "../wheel.h"

static u64 lvl_start(unsigned int lvl)
{
	return 1ULL << (lvl * TW_LVL_BITS);
}

static void geometry_level0_edges(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, tw_calc_idx(0, 1), 1U);
	KUNIT_EXPECT_EQ(test, tw_calc_idx(0, 63), 63U);
	KUNIT_EXPECT_EQ(test, tw_calc_idx(64, 127), 63U);
	KUNIT_EXPECT_EQ(test, tw_bucket_tick(0, 1), 1ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_tick(0, 63), 63ULL);
	KUNIT_EXPECT_EQ(test, tw_bucket_tick(64, 127 % TW_LVL_SIZE), 127ULL);
}

static void geometry_level1_edges(struct kunit *test)
{
	/* 64 and 65 share level 1 digit 1: cascaded at tick 64. */
	KUNIT_EXPECT_EQ(test, tw_calc_idx(0, 64), TW_LVL_SIZE + 1);
	KUNIT_EXPECT_EQ(test, tw_calc_idx(0, 65), TW_LVL_SIZE + 1);
	KUNIT_EXPECT_EQ(test, tw_bucket_tick(0, TW_LVL_SIZE + 1), 64ULL);
	/* A carry out of level 0 is level 1 even one tick ahead. */
	KUNIT_EXPECT_EQ(test, tw_calc_idx(63, 64), TW_LVL_SIZE + 1);
	KUNIT_EXPECT_EQ(test, tw_bucket_tick(63, TW_LVL_SIZE + 1), 64ULL);
	KUNIT_EXPECT_EQ(test, tw_calc_idx(0, 4095), 2 * TW_LVL_SIZE - 1);
}

static void geometry_every_level_boundary(struct kunit *test)
{
	unsigned int lvl, idx;

	for (lvl = 1; lvl < TW_LEVELS; lvl++) {
		u64 e = lvl_start(lvl);

		idx = tw_calc_idx(e - 1, e);
		KUNIT_EXPECT_EQ_MSG(test, idx, lvl * TW_LVL_SIZE + 1,
				    "level %u", lvl);
		KUNIT_EXPECT_EQ_MSG(test, tw_bucket_tick(e - 1, idx), e,
				    "level %u", lvl);
		idx = tw_calc_idx(0, e - 1);
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
			unsigned int idx = tw_calc_idx(clks[i], e);
			u64 due = tw_bucket_tick(clks[i], idx);

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
		unsigned int idx = tw_calc_idx(clk, clk + d);
		u64 due = tw_bucket_tick(clk, idx);

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

	KUNIT_EXPECT_EQ(test, tw_ns_to_tick(0), 0ULL);
	KUNIT_EXPECT_EQ(test, tw_ns_to_tick(1), 1ULL);
	KUNIT_EXPECT_EQ(test, tw_ns_to_tick(tick), 1ULL);
	KUNIT_EXPECT_EQ(test, tw_ns_to_tick(tick + 1), 2ULL);
	KUNIT_EXPECT_EQ(test, tw_ns_to_tick(1000 * tick - 1), 1000ULL);
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
		if (tw_ns_to_tick(ns) != div64_u64(ns + tick - 1, tick)) {
			KUNIT_FAIL(test, "ns %llu: %llu, want %llu", ns,
				   tw_ns_to_tick(ns),
				   div64_u64(ns + tick - 1, tick));
			return;
		}
	}
	KUNIT_EXPECT_EQ(test, tw_ns_to_tick(KTIME_MAX),
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

static struct tw_base *new_base(struct kunit *test, u64 clk)
{
	struct tw_base *base = kunit_kzalloc(test, sizeof(*base),
						 GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, base);
	tw_base_init(base, 0, TW_CLOCK_MONO, clk);
	return base;
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

/* Bring the kernel clients' wheel of @base up to @now: see tw_wheel_advance(). */
static bool advance(struct tw_base *base, u64 now, unsigned int budget)
{
	return tw_wheel_advance(base, &base->own, now, &budget);
}

static void add_at(struct tw_base *base, struct twheel_timeout *t,
		   u64 expires)
{
	raw_spin_lock_irq(&base->lock);
	t->expires = expires;
	tw_enqueue(base, t);
	raw_spin_unlock_irq(&base->lock);
}

static bool del(struct tw_base *base, struct twheel_timeout *t)
{
	bool was_queued;

	raw_spin_lock_irq(&base->lock);
	was_queued = tw_dequeue(base, t);
	raw_spin_unlock_irq(&base->lock);
	return was_queued;
}

/*
 * Advance @base to @now and take its expired timeouts off; checks each one
 * is due (never early) and returns how many there were.
 */
static unsigned int advance_and_reap(struct kunit *test,
				     struct tw_base *base, u64 now,
				     u64 *last_expires)
{
	struct twheel_timeout *t;
	struct hlist_node *tmp;
	unsigned int n = 0;

	raw_spin_lock_irq(&base->lock);
	KUNIT_EXPECT_FALSE(test, advance(base, now, UINT_MAX));
	hlist_for_each_entry_safe(t, tmp, &base->own.expired, entry) {
		KUNIT_EXPECT_LE(test, t->expires, now);
		if (last_expires) {
			KUNIT_EXPECT_GE(test, t->expires, *last_expires);
			*last_expires = t->expires;
		}
		tw_dequeue(base, t);
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
	struct tw_base *base = new_base(test, 0);
	struct twheel_timeout *t = new_timeouts(test, ARRAY_SIZE(due));
	unsigned int i, fired = 0;
	u64 next;

	for (i = 0; i < ARRAY_SIZE(due); i++)
		add_at(base, &t[i], due[i]);

	/* Jump from event to event: each timeout fires exactly at its tick. */
	while ((next = tw_next_event(base)) != U64_MAX) {
		struct twheel_timeout *e;
		struct hlist_node *tmp;

		raw_spin_lock_irq(&base->lock);
		advance(base, next, UINT_MAX);
		hlist_for_each_entry_safe(e, tmp, &base->own.expired, entry) {
			KUNIT_EXPECT_EQ(test, e->expires, base->own.clk);
			tw_dequeue(base, e);
			fired++;
		}
		raw_spin_unlock_irq(&base->lock);
	}
	KUNIT_EXPECT_EQ(test, fired, (unsigned int)ARRAY_SIZE(due));
	KUNIT_EXPECT_GT(test, base->stats.cascaded, 0ULL);
	KUNIT_EXPECT_EQ(test, base->nr_pending, 0UL);
	KUNIT_EXPECT_EQ(test, base->own.levels_map, 0UL);
}

static void base_not_due_one_tick_early(struct kunit *test)
{
	static const u64 due[] = { 64, 4096, 262144, 1ULL << 30 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(due); i++) {
		struct tw_base *base = new_base(test, 0);
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
	struct tw_base *base = new_base(test, 1000);
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
			if (!hlist_unhashed(&t[i].entry))
				KUNIT_EXPECT_GT(test, t[i].expires, now);
	}
	KUNIT_EXPECT_EQ(test, fired, n);
}

static void base_cancel_clears_bitmaps(struct kunit *test)
{
	struct tw_base *base = new_base(test, 0);
	struct twheel_timeout *t = new_timeouts(test, 3);

	add_at(base, &t[0], 10);
	add_at(base, &t[1], 10);
	add_at(base, &t[2], 5000);
	raw_spin_lock_irq(&base->lock);
	KUNIT_EXPECT_TRUE(test, tw_dequeue(base, &t[0]));
	KUNIT_EXPECT_NE(test, base->own.occupied[0], 0ULL);
	KUNIT_EXPECT_TRUE(test, tw_dequeue(base, &t[1]));
	KUNIT_EXPECT_EQ(test, base->own.occupied[0], 0ULL);
	KUNIT_EXPECT_FALSE(test, tw_dequeue(base, &t[1]));
	KUNIT_EXPECT_EQ(test, tw_next_event(base),
			tw_bucket_tick(0, tw_calc_idx(0, 5000)));
	KUNIT_EXPECT_TRUE(test, tw_dequeue(base, &t[2]));
	KUNIT_EXPECT_EQ(test, base->own.levels_map, 0UL);
	KUNIT_EXPECT_EQ(test, tw_next_event(base), U64_MAX);
	raw_spin_unlock_irq(&base->lock);
}

static void base_budget_resumes(struct kunit *test)
{
	const unsigned int n = 1000;
	struct tw_base *base = new_base(test, 0);
	struct twheel_timeout *t = new_timeouts(test, n);
	unsigned int i, rounds = 0, fired = 0;

	/* All in one level-1 bucket: one cascade of n timeouts. */
	for (i = 0; i < n; i++)
		add_at(base, &t[i], 64 + (i % 64));
	raw_spin_lock_irq(&base->lock);
	while (advance(base, 200, 100))
		rounds++;
	raw_spin_unlock_irq(&base->lock);
	KUNIT_EXPECT_GE(test, rounds, n / 100 - 1);
	fired = advance_and_reap(test, base, 200, NULL);
	KUNIT_EXPECT_EQ(test, fired, n);
}

static void base_past_due_goes_to_expired(struct kunit *test)
{
	struct tw_base *base = new_base(test, 500);
	struct twheel_timeout *t = new_timeouts(test, 2);

	add_at(base, &t[0], 500);
	add_at(base, &t[1], 3);
	KUNIT_EXPECT_EQ(test, t[0].idx, (u32)TW_IDX_EXPIRED);
	KUNIT_EXPECT_EQ(test, t[1].idx, (u32)TW_IDX_EXPIRED);
	KUNIT_EXPECT_EQ(test, tw_next_event(base), 500ULL);
	KUNIT_EXPECT_EQ(test, advance_and_reap(test, base, 500, NULL), 2U);
}

/* Does @base's expired list hold exactly @want, in that order? */
static bool expired_are(struct tw_base *base, struct twheel_timeout **want,
			unsigned int n)
{
	struct twheel_timeout *t;
	unsigned int i = 0;

	hlist_for_each_entry(t, &base->own.expired, entry)
		if (i == n || t != want[i++])
			return false;
	return i == n;
}

/*
 * The expired list is added to at its end. Taking its last entry off (a
 * cancel) makes the one before it the end, or the list empty: what comes
 * next still goes behind everything queued.
 */
static void base_expired_keeps_order_when_last_leaves(struct kunit *test)
{
	struct tw_base *base = new_base(test, 100);
	struct twheel_timeout *t = new_timeouts(test, 4);

	add_at(base, &t[0], 50);
	add_at(base, &t[1], 60);
	KUNIT_EXPECT_TRUE(test, del(base, &t[1]));
	add_at(base, &t[2], 70);
	KUNIT_EXPECT_TRUE(test, expired_are(base, (struct twheel_timeout *[]){
						  &t[0], &t[2] }, 2));
	KUNIT_EXPECT_TRUE(test, del(base, &t[0]));
	add_at(base, &t[3], 80);
	KUNIT_EXPECT_TRUE(test, expired_are(base, (struct twheel_timeout *[]){
						  &t[2], &t[3] }, 2));
	KUNIT_EXPECT_TRUE(test, del(base, &t[3]));
	KUNIT_EXPECT_TRUE(test, del(base, &t[2]));
	KUNIT_EXPECT_NULL(test, base->own.expired_last);
	add_at(base, &t[1], 90);
	add_at(base, &t[0], 95);
	KUNIT_EXPECT_TRUE(test, expired_are(base, (struct twheel_timeout *[]){
						  &t[1], &t[0] }, 2));
	KUNIT_EXPECT_EQ(test, advance_and_reap(test, base, 100, NULL), 2U);
}

/* Timeouts queued on @base, counted by walking every list. */
static unsigned long walk_count(struct tw_base *base)
{
	struct twheel_timeout *t;
	unsigned long n = 0;
	unsigned int i;

	hlist_for_each_entry(t, &base->own.expired, entry)
		n++;
	hlist_for_each_entry(t, &base->own.cascade, entry)
		n++;
	for (i = 0; i < TW_NR_BUCKETS; i++)
		hlist_for_each_entry(t, &base->own.buckets[i], entry)
			n++;
	return n;
}

/* Each occupancy bit is set exactly when its bucket is non-empty. */
static bool bitmaps_match(struct tw_base *base)
{
	unsigned int i, lvl;

	for (i = 0; i < TW_NR_BUCKETS; i++) {
		lvl = i / TW_LVL_SIZE;
		if (!!(base->own.occupied[lvl] & BIT_ULL(i % TW_LVL_SIZE)) ==
		    hlist_empty(&base->own.buckets[i]))
			return false;
		if (!!base->own.occupied[lvl] != !!(base->own.levels_map & BIT(lvl)))
			return false;
	}
	return true;
}

/* nr_pending follows every arm, cancel, cascade and expiry exactly. */
static void base_nr_pending_matches_walk(struct kunit *test)
{
	const unsigned int n = 2000;
	struct tw_base *base = new_base(test, 0);
	struct twheel_timeout *t = new_timeouts(test, n);
	struct twheel_timeout *e;
	struct hlist_node *tmp;
	struct rnd_state rnd;
	unsigned int i, step, bad = 0;
	u64 now = 0;

	prandom_seed_state(&rnd, 8);
	for (step = 0; step < 20000; step++) {
		struct twheel_timeout *x = &t[prandom_u32_state(&rnd) % n];
		u32 r = prandom_u32_state(&rnd) % 8;

		raw_spin_lock_irq(&base->lock);
		if (r < 4 && hlist_unhashed(&x->entry)) {
			x->expires = now + 1 + prandom_u32_state(&rnd) % 100000;
			tw_enqueue(base, x);
		} else if (r < 6) {
			tw_dequeue(base, x);
		} else {
			now += prandom_u32_state(&rnd) % 64;
			advance(base, now, prandom_u32_state(&rnd) % 50);
			if (r == 7)
				hlist_for_each_entry_safe(e, tmp, &base->own.expired,
							  entry)
					tw_dequeue(base, e);
		}
		if (base->nr_pending != walk_count(base) ||
		    !bitmaps_match(base))
			bad++;
		raw_spin_unlock_irq(&base->lock);
	}
	KUNIT_EXPECT_EQ(test, bad, 0U);
	raw_spin_lock_irq(&base->lock);
	for (i = 0; i < n; i++)
		tw_dequeue(base, &t[i]);
	KUNIT_EXPECT_EQ(test, base->nr_pending, 0UL);
	KUNIT_EXPECT_EQ(test, base->own.levels_map, 0UL);
	raw_spin_unlock_irq(&base->lock);
}

/*
 * Two owners' wheels on one base: each timeout is filed on the wheel of its
 * queue, the base's next event is the earlier of theirs, and advancing one
 * wheel leaves the other's timeouts where they are.
 */
static void base_wheels_kept_apart(struct kunit *test)
{
	struct tw_base *base = new_base(test, 0);
	struct tw_wheel *other = kunit_kzalloc(test, sizeof(*other),
					       GFP_KERNEL);
	struct twheel_timeout *t = new_timeouts(test, 2);

	KUNIT_ASSERT_NOT_NULL(test, other);
	tw_wheel_init(other, 0);
	base->wheels[1] = other;
	tw_set_queue(&t[1], 1);
	add_at(base, &t[0], 10);
	add_at(base, &t[1], 5);
	raw_spin_lock_irq(&base->lock);
	KUNIT_EXPECT_EQ(test, base->active, 3UL);
	KUNIT_EXPECT_EQ(test, base->nr_pending, 2UL);
	KUNIT_EXPECT_EQ(test, base->own.nr_pending, 1UL);
	KUNIT_EXPECT_EQ(test, other->nr_pending, 1UL);
	KUNIT_EXPECT_EQ(test, tw_next_event(base), 5ULL);
	advance(base, 10, UINT_MAX);
	KUNIT_EXPECT_PTR_EQ(test, base->own.expired.first, &t[0].entry);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->expired));
	KUNIT_EXPECT_EQ(test, tw_next_event(base), 5ULL);
	raw_spin_unlock_irq(&base->lock);
	KUNIT_EXPECT_TRUE(test, del(base, &t[1]));
	raw_spin_lock_irq(&base->lock);
	KUNIT_EXPECT_EQ(test, base->active, 1UL);
	KUNIT_EXPECT_EQ(test, tw_next_event(base), 10ULL);
	raw_spin_unlock_irq(&base->lock);
	KUNIT_EXPECT_TRUE(test, del(base, &t[0]));
	KUNIT_EXPECT_EQ(test, base->active, 0UL);
	KUNIT_EXPECT_EQ(test, tw_next_event(base), U64_MAX);
}

/*
 * A base that ran at tick L is never programmed for L or before again, so
 * it runs at most once a tick however often it is asked to run at once.
 * L is a second ahead so that the hrtimer does not fire during the test.
 */
static void base_programmed_after_last_run(struct kunit *test)
{
	struct tw_base *base = new_base(test, 0);
	u64 last = tw_ns_to_tick(ktime_get_ns() + NSEC_PER_SEC);
	u64 programmed[3];

	hrtimer_setup(&base->timer, tw_hrtimer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_PINNED_SOFT);
	raw_spin_lock_irq(&base->lock);
	base->cpu = smp_processor_id();
	base->online = true;
	base->last_fire = last;
	tw_program(base, last - 10);
	programmed[0] = base->programmed;
	tw_program(base, last);
	programmed[1] = base->programmed;
	tw_program(base, last + 5);
	programmed[2] = base->programmed;
	base->online = false;
	raw_spin_unlock_irq(&base->lock);
	hrtimer_cancel(&base->timer);
	KUNIT_EXPECT_EQ(test, programmed[0], last + 1);
	KUNIT_EXPECT_EQ(test, programmed[1], last + 1);
	KUNIT_EXPECT_EQ(test, programmed[2], last + 1);
}

static struct kunit_case base_cases[] = {
	KUNIT_CASE(base_nr_pending_matches_walk),
	KUNIT_CASE(base_cascade_exact_tick),
	KUNIT_CASE(base_not_due_one_tick_early),
	KUNIT_CASE(base_random_never_early_in_order),
	KUNIT_CASE(base_cancel_clears_bitmaps),
	KUNIT_CASE(base_budget_resumes),
	KUNIT_CASE(base_past_due_goes_to_expired),
	KUNIT_CASE(base_expired_keeps_order_when_last_leaves),
	KUNIT_CASE(base_wheels_kept_apart),
	KUNIT_CASE(base_programmed_after_last_run),
	{}
};

static struct kunit_suite base_suite = {
	.name = "twheel_base",
	.test_cases = base_cases,
};

kunit_test_suites(&geometry_suite, &base_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deterministic KUnit suites of the twheel timing wheel");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
