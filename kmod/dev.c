// SPDX-License-Identifier: GPL-2.0
/*
 * dev.c - the /dev/twheel misc device (skeleton: open and release only)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "twheel_internal.h"

static int twheel_open(struct inode *inode, struct file *file)
{
	return 0;
}

static int twheel_release(struct inode *inode, struct file *file)
{
	return 0;
}

static const struct file_operations twheel_fops = {
	.owner = THIS_MODULE,
	.open = twheel_open,
	.release = twheel_release,
	.llseek = noop_llseek,
};

static struct miscdevice twheel_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "twheel",
	.fops = &twheel_fops,
	.mode = 0666,
};

int twheel_dev_init(void)
{
	return misc_register(&twheel_misc);
}

void twheel_dev_exit(void)
{
	misc_deregister(&twheel_misc);
}
