// SPDX-License-Identifier: GPL-2.0
/*
 * batch_test.c - TWHEEL_IOC_BATCH: many operations in one call, applied in
 * order, each with its own result; bad arguments rejected as a whole with
 * nothing applied; arrays that cannot be read or written back (-EFAULT,
 * nothing applied); larger op_size from newer callers; the delays of a
 * batch counting from one reading of the clock.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

FIXTURE(batch) {
	int fd;
	struct twheel_info info;
};

FIXTURE_SETUP(batch)
{
	self->fd = tw_open(_metadata);
	tw_info(_metadata, self->fd, &self->info);
}

FIXTURE_TEARDOWN(batch)
{
	close(self->fd);
}

static struct twheel_op op_arm(uint64_t cookie, uint64_t expires)
{
	return (struct twheel_op){
		.op = TWHEEL_OP_ARM, .cookie = cookie, .expires = expires,
	};
}

static struct twheel_op op_rearm(uint64_t handle, uint64_t expires)
{
	return (struct twheel_op){
		.op = TWHEEL_OP_REARM, .handle = handle, .expires = expires,
	};
}

static struct twheel_op op_cancel(uint64_t handle)
{
	return (struct twheel_op){ .op = TWHEEL_OP_CANCEL, .handle = handle };
}

/* Batch of @n valid arms 10 s away; ASSERTs each succeeded. */
static void arm_many(struct __test_metadata *const _metadata, int fd,
		     struct twheel_op *ops, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		ops[i] = op_arm(i, 10 * SEC);
	ASSERT_EQ(tw_batch(fd, ops, n, sizeof(*ops)), 0);
	for (i = 0; i < n; i++) {
		ASSERT_EQ(ops[i].result, 0);
		ASSERT_NE(ops[i].handle, 0ULL);
	}
}

/* A whole batch of the largest size, then cancelled by another. */
TEST_F(batch, max_batch_arms_and_cancels)
{
	uint32_t n = self->info.max_batch, i;
	struct twheel_op *ops = calloc(n, sizeof(*ops));

	ASSERT_TRUE(ops != NULL);
	arm_many(_metadata, self->fd, ops, n);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), n);
	for (i = 1; i < n; i++) {
		ASSERT_NE(ops[i].handle, ops[i - 1].handle);
	}
	for (i = 0; i < n; i++)
		ops[i] = op_cancel(ops[i].handle);
	ASSERT_EQ(tw_batch(self->fd, ops, n, sizeof(*ops)), 0);
	for (i = 0; i < n; i++)
		EXPECT_EQ(ops[i].result, 0);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
	free(ops);
}

