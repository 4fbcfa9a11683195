# SPDX-License-Identifier: GPL-2.0
#
# twheel: top-level Makefile.
#   make              build kmod/twheel.ko against KDIR (default: the running kernel)
#   make demo         boot Debian's stock 6.12 kernel in QEMU with the module loaded
#   make check        static checks + QEMU guests; last line "N passed, N failed"
#   make vmtest       fast developer loop: one kernel, one boot, results
#   make check-harness  prove the harness reports deliberate failures
#   make deps         install the Debian packages the harness needs
#   make debug-kernel build (or reuse) the cached debug test kernel
#   make clean        remove build products from the source tree
#   make distclean    also remove build/, userspace-test/out/ and samples/out/
# Documentation/testing.rst explains the harness and its variables.

KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(CURDIR)

# Harness variables (see Documentation/testing.rst).
KERNELS ?= debug 6.1 6.12
SUITES ?= static kunit example userspace harness
KERNEL ?= debug
VMTEST_SUITES ?= kunit example userspace
TESTS ?=
KUNIT_FILTER ?=
SHOW ?= 0

CHECK_OPTS = $(if $(TESTS),--tests '$(TESTS)') \
	     $(if $(KUNIT_FILTER),--kunit-filter '$(KUNIT_FILTER)') \
	     $(if $(filter 1,$(SHOW)),--show)

.PHONY: all modules clean distclean check check-harness vmtest demo deps debug-kernel

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

distclean: clean
	rm -rf build userspace-test/out samples/out

check:
	@scripts/check.sh --kernels "$(KERNELS)" --suites "$(SUITES)" $(CHECK_OPTS)

check-harness:
	@scripts/deps.sh
	@scripts/check-harness.sh

vmtest:
	@scripts/check.sh --kernels "$(KERNEL)" --suites "$(VMTEST_SUITES)" $(CHECK_OPTS)

demo:
	@scripts/demo.sh $(if $(DEMO_KERNEL),--kernel '$(DEMO_KERNEL)')

deps:
	@scripts/deps.sh

debug-kernel:
	@scripts/deps.sh
	@scripts/debug-kernel.sh

# make bench: twheel against timerfd, io_uring, POSIX timers, timer_list and
# hrtimer in one QEMU guest (Documentation/benchmarks.rst); QUICK=1 is the
# short run. Everything of the benchmark is in bench/ (src/: twbench,
# kmod/: twheel_bench.ko, scripts/); bench/scripts/bench.sh does everything.
QUICK ?= 0
.PHONY: bench
bench:
	@QUICK=$(QUICK) bench/scripts/bench.sh

# make stress: the long runs (issue 10): userspace-test/fuzz_test at full
# size in a stock 6.12 guest (1,000,000 operations) and a debug guest
# (200,000); STRESS_KERNELS, FUZZ_SEED, FUZZ_OPS, FUZZ_THREADS to choose,
# e.g. to replay a seed. scripts/stress.sh does everything.
.PHONY: stress
stress:
	@STRESS_KERNELS='$(STRESS_KERNELS)' FUZZ_SEED='$(FUZZ_SEED)' \
	 FUZZ_OPS='$(FUZZ_OPS)' FUZZ_THREADS='$(FUZZ_THREADS)' scripts/stress.sh
