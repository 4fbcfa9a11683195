/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * twheel.h - userspace ABI of /dev/twheel
 *
 * Each open file of /dev/twheel is a private set of timeouts. Timeouts are
 * armed, re-armed and cancelled with the ioctls below, one at a time or in a
 * batch; expiries are read() as struct twheel_event records, and poll/epoll
 * report EPOLLIN while at least one record is ready.
 *
 * All times are nanoseconds of the timeout's clock: CLOCK_MONOTONIC, or
 * CLOCK_BOOTTIME for a timeout armed with TWHEEL_ARM_BOOTTIME (it goes on
 * counting while the machine is suspended, and a timeout whose deadline
 * passed during suspend fires on resume). Absolute times, in and out, are
 * as the opener of the file reads its clocks: in a time namespace, that
 * namespace's clocks (see Documentation/uapi.rst). A timeout never fires
 * early and fires at most one tick (twheel_info.tick_ns) plus the machine's
 * wake-up latency late.
 *
 * Growth rules: structures only grow at their end; every structure passed
 * to an ioctl has a *_SIZE_VER0 constant. The kernel accepts any size from
 * *_SIZE_VER0 up: bytes it does not know must be zero (-E2BIG otherwise),
 * fields a caller does not pass read as zero. Every flag word is checked
 * against its *_ALL mask and every reserved field must be zero (-EINVAL).
 * TWHEEL_IOC_INFO says which ioctls, flags and limits the running module has.
 */
#ifndef _UAPI_LINUX_TWHEEL_H
#define _UAPI_LINUX_TWHEEL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Version of this ABI; bumped when something is added. */
#define TWHEEL_API_VERSION		7

/* ioctl type 0xBA: unassigned in Documentation/userspace-api/ioctl/ioctl-number.rst. */
#define TWHEEL_IOC_MAGIC		0xBA

/*
 * Flags of struct twheel_arm and TWHEEL_OP_ARM (all), and of struct
 * twheel_rearm and TWHEEL_OP_REARM (TWHEEL_ARM_ABS only: a re-arm keeps the
 * timeout's clock).
 */
/* @expires is an absolute deadline in the timeout's clock, not a delay. */
#define TWHEEL_ARM_ABS			0x1U
/* Run the timeout on CPU @cpu rather than on the caller's CPU. */
#define TWHEEL_ARM_CPU			0x2U
/* Periodic: the next period starts when the event is read (fixed delay). */
#define TWHEEL_ARM_FIXED_DELAY		0x4U
/* The timeout runs on CLOCK_BOOTTIME instead of CLOCK_MONOTONIC (API 4). */
#define TWHEEL_ARM_BOOTTIME		0x8U
/*
 * @handle in is the shared table's entry the timeout takes (API 7): on
 * every arm of a file shared with TWHEEL_SHARE_PICK_SLOTS, and nowhere else.
 */
#define TWHEEL_ARM_SLOT			0x10U
#define TWHEEL_ARM_FLAGS_ALL		(TWHEEL_ARM_ABS | TWHEEL_ARM_CPU | \
					 TWHEEL_ARM_FIXED_DELAY | \
					 TWHEEL_ARM_BOOTTIME | \
					 TWHEEL_ARM_SLOT)

/**
 * struct twheel_arm - arm a new timeout (TWHEEL_IOC_ARM)
 * @cookie: caller's value, returned in every event of this timeout
 * @expires: delay in ns, or absolute deadline with TWHEEL_ARM_ABS
 * @period: 0 for one-shot, else the period in ns (at least one tick)
 * @flags: TWHEEL_ARM_*
 * @cpu: CPU to run on, with TWHEEL_ARM_CPU; must be zero otherwise
 * @handle: out: the new timeout's handle (never 0); in, with
 *	TWHEEL_ARM_SLOT: the table entry it takes, 1 to twheel_share.slots - 1
 */
