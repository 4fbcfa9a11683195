/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel-libevent.h - a libevent program's timers in one twheel file
 *
 * twl_event_new() puts one event on the twheel file's descriptor into
 * @base (its records run the timers' callbacks) and one more that flushes
 * the queued operations before the loop waits again. Timers are the
 * struct twl_timer of twheel-loop.h, added and deleted with twl_add() and
 * twl_del() on &te->l, where a libevent program would call evtimer_add()
 * and evtimer_del().
 */
#ifndef TWHEEL_LIBEVENT_H
#define TWHEEL_LIBEVENT_H

#include <event2/event.h>

#include "twheel-loop.h"

struct twl_event {
	struct twl l;
	struct event *io;	/* the twheel fd is readable */
	struct event *flush;	/* activated when something is queued */
};

int twl_event_new(struct twl_event *te, struct event_base *base);
void twl_event_free(struct twl_event *te);

#endif /* TWHEEL_LIBEVENT_H */
