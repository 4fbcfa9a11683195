// SPDX-License-Identifier: GPL-2.0
/*
 * limits_test.c - what bounds a /dev/twheel file: the per-file limit on live
 * timeouts (-ENOSPC), the caller's memory cgroup (-ENOMEM, cleanly, with
 * no OOM kill) and the dead timeouts a file keeps for reuse.
 *
 * The memory cgroup test needs root and cgroup2 with the memory controller
 * (mounted at /sys/fs/cgroup, or mountable there); it skips otherwise. It
 * runs before the other heavy tests: creating the guest's first memory
 * cgroup flips static keys (kernel text patching), best done while the
 * machine is quiet.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define USER_MAX	"/sys/module/twheel/parameters/max_user_timeouts"

static long long read_key(const char *path, const char *key)
{
	char line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ' ')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

/*
 * Make sure cgroup2 with the memory controller is at CG_ROOT: NULL if it
 * is, else why not (in @why).
 */
static const char *need_memcg(char *why, size_t len)
{
	char buf[256] = "";
	FILE *f;

	if (access(CG_ROOT "/cgroup.controllers", F_OK)) {
		mkdir(CG_ROOT, 0755);
		if (mount("none", CG_ROOT, "cgroup2", 0, NULL)) {
			snprintf(why, len, "cannot mount cgroup2: %s",
				 strerror(errno));
			return why;
		}
	}
	f = fopen(CG_ROOT "/cgroup.controllers", "r");
	if (!f || !fgets(buf, sizeof(buf), f) || !strstr(buf, "memory")) {
		if (f)
			fclose(f);
		snprintf(why, len, "no memory controller in cgroup2");
		return why;
	}
	fclose(f);
	tw_write_file(CG_ROOT "/cgroup.subtree_control", "+memory");
	return NULL;
}

/*
 * In the child: join @cg, open the device and arm until an arm fails.
 * Exit status: 0 for -ENOMEM, 2 for -ENOSPC, 1 for anything else. The
 * number armed goes to *@count (shared memory).
 */
