// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * lib_test.c - tests of libtwheel against the running module
 *
 * Prints TAP like the userspace suite's *_test programs and exits 0 only if
 * every test passed. Each test runs in a child process (a crash or a hang
 * stays with that test; a test that outlives 30 s is killed and fails).
 * Arguments, if any, are shell patterns selecting tests by name.
 * Without /dev/twheel every test is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

#define MS	1000000ULL

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

static int failed;

#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			printf("# %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			failed = 1; \
		} \
	} while (0)

#define CHECK_EQ(a, b) \
	do { \
		long long _a = (long long)(a), _b = (long long)(b); \
		if (_a != _b) { \
			printf("# %s:%d: expected %s == %s (%lld vs %lld)\n", \
			       __FILE__, __LINE__, #a, #b, _a, _b); \
			failed = 1; \
		} \
	} while (0)

/* End the test now on a failed precondition. */
#define REQUIRE_EQ(a, b) \
	do { \
		CHECK_EQ(a, b); \
		if (failed) \
			exit(1); \
	} while (0)

static struct twheel *open_tw(unsigned int depth, unsigned int flags)
{
	struct twheel *tw = NULL;

	REQUIRE_EQ(twheel_open(&tw, NULL, depth, flags), 0);
	return tw;
}

/* The handshake fills the info and exposes a usable fd. */
static void test_open_info(void)
{
	struct twheel *tw = open_tw(0, 0);
	const struct twheel_info *info = twheel_get_info(tw);

	CHECK(info->size >= TWHEEL_INFO_SIZE_VER0);
	CHECK(info->ioctls & TWHEEL_FEAT_BATCH);
	CHECK_EQ(info->event_size, sizeof(struct twheel_event));
	CHECK(info->tick_ns > 0);
	CHECK(info->max_batch > 0);
	CHECK(twheel_fd(tw) >= 0);
	CHECK(fcntl(twheel_fd(tw), F_GETFD) & FD_CLOEXEC);
	CHECK(twheel_supports(tw, TWHEEL_ARM_ABS));
	CHECK(!twheel_supports(tw, 0x80000000U));
	CHECK_EQ(twheel_queued(tw), 0);
	CHECK_EQ(twheel_flush(tw), 0);	/* empty queue: no ioctl, 0 */
	twheel_close(tw);
}

/* Open errors come back as negative errno, and *twp stays NULL. */
static void test_open_errors(void)
{
	struct twheel *tw = (struct twheel *)1;

	CHECK_EQ(twheel_open(&tw, "/nonexistent/twheel", 0, 0), -ENOENT);
	CHECK(tw == NULL);
	/* A device that is not twheel: the INFO ioctl fails with ENOTTY. */
	CHECK_EQ(twheel_open(&tw, "/dev/null", 0, 0), -EOPNOTSUPP);
	CHECK(tw == NULL);
	CHECK_EQ(twheel_open(&tw, NULL, 0, 0x100), -EINVAL);
	CHECK_EQ(twheel_open(NULL, NULL, 0, 0), -EINVAL);
}

/* Queued operations reach the kernel only at the flush, in one batch. */
static void test_batch_flush(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[3];
	int i;

	memset(r, 0x5a, sizeof(r));
	for (i = 0; i < 3; i++)
		REQUIRE_EQ(twheel_prep_arm(tw, 100 + i, 10000 * MS, 0, 0, 0, &r[i]), 0);
	CHECK_EQ(twheel_queued(tw), 3);
	/* Nothing submitted yet: the slots are untouched. */
	CHECK_EQ(r[0].result, 0x5a5a5a5a);
	CHECK_EQ(twheel_flush(tw), 3);
	CHECK_EQ(twheel_queued(tw), 0);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(r[i].result, 0);
		CHECK_EQ(r[i].op, TWHEEL_OP_ARM);
		CHECK(r[i].handle != 0);
	}
	CHECK(r[0].handle != r[1].handle && r[1].handle != r[2].handle);
	/* They are live: cancelling them succeeds, and a second time not. */
	for (i = 0; i < 3; i++)
		REQUIRE_EQ(twheel_prep_cancel(tw, r[i].handle, 0, &r[i]), 0);
	CHECK_EQ(twheel_flush(tw), 3);
	for (i = 0; i < 3; i++)
		CHECK_EQ(r[i].result, 0);
	REQUIRE_EQ(twheel_prep_cancel(tw, r[0].handle, 0, &r[0]), 0);
	CHECK_EQ(twheel_flush(tw), 1);
	CHECK_EQ(r[0].result, -ENOENT);
	twheel_close(tw);
}

