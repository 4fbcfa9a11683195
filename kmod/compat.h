/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the newest kernel API on every kernel twheel supports.
 *
 * The rest of kmod/ is written against the newest kernel (7.2 when this was
 * written): it calls hrtimer_setup(), MODULE_IMPORT_NS("NS") and so on, and
 * includes this file.  On an older kernel, this file provides what is
 * missing, decided by the feature probes of compat/Kbuild.include (the
 * TWHEEL_HAVE_* macros of the generated twheel_compat_probes.h), never by
 * LINUX_VERSION_CODE: a distribution kernel that backported an API gets the
 * real one.  Every shim names the probe that decides it and the kernel that
 * brought the API.
 */
#ifndef _TWHEEL_COMPAT_H
#define _TWHEEL_COMPAT_H

#include <linux/build_bug.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/sched/isolation.h>
#include <linux/smp.h>

#include "twheel_compat_probes.h"

/*
 * hrtimer_setup() (6.13; hrtimer_init() is gone since 6.15).
 * Probe: compat/probes/hrtimer_setup.c.
 */
#ifndef TWHEEL_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*function)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}
#endif

/*
 * MODULE_IMPORT_NS("NS") takes a string literal (6.13); before, the macro
 * stringified an identifier.  modpost compares the import_ns= text with the
 * namespace of the export, so give it the bare name on old kernels too.
 * Probe: compat/probes/module_import_ns_string.c.
 */
#ifndef TWHEEL_HAVE_MODULE_IMPORT_NS_STRING
#undef MODULE_IMPORT_NS
#define MODULE_IMPORT_NS(ns) MODULE_INFO(import_ns, ns)
#endif

/*
 * <kunit/visibility.h> (6.2): without it there is no KUnit build of twheel
 * either, so the macros take their !CONFIG_KUNIT meaning: static, and no
 * export (a declaration that only names the symbol, so the ';' after it
 * stays valid).
 * Probe: compat/probes/kunit_visibility.c.
 */
#ifdef TWHEEL_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#else
#define VISIBLE_IF_KUNIT static
#define EXPORT_SYMBOL_IF_KUNIT twheel_no_export
#define twheel_no_export(symbol) \
	static_assert(!__builtin_types_compatible_p(typeof(symbol), void))
#endif

/*
 * INIT_CSD() (5.11); before, ->func and ->info of the csd were set by hand.
 * Probe: compat/probes/init_csd.c.
 */
#ifndef TWHEEL_HAVE_INIT_CSD
#define INIT_CSD(_csd, _func, _info)					\
	(*(_csd) = (struct __call_single_data){ .func = (_func), .info = (_info) })
#endif

/*
 * in_hardirq() (5.11); before, in_irq().
 * Probe: compat/probes/in_hardirq.c.
 */
#ifndef TWHEEL_HAVE_IN_HARDIRQ
#define in_hardirq() in_irq()
#endif

/*
 * The housekeeping calls take an enum hk_type (5.19); before, a flag of
 * enum hk_flags, which HK_TYPE_TIMER then stands for.
 * Probe: compat/probes/hk_type_timer.c.
 */
#ifndef TWHEEL_HAVE_HK_TYPE_TIMER
#define HK_TYPE_TIMER HK_FLAG_TIMER
#endif

#endif /* _TWHEEL_COMPAT_H */
