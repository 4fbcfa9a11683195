/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dev_file.h - the timeouts of one open /dev/twheel file
 *
 * Shared by dev.c (file operations), dev_ioctl.c (ioctl marshalling) and
 * dev_file.c (the set of timeouts itself). What each lock protects is
 * described at the top of dev_file.c.
 */
#ifndef _TWHEEL_DEV_FILE_H
#define _TWHEEL_DEV_FILE_H

#include <linux/compiler.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

struct file;
struct seq_file;
struct twheel_arm;
struct twheel_dev_timeout;

/**
 * struct twheel_file - private context of one open /dev/twheel file
 * @lock: serialises every ioctl and read() of the file
 * @timeouts: slot -> struct twheel_dev_timeout, live or on the free list;
 *	its xa_lock also guards the ready marks, @nr_queued and each
 *	timeout's expiry time
 * @wqh: readers and pollers wait here for a record
 * @free: dead timeouts kept for reuse, each with its slot (under @lock)
 * @nr_queued: records ready to be read (written under the xa_lock)
 * @nr_live: live handles; at most @max_pending (under @lock)
 * @nr_free: timeouts on @free (under @lock)
 * @max_pending: the per-file limit, from the max_pending module parameter
 * @gen: generation in the upper half of new handles (under @lock)
 * @gen_spent: a handle of generation @gen has died: the next arm takes a
 *	new generation (under @lock)
 * @read_cursor: slot at which read() looks for the next record (under @lock)
 */
struct twheel_file {
	struct mutex lock;		/* serialises ioctls and read() */
	struct xarray timeouts;
	wait_queue_head_t wqh;
	struct twheel_dev_timeout *free;
	unsigned int nr_queued;
	unsigned int nr_live;
	unsigned int nr_free;
	unsigned int max_pending;
	u32 gen;
	bool gen_spent;
	unsigned long read_cursor;
};

/**
 * twheel_file_has_ready() - is at least one record ready to be read
 * @tf: the file
 *
 * Lockless; see the comment in twheel_dev_poll() about ordering.
 *
 * Return: true if read() would find a record now.
 */
static inline bool twheel_file_has_ready(const struct twheel_file *tf)
{
	return READ_ONCE(tf->nr_queued) != 0;
}

int twheel_file_cache_init(void);
void twheel_file_cache_exit(void);
struct twheel_file *twheel_file_create(void);
void twheel_file_destroy(struct twheel_file *tf);
int twheel_file_arm(struct twheel_file *tf, const struct twheel_arm *arm,
		    u64 now, u64 *handle);
int twheel_file_rearm(struct twheel_file *tf, u64 handle, u64 expires,
		      u32 flags, u64 now);
int twheel_file_cancel(struct twheel_file *tf, u64 handle);
ssize_t twheel_file_read(struct twheel_file *tf, char __user *buf,
			 size_t count);
void twheel_file_show(struct twheel_file *tf, struct seq_file *m);

long twheel_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* _TWHEEL_DEV_FILE_H */
