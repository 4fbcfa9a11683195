// SPDX-License-Identifier: GPL-2.0
/*
 * api_kunit.c - KUnit suite of the exported API on the live per-CPU wheels
 *	(twheel_api_kunit.ko)
 *
 * twheel_api: every state of cancel, cancel_sync against a running
 * callback, self re-arm, races from several CPUs, tickless, CPU hotplug and
 * a 100,000-timeout load. These tests sleep and depend on the machine's
 * timing only through generous bounds; the slow ones are KUNIT_CASE_SLOW.
 * Counters shared with callbacks are atomics.
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
#include <linux/twheel.h>

#include "../compat.h"
#include "kunit_helpers.h"
#include "../wheel.h"

/* Lateness allowed on top of one tick: a 2-vCPU TCG guest with KASAN. */
#define TEST_LATENCY_SLACK_NS	(500 * NSEC_PER_MSEC)
#define LOAD_COUNT		100000
#define LOAD_SPREAD_MS		6000
/* Operations the race and kick tests aim for; they stop early at 30 s. */
#define RACE_OPS		4000
#define RACE_MAX_NS		(30 * NSEC_PER_SEC)

/* API tests: the live per-CPU wheels. */

/**
 * struct probe - a timeout with a record of its callbacks
 * @t: the timeout
 * @deadline: deadline of the current arming, in the timeout's clock
 * @fired: callbacks run
 * @early: callbacks that ran before @deadline
 * @max_late: largest lateness seen, ns
 * @rearm: times the callback still re-arms itself
 * @hold_ms: how long the callback spins, to be caught running
 * @until_released: and then spins on until @released is set (10 s at most),
 *	so that a watcher the host did not run for a while still sees it
 * @released: set by the test when the callback may end
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
	bool until_released;
	atomic_t released;
	atomic_t running;
	struct completion done;
};

static void probe_fn(struct twheel_timeout *t)
{
	struct probe *p = container_of(t, struct probe, t);
	u64 now = twheel_clock_ns(t);
	s64 late = now - p->deadline;

	if (late < 0)
		atomic_inc(&p->early);
	else if (late > atomic64_read(&p->max_late))
		atomic64_set(&p->max_late, late);
	atomic_inc(&p->fired);
	if (p->hold_ms) {
		u64 start = ktime_get_ns();

		atomic_set(&p->running, 1);
		mdelay(p->hold_ms);
		while (p->until_released && !atomic_read(&p->released) &&
		       ktime_get_ns() - start < 10 * NSEC_PER_SEC)
			mdelay(1);
		atomic_set(&p->running, 0);
	}
	if (atomic_dec_if_positive(&p->rearm) >= 0) {
		p->deadline = twheel_clock_ns(t) + twheel_tick_ns();
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
	p->deadline = twheel_clock_ns(&p->t) + delay_ns;
	return twheel_arm_abs(&p->t, p->deadline, TWHEEL_CPU_LOCAL);
}

/* Wait for @p's callback: it ran once, not early, at most bounded late. */
static void expect_fired_once_in_time(struct kunit *test, struct probe *p)
{
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
	msleep(20);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->early), 0);
	KUNIT_EXPECT_LE(test, (u64)atomic64_read(&p->max_late),
			twheel_tick_ns() + TEST_LATENCY_SLACK_NS);
}

