// SPDX-License-Identifier: GPL-2.0
/*
 * hotplug_test.c - CPU hotplug churn under load: many timeouts armed on
 * every CPU, one CPU taken offline and back again and again while they fire,
 * and the example client module (samples/twheel_example.c) loaded through
 * it all. Every timeout must be delivered exactly once, never before its
 * deadline, and a cancel that returned 0 must hold through the moves; the
 * example's heartbeat must neither stop nor run early and its one request
 * and its pinned timeout must each run once.
 *
 * The churn runs its number of cycles; the timeouts come in rounds (arm
 * them, cancel every 7th, read the rest), one after the other until the
 * churn is done, so that every cycle has a round armed. The churn pauses
 * while a round is armed (CPU 1 online: some of them are pinned to it).
 *
 * Needs root and two online CPUs (the guests have two); SKIPs otherwise.
 * Without TW_MODDIR/twheel_example.ko the example is left out (noted).
 * churn_loses_nothing runs 20 cycles and one round (cycles left when it
 * ends run after it); churn_full_size runs
 * TWHEEL_HOTPLUG_CYCLES cycles with TWHEEL_HOTPLUG_TIMEOUTS timeouts a
 * round (make stress: 500 and 100,000) and SKIPs when the first is not set.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "twheel_util.h"

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define EXAMPLE_KO	TW_MODDIR "/twheel_example.ko"
/* EXAMPLE_PERIOD_NS of samples/twheel_example.c */
#define EXAMPLE_PERIOD	(100 * MS)

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

#define GET(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define SET(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

struct churn {
	int cycles;
	int stop;	/* main thread: end now */
	int hold;	/* main thread: pause after the current cycle */
	int held;	/* churn thread: paused, CPU 1 online */
	int finished;	/* churn thread: returned */
	int done, failed;
};

static void *churn_main(void *arg)
{
	struct churn *c = arg;

	while (GET(c->done) < c->cycles && !GET(c->stop)) {
		if (GET(c->hold)) {
			SET(c->held, 1);
			while (GET(c->hold) && !GET(c->stop))
				usleep(1000);
			SET(c->held, 0);
			continue;
		}
		if (set_online(0) || set_online(1)) {
			SET(c->failed, 1);
			break;
		}
		SET(c->done, c->done + 1);
	}
	SET(c->finished, 1);
	return NULL;
}

