// SPDX-License-Identifier: GPL-2.0
/*
 * dev_file.c - /dev/twheel: the open file and the timeouts it owns
 *
 * Every open gives a private set of timeouts (struct twdev_file). Requests
 * come checked from dev_ioctl.c and are applied here: arm, re-arm, cancel.
 * What a request's time means to this file (its clocks, as its opener's
 * time namespace reads them: twdev_resolve()) and which CPUs its caller
 * may use (twdev_may_use_cpu()) are decided here too, for dev_ioctl.c's
 * checks and for a re-arm, whose clock is the timeout's own.
 * Expiries reach the file through dev_read.c, which also serves read() and
 * poll; a file may share its timeouts' deadlines with its program
 * (dev_share.c). Closing the file shuts down and frees all of its timeouts.
 *
 * The device is mode 0666, like timerfd_create() which any user may call.
 * What one user can make the kernel hold is bounded: live timeouts per file
 * (max_pending), timeouts per user over all of that user's files
 * (max_user_timeouts, like epoll's max_user_watches: a share of RAM; a
 * file in a user namespace charges the namespaces' owners too), and
 * each timeout's memory is charged to the memory cgroup of the task whose
 * arm allocated it. The shortest period is one tick, and a periodic timeout
 * is re-armed only when its record is read.
 *
 * Handles
 * -------
 * A timeout is found by handle in an xarray: its slot (lower 32 bits) and
 * the slot's generation XORed with the file's random key (upper 32 bits).
 * Slot 0 is never handed out and the upper half is never 0, so no handle is
 * 0. Each slot counts its own generations: every new handle of a slot takes
 * the next one, and a slot whose generations are used up is retired (kept,
 * never reused, freed on close). A slot whose timeout is freed (below)
 * keeps its last generation in the xarray as a value entry, marked
 * TWDEV_SPARE, 8 bytes instead of a timeout; a new timeout takes a spare
 * slot before a fresh one and goes on from that generation, so the slot's
 * old handles stay dead, and a fresh slot starts at 0. So no handle is
 * ever handed out twice by a file, however long it lives; nothing another
 * file or user does changes that. A stale handle finds no live timeout with
 * its handle (-ENOENT). The key makes another file's handle miss too: two
 * files hand out the same handle only by chance, one in 2^32, never by a
 * pattern of use.
 *
 * Reuse
 * -----
 * A timeout that dies (cancelled, or a one-shot whose record was read) keeps
 * its slot and goes on the file's free list, up to TWDEV_FREE_MAX of them;
 * an arm takes a timeout from there before it allocates one. Churn then
 * costs no slab allocation, no memory cgroup charge and no change to the
 * xarray. A dead timeout stays charged (memory cgroup and user), does not
 * count against the per-file limit and is freed on close. A new slot is the
 * lowest free one, which keeps the xarray dense.
 *
 * A periodic timeout needs 8 bytes more, for its period (struct
 * twdev_periodic); one-shots, most timeouts, go without. A dead one-shot
 * timeout taken for a periodic arm gives its slot to a longer one
 * (twdev_fit()); a dead periodic one serves any arm.
 *
 * A program whose shared table lets it pick the slots (TWHEEL_ARM_SLOT)
 * uses the table as an array of its own, one entry per connection, say:
 * there a dead timeout stays in its slot for the next arm of that slot,
 * never on the free list, so the file holds at most one timeout per entry
 * of its table, all charged.
 *
 * Locking
 * -------
 * tf->lock (a mutex) serialises every ioctl that touches timeouts and every
 * read() of the file. The set of timeouts, their handles, deadlines and
 * periods, the free list and the counters @nr_live, @nr_free and
 * @read_cursor only change under it, in process context; but for one
 * thing: the callback of a file with a shared table files its timeout
 * again for the later deadline the program stored, and sets @deadline
 * (dev_share.c), so a timeout's deadline is read with READ_ONCE() while it
 * may be armed.
 *
 * The xarray's own lock (taken with softirqs disabled; the callbacks run in
 * softirq context) guards what a callback changes: the READY marks,
 * tf->nr_queued, tf->ringed and the idle word of the timeout, which holds
 * its expiry time or its link on tf->ringed (see dev_read.c). The callback
 * never takes tf->lock, so twheel_cancel_sync() may be called with tf->lock
 * held, but never with the xa_lock held.
 *
 * A timeout dies only once its callback cannot run (twheel_cancel_sync(),
 * also when a one-shot's record is consumed), so a dead timeout, cached or
 * freed, is touched by no callback: an arm may reuse it on any CPU, and
 * release may free it after shutting down what is left.
 *
 * twdev_users_lock guards the table of users and their reference counts;
 * a user's count of timeouts is an atomic.
 *
 * Lock order: tf->lock, then the xa_lock, then tf->wqh.lock.
 *
 * Calls: dev_misc.c and dev_ioctl.c call in here, never the other way;
 * this file and dev_read.c are the two halves of a device timeout and call
 * each other (see dev_read.c).
 */
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/user_namespace.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/isolation.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/time_namespace.h>
#include <linux/uidgid.h>

#include "compat.h"
#include "dev.h"

/* Default and most live timeouts one open file may hold. */
#define TWDEV_MAX_PENDING_DEFAULT	1048576U
#define TWDEV_MAX_PENDING_MAX		67108864U
/* Share of RAM one user's timeouts may take by default: 1/25, i.e. 4%. */
#define TWDEV_USER_RAM_DIVISOR	25UL

static unsigned int max_pending = TWDEV_MAX_PENDING_DEFAULT;

static int max_pending_set(const char *val, const struct kernel_param *kp)
{
	return tw_param_set_uint(val, kp, 1, TWDEV_MAX_PENDING_MAX);
}

