// SPDX-License-Identifier: GPL-2.0
/*
 * twheel_bench: in-kernel benchmark of timer_list, hrtimer and twheel
 *
 * Drives the kernel's own timer_list (mod_timer/timer_delete), hrtimer
 * (hrtimer_start/hrtimer_try_to_cancel) and twheel's exported API
 * (twheel_arm/twheel_rearm/twheel_cancel; as "twheel-now", twheel_mod()
 * with a clock reading the caller already has) with the same workloads as the
 * userspace benchmark (bench/src/twbench.c), so the cost of the
 * wheel itself can be told apart from the cost of the system call around it:
 *
 *   churn   "pending" far-away timeouts sit queued while a loop arms a short
 *           one per request and, a window of 512 requests later, cancels it
 *           (90%) or lets it fire (10%); operations = arms + cancels;
 *   cancel  cancel distinct random timeouts out of "pending";
 *   rearm   push random timeouts out of "pending" further away.
 *
 * Everything runs when the module is loaded, in a kthread bound to one CPU
 * (so every timer stays on that CPU's base), and insmod returns when it is
 * done. Each measurement is printed as one line of JSON prefixed with
 * "twheel_bench: " on the kernel log, which bench/scripts/bench-guest.sh
 * collects.
 * Loops are bounded by an operation count and a time budget (time_ms); the
 * whole set runs "reps" times, peers interleaved, and the report takes the
 * best round of each. "kprim" lines give the cost of a clock read, a 64-bit
 * division and an irq-safe lock pair on the machine, for the profile notes.
 * Objects live in one vzalloc()ed array per peer; the module can be removed
 * once loading has returned. Needs Linux 6.2 or later (timer_delete()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/timer.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/xarray.h>

#ifdef TWHEEL_BENCH_OLD_API_HEADER
#include "twheel.h"
#else
#include <linux/twheel.h>
#endif

#define KB_WINDOW	512U
#define KB_POOL		(8U * KB_WINDOW + 4096U)
#define KB_CHECK	64U
#define KB_FAR_NS	(600ULL * NSEC_PER_SEC)

static unsigned int pending[8] = { 1000, 100000, 1000000 };
static int npending = 3;
module_param_array(pending, uint, &npending, 0444);
MODULE_PARM_DESC(pending, "Pending counts to measure at (default 1000,100000,1000000)");

static unsigned int ops = 500000;
module_param(ops, uint, 0444);
MODULE_PARM_DESC(ops, "Most operations per measurement (default 500000)");

static unsigned int time_ms = 1000;
module_param(time_ms, uint, 0444);
MODULE_PARM_DESC(time_ms, "Longest time per measurement in ms (default 1000)");

static unsigned int peers = 15;
module_param(peers, uint, 0444);
MODULE_PARM_DESC(peers, "Peers to run: 1 timer_list, 2 hrtimer, 4 twheel, 8 twheel with the caller's clock (default 15)");

static unsigned int reps = 3;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "Rounds over all peers, interleaved (default 3)");

static int cpu;
module_param(cpu, int, 0444);
MODULE_PARM_DESC(cpu, "CPU to run on (default 0)");

static atomic_t kb_fired = ATOMIC_INIT(0);

struct kb_peer {
	const char *name;
	size_t size;
	void (*init)(void *obj);
	void (*arm)(void *obj, u64 ns);
	void (*rearm)(void *obj, u64 ns);
	void (*cancel)(void *obj);
	void (*cancel_sync)(void *obj);
	bool (*pending)(void *obj);
};

/* timer_list */

static void kb_tl_fn(struct timer_list *t)
{
	atomic_inc(&kb_fired);
}

static void kb_tl_init(void *obj)
{
	timer_setup((struct timer_list *)obj, kb_tl_fn, 0);
}

static void kb_tl_arm(void *obj, u64 ns)
{
	mod_timer(obj, jiffies + nsecs_to_jiffies(ns) + 1);
}

static void kb_tl_cancel(void *obj)
{
	timer_delete(obj);
}

static void kb_tl_cancel_sync(void *obj)
{
	timer_delete_sync(obj);
}

