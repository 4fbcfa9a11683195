// SPDX-License-Identifier: GPL-2.0
/*
 * clock_test.c - the clocks of /dev/twheel: CLOCK_BOOTTIME timeouts
 * (TWHEEL_ARM_BOOTTIME), a suspend of the guest they fire across, and time
 * namespaces, whose absolute times the file converts as timerfd does.
 *
 * The suspend test puts the guest to sleep (S3, woken by the RTC alarm;
 * s2idle if S3 is not offered) and skips where the kernel cannot suspend
 * (the debug kernels have no CONFIG_SUSPEND) or the suspend did not stop
 * CLOCK_MONOTONIC. It runs first: after it CLOCK_BOOTTIME is seconds ahead
 * of CLOCK_MONOTONIC, so that the other tests see a timeout read in the
 * wrong clock. The time namespace test needs CONFIG_TIME_NS and root.
 */
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "twheel_util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

/*
 * Until the guest has been suspended, CLOCK_BOOTTIME and CLOCK_MONOTONIC
 * read the same: a timeout put on the wrong clock would pass the tests
 * below. The suspend test therefore runs first; where it cannot suspend,
 * each test says that the clocks agree.
 */
static void note_clock_offset(void)
{
	int64_t off = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);

	if (off < (int64_t)SEC)
		ksft_print_msg("CLOCK_BOOTTIME is %lld us ahead of CLOCK_MONOTONIC (no suspend yet): a mix-up of the two clocks is not seen here\n",
			       (long long)off / 1000);
}

FIXTURE(clk) {
	int fd;
	struct twheel_info info;
};

FIXTURE_SETUP(clk)
{
	self->fd = tw_open(_metadata);
	tw_info(_metadata, self->fd, &self->info);
	note_clock_offset();
}

FIXTURE_TEARDOWN(clk)
{
	close(self->fd);
}

/*
 * Suspend the guest for 6 s (the RTC alarm wakes it) with a CLOCK_BOOTTIME
 * timeout due 4 s on and a CLOCK_MONOTONIC one due 20 s on. If more than
 * 4 s passed in all, the BOOTTIME deadline passed before the suspend
 * returned, as a rule while the guest slept: it has fired by then. On the
 * CLOCK_MONOTONIC wheel it would fire only once the guest had been awake
 * 4 s, at least a second later if it was awake less than 3 s of it all;
 * otherwise the test could not tell the two apart, and skips. The
 * MONOTONIC one has only what that clock counted behind it: still armed.
 */
TEST_F_TIMEOUT(clk, boottime_fires_on_resume, 120)
{
	uint64_t hb, hm, m0, b0, m1, b1;
	struct twheel_event ev;
	struct twheel_get g;
	int ret;

	m0 = clock_ns(CLOCK_MONOTONIC);
	b0 = clock_ns(CLOCK_BOOTTIME);
	ASSERT_EQ(tw_arm_full(self->fd, 1, 4 * SEC, 0, TWHEEL_ARM_BOOTTIME, 0,
			      &hb), 0);
	ASSERT_EQ(tw_arm_full(self->fd, 2, 20 * SEC, 0, 0, 0, &hm), 0);
	ret = tw_suspend(6);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no suspend to RAM or no RTC wake alarm here");
	ASSERT_EQ(ret, 0);
	m1 = clock_ns(CLOCK_MONOTONIC);
	b1 = clock_ns(CLOCK_BOOTTIME);
	TH_LOG("suspend: CLOCK_MONOTONIC +%llu ms, CLOCK_BOOTTIME +%llu ms",
	       (unsigned long long)(m1 - m0) / MS,
	       (unsigned long long)(b1 - b0) / MS);
	if (m1 - m0 >= 3 * SEC || b1 - b0 <= 4 * SEC)
		SKIP(return, "awake 3 s or more, or asleep too short a time");
	/*
	 * BOOTTIME: due by resume, fired then, not when the guest has been
	 * awake 4 s (on the CLOCK_MONOTONIC wheel it would have fired
	 * 4 s - (m1 - m0) after resume).
	 */
	tw_read_one(_metadata, self->fd, &ev, 5000);
	EXPECT_EQ(ev.handle, hb);
	EXPECT_GE(ev.expired, ev.deadline);
	EXPECT_LT(ev.deadline, b1);
	EXPECT_LT(ev.expired, b1 + SEC);
	EXPECT_GE(clock_ns(CLOCK_BOOTTIME), ev.deadline);
	/* MONOTONIC: still armed, its deadline still ahead in its clock. */
	ASSERT_EQ(tw_get(self->fd, hm, &g), 0);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_ARMED);
	EXPECT_GT(g.deadline, clock_ns(CLOCK_MONOTONIC));
	EXPECT_GE(g.deadline, m0 + 20 * SEC);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

