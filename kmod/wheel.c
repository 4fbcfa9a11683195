// SPDX-License-Identifier: GPL-2.0
/*
 * wheel.c - hierarchical hashed timing wheel: geometry, arm and cancel
 *
 * Geometry
 * --------
 * Time is counted in ticks of tick_ns. Each CPU has a base (struct tw_base,
 * cpu.c) per clock, CLOCK_MONOTONIC and CLOCK_BOOTTIME, and each base a
 * wheel (struct tw_wheel) per owner's queue, each with TW_LEVELS levels of
 * 64 buckets; a timeout's clock and queue are fixed while it is armed, and
 * every time below is in its clock. A wheel's @clk is the last tick it has
 * processed. A timeout due at tick E is filed by the highest bit in
 * which E differs from @clk: level L = that bit / 6, bucket = the 6-bit digit
 * of E at level L. So a bucket at level L holds timeouts that agree with @clk
 * above level L and whose level-L digit is ahead of @clk's; the bucket
 * becomes due when @clk reaches that digit with all lower digits zero. At
 * that tick the bucket is moved whole to the cascade list and each timeout
 * is filed again against the new @clk: it lands on a lower level (cascade)
 * or, when E is that tick, it is due. Every timeout therefore fires at
 * exactly its tick, at any range: no slack like the kernel timer wheel's
 * 12.5%, at most TW_LEVELS cascades per timeout, O(1) arm and cancel.
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
 * One primitive each
 * ------------------
 * Every arm goes through mod_timeout() (like __mod_timer() in
 * kernel/time/timer.c), every cancel through cancel_timeout(). The exported
 * functions validate their arguments once and call them; the device layer
 * validates its requests itself and calls tw_mod().
 *
 * Locking
 * -------
 * base->lock (a raw spinlock, irq-safe: arms may come from hard interrupts
 * and the kick runs in one) protects the base and the list linkage, expiry
 * and index of every timeout queued on it, and all its wheels; @nr_pending,
 * @active and the wheels' counts change only in tw_enqueue()/tw_dequeue().
 * A timeout's flags name its base (and its wheel there);
 * tw_lock_timeout_base() locks that base and rechecks the flags, waiting
 * while TW_F_MIGRATING is set. A timeout moves to another base only while
 * both bases are locked or while TW_F_MIGRATING is set. A timeout whose
 * callback runs does not change base, so waiting on that base's expiry lock
 * is enough for twheel_cancel_sync() (expire.c).
 *
 * wheel.c and expire.c are the two halves of one thing and call each other
 * (arm and cancel here send the kick and wait for a running callback there;
 * the expiry runs there use the primitives here); see expire.c.
 */
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/debugobjects.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/sched/isolation.h>

#include "compat.h"
#include "wheel.h"
#include "trace.h"

/* Every CPU's bases, allocated and brought up by cpu.c. */
struct tw_cpu_bases __percpu *tw_bases;
EXPORT_SYMBOL_IF_KUNIT(tw_bases);

/* Wheel tick: 1 ms, the kernel's HZ=1000 jiffy; see Documentation/design.rst. */
#define TW_TICK_NS_DEFAULT	1000000U
/* Shortest tick: a shorter one costs more hrtimer runs than it saves lateness. */
#define TW_TICK_NS_MIN		50000U
/* Longest tick: one second. */
#define TW_TICK_NS_MAX		1000000000U

/**
 * tw_param_set_uint() - set an unsigned int module parameter within a range
 * @val: the value as written (insmod, modprobe, sysfs)
 * @kp: the parameter
 * @min: least value allowed
 * @max: greatest value allowed
 *
 * Like param_set_uint_minmax(), and a refused value is reported with the
 * range it must be in: "twheel: tick_ns=0 refused: allowed 50000..1000000000".
 *
 * Context: process context (module load or a sysfs write).
 * Return: 0, or -EINVAL for a value that is not a number in [@min, @max].
 */
int tw_param_set_uint(const char *val, const struct kernel_param *kp,
		      unsigned int min, unsigned int max)
{
	int ret = param_set_uint_minmax(val, kp, min, max);

	if (ret)
		pr_err("%s=%s refused: allowed %u..%u\n", kp->name, val, min, max);
	return ret;
}

static unsigned int tick_ns = TW_TICK_NS_DEFAULT;

static int tick_ns_set(const char *val, const struct kernel_param *kp)
{
	return tw_param_set_uint(val, kp, TW_TICK_NS_MIN, TW_TICK_NS_MAX);
}

static const struct kernel_param_ops tick_ns_ops = {
	.set = tick_ns_set,
	.get = param_get_uint,
};

module_param_cb(tick_ns, &tick_ns_ops, &tick_ns, 0444);
MODULE_PARM_DESC(tick_ns, "Wheel tick in ns, 50000..1000000000 (default 1000000)");

/* floor(2^64 / tick_ns), rounded down: turns divisions into a multiply. */
static u64 tick_recip;
/* twheel_max_delay_ns(): TW_MAX_DELTA_TICKS ticks, or KTIME_MAX. */
static u64 max_delay_ns;

/**
 * tw_set_tick() - fix the tick for the life of the module
 *
 * Called once at load, after the parameters are set.
 */
void tw_set_tick(void)
{
	tick_recip = div64_u64(U64_MAX, tick_ns);
	max_delay_ns = tw_tick_to_ns(TW_MAX_DELTA_TICKS);
}

