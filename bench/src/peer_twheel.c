// SPDX-License-Identifier: GPL-2.0
/*
 * peer_twheel.c - /dev/twheel, one ioctl per operation or batched
 *
 * One open file holds all the slots of a peer. "twheel" issues one
 * TWHEEL_IOC_ARM / REARM / CANCEL per operation; "twheel-bN" queues
 * struct twheel_op records and submits N of them per TWHEEL_IOC_BATCH.
 * The slot number is the cookie; the handle the kernel returns is kept per
 * slot. Expiries are read() as struct twheel_event records, 256 per call,
 * after poll() when the caller wants to wait.
 *
 * "twheel-shm" is "twheel" with the file's shared timeout table
 * (TWHEEL_IOC_SHARE) whose entries the program picks
 * (TWHEEL_SHARE_PICK_SLOTS): slot i's timeout is in entry i + 1, the table
 * is the program's array of connections, as a struct event is part of a
 * connection with libevent. A re-arm to a later deadline is a store into
 * the entry, as libtwheel's twheel_refresh() does, the deadline taken from
 * CLOCK_MONOTONIC_COARSE as libevent takes its time; an earlier one is a
 * TWHEEL_IOC_REARM.
 *
 * "twheel-ring" is "twheel-b256" with the file's expiry ring
 * (TWHEEL_SHARE_RING): expiries are taken from memory, with a read() only
 * for records that found the ring full and a poll() only to wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/twheel.h>

#include "bench.h"

#define TW_EVENTS	256
/* Records of twheel-ring's ring. */
#define TW_RING		4096

struct tw {
	int fd;
	uint64_t *handle;
	unsigned char *armed;
	struct twheel_op *ops;
	struct twheel_slot *table;	/* twheel-shm, twheel-ring */
	size_t table_size;
	struct twheel_ring *ring;	/* twheel-ring */
	size_t ring_size;
	bool single;			/* one ioctl per operation */
	bool pick;			/* slot i in entry i + 1 (twheel-shm) */
	unsigned int queued;
	uint64_t errors;
	int last_err;
	struct peer *p;
};

const char *twheel_dev = "/dev/twheel";

/*
 * The shared table, one entry per slot (entry 0 is never used), and with
 * @ring entries an expiry ring; with @pick the program picks the entries.
 */
static int tw_share(struct tw *t, uint32_t capacity, uint32_t ring, bool pick)
{
	struct twheel_share sh = { .slots = capacity + 1 };
	void *table, *r;

	if (pick) {
		sh.flags = TWHEEL_SHARE_PICK_SLOTS;
		t->pick = true;
	}
	if (ring) {
		sh.flags |= TWHEEL_SHARE_RING;
		sh.ring_entries = ring;
	}
	if (ioctl(t->fd, TWHEEL_IOC_SHARE, &sh))
		return -errno;
	table = mmap(NULL, sh.size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd,
		     (off_t)sh.offset);
	if (table == MAP_FAILED)
		return -errno;
	t->table = table;
	t->table_size = sh.size;
	t->p->shared_bytes = sh.size;
	if (!ring)
		return 0;
	r = mmap(NULL, sh.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd,
		 (off_t)sh.ring_offset);
	if (r == MAP_FAILED)
		return -errno;
	t->ring = r;
	t->ring_size = sh.ring_size;
	t->p->shared_bytes += sh.ring_size;
	return 0;
}

static int tw_open(struct peer *p, uint32_t capacity)
{
	struct tw *t = xcalloc(1, sizeof(*t));
	struct twheel_info info;

	t->fd = open(twheel_dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		int err = -errno;

		free(t);
		return err;
	}
	memset(&info, 0, sizeof(info));
	if (ioctl(t->fd, TWHEEL_IOC_INFO, &info)) {
		int err = -errno;

		close(t->fd);
		free(t);
		return err;
	}
	if (info.max_batch && p->batch > info.max_batch)
		p->batch = info.max_batch;
	if (info.max_pending && capacity > info.max_pending)
		note("%s: %u slots > max_pending %u", p->label, capacity,
		     info.max_pending);
	t->handle = xcalloc(capacity, sizeof(*t->handle));
	t->armed = xcalloc(capacity, 1);
	t->ops = xcalloc(p->batch ? p->batch : 1, sizeof(*t->ops));
	t->p = p;
	p->priv = t;
	/* twheel-bN and twheel-ring batch, even N = 1 (twheel-b1). */
	t->single = p->batch <= 1 && strncmp(p->label, "twheel-b", 8);
	if (p->ops == &twheel_shm_ops)
		return tw_share(t, capacity, 0, true);
	if (!strcmp(p->label, "twheel-ring"))
		return tw_share(t, capacity, TW_RING, false);
	return 0;
}

