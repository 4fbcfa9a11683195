// SPDX-License-Identifier: GPL-2.0
/*
 * <kunit/visibility.h>: VISIBLE_IF_KUNIT and EXPORT_SYMBOL_IF_KUNIT()
 * (6.2; Debian's 6.1 has it from the stable series).
 */
#include <linux/compiler_attributes.h>
#include <linux/export.h>
#include <kunit/visibility.h>

VISIBLE_IF_KUNIT int twheel_probe(void);
VISIBLE_IF_KUNIT int __maybe_unused twheel_probe(void)
{
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_probe);
