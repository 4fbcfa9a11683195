// SPDX-License-Identifier: GPL-2.0
/*
 * module_test.c - load/unload churn of twheel.ko and its example client
 *
 * Each cycle: with a file open and timeouts armed, twheel.ko cannot be
 * removed; with the example client loaded (it arms timeouts of its own),
 * neither; once the client is gone and the file closed, it can, and it loads
 * again with the parameters it had. The guest's splat scan and kmemleak
 * check what the cycles leave behind.
 *
 * A module parameter out of its range fails the load, and the kernel log
 * says which range is allowed (bad_parameter_names_range).
 *
 * Needs root and the modules in /lib/twheel (the guests of make check);
 * SKIPs otherwise. load_unload_churn runs 10 cycles; load_unload_full_size
 * runs TWHEEL_MODULE_CYCLES of them (make stress: 1000) and SKIPs when that
 * is not set.
 */
#include <stdlib.h>
#include <sys/klog.h>

#include "twheel_util.h"

#define PARAMS		"/sys/module/twheel/parameters/"

static int busy(int ret)
{
	return ret == -EBUSY || ret == -EWOULDBLOCK;
}

/* "tick_ns=... max_pending=... expire_budget=..." of the loaded module. */
static void saved_params(char *out, size_t len)
{
	static const char *const names[] = {
		"tick_ns", "max_pending", "expire_budget",
	};
	char path[128], v[64];
	size_t used = 0, i;
	FILE *f;

	out[0] = 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), PARAMS "%s", names[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(v, sizeof(v), f)) {
			v[strcspn(v, "\n")] = 0;
			used += snprintf(out + used, len - used, "%s%s=%s",
					 used ? " " : "", names[i], v);
		}
		fclose(f);
	}
}

FIXTURE(mod) {
	char params[256];
};

FIXTURE_SETUP(mod)
{
	if (geteuid() != 0 || access(TW_MODDIR "/twheel.ko", R_OK) ||
	    access(TW_MODDIR "/twheel_example.ko", R_OK) ||
	    access(PARAMS "tick_ns", R_OK))
		SKIP(return, "needs root, twheel loaded and " TW_MODDIR "/*.ko");
	saved_params(self->params, sizeof(self->params));
}

/* Leave twheel loaded as it was, whatever happened. */
FIXTURE_TEARDOWN(mod)
{
	tw_unload_module("twheel_example");
	if (access(PARAMS "tick_ns", F_OK))
		tw_load_module(TW_MODDIR "/twheel.ko", self->params);
}

static void churn(struct __test_metadata *const _metadata,
		  FIXTURE_DATA(mod) *self, long cycles)
{
	struct twheel_event ev;
	long i;
	int fd;

	for (i = 0; i < cycles; i++) {
		fd = tw_open(_metadata);
		tw_arm(_metadata, fd, 1, MS);
		tw_arm(_metadata, fd, 2, 60 * SEC);
		ASSERT_TRUE(tw_wait_ready(fd, 5000));
		ASSERT_EQ(tw_read(_metadata, fd, &ev, 1), 1);
		/* An open file holds the module. */
		ASSERT_TRUE(busy(tw_unload_module("twheel"))) {
			TH_LOG("cycle %ld: twheel removed under an open file", i);
		}
		ASSERT_EQ(tw_load_module(TW_MODDIR "/twheel_example.ko", ""),
			  0);
		usleep(150 * 1000);
		close(fd);
		/* So does a client module. */
		ASSERT_TRUE(busy(tw_unload_module("twheel")));
		ASSERT_EQ(tw_unload_module("twheel_example"), 0);
		ASSERT_EQ(tw_unload_module("twheel"), 0);
		ASSERT_EQ(access("/dev/twheel", F_OK), -1);
		ASSERT_EQ(tw_load_module(TW_MODDIR "/twheel.ko",
					 self->params), 0) {
			TH_LOG("cycle %ld: reloading with '%s'", i,
			       self->params);
		}
	}
	TH_LOG("%ld load/unload cycles with '%s'", cycles, self->params);
}

TEST_F_TIMEOUT(mod, load_unload_churn, 240)
{
	churn(_metadata, self, 10);
}

