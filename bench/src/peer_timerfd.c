// SPDX-License-Identifier: GPL-2.0
/*
 * peer_timerfd.c - one timerfd per timeout, expiries collected with epoll
 *
 * This is what most event loops do today when they want a kernel timer per
 * timeout. Done as a careful user would: the timerfds are created and added
 * to the epoll set once (prepare, untimed) and then re-used, so arm, re-arm
 * and cancel are one timerfd_settime() each; epoll_wait() returns up to 256
 * ready fds and each expiry costs one read() of the 8-byte count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bench.h"

#define TFD_EVENTS	256

struct tfd {
	int epfd;
	int *fd;
};

static int tfd_open(struct peer *p, uint32_t capacity)
{
	struct tfd *t = xcalloc(1, sizeof(*t));
	uint32_t i;

	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epfd < 0)
		return -errno;
	t->fd = xcalloc(capacity, sizeof(int));
	for (i = 0; i < capacity; i++)
		t->fd[i] = -1;
	p->priv = t;
	return 0;
}

static int tfd_prepare(struct peer *p, uint32_t slot)
{
	struct tfd *t = p->priv;
	struct epoll_event ev = { .events = EPOLLIN };
	int fd;

	if (t->fd[slot] >= 0)
		return 0;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ev.data.u32 = slot;
	if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		close(fd);
		return err;
	}
	p->syscalls += 2;
	t->fd[slot] = fd;
	return 0;
}

static int tfd_set(struct peer *p, uint32_t slot, uint64_t ns, int flags)
{
	struct tfd *t = p->priv;
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = ns / NSEC_PER_SEC;
	its.it_value.tv_nsec = ns % NSEC_PER_SEC;
	p->syscalls++;
	if (timerfd_settime(t->fd[slot], flags, &its, NULL))
		return -errno;
	return 0;
}

static int tfd_arm(struct peer *p, uint32_t slot, uint64_t ns, bool abs)
{
	struct tfd *t = p->priv;
	int ret;

	if (t->fd[slot] < 0) {
		ret = tfd_prepare(p, slot);
		if (ret)
			return ret;
	}
	if (!ns)
		ns = 1;
	return tfd_set(p, slot, ns, abs ? TFD_TIMER_ABSTIME : 0);
}

static int tfd_rearm(struct peer *p, uint32_t slot, uint64_t ns)
{
	return tfd_set(p, slot, ns ? ns : 1, 0);
}

static int tfd_cancel(struct peer *p, uint32_t slot)
{
	return tfd_set(p, slot, 0, 0);
}

static int tfd_flush(struct peer *p)
{
	(void)p;
	return 0;
}

static int tfd_drain(struct peer *p, int timeout_ms, expire_fn fn, void *arg)
{
	struct tfd *t = p->priv;
	struct epoll_event ev[TFD_EVENTS];
	int n, i, got = 0;
	uint64_t now, ticks;

	do {
		p->syscalls++;
		n = epoll_wait(t->epfd, ev, TFD_EVENTS, timeout_ms);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		timeout_ms = 0;
		now = now_ns();
		for (i = 0; i < n; i++) {
			uint32_t slot = ev[i].data.u32;

			p->syscalls++;
			if (read(t->fd[slot], &ticks, sizeof(ticks)) !=
			    sizeof(ticks)) {
				/* Disarmed after it fired: nothing to read. */
				p->stale++;
				continue;
			}
			fn(arg, slot, now, 0);
			got++;
		}
	} while (n == TFD_EVENTS);
	return got;
}

static void tfd_close(struct peer *p)
{
	struct tfd *t = p->priv;
	uint32_t i;

	/* Closing the epoll set first frees its items in one sweep. */
	close(t->epfd);
	for (i = 0; i < p->capacity; i++)
		if (t->fd[i] >= 0)
			close(t->fd[i]);
	free(t->fd);
	free(t);
	p->priv = NULL;
}

const struct peer_ops timerfd_ops = {
	.name = "timerfd",
	.open = tfd_open,
	.prepare = tfd_prepare,
	.arm = tfd_arm,
	.rearm = tfd_rearm,
	.cancel = tfd_cancel,
	.flush = tfd_flush,
	.drain = tfd_drain,
	.close = tfd_close,
};
