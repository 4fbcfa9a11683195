/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - a small kselftest-style test harness
 *
 * A test program is a list of tests declared with TEST() or, with a fixture,
 * FIXTURE() / FIXTURE_SETUP() / FIXTURE_TEARDOWN() / TEST_F(). main() comes
 * from TEST_HARNESS_MAIN. Every test runs in a process of its own, forked
 * from the runner, so a crash, a hang or leftover state stays with that
 * test; the runner kills a test that outlives its timeout (TEST_TIMEOUT(),
 * TEST_F_TIMEOUT(); 30 s by default) and reports it as failed.
 *
 * Checks: EXPECT_*() record a failure and go on, ASSERT_*() record it and end
 * the test (the fixture's teardown still runs). SKIP() ends the test as
 * skipped. TH_LOG() prints a "# " diagnostic line. Operands of the checks
 * are compared as long long (signed) or unsigned long long (the _U forms).
 *
 * Output is TAP 13 as kselftest prints it: a plan, one "ok"/"not ok" line per
 * test (with "# SKIP reason" for skipped ones) and a "# Totals:" line. The
 * exit status is 0 only if no test failed; a test that takes 2 s or more
 * says so in a diagnostic line. Arguments, if given, are shell patterns:
 * only tests whose name matches one of them run.
 *
 * Checks are for the test's main thread: threads a test starts must report
 * their findings to it rather than use EXPECT_*() or ASSERT_*().
 */
#ifndef TWHEEL_HARNESS_H
#define TWHEEL_HARNESS_H

#include <errno.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TH_DEFAULT_TIMEOUT	30

/* What a test's process tells the runner, in a shared page. */
struct th_result {
	int failed;
	int skipped;
	char reason[256];
};

struct th_test {
	const char *name;
	void (*run)(const struct th_test *t);
	unsigned int timeout;
	struct th_test *next;
};

/* State of the test running in this process. */
static struct th_result *th_res;
static jmp_buf th_end;

static struct th_test *th_first, **th_last = &th_first;

static inline void th_register(struct th_test *t)
{
	*th_last = t;
	th_last = &t->next;
}

#define TH_LOG(fmt, ...) \
	do { \
		printf("# " fmt "\n", ##__VA_ARGS__); \
		fflush(stdout); \
	} while (0)

/* End the running test now (teardown still runs). */
static inline void th_abort(void)
{
	longjmp(th_end, 1);
}

#define SKIP(fmt, ...) \
	do { \
		th_res->skipped = 1; \
		snprintf(th_res->reason, sizeof(th_res->reason), \
			 fmt, ##__VA_ARGS__); \
		th_abort(); \
	} while (0)

#define TH_FAIL(fatal, fmt, ...) \
	do { \
		TH_LOG("%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__); \
		th_res->failed = 1; \
		if (fatal) \
			th_abort(); \
	} while (0)

#define TH_CMP(fatal, type, pfmt, a, op, b) \
	do { \
		type _a = (type)(a), _b = (type)(b); \
		if (!(_a op _b)) \
			TH_FAIL(fatal, "expected %s %s %s (" pfmt " vs " pfmt ")", \
				#a, #op, #b, _a, _b); \
	} while (0)

#define TH_S(f, a, op, b)	TH_CMP(f, long long, "%lld", a, op, b)
#define TH_U(f, a, op, b)	TH_CMP(f, unsigned long long, "%llu", a, op, b)

#define EXPECT_EQ(a, b)		TH_S(0, a, ==, b)
#define EXPECT_NE(a, b)		TH_S(0, a, !=, b)
#define EXPECT_LT(a, b)		TH_S(0, a, <, b)
#define EXPECT_LE(a, b)		TH_S(0, a, <=, b)
#define EXPECT_GT(a, b)		TH_S(0, a, >, b)
#define EXPECT_GE(a, b)		TH_S(0, a, >=, b)
#define EXPECT_EQ_U(a, b)	TH_U(0, a, ==, b)
#define EXPECT_NE_U(a, b)	TH_U(0, a, !=, b)
#define EXPECT_LE_U(a, b)	TH_U(0, a, <=, b)
#define EXPECT_GE_U(a, b)	TH_U(0, a, >=, b)
#define EXPECT_TRUE(c)		TH_S(0, !!(c), ==, 1)
#define EXPECT_FALSE(c)		TH_S(0, !!(c), ==, 0)
#define ASSERT_EQ(a, b)		TH_S(1, a, ==, b)
#define ASSERT_NE(a, b)		TH_S(1, a, !=, b)
#define ASSERT_LT(a, b)		TH_S(1, a, <, b)
#define ASSERT_LE(a, b)		TH_S(1, a, <=, b)
#define ASSERT_GT(a, b)		TH_S(1, a, >, b)
#define ASSERT_GE(a, b)		TH_S(1, a, >=, b)
#define ASSERT_EQ_U(a, b)	TH_U(1, a, ==, b)
#define ASSERT_NE_U(a, b)	TH_U(1, a, !=, b)
#define ASSERT_LE_U(a, b)	TH_U(1, a, <=, b)
#define ASSERT_GE_U(a, b)	TH_U(1, a, >=, b)
#define ASSERT_TRUE(c)		TH_S(1, !!(c), ==, 1)
#define ASSERT_FALSE(c)		TH_S(1, !!(c), ==, 0)

/* Test bodies see "_metadata"-free macros; fixtures see "self". */
#define TH_DECLARE(id, tname, secs, runner) \
	static struct th_test id##_desc = { \
		.name = tname, .run = runner, .timeout = secs, \
	}; \
	static void __attribute__((constructor)) id##_register(void) \
	{ \
		th_register(&id##_desc); \
	}

#define TEST_TIMEOUT(name, secs) \
	static void name##_body(void); \
	static void name##_run(const struct th_test *t) \
	{ \
		(void)t; \
		if (!setjmp(th_end)) \
			name##_body(); \
	} \
	TH_DECLARE(name, #name, secs, name##_run) \
	static void name##_body(void)

#define TEST(name)	TEST_TIMEOUT(name, TH_DEFAULT_TIMEOUT)

#define FIXTURE(fx)	struct fx##_fixture

#define TH_UNUSED	__attribute__((unused))

#define FIXTURE_SETUP(fx) \
	static void fx##_setup(struct fx##_fixture *self TH_UNUSED)

#define FIXTURE_TEARDOWN(fx) \
	static void fx##_teardown(struct fx##_fixture *self TH_UNUSED)

/*
 * Setup failures end the test without running it; teardown runs after the
 * body, however the body ended.
 */
#define TEST_F_TIMEOUT(fx, name, secs) \
	static void fx##_##name##_body(struct fx##_fixture *self TH_UNUSED); \
	static void fx##_##name##_run(const struct th_test *t) \
	{ \
		struct fx##_fixture self; \
		(void)t; \
		memset(&self, 0, sizeof(self)); \
		if (setjmp(th_end)) \
			return; \
		fx##_setup(&self); \
		if (!setjmp(th_end)) \
			fx##_##name##_body(&self); \
		if (!setjmp(th_end)) \
			fx##_teardown(&self); \
	} \
	TH_DECLARE(fx##_##name, #fx "." #name, secs, fx##_##name##_run) \
	static void fx##_##name##_body(struct fx##_fixture *self TH_UNUSED)

#define TEST_F(fx, name)	TEST_F_TIMEOUT(fx, name, TH_DEFAULT_TIMEOUT)

static inline int th_selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return 1;
	for (i = 1; i < argc; i++)
		if (!fnmatch(argv[i], name, 0))
			return 1;
	return 0;
}

/* Wait for @pid up to @secs seconds; kill it after that. */
static inline int th_wait(pid_t pid, unsigned int secs, int *timed_out)
{
	struct timespec end, now;
	int status;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += secs;
	*timed_out = 0;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec)) {
			*timed_out = 1;
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return status;
		}
		usleep(2000);
	}
}

static inline unsigned long long th_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Run one test in a child process; returns 0 pass, 1 fail, 2 skip. */
static inline int th_run_one(const struct th_test *t, int num)
{
	unsigned long long start = th_now_ms(), took;
	int status, timed_out;
	pid_t pid;

	memset(th_res, 0, sizeof(*th_res));
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("not ok %d %s # fork: %s\n", num, t->name,
		       strerror(errno));
		return 1;
	}
	if (!pid) {
		t->run(t);
		fflush(stdout);
		_exit(0);
	}
	status = th_wait(pid, t->timeout, &timed_out);
	took = th_now_ms() - start;
	if (took >= 2000)
		printf("# %s: took %llu ms\n", t->name, took);
	if (timed_out) {
		printf("# %s: timed out after %u s\n", t->name, t->timeout);
		th_res->failed = 1;
	} else if (WIFSIGNALED(status)) {
		printf("# %s: killed by signal %d (%s)\n", t->name,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
		th_res->failed = 1;
	} else if (WEXITSTATUS(status)) {
		printf("# %s: exited with status %d\n", t->name,
		       WEXITSTATUS(status));
		th_res->failed = 1;
	}
	if (th_res->failed) {
		printf("not ok %d %s\n", num, t->name);
		return 1;
	}
	if (th_res->skipped) {
		printf("ok %d %s # SKIP %s\n", num, t->name, th_res->reason);
		return 2;
	}
	printf("ok %d %s\n", num, t->name);
	return 0;
}

static inline int th_main(int argc, char **argv)
{
	int counts[3] = { 0, 0, 0 };
	const struct th_test *t;
	int n = 0, num = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	th_res = mmap(NULL, sizeof(*th_res), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (th_res == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (t = th_first; t; t = t->next)
		n += th_selected(t->name, argc, argv);
	printf("TAP version 13\n1..%d\n", n);
	for (t = th_first; t; t = t->next)
		if (th_selected(t->name, argc, argv))
			counts[th_run_one(t, ++num)]++;
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0\n",
	       counts[0], counts[1], counts[2]);
	return counts[1] ? 1 : 0;
}

#define TEST_HARNESS_MAIN \
	int main(int argc, char **argv) \
	{ \
		return th_main(argc, argv); \
	}

#endif /* TWHEEL_HARNESS_H */
