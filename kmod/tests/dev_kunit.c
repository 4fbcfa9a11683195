// SPDX-License-Identifier: GPL-2.0
/*
 * dev_kunit.c - KUnit suite of the device layer's internals
 *	(twheel_dev_kunit.ko)
 *
 * twheel_dev: what userspace cannot reach in reasonable time or see: a
 * slot that runs out of generations is retired and no handle repeats, a hot
 * slot given back does not make other slots retire early, a periodic
 * timeout whose next deadline is past the clock's range stops with
 * TWHEEL_EV_STOPPED, and a periodic arm that takes a dead one-shot timeout
 * moves its slot to a timeout with room for the period. Files are made with
 * twdev_file_new() and driven with checked requests, as dev_ioctl.c does;
 * only the test thread touches them.
 */
#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/timekeeping.h>
#include <linux/xarray.h>

#include "../compat.h"
#include "../dev.h"

static void file_free_action(void *tf)
{
	twdev_file_free(tf);
}

static struct twdev_file *new_file(struct kunit *test)
{
	struct twdev_file *tf = twdev_file_new();

	KUNIT_ASSERT_NOT_NULL(test, tf);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, file_free_action,
							tf), 0);
	return tf;
}

/*
 * Arm a timeout an hour away, one-shot or with @period; returns its
 * handle.
 */
static u64 arm_far_every(struct kunit *test, struct twdev_file *tf,
			 u64 period)
{
	u64 now = ktime_get_ns(), handle = 0;
	struct twdev_req req = {
		.op = TWHEEL_OP_ARM,
		.deadline = now + 3600 * NSEC_PER_SEC,
		.period = period,
		.mono_now = now,
		.now = now,
		.clock = TW_CLOCK_MONO,
		.cpu = TWHEEL_CPU_LOCAL,
	};

	mutex_lock(&tf->lock);
	KUNIT_EXPECT_EQ(test, twdev_arm(tf, &req, &handle), 0);
	mutex_unlock(&tf->lock);
	return handle;
}

static u64 arm_far(struct kunit *test, struct twdev_file *tf)
{
	return arm_far_every(test, tf, 0);
}

/* The period GET reports for @handle, which must be live. */
static u64 period_of(struct kunit *test, struct twdev_file *tf, u64 handle)
{
	struct twheel_get get;

	mutex_lock(&tf->lock);
	KUNIT_EXPECT_EQ(test, twdev_query(tf, handle, ktime_get_ns(), &get), 0);
	mutex_unlock(&tf->lock);
	return get.period;
}

static int cancel(struct twdev_file *tf, u64 handle)
{
	int ret;

	mutex_lock(&tf->lock);
	ret = twdev_cancel(tf, handle, 0);
	mutex_unlock(&tf->lock);
	return ret;
}

/*
 * A slot near the end of its generations: its last handles are all
 * different, then it is retired and the next arm takes a new slot; no old
 * handle reaches anything.
 */
static void dev_slot_retires_when_generations_run_out(struct kunit *test)
{
	struct twdev_file *tf = new_file(test);
	struct twdev_timeout *tdt;
	u64 seen[8];
	unsigned int i, j;

	seen[0] = arm_far(test, tf);
	tdt = xa_load(&tf->timeouts, lower_32_bits(seen[0]));
	KUNIT_ASSERT_NOT_NULL(test, tdt);
	KUNIT_ASSERT_EQ(test, cancel(tf, seen[0]), 0);
	/* As if the slot had been armed and cancelled 2^32 - 6 times. */
	tdt->gen = TWDEV_GEN_LAST - 4;
	for (i = 1; i < ARRAY_SIZE(seen); i++) {
		seen[i] = arm_far(test, tf);
		KUNIT_EXPECT_NE(test, upper_32_bits(seen[i]), 0U);
		KUNIT_EXPECT_EQ(test, cancel(tf, seen[i]), 0);
	}
	for (i = 0; i < ARRAY_SIZE(seen); i++)
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, seen[i], seen[j]);
	/* The first slot served until it retired; then slot 2 took over. */
	KUNIT_EXPECT_EQ(test, lower_32_bits(seen[1]), lower_32_bits(seen[0]));
	KUNIT_EXPECT_EQ(test, lower_32_bits(seen[7]), lower_32_bits(seen[0]) + 1);
	KUNIT_EXPECT_GE(test, tdt->gen, (u32)TWDEV_GEN_LAST);
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&tf->timeouts,
					  lower_32_bits(seen[0])),
			    (void *)tdt);
	for (i = 0; i < ARRAY_SIZE(seen); i++)
		KUNIT_EXPECT_EQ(test, cancel(tf, seen[i]), -ENOENT);
	KUNIT_EXPECT_EQ(test, tf->nr_live, 0U);
}

