// SPDX-License-Identifier: GPL-2.0
/*
 * dev_misc.c - /dev/twheel: the misc device and its file operations
 *
 * The top of the device layer: open and release make and free a struct
 * twdev_file (dev_file.c), read and poll are dev_read.c's, the ioctls
 * dev_ioctl.c's, fdinfo dev_file.c's. It calls into those files and none
 * of them calls back. No locks of its own.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "dev.h"

static int twdev_open(struct inode *inode, struct file *file)
{
	file->private_data = twdev_file_new();
	if (!file->private_data)
		return -ENOMEM;
	file->f_mode |= FMODE_NOWAIT;
	return stream_open(inode, file);
}

static int twdev_release(struct inode *inode, struct file *file)
{
	twdev_file_free(file->private_data);
	return 0;
}

static const struct file_operations twdev_fops = {
	.owner = THIS_MODULE,
	.open = twdev_open,
	.release = twdev_release,
	.read_iter = twdev_read_iter,
	.poll = twdev_poll,
	.mmap = twdev_mmap,
	.unlocked_ioctl = twdev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = twdev_show_fdinfo,
	.llseek = noop_llseek,
};

static struct miscdevice twdev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "twheel",
	.fops = &twdev_fops,
	.mode = 0666,
};

/**
 * twdev_init() - create the timeout cache and register /dev/twheel
 *
 * Return: 0 or a negative errno.
 */
int twdev_init(void)
{
	int ret;

	ret = twdev_file_init();
	if (ret)
		return ret;
	ret = misc_register(&twdev_misc);
	if (ret)
		goto err_file_exit;
	return 0;

err_file_exit:
	twdev_file_exit();
	return ret;
}

/**
 * twdev_exit() - unregister /dev/twheel and destroy the timeout cache
 *
 * No file can be open: each one holds a reference on the module.
 */
void twdev_exit(void)
{
	misc_deregister(&twdev_misc);
	twdev_file_exit();
}
