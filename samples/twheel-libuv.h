/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel-libuv.h - a libuv program's timers in one twheel file
 *
 * twl_uv_init() adds a uv_poll_t on the twheel file's descriptor to @loop
 * (its records run the timers' callbacks) and a uv_prepare_t that flushes
 * the queued operations right before the loop polls. Timers are the
 * struct twl_timer of twheel-loop.h, added and deleted with twl_add() and
 * twl_del() on &tu->l, where a libuv program would call uv_timer_start()
 * and uv_timer_stop().
 */
#ifndef TWHEEL_LIBUV_H
#define TWHEEL_LIBUV_H

#include <uv.h>

#include "twheel-loop.h"

struct twl_uv {
	struct twl l;
	uv_poll_t io;		/* the twheel fd is readable */
	uv_prepare_t flush;	/* before the loop polls */
};

int twl_uv_init(struct twl_uv *tu, uv_loop_t *loop);
void twl_uv_close(struct twl_uv *tu);

#endif /* TWHEEL_LIBUV_H */
