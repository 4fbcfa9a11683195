// SPDX-License-Identifier: GPL-2.0
/*
 * peer_loop.c - the timers of the event-loop libraries servers link today
 *
 * "libuv": one uv_timer_t per slot on one loop (a binary heap; a re-arm is
 * uv_timer_start() again, which takes the loop's cached time). "libevent":
 * one timer event per slot on one event_base (a min-heap; event_add()
 * reads the monotonic clock, coarse by default). "libevent-common": the
 * same, with every timeout of a slot's duration in one of libevent's
 * common-timeout queues (event_base_init_common_timeout()): O(1) adds when
 * all durations are equal, the idle-timeout case. These cost no system
 * call per operation; expiries come from running the loop without
 * blocking (its epoll_wait() with a zero timeout, or one of @timeout_ms).
 *
 * Durations are rounded up to the library's resolution (1 ms for libuv,
 * 1 us for libevent), never down. Debian's libuv1-dev and libevent-dev,
 * linked statically.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <uv.h>

#include "bench.h"

/* --------------------------------------------------------------- libuv */

struct uvp {
	uv_loop_t loop;
	uv_timer_t wait;	/* ends a drain that waits */
	uv_timer_t *t;
	unsigned char *armed;
	expire_fn fn;
	void *arg;
	int got;
};

static void uvp_fired(uv_timer_t *h)
{
	struct peer *p = h->data;
	struct uvp *u = p->priv;
	uint32_t slot = (uint32_t)(h - u->t);

	u->armed[slot] = 0;
	if (u->fn)
		u->fn(u->arg, slot, now_ns(), 0);
	u->got++;
}

static int uvp_open(struct peer *p, uint32_t capacity)
{
	struct uvp *u = xcalloc(1, sizeof(*u));
	uint32_t i;

	if (uv_loop_init(&u->loop)) {
		free(u);
		return -ENOMEM;
	}
	uv_timer_init(&u->loop, &u->wait);
	u->t = xcalloc(capacity, sizeof(*u->t));
	u->armed = xcalloc(capacity, 1);
	for (i = 0; i < capacity; i++) {
		uv_timer_init(&u->loop, &u->t[i]);
		u->t[i].data = p;
	}
	p->priv = u;
	return 0;
}