struct twheel_arm {
	__u64 cookie;
	__u64 expires;
	__u64 period;
	__u32 flags;
	__u32 cpu;
	__u64 handle;
};

#define TWHEEL_ARM_SIZE_VER0		40

/**
 * struct twheel_rearm - move a live timeout to a new expiry (TWHEEL_IOC_REARM)
 * @handle: the timeout
 * @expires: delay in ns, or absolute deadline with TWHEEL_ARM_ABS
 * @flags: TWHEEL_ARM_ABS only
 * @reserved: must be zero
 *
 * The period, mode, CPU and cookie stay as armed. A record of this timeout
 * that is queued and not yet read is dropped.
 */
struct twheel_rearm {
	__u64 handle;
	__u64 expires;
	__u32 flags;
	__u32 reserved;
};

#define TWHEEL_REARM_SIZE_VER0		24

/* Flags of struct twheel_rearm and of TWHEEL_OP_REARM. */
#define TWHEEL_REARM_FLAGS_ALL		TWHEEL_ARM_ABS

/* Flags of struct twheel_cancel and of TWHEEL_OP_CANCEL. */
/* Say what the cancel undid: succeed with TWHEEL_CANCELLED_* instead of 0. */
#define TWHEEL_CANCEL_REPORT		0x1U
#define TWHEEL_CANCEL_FLAGS_ALL		TWHEEL_CANCEL_REPORT

/* What a cancel with TWHEEL_CANCEL_REPORT undid (its positive result). */
/* The timeout was armed: it will not fire. */
#define TWHEEL_CANCELLED_ARMED		1
/* The timeout had fired: its record, not yet read, is dropped. */
#define TWHEEL_CANCELLED_QUEUED		2

/**
 * struct twheel_cancel - cancel a live timeout (TWHEEL_IOC_CANCEL)
 * @handle: the timeout
 * @flags: TWHEEL_CANCEL_* (since API version 3; 0 before)
 * @reserved: must be zero
 *
 * After a successful cancel no event of @handle is ever read, even one that
 * was already queued, and @handle is dead. The ioctl returns 0, or with
 * TWHEEL_CANCEL_REPORT one of TWHEEL_CANCELLED_*.
 */
struct twheel_cancel {
	__u64 handle;
	__u32 flags;
	__u32 reserved;
};

#define TWHEEL_CANCEL_SIZE_VER0		16

/* Operations of struct twheel_op. */
#define TWHEEL_OP_ARM			1
#define TWHEEL_OP_REARM			2
#define TWHEEL_OP_CANCEL		3
/* Since API version 3: like TWHEEL_IOC_GET, see struct twheel_op. */
#define TWHEEL_OP_GET			4
/* The bit of an operation in twheel_info.batch_ops. */
#define TWHEEL_OP_BIT(op)		(1ULL << (op))
#define TWHEEL_OPS_ALL			(TWHEEL_OP_BIT(TWHEEL_OP_ARM) | \
					 TWHEEL_OP_BIT(TWHEEL_OP_REARM) | \
					 TWHEEL_OP_BIT(TWHEEL_OP_CANCEL) | \
					 TWHEEL_OP_BIT(TWHEEL_OP_GET))

/**
 * struct twheel_op - one operation of a batch
 * @op: TWHEEL_OP_*
 * @flags: as struct twheel_arm (ARM), struct twheel_rearm (REARM),
 *	struct twheel_cancel (CANCEL); 0 in, the TWHEEL_ARM_CPU,
 *	TWHEEL_ARM_FIXED_DELAY and TWHEEL_ARM_BOOTTIME the timeout was armed
 *	with out (GET)
 * @handle: in for REARM, CANCEL and GET; out for ARM (in too with
 *	TWHEEL_ARM_SLOT: the table entry)
 * @cookie: ARM; out for GET; else zero
 * @expires: ARM and REARM; out for GET (the deadline); else zero
 * @period: ARM; out for GET; else zero
 * @cpu: ARM with TWHEEL_ARM_CPU; out for GET; else zero
 * @result: out: a negative errno for this operation, else 0, a
 *	TWHEEL_CANCELLED_* (CANCEL with TWHEEL_CANCEL_REPORT) or a
 *	TWHEEL_STATE_* (GET)
 */