static void __attribute__((noreturn)) fill_cgroup(const char *cg,
						  uint32_t *count)
{
	char path[256];
	uint64_t h;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	if (tw_write_file(path, "0"))
		_exit(1);
	fd = open(TW_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(1);
	while (!(ret = tw_arm_full(fd, 0, 10 * SEC, 0, 0, 0, &h)))
		(*count)++;
	_exit(ret == -ENOMEM ? 0 : ret == -ENOSPC ? 2 : 1);
}

/* Tests that need more than the harness's default timeout of 30 s. */
FIXTURE(slow) {
	char user_max[32];	/* max_user_timeouts to restore, if changed */
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
	if (self->user_max[0])
		tw_write_file(USER_MAX, self->user_max);
}

TEST_F_TIMEOUT(slow, memcg_limit_enomem_without_oom, 100)
{
	uint32_t *count = mmap(NULL, sizeof(*count), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char cg[128], path[192], why[128];
	long long oom_kills;
	int status;
	pid_t pid;

	ASSERT_TRUE(count != MAP_FAILED);
	if (need_memcg(why, sizeof(why)))
		SKIP(return, "%s", why);
	snprintf(cg, sizeof(cg), CG_ROOT "/twheel-test-%d", getpid());
	if (mkdir(cg, 0755))
		SKIP(return, "cannot create a cgroup: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(tw_write_file(path, "4M"), 0);
	snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
	tw_write_file(path, "0");

	fflush(stdout);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		fill_cgroup(cg, count);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);

	snprintf(path, sizeof(path), "%s/memory.events", cg);
	oom_kills = read_key(path, "oom_kill");
	TH_LOG("%u timeouts armed under memory.max=4M; oom_kill %lld",
	       *count, oom_kills);
	EXPECT_TRUE(WIFEXITED(status));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		TH_LOG("the per-file limit came first (-ENOSPC)");
	else
		EXPECT_EQ(WEXITSTATUS(status), 0);
	EXPECT_EQ(oom_kills, 0);
	EXPECT_GT(*count, 1000ULL);
	EXPECT_LT(*count, 4U * 1024 * 1024 / 64);
	EXPECT_EQ(rmdir(cg), 0);
}

/* Arm up to @n timeouts 10 s away in batches; returns how many were armed. */
static uint32_t arm_until(struct __test_metadata *const _metadata, int fd,
			  uint32_t n, uint32_t max_batch, int *err)
{
	struct twheel_op *ops = calloc(max_batch, sizeof(*ops));
	uint32_t done = 0, i, k;

	ASSERT_TRUE(ops != NULL);
	*err = 0;
	while (done < n && !*err) {
		k = n - done < max_batch ? n - done : max_batch;
		for (i = 0; i < k; i++)
			ops[i] = (struct twheel_op){
				.op = TWHEEL_OP_ARM, .expires = 10 * SEC,
			};
		ASSERT_EQ(tw_batch(fd, ops, k, sizeof(*ops)), 0);
		for (i = 0; i < k && !*err; i++) {
			if (ops[i].result)
				*err = ops[i].result;
			else
				done++;
		}
	}
	free(ops);
	return done;
}

/* Longest this test may spend arming up to the limit (and closing). */
#define FILL_BUDGET	(30 * SEC)

TEST_F_TIMEOUT(slow, per_file_limit_enospc, 100)
{
	int fd = tw_open(_metadata), other, err;
	struct twheel_info info;
	struct twheel_op op = { .op = TWHEEL_OP_ARM, .expires = SEC };
	uint64_t t0, took, first, h;
	uint32_t n, probe;

	tw_info(_metadata, fd, &info);
	/*
	 * The per-user limit (max_user_timeouts, a share of RAM) comes first
	 * when it is below max_pending: raise it for this test (the teardown
	 * puts it back), room for this file and one more timeout elsewhere.
	 */
	if (info.max_user_timeouts < (uint64_t)info.max_pending + 1024) {
		FILE *f = fopen(USER_MAX, "r");
		char want[32];

		if (!f || !fgets(self->user_max, sizeof(self->user_max), f))
			self->user_max[0] = 0;
		if (f)
			fclose(f);
		snprintf(want, sizeof(want), "%llu",
			 (unsigned long long)info.max_pending + 1024);
		if (!self->user_max[0] || tw_write_file(USER_MAX, want))
			SKIP(return, "max_user_timeouts %llu is below max_pending %u and cannot be raised",
			     (unsigned long long)info.max_user_timeouts,
			     info.max_pending);
		TH_LOG("max_user_timeouts raised from %llu to %s for this test",
		       (unsigned long long)info.max_user_timeouts, want);
	}
	t0 = now_ns();
	first = tw_arm(_metadata, fd, 0, 10 * SEC);
	/*
	 * A debug kernel under emulation arms far slower than a stock one:
	 * time a part first and skip if the whole would not fit the budget.
	 */
	probe = info.max_pending / 64;
	n = 1 + arm_until(_metadata, fd, probe, info.max_batch, &err);
	ASSERT_EQ(err, 0);
	took = now_ns() - t0;
	if (took * (info.max_pending / n) > FILL_BUDGET)
		SKIP(return, "filling max_pending=%u would take about %llu s here; load twheel with a smaller max_pending to run this",
		     info.max_pending,
		     (unsigned long long)(took * (info.max_pending / n) / SEC));
	n += arm_until(_metadata, fd, info.max_pending - n, info.max_batch,
		       &err);
	TH_LOG("armed %u timeouts (the limit) in %llu ms", n,
	       (unsigned long long)(now_ns() - t0) / MS);
	ASSERT_EQ(err, 0);
	ASSERT_EQ(n, info.max_pending);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), info.max_pending);

	EXPECT_EQ(tw_arm_full(fd, 0, SEC, 0, 0, 0, NULL), -ENOSPC);
	ASSERT_EQ(tw_batch(fd, &op, 1, sizeof(op)), 0);
	EXPECT_EQ(op.result, -ENOSPC);
	/* The limit is per file. */
	other = tw_open(_metadata);
	EXPECT_EQ(tw_arm_full(other, 0, SEC, 0, 0, 0, &h), 0);
	close(other);
	/* A freed handle makes room for exactly one more. */
	EXPECT_EQ(tw_cancel(fd, first), 0);
	EXPECT_EQ(tw_arm_full(fd, 0, SEC, 0, 0, 0, &h), 0);
	EXPECT_EQ(tw_arm_full(fd, 0, SEC, 0, 0, 0, NULL), -ENOSPC);
	t0 = now_ns();
	close(fd);
	TH_LOG("closed with %u pending in %llu ms", n,
	       (unsigned long long)(now_ns() - t0) / MS);
}

