// SPDX-License-Identifier: GPL-2.0
/*
 * compat32.c - /dev/twheel from a 32-bit program (.compat_ioctl)
 *
 * Built with -m32 as twheel-compat32 and run by compat_test. Every
 * structure has the same layout for i386 and x86_64 (fixed-width fields,
 * explicit padding, pointers as __u64), so a 32-bit caller uses the very
 * same commands; these tests check that each ioctl, read() and the fault
 * paths behave as for a 64-bit caller. compat_test passes the layout of
 * every structure as a 64-bit build (the kernel's) sees it, and
 * compat32_layout_matches_64bit compares it with this build's.
 */
#include <stdint.h>
#include <stdlib.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "compat_layout.h"
#include "twheel_util.h"

_Static_assert(sizeof(void *) == 4, "build this with -m32");
_Static_assert(sizeof(struct twheel_arm) == TWHEEL_ARM_SIZE_VER0, "layout");
_Static_assert(sizeof(struct twheel_rearm) == TWHEEL_REARM_SIZE_VER0, "layout");
_Static_assert(sizeof(struct twheel_cancel) == TWHEEL_CANCEL_SIZE_VER0,
	       "layout");
_Static_assert(sizeof(struct twheel_batch) == TWHEEL_BATCH_SIZE_VER0, "layout");
_Static_assert(sizeof(struct twheel_info) == TWHEEL_INFO_SIZE_VER2, "layout");
_Static_assert(sizeof(struct twheel_op) == 48, "layout");
_Static_assert(sizeof(struct twheel_event) == 48, "layout");
_Static_assert(sizeof(struct twheel_get) == TWHEEL_GET_SIZE_VER0, "layout");
_Static_assert(sizeof(struct twheel_drain) == TWHEEL_DRAIN_SIZE_VER0, "layout");
_Static_assert(sizeof(struct twheel_stats) == TWHEEL_STATS_SIZE_VER0, "layout");

/* A cookie whose upper half would be lost by a 32-bit copy. */
#define BIG_COOKIE	0xfedcba9876543210ULL

/*
 * Every field of every structure sits where the 64-bit build has it: each
 * "name=offset+size" of this build is found as is in the 64-bit text.
 */
TEST(compat32_layout_matches_64bit)
{
	const char *all = getenv(TW_LAYOUT_ENV), *p;
	char mine[128], theirs[128], name[128];
	size_t i, n;

	if (!all)
		SKIP(return, TW_LAYOUT_ENV " not set: run me through compat_test");
	for (i = 0; i < TW_LAYOUT_COUNT; i++) {
		tw_layout_entry(mine, sizeof(mine), &tw_layout[i]);
		snprintf(name, sizeof(name), "%s=", tw_layout[i].name);
		for (p = all; (p = strstr(p, name)); p++)
			if (p == all || p[-1] == ' ')
				break;
		n = p ? strcspn(p, " ") : 0;
		snprintf(theirs, sizeof(theirs), "%.*s", (int)n,
			 p ? p : "");
		EXPECT_STREQ(theirs, mine);
	}
}

/*
 * No structure has padding the compiler chose (the thing that differs
 * between i386 and x86-64), and compat_layout.h lists every field: each
 * field starts where the one before it ended, and the last ends at the
 * structure's size.
 */
TEST(compat32_layout_has_no_holes)
{
	const struct tw_layout_field *s = NULL, *f;
	size_t i, end = 0;

	for (i = 0; i <= TW_LAYOUT_COUNT; i++) {
		f = i < TW_LAYOUT_COUNT ? &tw_layout[i] : NULL;
		if (!f || !strchr(f->name, '.')) {
			/* A new structure: the previous one must be full. */
			if (s)
				EXPECT_EQ(end, s->size) {
					TH_LOG("%s: fields end at %zu of %zu",
					       s->name, end, s->size);
				}
			s = f;
			end = 0;
			continue;
		}
		EXPECT_EQ(f->offset, end) {
			TH_LOG("%s at %zu, the field before ends at %zu",
			       f->name, f->offset, end);
		}
		end = f->offset + f->size;
	}
}

TEST(compat32_info)
{
	struct twheel_info info;
	int fd = tw_open(_metadata);

	tw_info(_metadata, fd, &info);
	EXPECT_EQ(info.size, sizeof(info));
	EXPECT_EQ(info.event_size, sizeof(struct twheel_event));
	EXPECT_GE(info.max_batch, 1024U);
	close(fd);
}

