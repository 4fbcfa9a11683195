// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test.c - the ioctl ABI of /dev/twheel: the info handshake, structure
 * sizes old and new, and every rejected argument with its own errno.
 *
 * Each errno test changes exactly one thing in an otherwise valid call and
 * then checks that the call changed nothing (no timeout armed, re-armed or
 * cancelled).
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

FIXTURE(abi) {
	int fd;
	struct twheel_info info;
};

FIXTURE_SETUP(abi)
{
	self->fd = tw_open(_metadata);
	tw_info(_metadata, self->fd, &self->info);
}

FIXTURE_TEARDOWN(abi)
{
	close(self->fd);
}

/* The file holds no live timeout. */
static void expect_empty(struct __test_metadata *const _metadata, int fd)
{
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
}

/* The timeout @h is still armed: re-arming it works (to the same delay). */
static void expect_live(struct __test_metadata *const _metadata, int fd,
			uint64_t h)
{
	EXPECT_EQ(tw_rearm(fd, h, 10 * SEC, 0), 0);
}

/* --- TWHEEL_IOC_INFO --- */

TEST_F(abi, info_reports_the_abi)
{
	struct twheel_info *i = &self->info;

	EXPECT_EQ(i->size, sizeof(struct twheel_info));
	EXPECT_EQ(i->ioctls, TWHEEL_FEAT_INFO | TWHEEL_FEAT_ARM |
		  TWHEEL_FEAT_REARM | TWHEEL_FEAT_CANCEL | TWHEEL_FEAT_BATCH |
		  TWHEEL_FEAT_GET | TWHEEL_FEAT_DRAIN | TWHEEL_FEAT_STATS |
		  TWHEEL_FEAT_SHARE);
	EXPECT_EQ(i->arm_flags, TWHEEL_ARM_FLAGS_ALL);
	EXPECT_EQ(i->event_size, sizeof(struct twheel_event));
	EXPECT_GE(i->tick_ns, 50000ULL);
	EXPECT_LE(i->tick_ns, SEC);
	EXPECT_GE(i->max_delay_ns, 3600 * SEC);
	EXPECT_GE(i->max_pending, 1U);
	EXPECT_GE(i->max_batch, 1024U);
	EXPECT_EQ(i->rearm_flags, TWHEEL_REARM_FLAGS_ALL);
	EXPECT_EQ(i->cancel_flags, TWHEEL_CANCEL_FLAGS_ALL);
	EXPECT_EQ(i->drain_flags, TWHEEL_DRAIN_FLAGS_ALL);
	EXPECT_EQ(i->batch_flags, TWHEEL_BATCH_FLAGS_ALL);
	EXPECT_EQ(i->batch_ops, TWHEEL_OPS_ALL);
}

/*
 * Each mask of struct twheel_info against what its ioctl does: every flag
 * in the mask is taken (given arguments it needs), every bit outside it
 * gets -EINVAL and changes nothing.
 */
static int arm_with_flag(int fd, uint32_t flag, uint64_t *h)
{
	struct twheel_arm a = {
		.cookie = 1,
		.expires = flag == TWHEEL_ARM_ABS ? now_ns() + 10 * SEC :
						    10 * SEC,
		.period = flag == TWHEEL_ARM_FIXED_DELAY ? 10 * SEC : 0,
		.flags = flag,
		.handle = flag == TWHEEL_ARM_SLOT ? 1 : 0,
	};
	int ret = tw_ioctl(fd, TWHEEL_IOC_ARM, &a);

	*h = ret ? 0 : a.handle;
	return ret;
}

/* A file with a table whose entries the program picks, or -1 without. */
static int picking_file(struct __test_metadata *const _metadata,
			const struct twheel_info *info)
{
	struct twheel_share sh = { .flags = TWHEEL_SHARE_PICK_SLOTS,
				   .slots = 2 };
	int fd;

	if (!(info->arm_flags & TWHEEL_ARM_SLOT))
		return -1;
	fd = tw_open(_metadata);
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &sh), 0);
	return fd;
}

