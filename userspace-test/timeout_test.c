// SPDX-License-Identifier: GPL-2.0
/*
 * timeout_test.c - what arming, re-arming and cancelling a timeout of
 * /dev/twheel does: one-shot and periodic records (fixed rate with overruns,
 * fixed delay), absolute deadlines, chosen CPUs, "cancel means gone" and
 * handles that are stale or belong to another file.
 */
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

FIXTURE(tmo) {
	int fd;
	struct twheel_info info;
};

FIXTURE_SETUP(tmo)
{
	self->fd = tw_open(_metadata);
	tw_info(_metadata, self->fd, &self->info);
}

FIXTURE_TEARDOWN(tmo)
{
	close(self->fd);
}

/* The record of a timeout armed between @t0 and @t1 for @delay. */
static void check_oneshot(struct __test_metadata *const _metadata,
			  const struct twheel_event *ev, uint64_t h,
			  uint64_t cookie, uint64_t t0, uint64_t t1,
			  uint64_t delay)
{
	EXPECT_EQ(ev->handle, h);
	EXPECT_EQ(ev->cookie, cookie);
	EXPECT_GE(ev->deadline, t0 + delay);
	EXPECT_LE(ev->deadline, t1 + delay);
	EXPECT_GE(ev->expired, ev->deadline);
	EXPECT_EQ(ev->overrun, 0ULL);
	EXPECT_EQ(ev->flags, 0ULL);
	EXPECT_EQ(ev->reserved, 0ULL);
}

TEST_F(tmo, oneshot_fires_once_then_handle_is_dead)
{
	struct twheel_event ev;
	uint64_t t0, t1, h;

	t0 = now_ns();
	h = tw_arm(_metadata, self->fd, 0xc00c1e, 20 * MS);
	t1 = now_ns();
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_GE(now_ns(), t0 + 20 * MS);
	check_oneshot(_metadata, &ev, h, 0xc00c1e, t0, t1, 20 * MS);
	sleep_ns(50 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	EXPECT_EQ(tw_cancel(self->fd, h), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, h, MS, 0), -ENOENT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

TEST_F(tmo, zero_delay_fires_at_once)
{
	struct twheel_event ev;
	uint64_t t0 = now_ns();
	uint64_t h = tw_arm(_metadata, self->fd, 5, 0);

	tw_read_one(_metadata, self->fd, &ev, 10000);
	check_oneshot(_metadata, &ev, h, 5, t0, now_ns(), 0);
}

TEST_F(tmo, abs_deadline_is_kept)
{
	uint64_t deadline = now_ns() + 30 * MS, h;
	struct twheel_event ev;

	ASSERT_EQ(tw_arm_full(self->fd, 1, deadline, 0, TWHEEL_ARM_ABS, 0, &h),
		  0);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_GE(now_ns(), deadline);
	EXPECT_EQ(ev.deadline, deadline);
	EXPECT_GE(ev.expired, deadline);
}

TEST_F(tmo, abs_deadline_in_the_past_fires_at_once)
{
	uint64_t deadline = now_ns() - SEC, h;
	struct twheel_event ev;

	ASSERT_EQ(tw_arm_full(self->fd, 1, deadline, 0, TWHEEL_ARM_ABS, 0, &h),
		  0);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.deadline, deadline);
	EXPECT_GE(ev.expired, deadline);
	EXPECT_EQ(ev.overrun, 0ULL);
}

/* A deadline of 0 (boot time) is a valid absolute time, long past. */
TEST_F(tmo, abs_deadline_zero_fires_at_once)
{
	struct twheel_event ev;
	uint64_t h;

	ASSERT_EQ(tw_arm_full(self->fd, 1, 0, 0, TWHEEL_ARM_ABS, 0, &h), 0);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.deadline, 0ULL);
}

TEST_F(tmo, arm_on_each_online_cpu)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN), cpu;
	struct twheel_event ev;
	uint64_t h;

	for (cpu = 0; cpu < n; cpu++) {
		ASSERT_EQ(tw_arm_full(self->fd, cpu, 5 * MS, 0, TWHEEL_ARM_CPU,
				      cpu, &h), 0);
		tw_read_one(_metadata, self->fd, &ev, 10000);
		EXPECT_EQ(ev.cookie, (uint64_t)cpu);
		EXPECT_GE(ev.expired, ev.deadline);
	}
}

/*
 * Fixed rate: a record's deadline is the previous record's plus one period
 * for it and one for each of its overruns.
 */
