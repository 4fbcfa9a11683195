// SPDX-License-Identifier: GPL-2.0
/*
 * expire.c - the hrtimer that drives a base, expiry runs, and the kick
 *
 * Each base has a pinned soft hrtimer on its clock, programmed for the tick
 * of its next work (wheel.c, tw_program()); every time in this file is in
 * the base's clock. Its callback (softirq, on the base's CPU) gives the
 * base's wheels, one per owner's queue, turns: in its turn a wheel's clock
 * is brought towards now (due buckets go to its cascade list and up to
 * TW_TURN_REFILES of their timeouts are re-filed, due ones onto its expired
 * list), then one callback of its expired list runs without the base lock.
 * The wheels with due work take turns round robin (@next_turn), so one
 * owner's storm delays another's timeouts by a turn, not by the storm.
 *
 * Bounded work
 * ------------
 * A run re-files timeouts dropping the base lock every TW_LOCKED_CHUNK, and
 * gives turns until expire_budget callbacks ran or its share of TW_RUN_NS
 * passed, whichever comes first. What is left
 * continues in a new hrtimer run TW_YIELD_NS later: the softirq ends, and
 * the CPU's tasks run in between. The time is counted per CPU, not per base
 * (struct tw_cpu_runs): the runs of a CPU's bases, one per clock, share one
 * TW_RUN_NS until TW_YIELD_NS passed without any of them, and a base that
 * finds it spent waits for that gap. So a storm of expiries takes at most
 * 80% of a CPU while it lasts, on one clock or on both; a base that has
 * work left while another one runs gets half of the next TW_RUN_NS. No
 * interrupts-off section grows with what was armed.
 *
 * Locking
 * -------
 * The callback holds base->expiry_lock (a spinlock_t: sleeping and
 * priority-inheriting on PREEMPT_RT) for the whole run, and base->lock (raw)
 * except while a timeout's callback runs. base->running names that timeout.
 * twheel_cancel_sync() that finds its timeout running waits by taking and
 * dropping expiry_lock (tw_wait_running()), as the kernel's timers do with
 * their expiry lock; the run lets waiters in between two callbacks.
 * Lock order: expiry_lock, then base->lock. A CPU's struct tw_cpu_runs
 * needs no lock: only the hrtimer callbacks of its bases touch it, and the
 * hrtimer core runs them one at a time on that CPU (they are pinned).
 *
 * The callback never returns HRTIMER_RESTART: it programs the hrtimer with
 * hrtimer_start(), which is correct even when a kick started the hrtimer
 * again between the hrtimer core dropping its lock and this callback taking
 * base->lock (HRTIMER_RESTART would then re-queue a queued hrtimer).
 *
 * The kick
 * --------
 * Only a base's own CPU starts its pinned hrtimer; an arm on another CPU that
 * needs an earlier expiry sends the base's kick, an IPI to the base's CPU
 * that programs the hrtimer there; base->kick_sent keeps one kick in flight.
 *
 * Calls
 * -----
 * This file and wheel.c are the two halves of one thing and call each
 * other: the expiry side uses the wheel's primitives (advance, dequeue,
 * program), and an arm or cancel in wheel.c sends this file's kick or
 * waits for its running callback. Every other file of kmod/ calls in one
 * direction only.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "compat.h"
#include "wheel.h"
#include "trace.h"

/* Default, least and most callbacks one hrtimer run may call. */
#define TW_EXPIRE_BUDGET_DEFAULT	256U
#define TW_EXPIRE_BUDGET_MIN		8U
#define TW_EXPIRE_BUDGET_MAX		65536U

static unsigned int expire_budget = TW_EXPIRE_BUDGET_DEFAULT;

static int expire_budget_set(const char *val, const struct kernel_param *kp)
{
	return tw_param_set_uint(val, kp, TW_EXPIRE_BUDGET_MIN,
				 TW_EXPIRE_BUDGET_MAX);
}

static const struct kernel_param_ops expire_budget_ops = {
	.set = expire_budget_set,
	.get = param_get_uint,
};

module_param_cb(expire_budget, &expire_budget_ops, &expire_budget, 0444);
MODULE_PARM_DESC(expire_budget, "Callbacks per hrtimer run before yielding, 8..65536 (default 256)");

