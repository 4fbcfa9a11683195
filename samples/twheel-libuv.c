// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-libuv.c - a libuv program's timers in one twheel file (see
 * twheel-libuv.h)
 *
 * The prepare handle runs once per loop iteration, right before the loop
 * polls: there the queue is flushed, one system call for all that the
 * callbacks of the iteration armed, pushed out or stopped. It is active
 * only while something is queued, so an idle loop does not spin on it.
 */
#include "twheel-libuv.h"

static void twl_uv_io(uv_poll_t *h, int status, int events)
{
	struct twl_uv *tu = h->data;

	twl_dispatch(&tu->l);
}

static void twl_uv_flush(uv_prepare_t *h)
{
	struct twl_uv *tu = h->data;

	twl_flush(&tu->l);
	uv_prepare_stop(h);
}

static void twl_uv_kick(struct twl *l)
{
	struct twl_uv *tu = (struct twl_uv *)l;

	uv_prepare_start(&tu->flush, twl_uv_flush);
}

int twl_uv_init(struct twl_uv *tu, uv_loop_t *loop)
{
	int ret = twl_init(&tu->l, twl_uv_kick);

	if (ret)
		return ret;
	ret = uv_poll_init(loop, &tu->io, twl_fd(&tu->l));
	if (!ret)
		ret = uv_prepare_init(loop, &tu->flush);
	if (ret) {
		twl_exit(&tu->l);
		return ret;
	}
	tu->io.data = tu;
	tu->flush.data = tu;
	return uv_poll_start(&tu->io, UV_READABLE, twl_uv_io);
}

/* Close both handles; twl_exit() once the loop has let them go. */
void twl_uv_close(struct twl_uv *tu)
{
	uv_close((uv_handle_t *)&tu->io, NULL);
	uv_close((uv_handle_t *)&tu->flush, NULL);
}
