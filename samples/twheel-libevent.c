// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-libevent.c - a libevent program's timers in one twheel file (see
 * twheel-libevent.h)
 *
 * libevent 2.1 has no hook that runs before the loop waits; an event
 * activated by hand does the same: the loop runs every active callback
 * before it polls again, so the queue is flushed once per round, after the
 * callbacks that filled it.
 */
#include <errno.h>

#include "twheel-libevent.h"

static void twl_event_io(evutil_socket_t fd, short what, void *arg)
{
	struct twl_event *te = arg;

	twl_dispatch(&te->l);
}

static void twl_event_flush(evutil_socket_t fd, short what, void *arg)
{
	struct twl_event *te = arg;

	twl_flush(&te->l);
}

static void twl_event_kick(struct twl *l)
{
	struct twl_event *te = (struct twl_event *)l;

	event_active(te->flush, 0, 0);
}

int twl_event_new(struct twl_event *te, struct event_base *base)
{
	int ret = twl_init(&te->l, twl_event_kick);

	if (ret)
		return ret;
	te->io = event_new(base, twl_fd(&te->l), EV_READ | EV_PERSIST,
			   twl_event_io, te);
	te->flush = event_new(base, -1, 0, twl_event_flush, te);
	if (!te->io || !te->flush || event_add(te->io, NULL)) {
		twl_event_free(te);
		return -ENOMEM;
	}
	return 0;
}

void twl_event_free(struct twl_event *te)
{
	if (te->io)
		event_free(te->io);
	if (te->flush)
		event_free(te->flush);
	te->io = NULL;
	te->flush = NULL;
	twl_exit(&te->l);
}