/**
 * struct tw_cpu_runs - what the hrtimer runs of one CPU's bases spent
 * @used: nanoseconds the runs of the current stretch took; a stretch is a
 *	series of runs with less than TW_YIELD_NS between one's end and the
 *	next one's start
 * @last_end: CLOCK_MONOTONIC time the last run ended
 * @left_work: bit (1 << clock) set when that base's last run stopped with
 *	expired timeouts left
 */
struct tw_cpu_runs {
	u64 used;
	u64 last_end;
	unsigned long left_work;
};

static DEFINE_PER_CPU(struct tw_cpu_runs, tw_runs);

/* Kicks sent and not yet finished; module exit waits for none. */
static atomic_t kicks_in_flight = ATOMIC_INIT(0);

/**
 * tw_send_kick() - ask a base's CPU to program its hrtimer
 * @base: the base, locked: the lock serialises the users of its csd
 *
 * -EBUSY means the csd of the previous kick, whose handler has already run,
 * is not released yet: that takes the other CPU a few instructions.
 */
void tw_send_kick(struct tw_base *base)
{
	int ret;

	if (base->kick_sent)
		return;
	base->kick_sent = true;
	atomic_inc(&kicks_in_flight);
	while ((ret = smp_call_function_single_async(base->cpu,
						     &base->kick_csd)) == -EBUSY)
		cpu_relax();
	if (WARN_ON_ONCE(ret)) {
		base->kick_sent = false;
		atomic_dec(&kicks_in_flight);
	}
}

/**
 * tw_kick_fn() - the kick's IPI handler, on the base's CPU
 * @info: the base
 *
 * kick_sent is cleared under the lock, so an arm that still sees it set
 * knows this handler will see its timeout. A kick that reaches a base whose
 * CPU is going down finds it offline and does nothing.
 */
void tw_kick_fn(void *info)
{
	struct tw_base *base = info;

	raw_spin_lock(&base->lock);
	base->kick_sent = false;
	tw_program(base, tw_next_event(base));
	raw_spin_unlock(&base->lock);
	/* Last: module exit waits for this, then for an RCU grace period. */
	atomic_dec(&kicks_in_flight);
}

/**
 * tw_kicks_drain() - wait until no kick is in flight
 *
 * Every base must be offline, so that no new kick is sent.
 */
void tw_kicks_drain(void)
{
	while (atomic_read(&kicks_in_flight))
		cpu_relax();
	synchronize_rcu();
}

/**
 * tw_wait_running() - wait until the callback of a timeout may have ended
 * @t: a timeout whose callback was seen running
 *
 * A running timeout does not change base, and its base's hrtimer callback
 * holds expiry_lock while it runs callbacks; taking the lock waits for it.
 */
void tw_wait_running(struct twheel_timeout *t)
{
	u32 tf = READ_ONCE(t->flags);
	struct tw_base *base;

	if (tf & TW_F_MIGRATING)
		return;
	base = tw_base_of_flags(tf);
	atomic_inc(&base->expiry_waiters);
	spin_lock_bh(&base->expiry_lock);
	atomic_dec(&base->expiry_waiters);
	spin_unlock_bh(&base->expiry_lock);
}

/**
 * tw_sync_callbacks() - wait until every callback running now has ended
 *
 * Every base runs its callbacks with its expiry lock held; taking each in
 * turn waits for them. A timeout shut down before this call is then run by
 * no CPU.
 *
 * Context: process context.
 */
void tw_sync_callbacks(void)
{
	enum tw_clock clock;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		for (clock = 0; clock < TW_NR_CLOCKS; clock++) {
			struct tw_base *base = tw_base_of(cpu, clock);

			atomic_inc(&base->expiry_waiters);
			spin_lock_bh(&base->expiry_lock);
			atomic_dec(&base->expiry_waiters);
			spin_unlock_bh(&base->expiry_lock);
		}
	}
}

static void note_max(u64 *max, u64 v)
{
	if (v > *max)
		*max = v;
}

/*
 * The task that runs a timeout's callback on each CPU, while it runs: the
 * softirq's (on PREEMPT_RT the pinned thread's), for tw_in_callback().
 */
