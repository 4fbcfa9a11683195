# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Guest payload of `make demo`: load twheel.ko, show that it is loaded and
# where /dev/twheel is, run /tests/twheel-demo when there is one (the demo
# fails if it does), unload.
# Everything the user should read goes to the results channel (fd 3) as the
# "text demo" block, which scripts/demo.sh prints.
# shellcheck source=scripts/guest/lib.sh
. /lib/twheel-guest.sh

show() {
	echo "\$ $*"
	"$@" 2>&1
}

demo() {
	prog_rc=0
	echo "Kernel: Linux $(uname -r) in QEMU, $(grep -c ^processor /proc/cpuinfo) CPUs"
	echo
	echo "Loading the module:"
	if ! show insmod /lib/twheel/twheel.ko; then
		echo "RESULT: insmod failed; see the kernel messages below."
		dmesg | grep -i twheel
		return 1
	fi
	echo
	echo "twheel is loaded (from /proc/modules):"
	show grep twheel /proc/modules
	echo
	echo "Its kernel messages:"
	dmesg | grep 'twheel' | sed 's/^/  /'
	echo
	echo "The device userspace opens is /dev/twheel (a misc character device):"
	show ls -l /dev/twheel
	show cat /sys/class/misc/twheel/dev
	echo
	echo "Module parameters (read-only, /sys/module/twheel/parameters/):"
	for p in /sys/module/twheel/parameters/*; do
		[ -e "$p" ] && echo "  $(basename "$p") = $(cat "$p")"
	done
	if [ -x /tests/twheel-demo ]; then
		echo
		echo "Running the demo program (samples/twheel-demo.c):"
		show timeout 60 /tests/twheel-demo
		prog_rc=$?
		echo "(twheel-demo exited with status $prog_rc)"
		echo
		echo "The wheel's own per-CPU statistics (debugfs):"
		show cat /sys/kernel/debug/twheel/stats
	fi
	echo
	echo "Unloading:"
	show rmmod twheel || return 1
	if [ -e /dev/twheel ] || [ -e /sys/module/twheel ]; then
		echo "RESULT: twheel still present after rmmod"
		return 1
	fi
	echo "twheel unloaded; /dev/twheel is gone."
	if [ "$prog_rc" != 0 ]; then
		echo "RESULT: twheel-demo failed (status $prog_rc)"
		return 1
	fi
	return 0
}

demo >/tmp/demo.txt 2>&1
rc=$?
emit_file text demo /tmp/demo.txt
cat /tmp/demo.txt
echo "@@ STEP demo $([ "$rc" = 0 ] && echo pass || echo fail) rc=$rc" >&3
exit "$rc"