TEST_F(clk, info_announces_boottime)
{
	EXPECT_NE(self->info.arm_flags & TWHEEL_ARM_BOOTTIME, 0U);
}

/* A delay and an absolute deadline, both read in CLOCK_BOOTTIME. */
TEST_F(clk, boottime_fires_not_early_in_its_clock)
{
	uint64_t h1, h2, b0, b1, abs_deadline;
	struct twheel_event ev;
	int i;

	b0 = clock_ns(CLOCK_BOOTTIME);
	ASSERT_EQ(tw_arm_full(self->fd, 1, 20 * MS, 0, TWHEEL_ARM_BOOTTIME, 0,
			      &h1), 0);
	b1 = clock_ns(CLOCK_BOOTTIME);
	abs_deadline = b1 + 30 * MS;
	ASSERT_EQ(tw_arm_full(self->fd, 2, abs_deadline, 0,
			      TWHEEL_ARM_BOOTTIME | TWHEEL_ARM_ABS, 0, &h2), 0);
	for (i = 0; i < 2; i++) {
		tw_read_one(_metadata, self->fd, &ev, 5000);
		EXPECT_GE(clock_ns(CLOCK_BOOTTIME), ev.deadline);
		EXPECT_GE(ev.expired, ev.deadline);
		if (ev.cookie == 1) {
			EXPECT_EQ(ev.handle, h1);
			EXPECT_GE(ev.deadline, b0 + 20 * MS);
			EXPECT_LE(ev.deadline, b1 + 20 * MS);
		} else {
			EXPECT_EQ(ev.handle, h2);
			EXPECT_EQ(ev.deadline, abs_deadline);
		}
	}
}

TEST_F(clk, get_reports_the_clock)
{
	uint64_t h, b0 = clock_ns(CLOCK_BOOTTIME);
	struct twheel_get g;

	ASSERT_EQ(tw_arm_full(self->fd, 7, 60 * SEC, 0, TWHEEL_ARM_BOOTTIME, 0,
			      &h), 0);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.flags, TWHEEL_ARM_BOOTTIME);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_ARMED);
	EXPECT_GE(g.deadline, b0 + 60 * SEC);
	EXPECT_LE(g.deadline, clock_ns(CLOCK_BOOTTIME) + 60 * SEC);
	EXPECT_LE(g.remaining, 60 * SEC);
	EXPECT_GT(g.remaining, 50 * SEC);
	ASSERT_EQ(tw_arm_full(self->fd, 8, 60 * SEC, 0, 0, 0, &h), 0);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.flags, 0U);
}

/*
 * A re-arm keeps the timeout's clock and reads its expiry in it; it takes
 * no clock flag (-EINVAL, nothing changed).
 */