TEST(compat32_arm_read_rearm_cancel)
{
	int fd = tw_open(_metadata);
	uint64_t h = tw_arm(_metadata, fd, 0x123456789ULL, 0), h2;
	struct twheel_event ev;

	ASSERT_TRUE(tw_wait_ready(fd, 2000));
	ASSERT_EQ(tw_read(_metadata, fd, &ev, 1), 1);
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(ev.cookie, 0x123456789ULL);
	EXPECT_GE(ev.expired, ev.deadline);
	h2 = tw_arm(_metadata, fd, 0, 10 * SEC);
	EXPECT_EQ(tw_rearm(fd, h2, 20 * SEC, 0), 0);
	EXPECT_EQ(tw_cancel(fd, h2), 0);
	EXPECT_EQ(tw_cancel(fd, h), -ENOENT);
	close(fd);
}

TEST(compat32_batch)
{
	int fd = tw_open(_metadata);
	struct twheel_op ops[3] = {
		{ .op = TWHEEL_OP_ARM, .expires = 10 * SEC },
		{ .op = TWHEEL_OP_ARM, .expires = 10 * SEC, .flags = 1U << 9 },
		{ .op = TWHEEL_OP_CANCEL, .handle = 77 },
	};

	ASSERT_EQ(tw_batch(fd, ops, 3, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, 0);
	EXPECT_NE(ops[0].handle, 0ULL);
	EXPECT_EQ(ops[1].result, -EINVAL);
	EXPECT_EQ(ops[2].result, -ENOENT);
	close(fd);
}

TEST(compat32_bad_pointers_efault)
{
	int fd = tw_open(_metadata);
	struct twheel_batch b = {
		.ops = 0xdead0000ULL << 32, .count = 1,
		.op_size = sizeof(struct twheel_op),
	};

	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_ARM, (void *)8), -EFAULT);
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_BATCH, &b), -EFAULT);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
	close(fd);
}

/* A page-aligned read-only copy of @len bytes of @src (to munmap). */
static void *ro_copy(struct __test_metadata *const _metadata,
		     const void *src, size_t len)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	memcpy(p, src, len);
	ASSERT_EQ(mprotect(p, 4096, PROT_READ), 0);
	return p;
}

/* Every field of TWHEEL_IOC_GET comes back whole, 64-bit values included. */
TEST(compat32_get)
{
	const uint32_t fl = TWHEEL_ARM_CPU | TWHEEL_ARM_FIXED_DELAY;
	int fd = tw_open(_metadata);
	uint64_t t0 = now_ns(), h, h2;
	struct twheel_event ev;
	struct twheel_get g;
	struct {
		struct twheel_get g;
		uint64_t tail;
	} big = { 0 };

	ASSERT_EQ(tw_arm_full(fd, BIG_COOKIE, 10 * SEC, 20 * MS, fl, 0, &h),
		  0);
	ASSERT_EQ(tw_get(fd, h, &g), 0);
	EXPECT_EQ(g.handle, h);
	EXPECT_EQ(g.cookie, BIG_COOKIE);
	EXPECT_GE(g.deadline, t0 + 10 * SEC);
	EXPECT_LE(g.deadline, now_ns() + 10 * SEC);
	EXPECT_GT(g.remaining, 9 * SEC);
	EXPECT_LE(g.remaining, 10 * SEC);
	EXPECT_EQ(g.period, 20 * MS);
	EXPECT_EQ(g.overrun, 0ULL);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_ARMED);
	EXPECT_EQ(g.flags, fl);
	EXPECT_EQ(g.cpu, 0U);
	EXPECT_EQ(g.reserved, 0U);

	/* A caller with a longer structure: its tail must be zero. */
	big.g.handle = h;
	EXPECT_EQ(tw_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, TWHEEL_IOC_MAGIC,
				    _IOC_NR(TWHEEL_IOC_GET), sizeof(big)),
			   &big), 0);
	EXPECT_EQ(big.g.cookie, BIG_COOKIE);
	EXPECT_EQ(big.g.period, 20 * MS);
	EXPECT_EQ(big.tail, 0ULL);
	big.tail = 1;
	EXPECT_EQ(tw_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, TWHEEL_IOC_MAGIC,
				    _IOC_NR(TWHEEL_IOC_GET), sizeof(big)),
			   &big), -E2BIG);

	/* Fired and queued, then dead once read. */
	h2 = tw_arm(_metadata, fd, 7, MS);
	ASSERT_TRUE(tw_wait_ready(fd, 5000));
	ASSERT_EQ(tw_get(fd, h2, &g), 0);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_QUEUED);
	EXPECT_EQ(g.cookie, 7ULL);
	EXPECT_EQ(g.remaining, 0ULL);
	EXPECT_LE(g.deadline, now_ns());
	ASSERT_EQ(tw_read(_metadata, fd, &ev, 1), 1);
	EXPECT_EQ(ev.handle, h2);
	EXPECT_EQ(tw_get(fd, h2, &g), -ENOENT);
	close(fd);
}

