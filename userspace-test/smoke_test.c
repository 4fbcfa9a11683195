// SPDX-License-Identifier: GPL-2.0
/*
 * smoke_test.c - /dev/twheel exists, is a character device and opens.
 * Prints kselftest-style TAP; exit status 0 only when every case passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failed;
static int n;

static void report(int ok, const char *what, const char *detail)
{
	n++;
	if (!ok)
		failed++;
	printf("%sok %d %s%s%s\n", ok ? "" : "not ", n, what,
	       detail ? " # " : "", detail ? detail : "");
}

int main(void)
{
	struct stat st;
	int fd;

	printf("TAP version 13\n1..2\n");
	if (stat("/dev/twheel", &st) < 0)
		report(0, "dev_twheel_is_chardev", strerror(errno));
	else
		report(S_ISCHR(st.st_mode), "dev_twheel_is_chardev", NULL);

	fd = open("/dev/twheel", O_RDWR | O_CLOEXEC);
	report(fd >= 0, "open_dev_twheel", fd < 0 ? strerror(errno) : NULL);
	if (fd >= 0)
		close(fd);

	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       n - failed, failed);
	return failed ? 1 : 0;
}