TEST_F(tmo, periodic_fixed_rate_deadlines)
{
	uint64_t period = 10 * MS, t0 = now_ns(), h, next = 0;
	struct twheel_event ev;
	int i;

	ASSERT_EQ(tw_arm_full(self->fd, 3, period, period, 0, 0, &h), 0);
	for (i = 0; i < 6; i++) {
		tw_read_one(_metadata, self->fd, &ev, 10000);
		EXPECT_EQ(ev.handle, h);
		EXPECT_EQ(ev.flags, TWHEEL_EV_PERIODIC);
		EXPECT_GE(ev.expired, ev.deadline);
		if (i == 0) {
			EXPECT_GE(ev.deadline, t0 + period);
		} else {
			EXPECT_EQ(ev.deadline, next);
		}
		next = ev.deadline + (ev.overrun + 1) * period;
	}
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

/* A reader that falls behind gets one record counting the missed periods. */
TEST_F(tmo, periodic_fixed_rate_overrun)
{
	uint64_t period = 10 * MS, h, t_read, first;
	struct twheel_event ev[4];

	ASSERT_EQ(tw_arm_full(self->fd, 3, period, period, 0, 0, &h), 0);
	sleep_ns(125 * MS);
	t_read = now_ns();
	ASSERT_EQ(tw_read(_metadata, self->fd, ev, 4), 1);
	first = ev[0].deadline;
	/* Every period boundary up to the read is accounted for. */
	EXPECT_LE(first + ev[0].overrun * period, now_ns());
	EXPECT_GE(first + (ev[0].overrun + 1) * period, t_read);
	EXPECT_GE(ev[0].overrun, 9ULL);
	/* The next one is the first boundary after the read. */
	tw_read_one(_metadata, self->fd, &ev[1], 10000);
	EXPECT_EQ(ev[1].deadline, first + (ev[0].overrun + 1) * period);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

/* Fixed delay: the next period starts when the record is read; no overrun. */
TEST_F(tmo, periodic_fixed_delay)
{
	uint64_t period = 20 * MS, h, before, after;
	struct twheel_event ev;

	ASSERT_EQ(tw_arm_full(self->fd, 4, period, period,
			      TWHEEL_ARM_FIXED_DELAY, 0, &h), 0);
	sleep_ns(100 * MS);
	before = now_ns();
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	after = now_ns();
	EXPECT_EQ(ev.overrun, 0ULL);
	EXPECT_EQ(ev.flags, TWHEEL_EV_PERIODIC);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_GE(ev.deadline, before + period);
	EXPECT_LE(ev.deadline, after + period);
	EXPECT_GE(ev.expired, ev.deadline);
	EXPECT_EQ(ev.overrun, 0ULL);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

/* Nothing is re-armed while nobody reads: one record, however long. */
TEST_F(tmo, periodic_queues_one_record_at_most)
{
	struct twheel_event ev[8];
	uint64_t h;

	ASSERT_EQ(tw_arm_full(self->fd, 0, 0, self->info.tick_ns, 0, 0, &h), 0);
	sleep_ns(60 * MS);
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 1);
	ASSERT_EQ(tw_read(_metadata, self->fd, ev, 8), 1);
	EXPECT_GE(ev[0].overrun, 10ULL);
}

TEST_F(tmo, rearm_moves_the_deadline)
{
	uint64_t h = tw_arm(_metadata, self->fd, 6, 10 * SEC), t0, t1;
	struct twheel_event ev;

	t0 = now_ns();
	ASSERT_EQ(tw_rearm(self->fd, h, 20 * MS, 0), 0);
	t1 = now_ns();
	tw_read_one(_metadata, self->fd, &ev, 10000);
	check_oneshot(_metadata, &ev, h, 6, t0, t1, 20 * MS);
}

TEST_F(tmo, rearm_later_pushes_back)
{
	uint64_t h = tw_arm(_metadata, self->fd, 6, 200 * MS);
	struct twheel_event ev;
	int i;

	/* The idle-timeout pattern: keep pushing it back, it never fires. */
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(tw_rearm(self->fd, h, 200 * MS, 0), 0);
		sleep_ns(30 * MS);
	}
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.handle, h);
}

TEST_F(tmo, rearm_abs)
{
	uint64_t h = tw_arm(_metadata, self->fd, 6, 10 * SEC);
	uint64_t deadline = now_ns() + 15 * MS;
	struct twheel_event ev;

	ASSERT_EQ(tw_rearm(self->fd, h, deadline, TWHEEL_ARM_ABS), 0);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.deadline, deadline);
	EXPECT_GE(ev.expired, deadline);
}