TEST(compat32_get_errors)
{
	int fd = tw_open(_metadata);
	uint64_t h = tw_arm(_metadata, fd, 0, 10 * SEC);
	struct twheel_get g = { .handle = h, .reserved = 1 }, *ro;

	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_GET, &g), -EINVAL);
	EXPECT_EQ(tw_get(fd, 0, &g), -ENOENT);
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_GET, (void *)8), -EFAULT);
	/* Readable, so the call runs, but the answer cannot be written. */
	g = (struct twheel_get){ .handle = h };
	ro = ro_copy(_metadata, &g, sizeof(g));
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_GET, ro), -EFAULT);
	EXPECT_EQ(tw_cancel(fd, h), 0);
	EXPECT_EQ(tw_get(fd, h, &g), -ENOENT);
	munmap(ro, 4096);
	close(fd);
}

/* TWHEEL_OP_GET and reported cancels in one batch. */
TEST(compat32_batch_get_and_cancel_report)
{
	const uint32_t fl = TWHEEL_ARM_CPU | TWHEEL_ARM_FIXED_DELAY;
	const uint32_t report = TWHEEL_CANCEL_REPORT;
	int fd = tw_open(_metadata);
	uint64_t t0 = now_ns(), h, h2;
	struct twheel_op ops[7], *ro;

	ASSERT_EQ(tw_arm_full(fd, BIG_COOKIE, 10 * SEC, 20 * MS, fl, 0, &h),
		  0);
	h2 = tw_arm(_metadata, fd, 2, MS);
	ASSERT_TRUE(tw_wait_ready(fd, 5000));
	memset(ops, 0, sizeof(ops));
	ops[0] = (struct twheel_op){ .op = TWHEEL_OP_GET, .handle = h };
	ops[1] = (struct twheel_op){ .op = TWHEEL_OP_GET, .handle = h2 };
	ops[2] = (struct twheel_op){ .op = TWHEEL_OP_GET, .handle = 0 };
	ops[3] = (struct twheel_op){ .op = TWHEEL_OP_GET, .handle = h,
				     .cookie = 1 };
	ops[4] = (struct twheel_op){ .op = TWHEEL_OP_CANCEL, .handle = h,
				     .flags = report };
	ops[5] = (struct twheel_op){ .op = TWHEEL_OP_CANCEL, .handle = h2,
				     .flags = report };
	ops[6] = (struct twheel_op){ .op = TWHEEL_OP_GET, .handle = h };

	/* Read-only array: -EFAULT, nothing applied. */
	ro = ro_copy(_metadata, ops, sizeof(ops));
	EXPECT_EQ(tw_batch(fd, ro, 7, sizeof(ops[0])), -EFAULT);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 2);
	munmap(ro, 4096);

	ASSERT_EQ(tw_batch(fd, ops, 7, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, TWHEEL_STATE_ARMED);
	EXPECT_EQ(ops[0].handle, h);
	EXPECT_EQ(ops[0].cookie, BIG_COOKIE);
	EXPECT_GE(ops[0].expires, t0 + 10 * SEC);
	EXPECT_LE(ops[0].expires, now_ns() + 10 * SEC);
	EXPECT_EQ(ops[0].period, 20 * MS);
	EXPECT_EQ(ops[0].flags, fl);
	EXPECT_EQ(ops[0].cpu, 0U);
	EXPECT_EQ(ops[1].result, TWHEEL_STATE_QUEUED);
	EXPECT_EQ(ops[1].cookie, 2ULL);
	EXPECT_LE(ops[1].expires, now_ns());
	EXPECT_EQ(ops[1].period, 0ULL);
	EXPECT_EQ(ops[2].result, -ENOENT);
	EXPECT_EQ(ops[3].result, -EINVAL);
	EXPECT_EQ(ops[4].result, TWHEEL_CANCELLED_ARMED);
	EXPECT_EQ(ops[5].result, TWHEEL_CANCELLED_QUEUED);
	EXPECT_EQ(ops[6].result, -ENOENT);
	EXPECT_TRUE(tw_nothing_ready(fd));
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
	close(fd);
}