/**
 * tw_tick_to_ns() - start of a tick in nanoseconds of the base's clock
 * @tick: the tick
 *
 * Return: @tick * tick_ns, or KTIME_MAX if that is past the clock's range.
 */
u64 tw_tick_to_ns(u64 tick)
{
	u64 ns;

	if (check_mul_overflow(tick, (u64)tick_ns, &ns) || ns > KTIME_MAX)
		return KTIME_MAX;
	return ns;
}
EXPORT_SYMBOL_IF_KUNIT(tw_tick_to_ns);

/*
 * @ns / tick_ns with the remainder in @rem. The reciprocal estimate is at
 * most one below the quotient; one correction step makes it exact.
 */
static u64 ns_div_tick(u64 ns, u64 *rem)
{
	u64 q = mul_u64_u64_shr(ns, tick_recip, 64);
	u64 r = ns - q * tick_ns;

	if (r >= tick_ns) {
		q++;
		r -= tick_ns;
	}
	*rem = r;
	return q;
}

/**
 * tw_ns_to_tick() - tick at or after a time
 * @ns: time in nanoseconds
 *
 * Rounds up: a timeout must not fire early.
 *
 * Return: the first tick whose start is not before @ns.
 */
u64 tw_ns_to_tick(u64 ns)
{
	u64 rem, q = ns_div_tick(ns, &rem);

	return q + !!rem;
}
EXPORT_SYMBOL_IF_KUNIT(tw_ns_to_tick);

/**
 * tw_ns_to_tick_floor() - tick that has started at a time
 * @ns: time in nanoseconds
 *
 * Return: the tick whose span holds @ns.
 */
u64 tw_ns_to_tick_floor(u64 ns)
{
	u64 rem;

	return ns_div_tick(ns, &rem);
}

/**
 * tw_check_deadline() - is a deadline one the wheel accepts
 * @deadline_ns: deadline in the timeout's clock; in the past is fine
 * @now_ns: the current time
 *
 * Return: 0, or -ERANGE if @deadline_ns is past the clock's range or further
 * than twheel_max_delay_ns() ahead of @now_ns.
 */
int tw_check_deadline(u64 deadline_ns, u64 now_ns)
{
	if (deadline_ns > KTIME_MAX ||
	    (deadline_ns > now_ns &&
	     deadline_ns - now_ns > max_delay_ns))
		return -ERANGE;
	return 0;
}

/* Mask of the tick bits at and below level @lvl. */
static u64 lvl_low_mask(unsigned int lvl)
{
	unsigned int bits = TW_LVL_BITS * (lvl + 1);

	return bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
}

/**
 * tw_calc_idx() - bucket of a timeout due after the base's clock
 * @clk: the base's clock
 * @expires: the tick the timeout is due, > @clk
 *
 * Return: level * TW_LVL_SIZE + digit of @expires at that level.
 */
unsigned int tw_calc_idx(u64 clk, u64 expires)
{
	unsigned int lvl = (fls64(clk ^ expires) - 1) / TW_LVL_BITS;
	unsigned int digit = (expires >> (lvl * TW_LVL_BITS)) & TW_LVL_MASK;

	return lvl * TW_LVL_SIZE + digit;
}
EXPORT_SYMBOL_IF_KUNIT(tw_calc_idx);

/**
 * tw_bucket_tick() - tick at which a bucket becomes due
 * @clk: the base's clock
 * @idx: bucket index, as from tw_calc_idx()
 *
 * Return: @clk with the digit of @idx's level set to @idx's digit and all
 * lower digits zero.
 */
u64 tw_bucket_tick(u64 clk, unsigned int idx)
{
	unsigned int lvl = idx / TW_LVL_SIZE;
	u64 digit = idx % TW_LVL_SIZE;

	return (clk & ~lvl_low_mask(lvl)) | (digit << (lvl * TW_LVL_BITS));
}
EXPORT_SYMBOL_IF_KUNIT(tw_bucket_tick);

/* Tick of the next due bucket (U64_MAX if none); its index in @idx. */
static u64 next_bucket(const struct tw_wheel *w, unsigned int *idx)
{
	unsigned int lvl;

	if (!w->levels_map)
		return U64_MAX;
	lvl = __ffs(w->levels_map);
	*idx = lvl * TW_LVL_SIZE + __ffs64(w->occupied[lvl]);
	return tw_bucket_tick(w->clk, *idx);
}

/**
 * tw_wheel_next_event() - tick at which a wheel next has work
 * @w: the wheel, its base locked
 *
 * Return: @w->clk when expired or cascading timeouts wait, else the tick
 * of the next due bucket, or U64_MAX when the wheel is empty.
 */
u64 tw_wheel_next_event(const struct tw_wheel *w)
{
	unsigned int idx;

	if (!hlist_empty(&w->expired) || !hlist_empty(&w->cascade))
		return w->clk;
	return next_bucket(w, &idx);
}
EXPORT_SYMBOL_IF_KUNIT(tw_wheel_next_event);

/**
 * tw_next_event() - tick at which a base next has work
 * @base: the base, locked
 *
 * Return: the earliest tw_wheel_next_event() of its wheels, U64_MAX when
 * the base is empty.
 */
u64 tw_next_event(const struct tw_base *base)
{
	u64 next = U64_MAX;
	unsigned int q;

	for_each_set_bit(q, &base->active, TW_NR_QUEUES)
		next = min(next, tw_wheel_next_event(base->wheels[q]));
	return next;
}
EXPORT_SYMBOL_IF_KUNIT(tw_next_event);

