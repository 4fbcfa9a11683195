// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libtwheel.c - the library behind libtwheel.h
 *
 * struct twheel owns the file descriptor, a copy of the module's
 * struct twheel_info, an array of struct twheel_op (the submission queue,
 * at most info.max_batch long) with a parallel array of result slots, and a
 * buffer of struct twheel_event for twheel_fill()/twheel_next_event().
 *
 * twheel_flush() hands the whole queue to one TWHEEL_IOC_BATCH. When the
 * ioctl fails, nothing was applied (the module promises that, except when
 * another thread unmaps the array, which cannot happen to our private heap
 * memory): the queue is kept intact so the caller may retry or discard it.
 * When it succeeds, every slot gets its operation's result and the queue is
 * empty. twheel_fill() and twheel_read() flush first, and queueing a cancel
 * or a re-arm blanks (handle 0, never a real handle) the buffered records
 * of its handle that twheel_next_event() has not returned yet: a program
 * never sees a record of a timeout it cancelled or pushed back.
 *
 * Symbol versions (libtwheel.map): struct twheel_result grew from 48 bytes
 * (LIBTWHEEL_1.0) to its present size with reserved room (LIBTWHEEL_1.1).
 * The 1.0 entry points of the functions that take a result slot remember
 * the slot's size, and twheel_flush() writes no more than that.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include "libtwheel.h"

#define TWHEEL_EVBUF	64

/* What a LIBTWHEEL_1.0 caller allocated for a struct twheel_result. */
#define RESULT_SIZE_1_0	offsetof(struct twheel_result, remaining)

/* Where one queued operation's result goes. */
struct slot {
	struct twheel_result *res;	/* NULL: the caller does not want it */
	size_t size;			/* bytes of *res the library may write */
};

struct twheel {
	int fd;
	unsigned int depth;	/* capacity of ops[] */
	unsigned int nr;	/* queued operations */
	struct twheel_info info;
	struct twheel_op *ops;
	struct slot *slots;
	unsigned int ev_nr, ev_pos;
	struct twheel_event ev[TWHEEL_EVBUF];
	struct twheel_slot *table;	/* shared table, or NULL */
	uint32_t table_slots;
	size_t table_size;
	int pick;			/* TWHEEL_SHARE_PICK_SLOTS */
	struct twheel_ring *ring;	/* expiry ring, or NULL */
	struct twheel_event *ring_ev;
	uint32_t ring_mask;
	size_t ring_size;
	int nonblock;
};

/* What the library needs from the module. */
#define NEED_FEATURES	(TWHEEL_FEAT_INFO | TWHEEL_FEAT_BATCH)

/*
 * A module that filled less of struct twheel_info than its masks has the
 * flags and operations that came with the ioctls it announces: re-arm with
 * TWHEEL_ARM_ABS always; TWHEEL_CANCEL_REPORT and TWHEEL_OP_GET with
 * TWHEEL_IOC_GET, TWHEEL_DRAIN_CANCEL with TWHEEL_IOC_DRAIN. Decided here,
 * once: everything else reads the masks.
 */
static void infer_masks(struct twheel_info *info)
{
	if (info->size >= TWHEEL_INFO_SIZE_VER2)
		return;
	info->rearm_flags = TWHEEL_ARM_ABS;
	info->batch_ops = TWHEEL_OP_BIT(TWHEEL_OP_ARM) |
			  TWHEEL_OP_BIT(TWHEEL_OP_REARM) |
			  TWHEEL_OP_BIT(TWHEEL_OP_CANCEL);
	if (info->ioctls & TWHEEL_FEAT_GET) {
		info->cancel_flags = TWHEEL_CANCEL_REPORT;
		info->batch_ops |= TWHEEL_OP_BIT(TWHEEL_OP_GET);
	}
	if (info->ioctls & TWHEEL_FEAT_DRAIN)
		info->drain_flags = TWHEEL_DRAIN_CANCEL;
}