/* Two files hand out different handles for the same slot use. */
static void dev_files_have_their_own_handles(struct kunit *test)
{
	struct twdev_file *a = new_file(test), *b = new_file(test);
	u64 ha = arm_far(test, a), hb = arm_far(test, b);

	KUNIT_EXPECT_EQ(test, lower_32_bits(ha), lower_32_bits(hb));
	if (a->key != b->key)
		KUNIT_EXPECT_NE(test, ha, hb);
	KUNIT_EXPECT_EQ(test, cancel(a, ha), 0);
	KUNIT_EXPECT_EQ(test, cancel(b, hb), 0);
}

/*
 * A periodic timeout whose next deadline would pass the clock's range ends
 * with TWHEEL_EV_STOPPED; one that fits goes on.
 */
static void dev_periodic_stops_at_clock_end(struct kunit *test)
{
	struct twdev_periodic tp = {
		.t = {
			.tf = new_file(test),
			.deadline = 1000,
			.flags = TWDEV_PERIODIC,
		},
		.period = NSEC_PER_SEC,
	};
	struct twdev_timeout *tdt = &tp.t;
	struct twdev_record rec;

	twdev_fill_record(tdt, 1000, 2000, &rec);
	KUNIT_EXPECT_EQ(test, rec.ev.flags, TWHEEL_EV_PERIODIC);
	KUNIT_EXPECT_EQ(test, rec.next, 1000 + NSEC_PER_SEC);

	tdt->deadline = KTIME_MAX - 10;
	twdev_fill_record(tdt, KTIME_MAX - 5, KTIME_MAX - 5, &rec);
	KUNIT_EXPECT_EQ(test, rec.ev.flags,
			TWHEEL_EV_PERIODIC | TWHEEL_EV_STOPPED);

	tdt->flags |= TWHEEL_ARM_FIXED_DELAY;
	twdev_fill_record(tdt, KTIME_MAX - 5, KTIME_MAX - 5, &rec);
	KUNIT_EXPECT_EQ(test, rec.ev.flags,
			TWHEEL_EV_PERIODIC | TWHEEL_EV_STOPPED);
}

/*
 * A dead one-shot timeout taken by a periodic arm gives its slot to one with
 * room for the period: same slot, next generation, the old handle dead.
 * That one then serves a one-shot arm as it is, with no period. (A charge
 * to the user that moved wrong would show when the file is freed: a user
 * record goes with a count of 0 or it warns.)
 */
static void dev_periodic_arm_moves_the_slot(struct kunit *test)
{
	struct twdev_file *tf = new_file(test);
	struct twdev_timeout *tdt;
	u64 one, every, again;

	one = arm_far(test, tf);
	KUNIT_ASSERT_EQ(test, cancel(tf, one), 0);
	tdt = xa_load(&tf->timeouts, lower_32_bits(one));
	KUNIT_ASSERT_NOT_NULL(test, tdt);
	KUNIT_EXPECT_FALSE(test, tdt->flags & TWDEV_PERIODIC);

	every = arm_far_every(test, tf, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, lower_32_bits(every), lower_32_bits(one));
	KUNIT_EXPECT_NE(test, every, one);
	tdt = xa_load(&tf->timeouts, lower_32_bits(every));
	KUNIT_ASSERT_NOT_NULL(test, tdt);
	KUNIT_EXPECT_TRUE(test, tdt->flags & TWDEV_PERIODIC);
	KUNIT_EXPECT_EQ(test, period_of(test, tf, every), NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, tf->nr_free, 0U);
	KUNIT_EXPECT_EQ(test, cancel(tf, one), -ENOENT);
	KUNIT_ASSERT_EQ(test, cancel(tf, every), 0);

	again = arm_far(test, tf);
	KUNIT_EXPECT_EQ(test, lower_32_bits(again), lower_32_bits(one));
	KUNIT_EXPECT_PTR_EQ(test, xa_load(&tf->timeouts, lower_32_bits(again)),
			    (void *)tdt);
	KUNIT_EXPECT_EQ(test, period_of(test, tf, again), 0ULL);
	KUNIT_EXPECT_EQ(test, cancel(tf, again), 0);
}

/*
 * More dead timeouts than the file keeps: the rest are freed and their
 * slots given back, then taken again by new timeouts. Not one of the new
 * handles is an old one, so a stale handle kept by a program cannot reach
 * a timeout that took its slot.
 */
static void dev_given_back_slots_get_new_handles(struct kunit *test)
{
	const unsigned int n = TWDEV_FREE_MAX + 64;
	struct twdev_file *tf = new_file(test);
	u64 *old = kunit_kcalloc(test, n, sizeof(*old), GFP_KERNEL);
	unsigned int i, j;
	u64 h;

	KUNIT_ASSERT_NOT_NULL(test, old);
	for (i = 0; i < n; i++)
		old[i] = arm_far(test, tf);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, cancel(tf, old[i]), 0);
	KUNIT_EXPECT_EQ(test, tf->nr_free, TWDEV_FREE_MAX);
	for (i = 0; i < n; i++) {
		h = arm_far(test, tf);
		for (j = 0; j < n; j++)
			KUNIT_ASSERT_NE_MSG(test, h, old[j],
					    "handle %#llx handed out twice", h);
	}
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, cancel(tf, old[i]), -ENOENT);
}

