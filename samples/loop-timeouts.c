// SPDX-License-Identifier: GPL-2.0
/*
 * loop-timeouts.c - a libevent or libuv program with its timers in twheel
 *
 * Built twice: with -DTWL_LIBEVENT as libevent-timeouts (twheel-libevent.c)
 * and with -DTWL_LIBUV as libuv-timeouts (twheel-libuv.c). The program
 * adds 2,000 one-shot timers of 10 to 400 ms, as a server adds request
 * deadlines; 5 ms later a control timer deletes every third and pushes
 * every fifth of the others 100 ms further out. The loop then runs until
 * every timer that is left has fired (or 10 s have passed, by a timer of
 * the loop's own), and it prints
 *   timers=N fired=F deleted=D pushed=P early=E twice=T bad=B max_late_ms=L
 * exiting 0 only if F == N - D and E, T and B are 0 (bad: the callback of a
 * deleted timer ran). L is reported, not judged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef TWL_LIBEVENT
#include "twheel-libevent.h"
#define LOOP_NAME	"libevent"
#endif
#ifdef TWL_LIBUV
#include "twheel-libuv.h"
#define LOOP_NAME	"libuv"
#endif

#define MS		1000000ULL
#define NR_TIMERS	2000
#define CONTROL_AT	(5 * MS)
#define PUSH_BY		(100 * MS)
#define GIVE_UP_MS	10000

struct timer {
	struct twl_timer t;	/* first: the callback gets its address */
	__u64 deadline;
	unsigned int fired;
	bool deleted;
};

static struct timer timers[NR_TIMERS];
static struct twl_timer control;
static struct twl *loop_twl;
static unsigned int nr_fired, nr_deleted, nr_pushed;
static unsigned long early, twice, bad;
static __u64 max_late;

static void loop_stop(void);

static __u64 timeout_of(unsigned int i)
{
	return (i % 40 + 1) * 10 * MS;
}

static void timer_fired(struct twl_timer *t)
{
	struct timer *tm = (struct timer *)t;
	__u64 now = twheel_now_ns();

	if (tm->deleted)
		bad++;
	if (tm->fired++)
		twice++;
	if (now < tm->deadline)
		early++;
	else if (now - tm->deadline > max_late)
		max_late = now - tm->deadline;
	if (++nr_fired == NR_TIMERS - nr_deleted)
		loop_stop();
}

/* Delete every third timer, push every fifth of the others out. */
static void control_fired(struct twl_timer *t)
{
	unsigned int i;

	for (i = 0; i < NR_TIMERS; i++) {
		struct timer *tm = &timers[i];

		if (tm->fired)
			continue;
		if (i % 3 == 0) {
			if (twl_del(loop_twl, &tm->t))
				bad++;
			tm->deleted = true;
			nr_deleted++;
		} else if (i % 5 == 0) {
			tm->deadline = twheel_now_ns() + PUSH_BY;
			if (twl_add(loop_twl, &tm->t, PUSH_BY))
				bad++;
			nr_pushed++;
		}
	}
}

static int add_all(struct twl *l)
{
	unsigned int i;
	int ret;

	loop_twl = l;
	control.cb = control_fired;
	ret = twl_add(l, &control, CONTROL_AT);
	for (i = 0; !ret && i < NR_TIMERS; i++) {
		timers[i].t.cb = timer_fired;
		timers[i].deadline = twheel_now_ns() + timeout_of(i);
		ret = twl_add(l, &timers[i].t, timeout_of(i));
	}
	return ret;
}

#ifdef TWL_LIBEVENT
static struct event_base *base;

static void loop_stop(void)
{
	event_base_loopbreak(base);
}

static void give_up(evutil_socket_t fd, short what, void *arg)
{
	loop_stop();
}

static int run(void)
{
	struct timeval tv = { .tv_sec = GIVE_UP_MS / 1000 };
	struct twl_event te;
	struct event *limit;
	int ret;

	base = event_base_new();
	if (!base)
		return -1;
	ret = twl_event_new(&te, base);
	if (ret)
		return ret;
	limit = evtimer_new(base, give_up, NULL);
	if (!limit || evtimer_add(limit, &tv))
		return -1;
	ret = add_all(&te.l);
	if (!ret)
		ret = event_base_dispatch(base) < 0 ? -1 : 0;
	event_free(limit);
	twl_event_free(&te);
	event_base_free(base);
	return ret;
}
#endif

#ifdef TWL_LIBUV
static uv_loop_t *uvloop;

static void loop_stop(void)
{
	uv_stop(uvloop);
}

static void give_up(uv_timer_t *h)
{
	loop_stop();
}

static int run(void)
{
	struct twl_uv tu;
	uv_timer_t limit;
	int ret;

	uvloop = uv_default_loop();
	ret = twl_uv_init(&tu, uvloop);
	if (ret)
		return ret;
	uv_timer_init(uvloop, &limit);
	uv_timer_start(&limit, give_up, GIVE_UP_MS, 0);
	ret = add_all(&tu.l);
	if (!ret)
		uv_run(uvloop, UV_RUN_DEFAULT);
	/* Let the loop release its handles, then close the file. */
	uv_close((uv_handle_t *)&limit, NULL);
	twl_uv_close(&tu);
	uv_run(uvloop, UV_RUN_DEFAULT);
	twl_exit(&tu.l);
	uv_loop_close(uvloop);
	return ret;
}
#endif

int main(void)
{
	int ret = run();

	if (ret) {
		fprintf(stderr, LOOP_NAME "-timeouts: setting up: %d\n", ret);
		return 1;
	}
	printf("timers=%u fired=%u deleted=%u pushed=%u", NR_TIMERS, nr_fired,
	       nr_deleted, nr_pushed);
	printf(" early=%lu twice=%lu bad=%lu max_late_ms=%llu\n", early, twice,
	       bad, (unsigned long long)(max_late / MS));
	return nr_fired != NR_TIMERS - nr_deleted || early || twice || bad;
}