/* The single cancel's positive result goes through the 32-bit path too. */
TEST(compat32_cancel_report)
{
	int fd = tw_open(_metadata);
	uint64_t armed = tw_arm(_metadata, fd, 0, 10 * SEC);
	uint64_t fired = tw_arm(_metadata, fd, 0, MS);
	uint64_t plain = tw_arm(_metadata, fd, 0, 10 * SEC);
	const uint32_t report = TWHEEL_CANCEL_REPORT;

	ASSERT_TRUE(tw_wait_ready(fd, 5000));
	EXPECT_EQ(tw_cancel_flags(fd, armed, report), TWHEEL_CANCELLED_ARMED);
	EXPECT_EQ(tw_cancel_flags(fd, fired, report), TWHEEL_CANCELLED_QUEUED);
	EXPECT_TRUE(tw_nothing_ready(fd));
	EXPECT_EQ(tw_cancel_flags(fd, fired, report), -ENOENT);
	EXPECT_EQ(tw_cancel_flags(fd, plain, report << 1), -EINVAL);
	EXPECT_EQ(tw_cancel_flags(fd, plain, 0), 0);
	close(fd);
}

#define DRAIN_N		70
#define DRAIN_COOKIE(i)	(0xa5a5000000000000ULL | (i))

/* A caller's entry longer than the kernel's: the kernel zeroes the tail. */
struct drain_entry {
	struct twheel_get g;
	uint64_t tail;
};

static int drain_call(int fd, struct drain_entry *e, uint32_t count,
		      uint64_t *cursor, uint32_t flags, uint32_t *filled)
{
	struct twheel_drain d = {
		.entries = (uintptr_t)e, .count = count,
		.entry_size = sizeof(*e), .cursor = *cursor, .flags = flags,
	};
	int ret;

	memset(e, 0xa5, count * sizeof(*e));
	ret = tw_ioctl(fd, TWHEEL_IOC_DRAIN, &d);
	if (!ret) {
		*cursor = d.cursor;
		*filled = d.filled;
	}
	return ret;
}

/*
 * DRAIN lists every live timeout once, in pieces, with entries at the
 * caller's stride; with TWHEEL_DRAIN_CANCEL it hands them all over.
 */
TEST(compat32_drain)
{
	int fd = tw_open(_metadata);
	struct drain_entry e[16];
	uint64_t cursor = 0, h[DRAIN_N];
	uint32_t filled, total = 0, i, k;
	int seen[DRAIN_N] = { 0 };
	struct twheel_get g;

	for (i = 0; i < DRAIN_N; i++)
		ASSERT_EQ(tw_arm_full(fd, DRAIN_COOKIE(i), 10 * SEC,
				      i % 2 ? SEC : 0, 0, 0, &h[i]), 0);
	do {
		ASSERT_EQ(drain_call(fd, e, 16, &cursor, 0, &filled), 0);
		ASSERT_LE(filled, 16U);
		for (k = 0; k < filled; k++) {
			i = (uint32_t)(e[k].g.cookie - DRAIN_COOKIE(0));
			ASSERT_LT(i, (uint32_t)DRAIN_N);
			EXPECT_EQ(e[k].g.cookie, DRAIN_COOKIE(i));
			EXPECT_EQ(e[k].g.handle, h[i]);
			EXPECT_EQ(e[k].g.period, i % 2 ? SEC : 0ULL);
			EXPECT_EQ(e[k].g.state, (uint32_t)TWHEEL_STATE_ARMED);
			EXPECT_GT(e[k].g.remaining, 9 * SEC);
			EXPECT_EQ(e[k].g.reserved, 0U);
			EXPECT_EQ(e[k].tail, 0ULL);
			seen[i]++;
		}
		/* Nothing is written past the entries filled. */
		if (filled < 16)
			EXPECT_EQ(e[filled].g.handle, 0xa5a5a5a5a5a5a5a5ULL);
		total += filled;
	} while (filled);
	EXPECT_EQ(total, (uint32_t)DRAIN_N);
	for (i = 0; i < DRAIN_N; i++)
		EXPECT_EQ(seen[i], 1);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), DRAIN_N);

	cursor = 0;
	total = 0;
	do {
		ASSERT_EQ(drain_call(fd, e, 16, &cursor, TWHEEL_DRAIN_CANCEL,
				     &filled), 0);
		total += filled;
	} while (filled);
	EXPECT_EQ(total, (uint32_t)DRAIN_N);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
	for (i = 0; i < DRAIN_N; i++)
		EXPECT_EQ(tw_get(fd, h[i], &g), -ENOENT);
	close(fd);
}