static const struct kernel_param_ops max_pending_ops = {
	.set = max_pending_set,
	.get = param_get_uint,
};

module_param_cb(max_pending, &max_pending_ops, &max_pending, 0444);
MODULE_PARM_DESC(max_pending, "Live timeouts per open /dev/twheel file, 1..67108864 (default 1048576)");

static unsigned long max_user_timeouts;

static int max_user_timeouts_set(const char *val,
				 const struct kernel_param *kp)
{
	unsigned long v;
	int ret;

	ret = kstrtoul(val, 0, &v);
	if (ret) {
		pr_err("%s=%s refused: allowed 0..%lu\n", kp->name, val, ULONG_MAX);
		return ret;
	}
	WRITE_ONCE(max_user_timeouts, v);
	return 0;
}

static const struct kernel_param_ops max_user_timeouts_ops = {
	.set = max_user_timeouts_set,
	.get = param_get_ulong,
};

module_param_cb(max_user_timeouts, &max_user_timeouts_ops,
		&max_user_timeouts, 0644);
MODULE_PARM_DESC(max_user_timeouts, "Timeouts one user may hold over all its files; 0 at load: 4% of RAM at 128 bytes each");

/**
 * twdev_max_user_timeouts() - the per-user limit in force
 *
 * Return: timeouts (live or cached) one user may hold over all its files.
 */
unsigned long twdev_max_user_timeouts(void)
{
	return READ_ONCE(max_user_timeouts);
}

/**
 * struct twdev_user - the timeouts charged to one user
 * @node: entry in twdev_users, keyed by @uid
 * @uid: the real user ID of the files' openers (a kuid: user namespaces
 *	map their IDs onto it, so a namespace gives no fresh allowance)
 * @refs: open files of this user (under twdev_users_lock)
 * @queue: the wheel queue of every timeout of this user's files
 *	(tw_queue_get()), so that the expiry runs serve users in turn
 * @nr_timeouts: timeouts allocated for this user's files, live or cached
 */
struct twdev_user {
	struct hlist_node node;
	kuid_t uid;
	unsigned int refs;
	unsigned int queue;
	atomic_long_t nr_timeouts;
};

static DEFINE_HASHTABLE(twdev_users, 6);
static DEFINE_SPINLOCK(twdev_users_lock);

static struct kmem_cache *twdev_timeout_cache;
static struct kmem_cache *twdev_periodic_cache;

/* The user record of @uid with one more reference, or NULL. */
static struct twdev_user *twdev_user_get(kuid_t uid)
{
	struct twdev_user *u, *new;
	int queue;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return NULL;
	queue = tw_queue_get();
	if (queue < 0) {
		kfree(new);
		return NULL;
	}
	new->queue = queue;
	spin_lock(&twdev_users_lock);
	hash_for_each_possible(twdev_users, u, node, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid)) {
			u->refs++;
			spin_unlock(&twdev_users_lock);
			tw_queue_put(new->queue);
			kfree(new);
			return u;
		}
	}
	new->uid = uid;
	new->refs = 1;
	hash_add(twdev_users, &new->node, __kuid_val(uid));
	spin_unlock(&twdev_users_lock);
	return new;
}

static void twdev_user_put(struct twdev_user *u)
{
	spin_lock(&twdev_users_lock);
	if (--u->refs) {
		u = NULL;
	} else {
		WARN_ON_ONCE(atomic_long_read(&u->nr_timeouts));
		hash_del(&u->node);
	}
	spin_unlock(&twdev_users_lock);
	if (u)
		tw_queue_put(u->queue);
	kfree(u);
}

/* Give back @n timeouts to the first @nr_users users of @tf. */
static void twdev_uncharge_users(struct twdev_file *tf, unsigned int nr_users,
				 unsigned long n)
{
	while (nr_users--)
		atomic_long_sub(n, &tf->users[nr_users]->nr_timeouts);
}

/**
 * twdev_uncharge() - give back timeouts to the users of a file
 * @tf: the file
 * @n: how many, as twdev_charge() took them
 */
void twdev_uncharge(struct twdev_file *tf, unsigned long n)
{
	twdev_uncharge_users(tf, tf->nr_users, n);
}

/**
 * twdev_charge() - charge timeouts to every user of a file
 * @tf: the file
 * @n: how many
 *
 * Return: 0, or -ENOSPC if a user would go past its limit (then nothing
 * is charged).
 */
int twdev_charge(struct twdev_file *tf, unsigned long n)
{
	unsigned long max = twdev_max_user_timeouts();
	unsigned int i;

	for (i = 0; i < tf->nr_users; i++) {
		if (atomic_long_add_return(n, &tf->users[i]->nr_timeouts) >
		    max) {
			twdev_uncharge_users(tf, i + 1, n);
			return -ENOSPC;
		}
	}
	return 0;
}

/* Timeouts that take as much memory as a table of @size bytes. */
static unsigned long twdev_share_cost(size_t size)
{
	return DIV_ROUND_UP(size, TWDEV_TIMEOUT_COST);
}

/**
 * twdev_share() - give a file its shared timeout table (dev_share.c)
 * @tf: the file, with @tf->lock held
 * @req: a TWHEEL_IOC_SHARE request, its flags checked; its answer is
 *	filled in on success
 *
 * Context: process context; allocates.
 * Return: 0; -EBUSY if the file has a table or has armed a timeout;
 * -EINVAL for a table of fewer than two entries or more than the file may
 * use; -ENOSPC past a per-user limit; -ENOMEM.
 */
