// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test program on the kernel's kselftest_harness.h, the
 * harness the userspace suite uses: one passing case, one failing
 * EXPECT, one failing ASSERT, one SKIP and one case that outlives its
 * timeout. scripts/check-harness.sh builds it (static) and checks that
 * the results are counted as exactly that.
 */
#include <unistd.h>

#include "../kselftest_harness.h"

TEST(harness_ksft_passes)
{
	EXPECT_EQ(1, 1);
}

TEST(harness_ksft_expect_fails_on_purpose)
{
	EXPECT_EQ(1, 2);
}

TEST(harness_ksft_assert_fails_on_purpose)
{
	ASSERT_EQ(1, 2);
	EXPECT_EQ(1, 1);
}

TEST(harness_ksft_skipped)
{
	SKIP(return, "on purpose");
}

FIXTURE(harness) {
};

FIXTURE_SETUP(harness)
{
}

FIXTURE_TEARDOWN(harness)
{
}

TEST_F_TIMEOUT(harness, ksft_times_out_on_purpose, 1)
{
	sleep(10);
}

TEST_HARNESS_MAIN
