// SPDX-License-Identifier: GPL-2.0
/*
 * cli_test.c - the twheel command line tool (twheel(8)) against the module
 *
 * Runs the static CLI that the Makefile puts beside this program (out/twheel,
 * /tests/twheel in the guests) and reads what it prints: the versions of
 * the tool, the library and the loaded module agree; `arm -v --boottime`
 * reports the time left on the timeout's own clock; `ps` shows the counters
 * of an open file, as a table, as JSON and with --watch; every command takes
 * --json. SKIPs without /dev/twheel or the tool.
 */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "twheel_util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME	0x00000080
#endif

/* The tool beside this program. */
static int cli_path(char *out, size_t len)
{
	return tw_beside("twheel", out, len);
}

/* Run "twheel ARGS" through the shell; its stdout in @out; the exit status. */
static int run_cli(const char *args, char *out, size_t len)
{
	char cli[PATH_MAX], cmd[PATH_MAX + 600];
	size_t used = 0, n;
	FILE *p;
	int status;

	if (cli_path(cli, sizeof(cli)))
		return -1;
	snprintf(cmd, sizeof(cmd), "%s %s", cli, args);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (used + 1 < len && (n = fread(out + used, 1, len - used - 1, p)) > 0)
		used += n;
	out[used] = 0;
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The value after "@key " or "@key": in @s, as a number; -1 if absent. */
static long long field(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	if (!p)
		return -1;
	p += strlen(key);
	while (*p == ' ' || *p == ':' || *p == '"')
		p++;
	return strtoll(p, NULL, 10);
}

/* One JSON value per line: brackets balance outside strings on each line. */
static int json_lines_ok(const char *s)
{
	int depth = 0, in_str = 0, lines = 0;

	for (; *s; s++) {
		if (in_str) {
			if (*s == '\\' && s[1])
				s++;
			else if (*s == '"')
				in_str = 0;
			continue;
		}
		switch (*s) {
		case '"': in_str = 1; break;
		case '{': case '[': depth++; break;
		case '}': case ']': if (--depth < 0) return 0; break;
		case '\n': if (depth) return 0; lines++; break;
		}
	}
	return !depth && !in_str && lines > 0;
}

FIXTURE(cli) {
	char out[65536];
};

FIXTURE_SETUP(cli)
{
	char cli[PATH_MAX];

	if (access(TW_DEV, F_OK) || cli_path(cli, sizeof(cli)))
		SKIP(return, "needs " TW_DEV " and the twheel tool beside this test");
}

FIXTURE_TEARDOWN(cli)
{
}

/* One release: the tool's, the library's and the loaded module's. */
TEST_F(cli, versions_agree)
{
	char tool[64] = "", lib[64] = "", mod[64] = "";

	ASSERT_EQ(run_cli("--version", self->out, sizeof(self->out)), 0);
	ASSERT_EQ(sscanf(self->out, "twheel %63s\nlibtwheel %63s\nmodule %63s",
			 tool, lib, mod), 3) {
		TH_LOG("twheel --version printed '%s'", self->out);
	}
	EXPECT_STRNE(tool, "");
	EXPECT_STREQ(tool, lib);
	EXPECT_STREQ(tool, mod);
}

/*
 * In a time namespace whose CLOCK_BOOTTIME is 1000 s ahead of its
 * CLOCK_MONOTONIC (as after a long suspend), `arm -v --boottime 300ms`
 * says no more than 300 ms remain: a BOOTTIME deadline less a MONOTONIC
 * now would say 1000 s more.
 */
TEST_F(cli, arm_boottime_remaining)
{
	int fd, status;
	pid_t pid;

	if (unshare(CLONE_NEWTIME))
		SKIP(return, "no time namespaces here (unshare: %s)", strerror(errno));
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(write(fd, "boottime 1000 0\n", 16), 16);
	close(fd);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		long long rem;

		if (run_cli("arm -v --boottime 300ms", self->out, sizeof(self->out)))
			_exit(2);
		rem = field(self->out, "remaining_ns");
		printf("# %s", self->out);
		_exit(rem < 0 ? 3 : rem > 300 * (long long)MS ? 4 : 0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0) {
		TH_LOG("step %d (2: arm failed, 3: no remaining_ns, 4: too much left)",
		       WEXITSTATUS(status));
	}
}

/*
 * The same after a real suspend: the guest sleeps 6 s (RTC alarm), so
 * CLOCK_BOOTTIME runs that much ahead of CLOCK_MONOTONIC, and
 * `arm -v --boottime 300ms` still says no more than 300 ms remain.
 */
TEST_F_TIMEOUT(cli, arm_boottime_remaining_after_suspend, 120)
{
	struct timespec b, m;
	long long rem;
	int ret;

	ret = tw_suspend(6);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no suspend to RAM or no RTC wake alarm here");
	ASSERT_EQ(ret, 0);
	clock_gettime(CLOCK_BOOTTIME, &b);
	clock_gettime(CLOCK_MONOTONIC, &m);
	if (b.tv_sec - m.tv_sec < 2)
		SKIP(return, "the suspend did not stop CLOCK_MONOTONIC");
	ASSERT_EQ(run_cli("arm -v --boottime 300ms", self->out, sizeof(self->out)), 0);
	rem = field(self->out, "remaining_ns");
	EXPECT_GE(rem, 0) {
		TH_LOG("no remaining_ns in '%s'", self->out);
	}
	EXPECT_LE(rem, 300 * (long long)MS) {
		TH_LOG("CLOCK_BOOTTIME %lld s ahead; the tool said '%s'",
		       (long long)(b.tv_sec - m.tv_sec), self->out);
	}
}

/*
 * A file with three timeouts armed, one read, one cancelled, one left:
 * ps shows its counters, as a table and as JSON.
 */
TEST_F(cli, ps_counters)
{
	int fd = tw_open(_metadata);
	struct twheel_event ev;
	char needle[64], *line;
	uint64_t h;

	tw_arm(_metadata, fd, 1, MS);
	h = tw_arm(_metadata, fd, 2, 60 * SEC);
	tw_arm(_metadata, fd, 3, 60 * SEC);
	ASSERT_EQ(tw_cancel(fd, h), 0);
	ASSERT_TRUE(tw_wait_ready(fd, 5000));
	ASSERT_EQ(tw_read(_metadata, fd, &ev, 1), 1);

	ASSERT_EQ(run_cli("ps", self->out, sizeof(self->out)), 0);
	snprintf(needle, sizeof(needle), "\n%7d ", getpid());
	line = strstr(self->out, needle);
	ASSERT_NE(line, NULL) {
		TH_LOG("no line for pid %d in:\n%s", getpid(), self->out);
	}
	{
		char comm[64], fdname[16], p99[32];
		long long pid, pending, queued, armed, fired, cancelled, overruns;

		ASSERT_EQ(sscanf(line + 1, "%lld %63s %15s %lld %lld %lld %lld %lld %lld %31s",
				 &pid, comm, fdname, &pending, &queued, &armed,
				 &fired, &cancelled, &overruns, p99), 10);
		EXPECT_EQ(atoi(fdname), fd);
		EXPECT_EQ(pending, 1);
		EXPECT_EQ(queued, 0);
		EXPECT_EQ(armed, 3);
		EXPECT_EQ(fired, 1);
		EXPECT_EQ(cancelled, 1);
		EXPECT_EQ(overruns, 0);
		EXPECT_STRNE(p99, "-");
	}

	ASSERT_EQ(run_cli("--json ps", self->out, sizeof(self->out)), 0);
	EXPECT_TRUE(json_lines_ok(self->out));
	snprintf(needle, sizeof(needle), "{\"pid\":%d,", getpid());
	line = strstr(self->out, needle);
	ASSERT_NE(line, NULL) {
		TH_LOG("no object for pid %d in %s", getpid(), self->out);
	}
	EXPECT_EQ(field(line, "\"armed\""), 3);
	EXPECT_EQ(field(line, "\"fired\""), 1);
	EXPECT_EQ(field(line, "\"cancelled\""), 1);
	EXPECT_EQ(field(line, "\"pending\""), 1);
	EXPECT_NE(strstr(line, "\"late\":["), NULL);
	close(fd);
}

/*
 * ps --watch lists again and again: three listings arrive (however slow the
 * machine: no bound on how soon), then the tool is stopped.
 */
TEST_F(cli, ps_watch)
{
	char cli[PATH_MAX], line[512];
	int pfd[2], headers = 0;
	pid_t pid;
	FILE *f;

	ASSERT_EQ(cli_path(cli, sizeof(cli)), 0);
	ASSERT_EQ(pipe(pfd), 0);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		execl(cli, cli, "ps", "--watch", "0.1", (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	ASSERT_NE(f, NULL);
	while (headers < 3 && fgets(line, sizeof(line), f))
		headers += strstr(line, "COMMAND") != NULL;
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	fclose(f);
	EXPECT_EQ(headers, 3);
}

/* --json on every command, and the output is JSON lines. */
TEST_F(cli, json_every_command)
{
	static const char *const cmds[] = {
		"--json info", "--json --version", "--json ps",
		"arm --json --count 2 --period 10ms -v 10ms",
	};
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		ASSERT_EQ(run_cli(cmds[i], self->out, sizeof(self->out)), 0) {
			TH_LOG("twheel %s failed", cmds[i]);
		}
		EXPECT_TRUE(json_lines_ok(self->out)) {
			TH_LOG("twheel %s: not JSON lines:\n%s", cmds[i], self->out);
		}
	}
	EXPECT_NE(strstr(self->out, "\"type\":\"expiry\""), NULL);
	EXPECT_NE(strstr(self->out, "\"type\":\"stats\""), NULL);
	/* stat reads debugfs: as root, with it mounted (the guests). */
	if (!access("/sys/kernel/debug/twheel/stats", R_OK)) {
		ASSERT_EQ(run_cli("--json stat", self->out, sizeof(self->out)), 0);
		EXPECT_TRUE(json_lines_ok(self->out));
		EXPECT_NE(strstr(self->out, "\"cpus\":[{\"cpu\":"), NULL) {
			TH_LOG("%s", self->out);
		}
	}
	/* sleep prints nothing, in either form. */
	EXPECT_EQ(run_cli("--json sleep 10ms", self->out, sizeof(self->out)), 0);
	EXPECT_STREQ(self->out, "");
}

TEST_HARNESS_MAIN