static void api_arm_fires_once_not_early(struct kunit *test)
{
	struct probe *p = new_probe(test);

	/* Far enough that a slow guest cannot see it fire before the check. */
	KUNIT_EXPECT_EQ(test, probe_arm(p, 10 * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_TRUE(test, twheel_pending(&p->t));
	KUNIT_EXPECT_EQ(test, probe_arm(p, 5 * NSEC_PER_MSEC), 1);
	expect_fired_once_in_time(test, p);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
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
	p->until_released = true;
	p->deadline = ktime_get_ns() + NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, twheel_arm_abs(&p->t, p->deadline, other), 0);
	start = ktime_get_ns();
	while (!atomic_read(&p->running) &&
	       ktime_get_ns() - start < 5 * NSEC_PER_SEC)
		cpu_relax();
	if (!atomic_read(&p->running)) {
		atomic_set(&p->released, 1);
		twheel_cancel_sync(&p->t);
		KUNIT_FAIL(test, "the callback did not start within 5 s (fired %d)",
			   atomic_read(&p->fired));
		return;
	}
	/* Not pending any more, but running: try_cancel reports it. */
	KUNIT_EXPECT_EQ(test, twheel_try_cancel(&p->t), -EBUSY);
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 0);
	/* It still runs for up to 100 ms: cancel_sync waits for it. */
	atomic_set(&p->released, 1);
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
	while (!kthread_should_stop() && ktime_get_ns() < ctx->until &&
	       atomic_read(&ctx->ops) < RACE_OPS) {
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
	/* A number of operations, not a time: slow kernels get longer. */
	ctx.until = ktime_get_ns() + RACE_MAX_NS;
	for_each_online_cpu(cpu) {
		tasks[nr] = kthread_create(race_thread, &ctx, "twheel_race/%u",
					   cpu);
		KUNIT_ASSERT_FALSE(test, IS_ERR(tasks[nr]));
		kthread_bind(tasks[nr], cpu);
		get_task_struct(tasks[nr]);
		wake_up_process(tasks[nr]);
		nr++;
	}
	while (atomic_read(&ctx.ops) < RACE_OPS && ktime_get_ns() < ctx.until)
		msleep(20);
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
	enum tw_clock clock;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		for (clock = 0; clock < TW_NR_CLOCKS; clock++)
			if (tw_base_timer_armed(cpu, clock))
				return true;
	return false;
}

static void api_tickless_when_empty(struct kunit *test)
{
	struct probe *p = new_probe(test);
	struct tw_stats before, after;
	unsigned long pending;
	unsigned int cpu = pin_to_cpu(test, cpumask_first(cpu_online_mask));

	msleep(20);
	KUNIT_EXPECT_FALSE(test, any_timer_armed());
	tw_stats_snapshot(cpu, &before, &pending);
	msleep(100);
	tw_stats_snapshot(cpu, &after, &pending);
	KUNIT_EXPECT_EQ(test, after.hrtimer_fires, before.hrtimer_fires);

	/* One timeout ten minutes away: armed, then cancelled, then idle. */
	KUNIT_EXPECT_EQ(test, twheel_arm_abs(&p->t, ktime_get_ns() +
					     600 * NSEC_PER_SEC, cpu), 0);
	KUNIT_EXPECT_TRUE(test, tw_base_timer_armed(cpu, TW_CLOCK_MONO));
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 1);
	KUNIT_EXPECT_FALSE(test, tw_base_timer_armed(cpu, TW_CLOCK_MONO));
}

/*
 * A timeout moved to another CPU leaves its old base empty: that base's
 * hrtimer is cancelled at once (tickless), the new base's is armed.
 */
static void api_move_idles_the_old_base(struct kunit *test)
{
	struct probe *p = new_probe(test);
	unsigned int from = cpumask_first(cpu_online_mask);
	unsigned int to = cpumask_last(cpu_online_mask);
	u64 start;

	if (from == to)
		kunit_skip(test, "needs two online CPUs");
	pin_to_cpu(test, from);
	KUNIT_ASSERT_FALSE(test, any_timer_armed());
	p->deadline = ktime_get_ns() + 600 * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, twheel_arm_abs(&p->t, p->deadline, from), 0);
	KUNIT_EXPECT_TRUE(test, tw_base_timer_armed(from, TW_CLOCK_MONO));
	KUNIT_EXPECT_EQ(test, twheel_arm_abs(&p->t, p->deadline, to), 1);
	KUNIT_EXPECT_FALSE(test, tw_base_timer_armed(from, TW_CLOCK_MONO));
	/* The other CPU programs its own hrtimer, on the kick's IPI. */
	start = ktime_get_ns();
	while (!tw_base_timer_armed(to, TW_CLOCK_MONO) &&
	       ktime_get_ns() - start < 5 * NSEC_PER_SEC)
		msleep(20);
	KUNIT_EXPECT_TRUE(test, tw_base_timer_armed(to, TW_CLOCK_MONO));
	KUNIT_EXPECT_EQ(test, twheel_cancel_sync(&p->t), 1);
	KUNIT_EXPECT_FALSE(test, any_timer_armed());
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
		/* Half of them on each clock: both bases move. */
		if (i % 2)
			twheel_timeout_init_clock(&probes[i].t, probe_fn,
						  CLOCK_BOOTTIME);
		else
			twheel_timeout_init(&probes[i].t, probe_fn);
		init_completion(&probes[i].done);
		probes[i].deadline = twheel_clock_ns(&probes[i].t) +
				     (50 + i % 200) * NSEC_PER_MSEC;
		KUNIT_ASSERT_EQ(test, twheel_arm_abs(&probes[i].t,
						     probes[i].deadline,
						     victim), 0);
	}
	ret = remove_cpu(victim);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, tw_base_timer_armed(victim, TW_CLOCK_MONO));
	KUNIT_EXPECT_FALSE(test, tw_base_timer_armed(victim, TW_CLOCK_BOOT));
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
	for (i = 0; i < 2; i++) {
		probes[i].deadline = twheel_clock_ns(&probes[i].t) +
				     NSEC_PER_MSEC;
		reinit_completion(&probes[i].done);
		KUNIT_EXPECT_EQ(test, twheel_arm_abs(&probes[i].t,
						     probes[i].deadline,
						     victim), 0);
		KUNIT_EXPECT_NE(test,
				wait_for_completion_timeout(&probes[i].done,
							    5 * HZ), 0UL);
	}
}