TEST_F(abi, arm_flags_mask_is_what_arm_takes)
{
	int ret, fd, pick = picking_file(_metadata, &self->info);
	unsigned int bit;
	uint64_t h;

	for (bit = 0; bit < 32; bit++) {
		/* TWHEEL_ARM_SLOT is taken in such a file only. */
		fd = 1U << bit == TWHEEL_ARM_SLOT && pick >= 0 ? pick : self->fd;
		ret = arm_with_flag(fd, 1U << bit, &h);
		if (self->info.arm_flags & (1U << bit)) {
			EXPECT_EQ(ret, 0) TH_LOG("arm flag 0x%x in the mask", 1U << bit);
			if (!ret)
				EXPECT_EQ(tw_cancel(fd, h), 0);
		} else {
			EXPECT_EQ(ret, -EINVAL) TH_LOG("arm flag 0x%x outside the mask", 1U << bit);
		}
	}
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	if (pick >= 0)
		close(pick);
}

TEST_F(abi, rearm_flags_mask_is_what_rearm_takes)
{
	uint64_t h = tw_arm(_metadata, self->fd, 1, 10 * SEC);
	unsigned int bit;
	uint32_t flag;
	int ret;

	for (bit = 0; bit < 32; bit++) {
		flag = 1U << bit;
		ret = tw_rearm(self->fd, h, flag == TWHEEL_ARM_ABS ?
			       now_ns() + 10 * SEC : 10 * SEC, flag);
		EXPECT_EQ(ret, self->info.rearm_flags & flag ? 0 : -EINVAL)
			TH_LOG("re-arm flag 0x%x", flag);
	}
	expect_live(_metadata, self->fd, h);
}

TEST_F(abi, cancel_flags_mask_is_what_cancel_takes)
{
	unsigned int bit;
	uint32_t flag;
	uint64_t h;
	int ret;

	for (bit = 0; bit < 32; bit++) {
		flag = 1U << bit;
		h = tw_arm(_metadata, self->fd, 1, 10 * SEC);
		ret = tw_cancel_flags(self->fd, h, flag);
		if (self->info.cancel_flags & flag) {
			EXPECT_GE(ret, 0) TH_LOG("cancel flag 0x%x in the mask", flag);
		} else {
			EXPECT_EQ(ret, -EINVAL) TH_LOG("cancel flag 0x%x outside the mask", flag);
			expect_live(_metadata, self->fd, h);
			EXPECT_EQ(tw_cancel(self->fd, h), 0);
		}
	}
}

TEST_F(abi, drain_flags_mask_is_what_drain_takes)
{
	struct twheel_get e[4];
	unsigned int bit;
	uint32_t flag, filled;
	uint64_t cursor;
	int ret;

	for (bit = 0; bit < 32; bit++) {
		flag = 1U << bit;
		cursor = 0;
		ret = tw_drain(self->fd, e, 4, &cursor, flag, &filled);
		EXPECT_EQ(ret, self->info.drain_flags & flag ? 0 : -EINVAL)
			TH_LOG("drain flag 0x%x", flag);
	}
}

