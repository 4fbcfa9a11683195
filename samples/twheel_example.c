// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_example.c - a client of the twheel kernel API, to copy from
 *
 * Shows every call a module author needs:
 *  - a periodic "heartbeat" that re-arms itself from its callback, with a
 *    fixed rate (next deadline = previous deadline + period, so it does not
 *    drift however late a callback runs);
 *  - one-shot "request deadlines", most of them cancelled before they fire,
 *    one pushed back with twheel_rearm() (the idle-timeout pattern);
 *  - one timeout armed on a chosen CPU with an absolute deadline;
 *  - every timeout initialised before any is armed, so that an error path
 *    may tear all of them down;
 *  - teardown with twheel_shutdown_sync(), which is safe against a callback
 *    that re-arms itself (the re-arm is ignored) and returns only when no
 *    callback runs any more: then the memory may go.
 *
 * The counters are atomics: callbacks run in softirq on any CPU while the
 * module's init and exit run in process context. No locks.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/timekeeping.h>

#include <linux/twheel.h>

#define EXAMPLE_PERIOD_NS	(100ULL * NSEC_PER_MSEC)
#define EXAMPLE_NR_REQUESTS	8
#define EXAMPLE_REQUEST_NS	(500ULL * NSEC_PER_MSEC)

/**
 * struct example_heartbeat - a periodic timeout embedded in its owner
 * @timeout: the twheel timeout
 * @deadline: deadline of the current period, CLOCK_MONOTONIC ns
 * @beats: callbacks run so far
 * @early: callbacks that ran before their deadline (must stay 0)
 */
struct example_heartbeat {
	struct twheel_timeout timeout;
	u64 deadline;
	atomic_t beats;
	atomic_t early;
};

static struct example_heartbeat heartbeat;
static struct twheel_timeout requests[EXAMPLE_NR_REQUESTS];
static struct twheel_timeout pinned;
static atomic_t requests_fired;
static atomic_t pinned_fired;

static void heartbeat_fn(struct twheel_timeout *t)
{
	struct example_heartbeat *hb = container_of(t, struct example_heartbeat,
						    timeout);

	if (ktime_get_ns() < hb->deadline)
		atomic_inc(&hb->early);
	atomic_inc(&hb->beats);
	/* Fixed rate: the next deadline follows the last one, not "now". */
	hb->deadline += EXAMPLE_PERIOD_NS;
	twheel_arm_abs(t, hb->deadline, TWHEEL_CPU_LOCAL);
}

static void request_fn(struct twheel_timeout *t)
{
	atomic_inc(&requests_fired);
}

static void pinned_fn(struct twheel_timeout *t)
{
	atomic_inc(&pinned_fired);
	pr_info("pinned timeout ran on CPU %d\n", smp_processor_id());
}

static void __init example_init_all(void)
{
	unsigned int i;

	twheel_timeout_init(&heartbeat.timeout, heartbeat_fn);
	for (i = 0; i < EXAMPLE_NR_REQUESTS; i++)
		twheel_timeout_init(&requests[i], request_fn);
	twheel_timeout_init(&pinned, pinned_fn);
}

static int __init example_arm_all(void)
{
	unsigned int i;
	int ret;

	heartbeat.deadline = ktime_get_ns() + EXAMPLE_PERIOD_NS;
	ret = twheel_arm_abs(&heartbeat.timeout, heartbeat.deadline,
			     TWHEEL_CPU_LOCAL);
	if (ret < 0)
		return ret;

	for (i = 0; i < EXAMPLE_NR_REQUESTS; i++) {
		ret = twheel_arm(&requests[i], EXAMPLE_REQUEST_NS);
		if (ret < 0)
			return ret;
	}
	/* Most requests complete in time: their deadlines are cancelled. */
	for (i = 1; i < EXAMPLE_NR_REQUESTS; i++)
		twheel_cancel(&requests[i]);
	/* The one left is pushed back, as an idle timeout on activity. */
	twheel_rearm(&requests[0], 2 * EXAMPLE_REQUEST_NS);

	return twheel_arm_abs(&pinned, ktime_get_ns() + EXAMPLE_PERIOD_NS,
			      cpumask_last(cpu_online_mask));
}

static void example_shutdown_all(void)
{
	unsigned int i;

	twheel_shutdown_sync(&heartbeat.timeout);
	for (i = 0; i < EXAMPLE_NR_REQUESTS; i++)
		twheel_shutdown_sync(&requests[i]);
	twheel_shutdown_sync(&pinned);
}

static int __init twheel_example_init(void)
{
	int ret;

	example_init_all();
	ret = example_arm_all();
	if (ret < 0) {
		example_shutdown_all();
		return ret;
	}
	pr_info("armed: heartbeat every %llu ms, %d requests, tick %llu ns\n",
		EXAMPLE_PERIOD_NS / NSEC_PER_MSEC, EXAMPLE_NR_REQUESTS,
		twheel_tick_ns());
	return 0;
}

static void __exit twheel_example_exit(void)
{
	example_shutdown_all();
	WARN(atomic_read(&heartbeat.early), "twheel fired a timeout early\n");
	pr_info("heartbeats %d early %d requests fired %d pinned fired %d\n",
		atomic_read(&heartbeat.beats), atomic_read(&heartbeat.early),
		atomic_read(&requests_fired), atomic_read(&pinned_fired));
}

module_init(twheel_example_init);
module_exit(twheel_example_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Example client of the twheel kernel API");
MODULE_AUTHOR("The twheel developers");
