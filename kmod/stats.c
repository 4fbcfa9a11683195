// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - debugfs statistics of the wheel: /sys/kernel/debug/twheel/stats
 *
 * One line of counters per possible CPU, read from a snapshot taken under
 * that CPU's base lock (twheel_stats_snapshot()), then a total line. The
 * file has no lock of its own.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "twheel_internal.h"
#include "wheel_internal.h"

static struct dentry *twheel_debugfs_dir;

static void add_stats(struct twheel_stats *sum, const struct twheel_stats *s)
{
	sum->pending += s->pending;
	sum->armed += s->armed;
	sum->rearmed += s->rearmed;
	sum->cancelled += s->cancelled;
	sum->expired += s->expired;
	sum->cascaded += s->cascaded;
	sum->migrated += s->migrated;
	sum->hrtimer_fires += s->hrtimer_fires;
	sum->ticks_skipped += s->ticks_skipped;
	sum->max_late_ns = max(sum->max_late_ns, s->max_late_ns);
	sum->max_cb_ns = max(sum->max_cb_ns, s->max_cb_ns);
}

static void show_row(struct seq_file *m, const char *name,
		     const struct twheel_stats *s)
{
	seq_printf(m, "%-5s %9llu %10llu %10llu %10llu %10llu %10llu %8llu %10llu %12llu %12llu %10llu\n",
		   name, s->pending, s->armed, s->rearmed, s->cancelled,
		   s->expired, s->cascaded, s->migrated, s->hrtimer_fires,
		   s->ticks_skipped, s->max_late_ns, s->max_cb_ns);
}

static int stats_show(struct seq_file *m, void *v)
{
	struct twheel_stats sum = {}, s;
	char name[16];
	unsigned int cpu;

	seq_printf(m, "tick_ns %u\n", twheel_param_tick_ns);
	seq_puts(m, "cpu     pending      armed    rearmed  cancelled    expired   cascaded migrated     hrtimer ticks_skipped  max_late_ns    max_cb_ns\n");
	for_each_possible_cpu(cpu) {
		twheel_stats_snapshot(cpu, &s);
		snprintf(name, sizeof(name), "%u", cpu);
		show_row(m, name, &s);
		add_stats(&sum, &s);
	}
	show_row(m, "all", &sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

int twheel_stats_init(void)
{
	twheel_debugfs_dir = debugfs_create_dir("twheel", NULL);
	debugfs_create_file("stats", 0444, twheel_debugfs_dir, NULL,
			    &stats_fops);
	return 0;
}

void twheel_stats_exit(void)
{
	debugfs_remove_recursive(twheel_debugfs_dir);
}