/* One bad entry does not hide the others; each gets its own errno. */
TEST_F(batch, mixed_good_and_bad_entries)
{
	uint64_t live = tw_arm(_metadata, self->fd, 100, 10 * SEC);
	uint64_t dead = tw_arm(_metadata, self->fd, 101, 10 * SEC);
	struct twheel_op ops[9];
	struct twheel_event ev[4];
	int n;

	ASSERT_EQ(tw_cancel(self->fd, dead), 0);
	ops[0] = op_arm(1, 20 * MS);
	ops[1] = op_arm(2, 20 * MS);
	ops[1].flags = 1U << 7;				/* unknown flag */
	ops[2] = op_cancel(dead);			/* stale handle */
	ops[3] = op_rearm(live, 20 * MS);
	ops[4] = op_arm(3, self->info.max_delay_ns + 1);	/* too far */
	ops[5] = (struct twheel_op){ .op = 77 };	/* unknown op */
	ops[6] = op_arm(4, 10 * SEC);
	ops[6].period = 1;				/* below a tick */
	ops[7] = op_arm(5, 40 * MS);
	ops[8] = op_rearm(0, MS);			/* no such handle */
	ASSERT_EQ(tw_batch(self->fd, ops, 9, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, 0);
	EXPECT_EQ(ops[1].result, -EINVAL);
	EXPECT_EQ(ops[2].result, -ENOENT);
	EXPECT_EQ(ops[3].result, 0);
	EXPECT_EQ(ops[4].result, -ERANGE);
	EXPECT_EQ(ops[5].result, -EINVAL);
	EXPECT_EQ(ops[6].result, -EINVAL);
	EXPECT_EQ(ops[7].result, 0);
	EXPECT_EQ(ops[8].result, -ENOENT);
	/* A failed arm reports handle 0. */
	EXPECT_EQ(ops[1].handle, 0ULL);
	EXPECT_EQ(ops[4].handle, 0ULL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 3);

	/* Exactly the three good ones fire: cookies 1, 100 (re-armed), 5. */
	sleep_ns(80 * MS);
	n = tw_read(_metadata, self->fd, ev, 4);
	ASSERT_EQ(n, 3);
	EXPECT_EQ(ev[0].cookie + ev[1].cookie + ev[2].cookie, 106ULL);
}

/* Operations apply in order: a cancel then a re-arm of the same handle. */
TEST_F(batch, applied_in_order)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct twheel_op ops[3] = {
		op_rearm(h, SEC), op_cancel(h), op_rearm(h, SEC),
	};

	ASSERT_EQ(tw_batch(self->fd, ops, 3, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, 0);
	EXPECT_EQ(ops[1].result, 0);
	EXPECT_EQ(ops[2].result, -ENOENT);
}

/*
 * The delays of one batch count from one reading of the clock, taken during
 * the call: equal delays give equal deadlines, none before the call began.
 */
TEST_F(batch, delays_count_from_one_clock_reading)
{
	struct twheel_event ev[16];
	struct twheel_op ops[16];
	uint64_t t0, t1, h;
	int i, n = 0;

	h = tw_arm(_metadata, self->fd, 99, 10 * SEC);
	for (i = 0; i < 15; i++)
		ops[i] = op_arm(i, 20 * MS);
	ops[15] = op_rearm(h, 20 * MS);
	t0 = now_ns();
	ASSERT_EQ(tw_batch(self->fd, ops, 16, sizeof(ops[0])), 0);
	t1 = now_ns();
	for (i = 0; i < 16; i++) {
		ASSERT_EQ(ops[i].result, 0);
	}
	while (n < 16) {
		ASSERT_TRUE(tw_wait_ready(self->fd, 10000));
		i = tw_read(_metadata, self->fd, ev + n, 16 - n);
		ASSERT_GT(i, 0);
		n += i;
	}
	for (i = 0; i < n; i++) {
		EXPECT_GE(ev[i].deadline, t0 + 20 * MS);
		EXPECT_LE(ev[i].deadline, t1 + 20 * MS);
		EXPECT_EQ(ev[i].deadline, ev[0].deadline);
		EXPECT_GE(ev[i].expired, ev[i].deadline);
	}
}

/*
 * Fields an operation does not use must be zero; a cancel's flags are
 * TWHEEL_CANCEL_FLAGS_ALL at most (an arm flag is not one of them).
 */
TEST_F(batch, unused_fields_einval)
{
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);
	struct twheel_op ops[6] = {
		op_rearm(h, SEC), op_rearm(h, SEC), op_rearm(h, SEC),
		op_cancel(h), op_cancel(h), op_cancel(h),
	};

	ops[0].cookie = 1;
	ops[1].period = SEC;
	ops[2].cpu = 1;
	ops[3].flags = TWHEEL_ARM_CPU;
	ops[4].expires = 1;
	ops[5].cookie = 1;
	ASSERT_EQ(tw_batch(self->fd, ops, 6, sizeof(ops[0])), 0);
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(ops[i].result, -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 1);
}

