// SPDX-License-Identifier: GPL-2.0
/*
 * dev_ioctl.c - /dev/twheel: ioctl -> request
 *
 * Commands are told apart by type and number; the direction bits must match
 * and the size bits give the size of the caller's structure, which may be
 * older (shorter, down to its *_SIZE_VER0) or newer (longer, with the bytes
 * this module does not know all zero) than ours. Each argument is copied
 * from userspace once and only the copy is checked and used.
 *
 * Every operation, whether it comes alone (TWHEEL_IOC_ARM, _REARM, _CANCEL)
 * or in a batch, is put in the shape of a struct twheel_op and checked by
 * one validator per operation, twdev_check_op(), into a struct twdev_req:
 * deadline resolved against the clock, CPU chosen and allowed (what the
 * file's clocks read and which CPUs the caller may use, dev_file.c says).
 * dev_file.c applies the request. So a check happens once, and a bad operation changes
 * nothing.
 *
 * A batch copies its whole array in (to the stack when it is short), proves
 * it can write it back by writing a byte of it back in each page it spans
 * (so a fault costs nothing), applies the operations in order under one
 * hold of tf->lock and writes the results back: the whole array, or when
 * it is aligned only what the operations changed. The clock is read once per
 * call, once tf->lock is held (by the first operation that needs it: a
 * cancel does not): every delay counts from that reading, which is never
 * later than the operation it serves.
 *
 * Locking: every command that touches timeouts holds tf->lock (see
 * dev_file.c), taken interruptibly: a signal before anything is done
 * restarts the call.
 */
#include <linux/build_bug.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "dev.h"

/* Operations one TWHEEL_IOC_BATCH may carry (twheel_info.max_batch). */
#define TWDEV_MAX_BATCH		4096U
/* Largest twheel_batch.op_size accepted: room for growth, bounded memory. */
#define TWDEV_MAX_OP_SIZE	512U
/*
 * A batch whose array fits in this many bytes (four struct twheel_op) is
 * copied to the stack: no allocation and no memory cgroup charge per call.
 */
#define TWDEV_BATCH_STACK	192U
/* Operations of a batch applied between two cond_resched(). */
#define TWDEV_RESCHED_EVERY	32U

static_assert(sizeof(struct twheel_arm) == TWHEEL_ARM_SIZE_VER0);
static_assert(sizeof(struct twheel_rearm) == TWHEEL_REARM_SIZE_VER0);
static_assert(sizeof(struct twheel_cancel) == TWHEEL_CANCEL_SIZE_VER0);
static_assert(sizeof(struct twheel_batch) == TWHEEL_BATCH_SIZE_VER0);
static_assert(sizeof(struct twheel_info) == TWHEEL_INFO_SIZE_VER2);
static_assert(sizeof(struct twheel_op) == 48);
static_assert(sizeof(struct twheel_event) == 48);
static_assert(sizeof(struct twheel_get) == TWHEEL_GET_SIZE_VER0);
static_assert(sizeof(struct twheel_drain) == TWHEEL_DRAIN_SIZE_VER0);
static_assert(sizeof(struct twheel_stats) == TWHEEL_STATS_SIZE_VER0);
static_assert(sizeof(struct twheel_share) == TWHEEL_SHARE_SIZE_VER0);
static_assert(sizeof(struct twheel_slot) == 16);

/*
 * copy_struct_from_user() of a caller's structure of @usize bytes into ours
 * of @ksize. When the sizes agree, the usual case, the copy has a constant
 * size, which spares it the hardened-usercopy object check at run time.
 */
static __always_inline int twdev_copy_arg(void *dst, size_t ksize,
					  const void __user *src, size_t usize)
{
	if (usize == ksize)
		return copy_from_user(dst, src, ksize) ? -EFAULT : 0;
	return copy_struct_from_user(dst, ksize, src, usize);
}

/*
 * Copy a structure of @ksize bytes out to a caller's structure of @usize
 * bytes: what both know, then zeroes in the caller's newer fields.
 */