int twdev_share(struct twdev_file *tf, struct twheel_share *req)
{
	u32 most = tf->max_pending + 1;
	struct twdev_share *sh;
	unsigned long cost;

	lockdep_assert_held(&tf->lock);
	if (tf->share || !xa_empty(&tf->timeouts))
		return -EBUSY;
	if (req->slots < 2 || req->slots > most)
		return -EINVAL;
	cost = twdev_share_cost(twdev_share_size(req));
	if (twdev_charge(tf, cost))
		return -ENOSPC;
	sh = twdev_share_new(req, most);
	if (!sh) {
		twdev_uncharge(tf, cost);
		return -ENOMEM;
	}
	/* Pairs with smp_load_acquire() in twdev_mmap(). */
	smp_store_release(&tf->share, sh);
	return 0;
}

/* Free the table of @tf, if it has one, and give back its charge. */
static void twdev_share_free(struct twdev_file *tf)
{
	if (!tf->share)
		return;
	twdev_uncharge(tf, twdev_share_cost(twdev_share_bytes(tf)));
	twdev_share_release(tf->share);
	tf->share = NULL;
}

/*
 * A new timeout of @tf, with room for a period if @periodic, not counted
 * against its users' limits; NULL if memory (or the memory cgroup) is out.
 */
static struct twdev_timeout *twdev_timeout_new(struct twdev_file *tf,
					       bool periodic)
{
	struct twdev_periodic *tp;
	struct twdev_timeout *tdt;

	if (periodic) {
		tp = kmem_cache_zalloc(twdev_periodic_cache, TWDEV_GFP);
		tdt = tp ? &tp->t : NULL;
	} else {
		tdt = kmem_cache_zalloc(twdev_timeout_cache, TWDEV_GFP);
	}
	if (!tdt)
		return NULL;
	twheel_timeout_init(&tdt->tw, twdev_expire);
	tw_set_queue(&tdt->tw, tf->users[0]->queue);
	tdt->tf = tf;
	if (periodic)
		tdt->flags = TWDEV_PERIODIC;
	return tdt;
}

static void twdev_timeout_delete(struct twdev_timeout *tdt)
{
	if (tdt->flags & TWDEV_PERIODIC)
		kmem_cache_free(twdev_periodic_cache,
				container_of(tdt, struct twdev_periodic, t));
	else
		kmem_cache_free(twdev_timeout_cache, tdt);
}

/*
 * A new timeout for @tf's users, with room for a period if @periodic, or
 * -ENOSPC past a per-user limit, or -ENOMEM.
 */
static struct twdev_timeout *twdev_timeout_alloc(struct twdev_file *tf,
						 bool periodic)
{
	struct twdev_timeout *tdt;
	int ret = twdev_charge(tf, 1);

	if (ret)
		return ERR_PTR(ret);
	tdt = twdev_timeout_new(tf, periodic);
	if (!tdt) {
		twdev_uncharge(tf, 1);
		return ERR_PTR(-ENOMEM);
	}
	return tdt;
}

static void twdev_timeout_free(struct twdev_file *tf,
			       struct twdev_timeout *tdt)
{
	twdev_timeout_delete(tdt);
	twdev_uncharge(tf, 1);
}

/*
 * Dead @tdt, which has a slot, unless a periodic arm needs room for a
 * period that @tdt has not: then a new timeout takes its place, with its
 * slot, handle, generation and free list link and its charge to the users,
 * and @tdt is freed. Caller holds tf->lock. Return: the timeout, or
 * -ENOMEM with @tdt left as it was.
 */
static struct twdev_timeout *twdev_fit(struct twdev_file *tf,
				       struct twdev_timeout *tdt, bool periodic)
{
	struct twdev_timeout *new;

	if (!periodic || (tdt->flags & TWDEV_PERIODIC))
		return tdt;
	new = twdev_timeout_new(tf, true);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->handle = tdt->handle;
	new->next_free = tdt->next_free;
	new->gen = tdt->gen;
	/* The entry exists: storing over it allocates nothing. */
	xa_lock_bh(&tf->timeouts);
	WARN_ON_ONCE(xa_is_err(__xa_store(&tf->timeouts, twdev_slot(tdt), new,
					  GFP_NOWAIT)));
	xa_unlock_bh(&tf->timeouts);
	twdev_timeout_delete(tdt);
	return new;
}

/* Is @uid one of the users @tf charges already? */
static bool twdev_charges(const struct twdev_file *tf, kuid_t uid)
{
	unsigned int i;

	for (i = 0; i < tf->nr_users; i++)
		if (uid_eq(tf->users[i]->uid, uid))
			return true;
	return false;
}

/*
 * The users a new file charges: the caller's real user ID, then the owner
 * of its user namespace and of each one above it, up to the initial one.
 * Mapped IDs in a namespace thus share the allowance of whoever made the
 * namespace (and of whoever made that one), as ucounts do. 0 or -ENOMEM.
 */
static int twdev_users_get(struct twdev_file *tf)
{
	const struct user_namespace *ns = current_user_ns();
	kuid_t uid = current_uid();

	for (;;) {
		if (!twdev_charges(tf, uid)) {
			if (WARN_ON_ONCE(tf->nr_users == TWDEV_USER_LEVELS))
				return 0;
			tf->users[tf->nr_users] = twdev_user_get(uid);
			if (!tf->users[tf->nr_users])
				return -ENOMEM;
			tf->nr_users++;
		}
		if (ns == &init_user_ns)
			return 0;
		uid = ns->owner;
		ns = ns->parent;
	}
}

static void twdev_users_put(struct twdev_file *tf)
{
	while (tf->nr_users)
		twdev_user_put(tf->users[--tf->nr_users]);
}

/*
 * Kill live @tdt, neither armed nor running and with no record queued: its
 * handle dies, and it goes on the free list, back to the slab when that is
 * full, or into retirement when its slot has used up its generations; in a
 * file whose program picks slots it stays in its slot. Caller holds
 * tf->lock.
 */
