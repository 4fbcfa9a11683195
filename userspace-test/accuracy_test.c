// SPDX-License-Identifier: GPL-2.0
/*
 * accuracy_test.c - /dev/twheel timeouts are never early and at most one
 * tick plus the machine's own wake-up latency late.
 *
 * Thousands of timeouts from 1 ms to 3 s (relative, absolute and pinned to
 * each CPU) run while a thread measures timerfd timers over the same delays
 * in the same guest: the largest timerfd lateness seen is the machine's
 * wake-up latency bound for this run. A twheel record's lateness is its
 * @expired minus its @deadline, both stamped by the kernel.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <linux/twheel.h>

#include "harness.h"
#include "twheel_util.h"

#define NR_TWHEEL	3000
#define NR_TIMERFD	300
#define MIN_DELAY	MS
#define MAX_DELAY	(3 * SEC)

/* Delay @i of @n, spread evenly on a log scale from MIN_DELAY to MAX_DELAY. */
static uint64_t log_delay(int i, int n)
{
	double f = (double)i / (n - 1);

	return (uint64_t)(MIN_DELAY * pow((double)MAX_DELAY / MIN_DELAY, f));
}

struct tfd_result {
	uint64_t max_late;
	int early;
	int fired;
	int error;
};

static void *timerfd_main(void *arg)
{
	struct tfd_result *res = arg;
	uint64_t deadline[NR_TIMERFD], now, late, ticks;
	struct epoll_event e[32];
	int fds[NR_TIMERFD], ep, i, n;
	struct itimerspec its = { 0 };

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0) {
		res->error = errno;
		return NULL;
	}
	for (i = 0; i < NR_TIMERFD; i++) {
		fds[i] = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (fds[i] < 0) {
			res->error = errno;
			return NULL;
		}
		deadline[i] = now_ns() + log_delay(i, NR_TIMERFD);
		its.it_value.tv_sec = deadline[i] / SEC;
		its.it_value.tv_nsec = deadline[i] % SEC;
		e[0] = (struct epoll_event){ .events = EPOLLIN, .data.u32 = i };
		if (timerfd_settime(fds[i], TFD_TIMER_ABSTIME, &its, NULL) ||
		    epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &e[0])) {
			res->error = errno;
			return NULL;
		}
	}
	while (res->fired < NR_TIMERFD) {
		n = epoll_wait(ep, e, 32, 10000);
		if (n <= 0) {
			res->error = n ? errno : ETIMEDOUT;
			break;
		}
		now = now_ns();
		for (i = 0; i < n; i++) {
			int k = e[i].data.u32;

			if (read(fds[k], &ticks, sizeof(ticks)) != sizeof(ticks))
				continue;
			res->fired++;
			if (now < deadline[k]) {
				res->early++;
				continue;
			}
			late = now - deadline[k];
			if (late > res->max_late)
				res->max_late = late;
			close(fds[k]);
		}
	}
	close(ep);
	return NULL;
}

struct tw_stats {
	uint64_t armed_deadline[NR_TWHEEL];
	uint64_t late[NR_TWHEEL];
	int seen[NR_TWHEEL];
	int early_kernel, early_user, wrong_deadline, dup;
	uint64_t max_user_late;
};

/* Arm timeout @i three ways: relative, absolute, or pinned to a CPU. */
static void arm_kind(int fd, int i, struct tw_stats *st, long ncpu)
{
	uint64_t delay = log_delay(i, NR_TWHEEL), h;

	switch (i % 3) {
	case 0:
		st->armed_deadline[i] = now_ns() + delay;
		ASSERT_EQ(tw_arm_full(fd, i, delay, 0, 0, 0, &h), 0);
		break;
	case 1:
		st->armed_deadline[i] = now_ns() + delay;
		ASSERT_EQ(tw_arm_full(fd, i, st->armed_deadline[i], 0,
				      TWHEEL_ARM_ABS, 0, &h), 0);
		break;
	default:
		st->armed_deadline[i] = now_ns() + delay;
		ASSERT_EQ(tw_arm_full(fd, i, delay, 0, TWHEEL_ARM_CPU,
				      i % ncpu, &h), 0);
		break;
	}
}

