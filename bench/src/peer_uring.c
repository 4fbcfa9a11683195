// SPDX-License-Identifier: GPL-2.0
/*
 * peer_uring.c - io_uring timeouts through liburing (linked statically)
 *
 * Arm is IORING_OP_TIMEOUT, cancel IORING_OP_TIMEOUT_REMOVE and re-arm
 * IORING_TIMEOUT_UPDATE, all addressed by user_data. Operations are queued
 * in the submission ring and submitted peer->batch at a time with one
 * io_uring_enter() that also runs pending completions; completions are
 * reaped from the shared ring without system calls.
 *
 * The ring is set up the way a tuned user would on 6.1+: SINGLE_ISSUER and
 * DEFER_TASKRUN when the kernel has them (COOP_TASKRUN otherwise),
 * SUBMIT_ALL, and a completion ring big enough that it never overflows.
 *
 * user_data is (generation << 40 | kind << 32 | slot): a completion of an
 * older incarnation of a slot is recognised and ignored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define URING_SQ	4096
#define URING_CQ	65536

enum { K_TIMEOUT = 1, K_REMOVE = 2, K_UPDATE = 3 };

struct upending {
	uint32_t slot;
	uint64_t now;
};

struct uring {
	struct io_uring ring;
	uint32_t *gen;
	unsigned char *armed;
	struct __kernel_timespec ts[URING_SQ];
	unsigned int queued;
	struct upending *fired;	/* expiries reaped outside drain() */
	size_t nfired, capfired;
};

static uint64_t ud(uint32_t slot, uint32_t gen, unsigned int kind)
{
	return (uint64_t)gen << 40 | (uint64_t)kind << 32 | slot;
}

static int uring_open(struct peer *p, uint32_t capacity)
{
	static const unsigned int tries[] = {
		IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
		IORING_SETUP_SUBMIT_ALL,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL,
		0,
	};
	struct uring *u = xcalloc(1, sizeof(*u));
	struct io_uring_params par;
	size_t i;
	int ret = -EINVAL;

	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		memset(&par, 0, sizeof(par));
		par.flags = tries[i] | IORING_SETUP_CQSIZE;
		par.cq_entries = URING_CQ;
		ret = io_uring_queue_init_params(URING_SQ, &u->ring, &par);
		if (!ret)
			break;
	}
	if (ret) {
		free(u);
		return ret;
	}
	u->gen = xcalloc(capacity, sizeof(*u->gen));
	u->armed = xcalloc(capacity, 1);
	p->priv = u;
	return 0;
}

static void uring_record(struct uring *u, uint32_t slot, uint64_t now)
{
	if (u->nfired == u->capfired) {
		u->capfired = u->capfired ? 2 * u->capfired : 1024;
		u->fired = realloc(u->fired, u->capfired * sizeof(*u->fired));
		if (!u->fired)
			die("out of memory");
	}
	u->fired[u->nfired].slot = slot;
	u->fired[u->nfired].now = now;
	u->nfired++;
}

/* Take every completion in the ring; expiries go to u->fired. */
static void uring_reap(struct peer *p)
{
	struct uring *u = p->priv;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	uint64_t now = 0;

	io_uring_for_each_cqe(&u->ring, head, cqe) {
		uint64_t d = cqe->user_data;
		uint32_t slot = (uint32_t)d;
		unsigned int kind = (d >> 32) & 0xff;
		uint32_t gen = (uint32_t)(d >> 40);

		n++;
		if (kind != K_TIMEOUT || cqe->res != -ETIME)
			continue;
		if (!u->armed[slot] || (u->gen[slot] & 0xffffff) != gen) {
			p->stale++;
			continue;
		}
		if (!now)
			now = now_ns();
		u->armed[slot] = 0;
		uring_record(u, slot, now);
	}
	io_uring_cq_advance(&u->ring, n);
}

