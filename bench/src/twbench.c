// SPDX-License-Identifier: GPL-2.0
/*
 * twbench.c - the workloads of `make bench`, run against any peer
 *
 *   twbench churn    --peer P --pending N [--ops M] [--time S]
 *   twbench suite    --peer P --pending N ...   (rearm, churn, cancel)
 *   twbench expiry   --peer P --count K [--spread MS] [--rounds R] [--pin CPU]
 *   twbench accuracy --peer P[,P...] --count K [--spread MS] [--tag T]
 *   twbench memory   --peer P --pending N
 *   twbench idle     --peer P|none [--far] [--time S]
 *   twbench twocpu   --peer P --pending N ...
 *   twbench hot      --peer P --count K     (one timer, K arm+cancel pairs)
 *
 * Peers: timerfd, posix, io_uring[-bN], twheel (one ioctl per operation),
 * twheel-bN (TWHEEL_IOC_BATCH with N operations), and for accuracy only
 * nanosleep (clock_nanosleep, the machine's own wake-up latency).
 *
 * --pin CPU runs the program on that CPU from the start, so that the
 * timeouts it arms fire where it waits for them.
 *
 * Each measurement prints one JSON object on stdout; progress goes to
 * stderr. Every loop is bounded by an operation count and a time budget, so
 * a slow peer (io_uring's list walk at 1M pending, say) costs a bounded
 * amount of wall time and still yields a cost per operation.
 *
 * Churn models request deadlines: "pending" long timeouts sit in the wheel
 * (idle connections) while the loop arms a short deadline per request and,
 * one window of W requests later, cancels it 90% of the time (the reply
 * came) or lets it fire (10%: it is collected by draining expiries). The
 * delay is chosen from a calibration run so that a cancelled deadline never
 * fires first, even for the slowest peer. Operations = arms + cancels.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define WINDOW		512
#define CHECK_EVERY	64
#define FAR_NS		(600ULL * NSEC_PER_SEC)
#define NONE		UINT32_MAX

extern const char *twheel_dev;

struct opts {
	const char *peer;
	uint64_t pending;
	uint64_t ops;
	double time;
	uint64_t count;
	uint64_t rounds;
	double spread_ms;
	const char *tag;
	int far;
	int threads;
	uint64_t seed;
	const char *name;
	int pin;
};

static struct opts o = {
	.ops = 200000,
	.time = 2.0,
	.count = 2000,
	.rounds = 1,
	.spread_ms = 2000,
	.tag = "light",
	.threads = 1,
	.seed = 0x9e3779b97f4a7c15ULL,
	.pin = -1,
};

static void peer_init(struct peer *p, const char *label)
{
	const char *b = strstr(label, "-b");

	memset(p, 0, sizeof(*p));
	p->label = label;
	p->batch = 1;
	if (!strcmp(label, "timerfd")) {
		p->ops = &timerfd_ops;
	} else if (!strcmp(label, "posix")) {
		p->ops = &posix_ops;
	} else if (!strncmp(label, "io_uring", 8)) {
		p->ops = &uring_ops;
		p->batch = b ? (uint32_t)atoi(b + 2) : 256;
	} else if (!strcmp(label, "twheel")) {
		p->ops = &twheel_ops;
	} else if (!strcmp(label, "twheel-shm")) {
		p->ops = &twheel_shm_ops;
	} else if (!strcmp(label, "twheel-ring")) {
		p->ops = &twheel_ops;
		p->batch = 256;
	} else if (!strcmp(label, "libuv")) {
		p->ops = &libuv_ops;
	} else if (!strcmp(label, "libevent") ||
		   !strcmp(label, "libevent-common")) {
		p->ops = &libevent_ops;
	} else if (!strncmp(label, "twheel-b", 8)) {
		p->ops = &twheel_ops;
		p->batch = (uint32_t)atoi(b + 2);
	} else {
		die("unknown peer '%s'", label);
	}
	if (!p->batch)
		p->batch = 1;
}

static void peer_open(struct peer *p, uint32_t capacity)
{
	int ret;

	p->capacity = capacity;
	ret = p->ops->open(p, capacity);
	if (ret)
		die("%s: open: %s", p->label, strerror(-ret));
}

static void op_check(struct peer *p, int ret, const char *what)
{
	if (ret) {
		p->errors++;
		if (p->errors < 4)
			note("%s: %s: %s", p->label, what, strerror(-ret));
	}
}

static uint64_t far_delay(uint64_t *rng)
{
	return FAR_NS + rng_next(rng) % FAR_NS;
}

/*
 * Time budget of a loop. Reading the clock costs something, so it is read
 * every few operations: every one at first, then twice as rarely each time
 * less than a millisecond went by, up to CHECK_EVERY. A slow peer (one
 * io_uring cancel at 1M pending takes milliseconds) overshoots by at most
 * about a millisecond's worth of operations; a fast one pays for a clock
 * read only every CHECK_EVERY operations.
 */
struct budget {
	uint64_t end, last;
	uint32_t every, cnt;
};

