/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_internal.h - declarations shared by the files of twheel.ko
 *
 * Nothing here is part of the kernel API (that is twheel.h) or of the
 * userspace ABI (that is uapi/linux/twheel.h).
 */
#ifndef _TWHEEL_INTERNAL_H
#define _TWHEEL_INTERNAL_H

#include <linux/types.h>

/* Module parameters, validated when set (main.c). */
extern unsigned int twheel_param_tick_ns;
extern unsigned int twheel_param_max_pending;
extern unsigned int twheel_param_expire_budget;

struct twheel_timeout;

int twheel_arm_abs_now(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns,
		       int cpu);
int twheel_rearm_abs_now(struct twheel_timeout *t, u64 deadline_ns,
			 u64 now_ns, int cpu);
int twheel_wheel_init(void);
void twheel_wheel_exit(void);
int twheel_dev_init(void);
void twheel_dev_exit(void);

#endif /* _TWHEEL_INTERNAL_H */