TEST_F(batch, count_zero_einval)
{
	struct twheel_op op = op_arm(0, SEC);

	EXPECT_EQ(tw_batch(self->fd, &op, 0, sizeof(op)), -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

TEST_F(batch, count_above_max_einval)
{
	uint32_t n = self->info.max_batch + 1, i;
	struct twheel_op *ops = calloc(n, sizeof(*ops));

	ASSERT_TRUE(ops != NULL);
	for (i = 0; i < n; i++)
		ops[i] = op_arm(i, SEC);
	EXPECT_EQ(tw_batch(self->fd, ops, n, sizeof(*ops)), -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
	free(ops);
}

TEST_F(batch, op_size_too_small_einval)
{
	struct twheel_op ops[2] = { op_arm(0, SEC), op_arm(1, SEC) };

	EXPECT_EQ(tw_batch(self->fd, ops, 2, sizeof(ops[0]) - 8), -EINVAL);
	EXPECT_EQ(tw_batch(self->fd, ops, 1, 0), -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

TEST_F(batch, op_size_too_large_einval)
{
	static char buf[8192];
	struct twheel_op op = op_arm(0, SEC);

	memcpy(buf, &op, sizeof(op));
	EXPECT_EQ(tw_batch(self->fd, buf, 1, 4096), -EINVAL);
	EXPECT_EQ(tw_batch(self->fd, buf, 1, UINT32_MAX), -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

/* A newer caller's larger operations: results land in the right place. */
TEST_F(batch, larger_op_size_with_zero_tail)
{
	struct big_op {
		struct twheel_op op;
		uint64_t future[2];
	} ops[3];
	int i;

	memset(ops, 0, sizeof(ops));
	for (i = 0; i < 3; i++)
		ops[i].op = op_arm(i, 10 * SEC);
	ops[1].future[1] = 5;		/* unknown and non-zero: that op only */
	ASSERT_EQ(tw_batch(self->fd, ops, 3, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].op.result, 0);
	EXPECT_EQ(ops[1].op.result, -E2BIG);
	EXPECT_EQ(ops[2].op.result, 0);
	EXPECT_NE(ops[0].op.handle, 0ULL);
	EXPECT_EQ(ops[1].op.handle, 0ULL);
	EXPECT_NE(ops[2].op.handle, 0ULL);
	EXPECT_EQ(ops[1].future[1], 5ULL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
}

/* op_size need not be a multiple of 8. */
TEST_F(batch, unaligned_op_size)
{
	const uint32_t size = sizeof(struct twheel_op) + 3;
	char buf[3 * (sizeof(struct twheel_op) + 3)];
	struct twheel_op op;
	int i;

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < 3; i++) {
		op = op_arm(i, 10 * SEC);
		memcpy(buf + i * size, &op, sizeof(op));
	}
	ASSERT_EQ(tw_batch(self->fd, buf, 3, size), 0);
	for (i = 0; i < 3; i++) {
		memcpy(&op, buf + i * size, sizeof(op));
		EXPECT_EQ(op.result, 0);
		EXPECT_NE(op.handle, 0ULL);
	}
}

TEST_F(batch, flags_einval)
{
	struct twheel_op op = op_arm(0, SEC);
	struct twheel_batch b = {
		.ops = (uintptr_t)&op, .count = 1, .op_size = sizeof(op),
		.flags = 1,
	};

	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_BATCH, &b), -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

TEST_F(batch, reserved_einval)
{
	struct twheel_op op = op_arm(0, SEC);
	struct twheel_batch b = {
		.ops = (uintptr_t)&op, .count = 1, .op_size = sizeof(op),
		.reserved = 1,
	};

	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_BATCH, &b), -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

TEST_F(batch, struct_size_below_ver0_einval)
{
	struct twheel_op op = op_arm(0, SEC);
	struct twheel_batch b = {
		.ops = (uintptr_t)&op, .count = 1, .op_size = sizeof(op),
	};

	EXPECT_EQ(tw_ioctl(self->fd, _IOC(_IOC_WRITE, TWHEEL_IOC_MAGIC, 4, 16),
			   &b), -EINVAL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

TEST_F(batch, struct_newer_nonzero_tail_e2big)
{
	struct twheel_op op = op_arm(0, SEC);
	struct {
		struct twheel_batch b;
		uint64_t future;
	} big = {
		.b = { .ops = (uintptr_t)&op, .count = 1, .op_size = sizeof(op) },
		.future = 1,
	};

	EXPECT_EQ(tw_ioctl(self->fd, _IOW(TWHEEL_IOC_MAGIC, 4, big), &big),
		  -E2BIG);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

TEST_F(batch, bad_struct_pointer_efault)
{
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_BATCH, NULL), -EFAULT);
	EXPECT_EQ(tw_ioctl(self->fd, TWHEEL_IOC_BATCH,
			   tw_guard_pages(_metadata, PROT_NONE) - 8), -EFAULT);
}

TEST_F(batch, bad_array_pointer_efault)
{
	EXPECT_EQ(tw_batch(self->fd, NULL, 1, sizeof(struct twheel_op)),
		  -EFAULT);
	EXPECT_EQ(tw_batch(self->fd, (void *)16, 4, sizeof(struct twheel_op)),
		  -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 0);
}

/*
 * The array runs into an unmapped page: -EFAULT and nothing applied, not
 * even the operations that lie in the mapped part.
 */
TEST_F(batch, partly_unmapped_array_efault_applies_nothing)
{
	char *edge = tw_guard_pages(_metadata, PROT_NONE);
	struct twheel_op *ops = (struct twheel_op *)edge - 2;
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	ops[0] = op_cancel(h);
	ops[1] = op_arm(1, 0);
	EXPECT_EQ(tw_batch(self->fd, ops, 3, sizeof(*ops)), -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 1);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	sleep_ns(20 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

/* Readable but not writable: the results could not go back, so -EFAULT first. */
TEST_F(batch, readonly_array_efault_applies_nothing)
{
	char *page = tw_guard_pages(_metadata, PROT_NONE) -
		     sysconf(_SC_PAGESIZE);
	struct twheel_op *ops = (struct twheel_op *)page;
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	ops[0] = op_cancel(h);
	ops[1] = op_arm(1, 0);
	ASSERT_EQ(mprotect(page, sysconf(_SC_PAGESIZE), PROT_READ), 0);
	EXPECT_EQ(tw_batch(self->fd, ops, 2, sizeof(*ops)), -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 1);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
	sleep_ns(20 * MS);
	EXPECT_TRUE(tw_nothing_ready(self->fd));
}

/*
 * Writable where it starts, read-only where it ends: every page the array
 * spans is proved writable before anything is applied.
 */
TEST_F(batch, array_into_readonly_page_efault_applies_nothing)
{
	char *edge = tw_guard_pages(_metadata, PROT_READ);
	struct twheel_op *ops = (struct twheel_op *)edge - 1;
	uint64_t h = tw_arm(_metadata, self->fd, 0, 10 * SEC);

	ops[0] = op_cancel(h);
	EXPECT_EQ(tw_batch(self->fd, ops, 2, sizeof(*ops)), -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 1);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

/*
 * An array across a page boundary, one operation split by it: every result
 * and handle comes back, and the fields the kernel does not set are as the
 * caller left them.
 */
TEST_F(batch, array_across_pages_results)
{
	char *edge = tw_guard_pages(_metadata, PROT_READ | PROT_WRITE);
	struct twheel_op *ops = (struct twheel_op *)(edge - sizeof(*ops) - 24);
	int i;

	ops[0] = op_arm(7, 10 * SEC);
	ops[1] = op_arm(8, 10 * SEC);
	ops[2] = op_cancel(1);	/* no handle has an upper half of 0 */
	ASSERT_EQ(tw_batch(self->fd, ops, 3, sizeof(*ops)), 0);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(ops[i].result, 0);
		EXPECT_NE(ops[i].handle, 0ULL);
		EXPECT_EQ(ops[i].op, (__u32)TWHEEL_OP_ARM);
		EXPECT_EQ(ops[i].cookie, 7ULL + i);
		EXPECT_EQ(ops[i].expires, 10 * SEC);
	}
	EXPECT_EQ(ops[2].result, -ENOENT);
	EXPECT_EQ(ops[2].op, (__u32)TWHEEL_OP_CANCEL);
	EXPECT_EQ(ops[2].handle, 1ULL);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
	EXPECT_EQ(tw_cancel(self->fd, ops[0].handle), 0);
	EXPECT_EQ(tw_cancel(self->fd, ops[1].handle), 0);
}

/* Cancelled or fired handles inside a batch are stale like anywhere else. */
TEST_F(batch, stale_handles_enoent)
{
	uint64_t fired = tw_arm(_metadata, self->fd, 0, 0);
	struct twheel_event ev;
	struct twheel_op ops[2];

	ASSERT_TRUE(tw_wait_ready(self->fd, 2000));
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	ops[0] = op_cancel(fired);
	ops[1] = op_rearm(fired, SEC);
	ASSERT_EQ(tw_batch(self->fd, ops, 2, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, -ENOENT);
	EXPECT_EQ(ops[1].result, -ENOENT);
}

struct flipper {
	char *page;
	long pgsz;
	volatile int stop;
};

static void *flip_protection(void *arg)
{
	struct flipper *f = arg;

	while (!f->stop) {
		mprotect(f->page, f->pgsz, PROT_READ);
		mprotect(f->page, f->pgsz, PROT_READ | PROT_WRITE);
	}
	return NULL;
}

/*
 * Another thread flips the array between read-only and read-write while
 * batches run. The kernel writes only @handle and @result, which arms do not
 * read, so the same array serves every call. Each call returns 0 or -EFAULT;
 * a fault after the operations were applied (documented) leaves them armed,
 * so at least the timeouts of the calls that returned 0 are live.
 * Up to 200 batches of a page of arms each, 17,000 timeouts: arming them and
 * freeing them on close took over the default 30 s on a debug PREEMPT_RT
 * kernel under TCG. The limit is for a hang, not for speed.
 */
TEST_F_TIMEOUT(batch, racing_protection_changes, 120)
{
	long pgsz = sysconf(_SC_PAGESIZE);
	struct flipper f = { .pgsz = pgsz };
	uint32_t n = pgsz / sizeof(struct twheel_op), i;
	struct twheel_op *ops;
	int round, ret, ok = 0;
	pthread_t thr;

	f.page = mmap(NULL, pgsz, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(f.page != MAP_FAILED);
	ops = (struct twheel_op *)f.page;
	for (i = 0; i < n; i++)
		ops[i] = op_arm(i, 10 * SEC);
	ASSERT_EQ(pthread_create(&thr, NULL, flip_protection, &f), 0);
	for (round = 0; round < 200; round++) {
		ret = tw_batch(self->fd, ops, n, sizeof(*ops));
		if (ret == 0)
			ok++;
		else
			EXPECT_EQ(ret, -EFAULT);
	}
	f.stop = 1;
	pthread_join(thr, NULL);
	TH_LOG("%d of 200 batches went through", ok);
	EXPECT_GE(tw_fdinfo(self->fd, "pending"), (long long)ok * n);
}

TEST_HARNESS_MAIN