/* A fired one-shot timeout is live until read: re-arming drops its record. */
TEST_F(tmo, rearm_drops_the_queued_record)
{
	uint64_t h = tw_arm(_metadata, self->fd, 6, 0), t0;
	struct twheel_event ev;

	ASSERT_TRUE(tw_wait_ready(self->fd, 2000));
	t0 = now_ns();
	ASSERT_EQ(tw_rearm(self->fd, h, 500 * MS, 0), 0);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 0);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.handle, h);
	EXPECT_GE(ev.deadline, t0 + 500 * MS);
}

TEST_F(tmo, rearm_keeps_the_period)
{
	uint64_t period = 10 * MS, h, deadline;
	struct twheel_event ev;

	ASSERT_EQ(tw_arm_full(self->fd, 0, 10 * SEC, period, 0, 0, &h), 0);
	deadline = now_ns() + 5 * MS;
	ASSERT_EQ(tw_rearm(self->fd, h, deadline, TWHEEL_ARM_ABS), 0);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.deadline, deadline);
	EXPECT_EQ(ev.flags, TWHEEL_EV_PERIODIC);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.deadline % period, deadline % period);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

TEST_F(tmo, cancel_pending_means_no_record)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 20 * MS);

	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	sleep_ns(60 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	EXPECT_EQ(tw_cancel(self->fd, h), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, h, MS, 0), -ENOENT);
}

/* The record is already queued: a successful cancel takes it back. */
TEST_F(tmo, cancel_after_expiry_before_read)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, MS), other;
	struct twheel_event ev;

	ASSERT_TRUE(tw_wait_ready(self->fd, 2000));
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 1);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 0);
	/* A later record is not the cancelled one. */
	other = tw_arm(_metadata, self->fd, 1, 0);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.handle, other);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

TEST_F(tmo, cancel_periodic_with_record_queued)
{
	uint64_t h;

	ASSERT_EQ(tw_arm_full(self->fd, 0, 0, self->info.tick_ns, 0, 0, &h), 0);
	ASSERT_TRUE(tw_wait_ready(self->fd, 2000));
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	sleep_ns(20 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

/* Many timeouts cancelled between expiry and read: not one record leaks. */
TEST_F(tmo, cancel_many_queued)
{
	uint64_t h[64];
	int i;

	for (i = 0; i < 64; i++)
		h[i] = tw_arm(_metadata, self->fd, i, 0);
	sleep_ns(30 * MS);
	for (i = 0; i < 64; i++)
		EXPECT_EQ(tw_cancel(self->fd, h[i]), 0);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

/* Handles of one file mean nothing to another. */
TEST_F(tmo, foreign_handle_enoent)
{
	int other = tw_open(_metadata);
	uint64_t h = tw_arm(_metadata, self->fd, 9, 20 * MS);
	struct twheel_event ev;

	tw_arm(_metadata, other, 0, 10 * SEC);
	EXPECT_EQ(tw_cancel(other, h), -ENOENT);
	EXPECT_EQ(tw_rearm(other, h, SEC, 0), -ENOENT);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.handle, h);
	EXPECT_TRUE(tw_nothing_ready(other));
	close(other);
}

/* Handles are never handed out twice, not even after their slot is free. */
TEST_F(tmo, handles_are_not_reused)
{
	uint64_t seen[512];
	int i, j;

	for (i = 0; i < 512; i++) {
		seen[i] = tw_arm(_metadata, self->fd, 0, 10 * SEC);
		ASSERT_EQ(tw_cancel(self->fd, seen[i]), 0);
	}
	for (i = 0; i < 512; i++)
		for (j = 0; j < i; j++) {
			ASSERT_NE(seen[i], seen[j]);
		}
}

/*
 * Arm @n timeouts in one batch; return the index of the first whose slot is
 * @slot, or -1. Then cancel them all in another batch.
 */
static int arm_cancel_round(struct __test_metadata *const _metadata, int fd,
			    struct twheel_op *ops, int n,
			    uint32_t slot, uint64_t *found)
{
	int i, hit = -1;

	for (i = 0; i < n; i++)
		ops[i] = (struct twheel_op){
			.op = TWHEEL_OP_ARM, .expires = 10 * SEC,
		};
	ASSERT_EQ(tw_batch(fd, ops, n, sizeof(*ops)), 0);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(ops[i].result, 0);
		if (hit < 0 && (uint32_t)ops[i].handle == slot) {
			hit = i;
			*found = ops[i].handle;
		}
		ops[i] = (struct twheel_op){
			.op = TWHEEL_OP_CANCEL, .handle = ops[i].handle,
		};
	}
	ASSERT_EQ(tw_batch(fd, ops, n, sizeof(*ops)), 0);
	return hit;
}

/*
 * Churn in batches until the first handle's slot is handed out again (slots
 * are reused lowest first, so this takes one round): the reuse comes with a
 * new generation and the old handle stays dead.
 */
TEST_F_TIMEOUT(tmo, reused_slot_gets_new_generation, 90)
{
	uint64_t slots = 4ULL * self->info.max_pending, done, first, h = 0;
	int n = self->info.max_batch, hit = -1;
	struct twheel_op *ops;

	if ((uint32_t)n > self->info.max_pending)
		n = self->info.max_pending;
	ops = calloc(n, sizeof(*ops));
	ASSERT_TRUE(ops != NULL);
	first = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	ASSERT_EQ(tw_cancel(self->fd, first), 0);
	for (done = 0; hit < 0 && done <= slots; done += n)
		hit = arm_cancel_round(_metadata, self->fd, ops, n,
				       (uint32_t)first, &h);
	ASSERT_GE(hit, 0);
	EXPECT_NE(h, first);
	EXPECT_EQ(tw_cancel(self->fd, first), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, first, SEC, 0), -ENOENT);
	free(ops);
}

