// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * lib_test.c - tests of libtwheel against the running module
 *
 * Built on the kernel's kselftest_harness.h, like the userspace suite's
 * *_test programs (see userspace-test/Makefile for where the header comes
 * from): TAP out, each test in its own child process with the harness's
 * timeout, exit 0 only if every test passed; -t NAME runs one. Without
 * /dev/twheel every test is skipped (the fixture's setup).
 */
#include <errno.h>
#include <fcntl.h>
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

#include "../kselftest_harness.h"

#define MS	1000000ULL

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

/*
 * The library's calls return int, unsigned and 64-bit values alike: compare
 * them as numbers (the harness's own EXPECT_EQ wants one signedness).
 */
#define EXPECT_NUM(seen, expected) \
	EXPECT_EQ((long long)(expected), (long long)(seen))
#define ASSERT_NUM(seen, expected) \
	ASSERT_EQ((long long)(expected), (long long)(seen))

FIXTURE(lib) {
};

FIXTURE_SETUP(lib)
{
	if (access(TWHEEL_DEVICE, F_OK))
		SKIP(return, TWHEEL_DEVICE " does not exist");
}

FIXTURE_TEARDOWN(lib)
{
}

static struct twheel *open_tw(struct __test_metadata *const _metadata,
			      unsigned int depth, unsigned int flags)
{
	struct twheel *tw = NULL;

	ASSERT_NUM(twheel_open(&tw, NULL, depth, flags), 0);
	return tw;
}

/* The handshake fills the info and exposes a usable fd. */
TEST_F(lib, open_info)
{
	struct twheel *tw = open_tw(_metadata, 0, 0);
	const struct twheel_info *info = twheel_get_info(tw);

	EXPECT_TRUE(info->size >= TWHEEL_INFO_SIZE_VER0);
	EXPECT_TRUE((info->ioctls & TWHEEL_FEAT_BATCH) != 0);
	EXPECT_NUM(info->event_size, sizeof(struct twheel_event));
	EXPECT_TRUE(info->tick_ns > 0);
	EXPECT_TRUE(info->max_batch > 0);
	EXPECT_TRUE(twheel_fd(tw) >= 0);
	EXPECT_TRUE(fcntl(twheel_fd(tw), F_GETFD) & FD_CLOEXEC);
	EXPECT_TRUE(twheel_supports(tw, TWHEEL_ARM_ABS));
	EXPECT_TRUE(!twheel_supports(tw, 0x80000000U));
	EXPECT_NUM(twheel_queued(tw), 0);
	EXPECT_NUM(twheel_flush(tw), 0);	/* empty queue: no ioctl, 0 */
	twheel_close(tw);
}

/* Open errors come back as negative errno, and *twp stays NULL. */
TEST_F(lib, open_errors)
{
	struct twheel *tw = (struct twheel *)1;

	EXPECT_NUM(twheel_open(&tw, "/nonexistent/twheel", 0, 0), -ENOENT);
	EXPECT_TRUE(tw == NULL);
	/* A device that is not twheel: the INFO ioctl fails with ENOTTY. */
	EXPECT_NUM(twheel_open(&tw, "/dev/null", 0, 0), -EOPNOTSUPP);
	EXPECT_TRUE(tw == NULL);
	EXPECT_NUM(twheel_open(&tw, NULL, 0, 0x100), -EINVAL);
	EXPECT_NUM(twheel_open(NULL, NULL, 0, 0), -EINVAL);
}

/* Queued operations reach the kernel only at the flush, in one batch. */
TEST_F(lib, batch_flush)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[3];
	int i;

	memset(r, 0x5a, sizeof(r));
	for (i = 0; i < 3; i++)
		ASSERT_NUM(twheel_prep_arm(tw, 100 + i, 10000 * MS, 0, 0, 0, &r[i]), 0);
	EXPECT_NUM(twheel_queued(tw), 3);
	/* Nothing submitted yet: the slots are untouched. */
	EXPECT_NUM(r[0].result, 0x5a5a5a5a);
	EXPECT_NUM(twheel_flush(tw), 3);
	EXPECT_NUM(twheel_queued(tw), 0);
	for (i = 0; i < 3; i++) {
		EXPECT_NUM(r[i].result, 0);
		EXPECT_NUM(r[i].op, TWHEEL_OP_ARM);
		EXPECT_TRUE(r[i].handle != 0);
	}
	EXPECT_TRUE(r[0].handle != r[1].handle && r[1].handle != r[2].handle);
	/* They are live: cancelling them succeeds, and a second time not. */
	for (i = 0; i < 3; i++)
		ASSERT_NUM(twheel_prep_cancel(tw, r[i].handle, 0, &r[i]), 0);
	EXPECT_NUM(twheel_flush(tw), 3);
	for (i = 0; i < 3; i++)
		EXPECT_NUM(r[i].result, 0);
	ASSERT_NUM(twheel_prep_cancel(tw, r[0].handle, 0, &r[0]), 0);
	EXPECT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(r[0].result, -ENOENT);
	twheel_close(tw);
}