static int handshake(struct twheel *tw)
{
	memset(&tw->info, 0, sizeof(tw->info));
	if (ioctl(tw->fd, TWHEEL_IOC_INFO, &tw->info) < 0)
		return errno == ENOTTY ? -EOPNOTSUPP : -errno;
	if (tw->info.size < TWHEEL_INFO_SIZE_VER0)
		return -EPROTO;
	if ((tw->info.ioctls & NEED_FEATURES) != NEED_FEATURES)
		return -EOPNOTSUPP;
	/* read() records must be at least the layout this library knows. */
	if (tw->info.event_size != sizeof(struct twheel_event))
		return -EPROTO;
	if (tw->info.max_batch == 0)
		return -EPROTO;
	infer_masks(&tw->info);
	return 0;
}

int twheel_open(struct twheel **twp, const char *path, unsigned int depth,
		unsigned int flags)
{
	struct twheel *tw;
	int ret;

	if (!twp || (flags & ~TWHEEL_OPEN_FLAGS_ALL))
		return -EINVAL;
	*twp = NULL;
	tw = calloc(1, sizeof(*tw));
	if (!tw)
		return -ENOMEM;
	tw->fd = open(path ? path : TWHEEL_DEVICE,
		      O_RDWR | O_CLOEXEC |
		      ((flags & TWHEEL_OPEN_NONBLOCK) ? O_NONBLOCK : 0));
	if (tw->fd < 0) {
		ret = -errno;
		free(tw);
		return ret;
	}
	tw->nonblock = !!(flags & TWHEEL_OPEN_NONBLOCK);
	ret = handshake(tw);
	if (ret)
		goto fail;
	if (depth == 0)
		depth = TWHEEL_DEFAULT_DEPTH;
	if (depth > tw->info.max_batch)
		depth = tw->info.max_batch;
	tw->depth = depth;
	tw->ops = calloc(depth, sizeof(*tw->ops));
	tw->slots = calloc(depth, sizeof(*tw->slots));
	if (!tw->ops || !tw->slots) {
		ret = -ENOMEM;
		goto fail;
	}
	*twp = tw;
	return 0;
fail:
	close(tw->fd);
	free(tw->ops);
	free(tw->slots);
	free(tw);
	return ret;
}

void twheel_close(struct twheel *tw)
{
	if (!tw)
		return;
	if (tw->table)
		munmap(tw->table, tw->table_size);
	if (tw->ring)
		munmap(tw->ring, tw->ring_size);
	close(tw->fd);
	free(tw->ops);
	free(tw->slots);
	free(tw);
}

int twheel_fd(const struct twheel *tw)
{
	return tw->fd;
}

const struct twheel_info *twheel_get_info(const struct twheel *tw)
{
	return &tw->info;
}

int twheel_supports(const struct twheel *tw, uint32_t arm_flags)
{
	return (tw->info.arm_flags & arm_flags) == arm_flags;
}

/* The next queue entry (make_room() made sure there is one). */
static struct twheel_op *queue_slot(struct twheel *tw, struct twheel_result *res,
				    size_t size)
{
	struct twheel_op *op;

	op = &tw->ops[tw->nr];
	memset(op, 0, sizeof(*op));
	tw->slots[tw->nr] = (struct slot){ .res = res, .size = size };
	tw->nr++;
	return op;
}

/*
 * The program is done with @handle's current expiry (it cancels or re-arms
 * it): buffered records of it that were not iterated yet are dropped, as
 * the kernel drops a queued one.
 */
static void forget_buffered(struct twheel *tw, uint64_t handle)
{
	uint32_t i, tail;

	for (i = tw->ev_pos; i < tw->ev_nr; i++)
		if (tw->ev[i].handle == handle)
			tw->ev[i].handle = 0;
	if (!tw->ring)
		return;
	/* And those in the ring: they are the program's memory already. */
	tail = __atomic_load_n(&tw->ring->tail, __ATOMIC_ACQUIRE);
	for (i = tw->ring->head; i != tail; i++)
		if (tw->ring_ev[i & tw->ring_mask].handle == handle)
			tw->ring_ev[i & tw->ring_mask].handle = 0;
}

