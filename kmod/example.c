// SPDX-License-Identifier: GPL-2.0
/* example.c - placeholder until the example client lands */
#include <linux/module.h>

#include "twheel.h"

static int __init twheel_example_init(void)
{
	pr_info("twheel example: tick %llu ns\n", twheel_tick_ns());
	return 0;
}

static void __exit twheel_example_exit(void)
{
}

module_init(twheel_example_init);
module_exit(twheel_example_exit);
MODULE_LICENSE("GPL");