/* Pause the churn between two cycles; false once it has ended. */
static int churn_hold(struct churn *c)
{
	SET(c->hold, 1);
	while (!GET(c->held)) {
		if (GET(c->finished))
			return 0;
		usleep(1000);
	}
	return 1;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Whatever happens, the churn has stopped, CPU 1 is online again and the
 * example module gone for the tests that follow.
 */
FIXTURE(hp) {
	struct churn c;
	pthread_t thr;
	int churning;	/* thr runs */
	int example;	/* the example module is loaded */
};

FIXTURE_SETUP(hp)
{
}

FIXTURE_TEARDOWN(hp)
{
	if (self->churning) {
		SET(self->c.stop, 1);
		pthread_join(self->thr, NULL);
	}
	set_online(1);
	if (self->example)
		tw_unload_module("twheel_example");
}

struct example_run {
	uint64_t load, loaded, unload, unloaded;
	int beats, early, requests, pinned;
};

/*
 * Unload the example and read the line its exit prints ("heartbeats B
 * early E requests fired R pinned fired P") from /dev/kmsg.
 */
static void example_unload(struct __test_metadata *const _metadata,
			   FIXTURE_DATA(hp) *self, struct example_run *ex)
{
	char rec[1024], *p;
	int kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK), found = 0;
	ssize_t len;

	ASSERT_GE(kmsg, 0);
	lseek(kmsg, 0, SEEK_END);
	ex->unload = now_ns();
	ASSERT_EQ(tw_unload_module("twheel_example"), 0);
	ex->unloaded = now_ns();
	self->example = 0;
	for (;;) {
		len = read(kmsg, rec, sizeof(rec) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* records overwritten: read on */
		if (len <= 0)
			break;
		rec[len] = 0;
		p = strstr(rec, "twheel_example: heartbeats ");
		if (p && sscanf(p, "twheel_example: heartbeats %d early %d requests fired %d pinned fired %d",
				&ex->beats, &ex->early, &ex->requests,
				&ex->pinned) == 4)
			found = 1;
	}
	close(kmsg);
	ASSERT_TRUE(found) {
		TH_LOG("no 'heartbeats ...' line of twheel_example in /dev/kmsg");
	}
}

/*
 * The heartbeat is fixed rate and never early: its k-th run is at least
 * k periods after the module's init, so there are at most (unloaded -
 * load) / period of them; it catches up when late, so there are at least
 * (unload - loaded) / period of them minus those it was behind when shut
 * down: a second's worth is allowed. One that stopped (lost on a move) or
 * ran twice ends outside that range.
 */
static void example_check(struct __test_metadata *const _metadata,
			  struct example_run *ex)
{
	long most = (ex->unloaded - ex->load) / EXAMPLE_PERIOD;
	long least = (long)((ex->unload - ex->loaded) / EXAMPLE_PERIOD) -
		     SEC / EXAMPLE_PERIOD;

	TH_LOG("example module: %d heartbeats (%ld to %ld expected), %d early, %d request and %d pinned timeout run (1 each expected)",
	       ex->beats, least, most, ex->early, ex->requests, ex->pinned);
	EXPECT_EQ(ex->early, 0);
	EXPECT_LE(ex->beats, most);
	EXPECT_GE(ex->beats, least);
	EXPECT_EQ(ex->requests, 1);
	EXPECT_EQ(ex->pinned, 1);
}

/*
 * @n timeouts a round, @cycles offline/online cycles; at most @max_rounds
 * rounds (0: as many as the churn takes), the churn's remaining cycles then
 * run after the last round.
 */
static void churn_run(struct __test_metadata *const _metadata,
		      FIXTURE_DATA(hp) *self, long n, int cycles, long max_rounds)
{
	struct churn *c = &self->c;
	uint64_t *deadline = calloc(n, sizeof(*deadline));
	uint64_t *handle = calloc(n, sizeof(*handle));
	unsigned char *seen = calloc(n, 1);
	struct twheel_event ev[256];
	long i, got, cancelled, rounds = 0, delivered = 0, dropped = 0;
	long early = 0, dup = 0, revived = 0;
	struct example_run ex = { 0 };
	int fd, k, r, example;
	uint64_t start, now, base, cookie;

	if (geteuid() != 0 || access(CPU1_ONLINE, W_OK) ||
	    sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs root and CPU 1 online and removable");
	ASSERT_TRUE(deadline && handle && seen);
	fd = tw_open(_metadata);
	example = access(EXAMPLE_KO, R_OK) == 0;
	if (example) {
		ex.load = now_ns();
		ASSERT_EQ(tw_load_module(EXAMPLE_KO, ""), 0);
		ex.loaded = now_ns();
		self->example = 1;
	} else {
		TH_LOG("no " EXAMPLE_KO ": hotplug churn without the example module");
	}
	c->cycles = cycles;
	c->hold = 1;
	ASSERT_EQ(pthread_create(&self->thr, NULL, churn_main, c), 0);
	self->churning = 1;
	while ((!max_rounds || rounds < max_rounds) && churn_hold(c)) {
		base = rounds * n;
		start = now_ns();
		memset(seen, 0, n);
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
			ASSERT_EQ(tw_arm_full(fd, base + i, deadline[i], 0,
					      flags, cpu, &handle[i]), 0);
		}
		pin(0);
		/* Every 7th is cancelled again: none of those may come back. */
		cancelled = 0;
		for (i = 3; i < n; i += 7) {
			ASSERT_EQ(tw_cancel(fd, handle[i]), 0);
			seen[i] = 2;
			cancelled++;
		}
		SET(c->hold, 0);
		for (got = 0; got < n - cancelled; got += r) {
			ASSERT_TRUE(tw_wait_ready(fd, 20000)) {
				TH_LOG("round %ld: %ld of %ld delivered after 20 s of silence",
				       rounds, got, n - cancelled);
			}
			r = tw_read(_metadata, fd, ev, 256);
			ASSERT_GT(r, 0);
			now = now_ns();
			for (k = 0; k < r; k++) {
				cookie = ev[k].cookie;
				ASSERT_LT(cookie, base + n);
				/* One of an earlier round: all were delivered. */
				if (cookie < base) {
					dup++;
					continue;
				}
				i = cookie - base;
				if (seen[i] == 2)
					revived++;
				else if (seen[i])
					dup++;
				seen[i] = 1;
				if (ev[k].expired < deadline[i] ||
				    now < deadline[i])
					early++;
			}
		}
		delivered += got;
		dropped += cancelled;
		rounds++;
	}
	SET(c->hold, 0);
	pthread_join(self->thr, NULL);
	self->churning = 0;
	set_online(1);
	if (example)
		example_unload(_metadata, self, &ex);
	EXPECT_EQ(c->failed, 0);
	EXPECT_EQ(c->done, c->cycles);
	EXPECT_EQ(dup, 0);
	EXPECT_EQ(revived, 0);
	EXPECT_EQ(early, 0);
	EXPECT_FALSE(tw_wait_ready(fd, 300));
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
	TH_LOG("%ld rounds of %ld timeouts (%ld cancelled), %d offline/online cycles, %ld delivered, %ld early, %ld twice, %ld after their cancel",
	       rounds, n, dropped, c->done, delivered, early, dup, revived);
	if (example)
		example_check(_metadata, &ex);
	close(fd);
	free(deadline);
	free(handle);
	free(seen);
}

TEST_F_TIMEOUT(hp, churn_loses_nothing, 120)
{
	/* One round: a debug kernel takes up to 80 s to arm and read it. */
	churn_run(_metadata, self, debug_kernel() ? 20000 : 100000, 20, 1);
}

/* About 0.1 s a cycle in a stock TCG guest: 500 take about a minute. */
TEST_F_TIMEOUT(hp, churn_full_size, 3600)
{
	long cycles = env_or("TWHEEL_HOTPLUG_CYCLES", 0);

	if (cycles <= 0)
		SKIP(return, "make stress runs it (TWHEEL_HOTPLUG_CYCLES)");
	churn_run(_metadata, self,
		  env_or("TWHEEL_HOTPLUG_TIMEOUTS",
			 debug_kernel() ? 20000 : 100000), cycles, 0);
}

TEST_HARNESS_MAIN