static int make_room(struct twheel *tw)
{
	int ret;

	if (tw->nr < tw->depth)
		return 0;
	ret = twheel_flush(tw);
	return ret < 0 ? ret : 0;
}

/*
 * -EINVAL for a flag this header does not know (outside @all), -EOPNOTSUPP
 * for one it knows but the running module does not take (outside @module).
 */
static int check_flags(uint32_t flags, uint32_t all, uint32_t module)
{
	if (flags & ~all)
		return -EINVAL;
	if ((flags & module) != flags)
		return -EOPNOTSUPP;
	return 0;
}

static int prep_arm(struct twheel *tw, uint64_t cookie, uint64_t expires,
		    uint64_t period, uint32_t flags, uint32_t cpu,
		    struct twheel_result *res, size_t size)
{
	struct twheel_op *op;
	int ret;

	ret = check_flags(flags, TWHEEL_ARM_FLAGS_ALL, tw->info.arm_flags);
	if (ret)
		return ret;
	ret = make_room(tw);
	if (ret)
		return ret;
	op = queue_slot(tw, res, size);
	op->op = TWHEEL_OP_ARM;
	op->flags = flags;
	op->cookie = cookie;
	op->expires = expires;
	op->period = period;
	op->cpu = cpu;
	return 0;
}

static int prep_rearm(struct twheel *tw, uint64_t handle, uint64_t expires,
		      uint32_t flags, struct twheel_result *res, size_t size)
{
	struct twheel_op *op;
	int ret;

	ret = check_flags(flags, TWHEEL_REARM_FLAGS_ALL,
			  tw->info.rearm_flags);
	if (ret)
		return ret;
	ret = make_room(tw);
	if (ret)
		return ret;
	op = queue_slot(tw, res, size);
	op->op = TWHEEL_OP_REARM;
	op->flags = flags;
	op->handle = handle;
	op->expires = expires;
	forget_buffered(tw, handle);
	return 0;
}

static int prep_cancel(struct twheel *tw, uint64_t handle, uint32_t flags,
		       struct twheel_result *res, size_t size)
{
	struct twheel_op *op;
	int ret;

	ret = check_flags(flags, TWHEEL_CANCEL_FLAGS_ALL, tw->info.cancel_flags);
	if (ret)
		return ret;
	ret = make_room(tw);
	if (ret)
		return ret;
	op = queue_slot(tw, res, size);
	op->op = TWHEEL_OP_CANCEL;
	op->flags = flags;
	op->handle = handle;
	forget_buffered(tw, handle);
	return 0;
}

static int prep_get(struct twheel *tw, uint64_t handle,
		    struct twheel_result *res, size_t size)
{
	struct twheel_op *op;
	int ret;

	if (!(tw->info.batch_ops & TWHEEL_OP_BIT(TWHEEL_OP_GET)))
		return -EOPNOTSUPP;
	ret = make_room(tw);
	if (ret)
		return ret;
	op = queue_slot(tw, res, size);
	op->op = TWHEEL_OP_GET;
	op->handle = handle;
	return 0;
}

/*
 * The entry points. In the shared library the plain names are the
 * LIBTWHEEL_1.1 default versions (libtwheel.map) and the *_1_0 functions
 * are what programs linked against 1.0 call; the static library has only
 * the plain names.
 */
int twheel_prep_arm(struct twheel *tw, uint64_t cookie, uint64_t expires,
		    uint64_t period, uint32_t flags, uint32_t cpu,
		    struct twheel_result *res)
{
	if (flags & TWHEEL_ARM_SLOT)
		return -EINVAL;
	return prep_arm(tw, cookie, expires, period, flags, cpu, res,
			sizeof(*res));
}

