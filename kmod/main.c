// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module entry points of twheel.ko
 *
 * Brings up the wheel (per-CPU bases, hotplug callbacks; cpu.c), then the
 * /dev/twheel misc device (dev_file.c), and tears them down in the reverse
 * order. Each module parameter is defined next to its reader; they all
 * share tw_param_set_uint(), which names the allowed range in the kernel
 * log when a value is refused. No locks live here.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "dev.h"

/**
 * tw_param_set_uint() - set an unsigned int module parameter within a range
 * @val: the value as written (insmod, modprobe, sysfs)
 * @kp: the parameter
 * @min: least value allowed
 * @max: greatest value allowed
 *
 * Like param_set_uint_minmax(), and a refused value is reported with the
 * range it must be in: "twheel: tick_ns=0 refused: allowed 50000..1000000000".
 *
 * Context: process context (module load or a sysfs write).
 * Return: 0, or -EINVAL for a value that is not a number in [@min, @max].
 */
int tw_param_set_uint(const char *val, const struct kernel_param *kp,
		      unsigned int min, unsigned int max)
{
	int ret = param_set_uint_minmax(val, kp, min, max);

	if (ret)
		pr_err("%s=%s refused: allowed %u..%u\n", kp->name, val, min, max);
	return ret;
}

static int __init twheel_init(void)
{
	int ret;

	ret = tw_init();
	if (ret)
		return ret;
	ret = twdev_init();
	if (ret)
		goto err_wheel_exit;
	return 0;

err_wheel_exit:
	tw_exit();
	return ret;
}

static void __exit twheel_exit(void)
{
	twdev_exit();
	tw_exit();
}

module_init(twheel_init);
module_exit(twheel_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-CPU hierarchical timing wheel with a /dev/twheel interface");
MODULE_AUTHOR("The twheel developers");
/* The release, from the VERSION file at the top of the tree (kmod/Kbuild). */
MODULE_VERSION(TWHEEL_VERSION);