TEST_F(abi, batch_masks_are_what_batch_takes)
{
	uint64_t h = tw_arm(_metadata, self->fd, 1, 10 * SEC);
	struct twheel_batch b;
	struct twheel_op op;
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		memset(&op, 0, sizeof(op));
		op.op = TWHEEL_OP_GET;
		op.handle = h;
		b = (struct twheel_batch){
			.ops = (uintptr_t)&op, .count = 1,
			.op_size = sizeof(op), .flags = 1U << bit,
		};
		EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_BATCH, &b),
			  self->info.batch_flags & (1U << bit) ? 0 : -EINVAL)
			TH_LOG("batch flag 0x%x", 1U << bit);
	}
	for (bit = 0; bit < 64; bit++) {
		memset(&op, 0, sizeof(op));
		op.op = bit;
		/* What each operation needs; cancel its own timeout. */
		if (bit == TWHEEL_OP_ARM || bit == TWHEEL_OP_REARM)
			op.expires = 10 * SEC;
		if (bit != TWHEEL_OP_ARM)
			op.handle = bit == TWHEEL_OP_CANCEL ?
				tw_arm(_metadata, self->fd, 2, 10 * SEC) : h;
		ASSERT_EQ(tw_batch(self->fd, &op, 1, sizeof(op)), 0);
		if (self->info.batch_ops & TWHEEL_OP_BIT(bit)) {
			EXPECT_GE(op.result, 0) TH_LOG("op %u in batch_ops: %d", bit, op.result);
		} else {
			EXPECT_EQ(op.result, -EINVAL) TH_LOG("op %u outside batch_ops", bit);
		}
		if (bit == TWHEEL_OP_ARM && op.result >= 0)
			EXPECT_EQ(tw_cancel(self->fd, op.handle), 0);
	}
	expect_live(_metadata, self->fd, h);
}

/* A newer caller's longer structure: known part filled, tail zeroed. */
TEST_F(abi, info_newer_caller_gets_zeroed_tail)
{
	struct {
		struct twheel_info info;
		uint64_t future[3];
	} big;

	memset(&big, 0xa5, sizeof(big));
	ASSERT_EQ(tw_ioctl(self->fd, _IOR(TWHEEL_IOC_MAGIC, 0, big), &big), 0);
	EXPECT_EQ(memcmp(&big.info, &self->info, sizeof(big.info)), 0);
	EXPECT_EQ(big.future[0] | big.future[1] | big.future[2], 0ULL);
}

TEST_F(abi, info_size_below_ver0_einval)
{
	char small[TWHEEL_INFO_SIZE_VER0 - 8];

	EXPECT_EQ(tw_ioctl(self->fd, _IOR(TWHEEL_IOC_MAGIC, 0, small), small),
		  -EINVAL);
}

TEST_F(abi, info_bad_pointer_efault)
{
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_INFO, NULL), -EFAULT);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_INFO,
			   tw_guard_pages(_metadata, PROT_READ)), -EFAULT);
}

/* --- command decoding: -ENOTTY --- */

TEST_F(abi, foreign_type_enotty)
{
	struct termios t;

	EXPECT_EQ(tw_ioctl(self->fd, TCGETS, &t), -ENOTTY);
	EXPECT_EQ(tw_ioctl(self->fd, _IOR('x', 0, struct twheel_info),
			   &self->info), -ENOTTY);
}

TEST_F(abi, unknown_number_enotty)
{
	char buf[64] = { 0 };

	EXPECT_EQ(tw_ioctl(self->fd, _IOW(TWHEEL_IOC_MAGIC, 5, buf), buf),
		  -ENOTTY);
	EXPECT_EQ(tw_ioctl(self->fd, _IOWR(TWHEEL_IOC_MAGIC, 0xff, buf), buf),
		  -ENOTTY);
	EXPECT_EQ(tw_ioctl(self->fd, _IO(TWHEEL_IOC_MAGIC, 6), NULL), -ENOTTY);
}

TEST_F(abi, wrong_direction_enotty)
{
	struct twheel_arm a = { .expires = SEC };

	EXPECT_EQ(tw_ioctl(self->fd, _IOW(TWHEEL_IOC_MAGIC, 0,
					  struct twheel_info), &self->info),
		  -ENOTTY);
	EXPECT_EQ(tw_ioctl(self->fd, _IOW(TWHEEL_IOC_MAGIC, 1,
					  struct twheel_arm), &a), -ENOTTY);
	EXPECT_EQ(tw_ioctl(self->fd, _IOWR(TWHEEL_IOC_MAGIC, 3,
					   struct twheel_cancel), &a), -ENOTTY);
	EXPECT_EQ(tw_ioctl(self->fd, _IO(TWHEEL_IOC_MAGIC, 4), NULL), -ENOTTY);
	expect_empty(_metadata, self->fd);
}