/*
 * A slot near the end of its generations given back, then bursts larger
 * than the free list, all cancelled: the hot slot serves until it retires,
 * once; no other slot starts from its generations, so none retires after a
 * use or two and keeps its timeout (the file would then hold more and more
 * dead timeouts until the per-user limit stopped every arm). Held timeouts:
 * the free list's, plus that one retired slot's.
 */
static void dev_hot_slot_given_back_no_ratchet(struct kunit *test)
{
	const unsigned int n = TWDEV_FREE_MAX + 2;
	struct twdev_file *tf = new_file(test);
	u64 *h = kunit_kcalloc(test, n, sizeof(*h), GFP_KERNEL);
	unsigned int i, round, held = 0, spare = 0;
	struct twdev_timeout *tdt;
	unsigned long slot;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (i = 0; i <= TWDEV_FREE_MAX; i++)
		h[i] = arm_far(test, tf);
	tdt = xa_load(&tf->timeouts, lower_32_bits(h[0]));
	KUNIT_ASSERT_NOT_NULL(test, tdt);
	tdt->gen = TWDEV_GEN_LAST - 2;
	/* The free list fills up; then h[0]'s slot is given back. */
	for (i = 1; i <= TWDEV_FREE_MAX; i++)
		KUNIT_ASSERT_EQ(test, cancel(tf, h[i]), 0);
	KUNIT_ASSERT_EQ(test, cancel(tf, h[0]), 0);
	for (round = 0; round < 4; round++) {
		for (i = 0; i < n; i++)
			h[i] = arm_far(test, tf);
		for (i = 0; i < n; i++)
			KUNIT_ASSERT_EQ(test, cancel(tf, h[i]), 0);
	}
	xa_for_each(&tf->timeouts, slot, tdt) {
		if (xa_is_value(tdt))
			spare++;
		else
			held++;
	}
	kunit_info(test, "%u timeouts held (%u on the free list), %u spare slots\n",
		   held, tf->nr_free, spare);
	KUNIT_EXPECT_EQ(test, tf->nr_free, TWDEV_FREE_MAX);
	KUNIT_EXPECT_LE(test, held, tf->nr_free + 1);
}

/*
 * Absolute times in a time namespace: the kernel's time is the namespace's
 * minus its offset, a time before the offset has passed (0), and nothing
 * wraps at either end of the range.
 */
static void dev_time_namespace_offsets(struct kunit *test)
{
	struct twdev_file *tf = new_file(test);
	const s64 mono = 1000 * NSEC_PER_SEC, boot = -(s64)NSEC_PER_SEC;

	tf->ns_off[TW_CLOCK_MONO] = mono;
	tf->ns_off[TW_CLOCK_BOOT] = boot;
	KUNIT_EXPECT_EQ(test, twdev_from_user_time(tf, TW_CLOCK_MONO, mono + 5),
			5ULL);
	KUNIT_EXPECT_EQ(test, twdev_to_user_time(tf, TW_CLOCK_MONO, 5),
			(u64)mono + 5);
	KUNIT_EXPECT_EQ(test, twdev_from_user_time(tf, TW_CLOCK_MONO, 7), 0ULL);
	KUNIT_EXPECT_EQ(test, twdev_from_user_time(tf, TW_CLOCK_BOOT, 7),
			NSEC_PER_SEC + 7);
	KUNIT_EXPECT_EQ(test, twdev_to_user_time(tf, TW_CLOCK_BOOT, 7), 0ULL);
	KUNIT_EXPECT_EQ(test, twdev_to_user_time(tf, TW_CLOCK_MONO, KTIME_MAX),
			(u64)KTIME_MAX);
	KUNIT_EXPECT_EQ(test,
			twdev_from_user_time(tf, TW_CLOCK_BOOT, KTIME_MAX),
			(u64)KTIME_MAX);
	KUNIT_EXPECT_EQ(test,
			twdev_to_user_time(tf, TW_CLOCK_BOOT,
					   twdev_from_user_time(tf, TW_CLOCK_BOOT,
								123456789)),
			123456789ULL);
}

static struct kunit_case dev_cases[] = {
	KUNIT_CASE(dev_slot_retires_when_generations_run_out),
	KUNIT_CASE(dev_files_have_their_own_handles),
	KUNIT_CASE(dev_periodic_stops_at_clock_end),
	KUNIT_CASE(dev_periodic_arm_moves_the_slot),
	KUNIT_CASE(dev_time_namespace_offsets),
	KUNIT_CASE(dev_given_back_slots_get_new_handles),
	KUNIT_CASE(dev_hot_slot_given_back_no_ratchet),
	{}
};

static struct kunit_suite dev_suite = {
	.name = "twheel_dev",
	.test_cases = dev_cases,
};

kunit_test_suites(&dev_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit suite of the twheel device layer");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
