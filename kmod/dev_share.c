// SPDX-License-Identifier: GPL-2.0
/*
 * dev_share.c - /dev/twheel: the timeout table and expiry ring a file shares
 * with its program
 *
 * TWHEEL_IOC_SHARE gives a file a table of struct twheel_slot, one entry per
 * slot of its handles, in pages the program maps with mmap(). The kernel
 * writes an entry's deadline whenever it arms the timeout of that slot and
 * its handle while the timeout lives. The program makes a timeout's
 * deadline later with a plain store into the entry (a refresh): no system
 * call. The kernel looks at the entry when the deadline it has filed comes
 * due (twdev_expire()) and when read() finds the record (dev_read.c): a
 * later deadline there is filed instead of firing, as the kernel's own TCP
 * keepalive timer checks the real deadline when it fires. So a timeout
 * refreshed a thousand times costs one re-file per deadline that came due.
 *
 * The table is the program's memory as much as the kernel's: every value
 * the kernel reads there is untrusted input. It reads only deadlines, each
 * once per decision (READ_ONCE()), takes one only if the wheel accepts it
 * and it is later than the deadline filed, and stores no kernel pointer
 * there. A program that writes garbage into its table changes when its
 * own timeouts fire (never before the deadline the kernel filed) and costs
 * at most one callback per timeout and tick, like arming them; nothing of
 * another file is reachable from it.
 *
 * Memory: the pages are charged to the memory cgroup of the caller of
 * TWHEEL_IOC_SHARE, and (by dev_file.c, which sets the table up and frees
 * it) to its users' per-user limits as the number of timeouts that take as
 * much memory; they are the file's until it is freed, whatever the program
 * maps or unmaps. A mapping holds the file, as every mapping of a file
 * does, so the file and its timeouts live until the last mapping goes,
 * after close() too.
 *
 * With TWHEEL_SHARE_RING the file also has an expiry ring, as io_uring's
 * completion ring: a callback puts its record there (twdev_ring_put())
 * instead of marking it ready for read(), and the program consumes records
 * from memory. The kernel keeps its own copy of the tail and reads the
 * program's head once per record; a head that says more is free than the
 * ring holds means full. A full ring loses nothing: the record waits in the
 * file as without a ring, read() returns it, and the ring's @waiting says
 * how many wait.
 *
 * Locking: tf->share is set once, under tf->lock, before the file has any
 * timeout, with release order (twdev_mmap() reads it without tf->lock,
 * which the page faults of read() nest the mmap lock in), and stays until
 * the file is freed. The kernel writes table entries under tf->lock, but
 * for what a callback that put its record in the ring writes: a periodic
 * timeout's next deadline (cmpxchg, as under tf->lock) or a one-shot's
 * death (its handle cleared; the slot is not used again before a tf->lock
 * holder reaps it); the ring's tail and @waiting change under the file's
 * xa_lock.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "dev.h"

/**
 * struct twdev_pages - pages shared with the program
 * @addr: where the kernel sees them (vmap())
 * @pages: the pages, for mmap()
 * @nr: how many
 */
struct twdev_pages {
	void *addr;
	struct page **pages;
	unsigned int nr;
};

/**
 * struct twdev_share - a file's shared timeout table and expiry ring
 * @table: the table: @slots struct twheel_slot
 * @ring: the ring, or none (@ring.nr 0): a struct twheel_ring, then
 *	@ring_mask + 1 struct twheel_event from TWHEEL_RING_EVENTS on
 * @slots: entries of the table; every slot of the file is below it
 * @ring_mask: entries of the ring less one
 * @ring_tail: records put in the ring (under the file's xa_lock; never
 *	read back from the ring)
 * @pick: the program picks each timeout's slot (TWHEEL_SHARE_PICK_SLOTS)
 */
struct twdev_share {
	struct twdev_pages table;
	struct twdev_pages ring;
	u32 slots;
	u32 ring_mask;
	u32 ring_tail;
	bool pick;
};

static struct twheel_slot *twdev_table(const struct twdev_share *sh)
{
	return sh->table.addr;
}

static struct twheel_ring *twdev_ring(const struct twdev_share *sh)
{
	return sh->ring.addr;
}