static void twdev_kill(struct twdev_file *tf, struct twdev_timeout *tdt)
{
	u32 slot = twdev_slot(tdt);

	WRITE_ONCE(tf->nr_live, tf->nr_live - 1);
	twdev_share_clear(tdt);
	tdt->handle = slot;
	/* A picked slot keeps its timeout for the next arm there. */
	if (tdt->gen >= TWDEV_GEN_LAST || twdev_share_picks(tf))
		return;
	if (tf->nr_free < TWDEV_FREE_MAX) {
		tdt->next_free = tf->free;
		tf->free = tdt;
		WRITE_ONCE(tf->nr_free, tf->nr_free + 1);
		return;
	}
	/* The slot keeps its generation for its next timeout. */
	xa_lock_bh(&tf->timeouts);
	WARN_ON_ONCE(xa_is_err(__xa_store(&tf->timeouts, slot,
					  xa_mk_value(tdt->gen), GFP_NOWAIT)));
	__xa_set_mark(&tf->timeouts, slot, TWDEV_SPARE);
	xa_unlock_bh(&tf->timeouts);
	twdev_timeout_free(tf, tdt);
}

/**
 * twdev_discard() - kill a live timeout that is neither armed nor running
 * @tf: the file, with @tf->lock held
 * @tdt: the timeout
 *
 * Its record, if one is queued, goes; then as twdev_kill().
 */
void twdev_discard(struct twdev_file *tf, struct twdev_timeout *tdt)
{
	twdev_unqueue(tf, tdt);
	twdev_kill(tf, tdt);
}

/**
 * twdev_reap() - kill the timeouts whose last record went into the ring
 * @tf: the file, with @tf->lock held
 *
 * Their handles died when the records went in; a handle is looked up only
 * after this, so none of them is found. Each one's callback may still be
 * returning.
 */
void twdev_reap(struct twdev_file *tf)
{
	struct twdev_timeout *tdt, *next;

	lockdep_assert_held(&tf->lock);
	/* Cheaper than the lock, on every arm and look-up. */
	if (!READ_ONCE(tf->ringed))
		return;
	xa_lock_bh(&tf->timeouts);
	tdt = tf->ringed;
	WRITE_ONCE(tf->ringed, NULL);
	xa_unlock_bh(&tf->timeouts);
	for (; tdt; tdt = next) {
		/* Before the timeout is armed again, which overwrites it. */
		next = twdev_next_ringed(tdt);
		twheel_cancel_sync(&tdt->tw);
		twdev_kill(tf, tdt);
	}
}

/*
 * Put new @tdt in the lowest spare slot, going on from its generation; false
 * if there is none. Caller holds tf->lock, under which spare slots change.
 */
static bool twdev_take_spare(struct twdev_file *tf, struct twdev_timeout *tdt)
{
	unsigned long slot = 0;
	void *spare;

	spare = xa_find(&tf->timeouts, &slot, U32_MAX, TWDEV_SPARE);
	if (!spare)
		return false;
	tdt->gen = xa_to_value(spare);
	tdt->handle = slot;
	xa_lock_bh(&tf->timeouts);
	__xa_clear_mark(&tf->timeouts, slot, TWDEV_SPARE);
	WARN_ON_ONCE(xa_is_err(__xa_store(&tf->timeouts, slot, tdt,
					  GFP_NOWAIT)));
	xa_unlock_bh(&tf->timeouts);
	return true;
}

/*
 * A dead timeout with a slot, with room for a period if @periodic: one from
 * the free list (twdev_fit()), else a new one in the lowest spare slot or
 * the lowest free one. The free list is empty only while every slot holding
 * a timeout is live or retired; fewer than max_pending are live. Caller
 * holds tf->lock.
 */
static struct twdev_timeout *twdev_take(struct twdev_file *tf, bool periodic)
{
	struct twdev_timeout *tdt = tf->free;
	struct xa_limit limit = xa_limit_32b;
	u32 slot;
	int ret;

	if (tdt) {
		tdt = twdev_fit(tf, tdt, periodic);
		if (IS_ERR(tdt))
			return tdt;
		tf->free = tdt->next_free;
		WRITE_ONCE(tf->nr_free, tf->nr_free - 1);
		return tdt;
	}
	tdt = twdev_timeout_alloc(tf, periodic);
	if (IS_ERR(tdt) || twdev_take_spare(tf, tdt))
		return tdt;
	/* A file with a shared table has slots in it only. */
	twdev_share_limit(tf, &limit);
	ret = xa_alloc_bh(&tf->timeouts, &slot, tdt, limit, TWDEV_GFP);
	if (ret) {
		twdev_timeout_free(tf, tdt);
		return ERR_PTR(ret == -EBUSY ? -ENOSPC : ret);
	}
	tdt->handle = slot;
	return tdt;
}

/*
 * The dead timeout of @slot, which the program picked, with room for a
 * period if @periodic: the one the slot keeps (twdev_fit()), else a new one
 * put there. -EBUSY while the slot's timeout is live or retired. Caller
 * holds tf->lock.
 */
static struct twdev_timeout *twdev_take_slot(struct twdev_file *tf, u32 slot,
					     bool periodic)
{
	struct twdev_timeout *tdt;
	int ret;

	/*
	 * A callback that put the last record of the slot's timeout in the
	 * ring did it under the xa_lock, and put the timeout on tf->ringed: a
	 * program that has seen the record finds the slot free.
	 */
	xa_lock_bh(&tf->timeouts);
	tdt = xa_load(&tf->timeouts, slot);
	xa_unlock_bh(&tf->timeouts);
	twdev_reap(tf);
	if (tdt) {
		if (upper_32_bits(tdt->handle) || tdt->gen >= TWDEV_GEN_LAST)
			return ERR_PTR(-EBUSY);
		return twdev_fit(tf, tdt, periodic);
	}
	tdt = twdev_timeout_alloc(tf, periodic);
	if (IS_ERR(tdt))
		return tdt;
	ret = xa_insert_bh(&tf->timeouts, slot, tdt, TWDEV_GFP);
	if (ret) {
		twdev_timeout_free(tf, tdt);
		return ERR_PTR(ret);
	}
	tdt->handle = slot;
	return tdt;
}