static void mark_bucket(struct tw_wheel *w, unsigned int idx)
{
	unsigned int lvl = idx / TW_LVL_SIZE;

	w->occupied[lvl] |= 1ULL << (idx % TW_LVL_SIZE);
	__set_bit(lvl, &w->levels_map);
}

static void clear_bucket_if_empty(struct tw_wheel *w, unsigned int idx)
{
	unsigned int lvl = idx / TW_LVL_SIZE;

	if (!hlist_empty(&w->buckets[idx]))
		return;
	w->occupied[lvl] &= ~(1ULL << (idx % TW_LVL_SIZE));
	if (!w->occupied[lvl])
		__clear_bit(lvl, &w->levels_map);
}

/* Queue @t at the end of the expired list, which keeps expiry order. */
static void add_expired(struct tw_wheel *w, struct twheel_timeout *t)
{
	t->idx = TW_IDX_EXPIRED;
	if (w->expired_last)
		hlist_add_behind(&t->entry, w->expired_last);
	else
		hlist_add_head(&t->entry, &w->expired);
	w->expired_last = &t->entry;
}

/* @t, last on the expired list, leaves it: the entry before it is last. */
static void drop_expired_last(struct tw_wheel *w, struct twheel_timeout *t)
{
	if (t->entry.pprev == &w->expired.first)
		w->expired_last = NULL;
	else
		w->expired_last = container_of(t->entry.pprev,
					       struct hlist_node, next);
}

/*
 * File @t, on no list, by its @expires: due ones (expires <= clk) go to the
 * end of the expired list, the others to their bucket, where the order does
 * not matter: a bucket is re-filed whole when it is due.
 */
static void file_timeout(struct tw_wheel *w, struct twheel_timeout *t)
{
	unsigned int idx;

	if (t->expires <= w->clk) {
		add_expired(w, t);
		return;
	}
	idx = tw_calc_idx(w->clk, t->expires);
	t->idx = idx;
	hlist_add_head(&t->entry, &w->buckets[idx]);
	mark_bucket(w, idx);
}

/**
 * tw_enqueue() - queue a timeout on a base
 * @base: the base, locked
 * @t: a timeout on no list, with @t->expires set; its flags name its queue
 *
 * Files @t on the wheel of its queue and counts it in @base->nr_pending;
 * does not program the hrtimer.
 */
void tw_enqueue(struct tw_base *base, struct twheel_timeout *t)
{
	struct tw_wheel *w = tw_wheel_of(base, t->flags);

	file_timeout(w, t);
	if (!w->nr_pending++)
		__set_bit(tw_flags_queue(t->flags), &base->active);
	base->nr_pending++;
}
EXPORT_SYMBOL_IF_KUNIT(tw_enqueue);

/**
 * tw_dequeue() - take a timeout off whatever list of @base holds it
 * @base: the base, locked
 * @t: the timeout
 *
 * A timeout on the cascade list still has the index of the bucket it was
 * taken from (buckets move whole, see take_bucket()); that bucket is empty
 * or refilled, and clear_bucket_if_empty() is right either way.
 *
 * Return: true if @t was queued and is now removed.
 */