static void budget_start(struct budget *b, double secs)
{
	b->last = now_ns();
	b->end = b->last + (uint64_t)(secs * 1e9);
	b->every = 1;
	b->cnt = 0;
}

static bool budget_over(struct budget *b)
{
	uint64_t now;

	if (++b->cnt < b->every)
		return false;
	b->cnt = 0;
	now = now_ns();
	if (now - b->last < NSEC_PER_MSEC && b->every < CHECK_EVERY)
		b->every *= 2;
	b->last = now;
	return now > b->end;
}

/* Arm slots [0, n) far away: the "pending" population. */
static void arm_background(struct peer *p, uint32_t n, uint64_t *rng)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (p->ops->prepare)
			op_check(p, p->ops->prepare(p, i), "prepare");
		op_check(p, p->ops->arm(p, i, far_delay(rng), false), "arm");
	}
	op_check(p, p->ops->flush(p), "flush");
}

static void common_fields(struct peer *p, uint64_t pending)
{
	json_u64("pending", pending);
	json_u64("batch", p->batch);
	json_u64("errors", p->errors);
	json_u64("stale", p->stale);
}

/* ---------------------------------------------------------------- churn */

struct churn {
	struct peer p;
	uint32_t n;		/* background pending */
	uint32_t window;
	uint32_t *win;		/* slots armed in the last window */
	uint32_t *freelist;
	uint32_t nfree;
	unsigned char *state;
	uint64_t rng;
	uint64_t delay;
	uint64_t ops, arms, cancels, fired, waits;
	uint64_t setup_ns;
	uint64_t elapsed, cpu, syscalls;
	int cpu_pin;
};

static void churn_expired(void *arg, uint32_t slot, uint64_t now, uint64_t k)
{
	struct churn *c = arg;

	(void)now;
	(void)k;
	if (slot < c->n || c->state[slot] != SLOT_QUEUED) {
		c->p.stale++;
		return;
	}
	c->state[slot] = SLOT_IDLE;
	c->freelist[c->nfree++] = slot;
	c->fired++;
}

static void churn_setup(struct churn *c, const char *label, uint32_t n)
{
	uint32_t pool, cap, i;
	uint64_t t0;

	peer_init(&c->p, label);
	c->n = n;
	c->window = WINDOW;
	if (c->window < 2 * c->p.batch)
		c->window = 2 * c->p.batch;
	pool = 8 * c->window + 4096;
	cap = n + pool;
	peer_open(&c->p, cap);
	c->win = xcalloc(c->window, sizeof(uint32_t));
	c->freelist = xcalloc(pool, sizeof(uint32_t));
	c->state = xcalloc(cap, 1);
	for (i = 0; i < c->window; i++)
		c->win[i] = NONE;
	/* Pop order: lowest slot first. */
	for (i = 0; i < pool; i++)
		c->freelist[i] = cap - 1 - i;
	c->nfree = pool;
	t0 = now_ns();
	if (c->p.ops->prepare)
		for (i = n; i < cap; i++)
			op_check(&c->p, c->p.ops->prepare(&c->p, i), "prepare");
	arm_background(&c->p, n, &c->rng);
	c->setup_ns = now_ns() - t0;
}

/* One churn run of at most @max_ops operations or @secs seconds. */
static void churn_loop(struct churn *c, uint64_t max_ops, double secs)
{
	struct peer *p = &c->p;
	uint64_t it = 0, ops0 = c->ops;
	struct budget b;
	uint32_t k = 0;

	budget_start(&b, secs);
	while (c->ops - ops0 < max_ops) {
		uint32_t s = c->win[k], slot;

		if (s != NONE) {
			if (rng_next(&c->rng) % 10) {
				op_check(p, p->ops->cancel(p, s), "cancel");
				c->state[s] = SLOT_IDLE;
				c->freelist[c->nfree++] = s;
				c->cancels++;
				c->ops++;
			} else {
				c->state[s] = SLOT_QUEUED;	/* left to fire */
			}
		}
		while (!c->nfree) {
			/* Only expiries free slots; give up if none come. */
			c->waits++;
			p->ops->drain(p, 10, churn_expired, c);
			if (!c->nfree && now_ns() > b.end + 5 * NSEC_PER_SEC) {
				note("%s: no expiry came back in time; abandoning this run",
				     p->label);
				p->errors++;
				goto out;
			}
		}
		slot = c->freelist[--c->nfree];
		op_check(p, p->ops->arm(p, slot, c->delay, false), "arm");
		c->state[slot] = SLOT_ARMED;
		c->win[k] = slot;
		c->arms++;
		c->ops++;
		if (++k == c->window)
			k = 0;
		if (++it % CHECK_EVERY == 0)
			p->ops->drain(p, 0, churn_expired, c);
		if (budget_over(&b))
			break;
	}
out:
	op_check(p, p->ops->flush(p), "flush");
}