/* --- TWHEEL_IOC_ARM --- */

TEST_F(abi, arm_returns_distinct_nonzero_handles)
{
	uint64_t h1 = tw_arm(_metadata, self->fd, 1, 10 * SEC);
	uint64_t h2 = tw_arm(_metadata, self->fd, 2, 10 * SEC);

	EXPECT_NE(h1, h2);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
}

/* An older caller passes exactly VER0; a newer one zeroes what it adds. */
TEST_F(abi, arm_newer_struct_with_zero_tail)
{
	struct {
		struct twheel_arm arm;
		uint64_t future[2];
	} big = { .arm = { .cookie = 7, .expires = 10 * SEC } };

	ASSERT_EQ(tw_ioctl(self->fd, _IOWR(TWHEEL_IOC_MAGIC, 1, big), &big), 0);
	EXPECT_NE(big.arm.handle, 0ULL);
	EXPECT_EQ(big.future[0] | big.future[1], 0ULL);
	expect_live(_metadata, self->fd, big.arm.handle);
}

TEST_F(abi, arm_newer_struct_nonzero_tail_e2big)
{
	struct {
		struct twheel_arm arm;
		uint64_t future;
	} big = { .arm = { .expires = 10 * SEC }, .future = 1 };

	EXPECT_EQ(tw_ioctl(self->fd, _IOWR(TWHEEL_IOC_MAGIC, 1, big), &big),
		  -E2BIG);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_size_below_ver0_einval)
{
	struct twheel_arm a = { .expires = SEC };

	EXPECT_EQ(tw_ioctl(self->fd, _IOC(_IOC_READ | _IOC_WRITE,
					  TWHEEL_IOC_MAGIC, 1,
					  TWHEEL_ARM_SIZE_VER0 - 8), &a),
		  -EINVAL);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_unknown_flag_einval)
{
	/* The lowest bit TWHEEL_ARM_FLAGS_ALL does not have. */
	uint32_t unknown = (TWHEEL_ARM_FLAGS_ALL + 1) & ~TWHEEL_ARM_FLAGS_ALL;

	ASSERT_NE(unknown, 0U);
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 0, unknown, 0, NULL), -EINVAL);
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 0, 1U << 31, 0, NULL), -EINVAL);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_cpu_without_flag_einval)
{
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 0, 0, 1, NULL), -EINVAL);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_cpu_not_online_einval)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 0, TWHEEL_ARM_CPU, 4096, NULL),
		  -EINVAL);
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 0, TWHEEL_ARM_CPU, UINT32_MAX,
			      NULL), -EINVAL);
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 0, TWHEEL_ARM_CPU, ncpu, NULL),
		  -EINVAL);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_period_below_tick_einval)
{
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, self->info.tick_ns - 1, 0, 0,
			      NULL), -EINVAL);
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 1, TWHEEL_ARM_FIXED_DELAY, 0,
			      NULL), -EINVAL);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_period_of_one_tick_accepted)
{
	uint64_t h;

	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, self->info.tick_ns, 0, 0, &h),
		  0);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

TEST_F(abi, arm_fixed_delay_without_period_einval)
{
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, 0, TWHEEL_ARM_FIXED_DELAY, 0,
			      NULL), -EINVAL);
	expect_empty(_metadata, self->fd);
}

