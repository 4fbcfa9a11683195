// SPDX-License-Identifier: GPL-2.0
/* Compiles against every kernel: proves the probe machinery itself works. */
#include <linux/module.h>

int twheel_probe(void);
int twheel_probe(void)
{
	return 0;
}