/*
 * A CLOCK_BOOTTIME timeout reads its deadlines in that clock and is queued
 * on the CPU's CLOCK_BOOTTIME base, whose hrtimer runs on CLOCK_BOOTTIME:
 * the hrtimer core then fires it on resume if its deadline passed during
 * suspend (tested in userspace-test/boottime_test.c, in a guest that
 * suspends).
 */
static void api_boottime_timeout_on_boottime_base(struct kunit *test)
{
	struct probe *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	unsigned int cpu = pin_to_cpu(test, cpumask_first(cpu_online_mask));
	struct tw_base *base = tw_base_of(cpu, TW_CLOCK_BOOT);
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, p);
	twheel_timeout_init_clock(&p->t, probe_fn, CLOCK_BOOTTIME);
	init_completion(&p->done);
	KUNIT_EXPECT_EQ(test, base->timer.base->clockid, CLOCK_BOOTTIME);
	KUNIT_EXPECT_EQ(test, tw_base_of(cpu, TW_CLOCK_MONO)->timer.base->clockid,
			CLOCK_MONOTONIC);
	before = ktime_get_boottime_ns();
	KUNIT_EXPECT_GE(test, twheel_clock_ns(&p->t), before);
	KUNIT_EXPECT_LE(test, twheel_clock_ns(&p->t), ktime_get_boottime_ns());

	KUNIT_EXPECT_EQ(test, probe_arm(p, 600 * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->t.flags) & TW_F_BASE_MASK,
			tw_base_flags(base));
	KUNIT_EXPECT_TRUE(test, tw_base_timer_armed(cpu, TW_CLOCK_BOOT));
	KUNIT_EXPECT_EQ(test, twheel_cancel(&p->t), 1);
	KUNIT_EXPECT_FALSE(test, tw_base_timer_armed(cpu, TW_CLOCK_BOOT));

	KUNIT_EXPECT_EQ(test, probe_arm(p, 5 * NSEC_PER_MSEC), 0);
	expect_fired_once_in_time(test, p);
}

/*
 * A storm on both clocks of one CPU: STORM_PER_CLOCK timeouts on each of
 * its bases, all due at once, each callback busy for STORM_CB_US.
 */
#define STORM_PER_CLOCK		400U
#define STORM_CB_US		20U

struct storm_cb {
	u64 start;
	u64 end;
	bool boot;
};

struct storm_log {
	atomic_t n;
	struct storm_cb cbs[2 * STORM_PER_CLOCK];
};

struct storm_item {
	struct twheel_timeout t;
	struct storm_log *log;
	bool boot;
};

static void storm_fn(struct twheel_timeout *t)
{
	struct storm_item *it = container_of(t, struct storm_item, t);
	u64 start = ktime_get_ns();
	int i;

	udelay(STORM_CB_US);
	i = atomic_inc_return(&it->log->n) - 1;
	if (i < ARRAY_SIZE(it->log->cbs))
		it->log->cbs[i] = (struct storm_cb) {
			.start = start, .end = ktime_get_ns(), .boot = it->boot,
		};
}