/* An absolute deadline beyond INT64_MAX is no CLOCK_MONOTONIC time. */
TEST_F(abi, arm_abs_outside_clock_einval)
{
	EXPECT_EQ(tw_arm_full(self->fd, 0, (uint64_t)INT64_MAX + 1, 0,
			      TWHEEL_ARM_ABS, 0, NULL), -EINVAL);
	EXPECT_EQ(tw_arm_full(self->fd, 0, UINT64_MAX, 0, TWHEEL_ARM_ABS, 0,
			      NULL), -EINVAL);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_delay_beyond_max_erange)
{
	uint64_t max = self->info.max_delay_ns;

	EXPECT_EQ(tw_arm_full(self->fd, 0, max + 1, 0, 0, 0, NULL), -ERANGE);
	EXPECT_EQ(tw_arm_full(self->fd, 0, UINT64_MAX, 0, 0, 0, NULL), -ERANGE);
	EXPECT_EQ(tw_arm_full(self->fd, 0, (uint64_t)INT64_MAX, 0, 0, 0, NULL),
		  -ERANGE);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_abs_beyond_max_erange)
{
	uint64_t far = now_ns() + self->info.max_delay_ns + 10 * SEC;

	EXPECT_EQ(tw_arm_full(self->fd, 0, far, 0, TWHEEL_ARM_ABS, 0, NULL),
		  -ERANGE);
	EXPECT_EQ(tw_arm_full(self->fd, 0, INT64_MAX, 0, TWHEEL_ARM_ABS, 0,
			      NULL), -ERANGE);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_period_beyond_max_erange)
{
	EXPECT_EQ(tw_arm_full(self->fd, 0, SEC, self->info.max_delay_ns + 1, 0,
			      0, NULL), -ERANGE);
	expect_empty(_metadata, self->fd);
}

TEST_F(abi, arm_longest_delay_accepted)
{
	uint64_t h;

	ASSERT_EQ(tw_arm_full(self->fd, 0, self->info.max_delay_ns, 0, 0, 0,
			      &h), 0);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

TEST_F(abi, arm_bad_pointer_efault)
{
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_ARM, NULL), -EFAULT);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_ARM, (void *)8), -EFAULT);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_ARM,
			   tw_guard_pages(_metadata, PROT_NONE) - 8), -EFAULT);
	expect_empty(_metadata, self->fd);
}

/* The handle cannot be written back: the timeout is undone. */
TEST_F(abi, arm_readonly_struct_efault_arms_nothing)
{
	char *page = tw_guard_pages(_metadata, PROT_READ | PROT_WRITE);
	struct twheel_arm *a = (struct twheel_arm *)page;

	a->expires = 1;
	a->cookie = 99;
	ASSERT_EQ(mprotect(page, sysconf(_SC_PAGESIZE), PROT_READ), 0);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_ARM, a), -EFAULT);
	expect_empty(_metadata, self->fd);
	sleep_ns(30 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

/* --- TWHEEL_IOC_REARM --- */

TEST_F(abi, rearm_unknown_flag_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	EXPECT_EQ(tw_rearm(self->fd, h, 1, TWHEEL_ARM_CPU), -EINVAL);
	EXPECT_EQ(tw_rearm(self->fd, h, 1, TWHEEL_ARM_FIXED_DELAY), -EINVAL);
	EXPECT_EQ(tw_rearm(self->fd, h, 1, 1U << 20), -EINVAL);
	sleep_ns(30 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

TEST_F(abi, rearm_reserved_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct twheel_rearm r = { .handle = h, .expires = 1, .reserved = 1 };

	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_REARM, &r), -EINVAL);
	sleep_ns(30 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

TEST_F(abi, rearm_size_below_ver0_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct twheel_rearm r = { .handle = h, .expires = 1 };

	EXPECT_EQ(tw_ioctl(self->fd, _IOC(_IOC_WRITE, TWHEEL_IOC_MAGIC, 2,
					  TWHEEL_REARM_SIZE_VER0 - 8), &r),
		  -EINVAL);
	sleep_ns(30 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

TEST_F(abi, rearm_newer_struct_nonzero_tail_e2big)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct {
		struct twheel_rearm r;
		uint64_t future;
	} big = { .r = { .handle = h, .expires = 1 }, .future = 1 };

	EXPECT_EQ(tw_ioctl(self->fd, _IOW(TWHEEL_IOC_MAGIC, 2, big), &big),
		  -E2BIG);
	big.future = 0;
	EXPECT_EQ(tw_ioctl(self->fd, _IOW(TWHEEL_IOC_MAGIC, 2, big), &big), 0);
	EXPECT_TRUE(tw_wait_ready(self->fd, 2000));
}

TEST_F(abi, rearm_beyond_max_erange)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 20 * MS);

	EXPECT_EQ(tw_rearm(self->fd, h, self->info.max_delay_ns + 1, 0),
		  -ERANGE);
	EXPECT_EQ(tw_rearm(self->fd, h, now_ns() + self->info.max_delay_ns +
			   10 * SEC, TWHEEL_ARM_ABS), -ERANGE);
	/* Unchanged: it still fires after 20 ms. */
	EXPECT_TRUE(tw_wait_ready(self->fd, 2000));
}

TEST_F(abi, rearm_abs_outside_clock_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	EXPECT_EQ(tw_rearm(self->fd, h, UINT64_MAX, TWHEEL_ARM_ABS), -EINVAL);
	expect_live(_metadata, self->fd, h);
}

TEST_F(abi, rearm_bad_pointer_efault)
{
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_REARM, NULL), -EFAULT);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_REARM,
			   tw_guard_pages(_metadata, PROT_NONE) - 8), -EFAULT);
}