static int twdev_copy_struct_to_user(void __user *dst, size_t usize,
				     const void *src, size_t ksize)
{
	size_t size = min(ksize, usize);

	if (copy_to_user(dst, src, size))
		return -EFAULT;
	if (usize > ksize && clear_user(dst + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

static int twdev_ioc_info(struct twdev_file *tf, void __user *uarg,
			  size_t usize)
{
	const struct twheel_info info = {
		.api_version = TWHEEL_API_VERSION,
		.size = sizeof(info),
		.ioctls = TWHEEL_FEAT_INFO | TWHEEL_FEAT_ARM |
			  TWHEEL_FEAT_REARM | TWHEEL_FEAT_CANCEL |
			  TWHEEL_FEAT_BATCH | TWHEEL_FEAT_GET |
			  TWHEEL_FEAT_DRAIN | TWHEEL_FEAT_STATS |
			  TWHEEL_FEAT_SHARE,
		.arm_flags = TWHEEL_ARM_FLAGS_ALL,
		.event_size = sizeof(struct twheel_event),
		.tick_ns = twheel_tick_ns(),
		.max_delay_ns = twheel_max_delay_ns(),
		.max_pending = tf->max_pending,
		.max_batch = TWDEV_MAX_BATCH,
		.max_user_timeouts = twdev_max_user_timeouts(),
		.rearm_flags = TWHEEL_REARM_FLAGS_ALL,
		.cancel_flags = TWHEEL_CANCEL_FLAGS_ALL,
		.drain_flags = TWHEEL_DRAIN_FLAGS_ALL,
		.batch_flags = TWHEEL_BATCH_FLAGS_ALL,
		.batch_ops = TWHEEL_OPS_ALL,
	};

	return twdev_copy_struct_to_user(uarg, usize, &info, sizeof(info));
}

/* The CPU of an arm: online, and one the caller may use. */
static int twdev_check_cpu(const struct twheel_op *op, int *cpu)
{
	*cpu = TWHEEL_CPU_LOCAL;
	if (!(op->flags & TWHEEL_ARM_CPU))
		return op->cpu ? -EINVAL : 0;
	if (op->cpu >= nr_cpu_ids || !cpu_online(op->cpu))
		return -EINVAL;
	if (!twdev_may_use_cpu(op->cpu))
		return -EPERM;
	*cpu = op->cpu;
	return 0;
}

/*
 * A period must be at least a tick and, like a delay, must not take the
 * clock past what the wheel takes.
 */
static int twdev_check_period(const struct twheel_op *op, u64 now)
{
	u64 next;

	if (!op->period)
		return op->flags & TWHEEL_ARM_FIXED_DELAY ? -EINVAL : 0;
	if (op->period < twheel_tick_ns())
		return -EINVAL;
	if (check_add_overflow(now, op->period, &next))
		return -ERANGE;
	return tw_check_deadline(next, now);
}

static int twdev_check_arm(const struct twdev_file *tf,
			   const struct twheel_op *op, struct twdev_req *req)
{
	int ret;

	if (op->flags & ~TWHEEL_ARM_FLAGS_ALL)
		return -EINVAL;
	ret = twdev_check_cpu(op, &req->cpu);
	if (ret)
		return ret;
	req->clock = op->flags & TWHEEL_ARM_BOOTTIME ? TW_CLOCK_BOOT :
						       TW_CLOCK_MONO;
	req->now = tw_clock_from_mono(req->mono_now, req->clock);
	ret = twdev_check_period(op, req->now);
	if (ret)
		return ret;
	ret = twdev_check_slot(tf, op->flags, op->handle, &req->slot);
	if (ret)
		return ret;
	req->flags = op->flags & TWHEEL_ARM_FIXED_DELAY;
	req->cookie = op->cookie;
	req->period = op->period;
	return twdev_resolve(tf, req->clock, op->expires, op->flags,
			     req->mono_now, &req->deadline, &req->now);
}

/* Its deadline is resolved in the timeout's clock: twdev_rearm(). */
static int twdev_check_rearm(const struct twheel_op *op,
			     struct twdev_req *req)
{
	if (op->flags & ~TWHEEL_REARM_FLAGS_ALL || op->cookie || op->period ||
	    op->cpu)
		return -EINVAL;
	if ((op->flags & TWHEEL_ARM_ABS) && op->expires > KTIME_MAX)
		return -EINVAL;
	req->flags = op->flags;
	req->handle = op->handle;
	req->expires = op->expires;
	return 0;
}

static int twdev_check_cancel(const struct twheel_op *op,
			      struct twdev_req *req)
{
	if (op->flags & ~TWHEEL_CANCEL_FLAGS_ALL || op->cookie ||
	    op->expires || op->period || op->cpu)
		return -EINVAL;
	req->flags = op->flags;
	req->handle = op->handle;
	return 0;
}

static int twdev_check_get(const struct twheel_op *op, struct twdev_req *req)
{
	if (op->flags || op->cookie || op->expires || op->period || op->cpu)
		return -EINVAL;
	req->handle = op->handle;
	return 0;
}

/**
 * twdev_check_op() - check one operation and turn it into a request
 * @tf: the file
 * @op: the operation; fields it does not use must be zero
 * @now: CLOCK_MONOTONIC time of the call; delays count from it (a cancel
 *	does not use it)
 * @req: out: the request
 *
 * Return: 0, or the errno the operation fails with: -EINVAL (unknown op,
 * flags, non-zero unused fields, bad CPU, period or picked slot, absolute
 * deadline past the clock's range), -ERANGE (deadline or period too far),
 * -EPERM (CPU the caller may not use).
 */
static int twdev_check_op(const struct twdev_file *tf,
			  const struct twheel_op *op, u64 now,
			  struct twdev_req *req)
{
	memset(req, 0, sizeof(*req));
	req->op = op->op;
	req->mono_now = now;
	switch (op->op) {
	case TWHEEL_OP_ARM:
		return twdev_check_arm(tf, op, req);
	case TWHEEL_OP_REARM:
		return twdev_check_rearm(op, req);
	case TWHEEL_OP_CANCEL:
		return twdev_check_cancel(op, req);
	case TWHEEL_OP_GET:
		return twdev_check_get(op, req);
	default:
		return -EINVAL;
	}
}

/* TWHEEL_OP_GET: the description goes into @op; the state is the result. */
static int twdev_apply_get(struct twdev_file *tf, struct twheel_op *op,
			   const struct twdev_req *req)
{
	struct twheel_get get;
	int ret;

	ret = twdev_query(tf, req->handle, req->mono_now, &get);
	if (ret)
		return ret;
	op->cookie = get.cookie;
	op->expires = get.deadline;
	op->period = get.period;
	op->cpu = get.cpu;
	op->flags = get.flags;
	return get.state;
}

/*
 * Check and apply one operation; an arm's handle goes to op->handle (which
 * held the slot it picked, if any), a get's description to the other fields.
 */
static int twdev_apply(struct twdev_file *tf, struct twheel_op *op, u64 now)
{
	struct twdev_req req;
	int ret;

	ret = twdev_check_op(tf, op, now, &req);
	if (op->op == TWHEEL_OP_ARM)
		op->handle = 0;
	if (ret)
		return ret;
	switch (req.op) {
	case TWHEEL_OP_ARM:
		return twdev_arm(tf, &req, &op->handle);
	case TWHEEL_OP_REARM:
		return twdev_rearm(tf, &req);
	case TWHEEL_OP_GET:
		return twdev_apply_get(tf, op, &req);
	default:
		return twdev_cancel(tf, req.handle, req.flags);
	}
}

/*
 * Apply @op alone: tf->lock taken, the clock read once it is held (a cancel
 * needs no clock).
 */
static int twdev_apply_one(struct twdev_file *tf, struct twheel_op *op)
{
	int ret;

	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	ret = twdev_apply(tf, op,
			  op->op == TWHEEL_OP_CANCEL ? 0 : ktime_get_ns());
	mutex_unlock(&tf->lock);
	return ret;
}

/*
 * The handle goes back while tf->lock is still held, so that if the caller's
 * memory faults the new timeout can be cancelled before anyone could see it.
 */
static int twdev_ioc_arm(struct twdev_file *tf, void __user *uarg,
			 size_t usize)
{
	struct twheel_arm __user *uarm = uarg;
	struct twheel_arm arm;
	struct twheel_op op;
	int ret;

	ret = twdev_copy_arg(&arm, sizeof(arm), uarg, usize);
	if (ret)
		return ret;
	op = (struct twheel_op) {
		.op = TWHEEL_OP_ARM,
		.flags = arm.flags,
		.cookie = arm.cookie,
		.expires = arm.expires,
		.period = arm.period,
		.cpu = arm.cpu,
		.handle = arm.handle,
	};
	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	ret = twdev_apply(tf, &op, ktime_get_ns());
	if (!ret && put_user(op.handle, &uarm->handle)) {
		twdev_cancel(tf, op.handle, 0);
		ret = -EFAULT;
	}
	mutex_unlock(&tf->lock);
	return ret;
}

static int twdev_ioc_rearm(struct twdev_file *tf, void __user *uarg,
			   size_t usize)
{
	struct twheel_rearm rearm;
	struct twheel_op op;
	int ret;

	ret = twdev_copy_arg(&rearm, sizeof(rearm), uarg, usize);
	if (ret)
		return ret;
	if (rearm.reserved)
		return -EINVAL;
	op = (struct twheel_op) {
		.op = TWHEEL_OP_REARM,
		.flags = rearm.flags,
		.handle = rearm.handle,
		.expires = rearm.expires,
	};
	return twdev_apply_one(tf, &op);
}

static int twdev_ioc_cancel(struct twdev_file *tf, void __user *uarg,
			    size_t usize)
{
	struct twheel_cancel cancel;
	struct twheel_op op;
	int ret;

	ret = twdev_copy_arg(&cancel, sizeof(cancel), uarg, usize);
	if (ret)
		return ret;
	if (cancel.reserved)
		return -EINVAL;
	op = (struct twheel_op) {
		.op = TWHEEL_OP_CANCEL,
		.flags = cancel.flags,
		.handle = cancel.handle,
	};
	return twdev_apply_one(tf, &op);
}

/*
 * Apply @op, read from the @op_size bytes at @slot, and leave its result in
 * @op (which may be @slot itself). *@now is the batch's clock reading, 0
 * until the first operation that needs one reads it.
 */
static void twdev_batch_op(struct twdev_file *tf, struct twheel_op *op,
			   const void *slot, u32 op_size, u64 *now)
{
	if (op_size > sizeof(*op) &&
	    memchr_inv(slot + sizeof(*op), 0, op_size - sizeof(*op))) {
		if (op->op == TWHEEL_OP_ARM)
			op->handle = 0;
		op->result = -E2BIG;
		return;
	}
	if (!*now && op->op != TWHEEL_OP_CANCEL)
		*now = ktime_get_ns();
	op->result = twdev_apply(tf, op, *now);
}

/*
 * Apply the operation held in the @op_size bytes at @slot (not necessarily
 * aligned) and store its result there. Bytes past struct twheel_op belong to
 * fields this module does not know: they must be zero. Caller holds tf->lock;
 * @now as for twdev_batch_op().
 */
static void twdev_batch_one(struct twdev_file *tf, void *slot, u32 op_size,
			    u64 *now)
{
	struct twheel_op op;

	memcpy(&op, slot, sizeof(op));
	twdev_batch_op(tf, &op, slot, op_size, now);
	memcpy(slot, &op, sizeof(op));
}

/* The results could not be returned: cancel what the batch armed. */
static void twdev_batch_unwind(struct twdev_file *tf, void *ops, u32 count,
			       u32 op_size)
{
	struct twheel_op op;
	u32 i;

	mutex_lock(&tf->lock);
	for (i = 0; i < count; i++) {
		memcpy(&op, ops + (size_t)i * op_size, sizeof(op));
		if (op.op == TWHEEL_OP_ARM && !op.result)
			twdev_cancel(tf, op.handle, 0);
	}
	mutex_unlock(&tf->lock);
}

/* Is every struct twheel_op of the array at @addr 8-byte aligned? */
static bool twdev_ops_aligned(unsigned long addr, u32 op_size)
{
	return IS_ALIGNED(addr | op_size, sizeof(u64));
}

static int twdev_batch_apply(struct twdev_file *tf, void *ops, u32 count,
			     u32 op_size)
{
	bool aligned = twdev_ops_aligned((unsigned long)ops, op_size);
	u64 now = 0;
	void *slot;
	u32 i;

	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	for (i = 0; i < count; i++) {
		slot = ops + (size_t)i * op_size;
		if (aligned)
			twdev_batch_op(tf, slot, slot, op_size, &now);
		else
			twdev_batch_one(tf, slot, op_size, &now);
		if (i % TWDEV_RESCHED_EVERY == TWDEV_RESCHED_EVERY - 1)
			cond_resched();
	}
	mutex_unlock(&tf->lock);
	return 0;
}

static int twdev_check_batch(const struct twheel_batch *batch)
{
	if (batch->flags & ~TWHEEL_BATCH_FLAGS_ALL || batch->reserved ||
	    !batch->count ||
	    batch->count > TWDEV_MAX_BATCH ||
	    batch->op_size < sizeof(struct twheel_op) ||
	    batch->op_size > TWDEV_MAX_OP_SIZE)
		return -EINVAL;
	return 0;
}

/*
 * Copy a batch's array in; a batch of one struct twheel_op, as a program
 * that has one operation at a time sends it, with a constant size (see
 * twdev_copy_arg()).
 */
static int twdev_copy_ops(void *ops, const void __user *uops, size_t len)
{
	if (len == sizeof(struct twheel_op))
		return copy_from_user(ops, uops, sizeof(struct twheel_op)) ?
		       -EFAULT : 0;
	return copy_from_user(ops, uops, len) ? -EFAULT : 0;
}

/*
 * Prove that the @len bytes at @uops can be written before anything is
 * applied, so that writing the results back cannot fail halfway for want of
 * a writable page: write back, unchanged, the first byte the array has in
 * each page it spans (@ops holds the copy). Protection is per page, so this
 * proves what writing the whole array back would, at one byte a page.
 */
static int twdev_probe_writable(void __user *uops, const void *ops,
				size_t len)
{
	size_t off = 0;

	while (off < len) {
		if (put_user(*(const u8 *)(ops + off), (u8 __user *)(uops + off)))
			return -EFAULT;
		off += PAGE_SIZE - offset_in_page(uops + off);
	}
	return 0;
}

/*
 * Write the results of the batch at @ops back to @uops. What an operation
 * changes is its result, an arm's handle and a get's description: with
 * aligned operations only those are written, the rest of the array holds
 * what the caller put there already.
 */
static int twdev_batch_results(void __user *uops, const void *ops,
			       u32 count, u32 op_size)
{
	const struct twheel_op *op;
	struct twheel_op __user *uop;
	size_t len = (size_t)count * op_size;
	u32 i;

	if (!twdev_ops_aligned((unsigned long)ops, op_size) ||
	    !twdev_ops_aligned((unsigned long)uops, op_size))
		return copy_to_user(uops, ops, len) ? -EFAULT : 0;
	if (!user_access_begin(uops, len))
		return -EFAULT;
	for (i = 0; i < count; i++) {
		op = ops + (size_t)i * op_size;
		uop = uops + (size_t)i * op_size;
		if (op->op == TWHEEL_OP_GET) {
			unsafe_copy_to_user((void __user *)uop, (const void *)op,
					    sizeof(*op), efault);
			continue;
		}
		if (op->op == TWHEEL_OP_ARM)
			unsafe_put_user(op->handle, &uop->handle, efault);
		unsafe_put_user(op->result, &uop->result, efault);
	}
	user_access_end();
	return 0;
efault:
	user_access_end();
	return -EFAULT;
}

static int twdev_ioc_batch(struct twdev_file *tf, void __user *uarg,
			   size_t usize)
{
	u64 stack_ops[TWDEV_BATCH_STACK / sizeof(u64)];
	struct twheel_batch batch;
	void __user *uops;
	size_t len;
	void *ops;
	int ret;

	ret = twdev_copy_arg(&batch, sizeof(batch), uarg, usize);
	if (ret)
		return ret;
	ret = twdev_check_batch(&batch);
	if (ret)
		return ret;
	uops = u64_to_user_ptr(batch.ops);
	len = (size_t)batch.count * batch.op_size;
	ops = stack_ops;
	if (len > sizeof(stack_ops)) {
		ops = kvmalloc(len, GFP_KERNEL_ACCOUNT);
		if (!ops)
			return -ENOMEM;
	}
	if (twdev_copy_ops(ops, uops, len) ||
	    twdev_probe_writable(uops, ops, len)) {
		ret = -EFAULT;
		goto out_free_ops;
	}
	ret = twdev_batch_apply(tf, ops, batch.count, batch.op_size);
	if (!ret && twdev_batch_results(uops, ops, batch.count,
					batch.op_size)) {
		twdev_batch_unwind(tf, ops, batch.count, batch.op_size);
		ret = -EFAULT;
	}
out_free_ops:
	if (ops != stack_ops)
		kvfree(ops);
	return ret;
}

static int twdev_ioc_get(struct twdev_file *tf, void __user *uarg,
			 size_t usize)
{
	struct twheel_get get;
	int ret;

	ret = twdev_copy_arg(&get, sizeof(get), uarg, usize);
	if (ret)
		return ret;
	if (get.reserved)
		return -EINVAL;
	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	ret = twdev_query(tf, get.handle, ktime_get_ns(), &get);
	mutex_unlock(&tf->lock);
	if (ret)
		return ret;
	return twdev_copy_struct_to_user(uarg, usize, &get, sizeof(get));
}

static int twdev_check_drain(const struct twheel_drain *drain)
{
	if (drain->flags & ~TWHEEL_DRAIN_FLAGS_ALL || !drain->count ||
	    drain->count > TWDEV_MAX_BATCH ||
	    drain->entry_size < sizeof(struct twheel_get) ||
	    drain->entry_size > TWDEV_MAX_OP_SIZE)
		return -EINVAL;
	return 0;
}

/*
 * List, copy out and, with TWHEEL_DRAIN_CANCEL, cancel. Everything is
 * written back before the first cancel, so a fault cancels nothing. Caller
 * holds tf->lock.
 */
static int twdev_drain_locked(struct twdev_file *tf, void __user *uarg,
			      size_t usize, struct twheel_drain *drain,
			      struct twheel_get *gets)
{
	void __user *uentries = u64_to_user_ptr(drain->entries);
	unsigned long cursor = drain->cursor;
	unsigned int i;
	int ret;

	drain->filled = twdev_list(tf, &cursor, ktime_get_ns(), gets,
				   drain->count);
	drain->cursor = cursor;
	for (i = 0; i < drain->filled; i++) {
		ret = twdev_copy_struct_to_user(uentries +
						(size_t)i * drain->entry_size,
						drain->entry_size, &gets[i],
						sizeof(gets[i]));
		if (ret)
			return ret;
	}
	ret = twdev_copy_struct_to_user(uarg, usize, drain, sizeof(*drain));
	if (ret || !(drain->flags & TWHEEL_DRAIN_CANCEL))
		return ret;
	for (i = 0; i < drain->filled; i++) {
		twdev_cancel(tf, gets[i].handle, 0);
		if (!((i + 1) % TW_LOCKED_CHUNK))
			cond_resched();
	}
	return 0;
}

static int twdev_ioc_drain(struct twdev_file *tf, void __user *uarg,
			   size_t usize)
{
	struct twheel_drain drain;
	struct twheel_get *gets;
	int ret;

	ret = twdev_copy_arg(&drain, sizeof(drain), uarg, usize);
	if (ret)
		return ret;
	ret = twdev_check_drain(&drain);
	if (ret)
		return ret;
	gets = kvmalloc_array(drain.count, sizeof(*gets), GFP_KERNEL_ACCOUNT);
	if (!gets)
		return -ENOMEM;
	if (mutex_lock_interruptible(&tf->lock)) {
		ret = -ERESTARTSYS;
		goto out_free_gets;
	}
	ret = twdev_drain_locked(tf, uarg, usize, &drain, gets);
	mutex_unlock(&tf->lock);
out_free_gets:
	kvfree(gets);
	return ret;
}

static int twdev_ioc_stats(struct twdev_file *tf, void __user *uarg,
			   size_t usize)
{
	struct twheel_stats stats;

	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	twdev_stats(tf, &stats);
	mutex_unlock(&tf->lock);
	return twdev_copy_struct_to_user(uarg, usize, &stats, sizeof(stats));
}

/* Known flags, zero outputs and reserved field, a ring of sane size. */
static int twdev_check_share(const struct twheel_share *req)
{
	if (req->flags & ~TWHEEL_SHARE_FLAGS_ALL || req->size || req->offset ||
	    req->reserved || req->ring_size || req->ring_offset)
		return -EINVAL;
	if (!(req->flags & TWHEEL_SHARE_RING))
		return req->ring_entries ? -EINVAL : 0;
	if (req->ring_entries < 2 || req->ring_entries > TWHEEL_RING_MAX)
		return -EINVAL;
	return 0;
}

static int twdev_ioc_share(struct twdev_file *tf, void __user *uarg,
			   size_t usize)
{
	struct twheel_share req;
	int ret;

	ret = twdev_copy_arg(&req, sizeof(req), uarg, usize);
	if (ret)
		return ret;
	if (twdev_check_share(&req))
		return -EINVAL;
	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	ret = twdev_share(tf, &req);
	mutex_unlock(&tf->lock);
	if (ret)
		return ret;
	return twdev_copy_struct_to_user(uarg, usize, &req, sizeof(req));
}

typedef int (*twdev_ioc_fn)(struct twdev_file *tf, void __user *uarg,
			    size_t usize);

/**
 * struct twdev_ioc - how one ioctl number is called
 * @dir: the direction bits its command must carry
 * @size_ver0: the smallest size its command may carry
 * @fn: the handler
 */
struct twdev_ioc {
	unsigned int dir;
	size_t size_ver0;
	twdev_ioc_fn fn;
};

static const struct twdev_ioc twdev_iocs[] = {
	[_IOC_NR(TWHEEL_IOC_INFO)] = {
		_IOC_READ, TWHEEL_INFO_SIZE_VER0, twdev_ioc_info },
	[_IOC_NR(TWHEEL_IOC_ARM)] = {
		_IOC_READ | _IOC_WRITE, TWHEEL_ARM_SIZE_VER0, twdev_ioc_arm },
	[_IOC_NR(TWHEEL_IOC_REARM)] = {
		_IOC_WRITE, TWHEEL_REARM_SIZE_VER0, twdev_ioc_rearm },
	[_IOC_NR(TWHEEL_IOC_CANCEL)] = {
		_IOC_WRITE, TWHEEL_CANCEL_SIZE_VER0, twdev_ioc_cancel },
	[_IOC_NR(TWHEEL_IOC_BATCH)] = {
		_IOC_WRITE, TWHEEL_BATCH_SIZE_VER0, twdev_ioc_batch },
	[_IOC_NR(TWHEEL_IOC_GET)] = {
		_IOC_READ | _IOC_WRITE, TWHEEL_GET_SIZE_VER0, twdev_ioc_get },
	[_IOC_NR(TWHEEL_IOC_DRAIN)] = {
		_IOC_READ | _IOC_WRITE, TWHEEL_DRAIN_SIZE_VER0,
		twdev_ioc_drain },
	[_IOC_NR(TWHEEL_IOC_STATS)] = {
		_IOC_READ, TWHEEL_STATS_SIZE_VER0, twdev_ioc_stats },
	[_IOC_NR(TWHEEL_IOC_SHARE)] = {
		_IOC_READ | _IOC_WRITE, TWHEEL_SHARE_SIZE_VER0,
		twdev_ioc_share },
};

/**
 * twdev_ioctl() - the unlocked_ioctl of /dev/twheel
 * @file: the open file
 * @cmd: the command; its size bits give the caller's structure size
 * @arg: user pointer to the command's structure
 *
 * Context: process context.
 * Return: 0 or a negative errno: -ENOTTY for a command of another type, an
 * unknown number or wrong direction bits; -EINVAL for a size below the
 * structure's *_SIZE_VER0; otherwise what the command returns.
 */
long twdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	unsigned int nr = _IOC_NR(cmd);
	const struct twdev_ioc *ioc;

	if (_IOC_TYPE(cmd) != TWHEEL_IOC_MAGIC || nr >= ARRAY_SIZE(twdev_iocs))
		return -ENOTTY;
	ioc = &twdev_iocs[array_index_nospec(nr, ARRAY_SIZE(twdev_iocs))];
	if (_IOC_DIR(cmd) != ioc->dir)
		return -ENOTTY;
	if (_IOC_SIZE(cmd) < ioc->size_ver0)
		return -EINVAL;
	return ioc->fn(file->private_data, (void __user *)arg, _IOC_SIZE(cmd));
}