static void storm_cancel_all(void *arg)
{
	struct storm_item *items = arg;
	unsigned int i;

	for (i = 0; i < 2 * STORM_PER_CLOCK; i++)
		twheel_cancel_sync(&items[i].t);
}

/*
 * The runs of a CPU's two bases share one budget. A stretch, callbacks with
 * less than TW_YIELD_NS between one's end and the next one's start, holds
 * runs that take TW_RUN_NS in all, plus one callback each past their share,
 * and the gaps between them, each shorter than TW_YIELD_NS: in this storm
 * less than twice TW_RUN_NS and two callbacks. (Without the shared budget
 * the two bases' runs follow each other for as long as the storm lasts.)
 * The gaps of TW_YIELD_NS or more take at least 15% of the storm's time
 * (20% less each run's overrun), and neither clock waits for the whole
 * storm of the other: each has a quarter of its callbacks or more in the
 * first half. Callbacks of one CPU run one after another, so their order
 * in the log is the order they ran in.
 */
static void api_storm_on_both_clocks_shares_the_cpu(struct kunit *test)
{
	const unsigned int n = 2 * STORM_PER_CLOCK;
	unsigned int cpu = cpumask_last(cpu_online_mask);
	struct storm_item *items = test_vzalloc(test, n * sizeof(*items));
	struct storm_log *log = test_vzalloc(test, sizeof(*log));
	u64 due = ktime_get_ns() + 300 * NSEC_PER_MSEC, idle = 0, span;
	u64 stretch = 0, longest = 0, max_cb = 0;
	unsigned int i, gaps = 0, boot_early = 0;

	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, storm_cancel_all,
							items), 0);
	for (i = 0; i < n; i++) {
		enum tw_clock clock = i < STORM_PER_CLOCK ? TW_CLOCK_MONO :
							    TW_CLOCK_BOOT;

		items[i].log = log;
		items[i].boot = clock == TW_CLOCK_BOOT;
		twheel_timeout_init_clock(&items[i].t, storm_fn,
					  items[i].boot ? CLOCK_BOOTTIME :
							  CLOCK_MONOTONIC);
		KUNIT_ASSERT_EQ(test, twheel_arm_abs(&items[i].t,
						     tw_clock_from_mono(due, clock),
						     cpu), 0);
	}
	if (ktime_get_ns() >= due)
		kunit_skip(test, "arming %u took more than 300 ms", n);
	while (atomic_read(&log->n) < n && ktime_get_ns() < due + 10 * NSEC_PER_SEC)
		msleep(20);
	KUNIT_ASSERT_EQ(test, atomic_read(&log->n), (int)n);

	for (i = 0; i < n; i++) {
		const struct storm_cb *cb = &log->cbs[i];
		u64 gap = i ? cb->start - log->cbs[i - 1].end : 0;

		if (gap >= TW_YIELD_NS) {
			idle += gap;
			gaps++;
			stretch = 0;
		}
		stretch += cb->end - cb->start + (gap < TW_YIELD_NS ? gap : 0);
		longest = max(longest, stretch);
		max_cb = max(max_cb, cb->end - cb->start);
		if (i < n / 2 && cb->boot)
			boot_early++;
	}
	span = log->cbs[n - 1].end - log->cbs[0].start;
	kunit_info(test, "%u callbacks of %u us on CPU %u in %llu us: %llu us (%llu%%) in %u gaps of %u us or more; longest stretch %llu us (longest callback %llu us); %u of the first %u on CLOCK_BOOTTIME\n",
		   n, STORM_CB_US, cpu, span / NSEC_PER_USEC,
		   idle / NSEC_PER_USEC, idle * 100 / span, gaps,
		   (unsigned int)(TW_YIELD_NS / NSEC_PER_USEC), longest / NSEC_PER_USEC,
		   max_cb / NSEC_PER_USEC, boot_early, n / 2);
	KUNIT_EXPECT_LT(test, longest, (u64)(2 * TW_RUN_NS) + 2 * max_cb);
	KUNIT_EXPECT_GE(test, idle * 100, span * 15);
	KUNIT_EXPECT_GE(test, boot_early, STORM_PER_CLOCK / 4);
}