/* An arm into the table entry @slot: its number goes in the handle field. */
int twheel_prep_arm_slot(struct twheel *tw, uint32_t slot, uint64_t cookie,
			 uint64_t expires, uint64_t period, uint32_t flags,
			 uint32_t cpu, struct twheel_result *res)
{
	int ret;

	if (!tw->pick || (flags & TWHEEL_ARM_SLOT) || !slot ||
	    slot >= tw->table_slots)
		return -EINVAL;
	ret = prep_arm(tw, cookie, expires, period, flags | TWHEEL_ARM_SLOT,
		       cpu, res, sizeof(*res));
	if (!ret)
		tw->ops[tw->nr - 1].handle = slot;
	return ret;
}

int twheel_prep_rearm(struct twheel *tw, uint64_t handle, uint64_t expires,
		      uint32_t flags, struct twheel_result *res)
{
	return prep_rearm(tw, handle, expires, flags, res, sizeof(*res));
}

int twheel_prep_cancel(struct twheel *tw, uint64_t handle, uint32_t flags,
		       struct twheel_result *res)
{
	return prep_cancel(tw, handle, flags, res, sizeof(*res));
}

int twheel_prep_get(struct twheel *tw, uint64_t handle,
		    struct twheel_result *res)
{
	return prep_get(tw, handle, res, sizeof(*res));
}