static void account(struct tw_stats *st, const struct twheel_event *ev,
		    uint64_t now)
{
	uint64_t i = ev->cookie;

	ASSERT_LT(i, NR_TWHEEL);
	if (st->seen[i]++)
		st->dup++;
	/* A relative deadline is computed a moment after our clock read. */
	if (ev->deadline < st->armed_deadline[i] ||
	    ev->deadline > st->armed_deadline[i] + 50 * MS)
		st->wrong_deadline++;
	if (ev->expired < ev->deadline)
		st->early_kernel++;
	if (now < ev->deadline)
		st->early_user++;
	st->late[i] = ev->expired - ev->deadline;
	if (now - ev->deadline > st->max_user_late)
		st->max_user_late = now - ev->deadline;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

TEST_TIMEOUT(never_early_and_late_by_at_most_a_tick_plus_latency, 60)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct tw_stats *st = calloc(1, sizeof(*st));
	struct tfd_result tfd = { 0 };
	struct twheel_event ev[64];
	struct twheel_info info;
	uint64_t bound, now;
	int fd = tw_open(), got = 0, i, n;
	pthread_t thr;

	ASSERT_TRUE(st != NULL);
	tw_info(fd, &info);
	ASSERT_EQ(pthread_create(&thr, NULL, timerfd_main, &tfd), 0);
	for (i = 0; i < NR_TWHEEL; i++)
		arm_kind(fd, i, st, ncpu);
	while (got < NR_TWHEEL) {
		ASSERT_TRUE(tw_wait_ready(fd, 10000));
		n = tw_read(fd, ev, 64);
		now = now_ns();
		ASSERT_GT(n, 0);
		for (i = 0; i < n; i++)
			account(st, &ev[i], now);
		got += n;
	}
	pthread_join(thr, NULL);
	ASSERT_EQ(tfd.error, 0);

	qsort(st->late, NR_TWHEEL, sizeof(st->late[0]), cmp_u64);
	bound = info.tick_ns + tfd.max_late;
	TH_LOG("twheel: %d timeouts 1 ms..3 s, lateness p50 %llu us, p99 %llu us, max %llu us (read side max %llu us)",
	       NR_TWHEEL,
	       (unsigned long long)st->late[NR_TWHEEL / 2] / 1000,
	       (unsigned long long)st->late[NR_TWHEEL * 99 / 100] / 1000,
	       (unsigned long long)st->late[NR_TWHEEL - 1] / 1000,
	       (unsigned long long)st->max_user_late / 1000);
	TH_LOG("timerfd: %d timers, max lateness %llu us; bound = tick %llu us + that = %llu us",
	       tfd.fired, (unsigned long long)tfd.max_late / 1000,
	       (unsigned long long)info.tick_ns / 1000,
	       (unsigned long long)bound / 1000);
	EXPECT_EQ(st->early_kernel, 0);
	EXPECT_EQ(st->early_user, 0);
	EXPECT_EQ(tfd.early, 0);
	EXPECT_EQ(st->dup, 0);
	EXPECT_EQ(st->wrong_deadline, 0);
	EXPECT_EQ(tfd.fired, NR_TIMERFD);
	EXPECT_LE_U(st->late[NR_TWHEEL - 1], bound);
	close(fd);
	free(st);
}

/* A periodic timeout at the shortest period: every deadline kept, in order. */
TEST(periodic_at_one_tick_never_early)
{
	int fd = tw_open(), i, n, total = 0;
	struct twheel_event ev[16];
	struct twheel_info info;
	uint64_t h, next = 0;

	tw_info(fd, &info);
	ASSERT_EQ(tw_arm_full(fd, 0, 0, info.tick_ns, 0, 0, &h), 0);
	while (total < 200) {
		ASSERT_TRUE(tw_wait_ready(fd, 5000));
		n = tw_read(fd, ev, 16);
		ASSERT_EQ(n, 1);
		for (i = 0; i < n; i++) {
			EXPECT_GE_U(ev[i].expired, ev[i].deadline);
			if (next)
				EXPECT_EQ_U(ev[i].deadline, next);
			next = ev[i].deadline + (ev[i].overrun + 1) *
			       info.tick_ns;
		}
		total += n;
	}
	close(fd);
}

TEST_HARNESS_MAIN