/*
 * Two owners on one CPU: TURNS_STORM timeouts of one queue all due at once,
 * each callback busy for TURNS_CB_US, and one timeout of another queue due
 * TURNS_LATER_MS after them. The owners' wheels take turns, so once the
 * bystander is due it waits at most for the rest of the run in progress
 * (at most expire_budget callbacks, 256 by default) and one turn of the
 * storm: it runs while the storm still runs. (With one expired list for
 * all, it waits for the whole storm.)
 */
#define TURNS_STORM		1500U
#define TURNS_CB_US		40U
#define TURNS_LATER_MS		20U

struct turns_ctx {
	u64 bystander_due;
	atomic_t storm_ran;
	atomic_t storm_after_due;
	atomic_t bystander_ran;
	int storm_before_bystander;
};

struct turns_item {
	struct twheel_timeout t;
	struct turns_ctx *ctx;
};

static void turns_storm_fn(struct twheel_timeout *t)
{
	struct turns_ctx *ctx = container_of(t, struct turns_item, t)->ctx;

	if (!atomic_read(&ctx->bystander_ran) &&
	    ktime_get_ns() >= ctx->bystander_due)
		atomic_inc(&ctx->storm_after_due);
	udelay(TURNS_CB_US);
	atomic_inc(&ctx->storm_ran);
}

static void turns_bystander_fn(struct twheel_timeout *t)
{
	struct turns_ctx *ctx = container_of(t, struct turns_item, t)->ctx;

	ctx->storm_before_bystander = atomic_read(&ctx->storm_ran);
	atomic_set(&ctx->bystander_ran, 1);
}

static void api_owners_take_turns(struct kunit *test)
{
	unsigned int cpu = cpumask_last(cpu_online_mask), i;
	struct turns_item *items = test_vzalloc(test, (TURNS_STORM + 1) *
						sizeof(*items));
	struct turns_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct turns_item *by = &items[TURNS_STORM];
	u64 due = ktime_get_ns() + 500 * NSEC_PER_MSEC;
	int storm_q = tw_queue_get(), by_q = tw_queue_get();

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	KUNIT_ASSERT_GT(test, storm_q, 0);
	KUNIT_ASSERT_GT(test, by_q, 0);
	KUNIT_EXPECT_NE(test, storm_q, by_q);
	ctx->bystander_due = tw_tick_to_ns(tw_ns_to_tick(due +
					   TURNS_LATER_MS * NSEC_PER_MSEC));
	for (i = 0; i <= TURNS_STORM; i++) {
		items[i].ctx = ctx;
		twheel_timeout_init(&items[i].t, i < TURNS_STORM ?
				    turns_storm_fn : turns_bystander_fn);
		tw_set_queue(&items[i].t, i < TURNS_STORM ? storm_q : by_q);
	}
	for (i = 0; i < TURNS_STORM; i++)
		KUNIT_ASSERT_EQ(test, twheel_arm_abs(&items[i].t, due, cpu), 0);
	KUNIT_ASSERT_EQ(test, twheel_arm_abs(&by->t, ctx->bystander_due, cpu),
			0);
	if (ktime_get_ns() >= due)
		kunit_info(test, "arming %u took more than 500 ms\n",
			   TURNS_STORM);
	while (atomic_read(&ctx->storm_ran) < TURNS_STORM &&
	       ktime_get_ns() < due + 20 * NSEC_PER_SEC)
		msleep(20);
	for (i = 0; i <= TURNS_STORM; i++)
		twheel_cancel_sync(&items[i].t);
	tw_queue_put(storm_q);
	tw_queue_put(by_q);
	kunit_info(test, "CPU %u: the bystander ran after %d of %u storm callbacks, %d of them after it was due\n",
		   cpu, ctx->storm_before_bystander, TURNS_STORM,
		   atomic_read(&ctx->storm_after_due));
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->bystander_ran), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->storm_ran), (int)TURNS_STORM);
	KUNIT_EXPECT_LT(test, ctx->storm_before_bystander, (int)TURNS_STORM);
	KUNIT_EXPECT_LE(test, atomic_read(&ctx->storm_after_due), 256 + 2);
}