static void churn_measure(struct churn *c, uint64_t max_ops, double secs)
{
	uint64_t t0, cpu0, sc0, ops0, calib;
	double t_op;

	/* Calibrate with a safe delay, then pick the real one. */
	c->delay = 2 * NSEC_PER_SEC;
	t0 = now_ns();
	churn_loop(c, 4 * (uint64_t)c->window, secs / 4);
	calib = c->ops ? c->ops : 1;
	t_op = (double)(now_ns() - t0) / (double)calib;
	c->delay = (uint64_t)(40.0 * c->window * t_op);
	if (c->delay < 100 * NSEC_PER_MSEC)
		c->delay = 100 * NSEC_PER_MSEC;
	if (c->delay > 60 * NSEC_PER_SEC)
		c->delay = 60 * NSEC_PER_SEC;

	c->arms = c->cancels = c->fired = c->waits = 0;
	ops0 = c->ops;
	sc0 = c->p.syscalls;
	cpu0 = cpu_ns();
	t0 = now_ns();
	churn_loop(c, max_ops, secs);
	c->elapsed = now_ns() - t0;
	c->cpu = cpu_ns() - cpu0;
	c->ops -= ops0;
	c->syscalls = c->p.syscalls - sc0;
}

static void churn_free(struct churn *c)
{
	c->p.ops->close(&c->p);
	free(c->win);
	free(c->freelist);
	free(c->state);
}

static void churn_report(const char *workload, struct churn *c,
			 uint64_t pending, int threads, double ops_per_sec)
{
	double ops = c->ops ? (double)c->ops : 1;

	json_begin(o.name ? o.name : workload, c->p.label);
	common_fields(&c->p, pending);
	json_u64("threads", threads);
	json_u64("ops", c->ops);
	json_u64("arms", c->arms);
	json_u64("cancels", c->cancels);
	json_u64("fired", c->fired);
	json_u64("pool_waits", c->waits);
	json_dbl("delay_ms", (double)c->delay / 1e6);
	json_dbl("ns_per_op", (double)c->elapsed / ops);
	json_dbl("cpu_ns_per_op", (double)c->cpu / ops);
	json_dbl("syscalls_per_op", (double)c->syscalls / ops);
	json_dbl("ops_per_sec", ops_per_sec);
	json_dbl("setup_s", (double)c->setup_ns / 1e9);
	json_dbl("setup_ns_per_timeout",
		 pending ? (double)c->setup_ns / (double)pending : 0);
	json_end();
}

static void do_churn(void)
{
	struct churn c;

	memset(&c, 0, sizeof(c));
	c.rng = o.seed;
	churn_setup(&c, o.peer, (uint32_t)o.pending);
	churn_measure(&c, o.ops, o.time);
	churn_report("churn", &c, o.pending, 1,
		     (double)c.ops * 1e9 / (double)(c.elapsed ? c.elapsed : 1));
	churn_free(&c);
}

/* --------------------------------------------------------- rearm, cancel */

static void simple_report(const char *workload, struct peer *p, uint64_t n,
			  uint64_t ops, uint64_t elapsed, uint64_t cpu,
			  uint64_t sc, uint64_t setup)
{
	double d = ops ? (double)ops : 1;

	json_begin(workload, p->label);
	common_fields(p, n);
	json_u64("ops", ops);
	json_dbl("ns_per_op", (double)elapsed / d);
	json_dbl("cpu_ns_per_op", (double)cpu / d);
	json_dbl("syscalls_per_op", (double)sc / d);
	json_dbl("setup_s", (double)setup / 1e9);
	json_end();
}

/*
 * Re-arm random members of the pending population further away. The first
 * tenth of the budget is a warm-up (it also fills caches and, in an
 * emulated guest, translates the code paths) and is not counted.
 */
static void rearm_run(struct churn *c, uint64_t max_ops, double secs)
{
	struct peer *p = &c->p;
	uint64_t t0, cpu0, sc0, ops = 0;
	uint32_t n = c->n;
	struct budget b;

	budget_start(&b, secs / 10);
	do
		op_check(p, p->ops->rearm(p, (uint32_t)(rng_next(&c->rng) % n),
					  far_delay(&c->rng)), "rearm");
	while (!budget_over(&b));
	op_check(p, p->ops->flush(p), "flush");
	sc0 = p->syscalls;
	cpu0 = cpu_ns();
	t0 = now_ns();
	budget_start(&b, secs);
	while (ops < max_ops) {
		uint32_t s = (uint32_t)(rng_next(&c->rng) % n);

		op_check(p, p->ops->rearm(p, s, far_delay(&c->rng)), "rearm");
		ops++;
		if (budget_over(&b))
			break;
	}
	op_check(p, p->ops->flush(p), "flush");
	simple_report("rearm", p, n, ops, now_ns() - t0, cpu_ns() - cpu0,
		      p->syscalls - sc0, c->setup_ns);
}

/*
 * Cancel random members of the pending population, in rounds: a chunk of
 * distinct victims is cancelled (timed), then armed again far away (not
 * timed), so the population stays at n however long the budget is.
 */
