// SPDX-License-Identifier: GPL-2.0
/*
 * harness_selftest_kunit.c - a KUnit suite that fails on purpose.
 *
 * Used only by scripts/check-harness.sh to prove that the harness goes red:
 * one case passes, one has a failing expectation, one hits WARN_ON(1), one
 * leaks memory.  The harness must count the first as passed and report the
 * others as failures (a KUnit failure, a kernel splat, a kmemleak report).
 */
#include <kunit/test.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>

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

static void harness_leaks(struct kunit *test)
{
	void *p;
	int i;

	/* Lost on purpose: kmemleak must report them after the module is gone. */
	for (i = 0; i < 4; i++) {
		p = kmalloc(200, GFP_KERNEL);
		OPTIMIZER_HIDE_VAR(p);
		p = NULL;
	}
	KUNIT_EXPECT_TRUE(test, true);
}

static struct kunit_case harness_cases[] = {
	KUNIT_CASE(harness_passes),
	KUNIT_CASE(harness_expect_fails),
	KUNIT_CASE(harness_warns),
	KUNIT_CASE(harness_leaks),
	{}
};

static struct kunit_suite harness_suite = {
	.name = "twheel_harness_selftest",
	.test_cases = harness_cases,
};
kunit_test_suite(harness_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("twheel harness self-test: fails on purpose");