static bool kb_tl_pending(void *obj)
{
	return timer_pending(obj);
}

/* hrtimer */

static enum hrtimer_restart kb_hr_fn(struct hrtimer *h)
{
	atomic_inc(&kb_fired);
	return HRTIMER_NORESTART;
}

static void kb_hr_init(void *obj)
{
	struct hrtimer *h = obj;

	hrtimer_init(h, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	h->function = kb_hr_fn;
}

static void kb_hr_arm(void *obj, u64 ns)
{
	hrtimer_start(obj, ns_to_ktime(ns), HRTIMER_MODE_REL);
}

static void kb_hr_cancel(void *obj)
{
	hrtimer_try_to_cancel(obj);
}

static void kb_hr_cancel_sync(void *obj)
{
	hrtimer_cancel(obj);
}

static bool kb_hr_pending(void *obj)
{
	return hrtimer_active(obj);
}

/* twheel */

static void kb_tw_fn(struct twheel_timeout *t)
{
	atomic_inc(&kb_fired);
}

static void kb_tw_init(void *obj)
{
	twheel_timeout_init(obj, kb_tw_fn);
}

static void kb_tw_arm(void *obj, u64 ns)
{
	twheel_arm(obj, ns);
}

static void kb_tw_rearm(void *obj, u64 ns)
{
	twheel_rearm(obj, ns);
}

static void kb_tw_cancel(void *obj)
{
	twheel_cancel(obj);
}

static void kb_tw_cancel_sync(void *obj)
{
	twheel_cancel_sync(obj);
}

static bool kb_tw_pending(void *obj)
{
	return twheel_pending(obj);
}

/*
 * twheel with the caller's clock: twheel_mod() with a reading taken once
 * every KB_NOW_EVERY arms, as a caller that already has the time would pass
 * it (timer_list's callers read jiffies, a load). Never later than the arm.
 */
#define KB_NOW_EVERY	64U

static u64 kb_now;
static unsigned int kb_now_uses;

static u64 kb_caller_now(void)
{
	if (!(kb_now_uses++ % KB_NOW_EVERY))
		kb_now = ktime_get_ns();
	return kb_now;
}

static void kb_twn_arm(void *obj, u64 ns)
{
	u64 now = kb_caller_now();

	twheel_mod(obj, now + ns, now, TWHEEL_CPU_LOCAL, 0);
}

static void kb_twn_rearm(void *obj, u64 ns)
{
	u64 now = kb_caller_now();

	twheel_mod(obj, now + ns, now, TWHEEL_CPU_LOCAL,
		   TWHEEL_MOD_PENDING_ONLY);
}

static const struct kb_peer kb_peers[] = {
	{
		.name = "timer_list", .size = sizeof(struct timer_list),
		.init = kb_tl_init, .arm = kb_tl_arm, .rearm = kb_tl_arm,
		.cancel = kb_tl_cancel, .cancel_sync = kb_tl_cancel_sync,
		.pending = kb_tl_pending,
	},
	{
		.name = "hrtimer", .size = sizeof(struct hrtimer),
		.init = kb_hr_init, .arm = kb_hr_arm, .rearm = kb_hr_arm,
		.cancel = kb_hr_cancel, .cancel_sync = kb_hr_cancel_sync,
		.pending = kb_hr_pending,
	},
	{
		.name = "twheel", .size = sizeof(struct twheel_timeout),
		.init = kb_tw_init, .arm = kb_tw_arm, .rearm = kb_tw_rearm,
		.cancel = kb_tw_cancel, .cancel_sync = kb_tw_cancel_sync,
		.pending = kb_tw_pending,
	},
	{
		.name = "twheel-now", .size = sizeof(struct twheel_timeout),
		.init = kb_tw_init, .arm = kb_twn_arm, .rearm = kb_twn_rearm,
		.cancel = kb_tw_cancel, .cancel_sync = kb_tw_cancel_sync,
		.pending = kb_tw_pending,
	},
};

struct kb_run {
	const struct kb_peer *p;
	char *objs;
	u32 n;			/* background pending */
	u32 cap;		/* n + KB_POOL */
	struct rnd_state rnd;
};

static void *kb_obj(struct kb_run *r, u32 i)
{
	return r->objs + (size_t)i * r->p->size;
}

static u64 kb_far(struct kb_run *r)
{
	return KB_FAR_NS + prandom_u32_state(&r->rnd) % (u32)(KB_FAR_NS / NSEC_PER_MSEC) *
	       NSEC_PER_MSEC;
}

static unsigned int kb_round;

static void kb_report(struct kb_run *r, const char *workload, u64 nops,
		      u64 elapsed, u64 delay, int fired)
{
	u64 ps = nops ? div64_u64(elapsed * 1000, nops) : 0;

	pr_info("{\"workload\":\"%s\",\"peer\":\"%s\",\"pending\":%u,\"round\":%u,\"ops\":%llu,\"ns_per_op\":%llu.%03llu,\"delay_ms\":%llu,\"fired\":%d,\"bytes_per_timeout\":%zu}\n",
		workload, r->p->name, r->n, kb_round, nops, ps / 1000,
		ps % 1000, div64_u64(delay, NSEC_PER_MSEC), fired, r->p->size);
}

/*
 * What /dev/twheel adds around a wheel operation, without the system call:
 * a slab object (allocated on arm, freed on cancel) and a handle slot in a
 * cyclic xarray (the same pattern as dev_file.c: 1000 live, FIFO). Memory
 * cgroup charging is not included (a kthread charges nobody); the guest
 * script measures that from userspace.
 */
#define KB_LIVE		1024U

static DEFINE_XARRAY_ALLOC(kb_xa);

static void kb_prims_alloc(void)
{
	const u32 n = 100000;
	struct kmem_cache *cache;
	void **objs;
	u32 *ids, i, next = 0, id;
	u64 t0, t1;

	cache = kmem_cache_create("twheel_bench", 88, 0, 0, NULL);
	objs = kcalloc(KB_LIVE, sizeof(*objs), GFP_KERNEL);
	ids = kcalloc(KB_LIVE, sizeof(*ids), GFP_KERNEL);
	if (!cache || !objs || !ids)
		goto out;
	for (i = 0; i < KB_LIVE; i++)
		objs[i] = kmem_cache_alloc(cache, GFP_KERNEL);
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		kmem_cache_free(cache, objs[i % KB_LIVE]);
		objs[i % KB_LIVE] = kmem_cache_alloc(cache, GFP_KERNEL);
	}
	t1 = ktime_get_ns();
	pr_info("{\"workload\":\"kprim\",\"peer\":\"kmem_cache_alloc+free\",\"ns_per_op\":%llu}\n",
		div64_u64(t1 - t0, n));
	for (i = 0; i < KB_LIVE; i++)
		if (xa_alloc_cyclic_bh(&kb_xa, &ids[i], objs[i], XA_LIMIT(1, 1U << 22),
				       &next, GFP_KERNEL) < 0)
			goto out_xa;
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		xa_erase_bh(&kb_xa, ids[i % KB_LIVE]);
		if (xa_alloc_cyclic_bh(&kb_xa, &id, objs[i % KB_LIVE], XA_LIMIT(1, 1U << 22),
				       &next, GFP_KERNEL) < 0)
			goto out_xa;
		ids[i % KB_LIVE] = id;
	}
	t1 = ktime_get_ns();
	pr_info("{\"workload\":\"kprim\",\"peer\":\"xa_alloc_cyclic+xa_erase\",\"ns_per_op\":%llu}\n",
		div64_u64(t1 - t0, n));