static void cancel_run(struct churn *c, uint64_t max_ops, double secs)
{
	struct peer *p = &c->p;
	uint32_t n = c->n, chunk, i, pos = 0, *perm;
	struct budget b;
	uint64_t timed = 0, cpu = 0, sc = 0, ops = 0, budget, t0, c0, s0;
	int round;

	perm = xcalloc(n, sizeof(*perm));
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rng_next(&c->rng) % (i + 1)), tmp = perm[i];

		perm[i] = perm[j];
		perm[j] = tmp;
	}
	budget = (uint64_t)(secs * 1e9);
	for (round = 0; ops < max_ops && timed < budget; round++) {
		uint32_t k, first = pos;
		uint64_t rops = 0;

		/* round 0 is a short warm-up */
		chunk = round ? 1024 : 16;
		if (chunk > n)
			chunk = n;
		budget_start(&b, (double)(budget - timed) / 1e9);
		s0 = p->syscalls;
		c0 = cpu_ns();
		t0 = now_ns();
		for (k = 0; k < chunk; k++) {
			op_check(p, p->ops->cancel(p, perm[(first + k) % n]),
				 "cancel");
			rops++;
			if (budget_over(&b) && round)
				break;
		}
		op_check(p, p->ops->flush(p), "flush");
		if (round) {
			timed += now_ns() - t0;
			cpu += cpu_ns() - c0;
			sc += p->syscalls - s0;
			ops += rops;
		}
		for (i = 0; i < rops; i++)
			op_check(p, p->ops->arm(p, perm[(first + i) % n],
						far_delay(&c->rng), false), "arm");
		op_check(p, p->ops->flush(p), "flush");
		pos = (first + (uint32_t)rops) % n;
	}
	simple_report("cancel", p, n, ops, timed, cpu, sc, c->setup_ns);
	free(perm);
}

/*
 * Refresh, as a server pushes out its connections' idle timeouts: --pending
 * timeouts of one duration (IDLE_NS), then refreshes of random ones, each
 * to IDLE_NS from now, timed (a tenth as many first as a warm-up). Every
 * peer gets the same durations, so libevent's common timeouts apply. Peers
 * that batch submit the rest before the clock stops.
 */
#define IDLE_NS		(900ULL * NSEC_PER_SEC)

static void do_refresh(void)
{
	uint64_t rng = o.seed, i, t0, cpu0, sc0, setup, ops = 0;
	uint32_t n = (uint32_t)o.pending;
	struct budget b;
	struct peer p;

	peer_init(&p, o.peer);
	peer_open(&p, n);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (p.ops->prepare)
			op_check(&p, p.ops->prepare(&p, (uint32_t)i), "prepare");
		op_check(&p, p.ops->arm(&p, (uint32_t)i, IDLE_NS, false), "arm");
	}
	op_check(&p, p.ops->flush(&p), "flush");
	setup = now_ns() - t0;
	for (i = 0; i < o.ops / 10; i++)
		op_check(&p, p.ops->rearm(&p, (uint32_t)(rng_next(&rng) % n),
					  IDLE_NS), "refresh");
	op_check(&p, p.ops->flush(&p), "flush");
	sc0 = p.syscalls;
	cpu0 = cpu_ns();
	t0 = now_ns();
	budget_start(&b, o.time);
	while (ops < o.ops) {
		op_check(&p, p.ops->rearm(&p, (uint32_t)(rng_next(&rng) % n),
					  IDLE_NS), "refresh");
		ops++;
		if (budget_over(&b))
			break;
	}
	op_check(&p, p.ops->flush(&p), "flush");
	simple_report(o.name ? o.name : "refresh", &p, n, ops, now_ns() - t0,
		      cpu_ns() - cpu0, p.syscalls - sc0, setup);
	p.ops->close(&p);
}

/* rearm, churn and cancel on one population (setting it up is the slow part) */
static void do_suite(void)
{
	struct churn c;

	memset(&c, 0, sizeof(c));
	c.rng = o.seed;
	churn_setup(&c, o.peer, (uint32_t)o.pending);
	if (o.pending) {
		note("%s: %llu pending set up in %.2f s", o.peer,
		     (unsigned long long)o.pending, (double)c.setup_ns / 1e9);
		rearm_run(&c, o.ops, o.time);
	}
	churn_measure(&c, o.ops, o.time);
	churn_report("churn", &c, o.pending, 1,
		     (double)c.ops * 1e9 / (double)(c.elapsed ? c.elapsed : 1));
	/* Let the churn's short deadlines fire and be collected first. */
	while (c.p.ops->drain(&c.p, 0, churn_expired, &c) > 0)
		;
	if (o.pending)
		cancel_run(&c, o.ops, o.time);
	churn_free(&c);
}

/* ------------------------------------------------------ expiry, accuracy */

struct collect {
	uint64_t *deadline;
	unsigned char *got;
	double *late_us;	/* received - deadline */
	double *klate_us;	/* kernel's delivery time - deadline */
	uint64_t n, nk, early, kearly, dup;
};

static void collect_expired(void *arg, uint32_t slot, uint64_t now,
			    uint64_t kns)
{
	struct collect *c = arg;
	double l;

	if (c->got[slot]) {
		c->dup++;
		return;
	}
	c->got[slot] = 1;
	l = ((double)now - (double)c->deadline[slot]) / 1e3;
	if (now < c->deadline[slot])
		c->early++;
	c->late_us[c->n++] = l;
	if (kns) {
		if (kns < c->deadline[slot])
			c->kearly++;
		c->klate_us[c->nk++] = ((double)kns -
					(double)c->deadline[slot]) / 1e3;
	}
}

