// SPDX-License-Identifier: GPL-2.0
/*
 * The housekeeping API takes an enum hk_type (HK_TYPE_TIMER, 5.19); before,
 * a flag of enum hk_flags (HK_FLAG_TIMER).
 */
#include <linux/sched/isolation.h>

bool twheel_probe(int cpu);
bool twheel_probe(int cpu)
{
	return housekeeping_cpu(cpu, HK_TYPE_TIMER);
}