/**
 * twdev_start() - arm a live timeout for its deadline
 * @tdt: the timeout; its deadline was accepted by tw_check_deadline()
 * @now: the clock reading that deadline was checked against
 *
 * A CPU that went offline since the request was checked is no error: the
 * wheel then runs the timeout on another CPU.
 */
void twdev_start(struct twdev_timeout *tdt, u64 now)
{
	tw_mod(&tdt->tw, tdt->deadline, now, tdt->cpu, 0);
}

/*
 * Give @tdt, dead, the next generation of its slot and the handle made of
 * it. The upper half of a handle must not be 0: that generation is skipped.
 * A slot is retired at TWDEV_GEN_LAST, so there is always one left.
 */
static void twdev_new_handle(struct twdev_file *tf, struct twdev_timeout *tdt)
{
	if (!(++tdt->gen ^ tf->key))
		tdt->gen++;
	tdt->handle = (u64)(tdt->gen ^ tf->key) << 32 | twdev_slot(tdt);
}

/**
 * twdev_arm() - arm a new timeout
 * @tf: the file, with @tf->lock held
 * @req: a checked TWHEEL_OP_ARM request
 * @handle: out: the new timeout's handle
 *
 * Context: process context; may sleep to allocate.
 * Return: 0; -ENOSPC if the file holds its limit of timeouts or its user
 * its limit over all files; -EBUSY if the slot the program picked holds a
 * live timeout (or one that used up its handles); -ENOMEM if memory (or the
 * caller's memory cgroup) is exhausted.
 */
int twdev_arm(struct twdev_file *tf, const struct twdev_req *req,
	      u64 *handle)
{
	struct twdev_timeout *tdt;

	lockdep_assert_held(&tf->lock);
	twdev_reap(tf);
	if (tf->nr_live >= tf->max_pending)
		return -ENOSPC;
	tdt = req->slot ? twdev_take_slot(tf, req->slot, req->period) :
			  twdev_take(tf, req->period);
	if (IS_ERR(tdt))
		return PTR_ERR(tdt);
	tdt->cookie = req->cookie;
	tdt->deadline = req->deadline;
	tdt->cpu = req->cpu;
	tdt->flags = req->flags | (tdt->flags & TWDEV_PERIODIC);
	/* twdev_take() gave it room for a period if it has one. */
	if (tdt->flags & TWDEV_PERIODIC)
		container_of(tdt, struct twdev_periodic, t)->period =
			req->period;
	tw_set_clock(&tdt->tw, req->clock);
	twdev_new_handle(tf, tdt);
	twdev_share_set(tdt);
	WRITE_ONCE(tf->nr_live, tf->nr_live + 1);
	tf->counters.armed++;
	twdev_start(tdt, req->now);
	*handle = tdt->handle;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twdev_arm);

/*
 * The live timeout that @handle names, or NULL. A dead timeout's stored
 * handle has an upper half of 0, which no handle has. Caller holds tf->lock.
 */
static struct twdev_timeout *twdev_lookup(struct twdev_file *tf, u64 handle)
{
	struct twdev_timeout *tdt;

	twdev_reap(tf);
	if (!upper_32_bits(handle))
		return NULL;
	tdt = xa_load(&tf->timeouts, twdev_handle_slot(handle));
	if (!tdt || xa_is_value(tdt) || tdt->handle != handle)
		return NULL;
	return tdt;
}

/*
 * Did the callback that twheel_cancel_sync() just waited for put the last
 * record of @tdt, live as @handle, in the ring? Then it is dead now (reaped,
 * so that nothing kills it twice), as if read() had taken the record.
 * Caller holds tf->lock.
 */
static bool twdev_ringed(struct twdev_file *tf, struct twdev_timeout *tdt,
			 u64 handle)
{
	twdev_reap(tf);
	return tdt->handle != handle;
}

/*
 * A delay, or with TWHEEL_ARM_ABS an absolute time of @tf's clocks, as a
 * deadline counted from @now. Return: 0, -EINVAL for an absolute time past
 * the clock's range, -ERANGE for a deadline the wheel does not take.
 */
static int twdev_deadline(const struct twdev_file *tf, enum tw_clock clock,
			  u64 expires, u32 flags, u64 now, u64 *deadline)
{
	if (flags & TWHEEL_ARM_ABS) {
		if (expires > KTIME_MAX)
			return -EINVAL;
		*deadline = twdev_from_user_time(tf, clock, expires);
	} else if (check_add_overflow(now, expires, deadline)) {
		return -ERANGE;
	}
	return tw_check_deadline(*deadline, now);
}

/**
 * twdev_resolve() - a caller's expiry as a deadline the wheel takes
 * @tf: the file; its absolute times are in its opener's time namespace
 * @clock: the timeout's clock
 * @expires: a delay in ns, or an absolute time with TWHEEL_ARM_ABS
 * @flags: the operation's flags
 * @mono_now: CLOCK_MONOTONIC reading of the call
 * @deadline: out: the deadline in @clock as the kernel reads it
 * @now: out: @mono_now in @clock; the delay counts from it
 *
 * Return: 0, -EINVAL for an absolute time past the clock's range, -ERANGE
 * for a deadline further than twheel_max_delay_ns() ahead.
 */
