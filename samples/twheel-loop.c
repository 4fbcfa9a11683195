// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-loop.c - an event loop's timers in one twheel file (see
 * twheel-loop.h): the loop-independent half of the libevent and libuv
 * adapters.
 *
 * Adds and deletes only queue (one system call per round of the loop, in
 * twl_flush()); the one exception is a delete of a timer whose arm is still
 * queued: its handle is not known yet, so the queue is flushed first.
 *
 * Adding a timer that is armed deletes it and arms it anew, two operations
 * of the same batch, rather than a TWHEEL_OP_REARM: a callback may push out
 * a timer whose record has already been read into the library's buffer
 * but not dispatched yet. The kernel handed that record over, so the
 * timeout is gone there and a re-arm of its handle would fail (-ENOENT)
 * after the library dropped the record: the timer would never run. A
 * delete drops the record and a fresh arm starts over, whichever way the
 * race went.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "twheel-loop.h"

int twl_init(struct twl *l, void (*kick)(struct twl *l))
{
	memset(l, 0, sizeof(*l));
	l->kick = kick;
	return twheel_open(&l->tw, NULL, 0, TWHEEL_OPEN_NONBLOCK);
}

void twl_exit(struct twl *l)
{
	twheel_close(l->tw);
	l->tw = NULL;
}

int twl_fd(const struct twl *l)
{
	return twheel_fd(l->tw);
}

static void twl_queued(struct twl *l)
{
	if (!l->kicked) {
		l->kicked = true;
		l->kick(l);
	}
}

int twl_flush(struct twl *l)
{
	int ret;

	l->kicked = false;
	ret = twheel_flush(l->tw);
	if (ret < 0)
		l->errors++;
	return ret < 0 ? ret : 0;
}

/* The handle of armed @t, flushing its queued arm first if need be. */
static __u64 twl_handle(struct twl *l, struct twl_timer *t)
{
	if (!t->arm.handle && twheel_queued(l->tw))
		twl_flush(l);
	return t->arm.handle;
}

int twl_del(struct twl *l, struct twl_timer *t)
{
	int ret = 0;

	if (!t->armed)
		return 0;
	if (twl_handle(l, t))
		ret = twheel_prep_cancel(l->tw, t->arm.handle, 0, NULL);
	t->armed = false;
	memset(&t->arm, 0, sizeof(t->arm));
	if (!ret)
		twl_queued(l);
	return ret;
}

int twl_add(struct twl *l, struct twl_timer *t, __u64 timeout_ns)
{
	__u64 deadline = twheel_now_ns() + timeout_ns;
	int ret = twl_del(l, t);

	if (!ret)
		ret = twheel_prep_arm(l->tw, (uintptr_t)t, deadline, 0,
				      TWHEEL_ARM_ABS, 0, &t->arm);
	if (ret)
		return ret;
	t->armed = true;
	twl_queued(l);
	return 0;
}

/* Run the callbacks of the records that are ready. */
int twl_dispatch(struct twl *l)
{
	const struct twheel_event *ev;
	struct twl_timer *t;
	int ret;

	ret = twheel_fill(l->tw);
	if (ret < 0)
		return ret == -EAGAIN ? 0 : ret;
	twheel_for_each_event(l->tw, ev) {
		t = (struct twl_timer *)(uintptr_t)ev->cookie;
		if (!t->armed)
			continue;
		t->armed = false;
		memset(&t->arm, 0, sizeof(t->arm));
		t->cb(t);
	}
	return 0;
}