/* About 0.25 s a cycle in a stock TCG guest: 1000 take 4 to 5 minutes. */
TEST_F_TIMEOUT(mod, load_unload_full_size, 3600)
{
	const char *cycles = getenv("TWHEEL_MODULE_CYCLES");

	if (!cycles || !*cycles)
		SKIP(return, "make stress runs it (TWHEEL_MODULE_CYCLES)");
	churn(_metadata, self, atol(cycles));
}

/* Whether a line of the kernel log holds both @a and @b. */
static int klog_has(const char *a, const char *b)
{
	int len = klogctl(10, NULL, 0);	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf, *line, *save;
	int n, found = 0;

	if (len <= 0)
		return 0;
	buf = malloc(len + 1);
	if (!buf)
		return 0;
	n = klogctl(3, buf, len);	/* SYSLOG_ACTION_READ_ALL */
	buf[n > 0 ? n : 0] = 0;
	for (line = strtok_r(buf, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save))
		found = strstr(line, a) && strstr(line, b);
	free(buf);
	return found;
}

/*
 * Each parameter, given a value outside its range (or no number at all),
 * fails the load with -EINVAL, and the kernel log names the parameter, the
 * value and the range allowed, not only the kernel's "invalid for
 * parameter".
 */
TEST_F_TIMEOUT(mod, bad_parameter_names_range, 120)
{
	static const struct { const char *arg, *range; } bad[] = {
		{ "tick_ns=49999", "allowed 50000..1000000000" },
		{ "tick_ns=0", "allowed 50000..1000000000" },
		{ "max_pending=0", "allowed 1..67108864" },
		{ "max_pending=67108865", "allowed 1..67108864" },
		{ "expire_budget=7", "allowed 8..65536" },
		{ "expire_budget=65537", "allowed 8..65536" },
		{ "max_user_timeouts=ten", "allowed 0..18446744073709551615" },
	};
	unsigned int i;

	ASSERT_EQ(tw_unload_module("twheel"), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(tw_load_module(TW_MODDIR "/twheel.ko", bad[i].arg),
			  -EINVAL) {
			TH_LOG("insmod twheel.ko %s", bad[i].arg);
		}
		EXPECT_EQ(access("/dev/twheel", F_OK), -1);
		EXPECT_TRUE(klog_has(bad[i].arg, bad[i].range)) {
			TH_LOG("no '%s ... %s' in the kernel log", bad[i].arg,
			       bad[i].range);
		}
	}
	/* The teardown loads it again with the parameters it had. */
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
 * Closing a file with many timeouts pending costs no more than arming them
 * did: close shuts them down a chunk per base lock and waits for running
 * callbacks once, not once per timeout.
 */
TEST_F_TIMEOUT(slow, close_many_pending_is_bounded, 180)
{
	enum { BATCH = 1024 };
	long n = access("/proc/lockdep", F_OK) ? 100000 : 50000, i;
	struct twheel_op *ops = calloc(BATCH, sizeof(*ops));
	uint64_t t0, armed_ns, closed_ns;
	int fd = tw_open(_metadata), k;

	ASSERT_TRUE(ops != NULL);
	if (tw_fdinfo(fd, "max_pending") < n)
		n = tw_fdinfo(fd, "max_pending");
	t0 = now_ns();
	for (i = 0; i < n; i += BATCH) {
		int count = n - i < BATCH ? n - i : BATCH;

		for (k = 0; k < count; k++)
			ops[k] = (struct twheel_op){
				.op = TWHEEL_OP_ARM, .cookie = i + k,
				.expires = 600 * SEC + (i + k) * MS,
			};
		ASSERT_EQ(tw_batch(fd, ops, count, sizeof(*ops)), 0);
		for (k = 0; k < count; k++) {
			ASSERT_EQ(ops[k].result, 0);
		}
	}
	armed_ns = now_ns() - t0;
	ASSERT_EQ(tw_fdinfo(fd, "pending"), n);
	t0 = now_ns();
	ASSERT_EQ(close(fd), 0);
	closed_ns = now_ns() - t0;
	TH_LOG("%ld timeouts: armed in %llu ms, closed in %llu ms", n,
	       (unsigned long long)armed_ns / MS,
	       (unsigned long long)closed_ns / MS);
	EXPECT_LE(closed_ns, 2 * armed_ns);
	free(ops);
}

TEST_HARNESS_MAIN
