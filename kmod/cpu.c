// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.c - the per-CPU bases: which CPU takes a timeout, and CPU hotplug
 *
 * Every possible CPU has a base (struct tw_base, wheel.h). An arm lands on
 * the CPU its caller chose or, for TWHEEL_CPU_LOCAL, on the CPU it runs on,
 * unless that CPU is isolated from timers (isolcpus=, nohz_full=): then on a
 * housekeeping CPU, as the kernel's own timers do.
 *
 * CPU hotplug
 * -----------
 * When a CPU goes down its base stops taking timeouts, its hrtimer is
 * cancelled and every queued timeout moves to an online CPU's base, keeping
 * its tick, TW_LOCKED_CHUNK at a time with both base locks held, so no
 * interrupts-off section grows with the number of timeouts. Between chunks
 * the timeouts not yet moved stay on the old base, whose lock still guards
 * them: a cancel or re-arm meanwhile finds them there. When the CPU comes
 * back its base starts empty at the current tick.
 *
 * Locking: the bases' own locks (wheel.c); two bases are locked in CPU order.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "compat.h"
#include "wheel.h"

static struct tw_base __percpu *tw_bases;
static enum cpuhp_state tw_hp_state;

/**
 * tw_base_of() - a CPU's base
 * @cpu: a possible CPU
 *
 * Return: its base.
 */
struct tw_base *tw_base_of(unsigned int cpu)
{
	return per_cpu_ptr(tw_bases, cpu);
}

/* The CPU whose wheel takes a timeout armed with TWHEEL_CPU_LOCAL here. */
static unsigned int local_target_cpu(void)
{
	unsigned int cpu = smp_processor_id();

	if (housekeeping_cpu(cpu, HK_TYPE_TIMER))
		return cpu;
	return housekeeping_any_cpu(HK_TYPE_TIMER);
}

/**
 * tw_target_base() - base that takes a timeout armed for a CPU
 * @cpu: the chosen CPU, or TWHEEL_CPU_LOCAL
 *
 * Context: interrupts off (a base lock is held).
 * Return: the chosen CPU's base if it takes timeouts, else the local (or
 * housekeeping) one, else any online CPU's.
 */
struct tw_base *tw_target_base(int cpu)
{
	struct tw_base *new;

	if (cpu != TWHEEL_CPU_LOCAL) {
		new = tw_base_of(cpu);
		if (READ_ONCE(new->online))
			return new;
	}
	new = tw_base_of(local_target_cpu());
	if (READ_ONCE(new->online))
		return new;
	/* That CPU is going down: any other online CPU will do. */
	return tw_base_of(cpumask_any_but(cpu_online_mask, new->cpu));
}

/**
 * tw_stats_snapshot() - copy one CPU's counters
 * @cpu: a possible CPU
 * @out: where to copy them
 * @nr_pending: where to store the base's pending count
 */
