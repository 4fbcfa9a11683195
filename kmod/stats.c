// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - debugfs statistics of the wheel: /sys/kernel/debug/twheel/stats
 *
 * One line of counters per possible CPU, its bases of both clocks summed
 * from snapshots taken under each base's lock (tw_stats_snapshot(), also
 * what the KUnit suites read), then a total line. The counters live in the
 * bases and change under their locks; this file has no lock of its own.
 * main.c creates the file after the bases and removes it before them.
 */
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "compat.h"
#include "wheel.h"

static struct dentry *tw_debugfs_dir;

/* Add one base's counters @s to @sum; the maxima are taken, not added. */
static void tw_stats_add(struct tw_stats *sum, const struct tw_stats *s)
{
	sum->armed += s->armed;
	sum->rearmed += s->rearmed;
	sum->cancelled += s->cancelled;
	sum->expired += s->expired;
	sum->cascaded += s->cascaded;
	sum->migrated += s->migrated;
	sum->hrtimer_fires += s->hrtimer_fires;
	sum->ticks_skipped += s->ticks_skipped;
	sum->runs_cut += s->runs_cut;
	sum->max_late_ns = max(sum->max_late_ns, s->max_late_ns);
	sum->max_cb_ns = max(sum->max_cb_ns, s->max_cb_ns);
}

/**
 * tw_stats_snapshot() - copy one CPU's counters, summed over its bases
 * @cpu: a possible CPU
 * @out: where to copy them
 * @nr_pending: where to store the bases' pending count
 */
void tw_stats_snapshot(unsigned int cpu, struct tw_stats *out,
		       unsigned long *nr_pending)
{
	enum tw_clock clock;
	unsigned long flags;

	memset(out, 0, sizeof(*out));
	*nr_pending = 0;
	for (clock = 0; clock < TW_NR_CLOCKS; clock++) {
		struct tw_base *base = tw_base_of(cpu, clock);

		raw_spin_lock_irqsave(&base->lock, flags);
		tw_stats_add(out, &base->stats);
		*nr_pending += base->nr_pending;
		raw_spin_unlock_irqrestore(&base->lock, flags);
	}
}
EXPORT_SYMBOL_IF_KUNIT(tw_stats_snapshot);

static void show_row(struct seq_file *m, const char *name,
		     unsigned long pending, const struct tw_stats *s)
{
	seq_printf(m, "%-5s %9lu %10llu %10llu %10llu %10llu %10llu %8llu %10llu %12llu %8llu %12llu %10llu\n",
		   name, pending, s->armed, s->rearmed, s->cancelled,
		   s->expired, s->cascaded, s->migrated, s->hrtimer_fires,
		   s->ticks_skipped, s->runs_cut, s->max_late_ns, s->max_cb_ns);
}

static int stats_show(struct seq_file *m, void *v)
{
	struct tw_stats sum = {}, s;
	unsigned long pending, all = 0;
	char name[16];
	unsigned int cpu;

	seq_printf(m, "tick_ns %llu\n", twheel_tick_ns());
	seq_puts(m, "cpu     pending      armed    rearmed  cancelled    expired   cascaded migrated     hrtimer ticks_skipped runs_cut  max_late_ns    max_cb_ns\n");
	for_each_possible_cpu(cpu) {
		tw_stats_snapshot(cpu, &s, &pending);
		snprintf(name, sizeof(name), "%u", cpu);
		show_row(m, name, pending, &s);
		tw_stats_add(&sum, &s);
		all += pending;
	}
	show_row(m, "all", all, &sum);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

/**
 * tw_stats_init() - create /sys/kernel/debug/twheel/stats
 *
 * debugfs failures are not errors: the module works without its statistics.
 */
void tw_stats_init(void)
{
	tw_debugfs_dir = debugfs_create_dir("twheel", NULL);
	debugfs_create_file("stats", 0444, tw_debugfs_dir, NULL, &stats_fops);
}

/**
 * tw_stats_exit() - remove the debugfs directory
 */
void tw_stats_exit(void)
{
	debugfs_remove_recursive(tw_debugfs_dir);
}
