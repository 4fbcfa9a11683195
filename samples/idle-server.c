// SPDX-License-Identifier: GPL-2.0
/*
 * idle-server.c - an epoll TCP echo server that closes idle connections,
 * with all of their idle timeouts in one twheel file (libtwheel)
 *
 * The pattern a server with many connections copies:
 *
 *   - accept: arm the connection's timeout IDLE_MS from now, with the
 *     connection's fd and generation as the cookie;
 *   - every read: push the timeout out again (twheel_refresh(): with the
 *     file's shared table a store into memory, else a queued re-arm);
 *   - the peer closes: cancel the timeout (queued) and close;
 *   - the timeout's record arrives (the twheel fd is in the epoll set like
 *     any socket): the connection was idle IDLE_MS, close it; unless the
 *     record says the refresh came too late (TWHEEL_EV_REFRESH_MISSED: the
 *     timeout had fired already), then arm a new one.
 *
 * Queued operations go to the kernel in one system call per round of the
 * event loop (twheel_flush() before epoll_wait()), however many
 * connections saw traffic; twheel_fill() flushes first too, so a record is
 * never read for a timeout the server has already re-armed or cancelled.
 * Where the module has it (TWHEEL_FEAT_SHARE), the file shares its timeout
 * table and an expiry ring with the server: refreshes and records then cost
 * no system call at all (-s: do without).
 *
 * Usage: idle-server [-p PORT] [-i IDLE_MS] [-n MAX] [-s] (MAX: connections)
 * It listens on 127.0.0.1:PORT (0: any free port), prints "listening on
 * port N" and, on SIGTERM or SIGINT, one line of counters:
 *   accepted=A idle_closed=I peer_closed=P refreshes=R early=E stale=S
 *   errors=X missed=M shared=0|1
 * (early: records that arrived before the connection's deadline; stale:
 * records of a connection that is gone; both must be 0; missed: refreshes
 * that came after the timeout fired, a new timeout armed for each) and
 * exits 0 when early, stale and errors are 0.
 *
 * Build: make -C samples (static, with lib/out/libtwheel.a).
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/types.h>

#include "libtwheel.h"

#define MS		1000000ULL
#define MAX_EVENTS	256
#define LISTEN_COOKIE	(~0ULL)
#define TWHEEL_COOKIE	(~1ULL)
#define SIGNAL_COOKIE	(~2ULL)

/* One connection, indexed by its fd. */
struct conn {
	struct twheel_result arm;	/* .handle: its timeout, after flush */
	__u64 deadline;		/* CLOCK_MONOTONIC, ns */
	__u32 gen;			/* of the fd's current connection */
	bool open;
};

struct server {
	struct twheel *tw;
	int epfd, lfd, sfd;
	__u64 idle;			/* ns */
	struct conn *conns;
	unsigned int max;
	unsigned long accepted, idle_closed, peer_closed, refreshes, missed;
	unsigned long early, stale, errors;
	bool no_share;			/* -s */
};

static __u64 cookie_of(int fd, __u32 gen)
{
	return (__u64)gen << 32 | (__u32)fd;
}

static int listen_on(unsigned int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(sa);
	int one = 1, fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fd, 4096) ||
	    getsockname(fd, (struct sockaddr *)&sa, &len)) {
		int err = -errno;

		close(fd);
		return err;
	}
	printf("listening on port %u\n", ntohs(sa.sin_port));
	fflush(stdout);
	return fd;
}

static int watch(struct server *s, int fd, __u64 data)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = data };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/* Close the connection on @fd; its timeout is cancelled or has fired. */
static void conn_close(struct server *s, int fd)
{
	s->conns[fd].open = false;
	s->conns[fd].gen++;
	close(fd);
}

/* Arm @c's timeout for its deadline (queued: the handle comes at flush). */
static int arm_idle(struct server *s, int fd, struct conn *c)
{
	memset(&c->arm, 0, sizeof(c->arm));
	return twheel_prep_arm(s->tw, cookie_of(fd, c->gen), c->deadline, 0,
			       TWHEEL_ARM_ABS, 0, &c->arm);
}

/* Accept what is pending; arm each new connection's timeout (queued). */
static void accept_all(struct server *s)
{
	struct conn *c;
	int fd;

	for (;;) {
		fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		if ((unsigned int)fd >= s->max) {
			close(fd);
			s->errors++;
			continue;
		}
		c = &s->conns[fd];
		c->deadline = twheel_now_ns() + s->idle;
		if (arm_idle(s, fd, c) || watch(s, fd, fd)) {
			close(fd);
			s->errors++;
			continue;
		}
		c->open = true;
		s->accepted++;
	}
}