void tw_stats_snapshot(unsigned int cpu, struct tw_stats *out,
		       unsigned long *nr_pending)
{
	struct tw_base *base = tw_base_of(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&base->lock, flags);
	*out = base->stats;
	*nr_pending = base->nr_pending;
	raw_spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(tw_stats_snapshot);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * tw_base_timer_armed() - does a CPU's base have its hrtimer armed
 * @cpu: a possible CPU
 *
 * Return: true if the hrtimer is queued or its callback runs.
 */
bool tw_base_timer_armed(unsigned int cpu)
{
	return hrtimer_active(&tw_base_of(cpu)->timer);
}
EXPORT_SYMBOL_IF_KUNIT(tw_base_timer_armed);
#endif

/* First queued timeout of @base, in expiry order as far as is cheap. */
static struct twheel_timeout *first_queued(struct tw_base *base)
{
	unsigned int lvl, idx;

	if (!list_empty(&base->expired))
		return list_first_entry(&base->expired, struct twheel_timeout,
					entry);
	if (!list_empty(&base->cascade))
		return list_first_entry(&base->cascade, struct twheel_timeout,
					entry);
	if (!base->levels_map)
		return NULL;
	lvl = __ffs(base->levels_map);
	idx = lvl * TW_LVL_SIZE + __ffs64(base->occupied[lvl]);
	return list_first_entry(&base->buckets[idx], struct twheel_timeout,
				entry);
}

static void lock_two(struct tw_base *a, struct tw_base *b)
	__acquires(&a->lock) __acquires(&b->lock)
{
	if (a->cpu > b->cpu)
		swap(a, b);
	raw_spin_lock_irq(&a->lock);
	raw_spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

/*
 * Move up to TW_LOCKED_CHUNK timeouts from offline @from to @to, keeping
 * their ticks. A tick at or before @to's clock is due there at once: never
 * early, since no clock is ahead of now. Return: true if some remain.
 */
static bool migrate_chunk(struct tw_base *from, struct tw_base *to)
{
	struct twheel_timeout *t = NULL;
	unsigned int n;
	bool more;

	lock_two(from, to);
	for (n = 0; n < TW_LOCKED_CHUNK; n++) {
		t = first_queued(from);
		if (!t)
			break;
		tw_dequeue(from, t);
		WRITE_ONCE(t->flags, (t->flags & ~TW_F_CPU_MASK) | to->cpu);
		tw_enqueue(to, t);
		to->stats.migrated++;
	}
	more = from->nr_pending;
	tw_program(to, tw_next_event(to));
	raw_spin_unlock(&to->lock);
	raw_spin_unlock_irq(&from->lock);
	return more;
}

static int tw_cpu_online(unsigned int cpu)
{
	struct tw_base *base = tw_base_of(cpu);

	raw_spin_lock_irq(&base->lock);
	base->clk = max(base->clk, tw_ns_to_tick_floor(ktime_get_ns()));
	base->last_fire = 0;
	base->programmed = U64_MAX;
	WRITE_ONCE(base->online, true);
	raw_spin_unlock_irq(&base->lock);
	return 0;
}

static int tw_cpu_offline(unsigned int cpu)
{
	struct tw_base *base = tw_base_of(cpu);
	unsigned int target;

	raw_spin_lock_irq(&base->lock);
	WRITE_ONCE(base->online, false);
	base->programmed = U64_MAX;
	raw_spin_unlock_irq(&base->lock);
	hrtimer_cancel(&base->timer);

	target = cpumask_any_but(cpu_online_mask, cpu);
	if (target >= nr_cpu_ids)
		return 0;
	while (migrate_chunk(base, tw_base_of(target)))
		cond_resched();
	return 0;
}

/**
 * tw_init() - set up every CPU's base and the hotplug callbacks
 *
 * Return: 0 or a negative errno.
 */
int tw_init(void)
{
	unsigned int cpu;
	int ret;

	tw_set_tick();
	tw_bases = alloc_percpu(struct tw_base);
	if (!tw_bases)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct tw_base *base = tw_base_of(cpu);

		tw_base_init(base, cpu, tw_ns_to_tick_floor(ktime_get_ns()));
		hrtimer_setup(&base->timer, tw_hrtimer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS_PINNED_SOFT);
		INIT_CSD(&base->kick_csd, tw_kick_fn, base);
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "twheel:online",
				tw_cpu_online, tw_cpu_offline);
	if (ret < 0)
		goto err_free_bases;
	tw_hp_state = ret;
	tw_stats_init();
	return 0;

err_free_bases:
	free_percpu(tw_bases);
	return ret;
}

/**
 * tw_exit() - take every base offline and free them
 *
 * No timeout may be pending: every file is closed and every client module
 * that armed one is unloaded.
 */
void tw_exit(void)
{
	unsigned int cpu;

	tw_stats_exit();
	cpuhp_remove_state(tw_hp_state);
	/* Every base is offline: no kick is sent any more; let the last end. */
	tw_kicks_drain();
	for_each_possible_cpu(cpu)
		WARN_ON_ONCE(tw_base_of(cpu)->nr_pending);
	free_percpu(tw_bases);
}
