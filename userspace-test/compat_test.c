// SPDX-License-Identifier: GPL-2.0
/*
 * compat_test.c - run the 32-bit build of the suite's compat tests
 *
 * The tests of the 32-bit ioctl path (.compat_ioctl) are in compat32.c,
 * built with -m32 as twheel-compat32 next to this program when the
 * compiler can. This wrapper execs it; if it was not built, or the kernel
 * runs no 32-bit programs (no IA32_EMULATION), it reports a skip in TAP.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define HELPER	"twheel-compat32"

int main(int argc, char **argv)
{
	char path[PATH_MAX];
	const char *why;
	ssize_t len;
	char *slash;

	(void)argc;
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
	printf("TAP version 13\n1..1\n");
	printf("ok 1 compat32 # SKIP %s: %s\n", HELPER, why);
	printf("# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:1 error:0\n");
	return 0;
}