/* A delay in whole milliseconds, rounded up. */
static uint64_t uvp_ms(uint64_t ns)
{
	return (ns + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC;
}

static int uvp_arm(struct peer *p, uint32_t slot, uint64_t ns, bool abs)
{
	struct uvp *u = p->priv;
	uint64_t now;

	if (abs) {
		now = now_ns();
		ns = ns > now ? ns - now : 0;
	}
	u->armed[slot] = 1;
	return uv_timer_start(&u->t[slot], uvp_fired, uvp_ms(ns), 0) ? -EINVAL : 0;
}

static int uvp_rearm(struct peer *p, uint32_t slot, uint64_t ns)
{
	return uvp_arm(p, slot, ns, false);
}

static int uvp_cancel(struct peer *p, uint32_t slot)
{
	struct uvp *u = p->priv;

	u->armed[slot] = 0;
	return uv_timer_stop(&u->t[slot]) ? -EINVAL : 0;
}

static int uvp_flush(struct peer *p)
{
	(void)p;
	return 0;
}

static void uvp_waited(uv_timer_t *h)
{
	(void)h;
}

static int uvp_drain(struct peer *p, int timeout_ms, expire_fn fn, void *arg)
{
	struct uvp *u = p->priv;

	u->fn = fn;
	u->arg = arg;
	u->got = 0;
	p->syscalls++;
	if (timeout_ms > 0) {
		uv_update_time(&u->loop);
		uv_timer_start(&u->wait, uvp_waited, (uint64_t)timeout_ms, 0);
		uv_run(&u->loop, UV_RUN_ONCE);
		uv_timer_stop(&u->wait);
	} else {
		uv_run(&u->loop, UV_RUN_NOWAIT);
	}
	u->fn = NULL;
	return u->got;
}

static void uvp_close_cb(uv_handle_t *h)
{
	(void)h;
}

static void uvp_close(struct peer *p)
{
	struct uvp *u = p->priv;
	uint32_t i;

	for (i = 0; i < p->capacity; i++)
		uv_close((uv_handle_t *)&u->t[i], uvp_close_cb);
	uv_close((uv_handle_t *)&u->wait, uvp_close_cb);
	uv_run(&u->loop, UV_RUN_DEFAULT);
	uv_loop_close(&u->loop);
	free(u->t);
	free(u->armed);
	free(u);
	p->priv = NULL;
}

const struct peer_ops libuv_ops = {
	.name = "libuv",
	.open = uvp_open,
	.arm = uvp_arm,
	.rearm = uvp_rearm,
	.cancel = uvp_cancel,
	.flush = uvp_flush,
	.drain = uvp_drain,
	.close = uvp_close,
};

/* ------------------------------------------------------------ libevent */

/* Common-timeout queues one base keeps, one per duration seen. */
#define EVP_COMMON	8

/* An event's callback argument: its slot, beside the peer it belongs to. */
struct evp_cb {
	struct peer *p;
	uint32_t slot;
};

struct evp {
	struct event_base *base;
	struct event **ev;
	struct evp_cb *cbs;
	unsigned char *armed;
	bool common;
	struct {
		uint64_t ns;
		const struct timeval *tv;
	} queue[EVP_COMMON];
	unsigned int nqueues;
	expire_fn fn;
	void *arg;
	int got;
};

static void evp_fired(evutil_socket_t fd, short what, void *arg)
{
	struct evp_cb *cb = arg;
	struct evp *e = cb->p->priv;

	(void)fd;
	(void)what;
	e->armed[cb->slot] = 0;
	if (e->fn)
		e->fn(e->arg, cb->slot, now_ns(), 0);
	e->got++;
}

/* "libevent-common" is libevent with common timeouts. */
static int evp_open(struct peer *p, uint32_t capacity)
{
	bool common = !strcmp(p->label, "libevent-common");
	struct evp *e = xcalloc(1, sizeof(*e));
	uint32_t i;

	e->base = event_base_new();
	if (!e->base) {
		free(e);
		return -ENOMEM;
	}
	e->common = common;
	e->ev = xcalloc(capacity, sizeof(*e->ev));
	e->armed = xcalloc(capacity, 1);
	e->cbs = xcalloc(capacity, sizeof(*e->cbs));
	for (i = 0; i < capacity; i++) {
		e->cbs[i] = (struct evp_cb){ .p = p, .slot = i };
		e->ev[i] = evtimer_new(e->base, evp_fired, &e->cbs[i]);
		if (!e->ev[i])
			die("%s: evtimer_new", p->label);
	}
	p->priv = e;
	return 0;
}

/* @ns as a timeval, rounded up to a microsecond. */
static struct timeval evp_tv(uint64_t ns)
{
	uint64_t us = (ns + 999) / 1000;

	return (struct timeval){ .tv_sec = (time_t)(us / 1000000),
				 .tv_usec = (suseconds_t)(us % 1000000) };
}

/* The common-timeout queue of duration @ns, made on first use. */
static const struct timeval *evp_queue(struct evp *e, uint64_t ns)
{
	struct timeval tv = evp_tv(ns);
	unsigned int i;

	for (i = 0; i < e->nqueues; i++)
		if (e->queue[i].ns == ns)
			return e->queue[i].tv;
	if (e->nqueues == EVP_COMMON)
		return NULL;
	e->queue[i].ns = ns;
	e->queue[i].tv = event_base_init_common_timeout(e->base, &tv);
	if (!e->queue[i].tv)
		return NULL;
	e->nqueues++;
	return e->queue[i].tv;
}

static int evp_arm(struct peer *p, uint32_t slot, uint64_t ns, bool abs)
{
	struct evp *e = p->priv;
	const struct timeval *q;
	struct timeval tv;
	uint64_t now;

	if (abs) {
		now = now_ns();
		ns = ns > now ? ns - now : 0;
	}
	e->armed[slot] = 1;
	if (e->common) {
		q = evp_queue(e, ns);
		if (!q)
			return -ENOSPC;
		return event_add(e->ev[slot], q) ? -EINVAL : 0;
	}
	tv = evp_tv(ns);
	return event_add(e->ev[slot], &tv) ? -EINVAL : 0;
}

static int evp_rearm(struct peer *p, uint32_t slot, uint64_t ns)
{
	return evp_arm(p, slot, ns, false);
}

static int evp_cancel(struct peer *p, uint32_t slot)
{
	struct evp *e = p->priv;

	e->armed[slot] = 0;
	return event_del(e->ev[slot]) ? -EINVAL : 0;
}

static int evp_drain(struct peer *p, int timeout_ms, expire_fn fn, void *arg)
{
	struct evp *e = p->priv;

	struct timeval tv = evp_tv((uint64_t)timeout_ms * NSEC_PER_MSEC);

	e->fn = fn;
	e->arg = arg;
	e->got = 0;
	p->syscalls++;
	if (timeout_ms > 0) {
		event_base_loopexit(e->base, &tv);
		event_base_loop(e->base, EVLOOP_ONCE);
	} else {
		event_base_loop(e->base, EVLOOP_NONBLOCK);
	}
	e->fn = NULL;
	return e->got;
}

static void evp_close(struct peer *p)
{
	struct evp *e = p->priv;
	uint32_t i;

	for (i = 0; i < p->capacity; i++)
		event_free(e->ev[i]);
	event_base_free(e->base);
	free(e->ev);
	free(e->armed);
	free(e->cbs);
	free(e);
	p->priv = NULL;
}

const struct peer_ops libevent_ops = {
	.name = "libevent",
	.open = evp_open,
	.arm = evp_arm,
	.rearm = evp_rearm,
	.cancel = evp_cancel,
	.flush = uvp_flush,
	.drain = evp_drain,
	.close = evp_close,
};