static int tw_err(struct tw *t, int err)
{
	t->p->errors++;
	t->errors++;
	t->last_err = err;
	return err;
}

static int tw_submit(struct peer *p)
{
	struct tw *t = p->priv;
	struct twheel_batch b;
	unsigned int i;

	if (!t->queued)
		return 0;
	memset(&b, 0, sizeof(b));
	b.ops = (uint64_t)(uintptr_t)t->ops;
	b.count = t->queued;
	b.op_size = sizeof(struct twheel_op);
	p->syscalls++;
	if (ioctl(t->fd, TWHEEL_IOC_BATCH, &b)) {
		t->queued = 0;
		return tw_err(t, -errno);
	}
	for (i = 0; i < t->queued; i++) {
		struct twheel_op *op = &t->ops[i];

		if (op->result) {
			tw_err(t, op->result);
			continue;
		}
		if (op->op == TWHEEL_OP_ARM)
			t->handle[op->cookie] = op->handle;
	}
	t->queued = 0;
	return 0;
}

/* One ioctl per operation, not a batch (twheel-b1 is a batch of one). */
static bool tw_single(const struct peer *p)
{
	return ((const struct tw *)p->priv)->single;
}

static struct twheel_op *tw_op(struct peer *p)
{
	struct tw *t = p->priv;
	struct twheel_op *op = &t->ops[t->queued];

	memset(op, 0, sizeof(*op));
	return op;
}

static int tw_queued(struct peer *p)
{
	struct tw *t = p->priv;

	if (++t->queued >= p->batch)
		return tw_submit(p);
	return 0;
}

static int tw_arm(struct peer *p, uint32_t slot, uint64_t ns, bool abs)
{
	struct tw *t = p->priv;
	struct twheel_arm a;
	struct twheel_op *op;

	t->armed[slot] = 1;
	if (tw_single(p)) {
		memset(&a, 0, sizeof(a));
		a.cookie = slot;
		a.expires = ns;
		a.flags = abs ? TWHEEL_ARM_ABS : 0;
		if (t->pick) {
			a.flags |= TWHEEL_ARM_SLOT;
			a.handle = slot + 1;
		}
		p->syscalls++;
		if (ioctl(t->fd, TWHEEL_IOC_ARM, &a))
			return tw_err(t, -errno);
		t->handle[slot] = a.handle;
		return 0;
	}
	op = tw_op(p);
	op->op = TWHEEL_OP_ARM;
	op->flags = abs ? TWHEEL_ARM_ABS : 0;
	if (t->pick) {
		op->flags |= TWHEEL_ARM_SLOT;
		op->handle = slot + 1;
	}
	op->cookie = slot;
	op->expires = ns;
	return tw_queued(p);
}

/* Re-arm @slot for @expires: a delay, or with TWHEEL_ARM_ABS a time. */
static int tw_rearm_flags(struct peer *p, uint32_t slot, uint64_t expires,
			  uint32_t flags)
{
	struct tw *t = p->priv;
	struct twheel_rearm r;
	struct twheel_op *op;

	if (tw_single(p)) {
		memset(&r, 0, sizeof(r));
		r.handle = t->handle[slot];
		r.expires = expires;
		r.flags = flags;
		p->syscalls++;
		if (ioctl(t->fd, TWHEEL_IOC_REARM, &r))
			return tw_err(t, -errno);
		return 0;
	}
	op = tw_op(p);
	op->op = TWHEEL_OP_REARM;
	op->flags = flags;
	op->handle = t->handle[slot];
	op->expires = expires;
	return tw_queued(p);
}

static int tw_rearm(struct peer *p, uint32_t slot, uint64_t ns)
{
	return tw_rearm_flags(p, slot, ns, 0);
}

static uint64_t coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int tw_shm_rearm(struct peer *p, uint32_t slot, uint64_t ns)
{
	struct tw *t = p->priv;
	/* The connection's own entry: no handle looked up elsewhere. */
	struct twheel_slot *e = &t->table[slot + 1];
	uint64_t d = coarse_ns() + ns;

	if (__atomic_load_n(&e->handle, __ATOMIC_ACQUIRE) &&
	    d >= __atomic_load_n(&e->deadline, __ATOMIC_RELAXED)) {
		__atomic_store_n(&e->deadline, d, __ATOMIC_RELEASE);
		return 0;
	}
	/*
	 * As twheel_refresh(): the same deadline, absolute. A delay would
	 * file now + @ns by the precise clock, up to a tick past what the
	 * coarse one gives, and the next refreshes within that tick would
	 * find the entry later than theirs and take this path again.
	 */
	return tw_rearm_flags(p, slot, d, TWHEEL_ARM_ABS);
}