int twdev_resolve(const struct twdev_file *tf, enum tw_clock clock,
		  u64 expires, u32 flags, u64 mono_now, u64 *deadline,
		  u64 *now)
{
	*now = tw_clock_from_mono(mono_now, clock);
	return twdev_deadline(tf, clock, expires, flags, *now, deadline);
}

/**
 * twdev_may_use_cpu() - may the caller put a timeout on a CPU
 * @cpu: a possible CPU, or TWHEEL_CPU_LOCAL
 *
 * A chosen CPU must be in the caller's affinity mask and not isolated from
 * timers, unless the caller has CAP_SYS_NICE; checked at every arm and
 * re-arm, so a task that lost a CPU cannot keep its timeouts there.
 *
 * Context: process context.
 * Return: true if it may.
 */
bool twdev_may_use_cpu(int cpu)
{
	if (cpu == TWHEEL_CPU_LOCAL)
		return true;
	return (cpumask_test_cpu(cpu, current->cpus_ptr) &&
		housekeeping_cpu(cpu, HK_TYPE_TIMER)) ||
	       capable(CAP_SYS_NICE);
}

/**
 * twdev_rearm() - move a live timeout to a new expiry
 * @tf: the file, with @tf->lock held
 * @req: a checked TWHEEL_OP_REARM request
 *
 * The timeout keeps its cookie, period, CPU and clock; the request's expiry
 * is read in that clock. A record of it that waits to be read is dropped.
 *
 * Context: process context; may wait for the timeout's callback.
 * Return: 0, -ENOENT if the handle names no live timeout of @tf, -EPERM if
 * it was armed for a CPU the caller may not use now (twdev_may_use_cpu()),
 * or as twdev_resolve() (then nothing changed).
 */
int twdev_rearm(struct twdev_file *tf, const struct twdev_req *req)
{
	struct twdev_timeout *tdt;
	u64 deadline, now;
	int ret;

	lockdep_assert_held(&tf->lock);
	tdt = twdev_lookup(tf, req->handle);
	if (!tdt)
		return -ENOENT;
	if (!twdev_may_use_cpu(tdt->cpu))
		return -EPERM;
	ret = twdev_resolve(tf, twdev_clock(tdt), req->expires, req->flags,
			    req->mono_now, &deadline, &now);
	if (ret)
		return ret;
	/*
	 * Still pending: moved in one step, and its old arming can no longer
	 * fire (a pending timeout has no record queued: a fired one is armed
	 * again only when its record is read). Otherwise its callback may be
	 * running and would queue a record for the old arming: wait for it
	 * and drop the record. With a shared table the callback may file the
	 * timeout again and change its deadline (dev_share.c), so that is
	 * always waited for first.
	 */
	if (!tf->share) {
		tdt->deadline = deadline;
		if (tw_mod(&tdt->tw, deadline, now, tdt->cpu,
			   TWHEEL_MOD_PENDING_ONLY) == 1)
			return 0;
	}
	twheel_cancel_sync(&tdt->tw);
	if (twdev_ringed(tf, tdt, req->handle))
		return -ENOENT;
	twdev_unqueue(tf, tdt);
	tdt->deadline = deadline;
	twdev_share_set(tdt);
	twdev_start(tdt, now);
	return 0;
}

/**
 * twdev_cancel() - cancel a live timeout and free its handle
 * @tf: the file, with @tf->lock held
 * @handle: the timeout
 * @flags: TWHEEL_CANCEL_REPORT or 0
 *
 * Once this returns, no record of @handle is read, even one that was
 * already queued.
 *
 * Context: process context; may wait for the timeout's callback.
 * Return: 0, or with TWHEEL_CANCEL_REPORT TWHEEL_CANCELLED_ARMED (it had not
 * fired, or its program pushed it out since) or TWHEEL_CANCELLED_QUEUED (it
 * had, and its record is dropped);
 * -ENOENT if @handle names no live timeout of @tf.
 */
int twdev_cancel(struct twdev_file *tf, u64 handle, u32 flags)
{
	struct twdev_timeout *tdt;
	int was_armed;

	lockdep_assert_held(&tf->lock);
	tdt = twdev_lookup(tf, handle);
	if (!tdt)
		return -ENOENT;
	was_armed = twheel_cancel_sync(&tdt->tw);
	if (!was_armed && twdev_ringed(tf, tdt, handle))
		return -ENOENT;
	/*
	 * Taken off the wheel before it fired, it has no record: a timeout
	 * that fired is armed again only once its record has been read. One
	 * whose record waits but whose program pushed it out since counts as
	 * armed, as read() would have filed it again (and GET says).
	 */
	if (was_armed) {
		twdev_kill(tf, tdt);
	} else {
		was_armed = !!twdev_pushed(tdt, tdt->deadline,
					   tw_clock_ns(twdev_clock(tdt)));
		twdev_discard(tf, tdt);
	}
	tf->counters.cancelled++;
	if (!(flags & TWHEEL_CANCEL_REPORT))
		return 0;
	return was_armed ? TWHEEL_CANCELLED_ARMED : TWHEEL_CANCELLED_QUEUED;
}
EXPORT_SYMBOL_IF_KUNIT(twdev_cancel);

/*
 * Describe live @tdt as of @mono_now. Not pending and no record queued means
 * its callback runs right now: its record is on its way. Caller holds
 * tf->lock.
 */
