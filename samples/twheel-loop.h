/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel-loop.h - an event loop's timers in one twheel file
 *
 * The part of an adapter that does not depend on the loop: timers with a
 * callback, armed, pushed out and deleted through libtwheel's queue, and
 * the dispatch of their records. The loop's own glue (twheel-libevent.c,
 * twheel-libuv.c) watches twl_fd() for input, calls twl_dispatch() when it
 * is readable, and calls twl_flush() before the loop waits: @kick tells it
 * that something is queued.
 *
 * A timer is one-shot: its callback runs once per twl_add(), never for a
 * timer deleted or added again before its record was dispatched, and never
 * before its deadline. The structure must stay alive while it is armed.
 */
#ifndef TWHEEL_LOOP_H
#define TWHEEL_LOOP_H

#include <stdbool.h>
#include <linux/types.h>

#include "libtwheel.h"

struct twl;

struct twl_timer {
	void (*cb)(struct twl_timer *t);
	struct twheel_result arm;	/* .handle once the arm is flushed */
	bool armed;
};

struct twl {
	struct twheel *tw;
	void (*kick)(struct twl *l);	/* the glue: flush before waiting */
	bool kicked;
	unsigned long errors;		/* operations the kernel refused */
};

int twl_init(struct twl *l, void (*kick)(struct twl *l));
void twl_exit(struct twl *l);
int twl_fd(const struct twl *l);
int twl_add(struct twl *l, struct twl_timer *t, __u64 timeout_ns);
int twl_del(struct twl *l, struct twl_timer *t);
int twl_flush(struct twl *l);
int twl_dispatch(struct twl *l);

#endif /* TWHEEL_LOOP_H */