struct twheel_op {
	__u32 op;
	__u32 flags;
	__u64 handle;
	__u64 cookie;
	__u64 expires;
	__u64 period;
	__u32 cpu;
	__s32 result;
};

/**
 * struct twheel_batch - apply an array of operations in order (TWHEEL_IOC_BATCH)
 * @ops: user pointer to @count struct twheel_op, read and written back
 * @count: number of operations, 1 to twheel_info.max_batch
 * @op_size: sizeof(struct twheel_op) as the caller knows it
 * @flags: none defined yet; must be zero
 * @reserved: must be zero
 *
 * Each operation's outcome is in its own @result; one bad operation does not
 * stop the others. The ioctl returns 0 once all results are written back.
 * It returns -EFAULT with nothing applied when the array cannot be read, or
 * cannot be written before the first operation is applied. If the array
 * stops being writable while the results are written back (another thread
 * unmapped it), the operations stay applied, except that timeouts armed by
 * the batch are cancelled again (their handles could not be returned), and
 * the ioctl returns -EFAULT.
 */
struct twheel_batch {
	__u64 ops;
	__u32 count;
	__u32 op_size;
	__u32 flags;
	__u32 reserved;
};

#define TWHEEL_BATCH_SIZE_VER0		24

/* Flags of struct twheel_batch: none yet. */
#define TWHEEL_BATCH_FLAGS_ALL		0U

/* Bits of twheel_info.ioctls: which ioctls the module has. */
#define TWHEEL_FEAT_INFO		0x1ULL
#define TWHEEL_FEAT_ARM			0x2ULL
#define TWHEEL_FEAT_REARM		0x4ULL
#define TWHEEL_FEAT_CANCEL		0x8ULL
#define TWHEEL_FEAT_BATCH		0x10ULL
#define TWHEEL_FEAT_GET			0x20ULL
#define TWHEEL_FEAT_DRAIN		0x40ULL
#define TWHEEL_FEAT_STATS		0x80ULL
#define TWHEEL_FEAT_SHARE		0x100ULL

/**
 * struct twheel_info - what the running module supports (TWHEEL_IOC_INFO)
 * @api_version: TWHEEL_API_VERSION of the module
 * @size: sizeof(struct twheel_info) as the module knows it
 * @ioctls: TWHEEL_FEAT_* bits
 * @arm_flags: the TWHEEL_ARM_* flags the module accepts
 * @event_size: sizeof(struct twheel_event) that read() returns
 * @tick_ns: wheel tick; also the shortest period
 * @max_delay_ns: longest delay accepted (-ERANGE beyond)
 * @max_pending: live timeouts one open file may hold (-ENOSPC beyond)
 * @max_batch: operations one TWHEEL_IOC_BATCH may carry
 * @max_user_timeouts: timeouts one user may hold over all its open files,
 *	live or kept for reuse (-ENOSPC beyond); since API version 2
 * @rearm_flags: the flags TWHEEL_IOC_REARM and TWHEEL_OP_REARM accept
 * @cancel_flags: the flags TWHEEL_IOC_CANCEL and TWHEEL_OP_CANCEL accept
 * @drain_flags: the flags TWHEEL_IOC_DRAIN accepts
 * @batch_flags: the flags of struct twheel_batch TWHEEL_IOC_BATCH accepts
 * @batch_ops: TWHEEL_OP_BIT() of each operation TWHEEL_IOC_BATCH carries
 *
 * What the module can do is found by these bits and masks, never by
 * comparing @api_version: a flag outside its mask gets -EINVAL. The
 * structure grows at its end; @size says how much of it the module filled
 * (the masks from @rearm_flags on since TWHEEL_INFO_SIZE_VER2, API version
 * 5: a module that filled less takes TWHEEL_ARM_ABS on a re-arm, and with
 * TWHEEL_FEAT_GET also TWHEEL_CANCEL_REPORT, TWHEEL_OP_GET and, with
 * TWHEEL_FEAT_DRAIN, TWHEEL_DRAIN_CANCEL).
 */
