// SPDX-License-Identifier: GPL-2.0
/*
 * hrtimer_setup(timer, function, clock, mode): since 6.13; hrtimer_init()
 * (and setting ->function by hand) is gone since 6.15.
 */
#include <linux/hrtimer.h>

static enum hrtimer_restart twheel_probe_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void twheel_probe(struct hrtimer *t);
void twheel_probe(struct hrtimer *t)
{
	hrtimer_setup(t, twheel_probe_fn, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_SOFT);
}