/* A DRAIN that cannot write fails with -EFAULT and cancels nothing. */
TEST(compat32_drain_efault)
{
	int fd = tw_open(_metadata);
	char *guard = tw_guard_pages(_metadata, PROT_NONE);
	struct twheel_get e[4], *ro_e;
	struct twheel_drain d = {
		.count = 4, .entry_size = sizeof(e[0]),
		.flags = TWHEEL_DRAIN_CANCEL,
	}, *ro_d;
	int i;

	for (i = 0; i < 3; i++)
		tw_arm(_metadata, fd, i, 10 * SEC);
	/* Beyond what a 32-bit pointer reaches. */
	d.entries = 0xdead0000ULL << 32;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_DRAIN, &d), -EFAULT);
	/* The third entry runs into an unmapped page. */
	d.entries = (uintptr_t)(guard - 2 * sizeof(e[0]) - 8);
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_DRAIN, &d), -EFAULT);
	/* Read-only entries. */
	memset(e, 0, sizeof(e));
	ro_e = ro_copy(_metadata, e, sizeof(e));
	d.entries = (uintptr_t)ro_e;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_DRAIN, &d), -EFAULT);
	/* Entries fine, but the cursor cannot be written back. */
	d.entries = (uintptr_t)e;
	ro_d = ro_copy(_metadata, &d, sizeof(d));
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_DRAIN, ro_d), -EFAULT);
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_DRAIN, (void *)8), -EFAULT);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 3);
	/* And the same call with good pointers works. */
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_DRAIN, &d), 0);
	EXPECT_EQ(d.filled, 3U);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
	munmap(ro_e, 4096);
	munmap(ro_d, 4096);
	close(fd);
}

static uint64_t late_sum(const struct twheel_stats *st)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < TWHEEL_STATS_LATE_BUCKETS; i++)
		sum += st->late[i];
	return sum;
}

TEST(compat32_stats)
{
	int fd = tw_open(_metadata);
	struct twheel_stats st, *ro;
	struct twheel_event ev[8];
	uint64_t h, periodic, t0;
	int i, n;

	ASSERT_EQ(tw_stats(fd, &st), 0);
	EXPECT_EQ(st.armed + st.fired + st.cancelled + st.pending, 0ULL);
	EXPECT_EQ(late_sum(&st), 0ULL);
	ASSERT_EQ(tw_arm_full(fd, 0, MS, 10 * MS, 0, 0, &periodic), 0);
	for (i = 0; i < 3; i++)
		tw_arm(_metadata, fd, i, MS);
	h = tw_arm(_metadata, fd, 9, 10 * SEC);
	ASSERT_EQ(tw_cancel(fd, h), 0);
	tw_arm(_metadata, fd, 10, 10 * SEC);
	/* Until all four have fired (the periodic one waits for its read). */
	t0 = now_ns();
	do {
		sleep_ns(20 * MS);
		ASSERT_EQ(tw_stats(fd, &st), 0);
	} while (st.queued < 4 && now_ns() - t0 < 5 * SEC);
	EXPECT_EQ(st.queued, 4ULL);
	EXPECT_EQ(st.pending, 5ULL);
	EXPECT_EQ(st.armed, 6ULL);
	EXPECT_EQ(st.fired, 4ULL);
	EXPECT_EQ(st.cancelled, 1ULL);
	EXPECT_EQ(st.overruns, 0ULL);
	EXPECT_EQ(late_sum(&st), st.fired);
	EXPECT_EQ((long long)st.pending, tw_fdinfo(fd, "pending"));
	EXPECT_EQ((long long)st.queued, tw_fdinfo(fd, "queued"));

	sleep_ns(60 * MS);
	t0 = now_ns();
	n = tw_read(_metadata, fd, ev, 8);
	ASSERT_EQ(n, 4);
	ASSERT_EQ(tw_stats(fd, &st), 0);
	for (i = 0; i < n; i++)
		if (ev[i].handle == periodic)
			break;
	ASSERT_LT(i, n);
	EXPECT_GE(ev[i].overrun, 4ULL) {
		TH_LOG("deadline %llu expired %llu read %llu",
		       (unsigned long long)ev[i].deadline,
		       (unsigned long long)ev[i].expired,
		       (unsigned long long)t0);
	}
	EXPECT_EQ(st.overruns, ev[i].overrun);
	EXPECT_EQ(st.pending, 2ULL);
	EXPECT_GE(st.fired, 4ULL);
	EXPECT_EQ(late_sum(&st), st.fired);

	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_STATS, (void *)8), -EFAULT);
	ro = ro_copy(_metadata, &st, sizeof(st));
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_STATS, ro), -EFAULT);
	munmap(ro, 4096);
	close(fd);
}

TEST_HARNESS_MAIN
