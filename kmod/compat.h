/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - shims that let the rest of twheel call the newest kernel API
 *
 * Temporary version-based shims; replaced by Kbuild feature probes.
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns)	MODULE_INFO(import_ns, ns)
#endif

#endif /* _TWHEEL_COMPAT_H */
