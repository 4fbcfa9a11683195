// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug_test.c - CPU hotplug churn under load: many timeouts armed on
 * every CPU, one CPU taken offline and back again and again while they fire.
 * Every timeout must be delivered exactly once, never before its deadline,
 * and a cancel that returned 0 must hold through the moves.
 *
 * Needs root and two online CPUs (the guests have two); SKIPs otherwise.
 * TWHEEL_HOTPLUG_CYCLES and TWHEEL_HOTPLUG_TIMEOUTS override the size
 * (make stress runs it bigger).
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "twheel_util.h"

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

static int set_online(int on)
{
	int fd = open(CPU1_ONLINE, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static long env_or(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? atol(v) : def;
}

/* A debug kernel (lockdep) is about 10x slower: smaller default sizes. */
static int debug_kernel(void)
{
	return access("/proc/lockdep", F_OK) == 0;
}

struct churn {
	int cycles;
	volatile int stop;
	int done, failed;
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;

	for (c->done = 0; c->done < c->cycles && !c->stop; c->done++) {
		if (set_online(0) || set_online(1)) {
			c->failed = 1;
			break;
		}
	}
	return NULL;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Whatever happens, CPU 1 is online again for the tests that follow. */
FIXTURE(hp) {
	int unused;
};

FIXTURE_SETUP(hp)
{
}

FIXTURE_TEARDOWN(hp)
{
	set_online(1);
}

TEST_F_TIMEOUT(hp, churn_loses_nothing, 120)
{
	long n = env_or("TWHEEL_HOTPLUG_TIMEOUTS",
			debug_kernel() ? 20000 : 100000);
	struct churn c = {
		.cycles = env_or("TWHEEL_HOTPLUG_CYCLES", 20),
	};
	uint64_t *deadline = calloc(n, sizeof(*deadline));
	uint64_t *handle = calloc(n, sizeof(*handle));
	unsigned char *seen = calloc(n, 1);
	struct twheel_event ev[256];
	long i, got = 0, early = 0, dup = 0, cancelled = 0;
	uint64_t start, now;
	pthread_t thr;
	int fd, k, r;

	if (geteuid() != 0 || access(CPU1_ONLINE, W_OK) ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs root and CPU 1 online and removable");
	ASSERT_TRUE(deadline && handle && seen);
	fd = tw_open(_metadata);
	start = now_ns();
	/* Deadlines over 3 s, half armed from each CPU, every 10th pinned. */
	for (i = 0; i < n; i++) {
		uint32_t flags = TWHEEL_ARM_ABS, cpu = 0;

		if (i == 0 || i == n / 2)
			pin(i ? 1 : 0);
		if (i % 10 == 0) {
			flags |= TWHEEL_ARM_CPU;
			cpu = i % 20 ? 1 : 0;
		}
		deadline[i] = start + 200 * MS + (i * 3000 / n) * MS;
		ASSERT_EQ(tw_arm_full(fd, i, deadline[i], 0, flags, cpu,
				      &handle[i]), 0);
	}
	pin(0);
	/* Every 7th is cancelled again: none of those may come back. */
	for (i = 3; i < n; i += 7) {
		ASSERT_EQ(tw_cancel(fd, handle[i]), 0);
		seen[i] = 2;
		cancelled++;
	}
	ASSERT_EQ(pthread_create(&thr, NULL, churn_main, &c), 0);
	while (got < n - cancelled) {
		ASSERT_TRUE(tw_wait_ready(fd, 20000)) {
			TH_LOG("%ld of %ld delivered after 20 s of silence",
			       got, n - cancelled);
			c.stop = 1;
		}
		r = tw_read(_metadata, fd, ev, 256);
		ASSERT_GT(r, 0);
		now = now_ns();
		for (k = 0; k < r; k++) {
			i = ev[k].cookie;
			ASSERT_LT(i, n);
			if (seen[i])
				dup++;
			seen[i] = 1;
			if (ev[k].expired < deadline[i] || now < deadline[i])
				early++;
		}
		got += r;
	}
	c.stop = 1;
	pthread_join(thr, NULL);
	set_online(1);
	EXPECT_EQ(c.failed, 0);
	EXPECT_EQ(dup, 0);
	EXPECT_EQ(early, 0);
	EXPECT_GT(c.done, 0);
	EXPECT_FALSE(tw_wait_ready(fd, 300));
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
	TH_LOG("%ld timeouts (%ld cancelled), %d offline/online cycles, %ld delivered, %ld early, %ld twice",
	       n, cancelled, c.done, got, early, dup);
	close(fd);
	free(deadline);
	free(handle);
	free(seen);
}

TEST_HARNESS_MAIN
