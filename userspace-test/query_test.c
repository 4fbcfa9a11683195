// SPDX-License-Identifier: GPL-2.0
/*
 * query_test.c - asking /dev/twheel about its timeouts: TWHEEL_IOC_GET and
 * TWHEEL_OP_GET, cancel with TWHEEL_CANCEL_REPORT, TWHEEL_IOC_DRAIN,
 * TWHEEL_IOC_STATS, and reading the file through io_uring without a worker
 * thread (FMODE_NOWAIT).
 */
#include <dirent.h>
#include <liburing.h>
#include <stdlib.h>

#include "twheel_util.h"

FIXTURE(q) {
	int fd;
	struct twheel_info info;
};

FIXTURE_SETUP(q)
{
	self->fd = tw_open(_metadata);
	tw_info(_metadata, self->fd, &self->info);
}

FIXTURE_TEARDOWN(q)
{
	close(self->fd);
}

TEST_F(q, info_announces_get_drain_stats)
{
	EXPECT_NE(self->info.ioctls & TWHEEL_FEAT_GET, 0U);
	EXPECT_NE(self->info.ioctls & TWHEEL_FEAT_DRAIN, 0U);
	EXPECT_NE(self->info.ioctls & TWHEEL_FEAT_STATS, 0U);
	EXPECT_GT(self->info.max_user_timeouts, 0ULL);
}

TEST_F(q, get_armed_timeout)
{
	uint64_t h, t0 = now_ns();
	struct twheel_get g;

	ASSERT_EQ(tw_arm_full(self->fd, 77, 10 * SEC, 0, 0, 0, &h), 0);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.handle, h);
	EXPECT_EQ(g.cookie, 77ULL);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_ARMED);
	EXPECT_GE(g.deadline, t0 + 10 * SEC);
	EXPECT_LE(g.deadline, now_ns() + 10 * SEC);
	EXPECT_GT(g.remaining, 9 * SEC);
	EXPECT_LE(g.remaining, 10 * SEC);
	EXPECT_EQ(g.period, 0ULL);
	EXPECT_EQ(g.flags, 0U);
	EXPECT_EQ(g.overrun, 0ULL);
}

TEST_F(q, get_periodic_pinned_fixed_delay)
{
	struct twheel_get g;
	uint64_t h;

	ASSERT_EQ(tw_arm_full(self->fd, 5, SEC, 20 * MS,
			      TWHEEL_ARM_CPU | TWHEEL_ARM_FIXED_DELAY, 0, &h),
		  0);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.period, 20 * MS);
	EXPECT_EQ(g.flags, TWHEEL_ARM_CPU | TWHEEL_ARM_FIXED_DELAY);
	EXPECT_EQ(g.cpu, 0U);
}

/* A fired one-shot is queued until read, then its handle is dead. */
TEST_F(q, get_queued_then_dead)
{
	struct twheel_event ev;
	struct twheel_get g;
	uint64_t h = tw_arm(_metadata, self->fd, 1, MS);

	ASSERT_TRUE(tw_wait_ready(self->fd, 5000));
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_QUEUED);
	EXPECT_EQ(g.remaining, 0ULL);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	EXPECT_EQ(tw_get(self->fd, h, &g), -ENOENT);
}

/* A fixed-rate record that waits counts its overruns so far. */
TEST_F(q, get_queued_fixed_rate_overruns)
{
	struct twheel_get g;
	uint64_t h;

	ASSERT_EQ(tw_arm_full(self->fd, 0, MS, 10 * MS, 0, 0, &h), 0);
	sleep_ns(120 * MS);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_QUEUED);
	EXPECT_GE(g.overrun, 5ULL);
}

TEST_F(q, get_errors)
{
	struct twheel_get g = { .handle = 1ULL << 32 | 1 };
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_GET, &g), -ENOENT);
	EXPECT_EQ(tw_get(self->fd, 0, &g), -ENOENT);
	memset(&g, 0, sizeof(g));
	g.handle = h;
	g.reserved = 1;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_GET, &g), -EINVAL);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_GET, (void *)8), -EFAULT);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	EXPECT_EQ(tw_get(self->fd, h, &g), -ENOENT);
}

