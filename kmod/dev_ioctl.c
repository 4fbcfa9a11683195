// SPDX-License-Identifier: GPL-2.0
/*
 * dev_ioctl.c - the ioctls of /dev/twheel: argument copying and checking
 *
 * Commands are told apart by type and number; the direction bits must match
 * and the size bits give the size of the caller's structure, which may be
 * older (shorter, down to its *_SIZE_VER0) or newer (longer, with the bytes
 * this module does not know all zero) than ours. Each argument is copied
 * from userspace once and only the copy is checked and used; the timeouts
 * themselves are handled by dev_file.c.
 *
 * A batch copies its whole array in, writes it straight back to prove it can
 * (so a fault costs nothing), applies the operations in order under one
 * hold of tf->lock and writes the results back. The clock is read once per
 * call, once tf->lock is held: every delay of a batch counts from that
 * reading, which is never later than the operation it serves.
 *
 * Locking: every command that touches timeouts holds tf->lock (see
 * dev_file.c), taken interruptibly: a signal before anything is done
 * restarts the call.
 */
#include <linux/build_bug.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/twheel.h>

#include "twheel.h"
#include "dev_file.h"

/* Operations one TWHEEL_IOC_BATCH may carry (twheel_info.max_batch). */
#define TWHEEL_MAX_BATCH	4096U
/* Largest twheel_batch.op_size accepted: room for growth, bounded memory. */
#define TWHEEL_MAX_OP_SIZE	512U

static_assert(sizeof(struct twheel_arm) == TWHEEL_ARM_SIZE_VER0);
static_assert(sizeof(struct twheel_rearm) == TWHEEL_REARM_SIZE_VER0);
static_assert(sizeof(struct twheel_cancel) == TWHEEL_CANCEL_SIZE_VER0);
static_assert(sizeof(struct twheel_batch) == TWHEEL_BATCH_SIZE_VER0);
static_assert(sizeof(struct twheel_info) == TWHEEL_INFO_SIZE_VER0);
static_assert(sizeof(struct twheel_op) == 48);
static_assert(sizeof(struct twheel_event) == 48);

/*
 * Copy a structure of @ksize bytes out to a caller's structure of @usize
 * bytes: what both know, then zeroes in the caller's newer fields.
 */