static struct twheel_event *twdev_ring_events(const struct twdev_share *sh)
{
	return sh->ring.addr + TWHEEL_RING_EVENTS;
}

static void twdev_pages_free(struct twdev_pages *p)
{
	unsigned int i;

	if (p->addr)
		vunmap(p->addr);
	for (i = 0; i < p->nr; i++)
		if (p->pages[i])
			__free_page(p->pages[i]);
	kvfree(p->pages);
}

/* @size bytes of zeroed pages, charged to the caller's memcg; 0 or -ENOMEM. */
static int twdev_pages_alloc(struct twdev_pages *p, size_t size)
{
	unsigned int i, nr = size >> PAGE_SHIFT;

	p->pages = kvcalloc(nr, sizeof(*p->pages), TWDEV_GFP);
	if (!p->pages)
		return -ENOMEM;
	p->nr = nr;
	for (i = 0; i < nr; i++) {
		p->pages[i] = alloc_page(TWDEV_GFP | __GFP_ZERO);
		if (!p->pages[i])
			return -ENOMEM;
	}
	p->addr = vmap(p->pages, nr, VM_MAP, PAGE_KERNEL);
	return p->addr ? 0 : -ENOMEM;
}

/**
 * twdev_share_release() - free a table and its ring
 * @sh: the table; no timeout of its file is left
 */
void twdev_share_release(struct twdev_share *sh)
{
	twdev_pages_free(&sh->table);
	twdev_pages_free(&sh->ring);
	kfree(sh);
}

/* Entries of the ring a request asks for: a power of two, or 0. */
static u32 twdev_ring_entries(const struct twheel_share *req)
{
	if (!(req->flags & TWHEEL_SHARE_RING))
		return 0;
	return roundup_pow_of_two(req->ring_entries);
}

/**
 * twdev_share_size() - bytes of a table and its ring
 * @req: a checked TWHEEL_IOC_SHARE request
 *
 * Return: the bytes they take, in whole pages.
 */
size_t twdev_share_size(const struct twheel_share *req)
{
	size_t size = round_up((size_t)req->slots * sizeof(struct twheel_slot),
			       PAGE_SIZE);
	u32 entries = twdev_ring_entries(req);

	if (entries)
		size += TWHEEL_RING_EVENTS +
			round_up((size_t)entries * sizeof(struct twheel_event),
				 PAGE_SIZE);
	return size;
}

/**
 * twdev_share_new() - a new table, and ring if asked for
 * @req: a checked TWHEEL_IOC_SHARE request; its answer is filled in
 * @most: the most entries the file may use
 *
 * Context: process context; allocates, charging the caller's memory cgroup.
 * Return: the table, or NULL if out of memory.
 */
struct twdev_share *twdev_share_new(struct twheel_share *req, u32 most)
{
	size_t size = round_up((size_t)req->slots * sizeof(struct twheel_slot),
			       PAGE_SIZE);
	u32 entries = twdev_ring_entries(req);
	struct twdev_share *sh;

	sh = kzalloc(sizeof(*sh), TWDEV_GFP);
	if (!sh)
		return NULL;
	if (twdev_pages_alloc(&sh->table, size) ||
	    (entries && twdev_pages_alloc(&sh->ring,
					  twdev_share_size(req) - size))) {
		twdev_share_release(sh);
		return NULL;
	}
	sh->slots = min_t(size_t, size / sizeof(struct twheel_slot), most);
	sh->pick = req->flags & TWHEEL_SHARE_PICK_SLOTS;
	req->slots = sh->slots;
	req->size = size;
	req->offset = TWHEEL_OFF_TABLE;
	if (entries) {
		sh->ring_mask = entries - 1;
		twdev_ring(sh)->entries = entries;
		req->ring_entries = entries;
		req->ring_size = (size_t)sh->ring.nr << PAGE_SHIFT;
		req->ring_offset = TWHEEL_OFF_RING;
	}
	return sh;
}

/**
 * twdev_share_limit() - the slots a file with a table may hand out
 * @tf: the file
 * @limit: out: its range of slots, if it has a table
 *
 * Return: true if @tf has a table.
 */
