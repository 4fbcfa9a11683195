// SPDX-License-Identifier: GPL-2.0
/*
 * wheel.c - per-CPU hierarchical hashed timing wheel on soft hrtimers
 *
 * Geometry
 * --------
 * Time is counted in ticks of twheel_param_tick_ns. Each CPU has a base with
 * TW_LEVELS levels of 64 buckets. A base's @clk is the last tick it has
 * processed. A timeout due at tick E is filed by the highest bit in which E
 * differs from @clk: level L = that bit / 6, bucket = the 6-bit digit of E at
 * level L. So a bucket at level L holds timeouts that agree with @clk above
 * level L and whose level-L digit is ahead of @clk's; the bucket becomes due
 * when @clk reaches that digit with all lower digits zero. At that tick the
 * bucket is taken whole and each timeout is filed again against the new
 * @clk: it lands on a lower level (cascade) or, when E is that tick, it is
 * due. Every timeout therefore fires at exactly its tick, at any range: no
 * slack like the kernel timer wheel's 12.5%, at most TW_LEVELS cascades per
 * timeout, O(1) arm and cancel.
 *
 * Deadlines are converted to ticks by rounding up, so a timeout never fires
 * before its deadline (ns); it fires at most one tick after it, plus the
 * hrtimer and softirq latency of the machine.
 *
 * Tickless
 * --------
 * Buckets due earlier lie on lower levels, so the next due bucket is the first
 * set bit of the lowest non-empty level (levels_map, occupied[]). The base's
 * hrtimer is programmed for exactly that tick; a base with nothing queued has
 * no hrtimer armed, and the ticks in between are never visited.
 *
 * Expiry
 * ------
 * The hrtimer callback (softirq, on the base's CPU) moves due buckets to the
 * cascade list and re-files or expires their timeouts, then runs callbacks
 * from the expired list without the lock. Both steps have a budget; what is
 * left is finished by the next run, programmed for "now".
 *
 * Locking
 * -------
 * base->lock (a raw spinlock, irq-safe: arms may come from hard interrupts
 * and the kick runs in one) protects the base and the list linkage, expiry
 * and index of every timeout queued on it.
 * A timeout's flags name its base; lock_timeout_base() locks that base and
 * rechecks the flags, waiting while TW_F_MIGRATING is set. A timeout moves to
 * another base only while both bases are locked or while TW_F_MIGRATING is set.
 * Only a base's own CPU starts its pinned hrtimer; an arm on another CPU that
 * needs an earlier expiry sends the base's kick, an IPI to the base's CPU that
 * reprograms the hrtimer there; base->kick_sent keeps one kick in flight.
 * base->running lets twheel_try_cancel() see a callback in flight; a timeout
 * whose callback runs does not change base, so waiting on the old base's
 * @running is enough for twheel_cancel_sync().
 *
 * CPU hotplug
 * -----------
 * When a CPU goes down its base stops taking timeouts, its hrtimer is
 * cancelled and every queued timeout moves to an online CPU's base, keeping
 * its tick. When the CPU comes back its base starts empty at the current tick.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/timekeeping.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <kunit/visibility.h>

#include "compat.h"
#include "twheel_internal.h"
#include "wheel_internal.h"
#include "twheel_trace.h"

/* Moves from the cascade list one hrtimer run may do before yielding. */
#define TW_CASCADE_BUDGET	4096U

static struct twheel_base __percpu *twheel_bases;
static enum cpuhp_state twheel_hp_state;

static struct twheel_base *base_of_cpu(unsigned int cpu)
{
	return per_cpu_ptr(twheel_bases, cpu);
}

static u64 tick_to_ns(u64 tick)
{
	u64 ns;

	if (check_mul_overflow(tick, (u64)twheel_param_tick_ns, &ns) ||
	    ns > KTIME_MAX)
		return KTIME_MAX;
	return ns;
}

/* floor(2^64 / tick_ns), rounded down: turns divisions into a multiply. */
static u64 tick_recip;

/*
 * @ns / tick_ns with the remainder in @rem. The reciprocal estimate is at
 * most one below the quotient; one correction step makes it exact.
 */
static u64 ns_div_tick(u64 ns, u64 *rem)
{
	u64 q = mul_u64_u64_shr(ns, tick_recip, 64);
	u64 r = ns - q * twheel_param_tick_ns;

	if (r >= twheel_param_tick_ns) {
		q++;
		r -= twheel_param_tick_ns;
	}
	*rem = r;
	return q;
}