TEST_F(q, op_get_in_a_batch)
{
	uint64_t h = tw_arm(_metadata, self->fd, 42, 10 * SEC);
	struct twheel_op ops[3] = {
		{ .op = TWHEEL_OP_GET, .handle = h },
		{ .op = TWHEEL_OP_GET, .handle = h + 1 },
		{ .op = TWHEEL_OP_GET, .handle = h, .cookie = 1 },
	};

	ASSERT_EQ(tw_batch(self->fd, ops, 3, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, TWHEEL_STATE_ARMED);
	EXPECT_EQ(ops[0].cookie, 42ULL);
	EXPECT_GT(ops[0].expires, now_ns());
	EXPECT_EQ(ops[1].result, -ENOENT);
	EXPECT_EQ(ops[2].result, -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 1);
}

TEST_F(q, cancel_report_armed_or_queued)
{
	uint64_t armed = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	uint64_t fired = tw_arm(_metadata, self->fd, 0, MS);
	uint64_t plain = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	const uint32_t report = TWHEEL_CANCEL_REPORT;

	ASSERT_TRUE(tw_wait_ready(self->fd, 5000));
	EXPECT_EQ(tw_cancel_flags(self->fd, armed, report),
		  TWHEEL_CANCELLED_ARMED);
	EXPECT_EQ(tw_cancel_flags(self->fd, fired, report),
		  TWHEEL_CANCELLED_QUEUED);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	EXPECT_EQ(tw_cancel_flags(self->fd, fired, report), -ENOENT);
	/* Without the flag: 0, as before. */
	EXPECT_EQ(tw_cancel_flags(self->fd, plain, 0), 0);
	EXPECT_EQ(tw_cancel_flags(self->fd, plain, 0x8000), -EINVAL);
}

TEST_F(q, cancel_report_in_a_batch)
{
	uint64_t a = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	uint64_t b = tw_arm(_metadata, self->fd, 0, MS);
	struct twheel_op ops[4] = {
		{ .op = TWHEEL_OP_CANCEL, .handle = a,
		  .flags = TWHEEL_CANCEL_REPORT },
		{ .op = TWHEEL_OP_CANCEL, .handle = b,
		  .flags = TWHEEL_CANCEL_REPORT },
		{ .op = TWHEEL_OP_CANCEL, .handle = b,
		  .flags = TWHEEL_CANCEL_REPORT },
		{ .op = TWHEEL_OP_CANCEL, .handle = a, .flags = 0x10 },
	};

	ASSERT_TRUE(tw_wait_ready(self->fd, 5000));
	ASSERT_EQ(tw_batch(self->fd, ops, 4, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, TWHEEL_CANCELLED_ARMED);
	EXPECT_EQ(ops[1].result, TWHEEL_CANCELLED_QUEUED);
	EXPECT_EQ(ops[2].result, -ENOENT);
	EXPECT_EQ(ops[3].result, -EINVAL);
}

/* Listing in pieces sees every live timeout once; dead ones never. */
TEST_F(q, drain_lists_every_live_timeout)
{
	enum { N = 300 };
	struct twheel_get e[64];
	uint64_t cursor = 0, h[N];
	uint32_t filled, total = 0, i, k;
	int seen[N] = { 0 };

	for (i = 0; i < N; i++)
		h[i] = tw_arm(_metadata, self->fd, 1000 + i, 10 * SEC);
	for (i = 0; i < N; i += 3) {
		ASSERT_EQ(tw_cancel(self->fd, h[i]), 0);
	}
	do {
		ASSERT_EQ(tw_drain(self->fd, e, 64, &cursor, 0, &filled), 0);
		for (k = 0; k < filled; k++) {
			ASSERT_GE(e[k].cookie, 1000ULL);
			ASSERT_LT(e[k].cookie, 1000ULL + N);
			i = e[k].cookie - 1000;
			EXPECT_EQ(e[k].handle, h[i]);
			EXPECT_EQ(e[k].state, (uint32_t)TWHEEL_STATE_ARMED);
			seen[i]++;
		}
		total += filled;
	} while (filled);
	for (i = 0; i < N; i++)
		EXPECT_EQ(seen[i], i % 3 ? 1 : 0);
	EXPECT_EQ(total, (uint32_t)(N - (N + 2) / 3));
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), N - (N + 2) / 3);
}

/* With TWHEEL_DRAIN_CANCEL the timeouts are handed over: none fires. */
TEST_F(q, drain_cancel_hands_over)
{
	struct twheel_get e[16];
	uint64_t cursor = 0;
	uint32_t filled, total = 0, i;

	for (i = 0; i < 40; i++)
		tw_arm(_metadata, self->fd, i, 50 * MS);
	do {
		ASSERT_EQ(tw_drain(self->fd, e, 16, &cursor,
				   TWHEEL_DRAIN_CANCEL, &filled), 0);
		for (i = 0; i < filled; i++)
			EXPECT_EQ(tw_cancel(self->fd, e[i].handle), -ENOENT);
		total += filled;
	} while (filled);
	EXPECT_EQ(total, 40U);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
	EXPECT_FALSE(tw_wait_ready(self->fd, 200));
}