static DEFINE_PER_CPU(struct task_struct *, tw_callback_task);

/**
 * tw_in_callback() - is the caller a twheel timeout's callback
 *
 * Context: any context.
 * Return: true when called from inside a timeout's callback.
 */
bool tw_in_callback(void)
{
	return raw_cpu_read(tw_callback_task) == current;
}
EXPORT_SYMBOL_IF_KUNIT(tw_in_callback);

/* Run @t's callback; @t may be freed or re-armed by it. */
static void call_timeout_fn(struct twheel_timeout *t)
{
	twheel_fn_t fn = t->func;
#ifdef CONFIG_LOCKDEP
	/*
	 * The callback may free @t: use a copy of its map, as call_timer_fn()
	 * does.
	 */
	struct lockdep_map lockdep_map;

	lockdep_copy_map(&lockdep_map, &t->lockdep_map);
	lock_map_acquire(&lockdep_map);
#endif
	raw_cpu_write(tw_callback_task, current);
	fn(t);
	raw_cpu_write(tw_callback_task, NULL);
#ifdef CONFIG_LOCKDEP
	lock_map_release(&lockdep_map);
#endif
}

/* Let a task waiting for a callback of this base in; base->lock is held. */
static void let_waiters_in(struct tw_base *base)
	__must_hold(&base->lock)
{
	if (!atomic_read(&base->expiry_waiters))
		return;
	raw_spin_unlock_irq(&base->lock);
	spin_unlock(&base->expiry_lock);
	spin_lock(&base->expiry_lock);
	raw_spin_lock_irq(&base->lock);
}

/* Run one expired timeout's callback; returns the time it ended. */
static u64 run_one(struct tw_base *base, struct twheel_timeout *t)
	__must_hold(&base->lock)
{
	u64 due, start, end;

	tw_dequeue(base, t);
	tw_debug_deactivate(t);
	base->stats.expired++;
	base->running = t;
	due = tw_tick_to_ns(t->expires);
	raw_spin_unlock_irq(&base->lock);

	start = tw_clock_ns(base->clock);
	trace_twheel_expire(t, due, start);
	call_timeout_fn(t);
	end = tw_clock_ns(base->clock);

	raw_spin_lock_irq(&base->lock);
	base->running = NULL;
	note_max(&base->stats.max_cb_ns, end - start);
	if (start > due)
		note_max(&base->stats.max_late_ns, start - due);
	let_waiters_in(base);
	return end;
}

/* The wheels of @base with work due by tick @now, as a bitmap of queues. */
static unsigned long due_wheels(const struct tw_base *base, u64 now)
{
	unsigned long due = 0;
	unsigned int q;

	for_each_set_bit(q, &base->active, TW_NR_QUEUES)
		if (tw_wheel_next_event(base->wheels[q]) <= now)
			__set_bit(q, &due);
	return due;
}

/* The wheel of @due whose turn it is: they take turns in queue order. */
static struct tw_wheel *next_turn(struct tw_base *base, unsigned long due)
{
	unsigned int q = find_next_bit(&due, TW_NR_QUEUES, base->next_turn);

	if (q >= TW_NR_QUEUES)
		q = __ffs(due);
	base->next_turn = q + 1;
	return base->wheels[q];
}

/*
 * One turn of wheel @w: re-file up to TW_TURN_REFILES of its timeouts, then
 * run at most one callback. Returns the time the turn ended.
 */
static u64 run_turn(struct tw_base *base, struct tw_wheel *w, u64 now,
		    unsigned int *callbacks)
{
	unsigned int refiles = TW_TURN_REFILES;

	tw_wheel_advance(base, w, now, &refiles);
	if (hlist_empty(&w->expired))
		return tw_clock_ns(base->clock);
	(*callbacks)--;
	return run_one(base, hlist_entry(w->expired.first,
					 struct twheel_timeout, entry));
}

/*
 * Give the wheels with work due by tick @now turns until none is left
 * (true), or until @budget callbacks ran or the time @until passed (false).
 * A storm on one owner's wheel thus delays another owner's timeout by at
 * most one turn of each wheel with work, not by the storm.
 */
