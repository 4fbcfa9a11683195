// SPDX-License-Identifier: GPL-2.0
/*
 * lifecycle_test.c - the life of a /dev/twheel file: close with thousands of
 * timeouts pending and firing, fork(), O_CLOEXEC, the module pinned while a
 * file is open, and several threads arming, re-arming, cancelling and
 * reading at once with every record accounted for.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

/* Arm @n timeouts in batches: delays spread over @spread_ns, CPUs round. */
static void arm_spread(struct __test_metadata *const _metadata, int fd, int n,
		       uint64_t spread_ns)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct twheel_op ops[1024];
	int done = 0, i, k;

	while (done < n) {
		k = n - done < 1024 ? n - done : 1024;
		for (i = 0; i < k; i++) {
			ops[i] = (struct twheel_op){
				.op = TWHEEL_OP_ARM,
				.cookie = done + i,
				.expires = spread_ns * (done + i) / n,
				.flags = TWHEEL_ARM_CPU,
				.cpu = (done + i) % ncpu,
			};
		}
		ASSERT_EQ(tw_batch(fd, ops, k, sizeof(ops[0])), 0);
		for (i = 0; i < k; i++) {
			ASSERT_EQ(ops[i].result, 0);
		}
		done += k;
	}
}

/* Tests that need more than the harness's default timeout of 30 s. */
FIXTURE(slow) {
};

FIXTURE_SETUP(slow)
{
}

FIXTURE_TEARDOWN(slow)
{
}

/*
 * Close while thousands are pending, many of them expiring on every CPU
 * during the close, others with records queued, some periodic.
 */
TEST_F_TIMEOUT(slow, close_with_thousands_pending, 90)
{
	uint64_t h;
	int round, fd;

	for (round = 0; round < 5; round++) {
		fd = tw_open(_metadata);
		arm_spread(_metadata, fd, 2000, 4 * MS);
		arm_spread(_metadata, fd, 2000, 10 * SEC);
		ASSERT_EQ(tw_arm_full(fd, 0, 0, 1000000, 0, 0, &h), 0);
		if (round & 1)
			sleep_ns(2 * MS);
		ASSERT_EQ(close(fd), 0);
	}
	/* The device still works afterwards. */
	fd = tw_open(_metadata);
	h = tw_arm(_metadata, fd, 0, 0);
	EXPECT_TRUE(tw_wait_ready(fd, 2000));
	EXPECT_EQ(tw_cancel(fd, h), 0);
	close(fd);
}

TEST(close_with_records_queued)
{
	int fd = tw_open(_metadata);

	arm_spread(_metadata, fd, 1000, 0);
	sleep_ns(50 * MS);
	EXPECT_GT(tw_fdinfo(fd, "queued"), 0);
	EXPECT_EQ(close(fd), 0);
}

/* Parent and child share the file: a child reads what the parent armed. */
TEST(fork_shares_the_file)
{
	int fd = tw_open(_metadata), status;
	struct twheel_event ev;
	uint64_t h = tw_arm(_metadata, fd, 0xaaa, 20 * MS);
	pid_t pid;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		int ok = tw_wait_ready(fd, 5000) &&
			 tw_read_nocheck(fd, &ev, 1) == 1 &&
			 ev.handle == h && ev.cookie == 0xaaa &&
			 tw_arm_full(fd, 0xbbb, 10 * MS, 0, 0, 0, NULL) == 0;

		_exit(ok ? 0 : 1);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	/* The child's timeout outlives the child; its handle is gone for us. */
	ASSERT_TRUE(tw_wait_ready(fd, 5000));
	ASSERT_EQ(tw_read(_metadata, fd, &ev, 1), 1);
	EXPECT_EQ(ev.cookie, 0xbbbULL);
	EXPECT_EQ(tw_cancel(fd, h), -ENOENT);
	close(fd);
}

