// SPDX-License-Identifier: GPL-2.0
/*
 * read_test.c - read(), poll(), select() and epoll on /dev/twheel: buffer
 * sizes, blocking and non-blocking reads, signals, faults part-way through
 * a read (no record lost), level- and edge-triggered readiness.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

FIXTURE(rd) {
	int fd;
	struct twheel_info info;
};

FIXTURE_SETUP(rd)
{
	self->fd = tw_open(_metadata);
	tw_info(_metadata, self->fd, &self->info);
}

FIXTURE_TEARDOWN(rd)
{
	close(self->fd);
}

/* Arm @n timeouts with cookies 0..n-1 that fire at once; wait for all. */
static void fire_now(struct __test_metadata *const _metadata, int fd, int n)
{
	int i;

	for (i = 0; i < n; i++)
		tw_arm(_metadata, fd, i, 0);
	for (i = 0; i < 200 && tw_fdinfo(fd, "queued") < n; i++)
		sleep_ns(5 * MS);
	ASSERT_EQ(tw_fdinfo(fd, "queued"), n);
}

static void set_nonblock(struct __test_metadata *const _metadata, int fd)
{
	ASSERT_EQ(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK), 0);
}

TEST_F(rd, buffer_smaller_than_a_record_einval)
{
	char buf[sizeof(struct twheel_event)];

	fire_now(_metadata, self->fd, 1);
	EXPECT_EQ(read(self->fd, buf, sizeof(buf) - 1), -1);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(read(self->fd, buf, 0), -1);
	EXPECT_EQ(errno, EINVAL);
	/* The record is still there. */
	EXPECT_EQ(tw_read(_metadata, self->fd, (struct twheel_event *)buf, 1),
		  1);
}

TEST_F(rd, nonblocking_read_when_empty_eagain)
{
	struct twheel_event ev;
	int fd = tw_open_flags(_metadata, O_NONBLOCK);

	tw_arm(_metadata, fd, 0, 10 * SEC);
	EXPECT_EQ(tw_read(_metadata, fd, &ev, 1), -EAGAIN);
	close(fd);
}

/* Returns as many whole records as fit; the rest stay queued. */
TEST_F(rd, returns_whole_records_that_fit)
{
	struct twheel_event ev[8];
	char buf[3 * sizeof(struct twheel_event) + 20];
	unsigned int seen = 0;
	int i;

	fire_now(_metadata, self->fd, 5);
	ASSERT_EQ(read(self->fd, buf, sizeof(buf)), 3 * EV_SIZE);
	for (i = 0; i < 3; i++) {
		memcpy(&ev[i], buf + i * EV_SIZE, EV_SIZE);
		seen |= 1U << ev[i].cookie;
	}
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 2);
	ASSERT_EQ(tw_read(_metadata, self->fd, ev, 8), 2);
	seen |= 1U << ev[0].cookie | 1U << ev[1].cookie;
	EXPECT_EQ(seen, 0x1fULL);
}

TEST_F(rd, blocking_read_woken_by_expiry)
{
	struct twheel_event ev;
	uint64_t t0 = now_ns();

	tw_arm(_metadata, self->fd, 1, 50 * MS);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	EXPECT_GE(now_ns(), t0 + 50 * MS);
	EXPECT_EQ(ev.cookie, 1ULL);
}

static void on_alarm(int sig)
{
	(void)sig;
}

static void alarm_in(struct __test_metadata *const _metadata, uint64_t ns,
		     int restart)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = {
		.it_value = { .tv_sec = ns / SEC, .tv_usec = ns % SEC / 1000 },
	};

	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(sigaction(SIGALRM, &sa, NULL), 0);
	ASSERT_EQ(setitimer(ITIMER_REAL, &it, NULL), 0);
}

TEST_F(rd, blocking_read_interrupted_by_signal_eintr)
{
	struct twheel_event ev;
	uint64_t t0 = now_ns();

	tw_arm(_metadata, self->fd, 0, 10 * SEC);
	alarm_in(_metadata, 50 * MS, 0);
	EXPECT_EQ(tw_read(_metadata, self->fd, &ev, 1), -EINTR);
	EXPECT_GE(now_ns(), t0 + 50 * MS);
	EXPECT_LT(now_ns() - t0, 5 * SEC);
}

/* With SA_RESTART the read goes on waiting and gets the record. */
TEST_F(rd, blocking_read_restarts_after_signal)
{
	struct twheel_event ev;

	tw_arm(_metadata, self->fd, 7, 150 * MS);
	alarm_in(_metadata, 30 * MS, 1);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	EXPECT_EQ(ev.cookie, 7ULL);
}

TEST_F(rd, bad_buffer_efault_keeps_the_record)
{
	void *volatile null = NULL;
	struct twheel_event ev;

	fire_now(_metadata, self->fd, 1);
	EXPECT_EQ(read(self->fd, null, EV_SIZE), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(read(self->fd, tw_guard_pages(_metadata, PROT_READ),
		       EV_SIZE), -1);
	EXPECT_EQ(errno, EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 1);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	EXPECT_EQ(ev.cookie, 0ULL);
}

/*
 * The buffer's second record lies across a page that cannot be written:
 * read() returns the first; the others stay queued and nothing is lost.
 */
TEST_F(rd, fault_part_way_loses_nothing)
{
	char *edge = tw_guard_pages(_metadata, PROT_NONE);
	struct twheel_event ev[4];
	unsigned int seen;
	int i;

	fire_now(_metadata, self->fd, 4);
	EXPECT_EQ(read(self->fd, edge - EV_SIZE - 16, 3 * EV_SIZE), EV_SIZE);
	memcpy(&ev[0], edge - EV_SIZE - 16, EV_SIZE);
	seen = 1U << ev[0].cookie;
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 3);
	ASSERT_EQ(tw_read(_metadata, self->fd, ev, 4), 3);
	for (i = 0; i < 3; i++)
		seen |= 1U << ev[i].cookie;
	EXPECT_EQ(seen, 0xfULL);
}

