// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * pkgconfig_test.c - a program as a user of the installed packages writes it
 *
 * `make check-install` builds it on the host with
 *   cc pkgconfig_test.c $(pkg-config --cflags --libs libtwheel)
 * against the installed libtwheel-dev (so it links the installed
 * libtwheel.so.1 dynamically), and runs it in guests whose twheel module
 * was built by DKMS. It arms four timeouts in one batch, cancels one,
 * pushes one back, reads the expiries and prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libtwheel.h>

#define MS	1000000ULL

static unsigned int n;
static int failed;

static void ok(int cond, const char *what)
{
	printf("%sok %u %s\n", cond ? "" : "not ", ++n, what);
	if (!cond)
		failed = 1;
}

int main(void)
{
	struct twheel_result r[4], cancel, push, bogus;
	const struct twheel_event *ev;
	struct twheel *tw;
	uint64_t start;
	int ret, i, seen[4] = { 0 }, rounds = 0, got = 0, early = 0;

	printf("TAP version 13\n1..8\n");
	ret = twheel_open(&tw, NULL, 0, 0);
	ok(ret == 0, "twheel_open");
	if (ret) {
		printf("# twheel_open: %s\n", strerror(-ret));
		return 1;
	}
	start = twheel_now_ns();
	for (i = 0; i < 4; i++)
		twheel_prep_arm(tw, i, (uint64_t)(i + 1) * 20 * MS, 0, 0, 0, &r[i]);
	ret = twheel_flush(tw);
	ok(ret == 4 && !r[0].result && !r[1].result && !r[2].result && !r[3].result,
	   "four arms in one batch");
	twheel_prep_cancel(tw, r[1].handle, 0, &cancel);
	twheel_prep_rearm(tw, r[3].handle, 150 * MS, 0, &push);
	twheel_prep_cancel(tw, 0x1234567ULL << 32, 0, &bogus);
	ret = twheel_flush(tw);
	ok(ret == 3 && cancel.result == 0 && push.result == 0,
	   "cancel and re-arm in one batch");
	ok(bogus.result == -ENOENT, "a handle never handed out is -ENOENT");
	while (got < 3 && rounds++ < 10) {
		if (twheel_fill(tw) <= 0)
			break;
		twheel_for_each_event(tw, ev) {
			if (ev->cookie < 4)
				seen[ev->cookie]++;
			got++;
			printf("# cookie %llu late %llu us\n",
			       (unsigned long long)ev->cookie,
			       (unsigned long long)twheel_event_late_ns(ev) / 1000);
			if (ev->cookie == 3 && ev->expired < start + 150 * MS)
				early = 1;
		}
	}
	ok(seen[0] == 1 && seen[2] == 1 && seen[3] == 1, "three expiries read");
	ok(seen[1] == 0, "the cancelled timeout never fires");
	ok(got == 3, "nothing else was read");
	twheel_close(tw);
	ok(!early, "the pushed-back timeout fired after its new deadline");
	return failed;
}
