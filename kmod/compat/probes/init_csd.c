// SPDX-License-Identifier: GPL-2.0
/*
 * INIT_CSD(csd, func, info) (5.11); before, ->func and ->info were set by
 * hand.
 */
#include <linux/smp.h>

void twheel_probe(call_single_data_t *csd, smp_call_func_t fn);
void twheel_probe(call_single_data_t *csd, smp_call_func_t fn)
{
	INIT_CSD(csd, fn, csd);
}