#ifdef LIBTWHEEL_SHARED
#define COMPAT_1_0(impl, name) \
	__asm__(".symver " #impl ", " #name "@LIBTWHEEL_1.0")
#define DEFAULT_1_1(name) \
	__asm__(".symver " #name ", " #name "@@@LIBTWHEEL_1.1")

DEFAULT_1_1(twheel_prep_arm);
DEFAULT_1_1(twheel_prep_rearm);
DEFAULT_1_1(twheel_prep_cancel);
DEFAULT_1_1(twheel_prep_get);

int twheel_prep_arm_1_0(struct twheel *tw, uint64_t cookie, uint64_t expires,
			uint64_t period, uint32_t flags, uint32_t cpu,
			struct twheel_result *res);
int twheel_prep_rearm_1_0(struct twheel *tw, uint64_t handle, uint64_t expires,
			  uint32_t flags, struct twheel_result *res);
int twheel_prep_cancel_1_0(struct twheel *tw, uint64_t handle, uint32_t flags,
			   struct twheel_result *res);
int twheel_prep_get_1_0(struct twheel *tw, uint64_t handle,
			struct twheel_result *res);

COMPAT_1_0(twheel_prep_arm_1_0, twheel_prep_arm);
int twheel_prep_arm_1_0(struct twheel *tw, uint64_t cookie, uint64_t expires,
			uint64_t period, uint32_t flags, uint32_t cpu,
			struct twheel_result *res)
{
	return prep_arm(tw, cookie, expires, period, flags, cpu, res,
			RESULT_SIZE_1_0);
}

COMPAT_1_0(twheel_prep_rearm_1_0, twheel_prep_rearm);
int twheel_prep_rearm_1_0(struct twheel *tw, uint64_t handle, uint64_t expires,
			  uint32_t flags, struct twheel_result *res)
{
	return prep_rearm(tw, handle, expires, flags, res, RESULT_SIZE_1_0);
}

COMPAT_1_0(twheel_prep_cancel_1_0, twheel_prep_cancel);
int twheel_prep_cancel_1_0(struct twheel *tw, uint64_t handle, uint32_t flags,
			   struct twheel_result *res)
{
	return prep_cancel(tw, handle, flags, res, RESULT_SIZE_1_0);
}

COMPAT_1_0(twheel_prep_get_1_0, twheel_prep_get);
int twheel_prep_get_1_0(struct twheel *tw, uint64_t handle,
			struct twheel_result *res)
{
	return prep_get(tw, handle, res, RESULT_SIZE_1_0);
}
#endif

/* An operation's outcome, into as much of the caller's slot as it has. */
static void write_result(const struct slot *s, const struct twheel_op *op)
{
	struct twheel_result r = {
		.handle = op->handle,
		.result = op->result,
		.op = op->op,
	};
	uint64_t now;

	if (op->op == TWHEEL_OP_GET && op->result > 0) {
		r.cookie = op->cookie;
		r.deadline = op->expires;
		r.period = op->period;
		r.flags = op->flags;
		r.cpu = op->cpu;
		now = twheel_clock_ns(op->flags);
		r.remaining = op->expires > now ? op->expires - now : 0;
	}
	memcpy(s->res, &r, s->size);
}

int twheel_flush(struct twheel *tw)
{
	struct twheel_batch b = {
		.ops = (uintptr_t)tw->ops,
		.count = tw->nr,
		.op_size = sizeof(struct twheel_op),
	};
	unsigned int i, n = tw->nr;

	if (n == 0)
		return 0;
	if (ioctl(tw->fd, TWHEEL_IOC_BATCH, &b) < 0)
		return -errno;	/* nothing applied; the queue stays */
	for (i = 0; i < n; i++) {
		if (tw->slots[i].res)
			write_result(&tw->slots[i], &tw->ops[i]);
		/* A record the kernel put in the ring before it was applied. */
		if (tw->ring && tw->ops[i].result >= 0 &&
		    (tw->ops[i].op == TWHEEL_OP_CANCEL ||
		     tw->ops[i].op == TWHEEL_OP_REARM))
			forget_buffered(tw, tw->ops[i].handle);
	}
	tw->nr = 0;
	return (int)n;
}

unsigned int twheel_queued(const struct twheel *tw)
{
	return tw->nr;
}

unsigned int twheel_discard(struct twheel *tw)
{
	unsigned int n = tw->nr;

	tw->nr = 0;
	return n;
}

/*
 * A one-shot record whose table entry holds a later deadline than the one
 * that fired: the program stored it after the kernel had taken the record
 * (another thread during the read(); or any time before the program took
 * it from the ring, where it went when the timeout fired), or stored one
 * the wheel does not take. The kernel writes a one-shot's entry only when
 * it arms it; it clears the handle when the timeout dies (for a record in
 * the ring, just after it put the record there), so an entry that holds
 * another handle belongs to a newer timeout.
 */
static void mark_missed(const struct twheel *tw, struct twheel_event *ev,
			unsigned int nr)
{
	const struct twheel_slot *s;
	unsigned int i;
	uint64_t h;

	if (!tw->table)
		return;
	for (i = 0; i < nr; i++) {
		if (ev[i].flags & TWHEEL_EV_PERIODIC ||
		    (uint32_t)ev[i].handle >= tw->table_slots)
			continue;
		s = &tw->table[(uint32_t)ev[i].handle];
		h = __atomic_load_n(&s->handle, __ATOMIC_ACQUIRE);
		if ((!h || h == ev[i].handle) &&
		    __atomic_load_n(&s->deadline, __ATOMIC_RELAXED) >
		    ev[i].deadline)
			ev[i].flags |= TWHEEL_EV_REFRESH_MISSED;
	}
}

/* Up to @nr records from the ring, skipping those forgotten; consumed. */
static unsigned int ring_take(struct twheel *tw, struct twheel_event *ev,
			      unsigned int nr)
{
	uint32_t head = tw->ring->head, tail;
	unsigned int n = 0;

	tail = __atomic_load_n(&tw->ring->tail, __ATOMIC_ACQUIRE);
	while (head != tail && n < nr) {
		ev[n] = tw->ring_ev[head++ & tw->ring_mask];
		if (ev[n].handle)
			n++;
	}
	/* Pairs with the kernel's read of the head: the entries are free. */
	__atomic_store_n(&tw->ring->head, head, __ATOMIC_RELEASE);
	return n;
}

/*
 * With a ring: records from it; those that found it full from read(),
 * without blocking in it (RWF_NOWAIT: it waits only for those); unless the
 * file is non-blocking, poll() until there are some.
 */
static ssize_t ring_read(struct twheel *tw, struct twheel_event *ev,
			 unsigned int nr)
{
	struct iovec iov = { .iov_base = ev, .iov_len = nr * sizeof(*ev) };
	struct pollfd p = { .fd = tw->fd, .events = POLLIN };
	unsigned int n;
	ssize_t r;

	for (;;) {
		n = ring_take(tw, ev, nr);
		if (n)
			return (ssize_t)(n * sizeof(*ev));
		if (__atomic_load_n(&tw->ring->waiting, __ATOMIC_RELAXED)) {
			r = preadv2(tw->fd, &iov, 1, -1, RWF_NOWAIT);
			if (r > 0 || (r < 0 && errno != EAGAIN))
				return r;
		}
		if (tw->nonblock) {
			errno = EAGAIN;
			return -1;
		}
		if (poll(&p, 1, -1) < 0)
			return -1;
	}
}

int twheel_read(struct twheel *tw, struct twheel_event *ev, unsigned int nr)
{
	ssize_t n;
	int ret;

	if (nr == 0)
		return -EINVAL;
	/* Queued cancels first: no record of a cancelled timeout is read. */
	ret = twheel_flush(tw);
	if (ret < 0)
		return ret;
	if (tw->ring)
		n = ring_read(tw, ev, nr);
	else
		n = read(tw->fd, ev, (size_t)nr * sizeof(*ev));
	if (n < 0)
		return -errno;
	n /= (ssize_t)sizeof(*ev);
	mark_missed(tw, ev, (unsigned int)n);
	return (int)n;
}

/* Buffered records not iterated yet, less those forget_buffered() dropped. */
static unsigned int buffered(const struct twheel *tw)
{
	unsigned int i, n = 0;

	for (i = tw->ev_pos; i < tw->ev_nr; i++)
		n += tw->ev[i].handle != 0;
	return n;
}

int twheel_fill(struct twheel *tw)
{
	unsigned int left;
	int n;

	n = twheel_flush(tw);
	if (n < 0)
		return n;
	/* Records not yet iterated are kept: read only when all are used. */
	left = buffered(tw);
	if (left)
		return (int)left;
	tw->ev_nr = 0;
	tw->ev_pos = 0;
	n = twheel_read(tw, tw->ev, TWHEEL_EVBUF);
	if (n < 0)
		return n;
	tw->ev_nr = (unsigned int)n;
	return n;
}

const struct twheel_event *twheel_next_event(struct twheel *tw)
{
	const struct twheel_event *ev;

	do {
		if (tw->ev_pos >= tw->ev_nr)
			return NULL;
		ev = &tw->ev[tw->ev_pos++];
	} while (!ev->handle);	/* dropped by forget_buffered() */
	return ev;
}

static int map_ring(struct twheel *tw, const struct twheel_share *req)
{
	void *ring;

	ring = mmap(NULL, req->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    tw->fd, (off_t)req->ring_offset);
	if (ring == MAP_FAILED)
		return -errno;
	tw->ring = ring;
	tw->ring_ev = (struct twheel_event *)((char *)ring + TWHEEL_RING_EVENTS);
	tw->ring_mask = req->ring_entries - 1;
	tw->ring_size = req->ring_size;
	return 0;
}

int twheel_share(struct twheel *tw, unsigned int slots,
		 unsigned int ring_entries)
{
	return twheel_share_flags(tw, slots, ring_entries, 0);
}

int twheel_share_flags(struct twheel *tw, unsigned int slots,
		       unsigned int ring_entries, uint32_t flags)
{
	struct twheel_share req = {
		.slots = slots,
		.flags = (ring_entries ? TWHEEL_SHARE_RING : 0) | flags,
		.ring_entries = ring_entries,
	};
	void *table;
	int ret;

	if (flags & ~TWHEEL_SHARE_PICK_SLOTS)
		return -EINVAL;
	if (!(tw->info.ioctls & TWHEEL_FEAT_SHARE) ||
	    ((flags & TWHEEL_SHARE_PICK_SLOTS) &&
	     !(tw->info.arm_flags & TWHEEL_ARM_SLOT)))
		return -EOPNOTSUPP;
	if (tw->table)
		return -EBUSY;
	if (!slots)
		req.slots = tw->info.max_pending + 1;
	if (ioctl(tw->fd, TWHEEL_IOC_SHARE, &req) < 0)
		return -errno;
	table = mmap(NULL, req.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     tw->fd, (off_t)req.offset);
	if (table == MAP_FAILED)
		return -errno;
	tw->table = table;
	tw->table_slots = req.slots;
	tw->table_size = req.size;
	tw->pick = !!(flags & TWHEEL_SHARE_PICK_SLOTS);
	if (ring_entries) {
		ret = map_ring(tw, &req);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Later than the deadline in the table: one store, which the kernel reads
 * when the deadline it filed comes due. Earlier, or without a table: a
 * queued TWHEEL_OP_REARM, as twheel_prep_rearm() with TWHEEL_ARM_ABS. An
 * entry that does not hold @handle means the handle is not live (the kernel
 * wrote the entry during one of this program's calls).
 */
int twheel_refresh(struct twheel *tw, uint64_t handle, uint64_t deadline,
		   struct twheel_result *res)
{
	uint32_t slot = (uint32_t)handle;
	struct twheel_slot *s;
	int ret;

	/* No handle has an upper half of 0: an entry's 0 when it has none. */
	if (!(handle >> 32))
		return -ENOENT;
	if (tw->table && slot < tw->table_slots) {
		s = &tw->table[slot];
		if (__atomic_load_n(&s->handle, __ATOMIC_ACQUIRE) != handle)
			return -ENOENT;
		if (deadline >= __atomic_load_n(&s->deadline,
						__ATOMIC_RELAXED)) {
			__atomic_store_n(&s->deadline, deadline,
					 __ATOMIC_RELEASE);
			return 0;
		}
	}
	ret = prep_rearm(tw, handle, deadline, TWHEEL_ARM_ABS, res,
			 sizeof(*res));
	return ret ? ret : 1;
}

const struct twheel_slot *twheel_table(const struct twheel *tw,
				       unsigned int *slots)
{
	if (slots)
		*slots = tw->table ? tw->table_slots : 0;
	return tw->table;
}

int twheel_get_stats(struct twheel *tw, struct twheel_stats *st)
{
	if (!(tw->info.ioctls & TWHEEL_FEAT_STATS))
		return -EOPNOTSUPP;
	memset(st, 0, sizeof(*st));
	return ioctl(tw->fd, TWHEEL_IOC_STATS, st) < 0 ? -errno : 0;
}

int twheel_drain(struct twheel *tw, struct twheel_get *entries, unsigned int nr,
		 uint64_t *cursor, uint32_t flags)
{
	struct twheel_drain d = {
		.entries = (uintptr_t)entries,
		.count = nr,
		.entry_size = sizeof(*entries),
		.flags = flags,
	};

	int ret;

	if (!(tw->info.ioctls & TWHEEL_FEAT_DRAIN))
		return -EOPNOTSUPP;
	if (!cursor)
		return -EINVAL;
	ret = check_flags(flags, TWHEEL_DRAIN_FLAGS_ALL, tw->info.drain_flags);
	if (ret)
		return ret;
	if (nr > tw->info.max_batch)
		d.count = tw->info.max_batch;
	d.cursor = *cursor;
	if (ioctl(tw->fd, TWHEEL_IOC_DRAIN, &d) < 0)
		return -errno;
	*cursor = d.cursor;
	return (int)d.filled;
}

uint64_t twheel_clock_ns(uint32_t arm_flags)
{
	struct timespec ts;

	clock_gettime(arm_flags & TWHEEL_ARM_BOOTTIME ? CLOCK_BOOTTIME :
		      CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t twheel_now_ns(void)
{
	return twheel_clock_ns(0);
}

const char *twheel_version(void)
{
	return TWHEEL_VERSION;
}
