# SPDX-License-Identifier: GPL-2.0
#
# twheel: top-level Makefile.
#   make            build kmod/twheel.ko against KDIR (default: the running kernel)
#   make check      static checks + QEMU guests (see Documentation/testing.rst)
#   make demo       boot Debian's stock kernel with the module and show it working

KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(CURDIR)

.PHONY: all modules clean

all: modules

modules:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "twheel: no kernel build tree at $(KDIR): run 'make KDIR=/path/to/linux-headers' or use 'make check' / 'make demo' (QEMU)"; \
		exit 2; \
	fi
	$(MAKE) -C $(KDIR) M=$(PWD) modules

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(PWD) clean; fi
	rm -f kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd Module.symvers modules.order

# make bench: twheel against timerfd, io_uring, POSIX timers, timer_list and
# hrtimer in one QEMU guest (Documentation/benchmarks.rst); QUICK=1 is the
# short run. Owned by the benchmark; scripts/bench.sh does everything.
QUICK ?= 0
.PHONY: bench
bench:
	@QUICK=$(QUICK) scripts/bench.sh