struct twheel_info {
	__u32 api_version;
	__u32 size;
	__u64 ioctls;
	__u32 arm_flags;
	__u32 event_size;
	__u64 tick_ns;
	__u64 max_delay_ns;
	__u32 max_pending;
	__u32 max_batch;
	__u64 max_user_timeouts;
	__u32 rearm_flags;
	__u32 cancel_flags;
	__u32 drain_flags;
	__u32 batch_flags;
	__u64 batch_ops;
};

#define TWHEEL_INFO_SIZE_VER0		48
#define TWHEEL_INFO_SIZE_VER1		56
#define TWHEEL_INFO_SIZE_VER2		80

/* Flags of struct twheel_event. */
/* The timeout is periodic and stays armed. */
#define TWHEEL_EV_PERIODIC		0x1U
/*
 * The periodic timeout could not be armed for its next period (that deadline
 * is past the clock's range): this is its last record and its handle is dead.
 */
#define TWHEEL_EV_STOPPED		0x2U

/**
 * struct twheel_event - one expiry record returned by read()
 * @handle: the timeout
 * @cookie: its cookie
 * @deadline: deadline of the first expiry in this record, in the timeout's
 *	clock
 * @expired: time at which that expiry was delivered, in the same clock
 * @overrun: expiries after the first that this record also stands for
 *           (fixed-rate periodic timeouts whose reader fell behind)
 * @flags: TWHEEL_EV_*
 * @reserved: zero
 *
 * A one-shot timeout's handle is dead once its record has been read.
 */
struct twheel_event {
	__u64 handle;
	__u64 cookie;
	__u64 deadline;
	__u64 expired;
	__u64 overrun;
	__u32 flags;
	__u32 reserved;
};

/* States of a live timeout (struct twheel_get). */
/* Armed: it has not fired yet. */
#define TWHEEL_STATE_ARMED		1
/* Fired: its record is queued (or on its way) and not read yet. */
#define TWHEEL_STATE_QUEUED		2

/**
 * struct twheel_get - a live timeout (TWHEEL_IOC_GET, TWHEEL_IOC_DRAIN)
 * @handle: the timeout (in for GET, out for DRAIN)
 * @cookie: its cookie
 * @deadline: deadline of its current arming, or of the expiry its queued
 *	record reports, in the timeout's clock
 * @remaining: ns from the call to @deadline; 0 once it has passed
 * @period: 0 for a one-shot timeout, else its period
 * @overrun: for a queued record of a fixed-rate timeout, the further
 *	periods passed so far (what read() would report now)
 * @state: TWHEEL_STATE_*
 * @flags: the TWHEEL_ARM_CPU, TWHEEL_ARM_FIXED_DELAY and TWHEEL_ARM_BOOTTIME
 *	it was armed with
 * @cpu: with TWHEEL_ARM_CPU in @flags, its CPU; else 0
 * @reserved: zero
 *
 * A handle that is not live (never handed out, cancelled, or a one-shot
 * whose record was read) is refused with -ENOENT.
 */
struct twheel_get {
	__u64 handle;
	__u64 cookie;
	__u64 deadline;
	__u64 remaining;
	__u64 period;
	__u64 overrun;
	__u32 state;
	__u32 flags;
	__u32 cpu;
	__u32 reserved;
};

#define TWHEEL_GET_SIZE_VER0		64

/* Flags of struct twheel_drain. */
/* Cancel each timeout once it is copied out: hand the timeouts over. */
#define TWHEEL_DRAIN_CANCEL		0x1U
#define TWHEEL_DRAIN_FLAGS_ALL		TWHEEL_DRAIN_CANCEL