static bool run_turns(struct tw_base *base, u64 now, unsigned int budget,
		      u64 until)
{
	unsigned long due;
	u64 end = 0;

	while ((due = due_wheels(base, now))) {
		if (!budget || end > until)
			return false;
		end = run_turn(base, next_turn(base, due), now, &budget);
	}
	return true;
}

/*
 * How long a run of @base that starts at @mono may take: what is left of its
 * CPU's TW_RUN_NS, at most half of it while the other base has work left;
 * 0 when the CPU's runs spent it and TW_YIELD_NS has not passed since.
 */
static u64 run_allowance(struct tw_cpu_runs *runs,
			 const struct tw_base *base, u64 mono)
{
	u64 left;

	if (mono - runs->last_end >= TW_YIELD_NS)
		runs->used = 0;
	if (runs->used >= TW_RUN_NS)
		return 0;
	left = TW_RUN_NS - runs->used;
	if (runs->left_work & ~BIT(base->clock))
		left = min_t(u64, left, TW_RUN_NS / TW_NR_CLOCKS);
	return left;
}

/* Count a run of @base that started at @mono and is done (@done) or not. */
static void run_ended(struct tw_cpu_runs *runs, const struct tw_base *base,
		      u64 mono, bool done)
{
	runs->last_end = ktime_get_ns();
	runs->used += runs->last_end - mono;
	if (done)
		runs->left_work &= ~BIT(base->clock);
	else
		runs->left_work |= BIT(base->clock);
}

/*
 * A run stopped at its budget, or found its CPU's spent: continue
 * TW_YIELD_NS after the CPU's last run ended. A time later than the hrtimer
 * core's current one ends its expiry loop, so this softirq returns and tasks
 * of this CPU get it for a while; then the next run goes on. Caller holds
 * base->lock, in the hrtimer callback.
 */
static void yield_run(struct tw_base *base, const struct tw_cpu_runs *runs)
{
	u64 when = tw_clock_from_mono(runs->last_end + TW_YIELD_NS,
				      base->clock);

	if (!base->online)
		return;
	base->programmed = tw_ns_to_tick_floor(when);
	hrtimer_start(&base->timer, ns_to_ktime(when),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

static void note_fire(struct tw_base *base, u64 now)
{
	base->stats.hrtimer_fires++;
	if (base->last_fire && now > base->last_fire + 1)
		base->stats.ticks_skipped += now - base->last_fire - 1;
	base->last_fire = now;
}

/**
 * tw_hrtimer_fn() - the callback of a base's hrtimer
 * @timer: the base's hrtimer
 *
 * Context: softirq on the base's CPU (a preemptible thread on PREEMPT_RT).
 * Return: HRTIMER_NORESTART; the timer is programmed with hrtimer_start().
 */
enum hrtimer_restart tw_hrtimer_fn(struct hrtimer *timer)
{
	struct tw_base *base = container_of(timer, struct tw_base, timer);
	struct tw_cpu_runs *runs = per_cpu_ptr(&tw_runs, base->cpu);
	u64 mono = ktime_get_ns();
	u64 start = tw_clock_from_mono(mono, base->clock);
	u64 now = tw_ns_to_tick_floor(start);
	u64 allowed = run_allowance(runs, base, mono);
	bool done;

	spin_lock(&base->expiry_lock);
	raw_spin_lock_irq(&base->lock);
	if (!allowed) {
		runs->left_work |= BIT(base->clock);
		yield_run(base, runs);
		goto unlock;
	}
	base->in_timer = true;
	note_fire(base, now);
	done = run_turns(base, now, expire_budget, start + allowed);
	base->in_timer = false;
	base->programmed = U64_MAX;
	run_ended(runs, base, mono, done);
	if (done) {
		tw_program(base, tw_next_event(base));
	} else {
		base->stats.runs_cut++;
		yield_run(base, runs);
	}
unlock:
	raw_spin_unlock_irq(&base->lock);
	spin_unlock(&base->expiry_lock);
	return HRTIMER_NORESTART;
}
EXPORT_SYMBOL_IF_KUNIT(tw_hrtimer_fn);