/* The child closing its copy cancels nothing. */
TEST(child_close_keeps_timeouts)
{
	int fd = tw_open(_metadata), status;
	struct twheel_event ev;
	pid_t pid;

	tw_arm(_metadata, fd, 1, 30 * MS);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(tw_wait_ready(fd, 5000));
	EXPECT_EQ(tw_read(_metadata, fd, &ev, 1), 1);
	close(fd);
}

TEST(cloexec_closes_on_exec)
{
	int fd = tw_open(_metadata), status;
	char cmd[64];
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "test ! -e /proc/self/fd/%d", fd);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 127)
		SKIP(return, "no /bin/sh");
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(fd);
}

/* The module cannot go away under an open file. */
TEST(module_pinned_while_open)
{
	int fd = tw_open(_metadata);
	long ret;

	ret = syscall(SYS_delete_module, "twheel", O_NONBLOCK);
	if (ret < 0 && errno == EPERM)
		SKIP(return, "not allowed to remove modules");
	EXPECT_EQ(ret, -1);
	EXPECT_TRUE(errno == EWOULDBLOCK || errno == EBUSY);
	tw_arm(_metadata, fd, 0, 0);
	EXPECT_TRUE(tw_wait_ready(fd, 2000));
	close(fd);
}

/* --- several threads at once --- */

#define ARMERS		2
#define READERS		2
#define PER_ARMER	200000
#define RECENT		64

struct stress {
	int fd;
	atomic_int stop;
	atomic_ullong epoch;
	atomic_int errors;
	atomic_int armed[ARMERS];
	/* Per timeout, by armer and sequence number (the cookie). */
	atomic_ullong cancelled_at[ARMERS][PER_ARMER];
	atomic_uchar seen[ARMERS][PER_ARMER];
};

static void stress_error(struct stress *s, const char *what, uint64_t cookie)
{
	if (atomic_fetch_add(&s->errors, 1) < 10)
		printf("# stress: %s (cookie %#llx)\n", what,
		       (unsigned long long)cookie);
}

struct armer {
	struct stress *s;
	int id;
};

/* A timeout an armer may cancel or re-arm later. */
struct recent {
	uint64_t handle;
	int seq;
};

static void armer_cancel(struct armer *a, struct recent *r)
{
	struct stress *s = a->s;

	if (tw_cancel(s->fd, r->handle) == 0)
		atomic_store(&s->cancelled_at[a->id][r->seq],
			     atomic_fetch_add(&s->epoch, 1) + 1);
	r->handle = 0;
}

static void *armer_main(void *arg)
{
	struct armer *a = arg;
	struct stress *s = a->s;
	struct recent recent[RECENT] = { { 0 } }, *r;
	unsigned int rnd = a->id * 7919 + 1;
	uint64_t cookie;
	int seq;

	for (seq = 0; seq < PER_ARMER && !atomic_load(&s->stop); seq++) {
		cookie = (uint64_t)a->id << 32 | seq;
		r = &recent[seq % RECENT];
		r->seq = seq;
		if (tw_arm_full(s->fd, cookie, rand_r(&rnd) % (20 * MS), 0, 0,
				0, &r->handle)) {
			stress_error(s, "arm failed", cookie);
			break;
		}
		atomic_store(&s->armed[a->id], seq + 1);
		r = &recent[rand_r(&rnd) % RECENT];
		if (!r->handle)
			continue;
		switch (rand_r(&rnd) % 4) {
		case 0:
			armer_cancel(a, r);
			break;
		case 1:
			tw_rearm(s->fd, r->handle, rand_r(&rnd) % (20 * MS), 0);
			break;
		default:
			break;
		}
	}
	return NULL;
}

static void check_record(struct stress *s, const struct twheel_event *ev,
			 uint64_t start)
{
	uint32_t id = ev->cookie >> 32, seq = (uint32_t)ev->cookie;
	uint64_t c;

	if (id >= ARMERS || seq >= PER_ARMER) {
		stress_error(s, "record with a foreign cookie", ev->cookie);
		return;
	}
	if (ev->expired < ev->deadline)
		stress_error(s, "record expired before its deadline",
			     ev->cookie);
	if (atomic_exchange(&s->seen[id][seq], 1))
		stress_error(s, "one-shot record read twice", ev->cookie);
	c = atomic_load(&s->cancelled_at[id][seq]);
	if (c && c <= start)
		stress_error(s, "record read after its cancel returned",
			     ev->cookie);
}