static int twheel_copy_struct_to_user(void __user *dst, size_t usize,
				      const void *src, size_t ksize)
{
	size_t size = min(ksize, usize);

	if (copy_to_user(dst, src, size))
		return -EFAULT;
	if (usize > ksize && clear_user(dst + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

static int twheel_ioc_info(struct twheel_file *tf, void __user *uarg,
			   size_t usize)
{
	const struct twheel_info info = {
		.api_version = TWHEEL_API_VERSION,
		.size = sizeof(info),
		.ioctls = TWHEEL_FEAT_INFO | TWHEEL_FEAT_ARM |
			  TWHEEL_FEAT_REARM | TWHEEL_FEAT_CANCEL |
			  TWHEEL_FEAT_BATCH,
		.arm_flags = TWHEEL_ARM_FLAGS_ALL,
		.event_size = sizeof(struct twheel_event),
		.tick_ns = twheel_tick_ns(),
		.max_delay_ns = twheel_max_delay_ns(),
		.max_pending = tf->max_pending,
		.max_batch = TWHEEL_MAX_BATCH,
	};

	return twheel_copy_struct_to_user(uarg, usize, &info, sizeof(info));
}

/*
 * The handle goes back while tf->lock is still held, so that if the caller's
 * memory faults the new timeout can be cancelled before anyone could see it.
 */
static int twheel_ioc_arm(struct twheel_file *tf, void __user *uarg,
			  size_t usize)
{
	struct twheel_arm __user *uarm = uarg;
	struct twheel_arm arm;
	u64 handle;
	int ret;

	ret = copy_struct_from_user(&arm, sizeof(arm), uarg, usize);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	ret = twheel_file_arm(tf, &arm, ktime_get_ns(), &handle);
	if (!ret && put_user(handle, &uarm->handle)) {
		twheel_file_cancel(tf, handle);
		ret = -EFAULT;
	}
	mutex_unlock(&tf->lock);
	return ret;
}

static int twheel_ioc_rearm(struct twheel_file *tf, void __user *uarg,
			    size_t usize)
{
	struct twheel_rearm rearm;
	int ret;

	ret = copy_struct_from_user(&rearm, sizeof(rearm), uarg, usize);
	if (ret)
		return ret;
	if (rearm.reserved)
		return -EINVAL;
	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	ret = twheel_file_rearm(tf, rearm.handle, rearm.expires, rearm.flags,
				ktime_get_ns());
	mutex_unlock(&tf->lock);
	return ret;
}

static int twheel_ioc_cancel(struct twheel_file *tf, void __user *uarg,
			     size_t usize)
{
	struct twheel_cancel cancel;
	int ret;

	ret = copy_struct_from_user(&cancel, sizeof(cancel), uarg, usize);
	if (ret)
		return ret;
	if (cancel.flags || cancel.reserved)
		return -EINVAL;
	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	ret = twheel_file_cancel(tf, cancel.handle);
	mutex_unlock(&tf->lock);
	return ret;
}

static int twheel_op_arm(struct twheel_file *tf, struct twheel_op *op,
			 u64 now)
{
	const struct twheel_arm arm = {
		.cookie = op->cookie,
		.expires = op->expires,
		.period = op->period,
		.flags = op->flags,
		.cpu = op->cpu,
	};

	return twheel_file_arm(tf, &arm, now, &op->handle);
}

/* Apply one operation; the fields it does not use must be zero. */
static int twheel_op_apply(struct twheel_file *tf, struct twheel_op *op,
			   u64 now)
{
	switch (op->op) {
	case TWHEEL_OP_ARM:
		return twheel_op_arm(tf, op, now);
	case TWHEEL_OP_REARM:
		if (op->cookie || op->period || op->cpu)
			return -EINVAL;
		return twheel_file_rearm(tf, op->handle, op->expires,
					 op->flags, now);
	case TWHEEL_OP_CANCEL:
		if (op->flags || op->cookie || op->expires || op->period ||
		    op->cpu)
			return -EINVAL;
		return twheel_file_cancel(tf, op->handle);
	default:
		return -EINVAL;
	}
}

/*
 * Apply the operation held in the @op_size bytes at @slot (not necessarily
 * aligned) and store its result there. Bytes past struct twheel_op belong to
 * fields this module does not know: they must be zero. A failed arm gets
 * handle 0. Caller holds tf->lock and read the clock, @now, since.
 */
static void twheel_batch_one(struct twheel_file *tf, void *slot, u32 op_size,
			     u64 now)
{
	struct twheel_op op;

	memcpy(&op, slot, sizeof(op));
	if (op.op == TWHEEL_OP_ARM)
		op.handle = 0;
	if (memchr_inv(slot + sizeof(op), 0, op_size - sizeof(op)))
		op.result = -E2BIG;
	else
		op.result = twheel_op_apply(tf, &op, now);
	memcpy(slot, &op, sizeof(op));
}

static int twheel_batch_apply(struct twheel_file *tf, void *ops, u32 count,
			      u32 op_size)
{
	u64 now;
	u32 i;

	if (mutex_lock_interruptible(&tf->lock))
		return -ERESTARTSYS;
	now = ktime_get_ns();
	for (i = 0; i < count; i++) {
		twheel_batch_one(tf, ops + (size_t)i * op_size, op_size, now);
		cond_resched();
	}
	mutex_unlock(&tf->lock);
	return 0;
}

static int twheel_ioc_batch(struct twheel_file *tf, void __user *uarg,
			    size_t usize)
{
	struct twheel_batch batch;
	void __user *uops;
	size_t len;
	void *ops;
	int ret;

	ret = copy_struct_from_user(&batch, sizeof(batch), uarg, usize);
	if (ret)
		return ret;
	if (batch.flags || batch.reserved || !batch.count ||
	    batch.count > TWHEEL_MAX_BATCH ||
	    batch.op_size < sizeof(struct twheel_op) ||
	    batch.op_size > TWHEEL_MAX_OP_SIZE)
		return -EINVAL;

	uops = u64_to_user_ptr(batch.ops);
	len = (size_t)batch.count * batch.op_size;
	ops = kvmalloc(len, GFP_KERNEL_ACCOUNT);
	if (!ops)
		return -ENOMEM;
	/* Prove the array can be written back before anything is applied. */
	if (copy_from_user(ops, uops, len) || copy_to_user(uops, ops, len)) {
		ret = -EFAULT;
		goto out_free_ops;
	}
	ret = twheel_batch_apply(tf, ops, batch.count, batch.op_size);
	if (!ret && copy_to_user(uops, ops, len))
		ret = -EFAULT;
out_free_ops:
	kvfree(ops);
	return ret;
}

typedef int (*twheel_ioc_fn)(struct twheel_file *tf, void __user *uarg,
			     size_t usize);

/**
 * struct twheel_ioc - how one ioctl number is called
 * @dir: the direction bits its command must carry
 * @size_ver0: the smallest size its command may carry
 * @fn: the handler
 */
struct twheel_ioc {
	unsigned int dir;
	size_t size_ver0;
	twheel_ioc_fn fn;
};

static const struct twheel_ioc twheel_iocs[] = {
	[_IOC_NR(TWHEEL_IOC_INFO)] = {
		_IOC_READ, TWHEEL_INFO_SIZE_VER0, twheel_ioc_info },
	[_IOC_NR(TWHEEL_IOC_ARM)] = {
		_IOC_READ | _IOC_WRITE, TWHEEL_ARM_SIZE_VER0, twheel_ioc_arm },
	[_IOC_NR(TWHEEL_IOC_REARM)] = {
		_IOC_WRITE, TWHEEL_REARM_SIZE_VER0, twheel_ioc_rearm },
	[_IOC_NR(TWHEEL_IOC_CANCEL)] = {
		_IOC_WRITE, TWHEEL_CANCEL_SIZE_VER0, twheel_ioc_cancel },
	[_IOC_NR(TWHEEL_IOC_BATCH)] = {
		_IOC_WRITE, TWHEEL_BATCH_SIZE_VER0, twheel_ioc_batch },
};

/**
 * twheel_dev_ioctl() - the unlocked_ioctl of /dev/twheel
 * @file: the open file
 * @cmd: the command; its size bits give the caller's structure size
 * @arg: user pointer to the command's structure
 *
 * Context: process context.
 * Return: 0 or a negative errno: -ENOTTY for a command of another type, an
 * unknown number or wrong direction bits; -EINVAL for a size below the
 * structure's *_SIZE_VER0; otherwise what the command returns.
 */
long twheel_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	unsigned int nr = _IOC_NR(cmd);
	const struct twheel_ioc *ioc;

	if (_IOC_TYPE(cmd) != TWHEEL_IOC_MAGIC || nr >= ARRAY_SIZE(twheel_iocs))
		return -ENOTTY;
	ioc = &twheel_iocs[array_index_nospec(nr, ARRAY_SIZE(twheel_iocs))];
	if (_IOC_DIR(cmd) != ioc->dir)
		return -ENOTTY;
	if (_IOC_SIZE(cmd) < ioc->size_ver0)
		return -EINVAL;
	return ioc->fn(file->private_data, (void __user *)arg, _IOC_SIZE(cmd));
}