#define CHURN_ROUNDS	100
#define CHURN_BATCH	1000
/* Dead timeouts a file keeps for reuse, at most (Documentation/uapi.rst). */
#define CACHED_MAX	1024

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One churn round: arm CHURN_BATCH timeouts (one in ten due at once, one in
 * a hundred periodic), read a few times what is ready (the periodic ones
 * would keep a reader busy forever), then cancel them all: 0 for the live
 * ones, -ENOENT for the one-shots whose record was read.
 */
static void churn_round(struct __test_metadata *const _metadata, int fd,
			const struct twheel_info *info,
			struct twheel_op *ops, uint64_t *handles)
{
	struct twheel_event ev[256];
	char dead[CHURN_BATCH] = { 0 };
	int i, n, reads = 0;

	for (i = 0; i < CHURN_BATCH; i++) {
		ops[i] = (struct twheel_op){
			.op = TWHEEL_OP_ARM, .cookie = i,
			.expires = i % 10 ? 10 * SEC : 0,
		};
		if (i % 100 == 1)
			ops[i].period = info->tick_ns;
	}
	ASSERT_EQ(tw_batch(fd, ops, CHURN_BATCH, sizeof(*ops)), 0);
	for (i = 0; i < CHURN_BATCH; i++) {
		ASSERT_EQ(ops[i].result, 0);
		handles[i] = ops[i].handle;
	}
	while (reads++ < 4 && (n = tw_read(_metadata, fd, ev, 256)) > 0)
		for (i = 0; i < n; i++) {
			ASSERT_LE(ev[i].cookie, (uint64_t)CHURN_BATCH - 1);
			ASSERT_EQ(ev[i].handle, handles[ev[i].cookie]);
			if (!(ev[i].flags & TWHEEL_EV_PERIODIC))
				dead[ev[i].cookie] = 1;
		}
	for (i = 0; i < CHURN_BATCH; i++)
		ops[i] = (struct twheel_op){
			.op = TWHEEL_OP_CANCEL, .handle = handles[i],
		};
	ASSERT_EQ(tw_batch(fd, ops, CHURN_BATCH, sizeof(*ops)), 0);
	for (i = 0; i < CHURN_BATCH; i++) {
		ASSERT_EQ(ops[i].result, dead[i] ? -ENOENT : 0);
	}
}

/*
 * Arm, fire, read and cancel 100,000 timeouts: every handle differs although
 * the same memory and slots serve them all, and the counts come back to
 * zero, with at most CACHED_MAX dead timeouts kept.
 */
TEST_F_TIMEOUT(slow, churn_counts_return_to_zero, 90)
{
	int fd = tw_open_flags(_metadata, O_NONBLOCK), r;
	uint64_t *handles = calloc(CHURN_ROUNDS * CHURN_BATCH, sizeof(*handles));
	struct twheel_op *ops = calloc(CHURN_BATCH, sizeof(*ops));
	struct twheel_info info;
	long long cached;
	size_t i;

	ASSERT_TRUE(handles != NULL && ops != NULL);
	tw_info(_metadata, fd, &info);
	if (info.max_pending < CHURN_BATCH)
		SKIP(return, "max_pending %u is below %d", info.max_pending,
		     CHURN_BATCH);
	for (r = 0; r < CHURN_ROUNDS; r++) {
		churn_round(_metadata, fd, &info, ops,
			    handles + r * CHURN_BATCH);
		ASSERT_EQ(tw_fdinfo(fd, "pending"), 0);
		ASSERT_EQ(tw_fdinfo(fd, "queued"), 0);
	}
	EXPECT_TRUE(tw_nothing_ready(fd));
	cached = tw_fdinfo(fd, "cached");
	TH_LOG("%d timeouts armed; %lld kept for reuse", r * CHURN_BATCH,
	       cached);
	EXPECT_GT(cached, 0);
	EXPECT_LE(cached, CACHED_MAX);
	qsort(handles, CHURN_ROUNDS * CHURN_BATCH, sizeof(*handles), cmp_u64);
	for (i = 1; i < CHURN_ROUNDS * CHURN_BATCH; i++) {
		ASSERT_NE(handles[i], handles[i - 1]);
	}
	free(ops);
	free(handles);
	close(fd);
}

/* A record waiting to be read still counts: its handle is live. */
TEST(queued_records_count_against_the_limit)
{
	int fd = tw_open(_metadata);
	struct twheel_event ev;
	uint64_t h = tw_arm(_metadata, fd, 0, 0);

	ASSERT_TRUE(tw_wait_ready(fd, 2000));
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 1);
	ASSERT_EQ(tw_read(_metadata, fd, &ev, 1), 1);
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);
	close(fd);
}

TEST_HARNESS_MAIN