/**
 * twheel_ns_to_tick() - tick at or after a CLOCK_MONOTONIC time
 * @ns: time in nanoseconds
 *
 * Rounds up: a timeout must not fire early.
 *
 * Return: the first tick whose start is not before @ns.
 */
VISIBLE_IF_KUNIT u64 twheel_ns_to_tick(u64 ns)
{
	u64 rem, q = ns_div_tick(ns, &rem);

	return q + !!rem;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_ns_to_tick);

/* The tick that has started at @ns: all of it lies at or before @ns. */
static u64 ns_to_tick_floor(u64 ns)
{
	u64 rem;

	return ns_div_tick(ns, &rem);
}

static u64 now_tick(void)
{
	return ns_to_tick_floor(ktime_get_ns());
}

/* Mask of the tick bits at and below level @lvl. */
static u64 lvl_low_mask(unsigned int lvl)
{
	unsigned int bits = TW_LVL_BITS * (lvl + 1);

	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/**
 * twheel_calc_idx() - bucket of a timeout due after the base's clock
 * @clk: the base's clock
 * @expires: the tick the timeout is due, > @clk
 *
 * Return: level * TW_LVL_SIZE + digit of @expires at that level.
 */
VISIBLE_IF_KUNIT unsigned int twheel_calc_idx(u64 clk, u64 expires)
{
	unsigned int lvl = (fls64(clk ^ expires) - 1) / TW_LVL_BITS;
	unsigned int digit = (expires >> (lvl * TW_LVL_BITS)) & TW_LVL_MASK;

	return lvl * TW_LVL_SIZE + digit;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_calc_idx);

/**
 * twheel_bucket_tick() - tick at which a bucket becomes due
 * @clk: the base's clock
 * @idx: bucket index, as from twheel_calc_idx()
 *
 * Return: @clk with the digit of @idx's level set to @idx's digit and all
 * lower digits zero.
 */
VISIBLE_IF_KUNIT u64 twheel_bucket_tick(u64 clk, unsigned int idx)
{
	unsigned int lvl = idx / TW_LVL_SIZE;
	u64 digit = idx % TW_LVL_SIZE;

	return (clk & ~lvl_low_mask(lvl)) | (digit << (lvl * TW_LVL_BITS));
}
EXPORT_SYMBOL_IF_KUNIT(twheel_bucket_tick);

/* Tick of the next due bucket (U64_MAX if none); its index in @idx. */
static u64 next_bucket(const struct twheel_base *base, unsigned int *idx)
{
	unsigned int lvl;

	if (!base->levels_map)
		return U64_MAX;
	lvl = __ffs(base->levels_map);
	*idx = lvl * TW_LVL_SIZE + __ffs64(base->occupied[lvl]);
	return twheel_bucket_tick(base->clk, *idx);
}

/**
 * twheel_next_event() - tick at which a base next has work
 * @base: the base, locked
 *
 * Return: @base->clk when expired or cascading timeouts wait, else the tick
 * of the next due bucket, or U64_MAX when the base is empty.
 */
VISIBLE_IF_KUNIT u64 twheel_next_event(const struct twheel_base *base)
{
	unsigned int idx;

	if (!list_empty(&base->expired) || !list_empty(&base->cascade))
		return base->clk;
	return next_bucket(base, &idx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_next_event);

static void mark_bucket(struct twheel_base *base, unsigned int idx)
{
	unsigned int lvl = idx / TW_LVL_SIZE;

	base->occupied[lvl] |= 1ULL << (idx % TW_LVL_SIZE);
	__set_bit(lvl, &base->levels_map);
}

static void clear_bucket_if_empty(struct twheel_base *base, unsigned int idx)
{
	unsigned int lvl = idx / TW_LVL_SIZE;

	if (!list_empty(&base->buckets[idx]))
		return;
	base->occupied[lvl] &= ~(1ULL << (idx % TW_LVL_SIZE));
	if (!base->occupied[lvl])
		__clear_bit(lvl, &base->levels_map);
}

static void queue_expired(struct twheel_base *base, struct twheel_timeout *t)
{
	t->idx = TW_IDX_EXPIRED;
	list_add_tail(&t->entry, &base->expired);
}

/**
 * twheel_enqueue() - file a timeout on a base
 * @base: the base, locked
 * @t: a timeout on no list, with @t->expires set
 *
 * Due timeouts (expires <= clk) go to the expired list, the others to their
 * bucket. Does not count @t in the statistics and does not program the timer.
 */
VISIBLE_IF_KUNIT void twheel_enqueue(struct twheel_base *base,
				     struct twheel_timeout *t)
{
	unsigned int idx;

	if (t->expires <= base->clk) {
		queue_expired(base, t);
		return;
	}
	idx = twheel_calc_idx(base->clk, t->expires);
	t->idx = idx;
	list_add_tail(&t->entry, &base->buckets[idx]);
	mark_bucket(base, idx);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_enqueue);

/**
 * twheel_detach() - take a timeout off whatever list of @base holds it
 * @base: the base, locked
 * @t: the timeout
 *
 * Return: true if @t was queued and is now removed.
 */
VISIBLE_IF_KUNIT bool twheel_detach(struct twheel_base *base,
				    struct twheel_timeout *t)
{
	if (list_empty(&t->entry))
		return false;
	list_del_init(&t->entry);
	if (t->idx < TW_NR_BUCKETS)
		clear_bucket_if_empty(base, t->idx);
	base->stats.pending--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_detach);

/* Move the due bucket @idx to the cascade list (all at once). */
static void take_bucket(struct twheel_base *base, unsigned int idx)
{
	struct twheel_timeout *t;

	list_for_each_entry(t, &base->buckets[idx], entry)
		t->idx = TW_IDX_CASCADE;
	list_splice_tail_init(&base->buckets[idx], &base->cascade);
	clear_bucket_if_empty(base, idx);
}

/* Re-file up to @budget timeouts of the cascade list; false if some remain. */
static bool drain_cascade(struct twheel_base *base, unsigned int *budget)
{
	struct twheel_timeout *t;

	while (!list_empty(&base->cascade)) {
		if (!*budget)
			return false;
		(*budget)--;
		t = list_first_entry(&base->cascade, struct twheel_timeout,
				     entry);
		list_del(&t->entry);
		twheel_enqueue(base, t);
		if (t->idx != TW_IDX_EXPIRED)
			base->stats.cascaded++;
	}
	return true;
}

/*
 * Nothing is due before the next bucket, so the clock may catch up with @now
 * up to just before it: new timeouts then land on the lowest level they can.
 */
static void forward_clk(struct twheel_base *base, u64 now)
{
	unsigned int idx;
	u64 next;

	if (now <= base->clk || !list_empty(&base->cascade))
		return;
	next = next_bucket(base, &idx);
	base->clk = min(now, next - 1);
}

/**
 * twheel_base_advance() - bring a base's clock up to a tick
 * @base: the base, locked
 * @now: the current tick
 * @budget: how many timeouts may be re-filed in this call
 *
 * Visits only occupied buckets, in tick order: each due bucket is moved to
 * the cascade list and its timeouts re-filed against the bucket's tick, so
 * due ones reach the expired list and the others a lower level.
 *
 * Return: true if the budget ran out before the clock reached @now.
 */
VISIBLE_IF_KUNIT bool twheel_base_advance(struct twheel_base *base, u64 now,
					  unsigned int budget)
{
	unsigned int idx;
	u64 next;

	for (;;) {
		if (!drain_cascade(base, &budget))
			return true;
		next = next_bucket(base, &idx);
		if (next > now)
			break;
		base->clk = next;
		take_bucket(base, idx);
	}
	forward_clk(base, now);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(twheel_base_advance);

/**
 * twheel_base_setup() - initialise a base
 * @base: the base
 * @cpu: CPU it belongs to (any value for a private base)
 * @clk: its starting clock
 *
 * The base starts offline: it programs no hrtimer until it is brought online.
 */
VISIBLE_IF_KUNIT void twheel_base_setup(struct twheel_base *base,
					unsigned int cpu, u64 clk)
{
	unsigned int i;

	memset(base, 0, sizeof(*base));
	raw_spin_lock_init(&base->lock);
	base->cpu = cpu;
	base->clk = clk;
	base->programmed = U64_MAX;
	INIT_LIST_HEAD(&base->cascade);
	INIT_LIST_HEAD(&base->expired);
	for (i = 0; i < TW_NR_BUCKETS; i++)
		INIT_LIST_HEAD(&base->buckets[i]);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_base_setup);

/* Kicks sent and not yet finished; module exit waits for none. */
static atomic_t twheel_kicks_in_flight = ATOMIC_INIT(0);

static void twheel_kick(void *info);

/*
 * Ask the base's CPU to reprogram its hrtimer. The caller holds the base
 * lock, which serialises the users of the base's csd. -EBUSY means the csd
 * of the previous kick, whose handler has already run, is not released yet:
 * that takes the other CPU a few instructions.
 */
static void send_kick(struct twheel_base *base)
{
	int ret;

	if (base->kick_sent)
		return;
	base->kick_sent = true;
	atomic_inc(&twheel_kicks_in_flight);
	while ((ret = smp_call_function_single_async(base->cpu,
						     &base->kick_csd)) == -EBUSY)
		cpu_relax();
	if (WARN_ON_ONCE(ret)) {
		base->kick_sent = false;
		atomic_dec(&twheel_kicks_in_flight);
	}
}

/*
 * Make sure the base's hrtimer fires by tick @due (U64_MAX: no need). The
 * hrtimer is never set later than the earliest queued work, so an earlier
 * @due is the only reason to move it. Only the base's own CPU may start its
 * pinned hrtimer; an arm from another CPU sends the kick instead. The hrtimer
 * callback reprograms when it finishes, so nothing is done while it runs.
 */
static void program_base(struct twheel_base *base, u64 due)
{
	if (due >= base->programmed || !base->online || base->in_timer)
		return;
	if (base->cpu != smp_processor_id()) {
		send_kick(base);
		return;
	}
	base->programmed = due;
	hrtimer_start(&base->timer, ns_to_ktime(tick_to_ns(due)),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/* Tick at which the base must look at @t, just filed on it. */
static u64 due_tick(const struct twheel_base *base,
		    const struct twheel_timeout *t)
{
	if (t->idx < TW_NR_BUCKETS)
		return twheel_bucket_tick(base->clk, t->idx);
	return base->clk;
}

/* A base that became empty needs no hrtimer: keep the CPU tickless. */
static void idle_base(struct twheel_base *base)
{
	if (base->stats.pending || base->in_timer ||
	    base->programmed == U64_MAX)
		return;
	if (hrtimer_try_to_cancel(&base->timer) >= 0)
		base->programmed = U64_MAX;
}

/*
 * IPI on the base's CPU after an arm from another CPU wanted an earlier
 * expiry. kick_sent is cleared under the lock, so an arm that still sees it
 * set knows this handler will see its timeout. A kick that reaches a base
 * whose CPU is going down finds it offline and does nothing.
 */
static void twheel_kick(void *info)
{
	struct twheel_base *base = info;

	raw_spin_lock(&base->lock);
	base->kick_sent = false;
	program_base(base, twheel_next_event(base));
	raw_spin_unlock(&base->lock);
	/* Last: module exit waits for this, then for an RCU grace period. */
	atomic_dec(&twheel_kicks_in_flight);
}

static struct twheel_base *lock_timeout_base(struct twheel_timeout *t,
					     unsigned long *flags)
	__acquires(&base->lock)
{
	struct twheel_base *base;
	u32 tf;

	for (;;) {
		tf = READ_ONCE(t->flags);
		if (!(tf & TW_F_MIGRATING)) {
			base = base_of_cpu(tf & TW_F_CPU_MASK);
			raw_spin_lock_irqsave(&base->lock, *flags);
			if (READ_ONCE(t->flags) == tf)
				return base;
			raw_spin_unlock_irqrestore(&base->lock, *flags);
		}
		cpu_relax();
	}
}

static void note_max(u64 *max, u64 v)
{
	if (v > *max)
		*max = v;
}

/* Run up to @budget callbacks; false if expired timeouts remain. */
static bool run_expired(struct twheel_base *base, unsigned int budget)
{
	struct twheel_timeout *t;
	u64 due, start, end;

	while (!list_empty(&base->expired)) {
		if (!budget--)
			return false;
		t = list_first_entry(&base->expired, struct twheel_timeout,
				     entry);
		list_del_init(&t->entry);
		base->stats.pending--;
		base->stats.expired++;
		base->running = t;
		due = tick_to_ns(t->expires);
		raw_spin_unlock_irq(&base->lock);

		/* The callback may re-arm or free @t: use nothing of it after. */
		start = ktime_get_ns();
		trace_twheel_expire(t, due, start);
		t->func(t);
		end = ktime_get_ns();

		raw_spin_lock_irq(&base->lock);
		base->running = NULL;
		note_max(&base->stats.max_cb_ns, end - start);
		if (start > due)
			note_max(&base->stats.max_late_ns, start - due);
	}
	return true;
}

static enum hrtimer_restart twheel_hrtimer_fn(struct hrtimer *timer)
{
	struct twheel_base *base = container_of(timer, struct twheel_base,
						timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	bool done;
	u64 now;

	raw_spin_lock_irq(&base->lock);
	base->in_timer = true;
	now = now_tick();
	base->stats.hrtimer_fires++;
	if (base->last_fire && now > base->last_fire + 1)
		base->stats.ticks_skipped += now - base->last_fire - 1;
	base->last_fire = now;

	done = !twheel_base_advance(base, now, TW_CASCADE_BUDGET);
	done &= run_expired(base, twheel_param_expire_budget);

	base->in_timer = false;
	base->programmed = done ? twheel_next_event(base) : base->clk;
	if (!base->online || base->programmed == U64_MAX) {
		base->programmed = U64_MAX;
	} else {
		/*
		 * Work left over continues in a new softirq run: an expiry at
		 * the current time, not one already passed, ends this run.
		 */
		hrtimer_set_expires(timer, done ?
				    ns_to_ktime(tick_to_ns(base->programmed)) :
				    ktime_get());
		ret = HRTIMER_RESTART;
	}
	raw_spin_unlock_irq(&base->lock);
	return ret;
}

/*
 * Move @t, queued on no list and marked TW_F_MIGRATING, from @base (locked,
 * unlocked on return) to @new (returned locked).
 */
static struct twheel_base *switch_base(struct twheel_timeout *t,
				       struct twheel_base *base,
				       struct twheel_base *new,
				       unsigned long *flags)
	__releases(&base->lock) __acquires(&new->lock)
{
	WRITE_ONCE(t->flags, t->flags | TW_F_MIGRATING);
	raw_spin_unlock(&base->lock);
	raw_spin_lock(&new->lock);
	WRITE_ONCE(t->flags, (t->flags & ~(TW_F_MIGRATING | TW_F_CPU_MASK)) |
		   new->cpu);
	return new;
}

/* Base to arm on: the chosen CPU's if it takes timeouts, else the local one. */
static struct twheel_base *target_base(int cpu)
{
	struct twheel_base *new;

	if (cpu != TWHEEL_CPU_LOCAL) {
		new = base_of_cpu(cpu);
		if (READ_ONCE(new->online))
			return new;
	}
	new = base_of_cpu(smp_processor_id());
	if (READ_ONCE(new->online))
		return new;
	/* This CPU is going down: any other online CPU will do. */
	return base_of_cpu(cpumask_any_but(cpu_online_mask, new->cpu));
}

static int arm_locked(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns,
		      int cpu, bool only_pending)
{
	u64 expires = twheel_ns_to_tick(deadline_ns);
	struct twheel_base *base, *new;
	unsigned long flags;
	bool was_pending;

	base = lock_timeout_base(t, &flags);
	was_pending = !list_empty(&t->entry);
	if (only_pending && !was_pending) {
		raw_spin_unlock_irqrestore(&base->lock, flags);
		return 0;
	}
	/* Same bucket: only the expiry changes; the bucket is re-filed anyway. */
	if (was_pending && t->idx < TW_NR_BUCKETS && expires > base->clk &&
	    (cpu == TWHEEL_CPU_LOCAL || cpu == base->cpu) &&
	    twheel_calc_idx(base->clk, expires) == t->idx) {
		t->expires = expires;
		base->stats.rearmed++;
		goto out_trace;
	}
	twheel_detach(base, t);
	/* A timeout whose callback runs stays put: see twheel_cancel_sync(). */
	while (base->running != t) {
		new = target_base(cpu);
		if (new == base)
			break;
		base = switch_base(t, base, new, &flags);
		base->stats.migrated++;
		if (base->online)
			break;
	}
	forward_clk(base, ns_to_tick_floor(now_ns));
	t->expires = expires;
	twheel_enqueue(base, t);
	base->stats.pending++;
	if (was_pending)
		base->stats.rearmed++;
	else
		base->stats.armed++;
	program_base(base, due_tick(base, t));
out_trace:
	trace_twheel_arm(t, expires, base->cpu);
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return was_pending;
}

/* twheel_arm_abs() with the caller's clock reading; see there. */
static int arm_abs_checked(struct twheel_timeout *t, u64 deadline_ns,
			   u64 now_ns, int cpu, bool only_pending)
{
	if (cpu != TWHEEL_CPU_LOCAL &&
	    (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu)))
		return -EINVAL;
	if (deadline_ns > KTIME_MAX ||
	    deadline_ns > now_ns + twheel_max_delay_ns())
		return -ERANGE;
	return arm_locked(t, deadline_ns, now_ns, cpu, only_pending);
}

/* Arm @t @delay_ns from now on the local CPU; see twheel_arm(). */
static int arm_after(struct twheel_timeout *t, u64 delay_ns, bool only_pending)
{
	u64 now = ktime_get_ns();

	if (delay_ns > twheel_max_delay_ns())
		return -ERANGE;
	return arm_locked(t, now + delay_ns, now, TWHEEL_CPU_LOCAL,
			  only_pending);
}

/**
 * twheel_timeout_init() - prepare a timeout for use
 * @t: the timeout
 * @func: callback run when it expires
 *
 * Must be called once before @t is armed; never on a pending timeout.
 *
 * Context: any context.
 */
void twheel_timeout_init(struct twheel_timeout *t, twheel_fn_t func)
{
	INIT_LIST_HEAD(&t->entry);
	t->expires = 0;
	t->func = func;
	t->idx = 0;
	t->flags = raw_smp_processor_id();
}
EXPORT_SYMBOL_GPL(twheel_timeout_init);

/**
 * twheel_arm() - arm or re-arm a timeout after a delay, on the local CPU
 * @t: an initialised timeout
 * @delay_ns: delay from now, at most twheel_max_delay_ns()
 *
 * A pending timeout is moved to its new expiry; re-arming into the bucket it
 * is already in costs no list operation. While its callback runs, @t stays on
 * the CPU that runs it.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 0 if @t was not pending, 1 if it was (and is re-armed), -ERANGE if
 * @delay_ns is too long.
 */
int twheel_arm(struct twheel_timeout *t, u64 delay_ns)
{
	return arm_after(t, delay_ns, false);
}
EXPORT_SYMBOL_GPL(twheel_arm);

/**
 * twheel_arm_abs() - arm or re-arm a timeout at an absolute time
 * @t: an initialised timeout
 * @deadline_ns: CLOCK_MONOTONIC deadline (ktime_get() nanoseconds); a time
 *	in the past makes the timeout fire at once
 * @cpu: CPU whose wheel takes the timeout, or TWHEEL_CPU_LOCAL
 *
 * If @cpu goes offline later, its timeouts move to another CPU, keeping their
 * deadlines.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 0 if @t was not pending, 1 if it was (and is re-armed), -EINVAL if
 * @cpu is not an online CPU, -ERANGE if @deadline_ns is further away than
 * twheel_max_delay_ns().
 */
int twheel_arm_abs(struct twheel_timeout *t, u64 deadline_ns, int cpu)
{
	return twheel_arm_abs_now(t, deadline_ns, ktime_get_ns(), cpu);
}
EXPORT_SYMBOL_GPL(twheel_arm_abs);

/**
 * twheel_arm_abs_now() - twheel_arm_abs() for a caller that has read the clock
 * @t: an initialised timeout
 * @deadline_ns: CLOCK_MONOTONIC deadline
 * @now_ns: ktime_get_ns() as read by the caller, not after this call
 * @cpu: CPU whose wheel takes the timeout, or TWHEEL_CPU_LOCAL
 *
 * For /dev/twheel, which has already read the clock to compute the deadline.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: as twheel_arm_abs().
 */
int twheel_arm_abs_now(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns,
		       int cpu)
{
	return arm_abs_checked(t, deadline_ns, now_ns, cpu, false);
}

/**
 * twheel_rearm_abs_now() - move a pending timeout to an absolute time
 * @t: an initialised timeout
 * @deadline_ns: CLOCK_MONOTONIC deadline
 * @now_ns: ktime_get_ns() as read by the caller, not after this call
 * @cpu: CPU whose wheel takes the timeout, or TWHEEL_CPU_LOCAL
 *
 * Does nothing to a timeout that is not pending. For /dev/twheel: one lock
 * round trip when the timeout has not fired yet.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 1 if @t was pending and is re-armed, 0 if it was not pending,
 * -EINVAL or -ERANGE as twheel_arm_abs().
 */
int twheel_rearm_abs_now(struct twheel_timeout *t, u64 deadline_ns,
			 u64 now_ns, int cpu)
{
	return arm_abs_checked(t, deadline_ns, now_ns, cpu, true);
}

/**
 * twheel_rearm() - move a pending timeout to a new delay
 * @t: an initialised timeout
 * @delay_ns: delay from now, at most twheel_max_delay_ns()
 *
 * Does nothing to a timeout that is not pending (never armed, cancelled, or
 * already expired): the usual "push the idle timeout back" call.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 1 if @t was pending and is re-armed, 0 if it was not pending,
 * -ERANGE if @delay_ns is too long.
 */
int twheel_rearm(struct twheel_timeout *t, u64 delay_ns)
{
	return arm_after(t, delay_ns, true);
}
EXPORT_SYMBOL_GPL(twheel_rearm);

static int cancel_locked(struct twheel_timeout *t, bool fail_if_running)
{
	struct twheel_base *base;
	unsigned long flags;
	int ret;

	base = lock_timeout_base(t, &flags);
	if (fail_if_running && base->running == t) {
		ret = -EBUSY;
	} else {
		ret = twheel_detach(base, t);
		if (ret) {
			base->stats.cancelled++;
			trace_twheel_cancel(t, base->cpu);
			idle_base(base);
		}
	}
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/**
 * twheel_cancel() - cancel a timeout without waiting
 * @t: an initialised timeout
 *
 * If @t's callback is running on another CPU, it goes on running (and may
 * re-arm @t); use twheel_cancel_sync() before freeing @t.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 1 if @t was pending and is removed (its callback will not run for
 * that arming), 0 if it was not pending.
 */
int twheel_cancel(struct twheel_timeout *t)
{
	return cancel_locked(t, false);
}
EXPORT_SYMBOL_GPL(twheel_cancel);

/**
 * twheel_try_cancel() - cancel a timeout unless its callback is running
 * @t: an initialised timeout
 *
 * For callers that hold a lock the callback also takes: on -EBUSY drop the
 * lock, let the callback finish, and try again.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 1 if @t was pending and is removed, 0 if it was not pending,
 * -EBUSY if its callback is running (nothing is done).
 */
int twheel_try_cancel(struct twheel_timeout *t)
{
	return cancel_locked(t, true);
}
EXPORT_SYMBOL_GPL(twheel_try_cancel);

/**
 * twheel_cancel_sync() - cancel a timeout and wait for its callback
 * @t: an initialised timeout
 *
 * On return @t is not pending and its callback runs on no CPU, so @t may be
 * freed, even if the callback re-arms @t. Busy-waits while the callback runs.
 *
 * Context: process or softirq context; not from @t's own callback, and not
 * while holding a lock that the callback takes (that deadlocks).
 * Return: 1 if a pending arming of @t was removed, 0 otherwise.
 */
int twheel_cancel_sync(struct twheel_timeout *t)
{
	int ret;

	for (;;) {
		ret = twheel_try_cancel(t);
		if (ret >= 0)
			return ret;
		cpu_relax();
	}
}
EXPORT_SYMBOL_GPL(twheel_cancel_sync);

/**
 * twheel_pending() - is a timeout armed and not yet handed to its callback
 * @t: an initialised timeout
 *
 * The answer may be stale by the time the caller looks at it unless the
 * caller serialises against arms, cancels and expiry of @t.
 *
 * Context: any context; lockless.
 * Return: true if @t is queued, false otherwise.
 */
bool twheel_pending(const struct twheel_timeout *t)
{
	return !list_empty_careful(&t->entry);
}
EXPORT_SYMBOL_GPL(twheel_pending);

/**
 * twheel_tick_ns() - the wheel's tick
 *
 * Context: any context.
 * Return: tick length in nanoseconds (module parameter tick_ns).
 */
u64 twheel_tick_ns(void)
{
	return twheel_param_tick_ns;
}
EXPORT_SYMBOL_GPL(twheel_tick_ns);

/**
 * twheel_max_delay_ns() - the longest delay an arm accepts
 *
 * Context: any context.
 * Return: the longest delay in nanoseconds (2^40 ticks).
 */
u64 twheel_max_delay_ns(void)
{
	return tick_to_ns(TW_MAX_DELTA_TICKS);
}
EXPORT_SYMBOL_GPL(twheel_max_delay_ns);

/**
 * twheel_stats_snapshot() - copy one CPU's counters
 * @cpu: a possible CPU
 * @out: where to copy them
 */
void twheel_stats_snapshot(unsigned int cpu, struct twheel_stats *out)
{
	struct twheel_base *base = base_of_cpu(cpu);
	unsigned long flags;

	raw_spin_lock_irqsave(&base->lock, flags);
	*out = base->stats;
	raw_spin_unlock_irqrestore(&base->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_stats_snapshot);

/**
 * twheel_base_timer_armed() - does a CPU's base have its hrtimer armed
 * @cpu: a possible CPU
 *
 * Return: true if the hrtimer is queued or its callback runs.
 */
bool twheel_base_timer_armed(unsigned int cpu)
{
	return hrtimer_active(&base_of_cpu(cpu)->timer);
}
EXPORT_SYMBOL_IF_KUNIT(twheel_base_timer_armed);

/* Move every timeout of @from (locked) to @to (locked), keeping its tick. */
static void migrate_all(struct twheel_base *from, struct twheel_base *to)
{
	struct twheel_timeout *t, *tmp;
	LIST_HEAD(all);
	unsigned int i;

	list_splice_init(&from->expired, &all);
	list_splice_tail_init(&from->cascade, &all);
	for (i = 0; i < TW_NR_BUCKETS; i++)
		list_splice_tail_init(&from->buckets[i], &all);
	memset(from->occupied, 0, sizeof(from->occupied));
	from->levels_map = 0;

	list_for_each_entry_safe(t, tmp, &all, entry) {
		list_del(&t->entry);
		WRITE_ONCE(t->flags, (t->flags & ~TW_F_CPU_MASK) | to->cpu);
		twheel_enqueue(to, t);
		from->stats.pending--;
		to->stats.pending++;
		to->stats.migrated++;
	}
}

static int twheel_cpu_online(unsigned int cpu)
{
	struct twheel_base *base = base_of_cpu(cpu);

	raw_spin_lock_irq(&base->lock);
	base->clk = max(base->clk, now_tick());
	base->last_fire = 0;
	base->programmed = U64_MAX;
	WRITE_ONCE(base->online, true);
	raw_spin_unlock_irq(&base->lock);
	return 0;
}

static int twheel_cpu_offline(unsigned int cpu)
{
	struct twheel_base *base = base_of_cpu(cpu);
	struct twheel_base *to;
	unsigned int target;

	raw_spin_lock_irq(&base->lock);
	WRITE_ONCE(base->online, false);
	raw_spin_unlock_irq(&base->lock);
	hrtimer_cancel(&base->timer);

	target = cpumask_any_but(cpu_online_mask, cpu);
	if (target >= nr_cpu_ids)
		return 0;
	to = base_of_cpu(target);
	local_irq_disable();
	if (to->cpu < base->cpu) {
		raw_spin_lock(&to->lock);
		raw_spin_lock_nested(&base->lock, SINGLE_DEPTH_NESTING);
	} else {
		raw_spin_lock(&base->lock);
		raw_spin_lock_nested(&to->lock, SINGLE_DEPTH_NESTING);
	}
	base->programmed = U64_MAX;
	migrate_all(base, to);
	program_base(to, twheel_next_event(to));
	raw_spin_unlock(&to->lock);
	raw_spin_unlock(&base->lock);
	local_irq_enable();
	return 0;
}

int twheel_wheel_init(void)
{
	unsigned int cpu;
	int ret;

	tick_recip = div64_u64(U64_MAX, twheel_param_tick_ns);
	twheel_bases = alloc_percpu(struct twheel_base);
	if (!twheel_bases)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct twheel_base *base = base_of_cpu(cpu);

		twheel_base_setup(base, cpu, now_tick());
		hrtimer_setup(&base->timer, twheel_hrtimer_fn, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS_PINNED_SOFT);
		INIT_CSD(&base->kick_csd, twheel_kick, base);
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "twheel:online",
				twheel_cpu_online, twheel_cpu_offline);
	if (ret < 0)
		goto err_free_bases;
	twheel_hp_state = ret;
	ret = twheel_stats_init();
	if (ret)
		goto err_remove_hp_state;
	return 0;

err_remove_hp_state:
	cpuhp_remove_state(twheel_hp_state);
err_free_bases:
	free_percpu(twheel_bases);
	return ret;
}

void twheel_wheel_exit(void)
{
	unsigned int cpu;

	twheel_stats_exit();
	cpuhp_remove_state(twheel_hp_state);
	/* Every base is offline: no kick is sent any more; let the last end. */
	while (atomic_read(&twheel_kicks_in_flight))
		cpu_relax();
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		WARN_ON_ONCE(base_of_cpu(cpu)->stats.pending);
	free_percpu(twheel_bases);
}