/* A full queue is flushed by the next prep, before that prep is queued. */
static void test_auto_flush(void)
{
	struct twheel *tw = open_tw(4, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[10];
	int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 10; i++) {
		REQUIRE_EQ(twheel_prep_arm(tw, i, 10000 * MS, 0, 0, 0, &r[i]), 0);
		/* 4 queued, the 5th flushes them: the queue never exceeds 4. */
		CHECK_EQ(twheel_queued(tw), i % 4 + 1);
	}
	for (i = 0; i < 8; i++)
		CHECK(r[i].handle != 0);
	CHECK(r[8].handle == 0 && r[9].handle == 0);
	CHECK_EQ(twheel_flush(tw), 2);
	CHECK(r[8].handle != 0 && r[9].handle != 0);
	twheel_close(tw);
}

/* Each operation has its own result; one failure does not stop the rest. */
static void test_per_op_errors(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	const struct twheel_info *info = twheel_get_info(tw);
	struct twheel_result a, bad, c1, re, shortp, big, ok;

	REQUIRE_EQ(twheel_prep_arm(tw, 1, 10000 * MS, 0, 0, 0, &a), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	REQUIRE_EQ(a.result, 0);

	/* A handle never handed out. */
	REQUIRE_EQ(twheel_prep_cancel(tw, 0x7777000012345ULL, 0, &bad), 0);
	/* Cancel then re-arm in the same batch: 0, then ENOENT. */
	REQUIRE_EQ(twheel_prep_cancel(tw, a.handle, 0, &c1), 0);
	REQUIRE_EQ(twheel_prep_rearm(tw, a.handle, 50 * MS, 0, &re), 0);
	/* A period shorter than a tick. */
	REQUIRE_EQ(twheel_prep_arm(tw, 2, 10 * MS, info->tick_ns - 1, 0, 0, &shortp), 0);
	/* A delay longer than max_delay_ns. */
	REQUIRE_EQ(twheel_prep_arm(tw, 3, info->max_delay_ns + 1, 0, 0, 0, &big), 0);
	/* And one that works, after all of them. */
	REQUIRE_EQ(twheel_prep_arm(tw, 4, 10000 * MS, 0, 0, 0, &ok), 0);
	CHECK_EQ(twheel_flush(tw), 6);
	CHECK_EQ(bad.result, -ENOENT);
	CHECK_EQ(bad.op, TWHEEL_OP_CANCEL);
	CHECK_EQ(c1.result, 0);
	CHECK_EQ(re.result, -ENOENT);
	CHECK_EQ(re.op, TWHEEL_OP_REARM);
	CHECK_EQ(shortp.result, -EINVAL);
	CHECK_EQ(shortp.handle, 0);
	CHECK_EQ(big.result, -ERANGE);
	CHECK_EQ(ok.result, 0);
	CHECK(ok.handle != 0);

	/* Flags the library rejects before queueing anything. */
	CHECK_EQ(twheel_prep_arm(tw, 5, MS, 0, 0x80000000U, 0, &ok), -EINVAL);
	CHECK_EQ(twheel_prep_rearm(tw, ok.handle, MS, 0x80000000U, &ok), -EINVAL);
	CHECK_EQ(twheel_queued(tw), 0);
	/* NULL result slot: the operation runs, its result is dropped. */
	REQUIRE_EQ(twheel_prep_cancel(tw, ok.handle, 0, NULL), 0);
	CHECK_EQ(twheel_flush(tw), 1);
	REQUIRE_EQ(twheel_prep_cancel(tw, ok.handle, 0, &ok), 0);
	CHECK_EQ(twheel_flush(tw), 1);
	CHECK_EQ(ok.result, -ENOENT);
	twheel_close(tw);
}

/* A failed flush applies nothing and keeps the queue for retry/discard. */
static void test_closed_fd(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r = { .result = 12345 };
	struct twheel_event ev;

	REQUIRE_EQ(twheel_prep_arm(tw, 1, MS, 0, 0, 0, &r), 0);
	close(twheel_fd(tw));
	CHECK_EQ(twheel_flush(tw), -EBADF);
	CHECK_EQ(r.result, 12345);
	CHECK_EQ(twheel_queued(tw), 1);
	CHECK_EQ(twheel_fill(tw), -EBADF);
	CHECK_EQ(twheel_read(tw, &ev, 1), -EBADF);
	CHECK_EQ(twheel_discard(tw), 1);
	CHECK_EQ(twheel_queued(tw), 0);
	CHECK_EQ(twheel_flush(tw), 0);
	twheel_close(tw);	/* closes the fd again: harmless EBADF */
}

/* Expiries arrive through twheel_fill() and the iteration helpers. */
static void test_events(void)
{
	struct twheel *tw = open_tw(0, 0);
	struct twheel_result r[3];
	const struct twheel_event *ev;
	uint64_t start = twheel_now_ns();
	int seen1 = 0, seen3 = 0, n, rounds = 0;

	REQUIRE_EQ(twheel_prep_arm(tw, 1, 20 * MS, 0, 0, 0, &r[0]), 0);
	REQUIRE_EQ(twheel_prep_arm(tw, 2, 30 * MS, 0, 0, 0, &r[1]), 0);
	REQUIRE_EQ(twheel_prep_arm(tw, 3, start + 40 * MS, 0, TWHEEL_ARM_ABS, 0, &r[2]), 0);
	REQUIRE_EQ(twheel_flush(tw), 3);
	REQUIRE_EQ(twheel_prep_cancel(tw, r[1].handle, 0, &r[1]), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	CHECK_EQ(r[1].result, 0);

	while ((!seen1 || !seen3) && rounds++ < 10) {
		n = twheel_fill(tw);	/* blocks: the file is not O_NONBLOCK */
		CHECK(n > 0);
		if (n <= 0)
			break;
		twheel_for_each_event(tw, ev) {
			CHECK(ev->cookie != 2);	/* cancelled: never read */
			CHECK(ev->deadline <= ev->expired);
			CHECK(ev->expired >= start + 20 * MS);
			CHECK(!twheel_event_is_periodic(ev));
			CHECK_EQ(twheel_event_late_ns(ev), ev->expired - ev->deadline);
			if (ev->cookie == 1) {
				CHECK_EQ(ev->handle, r[0].handle);
				seen1++;
			} else if (ev->cookie == 3) {
				CHECK_EQ(ev->handle, r[2].handle);
				CHECK(ev->deadline >= start + 40 * MS);
				seen3++;
			}
		}
		CHECK(twheel_next_event(tw) == NULL);
	}
	CHECK_EQ(seen1, 1);
	CHECK_EQ(seen3, 1);
	twheel_close(tw);
}

/* Non-blocking reads, a periodic timeout, and epoll on twheel_fd(). */
static void test_nonblock_epoll_periodic(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct epoll_event ee = { .events = EPOLLIN }, out;
	struct twheel_result r;
	const struct twheel_event *ev;
	struct twheel_event raw;
	int ep, got = 0, i;

	CHECK_EQ(twheel_fill(tw), -EAGAIN);
	CHECK_EQ(twheel_read(tw, &raw, 0), -EINVAL);
	ep = epoll_create1(EPOLL_CLOEXEC);
	REQUIRE_EQ(ep >= 0, 1);
	REQUIRE_EQ(epoll_ctl(ep, EPOLL_CTL_ADD, twheel_fd(tw), &ee), 0);
	CHECK_EQ(epoll_wait(ep, &out, 1, 0), 0);
	REQUIRE_EQ(twheel_prep_arm(tw, 9, 10 * MS, 10 * MS, 0, 0, &r), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	REQUIRE_EQ(r.result, 0);
	for (i = 0; i < 3; i++) {
		CHECK_EQ(epoll_wait(ep, &out, 1, 10000), 1);
		CHECK(twheel_fill(tw) >= 1);
		twheel_for_each_event(tw, ev) {
			CHECK_EQ(ev->handle, r.handle);
			CHECK(twheel_event_is_periodic(ev));
			got++;
		}
	}
	CHECK_EQ(got, 3);
	REQUIRE_EQ(twheel_prep_cancel(tw, r.handle, 0, &r), 0);
	CHECK_EQ(twheel_flush(tw), 1);
	CHECK_EQ(r.result, 0);
	close(ep);
	twheel_close(tw);
}

/* A re-arm pushes the expiry back. */
static void test_rearm(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r, rr;
	struct twheel_event ev;
	uint64_t start = twheel_now_ns();
	struct timespec ts = { 0, 100 * MS };

	REQUIRE_EQ(twheel_prep_arm(tw, 1, 50 * MS, 0, 0, 0, &r), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	REQUIRE_EQ(twheel_prep_rearm(tw, r.handle, 2000 * MS, 0, &rr), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	CHECK_EQ(rr.result, 0);
	CHECK_EQ(rr.handle, r.handle);
	nanosleep(&ts, NULL);
	/* Unless the guest stalled for 2 s, nothing is ready yet. */
	if (twheel_now_ns() - start < 2000 * MS)
		CHECK_EQ(twheel_read(tw, &ev, 1), -EAGAIN);
	twheel_close(tw);
}

/*
 * The queries (TWHEEL_OP_GET, TWHEEL_CANCEL_REPORT, the whole-file ioctls),
 * or a skip on a module without them.
 */
#define SKIP_EXIT	77
static void need_queries(struct twheel *tw)
{
	const struct twheel_info *info = twheel_get_info(tw);

	if (!(info->batch_ops & TWHEEL_OP_BIT(TWHEEL_OP_GET)) ||
	    !(info->cancel_flags & TWHEEL_CANCEL_REPORT) ||
	    !(info->ioctls & TWHEEL_FEAT_STATS)) {
		printf("# module without queries (batch_ops 0x%llx, cancel_flags 0x%x)\n",
		       (unsigned long long)info->batch_ops, info->cancel_flags);
		exit(SKIP_EXIT);
	}
}

/* A cancel with TWHEEL_CANCEL_REPORT says what it undid. */
static void test_cancel_report(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result a, b, ca, cb, again;
	struct pollfd pfd;

	need_queries(tw);
	CHECK_EQ(twheel_prep_cancel(tw, 1, 0x80000000U, &ca), -EINVAL);
	REQUIRE_EQ(twheel_prep_arm(tw, 1, 10000 * MS, 0, 0, 0, &a), 0);
	REQUIRE_EQ(twheel_prep_arm(tw, 2, 1 * MS, 0, 0, 0, &b), 0);
	REQUIRE_EQ(twheel_flush(tw), 2);
	/* b fires; its record waits unread. */
	pfd = (struct pollfd){ .fd = twheel_fd(tw), .events = POLLIN };
	REQUIRE_EQ(poll(&pfd, 1, 10000), 1);
	REQUIRE_EQ(twheel_prep_cancel(tw, a.handle, TWHEEL_CANCEL_REPORT, &ca), 0);
	REQUIRE_EQ(twheel_prep_cancel(tw, b.handle, TWHEEL_CANCEL_REPORT, &cb), 0);
	REQUIRE_EQ(twheel_prep_cancel(tw, b.handle, TWHEEL_CANCEL_REPORT, &again), 0);
	CHECK_EQ(twheel_flush(tw), 3);
	CHECK_EQ(ca.result, TWHEEL_CANCELLED_ARMED);
	CHECK_EQ(cb.result, TWHEEL_CANCELLED_QUEUED);
	CHECK_EQ(again.result, -ENOENT);
	CHECK_EQ(twheel_fill(tw), -EAGAIN);	/* the queued record is gone */
	twheel_close(tw);
}

/* TWHEEL_OP_GET fills the result slot with the timeout's state. */
static void test_get(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result a, g, gone;
	uint64_t start = twheel_now_ns();

	need_queries(tw);
	REQUIRE_EQ(twheel_prep_arm(tw, 42, 10000 * MS, 5000 * MS, 0, 0, &a), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	REQUIRE_EQ(twheel_prep_get(tw, a.handle, &g), 0);
	REQUIRE_EQ(twheel_prep_get(tw, a.handle + 1, &gone), 0);
	CHECK_EQ(twheel_flush(tw), 2);
	CHECK_EQ(g.op, TWHEEL_OP_GET);
	CHECK_EQ(g.result, TWHEEL_STATE_ARMED);
	CHECK_EQ(g.handle, a.handle);
	CHECK_EQ(g.cookie, 42);
	CHECK_EQ(g.period, 5000 * MS);
	CHECK(g.deadline >= start + 10000 * MS);
	CHECK_EQ(gone.result, -ENOENT);
	CHECK_EQ(gone.cookie, 0);
	twheel_close(tw);
}

/* The file's counters, and draining its timeouts. */
static void test_stats_drain(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[5];
	struct twheel_get ent[2];
	struct twheel_stats st;
	uint64_t cursor = 0, seen = 0;
	int i, n, calls = 0;

	need_queries(tw);
	for (i = 0; i < 5; i++)
		REQUIRE_EQ(twheel_prep_arm(tw, 100 + i, 10000 * MS, 0, 0, 0, &r[i]), 0);
	REQUIRE_EQ(twheel_flush(tw), 5);
	REQUIRE_EQ(twheel_prep_cancel(tw, r[0].handle, 0, NULL), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	REQUIRE_EQ(twheel_get_stats(tw, &st), 0);
	CHECK_EQ(st.pending, 4);
	CHECK_EQ(st.armed, 5);
	CHECK_EQ(st.cancelled, 1);
	CHECK_EQ(st.queued, 0);
	CHECK_EQ(twheel_drain(tw, ent, 2, NULL, 0), -EINVAL);
	CHECK_EQ(twheel_drain(tw, ent, 2, &cursor, 0x80000000U), -EINVAL);
	/* Two at a time, cancelling what was listed: four, then nothing. */
	while ((n = twheel_drain(tw, ent, 2, &cursor, TWHEEL_DRAIN_CANCEL)) > 0 &&
	       calls++ < 10) {
		for (i = 0; i < n; i++) {
			CHECK(ent[i].cookie >= 101 && ent[i].cookie <= 104);
			seen |= 1ULL << (ent[i].cookie - 100);
		}
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(seen, 0x1e);
	REQUIRE_EQ(twheel_get_stats(tw, &st), 0);
	CHECK_EQ(st.pending, 0);
	twheel_close(tw);
}

/* Sleep until @h's record is queued in the kernel (the file is NONBLOCK). */
static void wait_ready(struct twheel *tw)
{
	struct pollfd pfd = { .fd = twheel_fd(tw), .events = POLLIN };

	REQUIRE_EQ(poll(&pfd, 1, 10000), 1);
}

/*
 * A cancel queued before twheel_fill() is submitted before the read: the
 * record of the cancelled timeout, already queued in the kernel, is never
 * read, and the cancel's result is in its slot when twheel_fill() returns.
 */
static void test_fill_flushes_first(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result a, c;
	struct twheel_event ev;

	REQUIRE_EQ(twheel_prep_arm(tw, 7, 1 * MS, 0, 0, 0, &a), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	REQUIRE_EQ(a.result, 0);
	wait_ready(tw);
	memset(&c, 0xa5, sizeof(c));
	REQUIRE_EQ(twheel_prep_cancel(tw, a.handle, 0, &c), 0);
	CHECK_EQ(twheel_fill(tw), -EAGAIN);
	CHECK(twheel_next_event(tw) == NULL);
	CHECK_EQ(twheel_queued(tw), 0);
	CHECK_EQ(c.result, 0);
	CHECK_EQ(c.op, TWHEEL_OP_CANCEL);
	/* twheel_read() too. */
	REQUIRE_EQ(twheel_prep_arm(tw, 8, 1 * MS, 0, 0, 0, &a), 0);
	REQUIRE_EQ(twheel_flush(tw), 1);
	wait_ready(tw);
	REQUIRE_EQ(twheel_prep_cancel(tw, a.handle, 0, &c), 0);
	CHECK_EQ(twheel_read(tw, &ev, 1), -EAGAIN);
	CHECK_EQ(twheel_queued(tw), 0);
	CHECK_EQ(c.result, 0);
	twheel_close(tw);
}

/*
 * Records twheel_fill() already holds: one whose timeout is then cancelled
 * or re-armed is not returned by twheel_next_event(); the others are.
 */
static void test_cancel_drops_buffered(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[3], c, rr;
	const struct twheel_event *ev;
	struct twheel_stats st;
	uint64_t first, cancel = 0, rearm = 0;
	int i, tries = 0, others = 0;

	need_queries(tw);
	for (i = 0; i < 3; i++)
		REQUIRE_EQ(twheel_prep_arm(tw, i + 1, 1 * MS, 0, 0, 0, &r[i]), 0);
	REQUIRE_EQ(twheel_flush(tw), 3);
	/* All three fired and are queued: one read takes them. */
	do {
		usleep(10 * 1000);
		REQUIRE_EQ(twheel_get_stats(tw, &st), 0);
	} while (st.queued < 3 && tries++ < 1000);
	REQUIRE_EQ(st.queued, 3);
	REQUIRE_EQ(twheel_fill(tw), 3);
	ev = twheel_next_event(tw);
	REQUIRE_EQ(ev != NULL, 1);
	first = ev->handle;
	/* The two not yet iterated: cancel one, re-arm the other. */
	for (i = 0; i < 3; i++) {
		if (r[i].handle == first)
			continue;
		if (!cancel)
			cancel = r[i].handle;
		else
			rearm = r[i].handle;
	}
	REQUIRE_EQ(twheel_prep_cancel(tw, cancel, 0, &c), 0);
	REQUIRE_EQ(twheel_prep_rearm(tw, rearm, 10000 * MS, 0, &rr), 0);
	/* Nothing left to iterate, nothing to read: fill does not count them. */
	CHECK_EQ(twheel_fill(tw), -EAGAIN);
	twheel_for_each_event(tw, ev) {
		printf("# record of %llu after its cancel or re-arm\n",
		       (unsigned long long)ev->handle);
		others++;
	}
	CHECK_EQ(others, 0);
	/* Their records were read before the operations reached the kernel. */
	CHECK_EQ(c.result, -ENOENT);
	CHECK_EQ(rr.result, -ENOENT);
	twheel_close(tw);
}

/* Each clock's now; a GET's remaining is read on the timeout's clock. */
static void clocks_remaining(void)
{
	struct twheel *tw = open_tw(0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result m, b, gm, gb;
	struct timespec ts;
	uint64_t mono, boot;

	need_queries(tw);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	CHECK(twheel_clock_ns(0) >= mono);
	CHECK(twheel_now_ns() >= mono);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	boot = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	CHECK(twheel_clock_ns(TWHEEL_ARM_BOOTTIME) >= boot);
	CHECK(twheel_clock_ns(TWHEEL_ARM_BOOTTIME) < boot + 1000 * MS);
	if (!twheel_supports(tw, TWHEEL_ARM_BOOTTIME)) {
		printf("# no TWHEEL_ARM_BOOTTIME\n");
		exit(SKIP_EXIT);
	}
	REQUIRE_EQ(twheel_prep_arm(tw, 1, 10000 * MS, 0, 0, 0, &m), 0);
	REQUIRE_EQ(twheel_prep_arm(tw, 2, 10000 * MS, 0, TWHEEL_ARM_BOOTTIME, 0, &b), 0);
	REQUIRE_EQ(twheel_flush(tw), 2);
	memset(&gb, 0xa5, sizeof(gb));
	REQUIRE_EQ(twheel_prep_get(tw, m.handle, &gm), 0);
	REQUIRE_EQ(twheel_prep_get(tw, b.handle, &gb), 0);
	REQUIRE_EQ(twheel_flush(tw), 2);
	REQUIRE_EQ(gb.result, TWHEEL_STATE_ARMED);
	CHECK(gb.flags & TWHEEL_ARM_BOOTTIME);
	CHECK(gb.deadline >= boot + 10000 * MS);
	/* Up to 10 s, and not a BOOTTIME deadline minus a MONOTONIC now. */
	CHECK(gb.remaining <= 10000 * MS);
	CHECK(gb.remaining > 9000 * MS);
	CHECK(gm.remaining <= 10000 * MS);
	CHECK(gm.remaining > 9000 * MS);
	CHECK_EQ(gb.reserved[0] | gb.reserved[4], 0);
	CHECK_EQ(m.remaining, 0);	/* only a GET has it */
	twheel_close(tw);
}

/*
 * In a time namespace whose CLOCK_BOOTTIME is 1000 s ahead of its
 * CLOCK_MONOTONIC, as after a long suspend: a BOOTTIME deadline read
 * against the MONOTONIC clock would be 1000 s off.
 */
static void test_clocks_remaining(void)
{
	int fd, status;
	pid_t pid;

	if (unshare(CLONE_NEWTIME)) {
		printf("# no time namespaces here: %s\n", strerror(errno));
		exit(SKIP_EXIT);
	}
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	REQUIRE_EQ(fd >= 0, 1);
	REQUIRE_EQ(write(fd, "boottime 1000 0\n", 16), 16);
	close(fd);
	fflush(stdout);
	pid = fork();
	REQUIRE_EQ(pid >= 0, 1);
	if (!pid) {
		clocks_remaining();
		fflush(stdout);
		_exit(failed);
	}
	REQUIRE_EQ(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_EXIT)
		exit(SKIP_EXIT);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The release the library was built as, the one of kmod/VERSION. */
static void test_version(void)
{
	const char *v = twheel_version();
	unsigned int a, b, c;
	char end;

	CHECK(v != NULL);
	if (v)
		CHECK_EQ(sscanf(v, "%u.%u.%u%c", &a, &b, &c, &end), 3);
}

struct test {
	const char *name;
	void (*fn)(void);
};

static const struct test tests[] = {
	{ "open_info", test_open_info },
	{ "open_errors", test_open_errors },
	{ "batch_flush", test_batch_flush },
	{ "auto_flush", test_auto_flush },
	{ "per_op_errors", test_per_op_errors },
	{ "closed_fd", test_closed_fd },
	{ "events", test_events },
	{ "nonblock_epoll_periodic", test_nonblock_epoll_periodic },
	{ "rearm", test_rearm },
	{ "cancel_report", test_cancel_report },
	{ "get", test_get },
	{ "stats_drain", test_stats_drain },
	{ "fill_flushes_first", test_fill_flushes_first },
	{ "cancel_drops_buffered", test_cancel_drops_buffered },
	{ "clocks_remaining", test_clocks_remaining },
	{ "version", test_version },
};

static int selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++)
		if (!fnmatch(argv[i], name, 0))
			return 1;
	return 0;
}

static int run_one(const struct test *t)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		alarm(30);
		t->fn();
		fflush(stdout);
		_exit(failed);
	}
	if (waitpid(pid, &status, 0) < 0)
		return 0;
	if (WIFSIGNALED(status)) {
		printf("# killed by signal %d%s\n", WTERMSIG(status),
		       WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == SKIP_EXIT)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	unsigned int i, n = 0, pass = 0, fail = 0, skip = 0;
	int ret, have = access(TWHEEL_DEVICE, F_OK) == 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
		n += selected(tests[i].name, argc, argv);
	printf("TAP version 13\n1..%u\n", n);
	n = 0;
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (!selected(tests[i].name, argc, argv))
			continue;
		n++;
		if (!have) {
			printf("ok %u %s # SKIP " TWHEEL_DEVICE " does not exist\n",
			       n, tests[i].name);
			skip++;
		} else if ((ret = run_one(&tests[i])) < 0) {
			printf("ok %u %s # SKIP the module lacks it\n", n, tests[i].name);
			skip++;
		} else if (ret) {
			printf("ok %u %s\n", n, tests[i].name);
			pass++;
		} else {
			printf("not ok %u %s\n", n, tests[i].name);
			fail++;
		}
	}
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       pass, fail, skip);
	return fail ? 1 : 0;
}