/* Level-triggered: readable as long as a record is queued. */
TEST_F(rd, poll_level_triggered)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN | POLLRDNORM };
	struct twheel_event ev;

	tw_arm(_metadata, self->fd, 0, 30 * MS);
	EXPECT_EQ(poll(&p, 1, 0), 0);
	ASSERT_EQ(poll(&p, 1, 5000), 1);
	EXPECT_EQ(p.revents, POLLIN | POLLRDNORM);
	EXPECT_EQ(poll(&p, 1, 0), 1);
	EXPECT_EQ(poll(&p, 1, 0), 1);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	EXPECT_EQ(poll(&p, 1, 0), 0);
}

TEST_F(rd, select_reports_readable)
{
	struct timeval tv = { .tv_sec = 5 };
	fd_set rfds;

	tw_arm(_metadata, self->fd, 0, 20 * MS);
	FD_ZERO(&rfds);
	FD_SET(self->fd, &rfds);
	ASSERT_EQ(select(self->fd + 1, &rfds, NULL, NULL, &tv), 1);
	EXPECT_TRUE(FD_ISSET(self->fd, &rfds));
}

static int epoll_for(struct __test_metadata *const _metadata, int fd,
		     uint32_t events)
{
	struct epoll_event e = { .events = events };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_GE(ep, 0);
	ASSERT_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e), 0);
	return ep;
}

TEST_F(rd, epoll_level_triggered)
{
	int ep = epoll_for(_metadata, self->fd, EPOLLIN);
	struct epoll_event e;
	struct twheel_event ev;

	tw_arm(_metadata, self->fd, 0, 20 * MS);
	EXPECT_EQ(epoll_wait(ep, &e, 1, 0), 0);
	ASSERT_EQ(epoll_wait(ep, &e, 1, 5000), 1);
	EXPECT_EQ(e.events, (uint32_t)EPOLLIN);
	EXPECT_EQ(epoll_wait(ep, &e, 1, 0), 1);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	EXPECT_EQ(epoll_wait(ep, &e, 1, 0), 0);
	close(ep);
}

/* Edge-triggered: one event per new record, none while nothing new comes. */
TEST_F(rd, epoll_edge_triggered)
{
	int ep = epoll_for(_metadata, self->fd, EPOLLIN | EPOLLET);
	struct epoll_event e;
	struct twheel_event ev[2];

	tw_arm(_metadata, self->fd, 0, 20 * MS);
	ASSERT_EQ(epoll_wait(ep, &e, 1, 5000), 1);
	EXPECT_EQ(epoll_wait(ep, &e, 1, 50), 0);
	tw_arm(_metadata, self->fd, 1, 20 * MS);
	ASSERT_EQ(epoll_wait(ep, &e, 1, 5000), 1);
	EXPECT_EQ(epoll_wait(ep, &e, 1, 0), 0);
	ASSERT_EQ(tw_read(_metadata, self->fd, ev, 2), 2);
	close(ep);
}

/*
 * Edge-triggered loop as real programs write it (drain until EAGAIN) over a
 * stream of expiries on every CPU: no wake-up is lost, no record is missed.
 */
TEST_F_TIMEOUT(rd, epoll_edge_no_lost_wakeup, 60)
{
	const int n = 2000;
	int ep = epoll_for(_metadata, self->fd, EPOLLIN | EPOLLET);
	int got = 0, r, i;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct twheel_event ev[16];
	struct epoll_event e;
	uint64_t h;

	set_nonblock(_metadata, self->fd);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(tw_arm_full(self->fd, i, (i % 500) * MS / 2, 0,
				      TWHEEL_ARM_CPU, i % ncpu, &h), 0);
	}
	while (got < n) {
		ASSERT_EQ(epoll_wait(ep, &e, 1, 5000), 1);
		while ((r = tw_read(_metadata, self->fd, ev, 16)) > 0)
			got += r;
		ASSERT_EQ(r, -EAGAIN);
	}
	EXPECT_EQ(got, n);
	close(ep);
}

static void *read_one_blocking(void *arg)
{
	struct twheel_event ev;
	int fd = *(int *)arg;

	return (void *)(intptr_t)tw_read_nocheck(fd, &ev, 1);
}

/* Two blocked readers, two records: each reader gets exactly one. */
TEST_F(rd, concurrent_blocking_readers)
{
	pthread_t t[2];
	void *ret[2];

	ASSERT_EQ(pthread_create(&t[0], NULL, read_one_blocking, &self->fd), 0);
	ASSERT_EQ(pthread_create(&t[1], NULL, read_one_blocking, &self->fd), 0);
	sleep_ns(30 * MS);
	tw_arm(_metadata, self->fd, 0, 10 * MS);
	tw_arm(_metadata, self->fd, 1, 20 * MS);
	pthread_join(t[0], &ret[0]);
	pthread_join(t[1], &ret[1]);
	EXPECT_EQ((intptr_t)ret[0], 1);
	EXPECT_EQ((intptr_t)ret[1], 1);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

/* poll() in one thread is woken by an expiry armed from another. */
TEST_F(rd, poll_woken_by_expiry)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };
	uint64_t t0 = now_ns();

	tw_arm(_metadata, self->fd, 0, 40 * MS);
	ASSERT_EQ(poll(&p, 1, 5000), 1);
	EXPECT_GE(now_ns(), t0 + 40 * MS);
	EXPECT_LT(now_ns() - t0, 4 * SEC);
}

TEST_HARNESS_MAIN