static void collect_init(struct collect *c, uint64_t k)
{
	memset(c, 0, sizeof(*c));
	c->deadline = xcalloc(k, sizeof(uint64_t));
	c->got = xcalloc(k, 1);
	c->late_us = xcalloc(k, sizeof(double));
	c->klate_us = xcalloc(k, sizeof(double));
}

static void collect_free(struct collect *c)
{
	free(c->deadline);
	free(c->got);
	free(c->late_us);
	free(c->klate_us);
}

/* Arm @k absolute deadlines spread after a lead time; returns the last. */
static uint64_t arm_spread_at(struct peer *p, struct collect *c, uint64_t k,
			      uint64_t base, uint64_t spread, uint64_t *rng)
{
	uint64_t last = 0, i;

	for (i = 0; i < k; i++) {
		c->deadline[i] = base + rng_next(rng) % spread;
		if (c->deadline[i] > last)
			last = c->deadline[i];
	}
	for (i = 0; i < k; i++)
		op_check(p, p->ops->arm(p, (uint32_t)i, c->deadline[i], true),
			 "arm");
	op_check(p, p->ops->flush(p), "flush");
	if (now_ns() > base)
		note("%s: arming %llu took longer than the lead time", p->label,
		     (unsigned long long)k);
	return last;
}

static uint64_t arm_spread(struct peer *p, struct collect *c, uint64_t k,
			   uint64_t lead, uint64_t spread, uint64_t *rng)
{
	uint64_t i;

	if (p->ops->prepare)
		for (i = 0; i < k; i++)
			op_check(p, p->ops->prepare(p, (uint32_t)i), "prepare");
	return arm_spread_at(p, c, k, now_ns() + lead, spread, rng);
}

static void wait_all(struct peer *p, struct collect *c, uint64_t k,
		     uint64_t last)
{
	uint64_t give_up = last + 5 * NSEC_PER_SEC;

	while (c->n < k && now_ns() < give_up)
		p->ops->drain(p, 100, collect_expired, c);
}

/* What do_expiry() adds up over its rounds. */
struct expiry_sum {
	uint64_t delivered, early, dup, elapsed, cpu, syscalls;
	double busy_ns;
	int64_t hrtimer;
};

/* One round: arm --count timeouts over --spread, then wait for them all. */
static void expiry_round(struct peer *p, struct expiry_sum *s, uint64_t *rng)
{
	struct collect c;
	uint64_t k = o.count, last, t0, el, cpu0, sc0, idle0, idle;
	uint64_t spread = (uint64_t)(o.spread_ms * 1e6);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int64_t hr0, hr1;

	collect_init(&c, k);
	/* Leave time to arm everything before the first deadline. */
	last = arm_spread(p, &c, k, 300 * NSEC_PER_MSEC + k * 20000ULL,
			  spread, rng);
	sc0 = p->syscalls;
	hr0 = twheel_stat("hrtimer");
	cpu0 = cpu_ns();
	idle0 = proc_stat_idle_ticks();
	t0 = now_ns();
	wait_all(p, &c, k, last);
	el = now_ns() - t0;
	idle = proc_stat_idle_ticks() - idle0;
	s->elapsed += el;
	s->cpu += cpu_ns() - cpu0;
	/* The CPUs' time over the window less the time they were idle. */
	s->busy_ns += (double)el * (double)ncpu -
		      (double)idle * 1e9 / (double)user_hz();
	hr1 = twheel_stat("hrtimer");
	s->syscalls += p->syscalls - sc0;
	s->delivered += c.n;
	s->early += c.early;
	s->dup += c.dup;
	if (hr0 >= 0 && hr1 >= 0 && s->hrtimer >= 0)
		s->hrtimer += hr1 - hr0;
	else
		s->hrtimer = -1;
	collect_free(&c);
}

/*
 * --rounds rounds of --count expiries each, the figures summed over the
 * windows in which they are delivered. Machine CPU is the window's time on
 * every CPU less their idle time in /proc/stat: the idle time is measured,
 * in 10 ms units, where the busy times are sampled at each tick, which
 * misses most of a process that wakes just after one timer tick and sleeps
 * again before the next.
 */
static void do_expiry(void)
{
	struct expiry_sum s = { 0 };
	struct peer p;
	uint64_t rng = o.seed, r;
	double d;

	peer_init(&p, o.peer);
	peer_open(&p, (uint32_t)o.count);
	for (r = 0; r < o.rounds; r++)
		expiry_round(&p, &s, &rng);
	d = s.delivered ? (double)s.delivered : 1;
	json_begin(o.name ? o.name : "expiry", p.label);
	common_fields(&p, o.count);
	json_u64("rounds", o.rounds);
	json_u64("delivered", s.delivered);
	json_u64("early", s.early);
	json_u64("duplicates", s.dup);
	json_dbl("spread_ms", o.spread_ms);
	json_dbl("window_s", (double)s.elapsed / 1e9);
	json_dbl("proc_cpu_ns_per_expiry", (double)s.cpu / d);
	json_dbl("system_cpu_ns_per_expiry", s.busy_ns / d);
	json_dbl("syscalls_per_expiry", (double)s.syscalls / d);
	if (!strncmp(p.label, "twheel", 6) && s.hrtimer >= 0)
		json_u64("twheel_hrtimer_fires", (uint64_t)s.hrtimer);
	json_end();
	p.ops->close(&p);
}

