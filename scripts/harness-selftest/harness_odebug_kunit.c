// SPDX-License-Identifier: GPL-2.0
/*
 * harness_odebug_kunit.c - free an armed twheel timeout on purpose.
 *
 * Used only by scripts/check-harness.sh, in a tree where twheel.ko is built
 * beside it: it proves that the debug kernel's debug objects report a
 * struct twheel_timeout freed while armed ("ODEBUG: free active ...
 * object type: twheel_timeout"), that the harness turns the report red,
 * and that debug objects' fixup (twheel's fixup_free cancels the timeout)
 * leaves nothing behind: the callback never runs on the freed memory.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/time64.h>

#include <linux/twheel.h>

/*
 * Longer than debug objects take to report the free before their fixup
 * runs: the report goes to a serial console, which took 60 ms under TCG.
 */
#define ODEBUG_DELAY_NS		(1000 * NSEC_PER_MSEC)

static atomic_t odebug_fired;

static void odebug_fn(struct twheel_timeout *t)
{
	atomic_inc(&odebug_fired);
}

static void harness_frees_armed_timeout(struct kunit *test)
{
	struct twheel_timeout *t = kzalloc(sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	twheel_timeout_init(t, odebug_fn);
	KUNIT_ASSERT_EQ(test, twheel_arm(t, ODEBUG_DELAY_NS), 0);
	KUNIT_ASSERT_TRUE(test, twheel_pending(t));
	/* The bug planted on purpose: no twheel_shutdown_sync() before. */
	kfree(t);
	/* Well past the deadline: the fixup took it off its wheel. */
	msleep(2 * ODEBUG_DELAY_NS / NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, atomic_read(&odebug_fired), 0);
}

static struct kunit_case harness_odebug_cases[] = {
	KUNIT_CASE(harness_frees_armed_timeout),
	{}
};

static struct kunit_suite harness_odebug_suite = {
	.name = "twheel_harness_odebug",
	.test_cases = harness_odebug_cases,
};

kunit_test_suite(harness_odebug_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("twheel harness self-test: frees an armed timeout on purpose");
