// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.c - the per-CPU bases and CPU hotplug
 *
 * Every possible CPU has a base per clock (struct tw_base, wheel.h): one for
 * CLOCK_MONOTONIC timeouts, one for CLOCK_BOOTTIME ones. An arm lands on
 * the CPU its caller chose or, for TWHEEL_CPU_LOCAL, on the CPU it runs on,
 * unless that CPU is isolated from timers (isolcpus=, nohz_full=): then on a
 * housekeeping CPU, as the kernel's own timers do (tw_target_base() in
 * wheel.c, inlined into every arm).
 *
 * Queues
 * ------
 * Each base has a wheel per owner's queue (struct tw_wheel): queue 0, the
 * kernel clients', is part of the base; the others are handed to the users
 * of /dev/twheel by tw_queue_get(), the least used first, and get a wheel
 * on every base when first used, kept until the module is unloaded.
 *
 * CPU hotplug
 * -----------
 * When a CPU goes down its bases stop taking timeouts, their hrtimers are
 * cancelled and every queued timeout moves to an online CPU's base of the
 * same clock (one that takes timers: tw_other_cpu(), wheel.c), keeping
 * its tick, TW_LOCKED_CHUNK at a time with both base locks held, so no
 * interrupts-off section grows with the number of timeouts. Between chunks
 * the timeouts not yet moved stay on the old base, whose lock still guards
 * them: a cancel or re-arm meanwhile finds them there. When the CPU comes
 * back its bases start empty at the current tick.
 *
 * Locking: the bases' own locks (wheel.c); two bases are locked in CPU
 * order. tw_queue_lock (a mutex) guards the queues' user counts and their
 * installation; a base's wheel pointers change under its lock.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "wheel.h"

static enum cpuhp_state tw_hp_state;

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * tw_base_timer_armed() - does a CPU's base have its hrtimer armed
 * @cpu: a possible CPU
 * @clock: the base's clock
 *
 * Return: true if the hrtimer is queued or its callback runs.
 */
bool tw_base_timer_armed(unsigned int cpu, enum tw_clock clock)
{
	return hrtimer_active(&tw_base_of(cpu, clock)->timer);
}
EXPORT_SYMBOL_IF_KUNIT(tw_base_timer_armed);
#endif

/* First queued timeout of @w, in expiry order as far as is cheap. */
static struct twheel_timeout *first_queued(struct tw_wheel *w)
{
	unsigned int lvl, idx;

