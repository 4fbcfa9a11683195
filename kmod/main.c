// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module entry points and module parameters of twheel.ko
 *
 * Brings up the wheel (per-CPU bases, hotplug callbacks), then the
 * /dev/twheel misc device, and tears them down in the reverse order.
 * The parameters are read-only after load; each one is range-checked by its
 * setter so that a bad value makes insmod fail with a clear message.
 * No locks live here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "twheel_internal.h"

/* Wheel tick: 1 ms, the kernel's HZ=1000 jiffy; see Documentation/design.rst. */
#define TWHEEL_TICK_NS_DEFAULT		1000000U
#define TWHEEL_TICK_NS_MIN		50000U
#define TWHEEL_TICK_NS_MAX		1000000000U
/* Live timeouts one open /dev/twheel file may hold. */
#define TWHEEL_MAX_PENDING_DEFAULT	1048576U
#define TWHEEL_MAX_PENDING_MAX		67108864U
/* Callbacks one hrtimer run may call before it yields the CPU. */
#define TWHEEL_EXPIRE_BUDGET_DEFAULT	256U
#define TWHEEL_EXPIRE_BUDGET_MIN	8U
#define TWHEEL_EXPIRE_BUDGET_MAX	65536U

unsigned int twheel_param_tick_ns = TWHEEL_TICK_NS_DEFAULT;
unsigned int twheel_param_max_pending = TWHEEL_MAX_PENDING_DEFAULT;
unsigned int twheel_param_expire_budget = TWHEEL_EXPIRE_BUDGET_DEFAULT;

static int param_set_ranged(const char *val, const struct kernel_param *kp,
			    unsigned int min, unsigned int max)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	if (v < min || v > max) {
		pr_err("%s=%u out of range [%u, %u]\n", kp->name, v, min, max);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int param_set_tick_ns(const char *val, const struct kernel_param *kp)
{
	return param_set_ranged(val, kp, TWHEEL_TICK_NS_MIN, TWHEEL_TICK_NS_MAX);
}

static int param_set_max_pending(const char *val, const struct kernel_param *kp)
{
	return param_set_ranged(val, kp, 1, TWHEEL_MAX_PENDING_MAX);
}

static int param_set_expire_budget(const char *val,
				   const struct kernel_param *kp)
{
	return param_set_ranged(val, kp, TWHEEL_EXPIRE_BUDGET_MIN,
				TWHEEL_EXPIRE_BUDGET_MAX);
}

static const struct kernel_param_ops tick_ns_ops = {
	.set = param_set_tick_ns,
	.get = param_get_uint,
};

static const struct kernel_param_ops max_pending_ops = {
	.set = param_set_max_pending,
	.get = param_get_uint,
};

static const struct kernel_param_ops expire_budget_ops = {
	.set = param_set_expire_budget,
	.get = param_get_uint,
};

module_param_cb(tick_ns, &tick_ns_ops, &twheel_param_tick_ns, 0444);
MODULE_PARM_DESC(tick_ns, "Wheel tick in ns, 50000..1000000000 (default 1000000)");
module_param_cb(max_pending, &max_pending_ops, &twheel_param_max_pending, 0444);
MODULE_PARM_DESC(max_pending, "Live timeouts per open /dev/twheel file, 1..67108864 (default 1048576)");
module_param_cb(expire_budget, &expire_budget_ops,
		&twheel_param_expire_budget, 0444);
MODULE_PARM_DESC(expire_budget, "Callbacks per hrtimer run before yielding, 8..65536 (default 256)");

static int __init twheel_init(void)
{
	int ret;

	ret = twheel_wheel_init();
	if (ret)
		return ret;
	ret = twheel_dev_init();
	if (ret)
		goto err_wheel_exit;
	pr_info("loaded: tick %u ns, /dev/twheel ready\n", twheel_param_tick_ns);
	return 0;

err_wheel_exit:
	twheel_wheel_exit();
	return ret;
}

static void __exit twheel_exit(void)
{
	twheel_dev_exit();
	twheel_wheel_exit();
	pr_info("unloaded\n");
}

module_init(twheel_init);
module_exit(twheel_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-CPU hierarchical timing wheel with a /dev/twheel interface");
MODULE_AUTHOR("The twheel developers");
