// SPDX-License-Identifier: GPL-2.0
/*
 * dev_share.c - /dev/twheel: the timeout table a file shares with its program
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
 * Locking: tf->share is set once, under tf->lock, before the file has any
 * timeout, with release order (twdev_mmap() reads it without tf->lock,
 * which the page faults of read() nest the mmap lock in), and stays until
 * the file is freed. The kernel writes entries under tf->lock only.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "dev.h"

/**
 * struct twdev_share - a file's shared timeout table
 * @table: the table, mapped into the kernel
 * @pages: its pages, for mmap()
 * @nr_pages: how many
 * @slots: entries of @table; every slot of the file is below it
 */
struct twdev_share {
	struct twheel_slot *table;
	struct page **pages;
	unsigned int nr_pages;
	u32 slots;
};

/**
 * twdev_share_release() - free a table
 * @sh: the table; no timeout of its file is left
 */
void twdev_share_release(struct twdev_share *sh)
{
	unsigned int i;

	if (sh->table)
		vunmap(sh->table);
	for (i = 0; i < sh->nr_pages; i++)
		if (sh->pages[i])
			__free_page(sh->pages[i]);
	kvfree(sh->pages);
	kfree(sh);
}

/* A zeroed table of @nr_pages pages, charged to the caller's memcg. */
static struct twdev_share *twdev_share_alloc(unsigned int nr_pages)
{
	struct twdev_share *sh;
	unsigned int i;

	sh = kzalloc(sizeof(*sh), TWDEV_GFP);
	if (!sh)
		return NULL;
	sh->pages = kvcalloc(nr_pages, sizeof(*sh->pages), TWDEV_GFP);
	if (!sh->pages)
		goto err_release;
	sh->nr_pages = nr_pages;
	for (i = 0; i < nr_pages; i++) {
		sh->pages[i] = alloc_page(TWDEV_GFP | __GFP_ZERO);
		if (!sh->pages[i])
			goto err_release;
	}
	sh->table = vmap(sh->pages, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!sh->table)
		goto err_release;
	return sh;

err_release:
	twdev_share_release(sh);
	return NULL;
}

/**
 * twdev_share_size() - bytes of a table
 * @slots: entries wanted
 *
 * Return: the bytes of a table of @slots entries, in whole pages.
 */
size_t twdev_share_size(u32 slots)
{
	return round_up((size_t)slots * sizeof(struct twheel_slot), PAGE_SIZE);
}

/**
 * twdev_share_new() - a new table
 * @req: a checked TWHEEL_IOC_SHARE request; its answer is filled in
 * @most: the most entries the file may use
 *
 * Context: process context; allocates, charging the caller's memory cgroup.
 * Return: the table, or NULL if out of memory.
 */
struct twdev_share *twdev_share_new(struct twheel_share *req, u32 most)
{
	size_t size = twdev_share_size(req->slots);
	struct twdev_share *sh;

	sh = twdev_share_alloc(size >> PAGE_SHIFT);
	if (!sh)
		return NULL;
	sh->slots = min_t(size_t, size / sizeof(struct twheel_slot), most);
	req->slots = sh->slots;
	req->size = size;
	req->offset = TWHEEL_OFF_TABLE;
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
	slot = &tf->share->table[twdev_slot(tdt)];
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
	cmpxchg64(&tf->share->table[twdev_slot(tdt)].deadline,
		  twdev_to_user_time(tf, clock, old),
		  twdev_to_user_time(tf, clock, tdt->deadline));
}

/**
 * twdev_share_clear() - say that a slot's timeout is dead
 * @tdt: the timeout, its owner's tf->lock held
 *
 * The deadline stays: a program that refreshed the timeout after its record
 * was read finds its own store there (see libtwheel).
 */
void twdev_share_clear(const struct twdev_timeout *tdt)
{
	const struct twdev_file *tf = tdt->tf;

	if (tf->share)
		WRITE_ONCE(tf->share->table[twdev_slot(tdt)].handle, 0);
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
	stored = READ_ONCE(tf->share->table[twdev_slot(tdt)].deadline);
	if (stored > KTIME_MAX)
		return 0;
	pushed = twdev_from_user_time(tf, twdev_clock(tdt), stored);
	if (pushed <= deadline || tw_check_deadline(pushed, now))
		return 0;
	return pushed;
}

/**
 * twdev_share_bytes() - bytes of a file's shared table
 * @tf: the file
 *
 * Return: the size of its table, 0 if it has none.
 */
size_t twdev_share_bytes(const struct twdev_file *tf)
{
	return tf->share ? (size_t)tf->share->nr_pages << PAGE_SHIFT : 0;
}

/**
 * twdev_mmap() - the mmap of /dev/twheel: map the shared table
 * @file: the open file
 * @vma: the mapping: shared, within the table
 *
 * Context: process context, the mmap lock held for writing.
 * Return: 0; -ENODEV if the file has no table; -EINVAL for a private
 * mapping (the kernel would never see its stores); -ENXIO past the table.
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
	return vm_map_pages(vma, sh->pages, sh->nr_pages);
}