	if (!hlist_empty(&w->expired))
		return hlist_entry(w->expired.first, struct twheel_timeout,
				   entry);
	if (!hlist_empty(&w->cascade))
		return hlist_entry(w->cascade.first, struct twheel_timeout,
				   entry);
	lvl = __ffs(w->levels_map);
	idx = lvl * TW_LVL_SIZE + __ffs64(w->occupied[lvl]);
	return hlist_entry(w->buckets[idx].first, struct twheel_timeout,
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
	struct twheel_timeout *t;
	unsigned int n;
	bool more;

	lock_two(from, to);
	for (n = 0; n < TW_LOCKED_CHUNK && from->active; n++) {
		t = first_queued(from->wheels[__ffs(from->active)]);
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
	enum tw_clock clock;
	unsigned int q;

	for (clock = 0; clock < TW_NR_CLOCKS; clock++) {
		struct tw_base *base = tw_base_of(cpu, clock);
		u64 now = tw_ns_to_tick_floor(tw_clock_ns(clock));

		raw_spin_lock_irq(&base->lock);
		for (q = 0; q < TW_NR_QUEUES; q++)
			if (base->wheels[q])
				base->wheels[q]->clk =
					max(base->wheels[q]->clk, now);
		base->last_fire = 0;
		base->programmed = U64_MAX;
		WRITE_ONCE(base->online, true);
		raw_spin_unlock_irq(&base->lock);
	}
	return 0;
}

/* Take @base offline and move its timeouts to @target's base, if any. */
static void base_offline(struct tw_base *base, unsigned int target)
{
	raw_spin_lock_irq(&base->lock);
	WRITE_ONCE(base->online, false);
	base->programmed = U64_MAX;
	raw_spin_unlock_irq(&base->lock);
	hrtimer_cancel(&base->timer);

	if (target >= nr_cpu_ids)
		return;
	while (migrate_chunk(base, tw_base_of(target, base->clock)))
		cond_resched();
}

static int tw_cpu_offline(unsigned int cpu)
{
	unsigned int target = tw_other_cpu(cpu);
	enum tw_clock clock;

	for (clock = 0; clock < TW_NR_CLOCKS; clock++)
		base_offline(tw_base_of(cpu, clock), target);
	return 0;
}

/* Hrtimer clock of each enum tw_clock. */
static const clockid_t tw_clockids[TW_NR_CLOCKS] = {
	[TW_CLOCK_MONO] = CLOCK_MONOTONIC,
	[TW_CLOCK_BOOT] = CLOCK_BOOTTIME,
};

static void base_setup(unsigned int cpu, enum tw_clock clock)
{
	struct tw_base *base = tw_base_of(cpu, clock);

	tw_base_init(base, cpu, clock, tw_ns_to_tick_floor(tw_clock_ns(clock)));
	hrtimer_setup(&base->timer, tw_hrtimer_fn, tw_clockids[clock],
		      HRTIMER_MODE_ABS_PINNED_SOFT);
	INIT_CSD(&base->kick_csd, tw_kick_fn, base);
}

/*
 * The queues of /dev/twheel's users: how many users each serves, and
 * whether its wheels are on every base. Guarded by tw_queue_lock.
 */
static DEFINE_MUTEX(tw_queue_lock);
static unsigned int tw_queue_users[TW_NR_QUEUES];
static bool tw_queue_ready[TW_NR_QUEUES];

/* Give every base a wheel for @queue; a retry installs what is missing. */
static int queue_install(unsigned int queue)
{
	enum tw_clock clock;
	struct tw_wheel *w;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		for (clock = 0; clock < TW_NR_CLOCKS; clock++) {
			struct tw_base *base = tw_base_of(cpu, clock);

			if (base->wheels[queue])
				continue;
			w = kzalloc_node(sizeof(*w), GFP_KERNEL,
					 cpu_to_node(cpu));
			if (!w)
				return -ENOMEM;
			tw_wheel_init(w, tw_ns_to_tick_floor(tw_clock_ns(clock)));
			raw_spin_lock_irq(&base->lock);
			base->wheels[queue] = w;
			raw_spin_unlock_irq(&base->lock);
		}
	}
	return 0;
}

/**
 * tw_queue_get() - a queue for a new owner of timeouts
 *
 * The least used of queues 1 to TW_NR_QUEUES - 1: each owner has one to
 * itself until there are more owners than queues. A queue's wheels, one
 * per base, are allocated when it is first used and kept until the module
 * is unloaded: at most TW_NR_QUEUES - 1 wheels per base.
 *
 * Context: process context; sleeps.
 * Return: the queue, or -ENOMEM.
 */
int tw_queue_get(void)
{
	unsigned int q, best = 1;
	int ret;

	mutex_lock(&tw_queue_lock);
	for (q = 2; q < TW_NR_QUEUES; q++)
		if (tw_queue_users[q] < tw_queue_users[best])
			best = q;
	ret = tw_queue_ready[best] ? 0 : queue_install(best);
	if (!ret) {
		tw_queue_ready[best] = true;
		tw_queue_users[best]++;
		ret = best;
	}
	mutex_unlock(&tw_queue_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(tw_queue_get);

/**
 * tw_queue_put() - an owner from tw_queue_get() has no timeouts any more
 * @queue: its queue
 *
 * Context: process context; sleeps.
 */
void tw_queue_put(unsigned int queue)
{
	mutex_lock(&tw_queue_lock);
	tw_queue_users[queue]--;
	mutex_unlock(&tw_queue_lock);
}
EXPORT_SYMBOL_IF_KUNIT(tw_queue_put);

/* Free the wheels queue_install() gave @base. */
static void base_free_wheels(struct tw_base *base)
{
	unsigned int q;

	for (q = 1; q < TW_NR_QUEUES; q++)
		kfree(base->wheels[q]);
}

/**
 * tw_init() - set up every CPU's base and the hotplug callbacks
 *
 * Return: 0 or a negative errno.
 */
int tw_init(void)
{
	enum tw_clock clock;
	unsigned int cpu;
	int ret;

	tw_set_tick();
	tw_bases = alloc_percpu(struct tw_cpu_bases);
	if (!tw_bases)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		for (clock = 0; clock < TW_NR_CLOCKS; clock++)
			base_setup(cpu, clock);
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "twheel:online",
				tw_cpu_online, tw_cpu_offline);
	if (ret < 0)
		goto err_free_bases;
	tw_hp_state = ret;
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
	enum tw_clock clock;
	unsigned int cpu;

	cpuhp_remove_state(tw_hp_state);
	/* Every base is offline: no kick is sent any more; let the last end. */
	tw_kicks_drain();
	for_each_possible_cpu(cpu) {
		for (clock = 0; clock < TW_NR_CLOCKS; clock++) {
			WARN_ON_ONCE(tw_base_of(cpu, clock)->nr_pending);
			base_free_wheels(tw_base_of(cpu, clock));
		}
	}
	free_percpu(tw_bases);
}
