// SPDX-License-Identifier: GPL-2.0
/*
 * MODULE_IMPORT_NS("NS") takes a string literal since 6.13 (before, an
 * identifier that it stringified).  Both forms compile either way, so the
 * probe catches what the macro hands to MODULE_INFO(): the literal itself
 * (6.13+, sizeof 3) or its stringified form "\"NS\"" (sizeof 5).
 */
#include <linux/build_bug.h>
#include <linux/module.h>

#undef MODULE_INFO
#define MODULE_INFO(tag, info) static_assert(sizeof(info) == sizeof("NS"))
MODULE_IMPORT_NS("NS");