TEST_F(abi, rearm_unknown_handle_enoent)
{
	EXPECT_EQ(tw_rearm(self->fd, 0, SEC, 0), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, 12345, SEC, 0), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, UINT64_MAX, SEC, 0), -ENOENT);
	expect_empty(_metadata, self->fd);
}

/* --- TWHEEL_IOC_CANCEL --- */

/* Flags other than TWHEEL_CANCEL_FLAGS_ALL. */
TEST_F(abi, cancel_flags_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct twheel_cancel c = { .handle = h };

	c.flags = TWHEEL_CANCEL_REPORT << 1;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_CANCEL, &c), -EINVAL);
	c.flags = 1U << 31;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_CANCEL, &c), -EINVAL);
	c.flags = ~TWHEEL_CANCEL_FLAGS_ALL;
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_CANCEL, &c), -EINVAL);
	expect_live(_metadata, self->fd, h);
}

TEST_F(abi, cancel_reserved_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct twheel_cancel c = { .handle = h, .reserved = 1 };

	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_CANCEL, &c), -EINVAL);
	expect_live(_metadata, self->fd, h);
}

TEST_F(abi, cancel_size_below_ver0_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct twheel_cancel c = { .handle = h };

	EXPECT_EQ(tw_ioctl(self->fd, _IOC(_IOC_WRITE, TWHEEL_IOC_MAGIC, 3, 8),
			   &c), -EINVAL);
	expect_live(_metadata, self->fd, h);
}

TEST_F(abi, cancel_newer_struct_nonzero_tail_e2big)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct {
		struct twheel_cancel c;
		uint32_t future[2];
	} big = { .c = { .handle = h }, .future = { 0, 1 } };

	EXPECT_EQ(tw_ioctl(self->fd, _IOW(TWHEEL_IOC_MAGIC, 3, big), &big),
		  -E2BIG);
	expect_live(_metadata, self->fd, h);
}

TEST_F(abi, cancel_bad_pointer_efault)
{
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_CANCEL, NULL), -EFAULT);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_CANCEL,
			   tw_guard_pages(_metadata, PROT_NONE) - 8), -EFAULT);
}

TEST_F(abi, cancel_unknown_handle_enoent)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	EXPECT_EQ(tw_cancel(self->fd, 0), -ENOENT);
	/* Right slot, wrong generation; wrong slot, right generation. */
	EXPECT_EQ(tw_cancel(self->fd, h ^ (1ULL << 32)), -ENOENT);
	EXPECT_EQ(tw_cancel(self->fd, h + 1), -ENOENT);
	expect_live(_metadata, self->fd, h);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	EXPECT_EQ(tw_cancel(self->fd, h), -ENOENT);
}

/* --- other file operations --- */

