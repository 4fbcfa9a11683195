# SPDX-License-Identifier: GPL-2.0
#
# ksft.mk - where the kernel's kselftest_harness.h comes from, for every
# test program built on it (userspace-test/, lib/tests/; included by their
# Makefiles from their own directories).  The sources include
# "../kselftest_harness.h", as the kernel's selftests do; KSFT_DIR, a
# kernel tree's tools/testing/selftests, defaults to the linux-source-6.12
# tree the harness extracts (scripts/debug-kernel.sh --source), and
# "-I$(KSFT_DIR)/kselftest" makes the include resolve there.  Sets
# KSFT_HEADERS (for dependencies) and adds to CFLAGS.

KSFT_MK_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifeq ($(origin KSFT_DIR),undefined)
KSFT_DIR := $(shell TWHEEL_DEBUG_SERIES=6.12 $(KSFT_MK_DIR)../scripts/debug-kernel.sh --source)/tools/testing/selftests
endif
ifeq ($(wildcard $(KSFT_DIR)/kselftest_harness.h),)
$(error no kselftest_harness.h in KSFT_DIR=$(KSFT_DIR): run scripts/deps.sh (linux-source-6.12) or set KSFT_DIR to a kernel tree's tools/testing/selftests)
endif
endif
KSFT_HEADERS := $(KSFT_DIR)/kselftest_harness.h $(KSFT_DIR)/kselftest.h
# -Wextra reports two things of kselftest_harness.h itself in every test
# file: parameters its TEST() wrapper and timeout handler leave unused, and
# a local of its TEST_F() wrapper that setjmp() might clobber.
KSFT_CFLAGS := -I$(KSFT_DIR)/kselftest -Wno-unused-parameter -Wno-clobbered