bool twdev_share_limit(const struct twdev_file *tf, struct xa_limit *limit)
{
	if (!tf->share)
		return false;
	*limit = XA_LIMIT(1, tf->share->slots - 1);
	return true;
}

/**
 * twdev_share_picks() - does a file's program pick its timeouts' slots
 * @tf: the file
 *
 * Return: true if @tf has a table shared with TWHEEL_SHARE_PICK_SLOTS.
 */
bool twdev_share_picks(const struct twdev_file *tf)
{
	return tf->share && tf->share->pick;
}

/**
 * twdev_check_slot() - the slot an arm picked
 * @tf: the file, with @tf->lock held
 * @flags: the arm's flags
 * @handle: the arm's handle field, the slot with TWHEEL_ARM_SLOT
 * @slot: out: the slot, or 0 for an arm that picks none
 *
 * Return: 0, or -EINVAL: TWHEEL_ARM_SLOT in a file whose program does not
 * pick slots, none in one whose program does, or a slot the table lacks.
 */
int twdev_check_slot(const struct twdev_file *tf, u32 flags, u64 handle,
		     u32 *slot)
{
	bool pick = twdev_share_picks(tf);

	*slot = 0;
	if (!(flags & TWHEEL_ARM_SLOT))
		return pick ? -EINVAL : 0;
	if (!pick || !handle || handle >= tf->share->slots)
		return -EINVAL;
	*slot = handle;
	return 0;
}

/**
 * twdev_share_set() - publish a live timeout's deadline and handle
 * @tdt: the timeout, its owner's tf->lock held
 *
 * The deadline goes first: a program that sees the handle sees its deadline.
 */
void twdev_share_set(const struct twdev_timeout *tdt)
{
	const struct twdev_file *tf = tdt->tf;
	struct twheel_slot *slot;

	if (!tf->share)
		return;
	slot = &twdev_table(tf->share)[twdev_slot(tdt)];
	WRITE_ONCE(slot->deadline,
		   twdev_to_user_time(tf, twdev_clock(tdt), tdt->deadline));
	/* Pairs with the program's load-acquire of the handle (libtwheel). */
	smp_store_release(&slot->handle, tdt->handle);
}

/**
 * twdev_share_next() - publish a live timeout's next deadline
 * @tdt: the timeout, its owner's tf->lock held, filed again for its
 *	deadline after it fired
 * @old: the deadline it fired for
 *
 * Only if the entry still holds @old: a store the program made since the
 * kernel last looked stays, and is looked at when the new deadline comes
 * due, so no refresh is lost to the kernel's own write.
 */
void twdev_share_next(const struct twdev_timeout *tdt, u64 old)
{
	const struct twdev_file *tf = tdt->tf;
	enum tw_clock clock = twdev_clock(tdt);

	if (!tf->share)
		return;
	cmpxchg64(&twdev_table(tf->share)[twdev_slot(tdt)].deadline,
		  twdev_to_user_time(tf, clock, old),
		  twdev_to_user_time(tf, clock, tdt->deadline));
}

/**
 * twdev_share_clear() - say that a slot's timeout is dead
 * @tdt: the timeout, its owner's tf->lock held; or its callback, which put
 *	its last record in the ring (no one else writes the entry of a slot
 *	before the slot is reaped)
 *
 * The deadline stays: a program that refreshed the timeout after its record
 * was read finds its own store there (see libtwheel).
 */
void twdev_share_clear(const struct twdev_timeout *tdt)
{
	const struct twdev_file *tf = tdt->tf;

	if (tf->share)
		WRITE_ONCE(twdev_table(tf->share)[twdev_slot(tdt)].handle, 0);
}

/**
 * twdev_pushed() - the later deadline a program stored for a timeout
 * @tdt: the timeout
 * @deadline: the deadline it is filed for, in its clock
 * @now: the current time of its clock
 *
 * Reads the timeout's entry once and trusts nothing of it.
 *
 * Context: any; the table is not freed while the timeout can fire.
 * Return: the deadline stored in the entry, in the timeout's clock, if it
 * is later than @deadline and the wheel accepts it at @now; else 0.
 */