/* A full queue is flushed by the next prep, before that prep is queued. */
TEST_F(lib, auto_flush)
{
	struct twheel *tw = open_tw(_metadata, 4, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[10];
	int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 10; i++) {
		ASSERT_NUM(twheel_prep_arm(tw, i, 10000 * MS, 0, 0, 0, &r[i]), 0);
		/* 4 queued, the 5th flushes them: the queue never exceeds 4. */
		EXPECT_NUM(twheel_queued(tw), i % 4 + 1);
	}
	for (i = 0; i < 8; i++)
		EXPECT_TRUE(r[i].handle != 0);
	EXPECT_TRUE(r[8].handle == 0 && r[9].handle == 0);
	EXPECT_NUM(twheel_flush(tw), 2);
	EXPECT_TRUE(r[8].handle != 0 && r[9].handle != 0);
	twheel_close(tw);
}

/* Each operation has its own result; one failure does not stop the rest. */
TEST_F(lib, per_op_errors)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	const struct twheel_info *info = twheel_get_info(tw);
	struct twheel_result a, bad, c1, re, shortp, big, ok;

	ASSERT_NUM(twheel_prep_arm(tw, 1, 10000 * MS, 0, 0, 0, &a), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	ASSERT_NUM(a.result, 0);

	/* A handle never handed out. */
	ASSERT_NUM(twheel_prep_cancel(tw, 0x7777000012345ULL, 0, &bad), 0);
	/* Cancel then re-arm in the same batch: 0, then ENOENT. */
	ASSERT_NUM(twheel_prep_cancel(tw, a.handle, 0, &c1), 0);
	ASSERT_NUM(twheel_prep_rearm(tw, a.handle, 50 * MS, 0, &re), 0);
	/* A period shorter than a tick. */
	ASSERT_NUM(twheel_prep_arm(tw, 2, 10 * MS, info->tick_ns - 1, 0, 0, &shortp), 0);
	/* A delay longer than max_delay_ns. */
	ASSERT_NUM(twheel_prep_arm(tw, 3, info->max_delay_ns + 1, 0, 0, 0, &big), 0);
	/* And one that works, after all of them. */
	ASSERT_NUM(twheel_prep_arm(tw, 4, 10000 * MS, 0, 0, 0, &ok), 0);
	EXPECT_NUM(twheel_flush(tw), 6);
	EXPECT_NUM(bad.result, -ENOENT);
	EXPECT_NUM(bad.op, TWHEEL_OP_CANCEL);
	EXPECT_NUM(c1.result, 0);
	EXPECT_NUM(re.result, -ENOENT);
	EXPECT_NUM(re.op, TWHEEL_OP_REARM);
	EXPECT_NUM(shortp.result, -EINVAL);
	EXPECT_NUM(shortp.handle, 0);
	EXPECT_NUM(big.result, -ERANGE);
	EXPECT_NUM(ok.result, 0);
	EXPECT_TRUE(ok.handle != 0);

	/* Flags the library rejects before queueing anything. */
	EXPECT_NUM(twheel_prep_arm(tw, 5, MS, 0, 0x80000000U, 0, &ok), -EINVAL);
	EXPECT_NUM(twheel_prep_rearm(tw, ok.handle, MS, 0x80000000U, &ok), -EINVAL);
	EXPECT_NUM(twheel_queued(tw), 0);
	/* NULL result slot: the operation runs, its result is dropped. */
	ASSERT_NUM(twheel_prep_cancel(tw, ok.handle, 0, NULL), 0);
	EXPECT_NUM(twheel_flush(tw), 1);
	ASSERT_NUM(twheel_prep_cancel(tw, ok.handle, 0, &ok), 0);
	EXPECT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(ok.result, -ENOENT);
	twheel_close(tw);
}

/* A failed flush applies nothing and keeps the queue for retry/discard. */
TEST_F(lib, closed_fd)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r = { .result = 12345 };
	struct twheel_event ev;

	ASSERT_NUM(twheel_prep_arm(tw, 1, MS, 0, 0, 0, &r), 0);
	close(twheel_fd(tw));
	EXPECT_NUM(twheel_flush(tw), -EBADF);
	EXPECT_NUM(r.result, 12345);
	EXPECT_NUM(twheel_queued(tw), 1);
	EXPECT_NUM(twheel_fill(tw), -EBADF);
	EXPECT_NUM(twheel_read(tw, &ev, 1), -EBADF);
	EXPECT_NUM(twheel_discard(tw), 1);
	EXPECT_NUM(twheel_queued(tw), 0);
	EXPECT_NUM(twheel_flush(tw), 0);
	twheel_close(tw);	/* closes the fd again: harmless EBADF */
}

