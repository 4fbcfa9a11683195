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

#include <linux/hrtimer.h>
#include <linux/module.h>

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

#endif /* _TWHEEL_COMPAT_H */