static void lateness_report(const char *label, const char *tag, double *v,
			    uint64_t n, uint64_t early, uint64_t k,
			    double spread_ms)
{
	double q[101];
	int i;

	qsort(v, n, sizeof(double), cmp_dbl);
	for (i = 0; i <= 100; i++)
		q[i] = percentile(v, n, i);
	json_begin("accuracy", label);
	json_str("load", tag);
	json_u64("count", k);
	json_u64("delivered", n);
	json_u64("early", early);
	json_dbl("spread_ms", spread_ms);
	json_dbl("p50_us", percentile(v, n, 50));
	json_dbl("p90_us", percentile(v, n, 90));
	json_dbl("p99_us", percentile(v, n, 99));
	json_dbl("max_us", n ? v[n - 1] : NAN);
	json_dbl("min_us", n ? v[0] : NAN);
	json_arr("cdf_us", q, 101);
	json_end();
}

/*
 * Accuracy runs every peer of --peer (a comma-separated list) at the same
 * time, one thread each, on the same deadlines: a stall of the (emulated,
 * shared) machine then hits all of them alike, and their distributions
 * compare like with like. "nanosleep" sleeps to random deadlines one after
 * the other over the same window: the machine's own wake-up latency.
 */
struct acc {
	const char *label;
	struct peer p;
	struct collect c;
	uint64_t base, end;
	double *sleep_late;
	uint64_t nsleep, sleep_early;
};

static pthread_barrier_t acc_bar;

static void *acc_thread(void *arg)
{
	struct acc *a = arg;
	uint64_t rng = o.seed, k = o.count, i, last;

	if (!strcmp(a->label, "nanosleep")) {
		struct timespec ts;

		a->sleep_late = xcalloc(4 * k + 16, sizeof(double));
		pthread_barrier_wait(&acc_bar);
		ts.tv_sec = a->base / NSEC_PER_SEC;
		ts.tv_nsec = a->base % NSEC_PER_SEC;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		while (a->nsleep < 4 * k + 16) {
			uint64_t dl = now_ns() + 500000 + rng_next(&rng) % 3500000;
			uint64_t now;

			if (dl > a->end)
				break;
			ts.tv_sec = dl / NSEC_PER_SEC;
			ts.tv_nsec = dl % NSEC_PER_SEC;
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
					       &ts, NULL) == EINTR)
				;
			now = now_ns();
			if (now < dl)
				a->sleep_early++;
			a->sleep_late[a->nsleep++] = ((double)now - (double)dl) / 1e3;
		}
		return NULL;
	}
	/* Opened here: a ring or a signal target belongs to its thread. */
	peer_init(&a->p, a->label);
	peer_open(&a->p, (uint32_t)k);
	collect_init(&a->c, k);
	if (a->p.ops->prepare)
		for (i = 0; i < k; i++)
			op_check(&a->p, a->p.ops->prepare(&a->p, (uint32_t)i),
				 "prepare");
	pthread_barrier_wait(&acc_bar);
	last = arm_spread_at(&a->p, &a->c, k, a->base,
			     (uint64_t)(o.spread_ms * 1e6), &rng);
	wait_all(&a->p, &a->c, k, last);
	return NULL;
}

static void do_accuracy(void)
{
	char *list = strdup(o.peer), *tok, *save;
	struct acc *a = xcalloc(16, sizeof(*a));
	pthread_t tid[16];
	uint64_t k = o.count, base;
	char klabel[80];
	int n = 0, i;

	for (tok = strtok_r(list, ",", &save); tok && n < 16;
	     tok = strtok_r(NULL, ",", &save)) {
		a[n++].label = tok;
	}
	pthread_barrier_init(&acc_bar, NULL, (unsigned int)n + 1);
	for (i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, acc_thread, &a[i]))
			die("pthread_create");
	/* Every thread prepares its objects, then all arm for the same base. */
	base = now_ns() + 500 * NSEC_PER_MSEC + k * 50000ULL;
	for (i = 0; i < n; i++) {
		a[i].base = base;
		a[i].end = base + (uint64_t)(o.spread_ms * 1e6);
	}
	pthread_barrier_wait(&acc_bar);
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < n; i++) {
		if (!strcmp(a[i].label, "nanosleep")) {
			lateness_report("nanosleep", o.tag, a[i].sleep_late,
					a[i].nsleep, a[i].sleep_early,
					a[i].nsleep, o.spread_ms);
			free(a[i].sleep_late);
			continue;
		}
		lateness_report(a[i].p.label, o.tag, a[i].c.late_us, a[i].c.n,
				a[i].c.early, k, o.spread_ms);
		if (a[i].c.nk) {
			snprintf(klabel, sizeof(klabel), "%s(kernel)",
				 a[i].p.label);
			lateness_report(klabel, o.tag, a[i].c.klate_us,
					a[i].c.nk, a[i].c.kearly, k,
					o.spread_ms);
		}
		collect_free(&a[i].c);
		a[i].p.ops->close(&a[i].p);
	}
	pthread_barrier_destroy(&acc_bar);
	free(a);
	free(list);
}

