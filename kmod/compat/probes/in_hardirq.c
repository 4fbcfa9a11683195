// SPDX-License-Identifier: GPL-2.0
/*
 * in_hardirq() (5.11); before, the same test was called in_irq().
 */
#include <linux/preempt.h>

int twheel_probe(void);
int twheel_probe(void)
{
	return in_hardirq() ? 1 : 0;
}