bool tw_dequeue(struct tw_base *base, struct twheel_timeout *t)
{
	struct tw_wheel *w;

	if (hlist_unhashed(&t->entry))
		return false;
	w = tw_wheel_of(base, t->flags);
	if (w->expired_last == &t->entry)
		drop_expired_last(w, t);
	hlist_del_init(&t->entry);
	if (t->idx < TW_NR_BUCKETS)
		clear_bucket_if_empty(w, t->idx);
	if (!--w->nr_pending)
		__clear_bit(tw_flags_queue(t->flags), &base->active);
	base->nr_pending--;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(tw_dequeue);

/*
 * Move the due bucket @idx to the cascade list, which is empty: O(1), no
 * entry is touched.
 */
static void take_bucket(struct tw_wheel *w, unsigned int idx)
{
	hlist_move_list(&w->buckets[idx], &w->cascade);
	clear_bucket_if_empty(w, idx);
}

/*
 * Re-file up to @budget timeouts of @w's cascade list, dropping the base
 * lock after every TW_LOCKED_CHUNK moved (counted over the wheels, in
 * @base->moved) so that interrupts are never off for long. While the lock
 * is dropped the cascade list is not empty, so nothing moves the wheel's
 * clock (forward_clk()) and arms and cancels may come in.
 * Return: false if some remain.
 */
static bool drain_cascade(struct tw_base *base, struct tw_wheel *w,
			  unsigned int *budget)
{
	struct twheel_timeout *t;

	while (!hlist_empty(&w->cascade)) {
		if (!*budget)
			return false;
		(*budget)--;
		t = hlist_entry(w->cascade.first, struct twheel_timeout, entry);
		__hlist_del(&t->entry);
		file_timeout(w, t);
		if (t->idx != TW_IDX_EXPIRED)
			base->stats.cascaded++;
		if (++base->moved == TW_LOCKED_CHUNK) {
			base->moved = 0;
			raw_spin_unlock_irq(&base->lock);
			raw_spin_lock_irq(&base->lock);
		}
	}
	return true;
}

/*
 * Nothing is due before the next bucket, so the clock may catch up with @now
 * up to just before it: new timeouts then land on the lowest level they can.
 */
static void forward_clk(struct tw_wheel *w, u64 now)
{
	unsigned int idx;
	u64 next;

	if (now <= w->clk || !hlist_empty(&w->cascade))
		return;
	next = next_bucket(w, &idx);
	w->clk = min(now, next - 1);
}

/**
 * tw_wheel_advance() - bring a wheel's clock up to a tick
 * @base: the wheel's base, locked with raw_spin_lock_irq(); dropped and
 *	retaken between chunks of work
 * @w: the wheel
 * @now: the current tick
 * @budget: how many timeouts may still be re-filed; decremented
 *
 * Visits only occupied buckets, in tick order: each due bucket is moved to
 * the cascade list and its timeouts re-filed against the bucket's tick, so
 * due ones reach the expired list and the others a lower level.
 *
 * Return: true if the budget ran out before the clock reached @now.
 */
bool tw_wheel_advance(struct tw_base *base, struct tw_wheel *w, u64 now,
		      unsigned int *budget)
{
	unsigned int idx;
	u64 next;

	for (;;) {
		if (!drain_cascade(base, w, budget))
			return true;
		next = next_bucket(w, &idx);
		if (next > now)
			break;
		w->clk = next;
		take_bucket(w, idx);
	}
	forward_clk(w, now);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(tw_wheel_advance);

/**
 * tw_wheel_init() - initialise an empty wheel
 * @w: the wheel
 * @clk: its starting tick
 *
 * Zeroed, every list head of the wheel is an empty list.
 */
void tw_wheel_init(struct tw_wheel *w, u64 clk)
{
	memset(w, 0, sizeof(*w));
	w->clk = clk;
}
EXPORT_SYMBOL_IF_KUNIT(tw_wheel_init);

/**
 * tw_base_init() - initialise a base
 * @base: the base
 * @cpu: CPU it belongs to (any value for a private base)
 * @clock: the clock of its ticks
 * @clk: its starting tick
 *
 * The base starts offline: it programs no hrtimer until it is brought
 * online, and with its own wheel only, queue 0's (cpu.c installs the
 * others). The hrtimer and the kick are set up by cpu.c.
 */
void tw_base_init(struct tw_base *base, unsigned int cpu,
		  enum tw_clock clock, u64 clk)
{
	memset(base, 0, sizeof(*base));
	raw_spin_lock_init(&base->lock);
	spin_lock_init(&base->expiry_lock);
	base->cpu = cpu;
	base->clock = clock;
	base->programmed = U64_MAX;
	tw_wheel_init(&base->own, clk);
	base->wheels[0] = &base->own;
}
EXPORT_SYMBOL_IF_KUNIT(tw_base_init);

/**
 * tw_program() - make sure a base's hrtimer fires by a tick
 * @base: the base, locked
 * @due: the tick; U64_MAX for none
 *
 * The hrtimer is never set later than the earliest queued work, so an
 * earlier @due is the only reason to move it; nor for the tick of its last
 * run or before, so that a base runs at most once a tick (a timeout due by
 * then waits for the next tick: one tick late at most after its arm) and
 * arms from another CPU send at most one kick a tick, however many come.
 * Only the base's own CPU starts its pinned hrtimer; an arm from another CPU
 * sends the kick instead. The hrtimer callback programs the timer when it
 * finishes, so nothing is done while it runs.
 */
void tw_program(struct tw_base *base, u64 due)
{
	due = max(due, base->last_fire + 1);
	if (due >= base->programmed || !base->online || base->in_timer)
		return;
	if (base->cpu != smp_processor_id()) {
		tw_send_kick(base);
		return;
	}
	base->programmed = due;
	hrtimer_start(&base->timer, ns_to_ktime(tw_tick_to_ns(due)),
		      HRTIMER_MODE_ABS_PINNED_SOFT);
}
EXPORT_SYMBOL_IF_KUNIT(tw_program);

/**
 * tw_idle_base() - cancel the hrtimer of a base that became empty
 * @base: the base, locked
 *
 * Keeps the CPU tickless; the callback itself reprograms when it finishes.
 */
void tw_idle_base(struct tw_base *base)
{
	if (base->nr_pending || base->in_timer ||
	    base->programmed == U64_MAX)
		return;
	if (hrtimer_try_to_cancel(&base->timer) >= 0)
		base->programmed = U64_MAX;
}

/* Tick at which the base must look at @t, just filed on wheel @w. */
static u64 due_tick(const struct tw_wheel *w, const struct twheel_timeout *t)
{
	if (t->idx < TW_NR_BUCKETS)
		return tw_bucket_tick(w->clk, t->idx);
	return w->clk;
}

static struct tw_base *tw_lock_timeout_base(struct twheel_timeout *t,
					    unsigned long *flags)
	__acquires(&base->lock)
{
	struct tw_base *base;
	u32 tf;

	for (;;) {
		tf = READ_ONCE(t->flags);
		if (!(tf & TW_F_MIGRATING)) {
			base = tw_base_of_flags(tf);
			raw_spin_lock_irqsave(&base->lock, *flags);
			if (READ_ONCE(t->flags) == tf)
				return base;
			raw_spin_unlock_irqrestore(&base->lock, *flags);
		}
		cpu_relax();
	}
}

#ifdef CONFIG_DEBUG_OBJECTS_TIMERS
static const struct debug_obj_descr twheel_debug_descr;

static void *debug_hint(void *addr)
{
	return ((struct twheel_timeout *)addr)->func;
}

/* Initialising an armed timeout: take it off its wheel first. */
static bool debug_fixup_init(void *addr, enum debug_obj_state state)
{
	struct twheel_timeout *t = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	twheel_cancel(t);
	debug_object_init(t, &twheel_debug_descr);
	return true;
}

/* Freeing an armed timeout: take it off its wheel before it is reused. */
static bool debug_fixup_free(void *addr, enum debug_obj_state state)
{
	struct twheel_timeout *t = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	twheel_cancel(t);
	debug_object_free(t, &twheel_debug_descr);
	return true;
}

static const struct debug_obj_descr twheel_debug_descr = {
	.name = "twheel_timeout",
	.debug_hint = debug_hint,
	.fixup_init = debug_fixup_init,
	.fixup_free = debug_fixup_free,
};

static void debug_init(struct twheel_timeout *t)
{
	debug_object_init(t, &twheel_debug_descr);
}

static void debug_activate(struct twheel_timeout *t)
{
	debug_object_activate(t, &twheel_debug_descr);
}

/**
 * tw_debug_deactivate() - tell debug objects a timeout left its wheel
 * @t: the timeout, just dequeued to be cancelled or to run its callback
 */
void tw_debug_deactivate(struct twheel_timeout *t)
{
	debug_object_deactivate(t, &twheel_debug_descr);
}
#else
static void debug_init(struct twheel_timeout *t) { }
static void debug_activate(struct twheel_timeout *t) { }
void tw_debug_deactivate(struct twheel_timeout *t) { }
#endif

/* The CPU whose wheel takes a timeout armed with TWHEEL_CPU_LOCAL here. */
static unsigned int local_target_cpu(void)
{
	unsigned int cpu = smp_processor_id();

	if (housekeeping_cpu(cpu, HK_TYPE_TIMER))
		return cpu;
	return housekeeping_any_cpu(HK_TYPE_TIMER);
}

/**
 * tw_other_cpu() - where timeouts go when they cannot stay on a CPU
 * @cpu: the CPU they leave (going down, or not taking timeouts)
 *
 * An online CPU other than @cpu that is not isolated from timers, as
 * hrtimers_cpu_dying() picks for the hrtimers of a dying CPU; any other
 * online CPU if there is none.
 *
 * Return: the CPU, or nr_cpu_ids if @cpu is the only one online.
 */
unsigned int tw_other_cpu(unsigned int cpu)
{
	unsigned int other;

	for_each_cpu_and(other, cpu_online_mask,
			 housekeeping_cpumask(HK_TYPE_TIMER))
		if (other != cpu)
			return other;
	return cpumask_any_but(cpu_online_mask, cpu);
}

/**
 * tw_target_base() - base that takes a timeout armed for a CPU
 * @cpu: the chosen CPU, or TWHEEL_CPU_LOCAL
 * @clock: the timeout's clock
 *
 * Context: interrupts off (a base lock is held).
 * Return: the chosen CPU's base if it takes timeouts, else the local (or
 * housekeeping) one, else any online CPU's.
 */
static struct tw_base *tw_target_base(int cpu, enum tw_clock clock)
{
	struct tw_base *new;

	if (cpu != TWHEEL_CPU_LOCAL) {
		new = tw_base_of(cpu, clock);
		if (READ_ONCE(new->online))
			return new;
	}
	new = tw_base_of(local_target_cpu(), clock);
	if (READ_ONCE(new->online))
		return new;
	/* That CPU is going down: another online one that takes timers. */
	return tw_base_of(tw_other_cpu(new->cpu), clock);
}

/*
 * Move @t, dequeued and marked TW_F_MIGRATING, from @base (locked, unlocked
 * on return) to @new (returned locked). @base may have become empty.
 */
static struct tw_base *switch_base(struct twheel_timeout *t,
				   struct tw_base *base, struct tw_base *new)
	__releases(&base->lock) __acquires(&new->lock)
{
	WRITE_ONCE(t->flags, t->flags | TW_F_MIGRATING);
	tw_idle_base(base);
	raw_spin_unlock(&base->lock);
	raw_spin_lock(&new->lock);
	WRITE_ONCE(t->flags, (t->flags & ~(TW_F_MIGRATING | TW_F_CPU_MASK)) |
		   new->cpu);
	new->stats.migrated++;
	return new;
}

/* Does @flags tell mod_timeout() to leave @t as it is? */
static bool mod_skips(const struct twheel_timeout *t, bool was_pending,
		      unsigned int flags)
{
	if (t->flags & TW_F_SHUTDOWN)
		return true;
	if (flags & TWHEEL_MOD_PENDING_ONLY)
		return !was_pending;
	if (flags & TWHEEL_MOD_IDLE_ONLY)
		return was_pending;
	return false;
}

/* Re-arming a pending timeout into the bucket it is in: only @expires moves. */
static bool same_bucket(const struct tw_base *base,
			const struct twheel_timeout *t, u64 expires, int cpu)
{
	const struct tw_wheel *w = tw_wheel_of(base, t->flags);

	return t->idx < TW_NR_BUCKETS && expires > w->clk &&
	       (cpu == TWHEEL_CPU_LOCAL || cpu == base->cpu) &&
	       tw_calc_idx(w->clk, expires) == t->idx;
}

/*
 * The arm primitive: queue @t, pending or not, at tick @expires on the base
 * chosen by @cpu (tw_target_base()). @now is the current tick.
 * Return: 1 if @t was pending, else 0.
 */
static int mod_timeout(struct twheel_timeout *t, u64 expires, u64 now,
		       int cpu, unsigned int flags)
{
	struct tw_base *base, *new;
	unsigned long irqflags;
	struct tw_wheel *w;
	bool was_pending;

	base = tw_lock_timeout_base(t, &irqflags);
	was_pending = !hlist_unhashed(&t->entry);
	if (mod_skips(t, was_pending, flags))
		goto out_unlock;
	if (was_pending && same_bucket(base, t, expires, cpu)) {
		t->expires = expires;
		base->stats.rearmed++;
		goto out_trace;
	}
	if (was_pending)
		tw_dequeue(base, t);
	else
		debug_activate(t);
	/* A timeout whose callback runs stays put: see twheel_cancel_sync(). */
	while (base->running != t) {
		new = tw_target_base(cpu, base->clock);
		if (new == base)
			break;
		base = switch_base(t, base, new);
		if (base->online)
			break;
	}
	w = tw_wheel_of(base, t->flags);
	forward_clk(w, now);
	t->expires = expires;
	tw_enqueue(base, t);
	if (was_pending)
		base->stats.rearmed++;
	else
		base->stats.armed++;
	tw_program(base, due_tick(w, t));
out_trace:
	trace_twheel_arm(t, expires, base->cpu);
out_unlock:
	raw_spin_unlock_irqrestore(&base->lock, irqflags);
	return was_pending;
}

/**
 * tw_mod() - twheel_mod() for a caller that has validated its arguments
 * @t: an initialised timeout
 * @deadline_ns: deadline in @t's clock, accepted by tw_check_deadline()
 * @now_ns: @t's clock as read by the caller, not after this call
 * @cpu: a possible CPU or TWHEEL_CPU_LOCAL
 * @flags: one of the TWHEEL_MOD_* flags or 0
 *
 * Return: as twheel_mod().
 */
int tw_mod(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns, int cpu,
	   unsigned int flags)
{
	return mod_timeout(t, tw_ns_to_tick(deadline_ns),
			   tw_ns_to_tick_floor(now_ns), cpu, flags);
}

/**
 * __twheel_timeout_init() - prepare a timeout for use
 * @t: the timeout
 * @func: callback run when it expires
 * @clockid: CLOCK_MONOTONIC or CLOCK_BOOTTIME, the clock of its deadlines
 * @name: lockdep name of the call site (NULL without lockdep)
 * @key: lockdep class of the call site (NULL without lockdep)
 *
 * Use twheel_timeout_init() or twheel_timeout_init_clock(), which supply
 * @name and @key. Must be called once before @t is armed; never on a
 * pending timeout. Also undoes twheel_shutdown(). Any other @clockid is a
 * bug: it warns once and uses CLOCK_MONOTONIC, as hrtimer_setup() does.
 *
 * Context: any context.
 */
void __twheel_timeout_init(struct twheel_timeout *t, twheel_fn_t func,
			   clockid_t clockid, const char *name,
			   struct lock_class_key *key)
{
	debug_init(t);
	INIT_HLIST_NODE(&t->entry);
	t->expires = 0;
	t->func = func;
	t->idx = 0;
	t->flags = raw_smp_processor_id();
	if (clockid == CLOCK_BOOTTIME)
		t->flags |= TW_F_BOOTTIME;
	else
		WARN_ON_ONCE(clockid != CLOCK_MONOTONIC);
#ifdef CONFIG_LOCKDEP
	lockdep_init_map(&t->lockdep_map, name, key, 0);
#endif
}
EXPORT_SYMBOL_GPL(__twheel_timeout_init);

/**
 * tw_set_clock() - move an idle timeout to another clock
 * @t: an initialised timeout that is not pending, whose callback does not
 *	run, and that nothing else arms or cancels meanwhile
 * @clock: its clock from now on
 */
void tw_set_clock(struct twheel_timeout *t, enum tw_clock clock)
{
	u32 tf = t->flags & ~TW_F_BOOTTIME;

	WRITE_ONCE(t->flags, clock == TW_CLOCK_BOOT ? tf | TW_F_BOOTTIME : tf);
}

/**
 * tw_set_queue() - give an idle timeout to an owner's queue
 * @t: as for tw_set_clock()
 * @queue: a queue from tw_queue_get(), or 0 (the kernel clients')
 *
 * twheel_timeout_init() puts every timeout on queue 0.
 */
void tw_set_queue(struct twheel_timeout *t, unsigned int queue)
{
	WRITE_ONCE(t->flags, (t->flags & ~TW_F_QUEUE_MASK) |
		   queue << TW_F_QUEUE_SHIFT);
}
EXPORT_SYMBOL_IF_KUNIT(tw_set_queue);

/*
 * twheel_mod() once @now_ns is known to be a real reading, or @wheel_now a
 * time not past it: the checks, against the caller's @now_ns, then the arm.
 */
static int mod_checked(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns,
		       u64 wheel_now, int cpu, unsigned int flags)
{
	int ret;

	if (flags & ~(TWHEEL_MOD_PENDING_ONLY | TWHEEL_MOD_IDLE_ONLY) ||
	    flags == (TWHEEL_MOD_PENDING_ONLY | TWHEEL_MOD_IDLE_ONLY))
		return -EINVAL;
	if (cpu != TWHEEL_CPU_LOCAL &&
	    (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu)))
		return -EINVAL;
	ret = tw_check_deadline(deadline_ns, now_ns);
	if (ret)
		return ret;
	return tw_mod(t, deadline_ns, wheel_now, cpu, flags);
}

/**
 * twheel_mod() - arm or move a timeout to an absolute time, with a clock
 *	reading the caller already has
 * @t: an initialised timeout
 * @deadline_ns: deadline in @t's clock (twheel_clock_ns() nanoseconds); a
 *	time in the past makes the timeout fire at once
 * @now_ns: twheel_clock_ns() as read by the caller, not after this call
 * @cpu: CPU whose wheel takes the timeout, or TWHEEL_CPU_LOCAL (the local
 *	CPU, or a housekeeping CPU when the local one is isolated from timers)
 * @flags: 0, TWHEEL_MOD_PENDING_ONLY or TWHEEL_MOD_IDLE_ONLY
 *
 * The primitive behind twheel_arm(), twheel_arm_abs() and twheel_rearm().
 * If @cpu is offline, or goes offline later, the timeout runs on another
 * CPU, keeping its deadline. A pending timeout is moved to its new expiry;
 * re-arming into the bucket it is already in costs no list operation. While
 * its callback runs, @t stays on the CPU that runs it. A shut down timeout
 * is left alone.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 0 if @t was not pending, 1 if it was (re-armed unless
 * TWHEEL_MOD_IDLE_ONLY), -EINVAL for a CPU that is not possible or unknown
 * flags, -ERANGE if @deadline_ns is past the clock's range or further than
 * twheel_max_delay_ns() ahead of @now_ns.
 */
int twheel_mod(struct twheel_timeout *t, u64 deadline_ns, u64 now_ns,
	       int cpu, unsigned int flags)
{
	enum tw_clock clock = tw_flags_clock(READ_ONCE(t->flags));

	/*
	 * The wheel's clock may follow @now_ns forward (forward_clk()), and
	 * other clients' timeouts are filed against it: never past the real
	 * clock, whatever the caller passed. The coarse clock lags the real
	 * one and costs no clock read.
	 */
	return mod_checked(t, deadline_ns, now_ns,
			   min(now_ns, tw_coarse_ns(clock)), cpu, flags);
}
EXPORT_SYMBOL_GPL(twheel_mod);

/**
 * twheel_arm() - arm or re-arm a timeout after a delay, on the local CPU
 * @t: an initialised timeout
 * @delay_ns: delay from now, at most twheel_max_delay_ns()
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 0 if @t was not pending, 1 if it was (and is re-armed), -ERANGE if
 * @delay_ns is too long.
 */
int twheel_arm(struct twheel_timeout *t, u64 delay_ns)
{
	u64 now = twheel_clock_ns(t);

	if (delay_ns > max_delay_ns)
		return -ERANGE;
	return mod_checked(t, now + delay_ns, now, now, TWHEEL_CPU_LOCAL, 0);
}
EXPORT_SYMBOL_GPL(twheel_arm);

/**
 * twheel_arm_abs() - arm or re-arm a timeout at an absolute time
 * @t: an initialised timeout
 * @deadline_ns: deadline in @t's clock (twheel_clock_ns() nanoseconds); a
 *	time in the past makes the timeout fire at once
 * @cpu: CPU whose wheel takes the timeout, or TWHEEL_CPU_LOCAL
 *
 * As twheel_mod() with the current time and no flags.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 0 if @t was not pending, 1 if it was (and is re-armed), -EINVAL if
 * @cpu is not a possible CPU, -ERANGE if @deadline_ns is further away than
 * twheel_max_delay_ns().
 */
int twheel_arm_abs(struct twheel_timeout *t, u64 deadline_ns, int cpu)
{
	u64 now = twheel_clock_ns(t);

	return mod_checked(t, deadline_ns, now, now, cpu, 0);
}
EXPORT_SYMBOL_GPL(twheel_arm_abs);

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
	u64 now = twheel_clock_ns(t);

	if (delay_ns > max_delay_ns)
		return -ERANGE;
	return mod_checked(t, now + delay_ns, now, now, TWHEEL_CPU_LOCAL,
			   TWHEEL_MOD_PENDING_ONLY);
}
EXPORT_SYMBOL_GPL(twheel_rearm);

