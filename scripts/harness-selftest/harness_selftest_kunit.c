// SPDX-License-Identifier: GPL-2.0
/*
 * harness_selftest_kunit.c - a KUnit suite that fails on purpose.
 *
 * Used only by scripts/check-harness.sh to prove that the harness goes red:
 * one case passes, one has a failing expectation, one hits WARN_ON(1).  The
 * harness must count the first as passed and report the other two as
 * failures (a KUnit failure and a kernel splat).
 */
#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/module.h>

static void harness_passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static void harness_expect_fails(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1, 2, "deliberate failure: the harness must report it");
}

static void harness_warns(struct kunit *test)
{
	/* The case itself passes: only the splat scan can catch this. */
	WARN_ON(1);
	KUNIT_EXPECT_TRUE(test, true);
}

static struct kunit_case harness_cases[] = {
	KUNIT_CASE(harness_passes),
	KUNIT_CASE(harness_expect_fails),
	KUNIT_CASE(harness_warns),
	{}
};

static struct kunit_suite harness_suite = {
	.name = "twheel_harness_selftest",
	.test_cases = harness_cases,
};
kunit_test_suite(harness_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("twheel harness self-test: fails on purpose");