static void twdev_describe(struct twdev_file *tf, struct twdev_timeout *tdt,
			   u64 mono_now, struct twheel_get *out)
{
	u64 now = tw_clock_from_mono(mono_now, twdev_clock(tdt));
	u64 deadline, pushed;
	bool queued;

	xa_lock_bh(&tf->timeouts);
	/* A callback that files it again changes it (dev_share.c). */
	deadline = READ_ONCE(tdt->deadline);
	/*
	 * Off its wheel with no record waiting, its callback is running: a
	 * record is on its way only if its deadline has passed. A later one is
	 * what the callback files it for next (a periodic timeout whose record
	 * went into the ring, or a deadline the program pushed out).
	 */
	queued = xa_get_mark(&tf->timeouts, twdev_slot(tdt), TWDEV_READY) ||
		 (!twheel_pending(&tdt->tw) && deadline <= now);
	xa_unlock_bh(&tf->timeouts);
	/*
	 * Due at what the program stored, if later: a queued record of it
	 * would not be read but filed again for that (dev_read.c).
	 */
	pushed = twdev_pushed(tdt, deadline, now);
	if (pushed) {
		deadline = pushed;
		queued = false;
	}
	memset(out, 0, sizeof(*out));
	out->handle = tdt->handle;
	out->cookie = tdt->cookie;
	out->deadline = twdev_to_user_time(tf, twdev_clock(tdt), deadline);
	out->remaining = deadline > now ? deadline - now : 0;
	out->period = twdev_period(tdt);
	out->state = queued ? TWHEEL_STATE_QUEUED : TWHEEL_STATE_ARMED;
	out->flags = tdt->flags & TWHEEL_ARM_FIXED_DELAY;
	if (twdev_clock(tdt) == TW_CLOCK_BOOT)
		out->flags |= TWHEEL_ARM_BOOTTIME;
	if (tdt->cpu != TWHEEL_CPU_LOCAL) {
		out->flags |= TWHEEL_ARM_CPU;
		out->cpu = tdt->cpu;
	}
	if (queued && out->period && !(tdt->flags & TWHEEL_ARM_FIXED_DELAY) &&
	    now > deadline)
		out->overrun = div64_u64(now - deadline, out->period);
}

/**
 * twdev_query() - describe a live timeout
 * @tf: the file, with @tf->lock held
 * @handle: the timeout
 * @now: CLOCK_MONOTONIC time of the call
 * @out: the description
 *
 * Return: 0, or -ENOENT if @handle names no live timeout of @tf.
 */
int twdev_query(struct twdev_file *tf, u64 handle, u64 now,
		struct twheel_get *out)
{
	struct twdev_timeout *tdt;

	lockdep_assert_held(&tf->lock);
	tdt = twdev_lookup(tf, handle);
	if (!tdt)
		return -ENOENT;
	twdev_describe(tf, tdt, now, out);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(twdev_query);

/**
 * twdev_list() - describe the live timeouts from a slot on
 * @tf: the file, with @tf->lock held
 * @cursor: in: first slot to look at; out: the slot to continue from
 * @now: CLOCK_MONOTONIC time of the call
 * @out: room for @max descriptions
 * @max: at least 1
 *
 * Return: descriptions written; 0 when no live timeout is left.
 */
unsigned int twdev_list(struct twdev_file *tf, unsigned long *cursor,
			u64 now, struct twheel_get *out, unsigned int max)
{
	unsigned int n = 0, seen = 0;
	struct twdev_timeout *tdt;

	lockdep_assert_held(&tf->lock);
	twdev_reap(tf);
	xa_for_each_start(&tf->timeouts, *cursor, tdt, *cursor) {
		if (n == max)
			return n;
		if (!xa_is_value(tdt) && upper_32_bits(tdt->handle))
			twdev_describe(tf, tdt, now, &out[n++]);
		if (!(++seen % TW_LOCKED_CHUNK))
			cond_resched();
	}
	/* Past the last slot: no slot is ULONG_MAX. */
	*cursor = ULONG_MAX;
	return n;
}

/**
 * twdev_stats() - a file's counters
 * @tf: the file, with @tf->lock held
 * @out: the counters
 */
void twdev_stats(struct twdev_file *tf, struct twheel_stats *out)
{
	lockdep_assert_held(&tf->lock);
	twdev_reap(tf);
	memset(out, 0, sizeof(*out));
	out->pending = tf->nr_live;
	out->armed = tf->counters.armed;
	out->cancelled = tf->counters.cancelled;
	out->overruns = tf->counters.overruns;
	xa_lock_bh(&tf->timeouts);
	out->queued = tf->nr_queued;
	out->overruns += tf->counters.ring_overruns;
	out->fired = tf->counters.fired;
	memcpy(out->late, tf->counters.late, sizeof(out->late));
	xa_unlock_bh(&tf->timeouts);
}

/*
 * The offsets of the caller's time namespace: fixed once a task has entered
 * it, so the opener's hold for the life of the file. The inline helpers of
 * <linux/time_namespace.h> read them; without CONFIG_TIME_NS they are 0.
 */
static void twdev_read_timens(struct twdev_file *tf)
{
	struct timespec64 mono = {}, boot = {};

	timens_add_monotonic(&mono);
	timens_add_boottime(&boot);
	tf->ns_off[TW_CLOCK_MONO] = timespec64_to_ns(&mono);
	tf->ns_off[TW_CLOCK_BOOT] = timespec64_to_ns(&boot);
}

/**
 * twdev_file_new() - the context of a newly opened file
 *
 * Its timeouts are charged to the real user ID of the caller and to the
 * owners of the caller's user namespaces (twdev_users_get()).
 *
 * Context: process context.
 * Return: the context, or NULL if out of memory.
 */
struct twdev_file *twdev_file_new(void)
{
	struct twdev_file *tf;