/* ---------------------------------------------------------------- memory */

static void do_memory(void)
{
	struct peer p;
	struct sysmem a, b;
	uint64_t rng = o.seed;
	uint32_t n = (uint32_t)o.pending;

	peer_init(&p, o.peer);
	peer_open(&p, n);
	/*
	 * Settle: an earlier process's memory can still be going away (an
	 * io_uring ring is torn down by a worker, RCU frees later). Wait until
	 * three readings 200 ms apart agree within 64 KB (at most 10 s).
	 */
	sysmem_read(&a);
	for (int stable = 0, tries = 0; stable < 2 && tries < 50; tries++) {
		usleep(200000);
		sysmem_read(&b);
		stable = llabs(b.meminfo_kb - a.meminfo_kb) <= 64 ? stable + 1 : 0;
		a = b;
	}
	arm_background(&p, n, &rng);
	usleep(200000);
	sysmem_read(&b);
	json_begin("memory", p.label);
	common_fields(&p, n);
	json_dbl("kernel_bytes_per_timeout",
		 (double)(b.meminfo_kb - a.meminfo_kb) * 1024.0 / n);
	json_dbl("slab_bytes_per_timeout",
		 (double)(b.slab_kb - a.slab_kb) * 1024.0 / n);
	if (a.memcg_kernel >= 0 && b.memcg_kernel >= 0)
		json_dbl("memcg_kernel_bytes_per_timeout",
			 (double)(b.memcg_kernel - a.memcg_kernel) / n);
	if (a.memcg_current >= 0 && b.memcg_current >= 0)
		json_dbl("memcg_bytes_per_timeout",
			 (double)(b.memcg_current - a.memcg_current) / n);
	if (p.shared_bytes)
		json_dbl("shared_bytes_per_timeout",
			 (double)p.shared_bytes / n);
	json_end();
	p.ops->close(&p);
}

/* ------------------------------------------------------------------ idle */

static void do_idle(void)
{
	struct peer p;
	int have = strcmp(o.peer, "none") != 0;
	uint64_t loc0, loc1, t0, el, rng = o.seed;
	int64_t tw0, tw1;
	char label[64];

	if (have) {
		peer_init(&p, o.peer);
		peer_open(&p, 1);
		if (o.far) {
			op_check(&p, p.ops->arm(&p, 0, 600 * NSEC_PER_SEC,
						false), "arm");
			op_check(&p, p.ops->flush(&p), "flush");
		}
		(void)rng;
	}
	usleep(200000);
	tw0 = twheel_stat("hrtimer");
	loc0 = loc_interrupts();
	t0 = now_ns();
	usleep((useconds_t)(o.time * 1e6));
	el = now_ns() - t0;
	loc1 = loc_interrupts();
	tw1 = twheel_stat("hrtimer");
	snprintf(label, sizeof(label), "%s%s", o.peer,
		 !have ? "" : o.far ? "+1far" : "+0");
	json_begin("idle", label);
	json_u64("timeouts", have && o.far ? 1 : 0);
	json_dbl("seconds", (double)el / 1e9);
	json_dbl("loc_per_sec", (double)(loc1 - loc0) * 1e9 / (double)el);
	if (tw0 >= 0 && tw1 >= 0)
		json_dbl("twheel_hrtimer_per_sec",
			 (double)(tw1 - tw0) * 1e9 / (double)el);
	json_end();
	if (have)
		p.ops->close(&p);
}

/* ---------------------------------------------------------------- twocpu */

static pthread_barrier_t bar;

static void *twocpu_thread(void *arg)
{
	struct churn *c = arg;

	pin_cpu(c->cpu_pin);
	churn_setup(c, o.peer, (uint32_t)(o.pending / (uint64_t)o.threads));
	pthread_barrier_wait(&bar);
	churn_measure(c, o.ops, o.time);
	pthread_barrier_wait(&bar);
	return NULL;
}