out_xa:
	xa_destroy(&kb_xa);
out:
	if (objs && cache)
		for (i = 0; i < KB_LIVE; i++)
			if (objs[i])
				kmem_cache_free(cache, objs[i]);
	kfree(objs);
	kfree(ids);
	kmem_cache_destroy(cache);
}

/*
 * What the primitives cost on this machine (an emulated guest distorts
 * them differently from hardware): a clock read, a 64-bit division, an
 * irq-safe lock pair. Used to explain the differences between the peers.
 */
static DEFINE_SPINLOCK(kb_lock);

static void kb_prims(void)
{
	const u32 n = 200000;
	u64 t0, t1, acc = 0, d = twheel_tick_ns();
	unsigned long flags;
	u32 i;

	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		acc += ktime_get_ns();
	t1 = ktime_get_ns();
	pr_info("{\"workload\":\"kprim\",\"peer\":\"ktime_get_ns\",\"ns_per_op\":%llu}\n",
		div64_u64(t1 - t0, n));
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		acc += div64_u64(acc + i, d);
	t1 = ktime_get_ns();
	pr_info("{\"workload\":\"kprim\",\"peer\":\"div64_u64\",\"ns_per_op\":%llu}\n",
		div64_u64(t1 - t0, n));
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++) {
		spin_lock_irqsave(&kb_lock, flags);
		acc += i;
		spin_unlock_irqrestore(&kb_lock, flags);
	}
	t1 = ktime_get_ns();
	pr_info("{\"workload\":\"kprim\",\"peer\":\"spin_lock_irqsave\",\"ns_per_op\":%llu}\n",
		div64_u64(t1 - t0, n));
	t0 = ktime_get_ns();
	for (i = 0; i < n; i++)
		acc += READ_ONCE(jiffies);
	t1 = ktime_get_ns();
	pr_info("{\"workload\":\"kprim\",\"peer\":\"jiffies\",\"ns_per_op\":%llu,\"sink\":%llu}\n",
		div64_u64(t1 - t0, n), acc & 1);
	kb_prims_alloc();
}