/**
 * struct twheel_drain - copy out the live timeouts (TWHEEL_IOC_DRAIN)
 * @entries: user pointer to @count struct twheel_get, written
 * @count: room in @entries, 1 to twheel_info.max_batch
 * @entry_size: sizeof(struct twheel_get) as the caller knows it, at least
 *	TWHEEL_GET_SIZE_VER0
 * @cursor: in: 0 to start, else the value a previous call left; out: where
 *	the next call continues
 * @flags: TWHEEL_DRAIN_*
 * @filled: out: entries written; 0 once every live timeout was listed
 *
 * Call until @filled is 0. Timeouts armed during the walk may or may not be
 * listed. With TWHEEL_DRAIN_CANCEL every timeout listed is cancelled, as by
 * TWHEEL_IOC_CANCEL, once its entry is written; if @entries cannot be
 * written the call fails with -EFAULT and cancels nothing.
 */
struct twheel_drain {
	__u64 entries;
	__u32 count;
	__u32 entry_size;
	__u64 cursor;
	__u32 flags;
	__u32 filled;
};

#define TWHEEL_DRAIN_SIZE_VER0		32

/* Buckets of struct twheel_stats.late. */
#define TWHEEL_STATS_LATE_BUCKETS	16

/**
 * struct twheel_stats - counters of one open file (TWHEEL_IOC_STATS)
 * @pending: live timeouts now
 * @queued: records ready to be read now
 * @armed: timeouts armed (TWHEEL_IOC_ARM and TWHEEL_OP_ARM)
 * @fired: expiries handled by the kernel
 * @cancelled: successful cancels
 * @overruns: overruns reported by the records read
 * @late: @fired by how late the kernel handled them after their deadline:
 *	@late[0] less than 1 us, @late[i] from 2^(i-1) to 2^i us, the last
 *	bucket also everything longer
 *
 * Counters start at 0 when the file is opened.
 */
struct twheel_stats {
	__u64 pending;
	__u64 queued;
	__u64 armed;
	__u64 fired;
	__u64 cancelled;
	__u64 overruns;
	__u64 late[TWHEEL_STATS_LATE_BUCKETS];
};

#define TWHEEL_STATS_SIZE_VER0		176

/**
 * struct twheel_slot - one entry of a file's shared timeout table
 * @deadline: the timeout's deadline, absolute, in its clock as the opener
 *	reads it. The kernel writes it when it arms the timeout
 *	(TWHEEL_IOC_ARM, TWHEEL_IOC_REARM, and a periodic timeout's next
 *	period unless the program stored a deadline since it fired); the
 *	program may raise it with a plain store (a refresh). The kernel reads
 *	it when the deadline it has filed comes due and when read() finds the
 *	record: a later deadline there is filed instead of firing. A lower one,
 *	or a value the wheel does not take, is ignored: the timeout fires when
 *	it was due.
 * @handle: the live timeout of this slot, 0 while there is none; written by
 *	the kernel only, and never read by it
 *
 * The entry of a handle is the one at index (handle & 0xffffffff).
 */
struct twheel_slot {
	__u64 deadline;
	__u64 handle;
};

/* mmap() offset of the shared timeout table. */
#define TWHEEL_OFF_TABLE		0ULL
/* mmap() offset of the expiry ring: past the largest table. */
#define TWHEEL_OFF_RING			0x100000000ULL

/* Flags of struct twheel_share. */
/* Also an expiry ring: records go there instead of waiting for read(). */
#define TWHEEL_SHARE_RING		0x1U
/*
 * The program picks the table entry of each timeout it arms
 * (TWHEEL_ARM_SLOT), as an index of its own (API 7).
 */
#define TWHEEL_SHARE_PICK_SLOTS		0x2U
#define TWHEEL_SHARE_FLAGS_ALL		(TWHEEL_SHARE_RING | \
					 TWHEEL_SHARE_PICK_SLOTS)