/*
 * A client that passes a @now_ns far ahead of the clock (the wrong clock,
 * say) must not move the wheel's clock: another timeout armed after it on
 * the same CPU must still not fire early.
 */
static void api_mod_now_ahead_moves_no_clock(struct kunit *test)
{
	struct probe *wrong = new_probe(test), *p = new_probe(test);
	unsigned int cpu = cpumask_first(cpu_online_mask);
	u64 ahead = ktime_get_ns() + 10 * NSEC_PER_SEC;

	wrong->deadline = ahead + NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, twheel_mod(&wrong->t, wrong->deadline, ahead,
					 cpu, 0), 0);
	p->deadline = ktime_get_ns() + 100 * NSEC_PER_MSEC;
	KUNIT_ASSERT_EQ(test, twheel_arm_abs(&p->t, p->deadline, cpu), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
	twheel_cancel_sync(&wrong->t);
	twheel_cancel_sync(&p->t);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->early), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&wrong->fired), 0);
}

/* tw_in_callback(): true inside a timeout's callback, false outside. */
static atomic_t in_callback_seen;

static void in_callback_fn(struct twheel_timeout *t)
{
	atomic_set(&in_callback_seen, tw_in_callback() ? 1 : 2);
}

static void api_in_callback_known(struct kunit *test)
{
	struct probe *p = new_probe(test);

	atomic_set(&in_callback_seen, 0);
	twheel_timeout_init(&p->t, in_callback_fn);
	KUNIT_EXPECT_FALSE(test, tw_in_callback());
	KUNIT_ASSERT_EQ(test, twheel_arm(&p->t, NSEC_PER_MSEC), 0);
	msleep(50);
	twheel_cancel_sync(&p->t);
	KUNIT_EXPECT_EQ(test, atomic_read(&in_callback_seen), 1);
	KUNIT_EXPECT_FALSE(test, tw_in_callback());
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

static void sum_stats(struct tw_stats *sum)
{
	struct tw_stats s;
	unsigned long pending;
	unsigned int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		tw_stats_snapshot(cpu, &s, &pending);
		sum->cascaded += s.cascaded;
		sum->expired += s.expired;
		sum->hrtimer_fires += s.hrtimer_fires;
		sum->max_late_ns = max(sum->max_late_ns, s.max_late_ns);
		sum->max_cb_ns = max(sum->max_cb_ns, s.max_cb_ns);
	}
}

static void api_load_100k(struct kunit *test)
{
	struct tw_stats before, after;
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

/* A shut down timeout ignores every later arm, its own callback's too. */
static void api_shutdown_ignores_arms(struct kunit *test)
{
	struct probe *p = new_probe(test);
	u64 start = ktime_get_ns();
	int fired;

	atomic_set(&p->rearm, INT_MAX);
	probe_arm(p, NSEC_PER_MSEC);
	while (atomic_read(&p->fired) < 3) {
		KUNIT_ASSERT_LT(test, ktime_get_ns() - start, 10 * NSEC_PER_SEC);
		msleep(20);
	}
	twheel_shutdown_sync(&p->t);
	fired = atomic_read(&p->fired);
	KUNIT_EXPECT_EQ(test, twheel_arm(&p->t, NSEC_PER_MSEC), 0);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
	msleep(30);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), fired);
	/* Initialised again, it works again. */
	atomic_set(&p->rearm, 0);
	twheel_timeout_init(&p->t, probe_fn);
	reinit_completion(&p->done);
	KUNIT_EXPECT_EQ(test, probe_arm(p, NSEC_PER_MSEC), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&p->done, 5 * HZ),
			0UL);
}