/*
 * One churn run. Slots of the pool are used round-robin; a slot left to
 * fire is skipped until its callback has run.
 */
static u32 win[KB_WINDOW];

static u64 kb_churn_loop(struct kb_run *r, u64 max_ops, u64 budget_ns,
			 u64 delay, u64 *elapsed)
{
	u32 k = 0, next = 0, i;
	u64 t0, end, nops = 0, it = 0;

	for (i = 0; i < KB_WINDOW; i++)
		win[i] = U32_MAX;
	t0 = ktime_get_ns();
	end = t0 + budget_ns;
	while (nops < max_ops) {
		u32 s = win[k];
		void *obj;

		if (s != U32_MAX && prandom_u32_state(&r->rnd) % 10) {
			r->p->cancel(kb_obj(r, r->n + s));
			nops++;
		}
		do {
			next = next + 1 == KB_POOL ? 0 : next + 1;
			obj = kb_obj(r, r->n + next);
		} while (r->p->pending(obj));
		r->p->arm(obj, delay);
		win[k] = next;
		nops++;
		k = k + 1 == KB_WINDOW ? 0 : k + 1;
		if (++it % KB_CHECK == 0) {
			if (ktime_get_ns() > end)
				break;
			if (it % 4096 == 0)
				cond_resched();
		}
	}
	*elapsed = ktime_get_ns() - t0;
	return nops;
}

static void kb_churn(struct kb_run *r)
{
	u64 nops, elapsed, delay;
	int f0;

	/* Calibrate, then choose a delay no cancelled timeout can reach. */
	nops = kb_churn_loop(r, 4 * KB_WINDOW, (u64)time_ms * NSEC_PER_MSEC / 4,
			     2 * NSEC_PER_SEC, &elapsed);
	delay = div64_u64(elapsed * 40 * KB_WINDOW, nops ? nops : 1);
	delay = clamp_t(u64, delay, 20 * NSEC_PER_MSEC, 60 * NSEC_PER_SEC);
	f0 = atomic_read(&kb_fired);
	nops = kb_churn_loop(r, ops, (u64)time_ms * NSEC_PER_MSEC, delay,
			     &elapsed);
	kb_report(r, "kchurn", nops, elapsed, delay, atomic_read(&kb_fired) - f0);
}

/*
 * Cancel in rounds: a chunk of distinct victims (a stride through the
 * population, so no locality) is cancelled and timed, then armed again
 * untimed, so the population stays at n. Round 0 is a warm-up.
 */