/* Take @t off @base (locked); @shutdown also makes later arms no-ops. */
static int cancel_locked(struct tw_base *base, struct twheel_timeout *t,
			 bool shutdown)
{
	if (shutdown)
		WRITE_ONCE(t->flags, t->flags | TW_F_SHUTDOWN);
	if (!tw_dequeue(base, t))
		return 0;
	tw_debug_deactivate(t);
	base->stats.cancelled++;
	trace_twheel_cancel(t, base->cpu);
	tw_idle_base(base);
	return 1;
}

/*
 * The cancel primitive. @try: fail with -EBUSY while the callback runs.
 * @shutdown: also make every later arm a no-op, even one the running
 * callback makes. Return: 1 if @t was pending and is removed, 0 if not.
 */
static int cancel_timeout(struct twheel_timeout *t, bool try, bool shutdown)
{
	struct tw_base *base;
	unsigned long flags;
	int ret;

	base = tw_lock_timeout_base(t, &flags);
	if (try && base->running == t) {
		if (shutdown)
			WRITE_ONCE(t->flags, t->flags | TW_F_SHUTDOWN);
		ret = -EBUSY;
	} else {
		ret = cancel_locked(base, t, shutdown);
	}
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return ret;
}

/*
 * Shut down @ts[0] and the timeouts after it that share its base, under one
 * hold of that base's lock. Return: how many.
 */
