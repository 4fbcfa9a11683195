// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test.c - randomized fuzzer of /dev/twheel with a shadow model
 *
 * Several threads run random operations on several open files: arms of
 * every kind (one-shot, fixed-rate, fixed-delay, absolute, pinned to a CPU,
 * on CLOCK_BOOTTIME),
 * re-arms, cancels, batches with invalid operations mixed in, invalid single
 * ioctls, reads with random buffer sizes (blocking, O_NONBLOCK, RWF_NOWAIT),
 * poll, and close/reopen. Half the opens share a timeout table
 * (TWHEEL_IOC_SHARE): their timeouts are also refreshed by stores into it,
 * and some stores are garbage the kernel must ignore; half of those have
 * an expiry ring too, small enough to fill, which every read also empties;
 * in half of each kind the program picks the table entry of every arm
 * (TWHEEL_SHARE_PICK_SLOTS). Every result and every record read is checked
 * against a model of each file; at the end everything is cancelled and
 * drained, and every one-shot timeout that was armed and not cancelled must
 * have given exactly one record.
 *
 *   fuzz_test [--seed N] [--ops M] [--threads T] [--files F] [harness opts]
 *
 * Defaults: a random seed (printed), 20000 operations, 4 threads, 3 files;
 * TWHEEL_FUZZ_SEED / TWHEEL_FUZZ_OPS in the environment set the defaults.
 * Each thread draws its operations from its own generator seeded from the
 * seed, so a seed replays the same operations; with --threads 1 it also
 * replays their order (the timing of expiries stays the machine's).
 *
 * What the model asserts exactly, despite timing:
 *  - The mutating ioctls of one file are issued under that file's model
 *    lock, so their results are predicted exactly: a handle that the model
 *    knows dead (cancelled, its one-shot record read, never handed out,
 *    another file's) gets -ENOENT; a live periodic one gets 0; a live
 *    one-shot gets 0, or -ENOENT only while a read of that file is in
 *    flight (it may have taken the record): that record must then arrive.
 *  - Reads run without the lock; a read notes the file's sequence number
 *    before it starts. A record must be of a handle of this file, with its
 *    cookie, never before the lower bound of its deadline (the clock before
 *    the arm plus the delay, or the absolute deadline, or what the previous
 *    record implies), expired between its deadline and the end of the read.
 *    A one-shot gives at most one record and none once a cancel of it
 *    returned 0; a periodic one none in a read that started after its
 *    cancel returned. Reads that overlapped a change of the timeout are
 *    checked against the weakest bound the timeout ever had.
 *  - CLOCK_BOOTTIME timeouts are armed only while that clock reads the
 *    same as CLOCK_MONOTONIC (nothing was suspended, no time namespace
 *    offset), so that every bound above holds for them as it is.
 *  - A store into the shared table is a re-arm to an absolute deadline no
 *    earlier than the entry's, and bounds records the same way; the entry
 *    holds the handle of a live timeout (a one-shot's only until a read
 *    may have taken its record) and never that of a dead one. A store of
 *    garbage (past the clock's range) changes nothing.
 *  - With a ring, a one-shot dies whenever its record goes in, so it is
 *    always as if a read were in flight; records taken from the ring are
 *    checked as those of a read that started before everything (the
 *    weakest bounds), one record at a time (a periodic timeout may have
 *    several there), and a dead timeout is forgotten only once the ring
 *    was emptied after it died.
 *  - In a file whose program picks the entries, an arm into an entry the
 *    model knows free (never used, or its timeout known dead) succeeds
 *    with a handle of that slot; one into the entry of a live periodic
 *    timeout gets -EBUSY.
 *  - Invalid operations get their documented errno and change nothing:
 *    their targets are live timeouts with far deadlines and the invalid
 *    re-arm asks for "now", so an applied one shows as an early record, an
 *    applied cancel as a lost one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"

typedef unsigned long long u64;

#define TW_DEV		"/dev/twheel"
#define MS		1000000ULL
#define SEC		1000000000ULL
#define EVSZ		((int)sizeof(struct twheel_event))

#define MAX_THREADS	16
#define MAX_FILES	16
#define HBUCKETS	4096
#define LIVE_SOFT_MAX	192	/* above this, a file prefers cancels */
#define HIST		8
#define STALE_RING	64
#define FOREIGN_RING	256
#define LOGN		32
#define SENTINEL_PERIOD	(3 * MS)
#define MAX_BATCH_OPS	24
#define MAX_READ_RECS	64
#define FINAL_WAVE	128
/* Entries of a shared table: more slots than a file ever holds at once. */
#define TABLE_SLOTS	8192
/* Records of an expiry ring: few, so that it fills now and then. */
#define RING_ENTRIES	64

/* Options. */
static u64 opt_seed;
static u64 opt_ops = 20000;
static int opt_threads = 4;
static int opt_files = 3;

/* What the running module has. */
static struct twheel_info info;
static bool have_report;	/* TWHEEL_CANCEL_REPORT */
static bool have_stats;		/* TWHEEL_IOC_STATS */
static bool have_get;		/* TWHEEL_IOC_GET */
static bool have_drain;		/* TWHEEL_IOC_DRAIN */
static bool have_boottime;	/* TWHEEL_ARM_BOOTTIME, on a clock = MONOTONIC */
static bool have_share;		/* TWHEEL_IOC_SHARE */
static bool have_pick;		/* TWHEEL_SHARE_PICK_SLOTS */
static int ncpus_ok;		/* CPUs a timeout may be pinned to */
static int cpus_ok[1024];

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

static u64 clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * SEC + (u64)ts.tv_nsec;
}

static u64 now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void sleep_ns(u64 ns)
{
	struct timespec ts = { .tv_sec = ns / SEC, .tv_nsec = ns % SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/* ioctl() that may return a positive value (cancel with REPORT). */
static int xioctl_val(int fd, unsigned long cmd, void *arg)
{
	int r = ioctl(fd, cmd, arg);

	return r < 0 ? -errno : r;
}

struct rng {
	u64 s;
};

static u64 rnd(struct rng *r)
{
	/* splitmix64 */
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static u64 rn(struct rng *r, u64 n)
{
	return n ? rnd(r) % n : 0;
}

static bool pct(struct rng *r, int p)
{
	return (int)rn(r, 100) < p;
}

static const char *errname(int e)
{
	static __thread char buf[32];

	switch (e) {
	case 0: return "0";
	case 1: return "1 (ARMED)";
	case 2: return "2 (QUEUED)";
	case -ENOENT: return "-ENOENT";
	case -EINVAL: return "-EINVAL";
	case -ERANGE: return "-ERANGE";
	case -E2BIG: return "-E2BIG";
	case -EPERM: return "-EPERM";
	case -ENOTTY: return "-ENOTTY";
	case -EAGAIN: return "-EAGAIN";
	case -EFAULT: return "-EFAULT";
	case -ENOSPC: return "-ENOSPC";
	case -ENOMEM: return "-ENOMEM";
	case -EINTR: return "-EINTR";
	}
	snprintf(buf, sizeof(buf), "%d", e);
	return buf;
}

/* ------------------------------------------------------------------ */
/* Failure reporting                                                   */

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int failed;
static volatile int stop;
static char fail_msg[8192];
static size_t fail_len;

static void __attribute__((format(printf, 1, 2)))
fail_add(const char *fmt, ...)
{
	va_list ap;

	if (fail_len >= sizeof(fail_msg) - 1)
		return;
	va_start(ap, fmt);
	fail_len += vsnprintf(fail_msg + fail_len, sizeof(fail_msg) - fail_len,
			      fmt, ap);
	va_end(ap);
	if (fail_len > sizeof(fail_msg) - 1)
		fail_len = sizeof(fail_msg) - 1;
}

/* ------------------------------------------------------------------ */
/* The model                                                           */

enum kind { ONESHOT, FIXED_RATE, FIXED_DELAY };
enum state {
	LIVE,
	CANCELLED,	/* a cancel returned 0 */
	DONE,		/* one-shot: its record was read */
	GONE_PENDING,	/* one-shot: -ENOENT while a read was in flight */
};

static const char *const kind_name[] = { "one-shot", "fixed-rate", "fixed-delay" };
static const char *const state_name[] = { "live", "cancelled", "done", "gone-pending" };

struct hist {
	char what;	/* A arm, R rearm, C cancel, E record, N enoent */
	u64 t;	/* clock before the call */
	u64 a, b;	/* floor / deadline, overrun / result */
};

struct ent {
	u64 handle;
	u64 cookie;
	u64 period;
	enum kind kind;
	enum state state;
	uint32_t arm_flags;
	uint32_t cpu;
	u64 floor;		/* no record's deadline is earlier ... */
	u64 floor_seq;	/* ... in a read started at or after this */
	u64 floor_all;	/* no record's deadline is ever earlier */
	u64 floor_filed;	/* floor of the last arm or re-arm (no store) */
	u64 dead_seq;	/* cancel returned: read started after: nothing */
	u64 last_dl[4];	/* periodic: deadlines seen, to spot repeats */
	u64 records;
	int live_idx;		/* index in tfile.live, -1 if not there */
	bool sentinel;
	struct ent *hnext;
	int nh;
	struct hist h[HIST];
};

struct tfile {
	pthread_rwlock_t rw;	/* read: use the fd; write: close/reopen */
	pthread_mutex_t m;	/* the model; held around mutating ioctls */
	int idx;
	int fd;
	uint32_t inst;		/* instance number of this open */
	bool nonblock;		/* opened O_NONBLOCK */
	u64 seq;		/* atomic; bumped after each change / read */
	int inflight;		/* atomic; reads not yet processed */
	u64 inflight_start[MAX_THREADS + 1];	/* atomic; ~0 when none */
	struct ent *hash[HBUCKETS];
	struct ent **live;
	int nlive, caplive;
	struct ent **dead;
	int ndead, capdead;
	int ngone;		/* GONE_PENDING entries */
	struct ent *sentinel;
	u64 stale[STALE_RING];
	unsigned int nstale;
	u64 arms, cancels;	/* since open, for TWHEEL_IOC_STATS */
	u64 arm_ctr;
	struct twheel_slot *table;	/* shared table, or NULL */
	size_t table_size;
	struct twheel_ring *ring;	/* expiry ring, or NULL */
	size_t ring_size;
	u64 ring_emptied_seq;	/* seq before the ring was last emptied */
	bool pick;		/* the program picks each arm's entry */
	u64 slot_owner[TABLE_SLOTS];	/* pick: the live handle, or 0 */
	uint32_t slot_next;	/* pick: where to look for a free entry */
};

static struct tfile files[MAX_FILES];
static uint32_t next_inst = 1;		/* atomic */

static pthread_mutex_t foreign_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { uint32_t inst; u64 handle; } foreign[FOREIGN_RING];
static unsigned int nforeign;

/* Statistics (atomic adds). */
static u64 ops_done, st_records, st_oneshot_recs, st_periodic_recs,
	st_overruns, st_invalid, st_enoent_race, st_reopen, st_reads,
	st_eagain, st_batches, st_arms, st_cancels, st_rearms, st_lost,
	st_oneshots_expected, st_polls, st_gets, st_boot_arms, st_stores,
	st_junk_stores, st_ring_recs, st_picked_arms;

#define ADD(v, n) __atomic_fetch_add(&(v), (n), __ATOMIC_RELAXED)
#define LOAD(v) __atomic_load_n(&(v), __ATOMIC_ACQUIRE)

/* Per-thread log of the last operations, for the report of a failure. */
struct tlog {
	char line[LOGN][160];
	unsigned int n;
	char doing[160];
};

static struct tlog tlogs[MAX_THREADS + 1];

static void __attribute__((format(printf, 2, 3)))
logop(int tid, const char *fmt, ...)
{
	struct tlog *l = &tlogs[tid];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->line[l->n % LOGN], sizeof(l->line[0]), fmt, ap);
	va_end(ap);
	l->n++;
}

static void hist_add(struct ent *e, char what, u64 t, u64 a,
		     u64 b)
{
	struct hist *h = &e->h[e->nh % HIST];

	h->what = what;
	h->t = t;
	h->a = a;
	h->b = b;
	e->nh++;
}

static void describe(struct ent *e)
{
	int i, first;

	fail_add("#   handle %#llx cookie %#llx %s period %llu"
		 " flags %#x cpu %u state %s floor %llu floor_all %llu"
		 " records %llu\n",
		 e->handle, e->cookie, kind_name[e->kind], e->period,
		 e->arm_flags, e->cpu, state_name[e->state], e->floor,
		 e->floor_all, e->records);
	first = e->nh > HIST ? e->nh - HIST : 0;
	for (i = first; i < e->nh; i++) {
		struct hist *h = &e->h[i % HIST];

		fail_add("#     %c at %llu: %llu %llu\n",
			 h->what, h->t, h->a, h->b);
	}
}

/* Record a failure; the caller holds the file's model lock if it has one. */
static void __attribute__((format(printf, 4, 5)))
failf(int tid, struct tfile *f, struct ent *e, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&fail_lock);
	if (!failed) {
		char buf[1024];

		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		fail_add("# FAIL (seed %llu, thread %d, file %d inst %u): %s\n",
			 opt_seed, tid, f ? f->idx : -1, f ? f->inst : 0, buf);
		if (e)
			describe(e);
		if (tid >= 0 && tid <= MAX_THREADS) {
			struct tlog *l = &tlogs[tid];
			unsigned int i = l->n > LOGN ? l->n - LOGN : 0;

			fail_add("#   last operations of thread %d:\n", tid);
			for (; i < l->n; i++)
				fail_add("#     %s\n", l->line[i % LOGN]);
		}
		failed = 1;
	}
	stop = 1;
	pthread_mutex_unlock(&fail_lock);
}

static struct ent *lookup(struct tfile *f, u64 handle)
{
	struct ent *e;

	for (e = f->hash[handle % HBUCKETS]; e; e = e->hnext)
		if (e->handle == handle)
			return e;
	return NULL;
}

static void hash_del(struct tfile *f, struct ent *e)
{
	struct ent **p;

	for (p = &f->hash[e->handle % HBUCKETS]; *p; p = &(*p)->hnext)
		if (*p == e) {
			*p = e->hnext;
			return;
		}
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("realloc");
		abort();
	}
	return p;
}

static void live_add(struct tfile *f, struct ent *e)
{
	if (e->sentinel) {
		e->live_idx = -1;
		return;
	}
	if (f->nlive == f->caplive) {
		f->caplive = f->caplive ? 2 * f->caplive : 256;
		f->live = xrealloc(f->live, f->caplive * sizeof(*f->live));
	}
	e->live_idx = f->nlive;
	f->live[f->nlive++] = e;
}

static void live_del(struct tfile *f, struct ent *e)
{
	int i = e->live_idx;

	if (i < 0)
		return;
	f->live[i] = f->live[--f->nlive];
	f->live[i]->live_idx = i;
	e->live_idx = -1;
}

static u64 min_inflight_start(struct tfile *f)
{
	u64 m = UINT64_MAX, s;
	int i;

	for (i = 0; i <= MAX_THREADS; i++) {
		s = LOAD(f->inflight_start[i]);
		if (s < m)
			m = s;
	}
	return m;
}

/* Forget dead timeouts no read in flight can still carry a record of. */
static void gc_dead(struct tfile *f)
{
	u64 m = min_inflight_start(f);
	int i, j = 0;

	/* A record of it may wait in the ring until that is emptied. */
	if (f->ring && f->ring_emptied_seq < m)
		m = f->ring_emptied_seq;
	for (i = 0; i < f->ndead; i++) {
		struct ent *e = f->dead[i];

		if (e->dead_seq < m) {
			hash_del(f, e);
			free(e);
		} else {
			f->dead[j++] = e;
		}
	}
	f->ndead = j;
}

/*
 * @e is dead as far as the kernel is concerned: its entry is free for the
 * next arm, unless a newer timeout of the model holds it already.
 */
static void slot_release(struct tfile *f, const struct ent *e)
{
	uint32_t slot = (uint32_t)e->handle;

	if (f->pick && slot < TABLE_SLOTS && f->slot_owner[slot] == e->handle)
		f->slot_owner[slot] = 0;
}

/* @e died (cancel returned 0, or its one-shot record was read). */
static void make_dead(struct tfile *f, struct ent *e, enum state st,
		      u64 seq)
{
	if (e->state == GONE_PENDING)
		f->ngone--;
	e->state = st;
	e->dead_seq = seq;
	live_del(f, e);
	slot_release(f, e);
	f->stale[f->nstale++ % STALE_RING] = e->handle;
	if (f->ndead == f->capdead) {
		f->capdead = f->capdead ? 2 * f->capdead : 1024;
		f->dead = xrealloc(f->dead, f->capdead * sizeof(*f->dead));
	}
	f->dead[f->ndead++] = e;
	if (f->ndead >= 4096)
		gc_dead(f);
}

/*
 * An entry for the next arm of a picking file that the model knows free;
 * consecutive picks differ (an arm's success is recorded only after its
 * batch). 0 if there is none.
 */
static uint32_t slot_pick(struct tfile *f)
{
	uint32_t i, slot;

	for (i = 0; i < TABLE_SLOTS; i++) {
		slot = f->slot_next++ % TABLE_SLOTS;
		if (slot && !f->slot_owner[slot])
			return slot;
	}
	return 0;
}

/* A live one-shot that a cancel or get found dead: a read took it. */
static void make_gone(struct tfile *f, struct ent *e, u64 t0)
{
	hist_add(e, 'N', t0, 0, 0);
	live_del(f, e);
	e->state = GONE_PENDING;
	f->ngone++;
	slot_release(f, e);
	ADD(st_enoent_race, 1);
}

static u64 bump_seq(struct tfile *f)
{
	return __atomic_add_fetch(&f->seq, 1, __ATOMIC_ACQ_REL);
}

static void foreign_add(uint32_t inst, u64 handle)
{
	pthread_mutex_lock(&foreign_lock);
	foreign[nforeign % FOREIGN_RING].inst = inst;
	foreign[nforeign % FOREIGN_RING].handle = handle;
	nforeign++;
	pthread_mutex_unlock(&foreign_lock);
}

/* A handle of another open (another file, or a closed one), or 0. */
static u64 foreign_pick(struct rng *r, uint32_t inst)
{
	u64 h = 0;
	unsigned int n, i;

	pthread_mutex_lock(&foreign_lock);
	n = nforeign < FOREIGN_RING ? nforeign : FOREIGN_RING;
	if (n) {
		i = rn(r, n);
		if (foreign[i].inst != inst)
			h = foreign[i].handle;
	}
	pthread_mutex_unlock(&foreign_lock);
	return h;
}

/* A handle that is certainly not live in @f: stale, foreign or 0. */
static u64 dead_handle(struct rng *r, struct tfile *f)
{
	unsigned int n = f->nstale < STALE_RING ? f->nstale : STALE_RING;
	u64 h;

	switch (rn(r, 4)) {
	case 0:
		if (n)
			return f->stale[rn(r, n)];
		break;
	case 1:
		h = foreign_pick(r, f->inst);
		if (h)
			return h;
		break;
	case 2:
		return 0;
	}
	/* Made up: the slot of a live one with another generation. */
	if (f->nlive) {
		h = f->live[rn(r, f->nlive)]->handle ^ (1ULL << (32 + rn(r, 32)));
		if (!lookup(f, h))
			return h;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Arming                                                              */

/* A random valid arm, as a batch op (single ioctls copy from it). */
static void gen_arm(struct rng *r, struct tfile *f, struct twheel_op *op,
		    u64 now)
{
	u64 d;
	int p = rn(r, 100);

	memset(op, 0, sizeof(*op));
	op->op = TWHEEL_OP_ARM;
	op->cookie = ((u64)f->inst << 32) | (uint32_t)++f->arm_ctr;
	if (p < 10)
		d = 0;
	else if (p < 70)
		d = rn(r, 20 * MS);
	else if (p < 85)
		d = 20 * MS + rn(r, 200 * MS);
	else if (p < 97)
		d = SEC + rn(r, 3600 * SEC);	/* cancelled at the end */
	else
		d = info.max_delay_ns - (1 + rn(r, 1000)) * SEC;
	if (pct(r, 25)) {
		op->period = info.tick_ns + rn(r, 8 * MS);
		if (pct(r, 40))
			op->flags |= TWHEEL_ARM_FIXED_DELAY;
		if (d > SEC)
			d = rn(r, 50 * MS);
	}
	if (pct(r, 20)) {
		op->flags |= TWHEEL_ARM_ABS;
		/* Sometimes in the past: fires at once. */
		op->expires = pct(r, 15) ? now - rn(r, now < SEC ? now : SEC)
					 : now + d;
	} else {
		op->expires = d;
	}
	if (pct(r, 20) && ncpus_ok) {
		op->flags |= TWHEEL_ARM_CPU;
		op->cpu = cpus_ok[rn(r, ncpus_ok)];
	}
	if (have_boottime && pct(r, 25))
		op->flags |= TWHEEL_ARM_BOOTTIME;
	if (f->pick) {
		op->flags |= TWHEEL_ARM_SLOT;
		op->handle = slot_pick(f);
	}
}

static enum kind op_kind(const struct twheel_op *op)
{
	if (!op->period)
		return ONESHOT;
	return op->flags & TWHEEL_ARM_FIXED_DELAY ? FIXED_DELAY : FIXED_RATE;
}

static u64 deadline_floor(u64 expires, uint32_t flags, u64 t0)
{
	return flags & TWHEEL_ARM_ABS ? expires : t0 + expires;
}

/* A successful arm: into the model. Caller holds f->m. */
static struct ent *model_arm(int tid, struct tfile *f,
			     const struct twheel_op *op, u64 handle,
			     u64 t0, u64 seq)
{
	struct ent *e;

	if (!handle) {
		failf(tid, f, NULL, "arm returned 0 but handle 0");
		return NULL;
	}
	e = lookup(f, handle);
	if (e) {
		failf(tid, f, e, "arm returned handle %#llx"
		      " that the file handed out before", handle);
		return NULL;
	}
	if (f->pick) {
		/* @op is as sent, or (the final wave) as the kernel left it. */
		if ((uint32_t)handle != (uint32_t)op->handle) {
			failf(tid, f, NULL, "arm into entry %u returned "
			      "handle %#llx", (uint32_t)op->handle, handle);
			return NULL;
		}
		f->slot_owner[(uint32_t)handle] = handle;
		ADD(st_picked_arms, 1);
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		abort();
	e->handle = handle;
	e->cookie = op->cookie;
	e->period = op->period;
	e->kind = op_kind(op);
	e->arm_flags = op->flags;
	e->cpu = op->cpu;
	e->state = LIVE;
	e->floor = deadline_floor(op->expires, op->flags, t0);
	e->floor_all = e->floor;
	e->floor_filed = e->floor;
	e->floor_seq = seq;
	e->hnext = f->hash[handle % HBUCKETS];
	f->hash[handle % HBUCKETS] = e;
	live_add(f, e);
	hist_add(e, 'A', t0, e->floor, op->expires);
	f->arms++;
	ADD(st_arms, 1);
	if (op->flags & TWHEEL_ARM_BOOTTIME)
		ADD(st_boot_arms, 1);
	if (pct(&(struct rng){ handle }, 10))
		foreign_add(f->inst, handle);
	return e;
}

/* Expected outcome of a re-arm or cancel of @handle, as the model knows it. */
enum expect { EXP_ENOENT, EXP_OK, EXP_OK_OR_RACE };

static enum expect expect_for(struct ent *e)
{
	if (!e || e->state != LIVE)
		return EXP_ENOENT;
	if (e->kind != ONESHOT)
		return EXP_OK;
	return EXP_OK_OR_RACE;
}

/*
 * Check the result @ret of a re-arm (@cancel false) or cancel of @handle
 * and update the model. @t0/@t1: the clock before and after the call.
 * Caller holds f->m. Returns false on a failure.
 */
static bool model_mutate(int tid, struct tfile *f, u64 handle,
			 bool cancel, bool report, u64 expires,
			 uint32_t flags, int ret, u64 t0, u64 t1,
			 u64 seq)
{
	struct ent *e = lookup(f, handle);
	enum expect x = expect_for(e);
	const char *what = cancel ? "cancel" : "re-arm";

	if (e && e->sentinel && !cancel) {
		failf(tid, f, e, "internal: re-arm of the sentinel");
		return false;
	}
	if (x == EXP_ENOENT) {
		if (ret != -ENOENT) {
			failf(tid, f, e, "%s of handle %#llx"
			      " (%s) returned %s, expected -ENOENT", what,
			      handle, e ? state_name[e->state] :
			      "not of this file", errname(ret));
			return false;
		}
		return true;
	}
	if (ret == -ENOENT && x == EXP_OK_OR_RACE) {
		/* A read in flight must have taken its record. */
		if (!LOAD(f->inflight) && !f->ring) {
			failf(tid, f, e, "%s of live one-shot %#llx"
			      " returned -ENOENT, but no read is in flight "
			      "and its record was never read", what, handle);
			return false;
		}
		make_gone(f, e, t0);
		return true;
	}
	if (cancel && report && (ret == TWHEEL_CANCELLED_ARMED ||
				 ret == TWHEEL_CANCELLED_QUEUED)) {
		if (ret == TWHEEL_CANCELLED_QUEUED && t1 < e->floor) {
			failf(tid, f, e, "cancel reported QUEUED at %llu"
			      ", before the deadline's lower bound %llu"
			      " (fired early)", t1, e->floor);
			return false;
		}
		ret = 0;
	}
	if (ret != 0) {
		failf(tid, f, e, "%s of live handle %#llx returned %s",
		      what, handle, errname(ret));
		return false;
	}
	if (cancel) {
		hist_add(e, 'C', t0, seq, 0);
		f->cancels++;
		ADD(st_cancels, 1);
		make_dead(f, e, CANCELLED, seq);
	} else {
		e->floor = deadline_floor(expires, flags, t0);
		e->floor_filed = e->floor;
		if (e->floor < e->floor_all)
			e->floor_all = e->floor;
		e->floor_seq = seq;
		hist_add(e, 'R', t0, e->floor, expires);
		ADD(st_rearms, 1);
	}
	return true;
}

/* A live, non-sentinel timeout of @f, preferring far ones if @far. */
static struct ent *pick_live(struct rng *r, struct tfile *f, bool far,
			     u64 now)
{
	struct ent *e;
	int i;

	if (!f->nlive)
		return NULL;
	e = f->live[rn(r, f->nlive)];
	if (!far)
		return e;
	for (i = 0; i < 8; i++) {
		if (e->kind == ONESHOT && e->floor > now + SEC)
			return e;
		e = f->live[rn(r, f->nlive)];
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Reading records                                                     */

struct readctx {
	u64 t0, t1, start_seq;
};

/* Check one record read from @f. Caller holds f->m. */
static bool check_record(int tid, struct tfile *f, const struct twheel_event *ev,
			 const struct readctx *rc, u64 seq)
{
	struct ent *e;
	u64 lb;
	uint32_t inst = ev->cookie >> 32;
	int i;

	if (ev->reserved) {
		failf(tid, f, NULL, "record of %#llx has reserved %u",
		      ev->handle, ev->reserved);
		return false;
	}
	e = lookup(f, ev->handle);
	if (!e) {
		if (inst != f->inst)
			failf(tid, f, NULL, "record of handle %#llx cookie %#"
			      "llx belongs to another file (instance %u)",
			      ev->handle, ev->cookie, inst);
		else
			failf(tid, f, NULL, "record of handle %#llx cookie %#"
			      "llx that the file does not have (never armed, "
			      "or dead: a duplicate or a record after a cancel)",
			      ev->handle, ev->cookie);
		return false;
	}
	if (ev->cookie != e->cookie) {
		failf(tid, f, e, "record of %#llx has cookie %#llx",
		      ev->handle, ev->cookie);
		return false;
	}
	if (ev->expired < ev->deadline || ev->expired > rc->t1) {
		failf(tid, f, e, "record of %#llx: expired %llu"
		      " not within [deadline %llu, end of read %llu]",
		      ev->handle, ev->expired, ev->deadline, rc->t1);
		return false;
	}
	hist_add(e, 'E', rc->t0, ev->deadline, ev->overrun);
	e->records++;
	ADD(st_records, 1);
	if (e->kind == ONESHOT) {
		ADD(st_oneshot_recs, 1);
		if (ev->flags || ev->overrun) {
			failf(tid, f, e, "one-shot record with flags %#x overrun %"
			      "llu", ev->flags, ev->overrun);
			return false;
		}
		if (e->state == CANCELLED) {
			failf(tid, f, e, "record of one-shot %#llx"
			      " whose cancel returned 0", ev->handle);
			return false;
		}
		if (e->state == DONE) {
			failf(tid, f, e, "second record of one-shot %#llx"
			      " (duplicate)", ev->handle);
			return false;
		}
		/*
		 * A re-arm that returned 0 found the record not taken; a
		 * store bounds only reads that started after it.
		 */
		lb = rc->start_seq >= e->floor_seq ? e->floor : e->floor_filed;
		if (ev->deadline < lb) {
			failf(tid, f, e, "record of one-shot %#llx"
			      ": deadline %llu before its lower bound %"
			      "llu (early, or a stale record after a re-arm)",
			      ev->handle, ev->deadline, lb);
			return false;
		}
		make_dead(f, e, DONE, seq);
		return true;
	}

	ADD(st_periodic_recs, 1);
	if (ev->flags != TWHEEL_EV_PERIODIC) {
		failf(tid, f, e, "periodic record with flags %#x", ev->flags);
		return false;
	}
	if (e->state == CANCELLED && rc->start_seq >= e->dead_seq) {
		failf(tid, f, e, "record of periodic %#llx in a read "
		      "that started after its cancel returned 0", ev->handle);
		return false;
	}
	for (i = 0; i < 4; i++)
		if (e->last_dl[i] == ev->deadline) {
			failf(tid, f, e, "periodic %#llx gave deadline %"
			      "llu twice (duplicate)", ev->handle,
			      ev->deadline);
			return false;
		}
	e->last_dl[e->records % 4] = ev->deadline;
	if (rc->start_seq >= e->floor_seq ? ev->deadline < e->floor
					  : ev->deadline < e->floor_all) {
		failf(tid, f, e, "record of periodic %#llx: deadline %"
		      "llu before its lower bound %llu (early)",
		      ev->handle, ev->deadline,
		      rc->start_seq >= e->floor_seq ? e->floor : e->floor_all);
		return false;
	}
	if (e->kind == FIXED_DELAY) {
		if (ev->overrun) {
			failf(tid, f, e, "fixed-delay record with overrun %llu",
			      ev->overrun);
			return false;
		}
	} else {
		u64 lo = rc->t0 > ev->deadline ?
			(rc->t0 - ev->deadline) / e->period : 0;
		u64 hi = rc->t1 > ev->deadline ?
			(rc->t1 - ev->deadline) / e->period : 0;

		if (ev->overrun < lo || ev->overrun > hi) {
			failf(tid, f, e, "fixed-rate record: overrun %llu"
			      " not in [%llu, %llu] (deadline %"
			      "llu, read from %llu to %llu)",
			      ev->overrun, lo, hi, ev->deadline, rc->t0, rc->t1);
			return false;
		}
		ADD(st_overruns, ev->overrun);
	}
	if (e->state == LIVE && rc->start_seq >= e->floor_seq) {
		/* The read re-armed it: the next record is no earlier. */
		e->floor = e->kind == FIXED_DELAY ? rc->t0 + e->period :
			   ev->deadline + (ev->overrun + 1) * e->period;
		e->floor_seq = seq;
	}
	return true;
}

/* Check the records of one read. Caller holds f->m. */
static bool process_read(int tid, struct tfile *f, struct twheel_event *ev,
			 int n, const struct readctx *rc)
{
	u64 seq = bump_seq(f);
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (ev[i].handle == ev[j].handle) {
				failf(tid, f, lookup(f, ev[i].handle),
				      "one read returned two records of %#"
				      "llx", ev[i].handle);
				return false;
			}
	for (i = 0; i < n; i++)
		if (!check_record(tid, f, &ev[i], rc, seq))
			return false;
	return true;
}

enum rmode { R_BLOCK, R_NOWAIT, R_POLL };

/*
 * Empty @f's ring, each record checked as if read alone by a read that
 * started before everything. Caller holds f->m. Returns the records taken,
 * or -1 on a failure.
 */
static int ring_empty(int tid, struct tfile *f)
{
	const struct twheel_event *evs =
		(const void *)((const char *)f->ring + TWHEEL_RING_EVENTS);
	struct readctx rc = { 0 };
	struct twheel_event ev;
	uint32_t head = f->ring->head, tail;
	u64 seq0 = LOAD(f->seq);
	int n = 0;

	tail = __atomic_load_n(&f->ring->tail, __ATOMIC_ACQUIRE);
	if (tail - head > RING_ENTRIES) {
		failf(tid, f, NULL, "ring tail %u is %u records past its head",
		      tail, tail - head);
		return -1;
	}
	for (; head != tail; head++) {
		ev = evs[head % RING_ENTRIES];
		__atomic_store_n(&f->ring->head, head + 1, __ATOMIC_RELEASE);
		rc.t1 = now_ns();
		if (!process_read(tid, f, &ev, 1, &rc))
			return -1;
		n++;
	}
	f->ring_emptied_seq = seq0;
	ADD(st_ring_recs, n);
	return n;
}

/*
 * One read of @f with a buffer of @size bytes; @mode: read() (blocking
 * unless the file is O_NONBLOCK), preadv2(RWF_NOWAIT), or poll first.
 * Returns records read, or -1 after a failure.
 */
static int do_read(int tid, struct tfile *f, size_t size, enum rmode mode,
		   int poll_ms)
{
	static __thread unsigned char buf[(MAX_READ_RECS + 1) * EVSZ + 64];
	struct twheel_event ev[MAX_READ_RECS];
	struct readctx rc;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	ssize_t r;
	int err = 0, n, i;
	bool nowait = mode != R_BLOCK || f->nonblock;

	memset(buf + size, 0xa5, 64);
	if (mode == R_POLL) {
		struct pollfd p = { .fd = f->fd, .events = POLLIN };

		ADD(st_polls, 1);
		r = poll(&p, 1, poll_ms);
		if (r < 0 || (p.revents & ~(POLLIN | POLLRDNORM))) {
			failf(tid, f, NULL, "poll returned %zd revents %#x",
			      r, p.revents);
			return -1;
		}
		if (!r)
			return 0;
	}
	ADD(f->inflight, 1);
	rc.start_seq = LOAD(f->seq);
	__atomic_store_n(&f->inflight_start[tid], rc.start_seq, __ATOMIC_RELEASE);
	rc.t0 = now_ns();
	if (mode == R_BLOCK)
		r = read(f->fd, buf, size);
	else
		r = preadv2(f->fd, &iov, 1, -1, RWF_NOWAIT);
	if (r < 0)
		err = -errno;
	rc.t1 = now_ns();

	pthread_mutex_lock(&f->m);
	__atomic_store_n(&f->inflight_start[tid], UINT64_MAX, __ATOMIC_RELEASE);
	ADD(f->inflight, -1);
	ADD(st_reads, 1);
	logop(tid, "read f%d size %zu mode %d -> %zd %s", f->idx, size, mode,
	      r, errname(err));
	n = -1;
	for (i = 0; i < 64; i++)
		if (buf[size + i] != 0xa5) {
			failf(tid, f, NULL, "read of %zu bytes wrote past the buffer",
			      size);
			goto out;
		}
	if (size < (size_t)EVSZ) {
		if (err != -EINVAL)
			failf(tid, f, NULL, "read of %zu bytes returned %zd (%s), "
			      "expected -EINVAL", size, r, errname(err));
		else
			n = 0;
		goto out;
	}
	if (err) {
		if (err == -EAGAIN && nowait) {
			ADD(st_eagain, 1);
			n = 0;
		} else {
			failf(tid, f, NULL, "read of %zu bytes (%s) returned %s",
			      size, nowait ? "non-blocking" : "blocking",
			      errname(err));
		}
		goto out;
	}
	if (r == 0 || r % EVSZ || (size_t)r > size) {
		failf(tid, f, NULL, "read of %zu bytes returned %zd", size, r);
		goto out;
	}
	n = r / EVSZ;
	memcpy(ev, buf, r);
	if (!process_read(tid, f, ev, n, &rc))
		n = -1;
out:
	if (f->ring && n >= 0) {
		int m = ring_empty(tid, f);

		n = m < 0 ? -1 : n + m;
	}
	pthread_mutex_unlock(&f->m);
	return n;
}

static size_t rand_read_size(struct rng *r)
{
	int p = rn(r, 100);

	if (p < 8)
		return 1 + rn(r, EVSZ - 1);		/* too small */
	if (p < 40)
		return EVSZ;
	if (p < 70)
		return EVSZ * (1 + rn(r, 8)) + rn(r, EVSZ);
	return EVSZ * (1 + rn(r, MAX_READ_RECS - 1)) + rn(r, 2) * rn(r, EVSZ);
}

/* ------------------------------------------------------------------ */
/* Opening and closing                                                 */

/* Open @f anew with its sentinel. Caller holds f->rw for writing. */
/*
 * Give new @f a shared table, and with @ring an expiry ring; map them.
 * With f->pick the program picks the entries.
 */
static bool file_share(int tid, struct tfile *f, bool ring)
{
	struct twheel_share sh = { .slots = TABLE_SLOTS };
	void *p;
	int ret;

	if (f->pick)
		sh.flags = TWHEEL_SHARE_PICK_SLOTS;
	if (ring) {
		sh.flags |= TWHEEL_SHARE_RING;
		sh.ring_entries = RING_ENTRIES;
	}
	ret = xioctl(f->fd, TWHEEL_IOC_SHARE, &sh);

	if (ret || sh.slots != TABLE_SLOTS) {
		failf(tid, f, NULL, "TWHEEL_IOC_SHARE of %u slots returned %s, "
		      "%u slots", TABLE_SLOTS, errname(ret), sh.slots);
		return false;
	}
	p = mmap(NULL, sh.size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		 (off_t)sh.offset);
	if (p == MAP_FAILED) {
		failf(tid, f, NULL, "mmap of the table: %s", strerror(errno));
		return false;
	}
	f->table = p;
	f->table_size = sh.size;
	if (!ring)
		return true;
	p = mmap(NULL, sh.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		 (off_t)sh.ring_offset);
	if (p == MAP_FAILED) {
		failf(tid, f, NULL, "mmap of the ring: %s", strerror(errno));
		return false;
	}
	f->ring = p;
	f->ring_size = sh.ring_size;
	f->ring_emptied_seq = 0;
	return true;
}

static bool file_open(int tid, struct tfile *f, bool nonblock)
{
	struct twheel_arm a = { .period = SENTINEL_PERIOD, .expires = SENTINEL_PERIOD };
	struct twheel_op op = { 0 };
	u64 t0, seq;
	int ret;

	f->fd = open(TW_DEV, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
	if (f->fd < 0) {
		failf(tid, f, NULL, "open " TW_DEV ": %s", strerror(errno));
		return false;
	}
	f->nonblock = nonblock;
	f->inst = __atomic_fetch_add(&next_inst, 1, __ATOMIC_RELAXED);
	f->table = NULL;
	f->ring = NULL;
	/* Instances 5 and 7 modulo 8: a table, and a table with a ring. */
	f->pick = have_pick && f->inst % 8 >= 5 && f->inst % 2;
	memset(f->slot_owner, 0, sizeof(f->slot_owner));
	if (have_share && f->inst % 2 && !file_share(tid, f, f->inst % 4 == 3))
		return false;
	f->arms = f->cancels = 0;
	f->arm_ctr = 0;
	/* A fixed-rate timeout that is never cancelled until the end: a
	 * blocking read always has a record coming. */
	a.cookie = ((u64)f->inst << 32) | (uint32_t)++f->arm_ctr;
	pthread_mutex_lock(&f->m);
	if (f->pick) {
		a.flags = TWHEEL_ARM_SLOT;
		a.handle = slot_pick(f);
	}
	t0 = now_ns();
	ret = xioctl(f->fd, TWHEEL_IOC_ARM, &a);
	seq = bump_seq(f);
	if (ret) {
		failf(tid, f, NULL, "arm of the sentinel returned %s", errname(ret));
	} else {
		op.op = TWHEEL_OP_ARM;
		op.cookie = a.cookie;
		op.expires = a.expires;
		op.period = a.period;
		op.flags = a.flags;
		op.handle = (uint32_t)a.handle;
		f->sentinel = model_arm(tid, f, &op, a.handle, t0, seq);
		if (f->sentinel) {
			f->sentinel->sentinel = true;
			live_del(f, f->sentinel);
		}
	}
	pthread_mutex_unlock(&f->m);
	return !ret;
}

/* Close @f and forget its model. Caller holds f->rw for writing. */
static void file_close(struct tfile *f)
{
	struct ent *e, *n;
	int i;

	if (f->table)
		munmap(f->table, f->table_size);
	if (f->ring)
		munmap(f->ring, f->ring_size);
	f->table = NULL;
	f->ring = NULL;
	close(f->fd);
	f->fd = -1;
	pthread_mutex_lock(&f->m);
	for (i = 0; i < HBUCKETS; i++) {
		for (e = f->hash[i]; e; e = n) {
			n = e->hnext;
			/* Its handles are foreign to every file now. */
			if (e->state == LIVE && !rn(&(struct rng){ e->handle }, 8))
				foreign_add(f->inst, e->handle);
			free(e);
		}
		f->hash[i] = NULL;
	}
	f->nlive = f->ndead = f->ngone = 0;
	f->nstale = 0;
	f->sentinel = NULL;
	pthread_mutex_unlock(&f->m);
}

/* ------------------------------------------------------------------ */
/* Operations                                                          */

static void op_arm(int tid, struct rng *r, struct tfile *f)
{
	struct twheel_op op;
	struct twheel_arm a;
	u64 t0, seq;
	int ret;

	pthread_mutex_lock(&f->m);
	t0 = now_ns();
	gen_arm(r, f, &op, t0);
	a = (struct twheel_arm){
		.cookie = op.cookie, .expires = op.expires, .period = op.period,
		.flags = op.flags, .cpu = op.cpu,
		.handle = f->pick ? op.handle : rnd(r),
	};
	ret = xioctl(f->fd, TWHEEL_IOC_ARM, &a);
	seq = bump_seq(f);
	logop(tid, "arm f%d %s exp %llu per %llu fl %#x cpu %u -> %s %#"
	      "llx", f->idx, kind_name[op_kind(&op)], op.expires, op.period,
	      op.flags, op.cpu, errname(ret), a.handle);
	if (ret)
		failf(tid, f, NULL, "valid arm (expires %llu period %llu"
		      " flags %#x cpu %u) returned %s", op.expires, op.period,
		      op.flags, op.cpu, errname(ret));
	else
		model_arm(tid, f, &op, a.handle, t0, seq);
	pthread_mutex_unlock(&f->m);
}

/*
 * A re-arm of @e (or, @e NULL, of a random handle): a delay, or with
 * @abs (or now and then) an absolute deadline, up to 30 ms from now.
 */
static void rearm_one(int tid, struct rng *r, struct tfile *f, struct ent *e,
		      bool abs)
{
	struct twheel_rearm ra = { 0 };
	u64 t0, t1, seq;
	int ret;

	pthread_mutex_lock(&f->m);
	t0 = now_ns();
	if (!e)
		e = pct(r, 85) ? pick_live(r, f, false, t0) : NULL;
	else if (e->state != LIVE)
		e = NULL;
	ra.handle = e ? e->handle : dead_handle(r, f);
	ra.expires = rn(r, 30 * MS);
	if (abs || pct(r, 20)) {
		ra.flags = TWHEEL_ARM_ABS;
		ra.expires += t0;
	}
	ret = xioctl(f->fd, TWHEEL_IOC_REARM, &ra);
	t1 = now_ns();
	seq = bump_seq(f);
	logop(tid, "rearm f%d %#llx exp %llu fl %#x -> %s", f->idx,
	      ra.handle, ra.expires, ra.flags, errname(ret));
	model_mutate(tid, f, ra.handle, false, false, ra.expires, ra.flags, ret,
		     t0, t1, seq);
	pthread_mutex_unlock(&f->m);
}

static void op_rearm(int tid, struct rng *r, struct tfile *f)
{
	rearm_one(tid, r, f, NULL, false);
}

/* Caller does not hold f->m; @e may have died since it let go. */
static void op_rearm_abs(int tid, struct rng *r, struct tfile *f,
			 struct ent *e)
{
	rearm_one(tid, r, f, e, true);
}

/*
 * Does @f's table say the right thing of @handle (@e, NULL if the model
 * has none of this file)? A live periodic timeout is in its entry; a live
 * one-shot is too unless a read in flight took its record; a dead one is
 * not. Caller holds f->m.
 */
static bool check_entry(int tid, struct tfile *f, struct ent *e, u64 handle,
			u64 in_entry)
{
	bool live = e && e->state == LIVE;

	if (live && in_entry != handle &&
	    (e->kind != ONESHOT || (!LOAD(f->inflight) && !f->ring))) {
		failf(tid, f, e, "table entry of live %s %#llx holds %#llx",
		      kind_name[e->kind], handle, in_entry);
		return false;
	}
	if (!live && e && in_entry == handle) {
		failf(tid, f, e, "table entry of %s %#llx still holds it",
		      state_name[e->state], handle);
		return false;
	}
	return true;
}

/*
 * A refresh by store, as libtwheel's twheel_refresh() makes it: a deadline
 * up to 30 ms later than the entry's, into the entry of a live handle. Now
 * and then a store of garbage instead, which must change nothing; an
 * entry that holds garbage is refreshed with a re-arm ioctl.
 */
static void op_store(int tid, struct rng *r, struct tfile *f)
{
	struct twheel_slot *s;
	struct ent *e;
	u64 t0, seq, h, cur, d;

	pthread_mutex_lock(&f->m);
	t0 = now_ns();
	e = pct(r, 90) ? pick_live(r, f, false, t0) : NULL;
	h = e ? e->handle : dead_handle(r, f);
	e = lookup(f, h);
	s = &f->table[(uint32_t)h % TABLE_SLOTS];
	if (!check_entry(tid, f, e, h, LOAD(s->handle)) ||
	    LOAD(s->handle) != h || !e) {
		pthread_mutex_unlock(&f->m);
		return;
	}
	cur = LOAD(s->deadline);
	if (cur > INT64_MAX) {
		pthread_mutex_unlock(&f->m);
		op_rearm_abs(tid, r, f, e);
		return;
	}
	if (pct(r, 3)) {
		/* It undoes earlier stores: only the weakest bound is left. */
		d = pct(r, 50) ? UINT64_MAX : (1ULL << 63) + rnd(r) % SEC;
		__atomic_store_n(&s->deadline, d, __ATOMIC_RELEASE);
		seq = bump_seq(f);
		logop(tid, "store f%d %#llx junk %llu", f->idx, h, d);
		e->floor = e->floor_all;
		e->floor_seq = seq;
		hist_add(e, 'J', t0, d, cur);
		ADD(st_junk_stores, 1);
		pthread_mutex_unlock(&f->m);
		return;
	}
	d = (cur > t0 ? cur : t0) + rn(r, 30 * MS);
	__atomic_store_n(&s->deadline, d, __ATOMIC_RELEASE);
	seq = bump_seq(f);
	logop(tid, "store f%d %#llx deadline %llu (was %llu)", f->idx, h, d,
	      cur);
	e->floor = d;
	e->floor_seq = seq;
	hist_add(e, 'S', t0, d, cur);
	ADD(st_stores, 1);
	pthread_mutex_unlock(&f->m);
}

static void op_cancel(int tid, struct rng *r, struct tfile *f)
{
	struct twheel_cancel c = { 0 };
	struct ent *e;
	u64 t0, t1, seq;
	int ret;

	pthread_mutex_lock(&f->m);
	t0 = now_ns();
	e = pct(r, 85) ? pick_live(r, f, false, t0) : NULL;
	c.handle = e ? e->handle : dead_handle(r, f);
	if (have_report && pct(r, 50))
		c.flags = TWHEEL_CANCEL_REPORT;
	ret = xioctl_val(f->fd, TWHEEL_IOC_CANCEL, &c);
	t1 = now_ns();
	seq = bump_seq(f);
	logop(tid, "cancel f%d %#llx fl %#x -> %s", f->idx, c.handle,
	      c.flags, errname(ret));
	if (ret > 0 && !c.flags)
		failf(tid, f, e, "cancel without REPORT returned %d", ret);
	else
		model_mutate(tid, f, c.handle, true, c.flags, 0, 0, ret, t0, t1,
			     seq);
	pthread_mutex_unlock(&f->m);
}

/* Check what TWHEEL_IOC_GET says of live timeout @e. Caller holds f->m. */
static bool check_get(int tid, struct tfile *f, struct ent *e,
		      const struct twheel_get *g, u64 t1)
{
	uint32_t flags = e->arm_flags & (TWHEEL_ARM_CPU | TWHEEL_ARM_FIXED_DELAY |
					 TWHEEL_ARM_BOOTTIME);

	if (g->handle != e->handle || g->cookie != e->cookie ||
	    g->period != e->period || g->flags != flags ||
	    g->cpu != (flags & TWHEEL_ARM_CPU ? e->cpu : 0) || g->reserved ||
	    (g->state != TWHEEL_STATE_ARMED && g->state != TWHEEL_STATE_QUEUED)) {
		failf(tid, f, e, "GET of %#llx: handle %#llx cookie %#llx period "
		      "%llu flags %#x cpu %u state %u reserved %u", e->handle,
		      g->handle, g->cookie, g->period, g->flags, g->cpu,
		      g->state, g->reserved);
		return false;
	}
	if (g->deadline < e->floor) {
		failf(tid, f, e, "GET of %#llx: deadline %llu before its lower "
		      "bound %llu", e->handle, g->deadline, e->floor);
		return false;
	}
	if (g->state == TWHEEL_STATE_QUEUED && g->deadline > t1) {
		failf(tid, f, e, "GET of %#llx: queued at %llu, before its "
		      "deadline %llu (fired early)", e->handle, t1, g->deadline);
		return false;
	}
	if ((e->kind != FIXED_RATE || g->state != TWHEEL_STATE_QUEUED) &&
	    g->overrun) {
		failf(tid, f, e, "GET of %#llx (%s, state %u): overrun %llu",
		      e->handle, kind_name[e->kind], g->state, g->overrun);
		return false;
	}
	return true;
}

static void op_get(int tid, struct rng *r, struct tfile *f)
{
	struct twheel_get g;
	struct ent *e;
	u64 t0, t1, h;
	int ret;

	pthread_mutex_lock(&f->m);
	t0 = now_ns();
	e = pct(r, 85) ? pick_live(r, f, false, t0) : NULL;
	if (!e && pct(r, 30))
		e = f->sentinel;
	h = e ? e->handle : dead_handle(r, f);
	memset(&g, 0xa5, sizeof(g));
	g.handle = h;
	g.reserved = 0;
	ret = xioctl(f->fd, TWHEEL_IOC_GET, &g);
	t1 = now_ns();
	ADD(st_gets, 1);
	logop(tid, "get f%d %#llx -> %s state %u deadline %llu", f->idx, h,
	      errname(ret), g.state, g.deadline);
	e = lookup(f, h);
	if (ret == 0 && e && e->state == LIVE) {
		check_get(tid, f, e, &g, t1);
	} else if (ret == -ENOENT && e && e->state == LIVE) {
		/* Same as a cancel: only a read in flight may have taken it. */
		if (e->kind != ONESHOT || (!LOAD(f->inflight) && !f->ring)) {
			failf(tid, f, e, "GET of live %s %#llx returned -ENOENT "
			      "(reads in flight: %d)", kind_name[e->kind], h,
			      LOAD(f->inflight));
		} else {
			make_gone(f, e, t0);
		}
	} else if (ret != -ENOENT || (e && e->state == LIVE)) {
		failf(tid, f, e, "GET of %#llx (%s) returned %s", h,
		      e ? state_name[e->state] : "not of this file",
		      errname(ret));
	}
	pthread_mutex_unlock(&f->m);
}

/*
 * An invalid operation on a far live timeout (or none): the op and the
 * errno it must get. Applied, the re-arm would fire at once (an early
 * record) and the cancel would lose a record.
 */
/* The arm flags are the low bits; every bit above them is unknown. */
#define ARM_FLAG_BITS	__builtin_ctz(~TWHEEL_ARM_FLAGS_ALL)

/*
 * An arm into a picked entry that is not to be had: the sentinel's, which
 * nothing but the end cancels (-EBUSY), else entry 0 or one past the table
 * (-EINVAL).
 */
static int gen_bad_slot(struct rng *r, struct tfile *f, struct twheel_op *op,
			u64 now, const char **what)
{
	gen_arm(r, f, op, now);
	op->flags |= TWHEEL_ARM_SLOT;
	if (f->pick && f->sentinel && pct(r, 70)) {
		*what = "arm into the entry of the live sentinel";
		op->handle = (uint32_t)f->sentinel->handle;
		return -EBUSY;
	}
	*what = "arm into entry 0 or past the table";
	op->handle = pct(r, 50) ? 0 : TABLE_SLOTS + rn(r, 1000);
	return -EINVAL;
}

static int gen_invalid_op(struct rng *r, struct tfile *f, struct twheel_op *op,
			  u64 now, const char **what)
{
	struct ent *e = pick_live(r, f, true, now);
	u64 h = e ? e->handle : 0;

	memset(op, 0, sizeof(*op));
	switch (rn(r, 15)) {
	case 13:
		return gen_bad_slot(r, f, op, now, what);
	case 0:
		*what = "unknown op";
		op->op = pct(r, 50) ? 0 : 5 + rn(r, 1000);
		op->handle = h;
		return -EINVAL;
	case 1:
		*what = "arm with unknown flag";
		gen_arm(r, f, op, now);
		op->flags |= 1U << (ARM_FLAG_BITS + rn(r, 32 - ARM_FLAG_BITS));
		return -EINVAL;
	case 2:
		*what = "arm with cpu but no TWHEEL_ARM_CPU";
		gen_arm(r, f, op, now);
		op->flags &= ~TWHEEL_ARM_CPU;
		op->cpu = 1 + rn(r, 7);
		return -EINVAL;
	case 3:
		*what = "arm with period below a tick";
		gen_arm(r, f, op, now);
		op->period = 1 + rn(r, info.tick_ns - 1);
		return -EINVAL;
	case 4:
		*what = "fixed-delay arm without period";
		gen_arm(r, f, op, now);
		op->period = 0;
		op->flags |= TWHEEL_ARM_FIXED_DELAY;
		return -EINVAL;
	case 5:
		*what = "arm beyond max_delay_ns";
		gen_arm(r, f, op, now);
		op->flags &= ~TWHEEL_ARM_ABS;
		op->expires = info.max_delay_ns + 1 + rn(r, SEC);
		return -ERANGE;
	case 6:
		*what = "arm on a CPU that does not exist";
		gen_arm(r, f, op, now);
		op->flags |= TWHEEL_ARM_CPU;
		op->cpu = 100000 + rn(r, 1000);
		return -EINVAL;
	case 7:
		*what = "re-arm with a flag other than ABS";
		op->op = TWHEEL_OP_REARM;
		op->handle = h;
		op->flags = pct(r, 50) ? TWHEEL_ARM_CPU : TWHEEL_ARM_FIXED_DELAY;
		return -EINVAL;
	case 8:
		*what = "re-arm with a cookie";
		op->op = TWHEEL_OP_REARM;
		op->handle = h;
		op->cookie = 1 + rn(r, 100);
		return -EINVAL;
	case 9:
		*what = "cancel with expires";
		op->op = TWHEEL_OP_CANCEL;
		op->handle = h;
		op->expires = 1 + rn(r, 100);
		return -EINVAL;
	case 10:
		*what = "cancel with unknown flag";
		op->op = TWHEEL_OP_CANCEL;
		op->handle = h;
		op->flags = 1U << (1 + rn(r, 31));
		return -EINVAL;
	case 12:
		*what = "arm with the entry mode not the file's";
		gen_arm(r, f, op, now);
		op->flags ^= TWHEEL_ARM_SLOT;
		op->handle = 1 + rn(r, TABLE_SLOTS - 1);
		return -EINVAL;
	case 11:
		*what = "re-arm of a dead or foreign handle";
		op->op = TWHEEL_OP_REARM;
		op->handle = dead_handle(r, f);
		return -ENOENT;
	default:
		*what = "cancel of a dead or foreign handle";
		op->op = TWHEEL_OP_CANCEL;
		op->handle = dead_handle(r, f);
		return -ENOENT;
	}
}

static void op_batch(int tid, struct rng *r, struct tfile *f)
{
	/* Ops of op_size bytes: 48, or larger with a zero or non-zero tail. */
	static __thread unsigned char raw[MAX_BATCH_OPS * 520];
	struct twheel_op ops[MAX_BATCH_OPS];
	int expect[MAX_BATCH_OPS];
	const char *whatv[MAX_BATCH_OPS];
	bool tail[MAX_BATCH_OPS];
	uint32_t n = 1 + rn(r, MAX_BATCH_OPS), i, op_size = sizeof(ops[0]);
	struct twheel_batch b = { 0 };
	int bad_batch = 0, ret;
	u64 t0, t1, seq;
	struct ent *e;

	if (pct(r, 15))
		op_size = 56 + 8 * rn(r, 2);
	pthread_mutex_lock(&f->m);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int p = rn(r, 100);

		whatv[i] = NULL;
		tail[i] = false;
		expect[i] = 0;
		if (p < 20) {
			expect[i] = gen_invalid_op(r, f, &ops[i], t0, &whatv[i]);
			/*
			 * A made-up handle may be handed out by an arm earlier
			 * in this batch (a slot comes back at once, with the
			 * next generation): the model predicts those in order.
			 */
			if (expect[i] == -ENOENT) {
				whatv[i] = NULL;
				ADD(st_invalid, 1);
			}
		} else if (p < 50 || !f->nlive) {
			gen_arm(r, f, &ops[i], t0);
		} else if (p < 70) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = TWHEEL_OP_REARM;
			e = pick_live(r, f, false, t0);
			ops[i].handle = e ? e->handle : 0;
			ops[i].expires = rn(r, 30 * MS);
			if (pct(r, 20)) {
				ops[i].flags = TWHEEL_ARM_ABS;
				ops[i].expires += t0;
			}
		} else {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = TWHEEL_OP_CANCEL;
			/* Sometimes one a previous op of the batch touched. */
			if (i && pct(r, 20) && ops[i - 1].handle)
				ops[i].handle = ops[i - 1].handle;
			else
				ops[i].handle = (e = pick_live(r, f, false, t0)) ?
						e->handle : 0;
			if (have_report && pct(r, 50))
				ops[i].flags = TWHEEL_CANCEL_REPORT;
		}
		ops[i].result = (int32_t)rnd(r);	/* ignored on input */
		if (ops[i].op == TWHEEL_OP_ARM && !f->pick)
			ops[i].handle = rnd(r);		/* ignored on input */
		if (op_size > sizeof(ops[0]) && pct(r, 10)) {
			tail[i] = true;
			if (ops[i].op == TWHEEL_OP_ARM)
				ops[i].cookie = 0;
			whatv[i] = "op with non-zero bytes past 48";
			expect[i] = -E2BIG;
		}
	}
	/* Sometimes the whole batch is bad: nothing may be applied. */
	if (pct(r, 5)) {
		switch (rn(r, 4)) {
		case 0: b.flags = 1U << rn(r, 32); break;
		case 1: b.reserved = 1 + rn(r, 100); break;
		case 2: op_size = 40; break;
		default: op_size = 520; break;
		}
		bad_batch = -EINVAL;
	}
	memset(raw, 0, sizeof(raw));
	for (i = 0; i < n; i++) {
		memcpy(raw + i * op_size, &ops[i],
		       op_size < sizeof(ops[0]) ? op_size : sizeof(ops[0]));
		if (tail[i] && op_size > sizeof(ops[0]))
			raw[i * op_size + sizeof(ops[0]) + rn(r, op_size - sizeof(ops[0]))] = 1 + rn(r, 255);
	}
	b.ops = (uintptr_t)raw;
	b.count = n;
	b.op_size = op_size;
	ret = xioctl(f->fd, TWHEEL_IOC_BATCH, &b);
	t1 = now_ns();
	seq = bump_seq(f);
	ADD(st_batches, 1);
	logop(tid, "batch f%d n %u op_size %u flags %#x res %u -> %s", f->idx, n,
	      op_size, b.flags, b.reserved, errname(ret));
	if (bad_batch) {
		if (ret != bad_batch)
			failf(tid, f, NULL, "invalid batch (flags %#x reserved %u "
			      "op_size %u) returned %s, expected %s", b.flags,
			      b.reserved, op_size, errname(ret),
			      errname(bad_batch));
		ADD(st_invalid, 1);
		goto out;
	}
	if (ret) {
		failf(tid, f, NULL, "batch of %u returned %s", n, errname(ret));
		goto out;
	}
	for (i = 0; i < n && !stop; i++) {
		struct twheel_op out;

		memcpy(&out, raw + i * op_size, sizeof(out));
		logop(tid, "  op %u: op %u fl %#x h %#llx exp %llu"
		      " per %llu -> %s", i, ops[i].op, ops[i].flags,
		      out.handle, ops[i].expires, ops[i].period,
		      errname(out.result));
		if (whatv[i]) {
			ADD(st_invalid, 1);
			if (out.result != expect[i]) {
				failf(tid, f, lookup(f, ops[i].handle),
				      "batch op %u (%s) returned %s, expected %s",
				      i, whatv[i], errname(out.result),
				      errname(expect[i]));
				break;
			}
			if (ops[i].op == TWHEEL_OP_ARM && out.handle) {
				failf(tid, f, NULL, "failed batch arm left handle %#"
				      "llx", out.handle);
				break;
			}
			continue;
		}
		switch (ops[i].op) {
		case TWHEEL_OP_ARM:
			if (out.result) {
				failf(tid, f, NULL, "valid batch arm %u returned %s",
				      i, errname(out.result));
				break;
			}
			model_arm(tid, f, &ops[i], out.handle, t0, seq);
			ops[i].handle = out.handle;
			break;
		case TWHEEL_OP_REARM:
			model_mutate(tid, f, ops[i].handle, false, false,
				     ops[i].expires, ops[i].flags, out.result,
				     t0, t1, seq);
			break;
		default:
			if (out.result > 0 && !ops[i].flags) {
				failf(tid, f, NULL, "batch cancel without REPORT "
				      "returned %d", out.result);
				break;
			}
			model_mutate(tid, f, ops[i].handle, true, ops[i].flags,
				     0, 0, out.result, t0, t1, seq);
			break;
		}
	}
out:
	ADD(ops_done, n - 1);
	pthread_mutex_unlock(&f->m);
}

/* Invalid single ioctls: each gets its errno and changes nothing. */
static void op_invalid_single(int tid, struct rng *r, struct tfile *f)
{
	struct twheel_op op;
	const char *what = NULL;
	int expect, ret;
	u64 t0;
	struct ent *e;

	pthread_mutex_lock(&f->m);
	t0 = now_ns();
	e = pick_live(r, f, true, t0);
	switch (rn(r, 6)) {
	case 0: {
		struct twheel_rearm ra = {
			.handle = e ? e->handle : 0, .reserved = 1 + rn(r, 1000),
		};
		what = "re-arm with reserved set";
		expect = -EINVAL;
		ret = xioctl(f->fd, TWHEEL_IOC_REARM, &ra);
		break;
	}
	case 1: {
		struct twheel_cancel c = {
			.handle = e ? e->handle : 0, .reserved = 1 + rn(r, 1000),
		};
		what = "cancel with reserved set";
		expect = -EINVAL;
		ret = xioctl(f->fd, TWHEEL_IOC_CANCEL, &c);
		break;
	}
	case 2: {
		/* A newer caller's larger structure, non-zero past the end. */
		struct { struct twheel_cancel c; u64 more; } big = {
			.c.handle = e ? e->handle : 0, .more = 1 + rn(r, 1000),
		};
		what = "cancel with a larger struct, non-zero tail";
		expect = -E2BIG;
		ret = xioctl(f->fd, _IOW(TWHEEL_IOC_MAGIC, 0x03, big), &big);
		break;
	}
	case 3: {
		struct twheel_rearm ra = { .handle = e ? e->handle : 0 };

		what = "re-arm with the wrong direction bits";
		expect = -ENOTTY;
		ret = xioctl(f->fd, _IOR(TWHEEL_IOC_MAGIC, 0x02, ra), &ra);
		break;
	}
	default: {
		struct twheel_arm a;

		expect = gen_invalid_op(r, f, &op, t0, &what);
		if (op.op == TWHEEL_OP_ARM) {
			a = (struct twheel_arm){
				.cookie = op.cookie, .expires = op.expires,
				.period = op.period, .flags = op.flags,
				.cpu = op.cpu, .handle = op.handle,
			};
			ret = xioctl(f->fd, TWHEEL_IOC_ARM, &a);
		} else if (op.op == TWHEEL_OP_REARM && !op.cookie) {
			struct twheel_rearm ra = {
				.handle = op.handle, .expires = op.expires,
				.flags = op.flags,
			};
			ret = xioctl(f->fd, TWHEEL_IOC_REARM, &ra);
		} else if (op.op == TWHEEL_OP_CANCEL && !op.expires) {
			struct twheel_cancel c = {
				.handle = op.handle, .flags = op.flags,
			};
			ret = xioctl_val(f->fd, TWHEEL_IOC_CANCEL, &c);
		} else {
			/* No single-ioctl form: unknown ioctl number instead. */
			what = "unknown ioctl number";
			expect = -ENOTTY;
			ret = xioctl(f->fd, _IOW(TWHEEL_IOC_MAGIC, 0x40 + rn(r, 64),
						 op), &op);
		}
		break;
	}
	}
	bump_seq(f);
	ADD(st_invalid, 1);
	logop(tid, "invalid f%d: %s on %#llx -> %s", f->idx, what,
	      e ? e->handle : 0, errname(ret));
	if (ret != expect)
		failf(tid, f, e, "%s returned %s, expected %s", what,
		      errname(ret), errname(expect));
	pthread_mutex_unlock(&f->m);
}

static void op_reopen(int tid, struct rng *r, struct tfile *f)
{
	pthread_rwlock_unlock(&f->rw);
	pthread_rwlock_wrlock(&f->rw);
	logop(tid, "reopen f%d (inst %u, %d live)", f->idx, f->inst, f->nlive);
	file_close(f);
	file_open(tid, f, pct(r, 30));
	ADD(st_reopen, 1);
}

/* ------------------------------------------------------------------ */
/* Threads                                                             */

struct worker {
	pthread_t th;
	int tid;
	struct rng r;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct rng *r = &w->r;

	while (!stop) {
		struct tfile *f;
		int p;

		if (ADD(ops_done, 1) >= opt_ops)
			break;
		f = &files[rn(r, opt_files)];
		pthread_rwlock_rdlock(&f->rw);
		if (f->fd < 0) {
			pthread_rwlock_unlock(&f->rw);
			break;
		}
		p = rn(r, 1000);
		snprintf(tlogs[w->tid].doing, sizeof(tlogs[0].doing),
			 "op %d on file %d", p, f->idx);
		if (f->nlive > LIVE_SOFT_MAX && p < 300)
			op_cancel(w->tid, r, f);
		else if (p < 220)
			op_arm(w->tid, r, f);
		else if (p < 280 || (p < 320 && !f->table))
			op_rearm(w->tid, r, f);
		else if (p < 320)
			op_store(w->tid, r, f);
		else if (p < 420)
			op_cancel(w->tid, r, f);
		else if (p < 540)
			op_batch(w->tid, r, f);
		else if (p < 620)
			op_invalid_single(w->tid, r, f);
		else if (p < 720)
			do_read(w->tid, f, rand_read_size(r), R_NOWAIT, 0);
		else if (p < 880)
			/* A blocking read() waits for what the ring holds not. */
			do_read(w->tid, f, rand_read_size(r),
				f->ring ? R_NOWAIT : R_BLOCK, 0);
		else if (p < 940)
			do_read(w->tid, f, rand_read_size(r), R_POLL, rn(r, 5));
		else if (p < 997 && have_get)
			op_get(w->tid, r, f);
		else if (p < 997)
			do_read(w->tid, f, rand_read_size(r), R_NOWAIT, 0);
		else
			op_reopen(w->tid, r, f);
		snprintf(tlogs[w->tid].doing, sizeof(tlogs[0].doing), "idle");
		pthread_rwlock_unlock(&f->rw);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The end: cancel everything, drain, nothing lost                     */

static void finish_file(int tid, struct tfile *f, u64 settle_ns)
{
	u64 t0, t1, seq, last = 0, until;
	struct twheel_cancel c;
	struct ent *e;
	int i, ret, n;

	pthread_mutex_lock(&f->m);
	if (f->ring && ring_empty(tid, f) < 0)
		goto out;
	if (f->ngone)
		for (i = 0; i < HBUCKETS; i++)
			for (e = f->hash[i]; e; e = e->hnext)
				if (e->state == GONE_PENDING) {
					failf(tid, f, e, "lost: re-arm/cancel said "
					      "-ENOENT while a read was in flight, "
					      "but no read returned its record");
					goto out;
				}
	/* Quiescent now: TWHEEL_IOC_DRAIN lists exactly the live timeouts. */
	if (have_drain) {
		struct twheel_get ent[64];
		struct twheel_drain d = {
			.entries = (uintptr_t)ent, .count = 64,
			.entry_size = sizeof(ent[0]),
		};
		int listed = 0, want = f->nlive + !!f->sentinel;

		for (;;) {
			ret = xioctl(f->fd, TWHEEL_IOC_DRAIN, &d);
			if (ret) {
				failf(tid, f, NULL, "DRAIN returned %s", errname(ret));
				goto out;
			}
			if (!d.filled)
				break;
			for (i = 0; i < (int)d.filled; i++) {
				e = lookup(f, ent[i].handle);
				if (!e || (e->state != LIVE)) {
					failf(tid, f, e, "DRAIN listed %#llx, which "
					      "the model has %s", ent[i].handle,
					      e ? state_name[e->state] : "not");
					goto out;
				}
				if (!check_get(tid, f, e, &ent[i], now_ns()))
					goto out;
				listed++;
			}
		}
		/* With a ring, one-shots die as they fire: fewer listed. */
		if (listed != want && !(f->ring && listed < want)) {
			failf(tid, f, NULL, "DRAIN listed %d timeouts, the model "
			      "has %d live", listed, want);
			goto out;
		}
	}
	/*
	 * A last wave of one-shots due within 20 ms, some pinned to each
	 * CPU, some absolute or already due: each must give one record.
	 */
	{
		struct twheel_op ops[FINAL_WAVE];
		struct rng r = { f->inst * 0x9e3779b97f4a7c15ULL ^ opt_seed };

		t0 = now_ns();
		for (i = 0; i < FINAL_WAVE; i++) {
			memset(&ops[i], 0, sizeof(ops[i]));
			ops[i].op = TWHEEL_OP_ARM;
			ops[i].cookie = ((u64)f->inst << 32) | (uint32_t)++f->arm_ctr;
			ops[i].expires = rn(&r, 20 * MS);
			if (pct(&r, 20)) {
				ops[i].flags |= TWHEEL_ARM_ABS;
				ops[i].expires = pct(&r, 30) ? t0 - rn(&r, MS) :
							       t0 + ops[i].expires;
			}
			if (ncpus_ok && pct(&r, 50)) {
				ops[i].flags |= TWHEEL_ARM_CPU;
				ops[i].cpu = cpus_ok[i % ncpus_ok];
			}
			if (have_boottime && pct(&r, 25))
				ops[i].flags |= TWHEEL_ARM_BOOTTIME;
			if (f->pick) {
				ops[i].flags |= TWHEEL_ARM_SLOT;
				ops[i].handle = slot_pick(f);
			}
		}
		ret = xioctl(f->fd, TWHEEL_IOC_BATCH, &(struct twheel_batch){
			.ops = (uintptr_t)ops, .count = FINAL_WAVE,
			.op_size = sizeof(ops[0]) });
		seq = bump_seq(f);
		if (ret) {
			failf(tid, f, NULL, "final batch of arms returned %s",
			      errname(ret));
			goto out;
		}
		for (i = 0; i < FINAL_WAVE; i++) {
			if (ops[i].result) {
				failf(tid, f, NULL, "final arm %d returned %s", i,
				      errname(ops[i].result));
				goto out;
			}
			if (!model_arm(tid, f, &ops[i], ops[i].handle, t0, seq))
				goto out;
		}
	}
	/* Cancel the periodic timeouts and the far one-shots. */
	for (i = 0; i < f->nlive + 1 && !stop; i++) {
		e = i < f->nlive ? f->live[i] : f->sentinel;
		if (!e)
			break;
		t0 = now_ns();
		if (e->kind == ONESHOT && e->floor <= t0 + 2 * SEC) {
			if (e->floor > last)
				last = e->floor;
			continue;
		}
		c = (struct twheel_cancel){ .handle = e->handle };
		if (have_report)
			c.flags = TWHEEL_CANCEL_REPORT;
		ret = xioctl_val(f->fd, TWHEEL_IOC_CANCEL, &c);
		t1 = now_ns();
		seq = bump_seq(f);
		if (e->kind == ONESHOT && have_report &&
		    ret != TWHEEL_CANCELLED_ARMED) {
			failf(tid, f, e, "final cancel of a far one-shot returned "
			      "%s, expected ARMED", errname(ret));
			goto out;
		}
		if (e == f->sentinel)
			f->sentinel = NULL;
		if (!model_mutate(tid, f, e->handle, true, c.flags, 0, 0, ret,
				  t0, t1, seq))
			goto out;
		if (i < f->nlive + 1)
			i--;	/* make_dead() moved another into slot i */
	}
	/* What the cancelled periodic timeouts put in the ring before. */
	if (f->ring && ring_empty(tid, f) < 0)
		goto out;
	/* Now only one-shots due within 2 s are live: each gives one record. */
	ADD(st_oneshots_expected, f->nlive);
	until = (last > now_ns() ? last : now_ns()) + settle_ns;
	pthread_mutex_unlock(&f->m);
	while (!stop) {
		pthread_mutex_lock(&f->m);
		n = f->nlive;
		pthread_mutex_unlock(&f->m);
		if (!n || now_ns() > until)
			break;
		if (do_read(tid, f, EVSZ * MAX_READ_RECS, R_POLL, 50) < 0)
			return;
	}
	pthread_mutex_lock(&f->m);
	if (stop)
		goto out;
	if (f->nlive) {
		ADD(st_lost, f->nlive);
		failf(tid, f, f->live[0], "lost: %d one-shot timeouts gave no "
		      "record %.1f s after the last deadline (first shown)",
		      f->nlive, settle_ns / 1e9);
		goto out;
	}
	pthread_mutex_unlock(&f->m);
	/* Nothing more to read: every timeout of the file is dead. */
	sleep_ns(5 * info.tick_ns);
	n = do_read(tid, f, EVSZ * MAX_READ_RECS, R_NOWAIT, 0);
	pthread_mutex_lock(&f->m);
	if (n > 0) {
		failf(tid, f, NULL, "%d records after everything was cancelled "
		      "or read", n);
		goto out;
	}
	if (have_stats && n == 0) {
		struct twheel_stats s = { 0 };

		ret = xioctl(f->fd, TWHEEL_IOC_STATS, &s);
		if (ret || s.pending || s.queued || s.armed != f->arms ||
		    s.cancelled != f->cancels)
			failf(tid, f, NULL, "TWHEEL_IOC_STATS %s: pending %llu"
			      " queued %llu armed %llu (model %"
			      "llu) cancelled %llu (model %llu)",
			      errname(ret), s.pending, s.queued, s.armed,
			      f->arms, s.cancelled, f->cancels);
	}
out:
	pthread_mutex_unlock(&f->m);
}

/* ------------------------------------------------------------------ */

/*
 * Does CLOCK_BOOTTIME read as CLOCK_MONOTONIC (no suspend, no time
 * namespace offset)? Then a reading of it falls between two readings of
 * CLOCK_MONOTONIC around it, every time.
 */
static bool boottime_is_monotonic(void)
{
	u64 before, boot, after;
	int i;

	for (i = 0; i < 16; i++) {
		before = clock_ns(CLOCK_MONOTONIC);
		boot = clock_ns(CLOCK_BOOTTIME);
		after = clock_ns(CLOCK_MONOTONIC);
		if (boot < before || boot > after)
			return false;
	}
	return true;
}

static void setup_cpus(void)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (i = 0; i < CPU_SETSIZE && ncpus_ok < 1024; i++)
		if (CPU_ISSET(i, &set))
			cpus_ok[ncpus_ok++] = i;
}

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
}

FIXTURE_TEARDOWN(fuzz)
{
}

/* The harness's alarm; the fuzzer has its own watchdog for stalls. */
TEST_F_TIMEOUT(fuzz, model, 6 * 3600)
{
	struct worker w[MAX_THREADS];
	u64 start, last_ops = 0, last_change, settle;
	bool joined[MAX_THREADS] = { false };
	int fd, i, stalled = 0;
	bool debug_kernel = !access("/sys/kernel/debug/kmemleak", F_OK);

	fd = open(TW_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		SKIP(return, TW_DEV " does not exist (module not loaded?)");
	ASSERT_GE(fd, 0);
	ASSERT_EQ(xioctl(fd, TWHEEL_IOC_INFO, &info), 0);
	close(fd);
	have_stats = info.ioctls & TWHEEL_FEAT_STATS;
	have_get = info.ioctls & TWHEEL_FEAT_GET;
	have_drain = info.ioctls & TWHEEL_FEAT_DRAIN;
	have_report = info.cancel_flags & TWHEEL_CANCEL_REPORT;
	have_share = info.ioctls & TWHEEL_FEAT_SHARE;
	have_pick = have_share && (info.arm_flags & TWHEEL_ARM_SLOT);
	have_boottime = (info.arm_flags & TWHEEL_ARM_BOOTTIME) &&
			boottime_is_monotonic();
	if (!have_boottime)
		TH_LOG("no CLOCK_BOOTTIME arms: the module lacks them, or that clock is not CLOCK_MONOTONIC here");
	setup_cpus();
	settle = (debug_kernel ? 30 : 10) * SEC;

	TH_LOG("seed %llu, %llu operations, %d threads, %d files; "
	       "api %u tick %llu ns, cancel-report %d, stats %d; replay: "
	       "fuzz_test --seed %llu --ops %llu", opt_seed, opt_ops,
	       opt_threads, opt_files, info.api_version, info.tick_ns,
	       have_report, have_stats, opt_seed, opt_ops);

	for (i = 0; i < opt_files; i++) {
		struct tfile *f = &files[i];
		pthread_rwlockattr_t a;

		pthread_rwlockattr_init(&a);
		pthread_rwlockattr_setkind_np(&a,
			PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
		pthread_rwlock_init(&f->rw, &a);
		pthread_mutex_init(&f->m, NULL);
		f->idx = i;
		memset(f->inflight_start, 0xff, sizeof(f->inflight_start));
		ASSERT_TRUE(file_open(MAX_THREADS, f, false));
	}

	start = now_ns();
	last_change = start;
	for (i = 0; i < opt_threads; i++) {
		w[i].tid = i;
		w[i].r.s = opt_seed * 0x100000001b3ULL + i + 1;
		ASSERT_EQ(pthread_create(&w[i].th, NULL, worker_fn, &w[i]), 0);
	}
	/* Watchdog: no operation finished for a minute is a hang. */
	for (;;) {
		u64 done = LOAD(ops_done);
		bool all = true;

		for (i = 0; i < opt_threads; i++) {
			if (!joined[i] && !pthread_tryjoin_np(w[i].th, NULL))
				joined[i] = true;
			if (!joined[i])
				all = false;
		}
		if (all)
			break;
		if (done != last_ops) {
			last_ops = done;
			last_change = now_ns();
		} else if (now_ns() - last_change > (debug_kernel ? 180 : 60) * SEC) {
			stalled = 1;
			break;
		}
		sleep_ns(100 * MS);
	}
	if (stalled) {
		for (i = 0; i < opt_threads; i++)
			TH_LOG("thread %d stuck in: %s; last: %s", i, tlogs[i].doing,
			       tlogs[i].n ? tlogs[i].line[(tlogs[i].n - 1) % LOGN] : "");
		TH_LOG("FAIL (seed %llu): no operation finished for %d s",
		       opt_seed, debug_kernel ? 180 : 60);
		fflush(stdout);
		_exit(KSFT_FAIL);
	}
	TH_LOG("%llu operations in %.1f s", LOAD(ops_done) > opt_ops ?
	       opt_ops : LOAD(ops_done), (now_ns() - start) / 1e9);

	for (i = 0; i < opt_files && !stop; i++)
		finish_file(MAX_THREADS, &files[i], settle);
	for (i = 0; i < opt_files; i++)
		if (files[i].fd >= 0)
			close(files[i].fd);

	TH_LOG("records %llu (one-shot %llu, periodic %llu"
	       ", overruns %llu), reads %llu (EAGAIN %llu"
	       "), polls %llu, arms %llu (CLOCK_BOOTTIME %llu), re-arms %llu"
	       ", cancels %llu, batches %llu, invalid ops %llu"
	       ", gets %llu, read-vs-cancel races %llu, reopens %llu"
	       ", one-shots awaited at the end %llu, table stores %llu"
	       " (garbage %llu), records from rings %llu, arms into picked"
	       " entries %llu",
	       st_records, st_oneshot_recs, st_periodic_recs, st_overruns,
	       st_reads, st_eagain, st_polls, st_arms, st_boot_arms, st_rearms,
	       st_cancels, st_batches, st_invalid, st_gets, st_enoent_race,
	       st_reopen, st_oneshots_expected, st_stores, st_junk_stores,
	       st_ring_recs, st_picked_arms);
	if (failed) {
		fputs(fail_msg, stdout);
		fflush(stdout);
	}
	ASSERT_FALSE(failed);
	TH_LOG("seed %llu: %llu operations, 0 lost, 0 duplicate, "
	       "0 early, 0 unexpected results", opt_seed, opt_ops);
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--seed N] [--ops M] [--threads T] "
		"[--files F] [kselftest harness options]\n", argv0);
	exit(KSFT_FAIL);
}

int main(int argc, char **argv)
{
	char *rest[64];
	int nrest = 0, i;
	const char *env;

	opt_seed = now_ns() ^ ((u64)getpid() << 32);
	opt_seed %= 1000000000000ULL;
	env = getenv("TWHEEL_FUZZ_SEED");
	if (env && *env)
		opt_seed = strtoull(env, NULL, 0);
	env = getenv("TWHEEL_FUZZ_OPS");
	if (env && *env)
		opt_ops = strtoull(env, NULL, 0);
	rest[nrest++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--seed") || !strcmp(a, "--ops") ||
		    !strcmp(a, "--threads") || !strcmp(a, "--files")) {
			char *end;
			u64 v;

			if (i + 1 >= argc)
				usage(argv[0]);
			v = strtoull(argv[++i], &end, 0);
			if (*end)
				usage(argv[0]);
			if (!strcmp(a, "--seed"))
				opt_seed = v;
			else if (!strcmp(a, "--ops"))
				opt_ops = v;
			else if (!strcmp(a, "--threads"))
				opt_threads = v;
			else
				opt_files = v;
		} else if (nrest < 63) {
			rest[nrest++] = argv[i];
		}
	}
	if (opt_threads < 1 || opt_threads > MAX_THREADS || opt_files < 1 ||
	    opt_files > MAX_FILES || !opt_ops)
		usage(argv[0]);
	rest[nrest] = NULL;
	/* The seed goes out first, whatever happens next. */
	printf("# fuzz_test: seed %llu ops %llu threads %d files %d\n",
	       opt_seed, opt_ops, opt_threads, opt_files);
	fflush(stdout);
	return test_harness_run(nrest, rest);
}
