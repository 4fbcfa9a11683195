// SPDX-License-Identifier: GPL-2.0
/* wheel.c - placeholder until the wheel lands */
#include <linux/module.h>

#include "twheel.h"
#include "twheel_internal.h"

int twheel_wheel_init(void)
{
	return 0;
}

void twheel_wheel_exit(void)
{
}

u64 twheel_tick_ns(void)
{
	return twheel_param_tick_ns;
}
EXPORT_SYMBOL_GPL(twheel_tick_ns);