static void *reader_main(void *arg)
{
	struct stress *s = arg;
	struct twheel_event ev[32];
	uint64_t start;
	int n, i;

	for (;;) {
		if (!tw_wait_ready(s->fd, 100)) {
			if (atomic_load(&s->stop) == 2)
				break;
			continue;
		}
		start = atomic_load(&s->epoch);
		n = tw_read_nocheck(s->fd, ev, 32);
		if (n == -EAGAIN)
			continue;
		if (n == TW_PARTIAL) {
			stress_error(s, "read returned part of a record", 0);
			break;
		}
		if (n < 0) {
			stress_error(s, "read failed", -n);
			break;
		}
		for (i = 0; i < n; i++)
			check_record(s, &ev[i], start);
	}
	return NULL;
}

static long long armed_so_far(struct stress *s)
{
	long long n = 0;
	int a;

	for (a = 0; a < ARMERS; a++)
		n += atomic_load(&s->armed[a]);
	return n;
}

/*
 * Armers arm one-shot timeouts (0-20 ms) and cancel or re-arm recent ones;
 * readers read records in parallel. Every timeout ends up either read once
 * or cancelled, never both; no record follows a completed cancel.
 */
TEST_F_TIMEOUT(slow, threads_arm_cancel_read_at_once, 90)
{
	struct stress *s = calloc(1, sizeof(*s));
	pthread_t arm_t[ARMERS], rd_t[READERS];
	struct armer armers[ARMERS];
	long long total = 0, accounted = 0;
	int i, a, seq;

	ASSERT_TRUE(s != NULL);
	s->fd = tw_open_flags(_metadata, O_NONBLOCK);
	for (i = 0; i < READERS; i++) {
		ASSERT_EQ(pthread_create(&rd_t[i], NULL, reader_main, s), 0);
	}
	for (i = 0; i < ARMERS; i++) {
		armers[i] = (struct armer){ .s = s, .id = i };
		ASSERT_EQ(pthread_create(&arm_t[i], NULL, armer_main,
					 &armers[i]), 0);
	}
	/*
	 * At least 1.5 s and 2000 arms: a slow guest (debug-rt under load
	 * armed 890 in 1.5 s) runs longer instead of testing less; 30 s at
	 * most.
	 */
	for (i = 0; i < 300 && (i < 15 || armed_so_far(s) < 2000); i++)
		sleep_ns(100 * MS);
	atomic_store(&s->stop, 1);
	for (i = 0; i < ARMERS; i++)
		pthread_join(arm_t[i], NULL);
	/* Let everything still armed fire and be read. */
	for (i = 0; i < 100 && tw_fdinfo(s->fd, "pending") > 0; i++)
		sleep_ns(20 * MS);
	atomic_store(&s->stop, 2);
	for (i = 0; i < READERS; i++)
		pthread_join(rd_t[i], NULL);

	EXPECT_EQ(tw_fdinfo(s->fd, "pending"), 0);
	for (a = 0; a < ARMERS; a++) {
		total += atomic_load(&s->armed[a]);
		for (seq = 0; seq < atomic_load(&s->armed[a]); seq++) {
			int seen = atomic_load(&s->seen[a][seq]);
			int cancelled = !!atomic_load(&s->cancelled_at[a][seq]);

			if (seen + cancelled != 1)
				stress_error(s, seen ? "read and cancelled" :
					     "neither read nor cancelled",
					     (uint64_t)a << 32 | seq);
			accounted++;
		}
	}
	TH_LOG("%lld timeouts armed by %d threads, %d readers", total, ARMERS,
	       READERS);
	EXPECT_EQ(accounted, total);
	EXPECT_GT(total, 1000);
	EXPECT_EQ(atomic_load(&s->errors), 0);
	close(s->fd);
	free(s);
}

TEST_HARNESS_MAIN
