// SPDX-License-Identifier: GPL-2.0
/*
 * samples_test.c - the programs of samples/ against the module
 *
 * The Makefile puts them beside this program. idle-server and idle-client
 * on loopback: 10,000 connections with a 3 s idle timeout each, 1,000 of
 * them busy (a byte every 0.5 s); the server must close exactly the 9,000
 * idle ones, none before its deadline, and report no record of a
 * connection that was gone; the client checks the same from its side
 * (SKIP without IPv4: the built kernels have no networking).
 * libevent-timeouts and libuv-timeouts: a libevent and a libuv program
 * whose 2,000 timers live in one twheel file through the adapters; each
 * checks its own callbacks (once, never early, none after a delete) and
 * exits 0. uring-expiries: 1,000 records read through io_uring (multishot
 * where the kernel has it), each checked, exit 0. Every test SKIPs without
 * /dev/twheel or its programs.
 */
#include <net/if.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "twheel_util.h"

#define CONNS		10000
#define ACTIVE		1000
#define IDLE_MS		3000

/* Bring the loopback interface up: 0, or -errno (-EAFNOSUPPORT: no IPv4). */
static int loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		ret = -errno;
	ifr.ifr_flags |= IFF_UP;
	if (!ret && ioctl(fd, SIOCSIFFLAGS, &ifr))
		ret = -errno;
	close(fd);
	return ret;
}

/* Start "@path @args..." with its stdout on a pipe: the pid, or -1. */
static pid_t spawn(char *const argv[], FILE **out)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	*out = fdopen(p[0], "r");
	return pid;
}

static int exit_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct server_counts {
	unsigned long accepted, idle_closed, peer_closed, refreshes;
	unsigned long early, stale, errors, missed;
	int shared;
};

FIXTURE(samples) {
	int unused;
};

FIXTURE_SETUP(samples)
{
}

FIXTURE_TEARDOWN(samples)
{
}

/* Connecting 10,000 takes seconds under TCG, the run 9 s more. */
TEST_F_TIMEOUT(samples, idle_connections_closed_exactly, 180)
{
	char server[PATH_MAX], client[PATH_MAX], line[512] = "", sline[512] = "";
	char port[16], conns[16], active[16], idle[16];
	struct twheel_info info;
	struct server_counts sc;
	FILE *sout, *cout;
	pid_t spid, cpid;
	unsigned int p;
	int ret, cstatus;

	if (access(TW_DEV, F_OK))
		SKIP(return, "no " TW_DEV);
	ret = tw_open(_metadata);
	tw_info(_metadata, ret, &info);
	close(ret);
	if (tw_beside("idle-server", server, sizeof(server)) ||
	    tw_beside("idle-client", client, sizeof(client)))
		SKIP(return, "no idle-server and idle-client beside this test");
	ret = loopback_up();
	if (ret == -EAFNOSUPPORT || ret == -ENOSYS)
		SKIP(return, "no IPv4 in this kernel (socket: %s)", strerror(-ret));
	ASSERT_EQ(0, ret);

	snprintf(conns, sizeof(conns), "%d", CONNS);
	snprintf(active, sizeof(active), "%d", ACTIVE);
	snprintf(idle, sizeof(idle), "%d", IDLE_MS);
	spid = spawn((char *[]){ server, "-i", idle, "-n", conns, NULL }, &sout);
	ASSERT_GT(spid, 0);
	ASSERT_NE(NULL, fgets(line, sizeof(line), sout));
	ASSERT_EQ(1, sscanf(line, "listening on port %u", &p)) {
		kill(spid, SIGKILL);
	}
	snprintf(port, sizeof(port), "%u", p);

	cpid = spawn((char *[]){ client, "-p", port, "-c", conns, "-a", active,
				 "-i", idle, NULL }, &cout);
	ASSERT_GT(cpid, 0);
	if (!fgets(line, sizeof(line), cout))
		line[0] = 0;
	cstatus = exit_status(cpid);
	fclose(cout);
	/* The client is gone; let the server see its last closes. */
	usleep(500 * 1000);
	kill(spid, SIGTERM);
	if (!fgets(sline, sizeof(sline), sout))
		sline[0] = 0;
	ret = exit_status(spid);
	fclose(sout);
	ksft_print_msg("client: %s", line);
	ksft_print_msg("server: %s", sline);

	EXPECT_EQ(0, cstatus);
	EXPECT_EQ(0, ret);
	ASSERT_EQ(9, sscanf(sline, "accepted=%lu idle_closed=%lu peer_closed=%lu refreshes=%lu early=%lu stale=%lu errors=%lu missed=%lu shared=%d",
			    &sc.accepted, &sc.idle_closed, &sc.peer_closed,
			    &sc.refreshes, &sc.early, &sc.stale, &sc.errors,
			    &sc.missed, &sc.shared));
	/* Refreshes by store and records from the ring, where the module has them. */
	EXPECT_EQ((info.ioctls & TWHEEL_FEAT_SHARE) != 0, sc.shared != 0);
	EXPECT_EQ((unsigned long)CONNS, sc.accepted);
	EXPECT_EQ((unsigned long)(CONNS - ACTIVE), sc.idle_closed);
	EXPECT_EQ(0UL, sc.early);
	EXPECT_EQ(0UL, sc.stale);
	EXPECT_EQ(0UL, sc.errors);
	/* Each busy connection refreshed its timeout many times. */
	EXPECT_GE(sc.refreshes, (unsigned long)ACTIVE * 6);
}

/*
 * Run the program @name beside this test, which checks itself: exit 0, and
 * a first line starting with @key; the line is shown.
 */
static void run_sample(struct __test_metadata *_metadata, const char *name,
		       const char *key)
{
	char path[PATH_MAX], line[512] = "";
	FILE *out;
	pid_t pid;

	if (access(TW_DEV, F_OK))
		SKIP(return, "no " TW_DEV);
	if (tw_beside(name, path, sizeof(path)))
		SKIP(return, "no %s beside this test", name);
	pid = spawn((char *[]){ path, NULL }, &out);
	ASSERT_GT(pid, 0);
	if (!fgets(line, sizeof(line), out))
		line[0] = 0;
	fclose(out);
	ksft_print_msg("%s: %s", name, line);
	EXPECT_EQ(0, exit_status(pid));
	EXPECT_EQ(0, strncmp(line, key, strlen(key)));
}

TEST_F_TIMEOUT(samples, libevent_timers_in_one_file, 60)
{
	run_sample(_metadata, "libevent-timeouts", "timers=");
}

TEST_F_TIMEOUT(samples, libuv_timers_in_one_file, 60)
{
	run_sample(_metadata, "libuv-timeouts", "timers=");
}

TEST_F_TIMEOUT(samples, io_uring_reads_expiries, 60)
{
	run_sample(_metadata, "uring-expiries", "mode=");
}

TEST_HARNESS_MAIN