	tf = kzalloc(sizeof(*tf), GFP_KERNEL_ACCOUNT);
	if (!tf)
		return NULL;
	if (twdev_users_get(tf)) {
		twdev_users_put(tf);
		kfree(tf);
		return NULL;
	}
	mutex_init(&tf->lock);
	xa_init_flags(&tf->timeouts, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH |
		      XA_FLAGS_ACCOUNT);
	init_waitqueue_head(&tf->wqh);
	twheel_timeout_init(&tf->waker, twdev_wake);
	tw_set_queue(&tf->waker, tf->users[0]->queue);
	tf->max_pending = max_pending;
	tf->key = get_random_u32();
	twdev_read_timens(tf);
	return tf;
}
EXPORT_SYMBOL_IF_KUNIT(twdev_file_new);

/* Shut down every timeout of @tf, TW_LOCKED_CHUNK at a time. */
static void twdev_shutdown_all(struct twdev_file *tf)
{
	struct twheel_timeout *chunk[TW_LOCKED_CHUNK];
	struct twdev_timeout *tdt;
	unsigned int n = 0, seen = 0;
	unsigned long slot;

	xa_for_each(&tf->timeouts, slot, tdt) {
		/* Spare slots too: a file may have a million of them. */
		if (!(++seen % TW_LOCKED_CHUNK))
			cond_resched();
		if (xa_is_value(tdt))
			continue;
		chunk[n++] = &tdt->tw;
		if (n == ARRAY_SIZE(chunk)) {
			tw_shutdown_many(chunk, n);
			n = 0;
		}
	}
	tw_shutdown_many(chunk, n);
}

/*
 * Erase and free every timeout of @tf, all shut down, each erase a short
 * hold of the xa_lock: xa_destroy() of a full index would walk it all with
 * interrupts off; of the empty one left here it does nothing.
 */
static void twdev_free_timeouts(struct twdev_file *tf)
{
	struct twdev_timeout *tdt;
	unsigned long slot;
	unsigned int n = 0;

	xa_for_each(&tf->timeouts, slot, tdt) {
		xa_erase_bh(&tf->timeouts, slot);
		if (!xa_is_value(tdt))
			twdev_timeout_free(tf, tdt);
		if (!(++n % TW_LOCKED_CHUNK))
			cond_resched();
	}
}

/**
 * twdev_file_free() - shut down and free everything a file owns
 * @tf: the file; nothing else uses it any more
 *
 * Callbacks of timeouts not shut down yet may run on other CPUs meanwhile.
 * Every timeout, live, cached or retired, is shut down (a chunk of them per
 * base lock), then the callbacks running at that moment are waited for,
 * once for all, and only then is any freed. The waker goes last: only those
 * callbacks arm it.
 *
 * Context: process context; may wait for callbacks.
 */
void twdev_file_free(struct twdev_file *tf)
{
	twdev_shutdown_all(tf);
	tw_sync_callbacks();
	twdev_free_timeouts(tf);
	xa_destroy(&tf->timeouts);
	twheel_shutdown_sync(&tf->waker);
	twdev_share_free(tf);
	twdev_users_put(tf);
	mutex_destroy(&tf->lock);
	kfree(tf);
}
EXPORT_SYMBOL_IF_KUNIT(twdev_file_free);

/**
 * twdev_show_fdinfo() - the file's counters and limits in /proc/PID/fdinfo
 * @m: the fdinfo file
 * @file: an open /dev/twheel
 *
 * The counters as TWHEEL_IOC_STATS gives them (taken under tf->lock like
 * it), then the limits. late: expiries by lateness in microseconds, bucket
 * i counting [2^(i-1), 2^i) as struct twheel_stats says.
 *
 * Context: process context; takes tf->lock (nothing is shown on a signal).
 */
void twdev_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct twdev_file *tf = file->private_data;
	struct twheel_stats st;
	unsigned int i;

	if (mutex_lock_interruptible(&tf->lock))
		return;
	twdev_stats(tf, &st);
	mutex_unlock(&tf->lock);
	seq_printf(m, "pending:\t%llu\nqueued:\t%llu\nmax_pending:\t%u\n",
		   st.pending, st.queued, tf->max_pending);
	seq_printf(m, "cached:\t%u\n", READ_ONCE(tf->nr_free));
	seq_printf(m, "user_timeouts:\t%ld\nmax_user_timeouts:\t%lu\n",
		   atomic_long_read(&tf->users[0]->nr_timeouts),
		   twdev_max_user_timeouts());
	seq_printf(m, "armed:\t%llu\nfired:\t%llu\ncancelled:\t%llu\noverruns:\t%llu\nlate:",
		   st.armed, st.fired, st.cancelled, st.overruns);
	for (i = 0; i < TWHEEL_STATS_LATE_BUCKETS; i++)
		seq_printf(m, " %llu", st.late[i]);
	seq_putc(m, '\n');
}

/**
 * twdev_file_init() - create the timeout caches
 *
 * One for one-shot timeouts, one for those with room for a period. The
 * caches are SLAB_ACCOUNT: every timeout is charged to the memory cgroup
 * of the task whose arm allocated it. A per-user limit left at 0 is set to
 * its default, a share of the machine's RAM.
 *
 * Return: 0 or -ENOMEM.
 */
int twdev_file_init(void)
{
	if (!max_user_timeouts)
		max_user_timeouts = totalram_pages() / TWDEV_USER_RAM_DIVISOR *
				    PAGE_SIZE / TWDEV_TIMEOUT_COST;
	twdev_timeout_cache = KMEM_CACHE(twdev_timeout, SLAB_ACCOUNT);
	if (!twdev_timeout_cache)
		return -ENOMEM;
	twdev_periodic_cache = KMEM_CACHE(twdev_periodic, SLAB_ACCOUNT);
	if (!twdev_periodic_cache) {
		kmem_cache_destroy(twdev_timeout_cache);
		return -ENOMEM;
	}
	return 0;
}

/**
 * twdev_file_exit() - destroy the timeout caches
 *
 * No file is open any more.
 */
void twdev_file_exit(void)
{
	kmem_cache_destroy(twdev_periodic_cache);
	kmem_cache_destroy(twdev_timeout_cache);
}