/*
 * A dead timeout's memory and slot go to the next arm: the old handle stays
 * dead and never touches the new timeout, whether it died by cancel or by
 * having its record read.
 */
TEST_F(tmo, dead_handle_misses_the_timeout_reusing_its_slot)
{
	struct twheel_event ev;
	uint64_t old, h;

	old = tw_arm(_metadata, self->fd, 1, 10 * SEC);
	ASSERT_EQ(tw_cancel(self->fd, old), 0);
	h = tw_arm(_metadata, self->fd, 2, 20 * MS);
	EXPECT_EQ((uint32_t)h, (uint32_t)old);
	EXPECT_NE(h, old);
	EXPECT_EQ(tw_cancel(self->fd, old), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, old, MS, 0), -ENOENT);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(ev.cookie, 2ULL);

	/* h died when its record was read; its slot goes to the next arm. */
	old = h;
	h = tw_arm(_metadata, self->fd, 3, 20 * MS);
	EXPECT_EQ((uint32_t)h, (uint32_t)old);
	EXPECT_NE(h, old);
	EXPECT_EQ(tw_cancel(self->fd, old), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, old, 10 * SEC, 0), -ENOENT);
	tw_read_one(_metadata, self->fd, &ev, 10000);
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(ev.cookie, 3ULL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

/* A generation of 0 is never handed out: slot-only handles name nothing. */
TEST_F(tmo, handle_without_generation_enoent)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	ASSERT_EQ(tw_cancel(self->fd, h), 0);
	EXPECT_NE(h >> 32, 0ULL);
	EXPECT_EQ(tw_cancel(self->fd, (uint32_t)h), -ENOENT);
	EXPECT_EQ(tw_rearm(self->fd, (uint32_t)h, SEC, 0), -ENOENT);
	h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	EXPECT_EQ(tw_cancel(self->fd, (uint32_t)h), -ENOENT);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

/*
 * Two files that reuse the same slots over and over: a handle of one is
 * never a handle of the other, and never reaches the other's timeout.
 */
TEST_F(tmo, reused_slots_of_two_files_stay_apart)
{
	int other = tw_open(_metadata), i;
	uint64_t a, b;

	for (i = 0; i < 1000; i++) {
		a = tw_arm(_metadata, self->fd, 0, 10 * SEC);
		b = tw_arm(_metadata, other, 0, 10 * SEC);
		ASSERT_NE(a, b);
		ASSERT_EQ(tw_cancel(other, a), -ENOENT);
		ASSERT_EQ(tw_rearm(self->fd, b, SEC, 0), -ENOENT);
		ASSERT_EQ(tw_cancel(self->fd, a), 0);
		ASSERT_EQ(tw_cancel(other, b), 0);
	}
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
	EXPECT_EQ(tw_fdinfo(other, "pending"), 0);
	close(other);
}

TEST_HARNESS_MAIN
