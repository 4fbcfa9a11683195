// SPDX-License-Identifier: GPL-2.0
/*
 * idle-client.c - load for idle-server: many connections, a few of them
 * busy, and a check that the server closed exactly the idle ones
 *
 * Opens CONNS connections to 127.0.0.1:PORT. The last ACTIVE of them (the
 * last connected, so none waits for the others' connect()) send a byte
 * every IDLE_MS / 6 and read the echo; the others send nothing.
 * For RUN_MS it watches every connection: an idle one must be closed by
 * the server, never before IDLE_MS after its connect() was called; an active
 * one must stay open. Then it closes the active ones itself and prints
 *   conns=C active=A idle_closed=I early=E active_closed=X open_idle=O
 *   max_late_ms=L
 * and exits 0 only if every idle connection was closed (I == C - A), none
 * early (E == 0) and no active one (X == 0). L, how long after its idle
 * deadline the last idle connection was seen closed, is reported, not
 * judged: it includes this program's own scheduling.
 *
 * Usage: idle-client -p PORT [-c CONNS] [-a ACTIVE] [-i IDLE_MS] [-t RUN_MS]
 * Build: make -C samples (static).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/types.h>

#define MS		1000000ULL
#define MAX_EVENTS	256

struct peer {
	int fd;
	bool active, closed;
	__u64 since;		/* connect() was called, ns */
	__u64 next_send;	/* active ones */
};

struct client {
	struct peer *peers;
	unsigned int conns, active;
	__u64 idle, run;
	int epfd;
	unsigned long idle_closed, early, active_closed, errors;
	__u64 max_late;
};

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void raise_nofile(unsigned int n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= n)
		return;
	rl.rlim_cur = n;
	if (rl.rlim_max < n)
		rl.rlim_max = n;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fprintf(stderr, "idle-client: cannot raise RLIMIT_NOFILE to %u: %s\n",
			n, strerror(errno));
}

/* Connect peer @i (blocking connect, then watched for input and EOF). */
static int peer_connect(struct client *c, unsigned int i, unsigned int port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u32 = i };
	struct peer *p = &c->peers[i];

	p->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (p->fd < 0)
		return -errno;
	/* Before connect(): the server cannot accept, and start the clock, sooner. */
	p->since = now_ns();
	if (connect(p->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    epoll_ctl(c->epfd, EPOLL_CTL_ADD, p->fd, &ev))
		return -errno;
	p->active = i >= c->conns - c->active;
	p->next_send = p->since + c->idle / 6;
	return 0;
}

/* The server closed peer @i (or it has data: the echo, for active ones). */
static void peer_input(struct client *c, unsigned int i)
{
	struct peer *p = &c->peers[i];
	__u64 now = now_ns();
	char buf[64];
	ssize_t n;

	n = recv(p->fd, buf, sizeof(buf), MSG_DONTWAIT);
	if (n > 0 || (n < 0 && errno == EAGAIN))
		return;
	p->closed = true;
	epoll_ctl(c->epfd, EPOLL_CTL_DEL, p->fd, NULL);
	if (p->active) {
		c->active_closed++;
		return;
	}
	c->idle_closed++;
	if (now < p->since + c->idle)
		c->early++;
	else if (now - (p->since + c->idle) > c->max_late)
		c->max_late = now - (p->since + c->idle);
}

/* Active peers whose turn it is send one byte. */
static void send_due(struct client *c)
{
	__u64 now = now_ns();
	unsigned int i;

	for (i = c->conns - c->active; i < c->conns; i++) {
		struct peer *p = &c->peers[i];

		if (p->closed || now < p->next_send)
			continue;
		if (send(p->fd, "x", 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
			c->errors++;
		p->next_send = now + c->idle / 6;
	}
}

static int run(struct client *c)
{
	struct epoll_event evs[MAX_EVENTS];
	__u64 end = now_ns() + c->run;
	int i, n;

	while (now_ns() < end) {
		n = epoll_wait(c->epfd, evs, MAX_EVENTS, 10);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++)
			peer_input(c, evs[i].data.u32);
		send_due(c);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct client c = { .conns = 10000, .idle = 3000 * MS };
	unsigned int port = 0, i, open_idle = 0;
	__u64 run_ms = 0;
	int opt, ret;

	while ((opt = getopt(argc, argv, "p:c:a:i:t:")) != -1) {
		switch (opt) {
		case 'p':
			port = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			c.conns = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			c.active = strtoul(optarg, NULL, 0);
			break;
		case 'i':
			c.idle = strtoull(optarg, NULL, 0) * MS;
			break;
		case 't':
			run_ms = strtoull(optarg, NULL, 0);
			break;
		default:
			fputs("usage: idle-client -p PORT [-c N] [-a N] [-i MS] [-t MS]\n", stderr);
			return 2;
		}
	}
	if (!port || !c.conns || c.active > c.conns) {
		fprintf(stderr, "idle-client: need -p PORT, and ACTIVE <= CONNS\n");
		return 2;
	}
	c.run = run_ms ? run_ms * MS : 3 * c.idle;
	raise_nofile(c.conns + 64);
	c.peers = calloc(c.conns, sizeof(*c.peers));
	c.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!c.peers || c.epfd < 0) {
		perror("idle-client");
		return 1;
	}
	for (i = 0; i < c.conns; i++) {
		ret = peer_connect(&c, i, port);
		if (ret) {
			fprintf(stderr, "idle-client: connection %u: %s\n", i, strerror(-ret));
			return 1;
		}
	}
	ret = run(&c);
	for (i = 0; i < c.conns; i++) {
		if (!c.peers[i].active && !c.peers[i].closed)
			open_idle++;
		close(c.peers[i].fd);
	}
	printf("conns=%u active=%u idle_closed=%lu early=%lu active_closed=%lu",
	       c.conns, c.active, c.idle_closed, c.early, c.active_closed);
	printf(" open_idle=%u max_late_ms=%llu errors=%lu\n", open_idle,
	       (unsigned long long)(c.max_late / MS), c.errors);
	return ret || open_idle || c.early || c.active_closed || c.errors ||
	       c.idle_closed != c.conns - c.active;
}