static void kb_cancel(struct kb_run *r)
{
	u64 timed = 0, nops = 0, budget = (u64)time_ms * NSEC_PER_MSEC, t0;
	u32 chunk = min_t(u32, r->n, 1024), pos = 0, k, round;

	for (round = 0; nops < ops && timed < budget; round++) {
		t0 = ktime_get_ns();
		for (k = 0; k < chunk; k++)
			r->p->cancel(kb_obj(r, (u32)(((u64)(pos + k) * 2654435761ULL) % r->n)));
		if (round) {
			timed += ktime_get_ns() - t0;
			nops += chunk;
		}
		for (k = 0; k < chunk; k++)
			r->p->arm(kb_obj(r, (u32)(((u64)(pos + k) * 2654435761ULL) % r->n)),
				  kb_far(r));
		pos = (pos + chunk) % r->n;
		cond_resched();
	}
	kb_report(r, "kcancel", nops, timed, 0, 0);
}

static void kb_rearm(struct kb_run *r)
{
	u64 t0, end, nops = 0;

	t0 = ktime_get_ns();
	end = t0 + (u64)time_ms * NSEC_PER_MSEC;
	while (nops < ops) {
		u32 i = prandom_u32_state(&r->rnd) % r->n;

		r->p->rearm(kb_obj(r, i), kb_far(r));
		if (++nops % KB_CHECK == 0) {
			if (ktime_get_ns() > end)
				break;
			if (nops % 4096 == 0)
				cond_resched();
		}
	}
	kb_report(r, "krearm", nops, ktime_get_ns() - t0, 0, 0);
}

static void kb_fill(struct kb_run *r)
{
	u32 i;

	for (i = 0; i < r->n; i++) {
		r->p->arm(kb_obj(r, i), kb_far(r));
		if (i % 4096 == 0)
			cond_resched();
	}
}

static void kb_drain_all(struct kb_run *r)
{
	u32 i;

	for (i = 0; i < r->cap; i++) {
		r->p->cancel_sync(kb_obj(r, i));
		if (i % 4096 == 0)
			cond_resched();
	}
}

static int kb_one(const struct kb_peer *p, u32 n)
{
	struct kb_run r = { .p = p, .n = n, .cap = n + KB_POOL };
	u32 i;

	prandom_seed_state(&r.rnd, 0x7477686565ULL + n);
	r.objs = vzalloc((size_t)r.cap * p->size);
	if (!r.objs)
		return -ENOMEM;
	for (i = 0; i < r.cap; i++)
		p->init(kb_obj(&r, i));

	/* rearm first, then churn, then cancel (which empties the population) */
	kb_fill(&r);
	kb_rearm(&r);
	kb_churn(&r);
	kb_cancel(&r);
	kb_drain_all(&r);
	vfree(r.objs);
	return 0;
}

static DECLARE_COMPLETION(kb_done);
static int kb_ret;

static int kb_thread(void *unused)
{
	int i, j, ret = 0;

	pr_info("start: tick %llu ns, %d pending counts, %u ops, %u ms a run, %u rounds\n",
		twheel_tick_ns(), npending, ops, time_ms, reps);
	kb_prims();
	/* Peers interleaved round by round, so a noisy moment hits them all. */
	for (kb_round = 0; kb_round < max(reps, 1U) && !ret; kb_round++)
		for (i = 0; i < npending && !ret; i++)
			for (j = 0; j < ARRAY_SIZE(kb_peers) && !ret; j++)
				if (peers & BIT(j) && pending[i])
					ret = kb_one(&kb_peers[j], pending[i]);
	pr_info("done (%d)\n", ret);
	kb_ret = ret;
	complete(&kb_done);
	return 0;
}

static int __init twheel_bench_init(void)
{
	struct task_struct *t;

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	t = kthread_create(kb_thread, NULL, "twheel_bench");
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	wake_up_process(t);
	wait_for_completion(&kb_done);
	return kb_ret;
}

static void __exit twheel_bench_exit(void)
{
}

module_init(twheel_bench_init);
module_exit(twheel_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Benchmark of timer_list, hrtimer and twheel");
MODULE_AUTHOR("The twheel developers");