u64 twdev_pushed(const struct twdev_timeout *tdt, u64 deadline, u64 now)
{
	const struct twdev_file *tf = tdt->tf;
	u64 stored, pushed;

	if (!tf->share)
		return 0;
	stored = READ_ONCE(twdev_table(tf->share)[twdev_slot(tdt)].deadline);
	if (stored > KTIME_MAX)
		return 0;
	pushed = twdev_from_user_time(tf, twdev_clock(tdt), stored);
	if (pushed <= deadline || tw_check_deadline(pushed, now))
		return 0;
	return pushed;
}

/**
 * twdev_share_bytes() - bytes of a file's shared table and ring
 * @tf: the file
 *
 * Return: the size of its table and ring, 0 if it has none.
 */
size_t twdev_share_bytes(const struct twdev_file *tf)
{
	const struct twdev_share *sh = tf->share;

	return sh ? (size_t)(sh->table.nr + sh->ring.nr) << PAGE_SHIFT : 0;
}

/**
 * twdev_has_ring() - does a file have an expiry ring
 * @tf: the file
 *
 * Return: true if it has one.
 */
bool twdev_has_ring(const struct twdev_file *tf)
{
	return tf->share && tf->share->ring.nr;
}

/**
 * twdev_ring_put() - put a record in a file's expiry ring
 * @tf: the file, its xa_lock held
 * @ev: the record
 *
 * The program's head is read once; one that says more records are free
 * than the ring has is taken as a full ring. The record is written before
 * the tail moves past it (release order).
 *
 * Return: true if the record is in the ring; false if the file has no
 * ring or it is full.
 */
bool twdev_ring_put(struct twdev_file *tf, const struct twheel_event *ev)
{
	struct twdev_share *sh = tf->share;
	u32 head, tail;

	if (!sh || !sh->ring.nr)
		return false;
	tail = sh->ring_tail;
	head = READ_ONCE(twdev_ring(sh)->head);
	if (tail - head > sh->ring_mask)
		return false;
	twdev_ring_events(sh)[tail & sh->ring_mask] = *ev;
	/* Pairs with the program's load-acquire of the tail. */
	smp_store_release(&twdev_ring(sh)->tail, tail + 1);
	WRITE_ONCE(sh->ring_tail, tail + 1);
	return true;
}

/**
 * twdev_ring_ready() - does a file's ring hold records not consumed yet
 * @tf: the file
 *
 * Context: any; lockless (poll).
 * Return: true if the program's head is not at the tail.
 */
bool twdev_ring_ready(const struct twdev_file *tf)
{
	const struct twdev_share *sh = tf->share;

	if (!sh || !sh->ring.nr)
		return false;
	return READ_ONCE(twdev_ring(sh)->head) != READ_ONCE(sh->ring_tail);
}

/**
 * twdev_ring_waiting() - tell the program how many records wait in the file
 * @tf: the file, its xa_lock held
 * @nr: records queued for read()
 */
void twdev_ring_waiting(struct twdev_file *tf, unsigned int nr)
{
	if (tf->share && tf->share->ring.nr)
		WRITE_ONCE(twdev_ring(tf->share)->waiting, nr);
}

/**
 * twdev_mmap() - the mmap of /dev/twheel: map the shared table or ring
 * @file: the open file
 * @vma: the mapping: shared, within the table (from its start or further
 *	in) or the ring (from its start, offset TWHEEL_OFF_RING)
 *
 * Context: process context, the mmap lock held for writing.
 * Return: 0; -ENODEV if the file has no table; -EINVAL for a private
 * mapping (the kernel would never see its stores); -ENXIO past the table
 * or the ring, or for a ring the file does not have.
 */
int twdev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct twdev_file *tf = file->private_data;
	const struct twdev_share *sh;

	/* Pairs with smp_store_release() in twdev_share(). */
	sh = smp_load_acquire(&tf->share);
	if (!sh)
		return -ENODEV;
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_pgoff < TWHEEL_OFF_RING >> PAGE_SHIFT)
		return vm_map_pages(vma, sh->table.pages, sh->table.nr);
	if (vma->vm_pgoff != TWHEEL_OFF_RING >> PAGE_SHIFT || !sh->ring.nr)
		return -ENXIO;
	return vm_map_pages_zero(vma, sh->ring.pages, sh->ring.nr);
}
