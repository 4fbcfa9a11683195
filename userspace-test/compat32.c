// SPDX-License-Identifier: GPL-2.0
/*
 * compat32.c - /dev/twheel from a 32-bit program (.compat_ioctl)
 *
 * Built with -m32 as twheel-compat32 and run by compat_test. Every
 * structure has the same layout for i386 and x86_64 (fixed-width fields,
 * explicit padding, pointers as __u64), so a 32-bit caller uses the very
 * same commands; these tests check that each ioctl, read() and the fault
 * paths behave as for a 64-bit caller.
 */
#include <stdint.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

_Static_assert(sizeof(void *) == 4, "build this with -m32");
_Static_assert(sizeof(struct twheel_arm) == TWHEEL_ARM_SIZE_VER0, "layout");
_Static_assert(sizeof(struct twheel_info) == TWHEEL_INFO_SIZE_VER1, "layout");
_Static_assert(sizeof(struct twheel_op) == 48, "layout");
_Static_assert(sizeof(struct twheel_event) == 48, "layout");

TEST(compat32_info)
{
	struct twheel_info info;
	int fd = tw_open(_metadata);

	tw_info(_metadata, fd, &info);
	EXPECT_EQ(info.api_version, (__u32)TWHEEL_API_VERSION);
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

TEST_HARNESS_MAIN
