# SPDX-License-Identifier: GPL-2.0
#
# twheel: top-level Makefile.
#   make              build kmod/twheel.ko against KDIR (default: the running kernel)
#   make samples      also the example client module and samples/ programs
#   make demo         boot Debian's stock 6.12 kernel (DEMO_KERNEL=) in QEMU with the module loaded
#   make check        static checks + QEMU guests; last line "N passed, N failed"
#   make vmtest       fast developer loop: one kernel, one boot, results
#   make check-harness  prove the harness reports deliberate failures
#   make stress       the long runs: fuzzer, hotplug and lifecycle churn at full size
#   make mutants      plant bugs in copies of the module: each meant test must fail
#   make deps         install the Debian packages the harness needs
#   make debug-kernel build (or reuse) a cached built kernel (KERNEL=, default debug)
#   make clean        remove build products from the source tree
#   make distclean    also remove build/, userspace-test/out/ and samples/out/
#   make install      module (modules_install + depmod), ABI header, udev rule,
#                     modules-load.d, modprobe.d example, libtwheel, CLI, man
#                     pages, the Python binding; DESTDIR, KDIR, PREFIX
#                     honoured; make uninstall
#   make dkms-install module source to /usr/src, dkms add/build/install, udev
#                     rule and friends; make dkms-uninstall
#   make deb          Debian packages into build/deb/ (packaging/debian)
#   make check-install  make deb, apt-get install, DKMS, modprobe in guests
# Documentation/testing.rst explains the harness and its variables.

KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(CURDIR)

# Harness variables (see Documentation/testing.rst).
# KERNELS empty = every kernel of scripts/kernels.conf (the kernel matrix).
KERNELS ?=
SUITES ?= static kunit example userspace harness install
KERNEL ?= debug
VMTEST_SUITES ?= kunit example userspace
TESTS ?=
KUNIT_FILTER ?=
SHOW ?= 0

CHECK_OPTS = $(if $(TESTS),--tests '$(TESTS)') \
	     $(if $(KUNIT_FILTER),--kunit-filter '$(KUNIT_FILTER)') \
	     $(if $(filter 1,$(SHOW)),--show)

.PHONY: all modules samples clean distclean check check-harness vmtest demo deps debug-kernel

all: modules

modules:
	@if [ ! -d "$(KDIR)" ]; then \
		echo "twheel: no kernel build tree at $(KDIR): run 'make KDIR=/path/to/linux-headers' or use 'make check' / 'make demo' (QEMU)"; \
		exit 2; \
	fi
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# The example client module (samples/twheel_example.ko) with twheel.ko, and
# the userspace samples into samples/out/.
samples:
	$(MAKE) modules TWHEEL_SAMPLES=1
	$(MAKE) -C samples