static unsigned int shutdown_run(struct twheel_timeout **ts, unsigned int n)
{
	struct tw_base *base;
	unsigned long flags;
	unsigned int i = 0;

	base = tw_lock_timeout_base(ts[0], &flags);
	do {
		cancel_locked(base, ts[i], true);
	} while (++i < n && (READ_ONCE(ts[i]->flags) & TW_F_BASE_MASK) ==
			    tw_base_flags(base));
	raw_spin_unlock_irqrestore(&base->lock, flags);
	return i;
}

/**
 * tw_shutdown_many() - twheel_shutdown() a set of timeouts
 * @ts: the timeouts
 * @n: how many, at most TW_LOCKED_CHUNK: the base lock is held across a run
 *	of timeouts on the same base, with interrupts off
 *
 * Does not wait for running callbacks: tw_sync_callbacks() does, for all.
 * A timeout that names the locked base cannot leave it while it is held.
 */
void tw_shutdown_many(struct twheel_timeout **ts, unsigned int n)
{
	unsigned int done = 0;

	while (done < n)
		done += shutdown_run(ts + done, n - done);
}

/* Cancel, then wait for a running callback until none runs. */
static int cancel_sync(struct twheel_timeout *t, bool shutdown)
{
	int ret;

	/* A caller holding a lock its callback takes deadlocks: tell lockdep. */
#ifdef CONFIG_LOCKDEP
	unsigned long flags;

	local_irq_save(flags);
	lock_map_acquire(&t->lockdep_map);
	lock_map_release(&t->lockdep_map);
	local_irq_restore(flags);
#endif
	WARN_ON_ONCE(in_hardirq());
	/*
	 * A callback that waited for another could wait for one that waits
	 * for it, on its own CPU's expiry lock or another's: not allowed.
	 */
	if (WARN_ONCE(tw_in_callback(),
		      "twheel: waiting for a callback from a timeout callback\n"))
		return cancel_timeout(t, false, shutdown);
	for (;;) {
		ret = cancel_timeout(t, true, shutdown);
		if (ret >= 0)
			return ret;
		tw_wait_running(t);
	}
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
	return cancel_timeout(t, false, false);
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
	return cancel_timeout(t, true, false);
}
EXPORT_SYMBOL_GPL(twheel_try_cancel);