/* Echo what the peer sent and push its timeout out; close on EOF. */
static void conn_read(struct server *s, int fd)
{
	struct conn *c = &s->conns[fd];
	char buf[4096];
	ssize_t n;
	int ret;

	n = read(fd, buf, sizeof(buf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (twheel_prep_cancel(s->tw, c->arm.handle, 0, NULL))
			s->errors++;
		conn_close(s, fd);
		s->peer_closed++;
		return;
	}
	if (write(fd, buf, n) != n)
		s->errors++;
	c->deadline = twheel_now_ns() + s->idle;
	/* -ENOENT: it fired just now; its record (marked missed) is coming. */
	ret = twheel_refresh(s->tw, c->arm.handle, c->deadline, NULL);
	if (ret < 0 && ret != -ENOENT)
		s->errors++;
	else
		s->refreshes++;
}

/* The records that are ready: each closes an idle connection. */
static void expire_idle(struct server *s)
{
	const struct twheel_event *ev;
	int ret = twheel_fill(s->tw);
	struct conn *c;
	int fd;

	if (ret < 0) {
		if (ret != -EAGAIN)
			s->errors++;
		return;
	}
	twheel_for_each_event(s->tw, ev) {
		fd = (int)(__u32)ev->cookie;
		c = (unsigned int)fd < s->max ? &s->conns[fd] : NULL;
		if (!c || !c->open || cookie_of(fd, c->gen) != ev->cookie) {
			s->stale++;
			continue;
		}
		/* Traffic came after it fired: a new timeout, not a close. */
		if (ev->flags & TWHEEL_EV_REFRESH_MISSED) {
			if (arm_idle(s, fd, c))
				s->errors++;
			s->missed++;
			continue;
		}
		if (ev->expired < c->deadline || twheel_now_ns() < c->deadline)
			s->early++;
		conn_close(s, fd);
		s->idle_closed++;
	}
}

static int serve(struct server *s)
{
	struct epoll_event evs[MAX_EVENTS];
	bool stop = false;
	int i, n;

	while (!stop) {
		if (twheel_flush(s->tw) < 0)
			s->errors++;
		n = epoll_wait(s->epfd, evs, MAX_EVENTS, -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			if (evs[i].data.u64 == SIGNAL_COOKIE)
				stop = true;
			else if (evs[i].data.u64 == LISTEN_COOKIE)
				accept_all(s);
			else if (evs[i].data.u64 == TWHEEL_COOKIE)
				expire_idle(s);
			else
				conn_read(s, (int)evs[i].data.u64);
		}
	}
	return 0;
}

static int setup(struct server *s, unsigned int port)
{
	struct rlimit rl;
	unsigned int slots;
	sigset_t sigs;
	int ret;

	/* One fd per connection, and a few more. */
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < s->max + 64) {
		rl.rlim_cur = s->max + 64;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			fprintf(stderr, "idle-server: RLIMIT_NOFILE stays %llu: %s\n",
				(unsigned long long)rl.rlim_cur, strerror(errno));
	}
	s->conns = calloc(s->max, sizeof(*s->conns));
	if (!s->conns)
		return -ENOMEM;
	ret = twheel_open(&s->tw, NULL, 0, TWHEEL_OPEN_NONBLOCK);
	if (ret)
		return ret;
	/*
	 * A table entry per timeout (a connection's new timeout may be armed
	 * before its old one is freed: twice the connections) and a ring.
	 */
	if (!s->no_share) {
		slots = 2 * s->max + 1;
		if (slots > twheel_get_info(s->tw)->max_pending + 1)
			slots = twheel_get_info(s->tw)->max_pending + 1;
		ret = twheel_share(s->tw, slots, 4096);
		if (ret && ret != -EOPNOTSUPP)
			return ret;
	}
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0)
		return -errno;
	s->lfd = listen_on(port);
	if (s->lfd < 0)
		return s->lfd;
	/* SIGTERM and SIGINT end the loop: they are read from a signalfd. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL))
		return -errno;
	s->sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (s->sfd < 0)
		return -errno;
	ret = watch(s, s->lfd, LISTEN_COOKIE);
	if (!ret)
		ret = watch(s, twheel_fd(s->tw), TWHEEL_COOKIE);
	if (!ret)
		ret = watch(s, s->sfd, SIGNAL_COOKIE);
	return ret;
}

int main(int argc, char **argv)
{
	struct server s = { .idle = 3000 * MS, .max = 65536 };
	unsigned int port = 0;
	int opt, ret;

	while ((opt = getopt(argc, argv, "p:i:n:s")) != -1) {
		switch (opt) {
		case 'p':
			port = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			s.idle = strtoull(optarg, NULL, 0) * MS;
			break;
		case 'n':
			s.max = strtoul(optarg, NULL, 0) + 16;
			break;
		case 's':
			s.no_share = true;
			break;
		default:
			fprintf(stderr,
				"usage: idle-server [-p PORT] [-i IDLE_MS] [-n MAX] [-s]\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	ret = setup(&s, port);
	if (ret) {
		fprintf(stderr, "idle-server: %s\n", strerror(-ret));
		return 1;
	}
	ret = serve(&s);
	printf("accepted=%lu idle_closed=%lu peer_closed=%lu refreshes=%lu",
	       s.accepted, s.idle_closed, s.peer_closed, s.refreshes);
	printf(" early=%lu stale=%lu errors=%lu missed=%lu shared=%d\n", s.early,
	       s.stale, s.errors, s.missed, !!twheel_table(s.tw, NULL));
	twheel_close(s.tw);
	return ret || s.early || s.stale || s.errors;
}
