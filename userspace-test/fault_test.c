// SPDX-License-Identifier: GPL-2.0
/*
 * fault_test.c - every ioctl and read() of /dev/twheel under injected
 * faults: the n-th allocation or user copy of the call fails, for n = 1, 2,
 * ... until the call gets through without a fault. Each faulted call must
 * return only a documented errno (ENOMEM, EFAULT) and leave the file as it
 * was (fdinfo counts, live handles, queued records); the guest's kmemleak
 * scan then finds nothing left behind.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, FAILSLAB and
 * FAULT_INJECTION_USERCOPY (the debug kernels), debugfs and root: the
 * tests SKIP elsewhere.
 */
#include <stdlib.h>

#include "twheel_util.h"

#define FAILSLAB_WAIT	"/sys/kernel/debug/failslab/ignore-gfp-wait"
#define FAILPAGE_WAIT	"/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait"
#define FAIL_NTH	"/proc/thread-self/fail-nth"
/* Fault points tried per call before giving up: far more than any uses. */
#define MAX_NTH		400

static int write_str(const char *path, const char *v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(v, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 * Arm the n-th fault point of this thread. The write copies its argument
 * in before it arms, so it is no fault point of its own count.
 */
static int fail_nth_set(int fd, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(fd, buf, len, 0) == len ? 0 : -1;
}

/*
 * Was the armed fault injected by the call just made, and disarm. Reading
 * the counter is a user copy, a fault point itself: if the call left the
 * count at 1, this read takes the fault (and fails); at 0 it reads "0".
 * Writing 0 disarms whatever is left (its own copy may take the last
 * fault: the count is 0 either way).
 */
static int fail_nth_hit_disarm(int fd)
{
	char buf[16] = { 0 };
	int hit = pread(fd, buf, sizeof(buf) - 1, 0) > 0 && atoi(buf) == 0;

	fail_nth_set(fd, 0);
	return hit;
}

/* Fault injection reports every fault with a stack trace: not a splat. */
static void quiet(const char *attr)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s/verbose", attr);
	write_str(path, "0");
}

/* What a call may change: the counts of the file's fdinfo. */
struct snap {
	long long pending, queued, user;
};

static void snap(int fd, struct snap *s)
{
	s->pending = tw_fdinfo(fd, "pending");
	s->queued = tw_fdinfo(fd, "queued");
	s->user = tw_fdinfo(fd, "user_timeouts");
}

FIXTURE(fault) {
	int fd, nth;
	uint64_t armed, fired;
};

FIXTURE_SETUP(fault)
{
	self->nth = open(FAIL_NTH, O_RDWR);
	if (self->nth < 0 || geteuid() != 0 ||
	    write_str(FAILSLAB_WAIT, "N") || write_str(FAILPAGE_WAIT, "N"))
		SKIP(return, "no fault injection (fail-nth, failslab) here");
	quiet("failslab");
	quiet("fail_page_alloc");
	quiet("fail_usercopy");
	self->fd = tw_open(_metadata);
	/* One armed timeout, and one fired with its record queued. */
	self->armed = tw_arm(_metadata, self->fd, 1, 60 * SEC);
	self->fired = tw_arm(_metadata, self->fd, 2, MS);
	ASSERT_TRUE(tw_wait_ready(self->fd, 5000));
	/* Nothing may block: a faulted call that consumed more than it
	 * should would otherwise hang the next one.
	 */
	ASSERT_EQ(fcntl(self->fd, F_SETFL, O_NONBLOCK), 0);
}

FIXTURE_TEARDOWN(fault)
{
	if (self->nth >= 0) {
		fail_nth_hit_disarm(self->nth);
		close(self->nth);
	}
	write_str(FAILSLAB_WAIT, "Y");
	write_str(FAILPAGE_WAIT, "Y");
	if (self->fd > 0)
		close(self->fd);
}

/*
 * Run @call with the n-th fault point failing, n = 1, 2, ...; every faulted
 * run must fail with one of @ok1/@ok2 and change nothing; stop at the first
 * run that injects no fault, which must succeed. @undo runs after each call,
 * disarmed, to put back what a successful call changed. Returns how many
 * faults were injected.
 */
#define FAULT_LOOP_UNDO(call, ok1, ok2, undo)				\
({									\
	struct snap before, after;					\
	int n, ret, hit, faults = 0;					\
									\
	for (n = 1; n <= MAX_NTH; n++) {				\
		snap(self->fd, &before);				\
		ASSERT_EQ(fail_nth_set(self->nth, n), 0);		\
		ret = (call);						\
		hit = fail_nth_hit_disarm(self->nth);			\
		undo;							\
		if (!hit) {						\
			ASSERT_GE(ret, 0) {				\
				TH_LOG("no fault injected, still %d", ret); \
			}						\
			break;						\
		}							\
		faults++;						\
		if (ret >= 0)						\
			continue;					\
		EXPECT_TRUE(ret == (ok1) || ret == (ok2)) {		\
			TH_LOG("fault %d: errno %d", n, -ret);		\
		}							\
		snap(self->fd, &after);					\
		EXPECT_EQ(after.pending, before.pending);		\
		EXPECT_EQ(after.queued, before.queued);			\
		EXPECT_LE(after.user, before.user + 1);			\
	}								\
	ASSERT_LE(n, MAX_NTH);						\
	faults;								\
})

#define FAULT_LOOP(call, ok1, ok2)	FAULT_LOOP_UNDO(call, ok1, ok2, (void)0)

static int arm_one(int fd, uint64_t *h)
{
	return tw_arm_full(fd, 9, 60 * SEC, 0, 0, 0, h);
}

TEST_F(fault, arm)
{
	uint64_t h = 0;
	int faults = FAULT_LOOP(arm_one(self->fd, &h), -ENOMEM, -EFAULT);

	TH_LOG("%d faults injected", faults);
	EXPECT_GT(faults, 0);
	EXPECT_NE(h, 0ULL);
	EXPECT_EQ(tw_cancel(self->fd, h), 0);
}

TEST_F(fault, rearm_armed_and_fired)
{
	FAULT_LOOP(tw_rearm(self->fd, self->armed, 30 * SEC, 0), -ENOMEM,
		   -EFAULT);
	FAULT_LOOP(tw_rearm(self->fd, self->fired, 30 * SEC, 0), -ENOMEM,
		   -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
}

TEST_F(fault, cancel)
{
	FAULT_LOOP(tw_cancel(self->fd, self->fired), -ENOMEM, -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 0);
	EXPECT_EQ(tw_cancel(self->fd, self->fired), -ENOENT);
}

static struct twheel_op ops[4];

static int batch_mixed(int fd, uint64_t armed)
{
	ops[0] = (struct twheel_op){
		.op = TWHEEL_OP_ARM, .expires = 60 * SEC, .cookie = 5 };
	ops[1] = (struct twheel_op){
		.op = TWHEEL_OP_REARM, .handle = armed, .expires = 40 * SEC };
	ops[2] = (struct twheel_op){ .op = TWHEEL_OP_GET, .handle = armed };
	ops[3] = (struct twheel_op){
		.op = TWHEEL_OP_ARM, .expires = 60 * SEC, .cookie = 6 };
	return tw_batch(fd, ops, 4, sizeof(ops[0]));
}

/* Applied: cancel the arms so that the next round starts the same. */
static int batch_undo(int fd)
{
	int i, bad = 0;

	for (i = 0; i < 4; i += 3)
		if (!ops[i].result && ops[i].handle &&
		    tw_cancel(fd, ops[i].handle))
			bad++;
	memset(ops, 0, sizeof(ops));
	return bad;
}

TEST_F(fault, batch)
{
	int bad = 0;
	int faults = FAULT_LOOP_UNDO(batch_mixed(self->fd, self->armed),
				     -ENOMEM, -EFAULT,
				     bad += batch_undo(self->fd));

	EXPECT_EQ(bad, 0);

	EXPECT_GT(faults, 0);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
}

/*
 * The same with a stride that is not a multiple of 8 (52 bytes, the tail
 * zero) over more than the 192 bytes a batch copies to the stack: the
 * module then allocates its copy and writes the results back with
 * copy_to_user(), both places a fault can be injected (an aligned array's
 * results go back with unsafe_put_user(), which fault injection does not
 * fail), and a faulted copy-back must undo the arms.
 */
#define ODD_STRIDE	52
#define ODD_OPS		5
static unsigned char odd_ops[ODD_OPS * ODD_STRIDE];

static int batch_odd_stride(int fd, uint64_t armed)
{
	const struct twheel_op o[ODD_OPS] = {
		{ .op = TWHEEL_OP_ARM, .expires = 60 * SEC, .cookie = 7 },
		{ .op = TWHEEL_OP_REARM, .handle = armed, .expires = 40 * SEC },
		{ .op = TWHEEL_OP_GET, .handle = armed },
		{ .op = TWHEEL_OP_ARM, .expires = 60 * SEC, .cookie = 8 },
		{ .op = TWHEEL_OP_ARM, .expires = 60 * SEC, .cookie = 9 },
	};
	int i;

	memset(odd_ops, 0, sizeof(odd_ops));
	for (i = 0; i < ODD_OPS; i++)
		memcpy(odd_ops + i * ODD_STRIDE, &o[i], sizeof(o[i]));
	return tw_batch(fd, odd_ops, ODD_OPS, ODD_STRIDE);
}

/* Applied: cancel the arms (ops 0, 3 and 4). */
static int batch_odd_undo(int fd)
{
	struct twheel_op op;
	int i, bad = 0;

	for (i = 0; i < ODD_OPS; i++) {
		memcpy(&op, odd_ops + i * ODD_STRIDE, sizeof(op));
		if (op.op == TWHEEL_OP_ARM && !op.result && op.handle &&
		    tw_cancel(fd, op.handle))
			bad++;
	}
	memset(odd_ops, 0, sizeof(odd_ops));
	return bad;
}

TEST_F(fault, batch_odd_stride)
{
	int bad = 0;
	int faults = FAULT_LOOP_UNDO(batch_odd_stride(self->fd, self->armed),
				     -ENOMEM, -EFAULT,
				     bad += batch_odd_undo(self->fd));

	TH_LOG("%d faults injected", faults);
	EXPECT_EQ(bad, 0);
	EXPECT_GT(faults, 2);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
}

static int get_one(int fd, uint64_t h)
{
	struct twheel_get g = { .handle = h };

	return tw_ioctl(fd, TWHEEL_IOC_GET, &g);
}

static int stats(int fd)
{
	struct twheel_stats st;

	return tw_ioctl(fd, TWHEEL_IOC_STATS, &st);
}

static int info(int fd)
{
	struct twheel_info i;

	return tw_ioctl(fd, TWHEEL_IOC_INFO, &i);
}

static int drain_all(int fd)
{
	struct twheel_get e[8];
	struct twheel_drain d = {
		.entries = (uintptr_t)e, .count = 8, .entry_size = sizeof(e[0]),
	};
	int ret = tw_ioctl(fd, TWHEEL_IOC_DRAIN, &d);

	return ret ? ret : (d.filled == 2 ? 0 : -EIO);
}

TEST_F(fault, get_stats_info_drain)
{
	FAULT_LOOP(get_one(self->fd, self->armed), -ENOMEM, -EFAULT);
	FAULT_LOOP(stats(self->fd), -ENOMEM, -EFAULT);
	FAULT_LOOP(info(self->fd), -ENOMEM, -EFAULT);
	FAULT_LOOP(drain_all(self->fd), -ENOMEM, -EFAULT);
	EXPECT_EQ(tw_fdinfo(self->fd, "pending"), 2);
}

/* A faulted read keeps its record: the next read gets it. */
TEST_F(fault, read_keeps_the_record)
{
	struct twheel_event ev[2];
	int faults;

	faults = FAULT_LOOP(tw_read_nocheck(self->fd, ev, 2), -EFAULT,
			    -ENOMEM);
	TH_LOG("%d faults injected", faults);
	EXPECT_EQ(ev[0].handle, self->fired);
	EXPECT_EQ(tw_fdinfo(self->fd, "queued"), 0);
}

static int open_close(void)
{
	int fd = open(TW_DEV, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

TEST_F(fault, open)
{
	int faults = FAULT_LOOP(open_close(), -ENOMEM, -EFAULT);

	EXPECT_GT(faults, 0);
}

TEST_HARNESS_MAIN