TEST_F(clk, rearm_keeps_the_clock)
{
	uint64_t h, deadline, b0, b1;
	struct twheel_event ev;
	struct twheel_get g;

	ASSERT_EQ(tw_arm_full(self->fd, 3, 60 * SEC, 0, TWHEEL_ARM_BOOTTIME, 0,
			      &h), 0);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	deadline = g.deadline;
	EXPECT_EQ(tw_rearm(self->fd, h, 10 * MS, TWHEEL_ARM_BOOTTIME), -EINVAL);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.deadline, deadline);

	/* A delay counts from now in CLOCK_BOOTTIME. */
	b0 = clock_ns(CLOCK_BOOTTIME);
	ASSERT_EQ(tw_rearm(self->fd, h, 30 * SEC, 0), 0);
	b1 = clock_ns(CLOCK_BOOTTIME);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_GE(g.deadline, b0 + 30 * SEC);
	EXPECT_LE(g.deadline, b1 + 30 * SEC);

	deadline = clock_ns(CLOCK_BOOTTIME) + 20 * MS;
	ASSERT_EQ(tw_rearm(self->fd, h, deadline, TWHEEL_ARM_ABS), 0);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.deadline, deadline);
	EXPECT_EQ(g.flags, TWHEEL_ARM_BOOTTIME);
	tw_read_one(_metadata, self->fd, &ev, 5000);
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(ev.deadline, deadline);
	EXPECT_GE(ev.expired, deadline);
	EXPECT_GE(clock_ns(CLOCK_BOOTTIME), deadline);
}

/* A periodic CLOCK_BOOTTIME timeout counts its periods in that clock. */
TEST_F(clk, boottime_periodic)
{
	struct twheel_event ev;
	uint64_t h, prev = 0;
	int i;

	ASSERT_EQ(tw_arm_full(self->fd, 4, 5 * MS, 5 * MS, TWHEEL_ARM_BOOTTIME,
			      0, &h), 0);
	for (i = 0; i < 3; i++) {
		tw_read_one(_metadata, self->fd, &ev, 5000);
		EXPECT_EQ(ev.handle, h);
		EXPECT_NE(ev.flags & TWHEEL_EV_PERIODIC, 0U);
		EXPECT_GE(ev.expired, ev.deadline);
		EXPECT_GE(clock_ns(CLOCK_BOOTTIME), ev.deadline);
		EXPECT_GT(ev.deadline, prev);
		prev = ev.deadline;
	}
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

/*
 * In a time namespace whose clocks are 1000 s (MONOTONIC) and 2000 s
 * (BOOTTIME) ahead of the kernel's, absolute deadlines are read in the
 * namespace's clocks and records and GET give them back in them.
 */
static int timens_child(void)
{
	uint64_t clocks[2] = { clock_ns(CLOCK_MONOTONIC),
			       clock_ns(CLOCK_BOOTTIME) };
	uint32_t flags[2] = { 0, TWHEEL_ARM_BOOTTIME };
	int fd = open(TW_DEV, O_RDWR | O_CLOEXEC);
	struct twheel_event ev;
	struct twheel_get g;
	uint64_t h, deadline;
	int i;

	if (fd < 0)
		return 10;
	for (i = 0; i < 2; i++) {
		deadline = clocks[i] + 30 * MS;
		if (tw_arm_full(fd, i, deadline, 0, flags[i] | TWHEEL_ARM_ABS,
				0, &h))
			return 11;
		memset(&g, 0, sizeof(g));
		g.handle = h;
		if (tw_ioctl(fd, TWHEEL_IOC_GET, &g) || g.deadline != deadline ||
		    g.remaining > 30 * MS)
			return 12 + i * 10;
		/* Were the offset ignored, this would wait 1000 s or more. */
		if (!tw_wait_ready(fd, 5000) || tw_read_nocheck(fd, &ev, 1) != 1)
			return 13 + i * 10;
		if (ev.handle != h || ev.deadline != deadline ||
		    ev.expired < deadline)
			return 14 + i * 10;
		if (clock_ns(i ? CLOCK_BOOTTIME : CLOCK_MONOTONIC) < ev.expired)
			return 15 + i * 10;
	}
	close(fd);
	return 0;
}

TEST(time_namespace_converts_absolute_times)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWTIME))
		SKIP(return, "no time namespaces here (unshare: %s)",
		     strerror(errno));
	ASSERT_EQ(tw_write_file("/proc/self/timens_offsets",
				"monotonic 1000 0\nboottime 2000 0\n"), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(timens_child());
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0) {
		TH_LOG("child failed at step %d", WEXITSTATUS(status));
	}
}

TEST_HARNESS_MAIN