static int uring_submit(struct peer *p)
{
	struct uring *u = p->priv;
	int ret;

	if (u->queued) {
		p->syscalls++;
		ret = io_uring_submit_and_get_events(&u->ring);
		u->queued = 0;
		if (ret < 0)
			return ret;
	}
	uring_reap(p);
	return 0;
}

static struct io_uring_sqe *uring_sqe(struct peer *p)
{
	struct uring *u = p->priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		uring_submit(p);
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			die("io_uring: no sqe after submit");
	}
	return sqe;
}

static int uring_queued(struct peer *p)
{
	struct uring *u = p->priv;

	if (++u->queued >= p->batch)
		return uring_submit(p);
	return 0;
}

static void set_ts(struct __kernel_timespec *ts, uint64_t ns)
{
	ts->tv_sec = ns / NSEC_PER_SEC;
	ts->tv_nsec = ns % NSEC_PER_SEC;
}

static int uring_arm(struct peer *p, uint32_t slot, uint64_t ns, bool abs)
{
	struct uring *u = p->priv;
	struct io_uring_sqe *sqe = uring_sqe(p);
	struct __kernel_timespec *ts = &u->ts[u->queued];

	set_ts(ts, ns);
	io_uring_prep_timeout(sqe, ts, 0, abs ? IORING_TIMEOUT_ABS : 0);
	u->gen[slot]++;
	u->armed[slot] = 1;
	io_uring_sqe_set_data64(sqe, ud(slot, u->gen[slot] & 0xffffff,
					K_TIMEOUT));
	return uring_queued(p);
}

static int uring_rearm(struct peer *p, uint32_t slot, uint64_t ns)
{
	struct uring *u = p->priv;
	struct io_uring_sqe *sqe = uring_sqe(p);
	struct __kernel_timespec *ts = &u->ts[u->queued];

	set_ts(ts, ns);
	io_uring_prep_timeout_update(sqe, ts,
				     ud(slot, u->gen[slot] & 0xffffff,
					K_TIMEOUT), 0);
	io_uring_sqe_set_data64(sqe, ud(slot, 0, K_UPDATE));
	return uring_queued(p);
}

static int uring_cancel(struct peer *p, uint32_t slot)
{
	struct uring *u = p->priv;
	struct io_uring_sqe *sqe = uring_sqe(p);

	io_uring_prep_timeout_remove(sqe, ud(slot, u->gen[slot] & 0xffffff,
					     K_TIMEOUT), 0);
	io_uring_sqe_set_data64(sqe, ud(slot, 0, K_REMOVE));
	u->armed[slot] = 0;
	return uring_queued(p);
}

static int uring_flush(struct peer *p)
{
	return uring_submit(p);
}

static int uring_drain(struct peer *p, int timeout_ms, expire_fn fn, void *arg)
{
	struct uring *u = p->priv;
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts;
	size_t i;
	int ret;

	ret = uring_submit(p);
	if (ret)
		return ret;
	if (!u->nfired && timeout_ms > 0) {
		set_ts(&ts, (uint64_t)timeout_ms * NSEC_PER_MSEC);
		p->syscalls++;
		ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
		if (ret && ret != -ETIME && ret != -EINTR)
			return ret;
		uring_reap(p);
	} else if (!u->nfired) {
		/* Run deferred completions without waiting. */
		p->syscalls++;
		io_uring_get_events(&u->ring);
		uring_reap(p);
	}
	for (i = 0; i < u->nfired; i++)
		fn(arg, u->fired[i].slot, u->fired[i].now, 0);
	ret = (int)u->nfired;
	u->nfired = 0;
	return ret;
}

static void uring_close(struct peer *p)
{
	struct uring *u = p->priv;

	io_uring_queue_exit(&u->ring);
	free(u->gen);
	free(u->armed);
	free(u->fired);
	free(u);
	p->priv = NULL;
}

const struct peer_ops uring_ops = {
	.name = "io_uring",
	.open = uring_open,
	.arm = uring_arm,
	.rearm = uring_rearm,
	.cancel = uring_cancel,
	.flush = uring_flush,
	.drain = uring_drain,
	.close = uring_close,
};