TEST_F(q, drain_errors_change_nothing)
{
	struct twheel_get e[4];
	struct twheel_drain d = {
		.entries = (uintptr_t)e, .count = 4, .entry_size = sizeof(e[0]),
	};
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);

	ASSERT_NE(ro, MAP_FAILED);
	d.flags = 0x100;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_DRAIN, &d), -EINVAL);
	d.flags = 0;
	d.count = 0;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_DRAIN, &d), -EINVAL);
	d.count = self->info.max_batch + 1;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_DRAIN, &d), -EINVAL);
	d.count = 4;
	d.entry_size = TWHEEL_GET_SIZE_VER0 - 8;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_DRAIN, &d), -EINVAL);
	d.entry_size = sizeof(e[0]);
	d.entries = (uintptr_t)ro;
	d.flags = TWHEEL_DRAIN_CANCEL;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_DRAIN, &d), -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 1);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	munmap(ro, 4096);
}

TEST_F(q, stats_count_what_happened)
{
	struct twheel_event ev[8];
	struct twheel_stats st;
	uint64_t h, sum = 0;
	int i, got = 0;

	ASSERT_EQ(tw_stats(self->fd, &st), 0);
	EXPECT_EQ(st.armed + st.fired + st.cancelled + st.pending, 0ULL);
	for (i = 0; i < 4; i++)
		tw_arm(_metadata, self->fd, i, MS);
	h = tw_arm(_metadata, self->fd, 9, 10 * SEC);
	ASSERT_EQ(tw_cancel(self->fd, h), 0);
	tw_arm(_metadata, self->fd, 10, 10 * SEC);
	while (got < 4) {
		ASSERT_TRUE(tw_wait_ready(self->fd, 5000));
		got += tw_read(_metadata, self->fd, ev, 8);
	}
	ASSERT_EQ(tw_stats(self->fd, &st), 0);
	EXPECT_EQ(st.armed, 6ULL);
	EXPECT_EQ(st.fired, 4ULL);
	EXPECT_EQ(st.cancelled, 1ULL);
	EXPECT_EQ(st.pending, 1ULL);
	EXPECT_EQ(st.queued, 0ULL);
	for (i = 0; i < TWHEEL_STATS_LATE_BUCKETS; i++)
		sum += st.late[i];
	EXPECT_EQ(sum, st.fired);
}

TEST_F(q, stats_overruns_of_records_read)
{
	struct twheel_event ev;
	struct twheel_stats st;
	uint64_t h;

	ASSERT_EQ(tw_arm_full(self->fd, 0, MS, 10 * MS, 0, 0, &h), 0);
	sleep_ns(100 * MS);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	ASSERT_EQ(tw_stats(self->fd, &st), 0);
	EXPECT_EQ(st.overruns, ev.overrun);
	EXPECT_GE(st.overruns, 4ULL);
}

/* io-wq workers of this process ("iou-wrk-..." threads). */
static int iou_workers(void)
{
	char path[300], comm[64];
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, "iou-wrk", 7))
			n++;
		fclose(f);
	}
	closedir(dir);
	return n;
}

/*
 * io_uring reads the file without punting to a worker thread: the read of
 * an empty file is armed on poll and completes when a record is ready.
 */
TEST_F(q, io_uring_reads_without_a_worker)
{
	struct twheel_event ev[4];
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int i;

	if (io_uring_queue_init(8, &ring, 0) < 0)
		SKIP(return, "io_uring not available");
	for (i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		uint64_t h = tw_arm(_metadata, self->fd, 100 + i, 20 * MS);

		io_uring_prep_read(sqe, self->fd, ev, sizeof(ev), 0);
		ASSERT_EQ(io_uring_submit(&ring), 1);
		ASSERT_EQ(io_uring_wait_cqe(&ring, &cqe), 0);
		ASSERT_EQ(cqe->res, (int)sizeof(ev[0]));
		EXPECT_EQ(ev[0].handle, h);
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT_EQ(iou_workers(), 0);
	io_uring_queue_exit(&ring);
}

TEST_HARNESS_MAIN
