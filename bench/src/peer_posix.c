// SPDX-License-Identifier: GPL-2.0
/*
 * peer_posix.c - POSIX timers (timer_create / timer_settime)
 *
 * One timer_t per slot, created once (prepare, untimed). Expiry is a queued
 * real-time signal aimed at the owning thread (SIGEV_THREAD_ID) carrying the
 * slot number; the signal is blocked and collected in batches with a
 * signalfd, which is the cheapest way to take many timer signals (no
 * handler, no per-signal sigwaitinfo). SIGEV_NONE would be cheaper still but
 * cannot tell anybody that a timeout expired, so it is not a real peer.
 *
 * Arm, re-arm and cancel are one timer_settime() each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench.h"

#define POSIX_SIG	(SIGRTMIN + 1)
#define POSIX_READ	64

struct ptm {
	int sfd;
	pid_t tid;
	timer_t *tm;
	unsigned char *made;
	unsigned char *armed;
	uint64_t *deadline;
};

static int ptm_open(struct peer *p, uint32_t capacity)
{
	struct ptm *t = xcalloc(1, sizeof(*t));
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, POSIX_SIG);
	/* Blocked in main() before any thread starts; make sure here too. */
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	t->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (t->sfd < 0) {
		free(t);
		return -errno;
	}
	t->tid = (pid_t)syscall(SYS_gettid);
	t->tm = xcalloc(capacity, sizeof(timer_t));
	t->made = xcalloc(capacity, 1);
	t->armed = xcalloc(capacity, 1);
	t->deadline = xcalloc(capacity, sizeof(uint64_t));
	p->priv = t;
	return 0;
}

static int ptm_prepare(struct peer *p, uint32_t slot)
{
	struct ptm *t = p->priv;
	struct sigevent sev;

	if (t->made[slot])
		return 0;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = POSIX_SIG;
	sev.sigev_value.sival_int = (int)slot;
	sev._sigev_un._tid = t->tid;	/* sigev_notify_thread_id */
	p->syscalls++;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t->tm[slot]))
		return -errno;
	t->made[slot] = 1;
	return 0;
}

static int ptm_set(struct peer *p, uint32_t slot, uint64_t ns, int flags)
{
	struct ptm *t = p->priv;
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = ns / NSEC_PER_SEC;
	its.it_value.tv_nsec = ns % NSEC_PER_SEC;
	p->syscalls++;
	if (timer_settime(t->tm[slot], flags, &its, NULL))
		return -errno;
	return 0;
}

static int ptm_arm(struct peer *p, uint32_t slot, uint64_t ns, bool abs)
{
	struct ptm *t = p->priv;
	int ret;

	if (!t->made[slot]) {
		ret = ptm_prepare(p, slot);
		if (ret)
			return ret;
	}
	if (!ns)
		ns = 1;
	t->armed[slot] = 1;
	t->deadline[slot] = abs ? ns : 0;
	return ptm_set(p, slot, ns, abs ? TIMER_ABSTIME : 0);
}

static int ptm_rearm(struct peer *p, uint32_t slot, uint64_t ns)
{
	struct ptm *t = p->priv;

	t->deadline[slot] = 0;
	return ptm_set(p, slot, ns ? ns : 1, 0);
}

static int ptm_cancel(struct peer *p, uint32_t slot)
{
	struct ptm *t = p->priv;

	t->armed[slot] = 0;
	return ptm_set(p, slot, 0, 0);
}

static int ptm_flush(struct peer *p)
{
	(void)p;
	return 0;
}

static int ptm_drain(struct peer *p, int timeout_ms, expire_fn fn, void *arg)
{
	struct ptm *t = p->priv;
	struct signalfd_siginfo si[POSIX_READ];
	struct pollfd pfd = { .fd = t->sfd, .events = POLLIN };
	ssize_t n;
	int i, got = 0;
	uint64_t now;

	if (timeout_ms > 0) {
		p->syscalls++;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return 0;
	}
	for (;;) {
		p->syscalls++;
		n = read(t->sfd, si, sizeof(si));
		if (n <= 0)
			break;
		now = now_ns();
		n /= (ssize_t)sizeof(si[0]);
		for (i = 0; i < n; i++) {
			uint32_t slot = (uint32_t)si[i].ssi_int;

			if (slot >= p->capacity || !t->armed[slot] ||
			    now < t->deadline[slot]) {
				p->stale++;
				continue;
			}
			t->armed[slot] = 0;
			fn(arg, slot, now, 0);
			got++;
		}
		if (n < POSIX_READ)
			break;
	}
	return got;
}

static void ptm_close(struct peer *p)
{
	struct ptm *t = p->priv;
	uint32_t i;

	for (i = 0; i < p->capacity; i++)
		if (t->made[i])
			timer_delete(t->tm[i]);
	close(t->sfd);
	free(t->tm);
	free(t->made);
	free(t->armed);
	free(t->deadline);
	free(t);
	p->priv = NULL;
}

const struct peer_ops posix_ops = {
	.name = "posix",
	.open = ptm_open,
	.prepare = ptm_prepare,
	.arm = ptm_arm,
	.rearm = ptm_rearm,
	.cancel = ptm_cancel,
	.flush = ptm_flush,
	.drain = ptm_drain,
	.close = ptm_close,
};