/* Most entries of an expiry ring. */
#define TWHEEL_RING_MAX			65536

/**
 * struct twheel_ring - the first page of an expiry ring (TWHEEL_SHARE_RING)
 * @head: written by the program: the count of records it has consumed;
 *	record i is at index (i & (entries - 1)) of the array of struct
 *	twheel_event that starts at byte TWHEEL_RING_EVENTS of the mapping
 * @reserved0: zero; keeps @tail on a cache line of its own
 * @tail: written by the kernel (release order): the count of records it
 *	has put in; the program reads it with acquire order
 * @reserved1: zero
 * @entries: the ring's entries, a power of two (read-only)
 * @waiting: records that found the ring full and wait in the file, where
 *	read() returns them (written by the kernel)
 * @reserved2: zero
 *
 * The kernel reads only @head, and takes a value that says more records
 * are free than the ring has as "full".
 */
struct twheel_ring {
	__u32 head;
	__u32 reserved0[15];
	__u32 tail;
	__u32 reserved1[15];
	__u32 entries;
	__u32 waiting;
	__u32 reserved2[14];
};

/* Byte offset of the first record in the ring's mapping. */
#define TWHEEL_RING_EVENTS		4096

/**
 * struct twheel_share - share the file's timeouts with the program (TWHEEL_IOC_SHARE)
 * @flags: TWHEEL_SHARE_*
 * @slots: in: entries the program wants in its table, 2 to
 *	twheel_info.max_pending + 1 (entry 0 is never used); out: entries it
 *	has, that many rounded up to fill whole pages (at most the largest
 *	allowed)
 * @size: out: bytes of the table, a whole number of pages
 * @offset: out: where to mmap() it, TWHEEL_OFF_TABLE
 * @ring_entries: with TWHEEL_SHARE_RING: in: records the ring should hold,
 *	2 to TWHEEL_RING_MAX; out: that rounded up to a power of two; else 0
 * @reserved: zero
 * @ring_size: out: bytes of the ring's mapping, whole pages (0 without)
 * @ring_offset: out: where to mmap() the ring, TWHEEL_OFF_RING (0 without)
 *
 * Once per file, before its first arm (-EBUSY otherwise). The file then
 * holds at most @slots - 1 live timeouts. The table is mapped with
 * mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset), the
 * ring likewise; they stay the file's until the file is freed, mapped or
 * not.
 */
struct twheel_share {
	__u32 flags;
	__u32 slots;
	__u64 size;
	__u64 offset;
	__u32 ring_entries;
	__u32 reserved;
	__u64 ring_size;
	__u64 ring_offset;
};

#define TWHEEL_SHARE_SIZE_VER0		48

#define TWHEEL_IOC_INFO		_IOR(TWHEEL_IOC_MAGIC, 0x00, struct twheel_info)
#define TWHEEL_IOC_ARM		_IOWR(TWHEEL_IOC_MAGIC, 0x01, struct twheel_arm)
#define TWHEEL_IOC_REARM	_IOW(TWHEEL_IOC_MAGIC, 0x02, struct twheel_rearm)
#define TWHEEL_IOC_CANCEL	_IOW(TWHEEL_IOC_MAGIC, 0x03, struct twheel_cancel)
#define TWHEEL_IOC_BATCH	_IOW(TWHEEL_IOC_MAGIC, 0x04, struct twheel_batch)
#define TWHEEL_IOC_GET		_IOWR(TWHEEL_IOC_MAGIC, 0x05, struct twheel_get)
#define TWHEEL_IOC_DRAIN	_IOWR(TWHEEL_IOC_MAGIC, 0x06, struct twheel_drain)
#define TWHEEL_IOC_STATS	_IOR(TWHEEL_IOC_MAGIC, 0x07, struct twheel_stats)
#define TWHEEL_IOC_SHARE	_IOWR(TWHEEL_IOC_MAGIC, 0x08, struct twheel_share)

#endif /* _UAPI_LINUX_TWHEEL_H */