/* twheel_mod(): its flags, and every argument it refuses. */
static void api_mod_flags_and_checks(struct kunit *test)
{
	struct probe *p = new_probe(test);
	u64 now = ktime_get_ns();

	p->deadline = now + NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, twheel_mod(&p->t, p->deadline, now,
					 TWHEEL_CPU_LOCAL,
					 TWHEEL_MOD_PENDING_ONLY), 0);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&p->t));
	KUNIT_EXPECT_EQ(test, twheel_mod(&p->t, p->deadline, now,
					 TWHEEL_CPU_LOCAL,
					 TWHEEL_MOD_IDLE_ONLY), 0);
	KUNIT_EXPECT_TRUE(test, twheel_pending(&p->t));
	/* Already pending: IDLE_ONLY leaves it where it is. */
	KUNIT_EXPECT_EQ(test, twheel_mod(&p->t, now, now, TWHEEL_CPU_LOCAL,
					 TWHEEL_MOD_IDLE_ONLY), 1);
	msleep(50);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->fired), 0);
	KUNIT_EXPECT_EQ(test, twheel_mod(&p->t, now, now, TWHEEL_CPU_LOCAL,
					 TWHEEL_MOD_PENDING_ONLY |
					 TWHEEL_MOD_IDLE_ONLY), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_mod(&p->t, now, now, TWHEEL_CPU_LOCAL,
					 0x80), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_mod(&p->t, now, now, -2, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, twheel_mod(&p->t, (u64)KTIME_MAX + 1, now,
					 TWHEEL_CPU_LOCAL, 0), -ERANGE);
	KUNIT_EXPECT_EQ(test, twheel_arm(&p->t, twheel_max_delay_ns() + 1),
			-ERANGE);
	KUNIT_EXPECT_TRUE(test, twheel_pending(&p->t));
	KUNIT_EXPECT_EQ(test, twheel_cancel_sync(&p->t), 1);
}

/**
 * struct kick_ctx - arms from one CPU onto another CPU's busy wheel
 * @probes: timeouts re-armed on @victim as soon as they fired
 * @n: how many
 * @victim: the CPU whose base is kicked
 * @until: when the arming thread stops
 * @armed: arms of timeouts that were not pending (each fires once)
 */
struct kick_ctx {
	struct probe *probes;
	unsigned int n;
	unsigned int victim;
	u64 until;
	atomic_t armed;
};

static int kick_thread(void *data)
{
	struct kick_ctx *ctx = data;
	unsigned int i = 0;
	struct probe *p;

	while (!kthread_should_stop() && ktime_get_ns() < ctx->until &&
	       atomic_read(&ctx->armed) < RACE_OPS) {
		if (!(i % ctx->n))
			cond_resched();
		p = &ctx->probes[i++ % ctx->n];
		/* Pending, or its callback reads p->deadline right now. */
		if (twheel_pending(&p->t) || twheel_try_cancel(&p->t))
			continue;
		/* Half due at once (a kick), half a tick away. */
		p->deadline = ktime_get_ns() + (i % 2) * twheel_tick_ns();
		if (twheel_arm_abs(&p->t, p->deadline, ctx->victim) == 0)
			atomic_inc(&ctx->armed);
	}
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/*
 * Kicks reach a base whose hrtimer callback is starting or running: a
 * thread on one CPU keeps arming timeouts due at once on the other. Each
 * arm fires once, none early, and the base's hrtimer still works after.
 */
static void api_kick_while_callback_runs(struct kunit *test)
{
	struct kick_ctx ctx = { .n = 256 };
	struct task_struct *task;
	unsigned int i, fired = 0, early = 0, cancelled = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two online CPUs");
	ctx.victim = cpumask_first(cpu_online_mask);
	ctx.probes = test_vzalloc(test, ctx.n * sizeof(*ctx.probes));
	for (i = 0; i < ctx.n; i++) {
		twheel_timeout_init(&ctx.probes[i].t, probe_fn);
		init_completion(&ctx.probes[i].done);
	}
	ctx.until = ktime_get_ns() + RACE_MAX_NS;
	task = kthread_create(kick_thread, &ctx, "twheel_kick");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpumask_last(cpu_online_mask));
	wake_up_process(task);
	while (atomic_read(&ctx.armed) < RACE_OPS &&
	       ktime_get_ns() < ctx.until)
		msleep(100);
	kthread_stop(task);
	for (i = 0; i < ctx.n; i++) {
		cancelled += twheel_cancel_sync(&ctx.probes[i].t);
		fired += atomic_read(&ctx.probes[i].fired);
		early += atomic_read(&ctx.probes[i].early);
	}
	KUNIT_EXPECT_EQ(test, fired + cancelled,
			(unsigned int)atomic_read(&ctx.armed));
	KUNIT_EXPECT_EQ(test, early, 0U);
	KUNIT_EXPECT_GT(test, fired, 1000U);
	kunit_info(test, "%d arms kicked CPU %u, %u fired\n",
		   atomic_read(&ctx.armed), ctx.victim, fired);
	reinit_completion(&ctx.probes[0].done);
	ctx.probes[0].deadline = ktime_get_ns() + NSEC_PER_MSEC;
	KUNIT_EXPECT_EQ(test, twheel_arm_abs(&ctx.probes[0].t,
					     ctx.probes[0].deadline,
					     ctx.victim), 0);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&ctx.probes[0].done,
							  5 * HZ), 0UL);
}