TEST_F(abi, fdinfo_reports_counts_and_limit)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 0);

	tw_arm(_metadata, self->fd, 0, 10 * SEC);
	ASSERT_TRUE(tw_wait_ready(self->fd, 2000));
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 1);
	EXPECT_EQ(tw_fdinfo(self->fd, "max_pending"), self->info.max_pending);
	EXPECT_EQ(tw_fdinfo(self->fd, "armed"), 2);
	EXPECT_EQ(tw_fdinfo(self->fd, "fired"), 1);
	EXPECT_EQ(tw_fdinfo(self->fd, "cancelled"), 0);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 1);
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 0);
	EXPECT_EQ(tw_fdinfo(self->fd, "cancelled"), 1);
	EXPECT_EQ(tw_fdinfo(self->fd, "overruns"), 0);
}

/*
 * fdinfo's counters are TWHEEL_IOC_STATS's, the lateness histogram too;
 * every counter differs from the others, so that no two can be swapped.
 */
TEST_F(abi, fdinfo_matches_stats)
{
	struct twheel_stats st = {};
	char path[64], line[512], *p;
	long long sum = 0, v;
	unsigned int i;
	uint64_t h;
	FILE *f;

	tw_arm(_metadata, self->fd, 1, 0);
	tw_arm(_metadata, self->fd, 2, MS);
	tw_arm(_metadata, self->fd, 3, 3600 * SEC);
	h = tw_arm(_metadata, self->fd, 4, 3600 * SEC);
	tw_arm(_metadata, self->fd, 5, 3600 * SEC);
	ASSERT_EQ(tw_cancel(self->fd, h), 0);
	while (tw_fdinfo(self->fd, "fired") < 2)
		ASSERT_TRUE(tw_wait_ready(self->fd, 2000));
	ASSERT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_STATS, &st), 0);
	/* pending 4, queued 2, armed 5, fired 2, cancelled 1, overruns 0 */
	EXPECT_EQ(st.armed, 5U);
	EXPECT_EQ(st.cancelled, 1U);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), (long long)st.pending);
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), (long long)st.queued);
	EXPECT_EQ(tw_fdinfo(self->fd, "armed"), (long long)st.armed);
	EXPECT_EQ(tw_fdinfo(self->fd, "fired"), (long long)st.fired);
	EXPECT_EQ(tw_fdinfo(self->fd, "cancelled"), (long long)st.cancelled);
	EXPECT_EQ(tw_fdinfo(self->fd, "overruns"), (long long)st.overruns);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", self->fd);
	f = fopen(path, "r");
	ASSERT_NE(f, NULL);
	line[0] = 0;
	while (fgets(line, sizeof(line), f) && strncmp(line, "late:", 5))
		;
	fclose(f);
	ASSERT_EQ(strncmp(line, "late:", 5), 0);
	p = line + 5;
	for (i = 0; i < TWHEEL_STATS_LATE_BUCKETS; i++) {
		v = strtoll(p, &p, 10);
		EXPECT_EQ(v, (long long)st.late[i]);
		sum += v;
	}
	EXPECT_EQ(sum, 2);
}

TEST_F(abi, not_seekable_espipe)
{
	struct twheel_event ev;

	EXPECT_EQ(lseek(self->fd, 0, SEEK_SET), -1);
	EXPECT_EQ(errno, ESPIPE);
	EXPECT_EQ(pread(self->fd, &ev, sizeof(ev), 0), -1);
	EXPECT_EQ(errno, ESPIPE);
}

TEST_F(abi, write_einval)
{
	char buf[64] = { 0 };

	EXPECT_EQ(write(self->fd, buf, sizeof(buf)), -1);
	EXPECT_EQ(errno, EINVAL);
}

TEST(open_read_only_works)
{
	int fd = open(TW_DEV, O_RDONLY | O_CLOEXEC);
	uint64_t h;

	if (fd < 0 && errno == ENOENT)
		SKIP(return, TW_DEV " does not exist");
	ASSERT_GE(fd, 0);
	EXPECT_EQ(tw_arm_full(fd, 0, SEC, 0, 0, 0, &h), 0);
	close(fd);
}

TEST_HARNESS_MAIN