/**
 * twheel_cancel_sync() - cancel a timeout and wait for its callback
 * @t: an initialised timeout
 *
 * On return @t is not pending and its callback runs on no CPU, even if the
 * callback re-arms @t. While the callback runs, waits on its CPU's expiry
 * lock, which on PREEMPT_RT sleeps and lends the caller's priority to the
 * callback instead of spinning. Lockdep reports a caller that holds a lock
 * the callback takes, and two callbacks that wait on each other.
 *
 * Context: process or softirq context, not hard interrupt, and not while
 * holding a lock that the callback takes. Never from a timeout's callback
 * (two callbacks waiting on each other deadlock): that warns once and only
 * cancels, without waiting.
 * Return: 1 if a pending arming of @t was removed, 0 otherwise.
 */
int twheel_cancel_sync(struct twheel_timeout *t)
{
	return cancel_sync(t, false);
}
EXPORT_SYMBOL_GPL(twheel_cancel_sync);

/**
 * twheel_shutdown() - cancel a timeout and make later arms no-ops
 * @t: an initialised timeout
 *
 * Like twheel_cancel(), and every later arm of @t (twheel_arm() and the
 * others) does nothing and returns 0, including one made by a callback that
 * is running now. twheel_timeout_init() makes @t usable again.
 *
 * Context: any context; takes an irq-safe raw spinlock.
 * Return: 1 if @t was pending and is removed, 0 if it was not pending.
 */