static void twocpu_run(int threads)
{
	struct churn *c = xcalloc((size_t)threads, sizeof(*c));
	pthread_t *tid = xcalloc((size_t)threads, sizeof(*tid));
	uint64_t ops = 0, el = 0;
	int i;

	o.threads = threads;
	pthread_barrier_init(&bar, NULL, (unsigned int)threads);
	for (i = 0; i < threads; i++) {
		c[i].rng = o.seed + (uint64_t)i * 7919;
		c[i].cpu_pin = i;
		if (pthread_create(&tid[i], NULL, twocpu_thread, &c[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	for (i = 0; i < threads; i++) {
		ops += c[i].ops;
		if (c[i].elapsed > el)
			el = c[i].elapsed;
	}
	/* ns_per_op of a twocpu line is wall time over all threads' ops. */
	c[0].ops = ops;
	c[0].elapsed = el;
	for (i = 1; i < threads; i++) {
		c[0].cpu += c[i].cpu;
		c[0].syscalls += c[i].syscalls;
		c[0].arms += c[i].arms;
		c[0].cancels += c[i].cancels;
		c[0].fired += c[i].fired;
		c[0].p.errors += c[i].p.errors;
	}
	churn_report("twocpu", &c[0], o.pending, threads,
		     (double)ops * 1e9 / (double)(el ? el : 1));
	for (i = 0; i < threads; i++)
		churn_free(&c[i]);
	pthread_barrier_destroy(&bar);
	free(c);
	free(tid);
}

static void do_twocpu(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	twocpu_run(1);
	if (ncpu >= 2)
		twocpu_run(2);
	else
		note("twocpu: only %ld CPU online", ncpu);
}

/* ------------------------------------------------------------ hot timer */

/*
 * One hot timer, as a new user would try it: one timeout armed for a second
 * and cancelled again, --count pairs in a row, nothing else pending. For
 * timerfd that is one timerfd_settime() each way; for twheel one
 * TWHEEL_IOC_ARM and one TWHEEL_IOC_CANCEL; for twheel-b1 the same two
 * operations each in a TWHEEL_IOC_BATCH of one. The first tenth is a
 * warm-up (not counted). Cost per operation = wall time / (2 x pairs).
 */
static void do_hot(void)
{
	uint64_t i, warm = o.count / 10, t0, cpu0, sc0;
	struct peer p;

	peer_init(&p, o.peer);
	peer_open(&p, 1);
	if (p.ops->prepare)
		op_check(&p, p.ops->prepare(&p, 0), "prepare");
	for (i = 0; i < warm; i++) {
		op_check(&p, p.ops->arm(&p, 0, NSEC_PER_SEC, false), "arm");
		op_check(&p, p.ops->cancel(&p, 0), "cancel");
	}
	op_check(&p, p.ops->flush(&p), "flush");
	sc0 = p.syscalls;
	cpu0 = cpu_ns();
	t0 = now_ns();
	for (i = 0; i < o.count; i++) {
		op_check(&p, p.ops->arm(&p, 0, NSEC_PER_SEC, false), "arm");
		op_check(&p, p.ops->cancel(&p, 0), "cancel");
	}
	op_check(&p, p.ops->flush(&p), "flush");
	simple_report(o.name ? o.name : "hot", &p, 0, 2 * o.count,
		      now_ns() - t0, cpu_ns() - cpu0, p.syscalls - sc0, 0);
	p.ops->close(&p);
}

/* ------------------------------------------------------------------ main */

static void usage(void)
{
	fputs("usage: twbench churn|suite|expiry|accuracy|memory|idle|twocpu|hot|refresh\n"
	      "  --peer P --pending N --ops M --time S --count K --spread MS --rounds R\n"
	      "  --tag T --far --seed X --dev PATH --name WORKLOAD-NAME --pin CPU\n"
	      "  accuracy takes a comma-separated list of peers, run at once\n", stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *w;
	sigset_t set;
	int i;

	if (argc < 2)
		usage();
	w = argv[1];
	for (i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--far")) {
			o.far = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--peer"))
			o.peer = v;
		else if (!strcmp(a, "--pending"))
			o.pending = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--ops"))
			o.ops = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--time"))
			o.time = atof(v);
		else if (!strcmp(a, "--count"))
			o.count = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--rounds"))
			o.rounds = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--spread"))
			o.spread_ms = atof(v);
		else if (!strcmp(a, "--tag"))
			o.tag = v;
		else if (!strcmp(a, "--seed"))
			o.seed = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--dev"))
			twheel_dev = v;
		else if (!strcmp(a, "--name"))
			o.name = v;
		else if (!strcmp(a, "--pin"))
			o.pin = atoi(v);
		else
			usage();
	}
	if (!o.peer)
		usage();
	if (!o.seed)
		o.seed = 1;
	/* POSIX timer signals are taken with a signalfd in every thread. */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	raise_limits(o.pending + 65536 + o.count);
	if (o.pin >= 0)
		pin_cpu(o.pin);
	if (!o.pending && (!strcmp(w, "churn") || !strcmp(w, "twocpu")))
		o.pending = 0;
	else if (!o.pending)
		o.pending = 1000;

	if (!strcmp(w, "churn"))
		do_churn();
	else if (!strcmp(w, "suite"))
		do_suite();
	else if (!strcmp(w, "expiry"))
		do_expiry();
	else if (!strcmp(w, "accuracy"))
		do_accuracy();
	else if (!strcmp(w, "memory"))
		do_memory();
	else if (!strcmp(w, "idle"))
		do_idle();
	else if (!strcmp(w, "twocpu"))
		do_twocpu();
	else if (!strcmp(w, "hot"))
		do_hot();
	else if (!strcmp(w, "refresh"))
		do_refresh();
	else
		usage();
	return 0;
}