/* Expiries arrive through twheel_fill() and the iteration helpers. */
TEST_F(lib, events)
{
	struct twheel *tw = open_tw(_metadata, 0, 0);
	struct twheel_result r[3];
	const struct twheel_event *ev;
	uint64_t start = twheel_now_ns();
	int seen1 = 0, seen3 = 0, n, rounds = 0;

	ASSERT_NUM(twheel_prep_arm(tw, 1, 20 * MS, 0, 0, 0, &r[0]), 0);
	ASSERT_NUM(twheel_prep_arm(tw, 2, 30 * MS, 0, 0, 0, &r[1]), 0);
	ASSERT_NUM(twheel_prep_arm(tw, 3, start + 40 * MS, 0, TWHEEL_ARM_ABS, 0, &r[2]), 0);
	ASSERT_NUM(twheel_flush(tw), 3);
	ASSERT_NUM(twheel_prep_cancel(tw, r[1].handle, 0, &r[1]), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(r[1].result, 0);

	while ((!seen1 || !seen3) && rounds++ < 10) {
		n = twheel_fill(tw);	/* blocks: the file is not O_NONBLOCK */
		EXPECT_TRUE(n > 0);
		if (n <= 0)
			break;
		twheel_for_each_event(tw, ev) {
			EXPECT_TRUE(ev->cookie != 2);	/* cancelled: never read */
			EXPECT_TRUE(ev->deadline <= ev->expired);
			EXPECT_TRUE(ev->expired >= start + 20 * MS);
			EXPECT_TRUE(!twheel_event_is_periodic(ev));
			EXPECT_NUM(twheel_event_late_ns(ev), ev->expired - ev->deadline);
			if (ev->cookie == 1) {
				EXPECT_NUM(ev->handle, r[0].handle);
				seen1++;
			} else if (ev->cookie == 3) {
				EXPECT_NUM(ev->handle, r[2].handle);
				EXPECT_TRUE(ev->deadline >= start + 40 * MS);
				seen3++;
			}
		}
		EXPECT_TRUE(twheel_next_event(tw) == NULL);
	}
	EXPECT_NUM(seen1, 1);
	EXPECT_NUM(seen3, 1);
	twheel_close(tw);
}

/* Non-blocking reads, a periodic timeout, and epoll on twheel_fd(). */
TEST_F(lib, nonblock_epoll_periodic)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct epoll_event ee = { .events = EPOLLIN }, out;
	struct twheel_result r;
	const struct twheel_event *ev;
	struct twheel_event raw;
	int ep, got = 0, i;

	EXPECT_NUM(twheel_fill(tw), -EAGAIN);
	EXPECT_NUM(twheel_read(tw, &raw, 0), -EINVAL);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_NUM(ep >= 0, 1);
	ASSERT_NUM(epoll_ctl(ep, EPOLL_CTL_ADD, twheel_fd(tw), &ee), 0);
	EXPECT_NUM(epoll_wait(ep, &out, 1, 0), 0);
	ASSERT_NUM(twheel_prep_arm(tw, 9, 10 * MS, 10 * MS, 0, 0, &r), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	ASSERT_NUM(r.result, 0);
	for (i = 0; i < 3; i++) {
		EXPECT_NUM(epoll_wait(ep, &out, 1, 10000), 1);
		EXPECT_TRUE(twheel_fill(tw) >= 1);
		twheel_for_each_event(tw, ev) {
			EXPECT_NUM(ev->handle, r.handle);
			EXPECT_TRUE(twheel_event_is_periodic(ev));
			got++;
		}
	}
	EXPECT_NUM(got, 3);
	ASSERT_NUM(twheel_prep_cancel(tw, r.handle, 0, &r), 0);
	EXPECT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(r.result, 0);
	close(ep);
	twheel_close(tw);
}

/* A re-arm pushes the expiry back. */
TEST_F(lib, rearm)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r, rr;
	struct twheel_event ev;
	uint64_t start = twheel_now_ns();
	struct timespec ts = { 0, 100 * MS };

	ASSERT_NUM(twheel_prep_arm(tw, 1, 50 * MS, 0, 0, 0, &r), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	ASSERT_NUM(twheel_prep_rearm(tw, r.handle, 2000 * MS, 0, &rr), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(rr.result, 0);
	EXPECT_NUM(rr.handle, r.handle);
	nanosleep(&ts, NULL);
	/* Unless the guest stalled for 2 s, nothing is ready yet. */
	if (twheel_now_ns() - start < 2000 * MS)
		EXPECT_NUM(twheel_read(tw, &ev, 1), -EAGAIN);
	twheel_close(tw);
}

/*
 * The queries (TWHEEL_OP_GET, TWHEEL_CANCEL_REPORT, the whole-file ioctls),
 * or a skip on a module without them.
 */
static bool have_queries(struct twheel *tw)
{
	const struct twheel_info *info = twheel_get_info(tw);

	return (info->batch_ops & TWHEEL_OP_BIT(TWHEEL_OP_GET)) &&
	       (info->cancel_flags & TWHEEL_CANCEL_REPORT) &&
	       (info->ioctls & TWHEEL_FEAT_STATS);
}
#define NEED_QUERIES(tw) \
	do { \
		if (!have_queries(tw)) \
			SKIP(return, "the module lacks the queries (batch_ops 0x%llx, cancel_flags 0x%x)", \
			     (unsigned long long)twheel_get_info(tw)->batch_ops, \
			     twheel_get_info(tw)->cancel_flags); \
	} while (0)

/* A cancel with TWHEEL_CANCEL_REPORT says what it undid. */
TEST_F(lib, cancel_report)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result a, b, ca, cb, again;
	struct pollfd pfd;

	NEED_QUERIES(tw);
	EXPECT_NUM(twheel_prep_cancel(tw, 1, 0x80000000U, &ca), -EINVAL);
	ASSERT_NUM(twheel_prep_arm(tw, 1, 10000 * MS, 0, 0, 0, &a), 0);
	ASSERT_NUM(twheel_prep_arm(tw, 2, 1 * MS, 0, 0, 0, &b), 0);
	ASSERT_NUM(twheel_flush(tw), 2);
	/* b fires; its record waits unread. */
	pfd = (struct pollfd){ .fd = twheel_fd(tw), .events = POLLIN };
	ASSERT_NUM(poll(&pfd, 1, 10000), 1);
	ASSERT_NUM(twheel_prep_cancel(tw, a.handle, TWHEEL_CANCEL_REPORT, &ca), 0);
	ASSERT_NUM(twheel_prep_cancel(tw, b.handle, TWHEEL_CANCEL_REPORT, &cb), 0);
	ASSERT_NUM(twheel_prep_cancel(tw, b.handle, TWHEEL_CANCEL_REPORT, &again), 0);
	EXPECT_NUM(twheel_flush(tw), 3);
	EXPECT_NUM(ca.result, TWHEEL_CANCELLED_ARMED);
	EXPECT_NUM(cb.result, TWHEEL_CANCELLED_QUEUED);
	EXPECT_NUM(again.result, -ENOENT);
	EXPECT_NUM(twheel_fill(tw), -EAGAIN);	/* the queued record is gone */
	twheel_close(tw);
}

/* TWHEEL_OP_GET fills the result slot with the timeout's state. */
TEST_F(lib, get)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result a, g, gone;
	uint64_t start = twheel_now_ns();

	NEED_QUERIES(tw);
	ASSERT_NUM(twheel_prep_arm(tw, 42, 10000 * MS, 5000 * MS, 0, 0, &a), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	ASSERT_NUM(twheel_prep_get(tw, a.handle, &g), 0);
	ASSERT_NUM(twheel_prep_get(tw, a.handle + 1, &gone), 0);
	EXPECT_NUM(twheel_flush(tw), 2);
	EXPECT_NUM(g.op, TWHEEL_OP_GET);
	EXPECT_NUM(g.result, TWHEEL_STATE_ARMED);
	EXPECT_NUM(g.handle, a.handle);
	EXPECT_NUM(g.cookie, 42);
	EXPECT_NUM(g.period, 5000 * MS);
	EXPECT_TRUE(g.deadline >= start + 10000 * MS);
	EXPECT_NUM(gone.result, -ENOENT);
	EXPECT_NUM(gone.cookie, 0);
	twheel_close(tw);
}

/* The file's counters, and draining its timeouts. */
TEST_F(lib, stats_drain)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[5];
	struct twheel_get ent[2];
	struct twheel_stats st;
	uint64_t cursor = 0, seen = 0;
	int i, n, calls = 0;

	NEED_QUERIES(tw);
	for (i = 0; i < 5; i++)
		ASSERT_NUM(twheel_prep_arm(tw, 100 + i, 10000 * MS, 0, 0, 0, &r[i]), 0);
	ASSERT_NUM(twheel_flush(tw), 5);
	ASSERT_NUM(twheel_prep_cancel(tw, r[0].handle, 0, NULL), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	ASSERT_NUM(twheel_get_stats(tw, &st), 0);
	EXPECT_NUM(st.pending, 4);
	EXPECT_NUM(st.armed, 5);
	EXPECT_NUM(st.cancelled, 1);
	EXPECT_NUM(st.queued, 0);
	EXPECT_NUM(twheel_drain(tw, ent, 2, NULL, 0), -EINVAL);
	EXPECT_NUM(twheel_drain(tw, ent, 2, &cursor, 0x80000000U), -EINVAL);
	/* Two at a time, cancelling what was listed: four, then nothing. */
	while ((n = twheel_drain(tw, ent, 2, &cursor, TWHEEL_DRAIN_CANCEL)) > 0 &&
	       calls++ < 10) {
		for (i = 0; i < n; i++) {
			EXPECT_TRUE(ent[i].cookie >= 101 && ent[i].cookie <= 104);
			seen |= 1ULL << (ent[i].cookie - 100);
		}
	}
	EXPECT_NUM(n, 0);
	EXPECT_NUM(seen, 0x1e);
	ASSERT_NUM(twheel_get_stats(tw, &st), 0);
	EXPECT_NUM(st.pending, 0);
	twheel_close(tw);
}

/* Sleep until @h's record is queued in the kernel (the file is NONBLOCK). */
static void wait_ready(struct __test_metadata *const _metadata,
		       struct twheel *tw)
{
	struct pollfd pfd = { .fd = twheel_fd(tw), .events = POLLIN };

	ASSERT_NUM(poll(&pfd, 1, 10000), 1);
}

/*
 * A cancel queued before twheel_fill() is submitted before the read: the
 * record of the cancelled timeout, already queued in the kernel, is never
 * read, and the cancel's result is in its slot when twheel_fill() returns.
 */
TEST_F(lib, fill_flushes_first)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result a, c;
	struct twheel_event ev;

	ASSERT_NUM(twheel_prep_arm(tw, 7, 1 * MS, 0, 0, 0, &a), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	ASSERT_NUM(a.result, 0);
	wait_ready(_metadata, tw);
	memset(&c, 0xa5, sizeof(c));
	ASSERT_NUM(twheel_prep_cancel(tw, a.handle, 0, &c), 0);
	EXPECT_NUM(twheel_fill(tw), -EAGAIN);
	EXPECT_TRUE(twheel_next_event(tw) == NULL);
	EXPECT_NUM(twheel_queued(tw), 0);
	EXPECT_NUM(c.result, 0);
	EXPECT_NUM(c.op, TWHEEL_OP_CANCEL);
	/* twheel_read() too. */
	ASSERT_NUM(twheel_prep_arm(tw, 8, 1 * MS, 0, 0, 0, &a), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	wait_ready(_metadata, tw);
	ASSERT_NUM(twheel_prep_cancel(tw, a.handle, 0, &c), 0);
	EXPECT_NUM(twheel_read(tw, &ev, 1), -EAGAIN);
	EXPECT_NUM(twheel_queued(tw), 0);
	EXPECT_NUM(c.result, 0);
	twheel_close(tw);
}

/*
 * Records twheel_fill() already holds: one whose timeout is then cancelled
 * or re-armed is not returned by twheel_next_event(); the others are.
 */
TEST_F(lib, cancel_drops_buffered)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	struct twheel_result r[3], c, rr;
	const struct twheel_event *ev;
	struct twheel_stats st;
	uint64_t first, cancel = 0, rearm = 0;
	int i, tries = 0, others = 0;

	NEED_QUERIES(tw);
	for (i = 0; i < 3; i++)
		ASSERT_NUM(twheel_prep_arm(tw, i + 1, 1 * MS, 0, 0, 0, &r[i]), 0);
	ASSERT_NUM(twheel_flush(tw), 3);
	/* All three fired and are queued: one read takes them. */
	do {
		usleep(10 * 1000);
		ASSERT_NUM(twheel_get_stats(tw, &st), 0);
	} while (st.queued < 3 && tries++ < 1000);
	ASSERT_NUM(st.queued, 3);
	ASSERT_NUM(twheel_fill(tw), 3);
	ev = twheel_next_event(tw);
	ASSERT_NUM(ev != NULL, 1);
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
	ASSERT_NUM(twheel_prep_cancel(tw, cancel, 0, &c), 0);
	ASSERT_NUM(twheel_prep_rearm(tw, rearm, 10000 * MS, 0, &rr), 0);
	/* Nothing left to iterate, nothing to read: fill does not count them. */
	EXPECT_NUM(twheel_fill(tw), -EAGAIN);
	twheel_for_each_event(tw, ev) {
		printf("# record of %llu after its cancel or re-arm\n",
		       (unsigned long long)ev->handle);
		others++;
	}
	EXPECT_NUM(others, 0);
	/* Their records were read before the operations reached the kernel. */
	EXPECT_NUM(c.result, -ENOENT);
	EXPECT_NUM(rr.result, -ENOENT);
	twheel_close(tw);
}

/*
 * A check in a child the test forked: a failure ends the child (ASSERT_*
 * would jump back into the harness's state of the parent).
 */
#define CHILD_ASSERT_EQ(a, b) \
	do { \
		EXPECT_NUM(a, b); \
		if (_metadata->exit_code) \
			_exit(KSFT_FAIL); \
	} while (0)

/*
 * Each clock's now; a GET's remaining is read on the timeout's clock. Runs
 * in a child: its exit status is the result (KSFT_PASS, _FAIL or _SKIP).
 */
static void clocks_remaining(struct __test_metadata *const _metadata)
{
	struct twheel_result m, b, gm, gb;
	struct twheel *tw = NULL;
	struct timespec ts;
	uint64_t mono, boot;

	CHILD_ASSERT_EQ(twheel_open(&tw, NULL, 0, TWHEEL_OPEN_NONBLOCK), 0);
	NEED_QUERIES(tw);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	EXPECT_TRUE(twheel_clock_ns(0) >= mono);
	EXPECT_TRUE(twheel_now_ns() >= mono);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	boot = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	EXPECT_TRUE(twheel_clock_ns(TWHEEL_ARM_BOOTTIME) >= boot);
	EXPECT_TRUE(twheel_clock_ns(TWHEEL_ARM_BOOTTIME) < boot + 1000 * MS);
	if (!twheel_supports(tw, TWHEEL_ARM_BOOTTIME))
		SKIP(return, "no TWHEEL_ARM_BOOTTIME");
	CHILD_ASSERT_EQ(twheel_prep_arm(tw, 1, 10000 * MS, 0, 0, 0, &m), 0);
	CHILD_ASSERT_EQ(twheel_prep_arm(tw, 2, 10000 * MS, 0, TWHEEL_ARM_BOOTTIME, 0, &b), 0);
	CHILD_ASSERT_EQ(twheel_flush(tw), 2);
	memset(&gb, 0xa5, sizeof(gb));
	CHILD_ASSERT_EQ(twheel_prep_get(tw, m.handle, &gm), 0);
	CHILD_ASSERT_EQ(twheel_prep_get(tw, b.handle, &gb), 0);
	CHILD_ASSERT_EQ(twheel_flush(tw), 2);
	CHILD_ASSERT_EQ(gb.result, TWHEEL_STATE_ARMED);
	EXPECT_TRUE((gb.flags & TWHEEL_ARM_BOOTTIME) != 0);
	EXPECT_TRUE(gb.deadline >= boot + 10000 * MS);
	/* Up to 10 s, and not a BOOTTIME deadline minus a MONOTONIC now. */
	EXPECT_TRUE(gb.remaining <= 10000 * MS);
	EXPECT_TRUE(gb.remaining > 9000 * MS);
	EXPECT_TRUE(gm.remaining <= 10000 * MS);
	EXPECT_TRUE(gm.remaining > 9000 * MS);
	EXPECT_NUM(gb.reserved[0] | gb.reserved[4], 0);
	EXPECT_NUM(m.remaining, 0);	/* only a GET has it */
	twheel_close(tw);
}

/*
 * In a time namespace whose CLOCK_BOOTTIME is 1000 s ahead of its
 * CLOCK_MONOTONIC, as after a long suspend: a BOOTTIME deadline read
 * against the MONOTONIC clock would be 1000 s off.
 */
TEST_F(lib, clocks_remaining)
{
	int fd, status;
	pid_t pid;

	if (unshare(CLONE_NEWTIME))
		SKIP(return, "no time namespaces here: %s", strerror(errno));
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	ASSERT_NUM(fd >= 0, 1);
	ASSERT_NUM(write(fd, "boottime 1000 0\n", 16), 16);
	close(fd);
	fflush(stdout);
	pid = fork();
	ASSERT_NUM(pid >= 0, 1);
	if (!pid) {
		clocks_remaining(_metadata);
		fflush(stdout);
		_exit(_metadata->exit_code);
	}
	ASSERT_NUM(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == KSFT_SKIP)
		SKIP(return, "in the time namespace (above)");
	EXPECT_NUM(WEXITSTATUS(status), KSFT_PASS);
}

/*
 * The shared table: a later deadline is a store (0), an earlier one a
 * queued re-arm (1), a dead handle -ENOENT at once; a stored deadline the
 * kernel cannot apply comes back marked TWHEEL_EV_REFRESH_MISSED.
 */
TEST_F(lib, share_refresh)
{
	struct twheel *tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	const struct twheel_slot *table;
	struct twheel_result a, b, rr;
	struct twheel_event ev;
	struct pollfd pfd;
	unsigned int slots;
	uint64_t d;

	if (!(twheel_get_info(tw)->ioctls & TWHEEL_FEAT_SHARE))
		SKIP(return, "the module has no shared table");
	EXPECT_TRUE(twheel_table(tw, &slots) == NULL);
	EXPECT_NUM(slots, 0);
	ASSERT_NUM(twheel_share(tw, 100, 0), 0);
	EXPECT_NUM(twheel_share(tw, 100, 0), -EBUSY);
	table = twheel_table(tw, &slots);
	ASSERT_TRUE(table != NULL);
	EXPECT_NUM(slots, 256);
	ASSERT_NUM(twheel_prep_arm(tw, 1, 100 * MS, 0, 0, 0, &a), 0);
	ASSERT_NUM(twheel_prep_arm(tw, 2, 50 * MS, 0, 0, 0, &b), 0);
	ASSERT_NUM(twheel_flush(tw), 2);
	d = table[(uint32_t)a.handle].deadline;
	EXPECT_NUM(table[(uint32_t)a.handle].handle, a.handle);
	/* Later: a store, seen in the table; nothing is queued. */
	EXPECT_NUM(twheel_refresh(tw, a.handle, d + 400 * MS, NULL), 0);
	EXPECT_NUM(table[(uint32_t)a.handle].deadline, d + 400 * MS);
	EXPECT_NUM(twheel_queued(tw), 0);
	/* Earlier: a re-arm, which the flush applies and the table shows. */
	EXPECT_NUM(twheel_refresh(tw, a.handle, d + 200 * MS, &rr), 1);
	ASSERT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(rr.result, 0);
	EXPECT_NUM(table[(uint32_t)a.handle].deadline, d + 200 * MS);
	/* Beyond the clock's range: stored, and not applied. */
	EXPECT_NUM(twheel_refresh(tw, b.handle, UINT64_MAX, NULL), 0);
	pfd = (struct pollfd){ .fd = twheel_fd(tw), .events = POLLIN };
	ASSERT_NUM(poll(&pfd, 1, 10000), 1);
	ASSERT_NUM(twheel_read(tw, &ev, 1), 1);
	EXPECT_NUM(ev.handle, b.handle);
	EXPECT_NUM(ev.flags & TWHEEL_EV_REFRESH_MISSED, TWHEEL_EV_REFRESH_MISSED);
	EXPECT_NUM(twheel_refresh(tw, b.handle, UINT64_MAX, NULL), -ENOENT);
	/* a fires for the deadline of its re-arm, unmarked. */
	ASSERT_NUM(poll(&pfd, 1, 10000), 1);
	ASSERT_NUM(twheel_read(tw, &ev, 1), 1);
	EXPECT_NUM(ev.handle, a.handle);
	EXPECT_NUM(ev.deadline, d + 200 * MS);
	EXPECT_NUM(ev.flags, 0);
	twheel_close(tw);
}

/*
 * Entries the program picks: only with a table that lets it, only entries
 * the table has; a busy entry fails at the flush; the table's handle is
 * what a refresh needs, 0 (-ENOENT) once the timeout is dead, and the entry
 * is free again once its record is taken.
 */
TEST_F(lib, share_pick_slots)
{
	struct twheel *tw = open_tw(_metadata, 0, 0);
	struct twheel_result a, b, c, plain;
	const struct twheel_slot *table;
	const struct twheel_event *ev;
	unsigned int slots;
	uint64_t old;

	if (!(twheel_get_info(tw)->arm_flags & TWHEEL_ARM_SLOT))
		SKIP(return, "the module has no picked slots");
	EXPECT_NUM(twheel_prep_arm_slot(tw, 1, 0, 10 * MS, 0, 0, 0, &a), -EINVAL);
	EXPECT_NUM(twheel_share_flags(tw, 64, 0, 0x80000000U), -EINVAL);
	ASSERT_NUM(twheel_share_flags(tw, 64, 16, TWHEEL_SHARE_PICK_SLOTS), 0);
	table = twheel_table(tw, &slots);
	ASSERT_TRUE(table != NULL);
	EXPECT_NUM(twheel_prep_arm(tw, 0, 10 * MS, 0, TWHEEL_ARM_SLOT, 0, &a),
		   -EINVAL);
	EXPECT_NUM(twheel_prep_arm_slot(tw, 0, 0, 10 * MS, 0, 0, 0, &a), -EINVAL);
	EXPECT_NUM(twheel_prep_arm_slot(tw, slots, 0, 10 * MS, 0, 0, 0, &a),
		   -EINVAL);
	EXPECT_NUM(twheel_queued(tw), 0);
	ASSERT_NUM(twheel_prep_arm(tw, 0, 10 * MS, 0, 0, 0, &plain), 0);
	ASSERT_NUM(twheel_prep_arm_slot(tw, 7, 70, 1000 * MS, 0, 0, 0, &a), 0);
	ASSERT_NUM(twheel_prep_arm_slot(tw, 9, 90, 20 * MS, 0, 0, 0, &b), 0);
	ASSERT_NUM(twheel_prep_arm_slot(tw, 7, 71, 1000 * MS, 0, 0, 0, &c), 0);
	ASSERT_NUM(twheel_flush(tw), 4);
	EXPECT_NUM(plain.result, -EINVAL);
	EXPECT_NUM(a.result, 0);
	EXPECT_NUM((uint32_t)a.handle, 7);
	EXPECT_NUM(table[7].handle, a.handle);
	EXPECT_NUM(b.result, 0);
	EXPECT_NUM(c.result, -EBUSY);
	EXPECT_NUM(twheel_refresh(tw, table[7].handle, table[7].deadline + MS,
				  NULL), 0);
	EXPECT_NUM(twheel_refresh(tw, table[8].handle, twheel_now_ns(), NULL),
		   -ENOENT);
	/* 9 fires; its entry is free for the next arm at once. */
	ASSERT_NUM(twheel_fill(tw), 1);
	ev = twheel_next_event(tw);
	ASSERT_TRUE(ev != NULL);
	EXPECT_NUM(ev->cookie, 90);
	EXPECT_NUM(table[9].handle, 0);
	old = b.handle;
	ASSERT_NUM(twheel_prep_arm_slot(tw, 9, 91, 1000 * MS, 0, 0, 0, &b), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(b.result, 0);
	EXPECT_NUM((uint32_t)b.handle, 9);
	EXPECT_TRUE(b.handle != old);
	EXPECT_NUM(twheel_refresh(tw, old, twheel_now_ns() + MS, NULL), -ENOENT);
	twheel_close(tw);
}

/*
 * The expiry ring: records come from memory, those that found it full
 * from read(), none lost; a cancel drops its handle's records from the ring
 * too, as from the buffer.
 */
TEST_F(lib, share_ring)
{
	struct twheel *tw = open_tw(_metadata, 0, 0);
	struct twheel_result r[10], p, c;
	const struct twheel_slot *table;
	const struct twheel_event *ev;
	struct twheel_slot *late;
	unsigned int seen = 0, got = 0;
	struct pollfd pfd;
	struct timespec ts = { 0, 50 * MS };
	int i, n;

	if (!(twheel_get_info(tw)->ioctls & TWHEEL_FEAT_SHARE))
		SKIP(return, "the module has no shared table");
	ASSERT_NUM(twheel_share(tw, 64, 4), 0);
	for (i = 0; i < 10; i++)
		ASSERT_NUM(twheel_prep_arm(tw, (uint64_t)i, 1 * MS, 0, 0, 0, &r[i]), 0);
	ASSERT_NUM(twheel_flush(tw), 10);
	/* Blocking: waits, then 4 from the ring and the rest from read(). */
	while (got < 10) {
		n = twheel_fill(tw);
		ASSERT_GT(n, 0);
		twheel_for_each_event(tw, ev) {
			ASSERT_LT(ev->cookie, 10ULL);
			EXPECT_NUM(ev->handle, r[ev->cookie].handle);
			EXPECT_NUM(seen & (1U << ev->cookie), 0);
			seen |= 1U << ev->cookie;
			got++;
		}
	}
	EXPECT_NUM(seen, 0x3ff);
	/*
	 * Once the record is in the ring the handle is dead, before any
	 * system call: a refresh says so. A store that beat the clearing of
	 * the entry, as this one, is marked missed.
	 */
	ASSERT_NUM(twheel_prep_arm(tw, 5, 1 * MS, 0, 0, 0, &r[0]), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	pfd = (struct pollfd){ .fd = twheel_fd(tw), .events = POLLIN };
	ASSERT_NUM(poll(&pfd, 1, 10000), 1);
	EXPECT_NUM(twheel_refresh(tw, r[0].handle, twheel_now_ns() + 1000 * MS,
				  NULL), -ENOENT);
	table = twheel_table(tw, NULL);
	ASSERT_TRUE(table != NULL);
	late = (struct twheel_slot *)&table[(uint32_t)r[0].handle];
	__atomic_store_n(&late->deadline, twheel_now_ns() + 1000 * MS,
			 __ATOMIC_RELEASE);
	ASSERT_NUM(twheel_fill(tw), 1);
	ev = twheel_next_event(tw);
	ASSERT_TRUE(ev != NULL);
	EXPECT_NUM(ev->handle, r[0].handle);
	EXPECT_NUM(ev->flags & TWHEEL_EV_REFRESH_MISSED, TWHEEL_EV_REFRESH_MISSED);
	twheel_close(tw);
	/* A periodic timeout fills the ring; its cancel empties it of it. */
	tw = open_tw(_metadata, 0, TWHEEL_OPEN_NONBLOCK);
	ASSERT_NUM(twheel_share(tw, 64, 4), 0);
	ASSERT_NUM(twheel_prep_arm(tw, 99, 1 * MS, 1 * MS, 0, 0, &p), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	nanosleep(&ts, NULL);
	ASSERT_NUM(twheel_prep_cancel(tw, p.handle, 0, &c), 0);
	ASSERT_NUM(twheel_flush(tw), 1);
	EXPECT_NUM(c.result, 0);
	EXPECT_NUM(twheel_fill(tw), -EAGAIN);
	twheel_close(tw);
}

/* The release the library was built as, the one of kmod/VERSION. */
TEST_F(lib, version)
{
	const char *v = twheel_version();
	unsigned int a, b, c;
	char end;

	EXPECT_TRUE(v != NULL);
	if (v)
		EXPECT_NUM(sscanf(v, "%u.%u.%u%c", &a, &b, &c, &end), 3);
}

TEST_HARNESS_MAIN
