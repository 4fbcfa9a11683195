// SPDX-License-Identifier: GPL-2.0
/*
 * compat_test.c - run the 32-bit build of the suite's compat tests
 *
 * The tests of the 32-bit ioctl path (.compat_ioctl) are in compat32.c,
 * built with -m32 as twheel-compat32 next to this program when the
 * compiler can. This wrapper execs it with the 64-bit layout of every
 * structure in the environment (compat_layout.h), for it to compare with
 * its own; if it was not built, or the kernel runs no 32-bit programs (no
 * IA32_EMULATION), it reports a skip in TAP (with kselftest.h, the
 * kselftest harness's reporting half).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest.h"
#include "compat_layout.h"

#define HELPER	"twheel-compat32"

int main(int argc, char **argv)
{
	char path[PATH_MAX], layout[8192];
	const char *why;
	ssize_t len;
	char *slash;

	(void)argc;
	if (tw_layout_text(layout, sizeof(layout)) >= sizeof(layout) ||
	    setenv(TW_LAYOUT_ENV, layout, 1)) {
		ksft_print_header();
		ksft_set_plan(1);
		ksft_test_result_fail("compat32: cannot pass the 64-bit layout\n");
		ksft_finished();
	}
	len = readlink("/proc/self/exe", path, sizeof(path) - sizeof(HELPER));
	if (len < 0)
		len = 0;
	path[len] = '\0';
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, HELPER);
	execv(path, argv);

	why = errno == ENOENT ? "not built (the compiler has no -m32)" :
	      errno == ENOEXEC ? "this kernel runs no 32-bit programs" :
	      strerror(errno);
	ksft_print_header();
	ksft_set_plan(1);
	ksft_test_result_code(KSFT_SKIP, "compat32", "%s: %s", HELPER, why);
	ksft_finished();
}
