// SPDX-License-Identifier: GPL-2.0
/*
 * MODULE_IMPORT_NS("NS") takes a string literal since 6.13 (before, an
 * identifier that it stringified).  Both forms compile either way, so the
 * probe catches what the macro hands to MODULE_INFO(): the literal itself
 * (6.13+: "import_ns=NS") or its stringified form ("import_ns=\"NS\"").
 */
#include <linux/build_bug.h>
#include <linux/module.h>

#undef MODULE_INFO
#define MODULE_INFO(tag, info) static_assert(sizeof(#tag "=" info) == sizeof("import_ns=NS"))
MODULE_IMPORT_NS("NS");