clean:
	@if [ -d "$(KDIR)" ]; then $(MAKE) -C $(KDIR) M=$(PWD) TWHEEL_SAMPLES=1 clean; fi
	rm -f kmod/*.o kmod/*.ko kmod/*.mod kmod/*.mod.c kmod/.*.cmd kmod/tests/*.o kmod/tests/.*.cmd \
	      Module.symvers modules.order

distclean: clean
	rm -rf build userspace-test/out samples/out lib/out cli/out man/out

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
	@scripts/debug-kernel.sh --kernel '$(KERNEL)'

# make bench: twheel against timerfd, io_uring, POSIX timers, timer_list and
# hrtimer in one QEMU guest (Documentation/benchmarks.rst); QUICK=1 is the
# short run. Everything of the benchmark is in bench/ (src/: twbench,
# kmod/: twheel_bench.ko, scripts/); bench/scripts/bench.sh does everything.
QUICK ?= 0
.PHONY: bench
bench:
	@QUICK=$(QUICK) bench/scripts/bench.sh

# ---------------------------------------------------------------------------
# Installing on a real host: make install / uninstall,
# make dkms-install / dkms-uninstall, make deb, make check-install.
# The files they install live in packaging/; the library in lib/, the CLI
# in cli/, the man pages' sources in man/.

# twheel's one version (module, library, pkg-config, packages, CLI).
TWHEEL_VERSION := $(shell cat kmod/VERSION)
PREFIX ?= /usr
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
UDEVRULESDIR ?= /lib/udev/rules.d
PYTHONDIR ?= /usr/lib/python3/dist-packages
MODULESLOADDIR ?= /usr/lib/modules-load.d
MODPROBEDIR ?= /etc/modprobe.d
DKMS_SRCDIR ?= /usr/src/twheel-$(TWHEEL_VERSION)
# Who may open /dev/twheel: the one place to change it (see
# packaging/60-twheel.rules.in for why the default is 0666).
TWHEEL_GROUP ?= root
TWHEEL_MODE ?= 0666

PKG_OUT := build/pkg
# The kernel release of KDIR (what depmod and /lib/modules are keyed by):
# UTS_RELEASE, as modules_install uses it (Debian's headers have the upstream
# version in include/config/kernel.release, e.g. 6.1.192 for 6.1.0-57-amd64).
KRELEASE = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
# Module source tree for DKMS: what `make modules` needs for twheel.ko alone
# (no samples/: the top-level Kbuild builds them only when asked), and
# none of the last build's products, kmod/compat-generated/ (probe results of
# one kernel) included. packaging/dkms-test.sh checks the list.
DKMS_FILES = Kbuild Makefile kmod uapi
DKMS_EXCLUDE = '*.o' '*.ko' '*.mod' '*.mod.c' '.*.cmd' '.*.d' '*.a' modules.order \
	       Module.symvers compat-generated
LIB_VARS = PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) DESTDIR=$(DESTDIR)

.PHONY: lib cli man install install-module install-data install-python install-dkms-source \
	uninstall dkms-install dkms-uninstall deb check-install

lib:
	$(MAKE) -C lib $(LIB_VARS)

cli: lib
	$(MAKE) -C cli

man:
	$(MAKE) -C man

# Generated on every use: TWHEEL_GROUP/TWHEEL_MODE may differ between runs.
.PHONY: FORCE
$(PKG_OUT)/60-twheel.rules: packaging/60-twheel.rules.in FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@GROUP@|$(TWHEEL_GROUP)|g' -e 's|@MODE@|$(TWHEEL_MODE)|g' $< >$@

$(PKG_OUT)/dkms.conf: packaging/dkms.conf.in FORCE
	@mkdir -p $(dir $@)
	sed -e 's|@VERSION@|$(TWHEEL_VERSION)|g' $< >$@

install: install-module install-data install-python
	$(MAKE) -C lib install $(LIB_VARS)
	$(MAKE) -C cli install DESTDIR=$(DESTDIR) BINDIR=$(BINDIR)
	$(MAKE) -C man install DESTDIR=$(DESTDIR) MANDIR=$(MANDIR)

# modules_install into updates/twheel/ (DKMS uses updates/dkms/, so the two
# never remove each other's module); it installs every module of the tree; only twheel.ko is for
# hosts (the example client module is for tests), so the others are removed.
# depmod runs for the installed tree only when DESTDIR is empty (packagers
# run it on the target).
install-module: modules
	@[ -n "$(KRELEASE)" ] || { echo "twheel: no UTS_RELEASE in $(KDIR)/include/generated/utsrelease.h"; exit 2; }
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates/twheel modules_install
	find $(DESTDIR)/lib/modules/$(KRELEASE)/updates/twheel -name 'twheel_*.ko*' -delete
	@if [ -z "$(DESTDIR)" ]; then echo depmod -a $(KRELEASE); depmod -a $(KRELEASE); fi

# Everything but the module and the library: ABI header, udev rule,
# modules-load.d entry, commented modprobe.d example.
install-data: $(PKG_OUT)/60-twheel.rules
	install -D -m 0644 uapi/linux/twheel.h $(DESTDIR)$(INCLUDEDIR)/linux/twheel.h
	install -D -m 0644 $(PKG_OUT)/60-twheel.rules $(DESTDIR)$(UDEVRULESDIR)/60-twheel.rules
	install -D -m 0644 packaging/modules-load.conf $(DESTDIR)$(MODULESLOADDIR)/twheel.conf
	install -D -m 0644 packaging/modprobe.conf $(DESTDIR)$(MODPROBEDIR)/twheel.conf

# The Python binding (python/twheel.py, ctypes over libtwheel.so.1).
install-python:
	install -D -m 0644 python/twheel.py $(DESTDIR)$(PYTHONDIR)/twheel.py

uninstall:
	@if [ -n "$(KRELEASE)" ]; then \
		rm -rf $(DESTDIR)/lib/modules/$(KRELEASE)/updates/twheel; \
		if [ -z "$(DESTDIR)" ]; then depmod -a $(KRELEASE); fi; \
	fi
	rm -f $(DESTDIR)$(INCLUDEDIR)/linux/twheel.h $(DESTDIR)$(UDEVRULESDIR)/60-twheel.rules \
	      $(DESTDIR)$(PYTHONDIR)/twheel.py \
	      $(DESTDIR)$(MODULESLOADDIR)/twheel.conf $(DESTDIR)$(MODPROBEDIR)/twheel.conf
	$(MAKE) -C lib uninstall $(LIB_VARS)
	$(MAKE) -C cli uninstall DESTDIR=$(DESTDIR) BINDIR=$(BINDIR)
	$(MAKE) -C man uninstall DESTDIR=$(DESTDIR) MANDIR=$(MANDIR)

# The module's source tree as DKMS wants it, in $(DESTDIR)$(DKMS_SRCDIR).
install-dkms-source: $(PKG_OUT)/dkms.conf
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)
	install -d $(DESTDIR)$(DKMS_SRCDIR)
	tar -cf - $(addprefix --exclude=,$(DKMS_EXCLUDE)) $(DKMS_FILES) | \
		tar -xf - -C $(DESTDIR)$(DKMS_SRCDIR)
	install -m 0644 $(PKG_OUT)/dkms.conf $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf

# DKMS builds and installs the module for KDIR's kernel now and for every
# kernel installed later (with its headers). Run again, it replaces what the
# last run added (dkms add refuses a version it already has).
dkms-install: install-dkms-source install-data
	@if [ -n "$$(dkms status -m twheel -v $(TWHEEL_VERSION))" ]; then \
		echo dkms remove -m twheel -v $(TWHEEL_VERSION) --all; \
		dkms remove -m twheel -v $(TWHEEL_VERSION) --all; \
	fi
	dkms add -m twheel -v $(TWHEEL_VERSION)
	dkms install -m twheel -v $(TWHEEL_VERSION) $(if $(KRELEASE),-k $(KRELEASE))

dkms-uninstall:
	-dkms remove -m twheel -v $(TWHEEL_VERSION) --all
	rm -rf $(DKMS_SRCDIR)
	rm -f $(INCLUDEDIR)/linux/twheel.h $(UDEVRULESDIR)/60-twheel.rules \
	      $(MODULESLOADDIR)/twheel.conf $(MODPROBEDIR)/twheel.conf

deb:
	@scripts/deb.sh

# The install suite alone; its guests boot the stock kernels (5.10, 6.1 and
# 6.12, or those of KERNELS).
check-install:
	@scripts/check.sh --kernels "$(or $(filter 5.10 6.1 6.12,$(KERNELS)),5.10 6.1 6.12)" --suites install $(CHECK_OPTS)

# make stress: the long runs: userspace-test/fuzz_test,
# hotplug_test's churn_full_size and module_test's load_unload_full_size at
# full size, in a stock 6.12 guest and a debug guest (STRESS_KERNELS,
# STRESS_TESTS="fuzz hotplug module"); FUZZ_SEED, FUZZ_OPS, FUZZ_THREADS,
# HOTPLUG_CYCLES, HOTPLUG_TIMEOUTS, MODULE_CYCLES to choose, e.g. to replay
# a seed. scripts/stress.sh does everything.
.PHONY: stress
stress:
	@STRESS_KERNELS='$(STRESS_KERNELS)' STRESS_TESTS='$(STRESS_TESTS)' \
	 FUZZ_SEED='$(FUZZ_SEED)' FUZZ_OPS='$(FUZZ_OPS)' FUZZ_THREADS='$(FUZZ_THREADS)' \
	 HOTPLUG_CYCLES='$(HOTPLUG_CYCLES)' HOTPLUG_TIMEOUTS='$(HOTPLUG_TIMEOUTS)' \
	 MODULE_CYCLES='$(MODULE_CYCLES)' scripts/stress.sh

# make mutants: each scripts/mutants/*.patch plants one bug in a copy of the
# module and runs only the test meant to catch it; passes when every one of
# those tests fails (MUTANTS="name ..." to choose). Not part of make check
# (a module build and a guest per mutant). scripts/mutants.sh does everything.
.PHONY: mutants
mutants:
	@MUTANTS='$(MUTANTS)' scripts/mutants.sh