int twheel_shutdown(struct twheel_timeout *t)
{
	return cancel_timeout(t, false, true);
}
EXPORT_SYMBOL_GPL(twheel_shutdown);

/**
 * twheel_shutdown_sync() - shut a timeout down and wait for its callback
 * @t: an initialised timeout
 *
 * twheel_shutdown() and twheel_cancel_sync() in one: on return @t is not
 * pending, its callback runs on no CPU and nothing can arm it again, so its
 * memory may be freed. Use it on teardown paths, like timer_shutdown_sync().
 *
 * Context: as twheel_cancel_sync().
 * Return: 1 if a pending arming of @t was removed, 0 otherwise.
 */
int twheel_shutdown_sync(struct twheel_timeout *t)
{
	return cancel_sync(t, true);
}
EXPORT_SYMBOL_GPL(twheel_shutdown_sync);

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
	return !hlist_unhashed_lockless(&t->entry);
}
EXPORT_SYMBOL_GPL(twheel_pending);

/**
 * twheel_clock_ns() - the current time of a timeout's clock
 * @t: an initialised timeout
 *
 * Context: any context.
 * Return: ktime_get_ns() for a CLOCK_MONOTONIC timeout,
 * ktime_get_boottime_ns() for a CLOCK_BOOTTIME one.
 */
u64 twheel_clock_ns(const struct twheel_timeout *t)
{
	return tw_clock_ns(tw_flags_clock(READ_ONCE(t->flags)));
}
EXPORT_SYMBOL_GPL(twheel_clock_ns);

/**
 * twheel_tick_ns() - the wheel's tick
 *
 * Context: any context.
 * Return: tick length in nanoseconds (module parameter tick_ns).
 */
u64 twheel_tick_ns(void)
{
	return tick_ns;
}
EXPORT_SYMBOL_GPL(twheel_tick_ns);

/**
 * twheel_max_delay_ns() - the longest delay an arm accepts
 *
 * Context: any context.
 * Return: the longest delay in nanoseconds (2^40 ticks, at most KTIME_MAX).
 */
u64 twheel_max_delay_ns(void)
{
	return max_delay_ns;
}
EXPORT_SYMBOL_GPL(twheel_max_delay_ns);
