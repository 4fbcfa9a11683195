#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-tree.sh - put twheel into a kernel source tree, as a driver of its
# own would be there:
#
#   kmod/                    -> drivers/misc/twheel/ (Kconfig, Kbuild, tests/)
#   kmod/include/linux/twheel.h -> include/linux/twheel.h (the kernel API:
#                               there it comes before the ABI header of the
#                               same name, as every such pair in a tree does)
#   uapi/linux/twheel.h      -> include/uapi/linux/twheel.h
#   drivers/misc/Kconfig     gains: source "drivers/misc/twheel/Kconfig"
#   drivers/misc/Makefile    gains: obj-$(CONFIG_TWHEEL) += twheel/
#
# Running it again refreshes the copy and adds nothing twice. Then, in the
# tree, for example:
#   ./tools/testing/kunit/kunit.py run --arch=x86_64 \
#       --kunitconfig=drivers/misc/twheel/tests --qemu_args="-smp 2"
# (Documentation/testing.rst, "In a kernel tree").
#
# Usage: scripts/kernel-tree.sh KERNEL_SOURCE_DIR
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

# Append line $2 to file $1 unless it is there; before the file's last
# "endmenu" when it has one (drivers/misc/Kconfig does).
add_line() {
	local file=$1 line=$2
	grep -qxF "$line" "$file" && return 0
	if grep -qx endmenu "$file"; then
		awk -v add="$line" '{ l[NR] = $0 } $0 == "endmenu" { last = NR }
			END { for (i = 1; i <= NR; i++) { if (i == last) print add; print l[i] } }' \
			"$file" >"$file.twheel" && mv "$file.twheel" "$file"
	else
		printf '%s\n' "$line" >>"$file"
	fi
}

main() {
	[ $# -eq 1 ] || die "usage: scripts/kernel-tree.sh KERNEL_SOURCE_DIR"
	local ksrc=$1 dest
	if [ ! -f "$ksrc/drivers/misc/Kconfig" ] || [ ! -f "$ksrc/drivers/misc/Makefile" ]; then
		die "$ksrc is not a kernel source tree (no drivers/misc/Kconfig)"
	fi
	dest=$ksrc/drivers/misc/twheel
	rm -rf "$dest"
	mkdir -p "$dest"
	# The sources only: no objects, and no probe results of another kernel.
	tar -C "$TWHEEL_ROOT/kmod" --exclude=compat-generated --exclude='*.o' \
		--exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
		--exclude=modules.order --exclude=Module.symvers -cf - . | tar -xf - -C "$dest"
	install -m 0644 "$TWHEEL_ROOT/kmod/include/linux/twheel.h" "$ksrc/include/linux/twheel.h"
	install -m 0644 "$TWHEEL_ROOT/uapi/linux/twheel.h" "$ksrc/include/uapi/linux/twheel.h"
	add_line "$ksrc/drivers/misc/Kconfig" 'source "drivers/misc/twheel/Kconfig"'
	# shellcheck disable=SC2016 # a make variable, written as it is
	add_line "$ksrc/drivers/misc/Makefile" 'obj-$(CONFIG_TWHEEL)		+= twheel/'
	log "twheel is drivers/misc/twheel/ of $ksrc (CONFIG_TWHEEL, CONFIG_TWHEEL_KUNIT_TEST)"
}

main "$@"