static int tw_cancel(struct peer *p, uint32_t slot)
{
	struct tw *t = p->priv;
	struct twheel_cancel c;
	struct twheel_op *op;

	t->armed[slot] = 0;
	if (tw_single(p)) {
		memset(&c, 0, sizeof(c));
		c.handle = t->handle[slot];
		p->syscalls++;
		if (ioctl(t->fd, TWHEEL_IOC_CANCEL, &c))
			return tw_err(t, -errno);
		return 0;
	}
	op = tw_op(p);
	op->op = TWHEEL_OP_CANCEL;
	op->handle = t->handle[slot];
	return tw_queued(p);
}

static int tw_flush(struct peer *p)
{
	return tw_submit(p);
}

/* One record of ours: delivered, or dropped as stale; 1 if delivered. */
static int tw_deliver(struct peer *p, const struct twheel_event *ev,
		      uint64_t now, expire_fn fn, void *arg)
{
	struct tw *t = p->priv;
	uint64_t slot = ev->cookie;

	if (slot >= p->capacity || !t->armed[slot] ||
	    t->handle[slot] != ev->handle) {
		p->stale++;
		return 0;
	}
	t->armed[slot] = 0;
	fn(arg, (uint32_t)slot, now, ev->expired);
	return 1;
}

/* read() until a short read: the records that wait in the file. */
static int tw_read_all(struct peer *p, expire_fn fn, void *arg)
{
	struct tw *t = p->priv;
	struct twheel_event ev[TW_EVENTS];
	ssize_t n;
	int i, got = 0;
	uint64_t now;

	for (;;) {
		p->syscalls++;
		n = read(t->fd, ev, sizeof(ev));
		if (n <= 0)
			break;
		now = now_ns();
		n /= (ssize_t)sizeof(ev[0]);
		for (i = 0; i < n; i++)
			got += tw_deliver(p, &ev[i], now, fn, arg);
		if (n < TW_EVENTS)
			break;
	}
	return got;
}

/* Everything in the ring, consumed. */
static int tw_ring_take(struct peer *p, expire_fn fn, void *arg)
{
	struct tw *t = p->priv;
	struct twheel_ring *r = t->ring;
	const struct twheel_event *evs =
		(const void *)((const char *)r + TWHEEL_RING_EVENTS);
	uint32_t head = r->head, tail;
	uint64_t now = now_ns();
	int got = 0;

	tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	for (; head != tail; head++)
		got += tw_deliver(p, &evs[head & (TW_RING - 1)], now, fn, arg);
	__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	return got;
}

/*
 * twheel-ring: the ring first; read() only when records wait for it;
 * poll() only to wait.
 */
static int tw_ring_drain(struct peer *p, int timeout_ms, expire_fn fn,
			 void *arg)
{
	struct tw *t = p->priv;
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
	int got;

	tw_submit(p);
	got = tw_ring_take(p, fn, arg);
	if (!got && timeout_ms > 0 &&
	    !__atomic_load_n(&t->ring->waiting, __ATOMIC_RELAXED)) {
		p->syscalls++;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return 0;
		got = tw_ring_take(p, fn, arg);
	}
	if (__atomic_load_n(&t->ring->waiting, __ATOMIC_RELAXED))
		got += tw_read_all(p, fn, arg);
	return got;
}

static int tw_drain(struct peer *p, int timeout_ms, expire_fn fn, void *arg)
{
	struct tw *t = p->priv;
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN };

	if (t->ring)
		return tw_ring_drain(p, timeout_ms, fn, arg);
	tw_submit(p);
	if (timeout_ms > 0) {
		p->syscalls++;
		if (poll(&pfd, 1, timeout_ms) <= 0)
			return 0;
	}
	return tw_read_all(p, fn, arg);
}

static void tw_close(struct peer *p)
{
	struct tw *t = p->priv;

	if (t->errors)
		note("%s: %llu operations failed, last %s", p->label,
		     (unsigned long long)t->errors, strerror(-t->last_err));
	if (t->table)
		munmap(t->table, t->table_size);
	if (t->ring)
		munmap(t->ring, t->ring_size);
	close(t->fd);
	free(t->handle);
	free(t->armed);
	free(t->ops);
	free(t);
	p->priv = NULL;
}

const struct peer_ops twheel_ops = {
	.name = "twheel",
	.open = tw_open,
	.arm = tw_arm,
	.rearm = tw_rearm,
	.cancel = tw_cancel,
	.flush = tw_flush,
	.drain = tw_drain,
	.close = tw_close,
};

const struct peer_ops twheel_shm_ops = {
	.name = "twheel-shm",
	.open = tw_open,
	.arm = tw_arm,
	.rearm = tw_shm_rearm,
	.cancel = tw_cancel,
	.flush = tw_flush,
	.drain = tw_drain,
	.close = tw_close,
};
