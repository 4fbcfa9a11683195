// SPDX-License-Identifier: GPL-2.0
/*
 * dev.c - the /dev/twheel misc device and its file operations
 *
 * Every open gives a private set of timeouts (struct twheel_file, see
 * dev_file.c); ioctls arm, re-arm and cancel them (dev_ioctl.c), read()
 * returns struct twheel_event records and poll reports EPOLLIN while a
 * record is ready. Closing the file cancels and frees all of its timeouts.
 *
 * The device is mode 0666, like timerfd_create() which any user may call:
 * a file's timeouts only ever reach that file, their memory is charged to
 * the memory cgroup of the task whose arm allocated it and capped per file,
 * and the shortest period is one tick.
 *
 * Locking: read() sleeps on tf->wqh without locks, then takes tf->lock to
 * copy records out; poll takes no lock. See dev_file.c for the rest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/seq_file.h>
#include <linux/wait.h>
#include <linux/twheel.h>

#include "twheel_internal.h"
#include "dev_file.h"

static int twheel_dev_open(struct inode *inode, struct file *file)
{
	struct twheel_file *tf;

	tf = twheel_file_create();
	if (!tf)
		return -ENOMEM;
	file->private_data = tf;
	return stream_open(inode, file);
}

static int twheel_dev_release(struct inode *inode, struct file *file)
{
	twheel_file_destroy(file->private_data);
	return 0;
}

/* Wait until a record is ready, unless @nonblock. */
static int twheel_dev_wait(struct twheel_file *tf, bool nonblock)
{
	if (twheel_file_has_ready(tf))
		return 0;
	if (nonblock)
		return -EAGAIN;
	return wait_event_interruptible(tf->wqh, twheel_file_has_ready(tf));
}

/*
 * Returns as many whole records as fit in @count and are ready, at least one.
 * Another reader may take the records this one was woken for: then it waits
 * again (or returns -EAGAIN).
 */
static ssize_t twheel_dev_read(struct file *file, char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct twheel_file *tf = file->private_data;
	ssize_t ret;

	if (count < sizeof(struct twheel_event))
		return -EINVAL;
	do {
		ret = twheel_dev_wait(tf, file->f_flags & O_NONBLOCK);
		if (ret)
			return ret;
		if (mutex_lock_interruptible(&tf->lock))
			return -ERESTARTSYS;
		ret = twheel_file_read(tf, buf, count);
		mutex_unlock(&tf->lock);
	} while (!ret);
	return ret;
}

/*
 * poll_wait() adds us to tf->wqh under tf->wqh.lock before the lockless
 * check. A callback raises tf->nr_queued and only then wakes tf->wqh, which
 * takes the same lock: either the check sees the new record or the wake-up
 * finds us queued. Every record queued wakes the queue, so edge-triggered
 * epoll sees each one.
 */
static __poll_t twheel_dev_poll(struct file *file, poll_table *wait)
{
	struct twheel_file *tf = file->private_data;

	poll_wait(file, &tf->wqh, wait);
	return twheel_file_has_ready(tf) ? EPOLLIN | EPOLLRDNORM : 0;
}

static void twheel_dev_show_fdinfo(struct seq_file *m, struct file *file)
{
	twheel_file_show(file->private_data, m);
}

static const struct file_operations twheel_fops = {
	.owner = THIS_MODULE,
	.open = twheel_dev_open,
	.release = twheel_dev_release,
	.read = twheel_dev_read,
	.poll = twheel_dev_poll,
	.unlocked_ioctl = twheel_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = twheel_dev_show_fdinfo,
	.llseek = noop_llseek,
};

static struct miscdevice twheel_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "twheel",
	.fops = &twheel_fops,
	.mode = 0666,
};

/**
 * twheel_dev_init() - create the timeout cache and register /dev/twheel
 *
 * Return: 0 or a negative errno.
 */
int twheel_dev_init(void)
{
	int ret;

	ret = twheel_file_cache_init();
	if (ret)
		return ret;
	ret = misc_register(&twheel_misc);
	if (ret)
		goto err_cache_exit;
	return 0;

err_cache_exit:
	twheel_file_cache_exit();
	return ret;
}

/**
 * twheel_dev_exit() - unregister /dev/twheel and destroy the timeout cache
 *
 * No file can be open: each one holds a reference on the module.
 */
void twheel_dev_exit(void)
{
	misc_deregister(&twheel_misc);
	twheel_file_cache_exit();
}