/**
 * struct fifo_ctx - a real-time task that cancels a callback it preempts
 * @p: a timeout whose callback busy-waits and re-arms itself every tick
 * @longest: longest twheel_cancel_sync() seen, ns
 * @rounds: cancels done
 * @done: completed when the task has done all its rounds
 */
struct fifo_ctx {
	struct probe *p;
	u64 longest;
	unsigned int rounds;
	struct completion done;
};

static int fifo_cancel_thread(void *data)
{
	struct fifo_ctx *ctx = data;
	u64 start;

	sched_set_fifo(current);
	for (ctx->rounds = 0; ctx->rounds < 20; ctx->rounds++) {
		usleep_range(500, 1500);
		start = ktime_get_ns();
		twheel_cancel_sync(&ctx->p->t);
		ctx->longest = max(ctx->longest, ktime_get_ns() - start);
		atomic_set(&ctx->p->rearm, INT_MAX);
		probe_arm(ctx->p, 0);
	}
	twheel_cancel_sync(&ctx->p->t);
	complete(&ctx->done);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

/*
 * A SCHED_FIFO task on the callback's own CPU cancels while the callback
 * busy-waits 5 ms. On PREEMPT_RT it preempts the callback's thread: the
 * expiry lock lends it the task's priority instead of the task spinning
 * forever. Every cancel ends within a second.
 */
static void api_cancel_sync_from_fifo_task(struct kunit *test)
{
	struct fifo_ctx ctx = { .p = new_probe(test) };
	unsigned int cpu = cpumask_first(cpu_online_mask);
	struct task_struct *task;

	init_completion(&ctx.done);
	ctx.p->hold_ms = 5;
	atomic_set(&ctx.p->rearm, INT_MAX);
	task = kthread_create(fifo_cancel_thread, &ctx, "twheel_fifo");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	kthread_bind(task, cpu);
	ctx.p->deadline = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, twheel_arm_abs(&ctx.p->t, ctx.p->deadline, cpu),
			0);
	wake_up_process(task);
	KUNIT_EXPECT_NE(test, wait_for_completion_timeout(&ctx.done, 30 * HZ),
			0UL);
	kthread_stop(task);
	KUNIT_EXPECT_EQ(test, ctx.rounds, 20U);
	KUNIT_EXPECT_LT(test, ctx.longest, (u64)NSEC_PER_SEC);
	KUNIT_EXPECT_FALSE(test, twheel_pending(&ctx.p->t));
	kunit_info(test, "longest cancel_sync against a 5 ms callback: %llu us\n",
		   div_u64(ctx.longest, NSEC_PER_USEC));
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
	KUNIT_CASE_SLOW(api_races_from_all_cpus),
	KUNIT_CASE(api_tickless_when_empty),
	KUNIT_CASE(api_move_idles_the_old_base),
	KUNIT_CASE_SLOW(api_hotplug_moves_timeouts),
	KUNIT_CASE(api_shutdown_ignores_arms),
	KUNIT_CASE(api_mod_flags_and_checks),
	KUNIT_CASE_SLOW(api_kick_while_callback_runs),
	KUNIT_CASE(api_cancel_sync_from_fifo_task),
	KUNIT_CASE(api_boottime_timeout_on_boottime_base),
	KUNIT_CASE(api_storm_on_both_clocks_shares_the_cpu),
	KUNIT_CASE(api_owners_take_turns),
	KUNIT_CASE(api_mod_now_ahead_moves_no_clock),
	KUNIT_CASE(api_in_callback_known),
	{}
};

static struct kunit_suite api_suite = {
	.name = "twheel_api",
	.test_cases = api_cases,
};

kunit_test_suites(&api_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suite of the twheel API on the live wheels");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
