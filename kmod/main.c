// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module entry points of twheel.ko
 *
 * Brings up the wheel (per-CPU bases, hotplug callbacks; cpu.c), its
 * debugfs statistics (stats.c), then the /dev/twheel misc device
 * (dev_misc.c), and tears them down in the reverse order. Each module
 * parameter is defined next to its reader. No locks live here.
 */
#include <linux/module.h>

#include "dev.h"

static int __init twheel_init(void)
{
	int ret;

	ret = tw_init();
	if (ret)
		return ret;
	tw_stats_init();
	ret = twdev_init();
	if (ret)
		goto err_stats_exit;
	return 0;

err_stats_exit:
	tw_stats_exit();
	tw_exit();
	return ret;
}

static void __exit twheel_exit(void)
{
	twdev_exit();
	tw_stats_exit();
	tw_exit();
}

module_init(twheel_init);
module_exit(twheel_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-CPU hierarchical timing wheel with a /dev/twheel interface");
MODULE_AUTHOR("The twheel developers");
/* The release, from the VERSION file at the top of the tree (kmod/Kbuild). */
MODULE_VERSION(TWHEEL_VERSION);
