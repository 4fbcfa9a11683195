// SPDX-License-Identifier: GPL-2.0
/*
 * share_test.c - the timeout table a file shares with its program
 * (TWHEEL_IOC_SHARE, mmap()): its set-up and every bad input of it, the
 * entries the kernel writes, refresh by store (a later deadline is filed
 * when the old one comes due, or when read() finds the record; a lower one
 * or garbage is ignored, never early), periodic timeouts, and the table as
 * hostile memory: threads of uid 65534 scribbling over it while its
 * timeouts fire, munmap, fork, mremap and close while they fire, and a
 * bystander's timeouts meanwhile. The expiry ring (TWHEEL_SHARE_RING):
 * records without read(), a full ring losing nothing, periodic timeouts,
 * dead handles, a lying head. Table entries the program picks
 * (TWHEEL_SHARE_PICK_SLOTS). As uid 65534, the table and ring count toward
 * the per-user limit on timeouts, and so do the dead timeouts kept in
 * picked entries.
 */
#include <grp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "twheel_util.h"

#define NOBODY		65534
/* Entries of one page of table. */
#define PAGE_SLOTS	(4096 / (int)sizeof(struct twheel_slot))

/* TWHEEL_IOC_SHARE of @s, answered in place, and the table mapped. */
static int share_table(int fd, struct twheel_share *s,
		       struct twheel_slot **table)
{
	void *p;
	int ret = tw_ioctl(fd, TWHEEL_IOC_SHARE, s);

	if (ret)
		return ret;
	p = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)s->offset);
	if (p == MAP_FAILED)
		return -errno;
	*table = p;
	return 0;
}

/* A table of @slots entries, mapped; 0 or -errno. */
static int tw_share(int fd, uint32_t slots, struct twheel_slot **table,
		    uint32_t *got)
{
	struct twheel_share s = { .slots = slots };
	int ret = share_table(fd, &s, table);

	if (!ret)
		*got = s.slots;
	return ret;
}

static struct twheel_slot *slot_of(struct twheel_slot *table, uint64_t h)
{
	return &table[(uint32_t)h];
}

/* A ring of @entries records as well; the ring's mapping; 0 or -errno. */
static int tw_share_ring(int fd, uint32_t entries, struct twheel_ring **ring,
			 struct twheel_share *out)
{
	struct twheel_share s = { .flags = TWHEEL_SHARE_RING, .slots = 64,
				  .ring_entries = entries };
	void *p;
	int ret = tw_ioctl(fd, TWHEEL_IOC_SHARE, &s);

	if (ret)
		return ret;
	p = mmap(NULL, s.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)s.ring_offset);
	if (p == MAP_FAILED)
		return -errno;
	*ring = p;
	*out = s;
	return 0;
}

static struct twheel_event *ring_events(struct twheel_ring *r)
{
	return (struct twheel_event *)((char *)r + TWHEEL_RING_EVENTS);
}

/* Records in the ring not consumed yet. */
static uint32_t ring_count(struct twheel_ring *r)
{
	return __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) - r->head;
}

/* Consume up to @n records of the ring into @ev. */
static int ring_take(struct twheel_ring *r, struct twheel_event *ev, int n)
{
	uint32_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	int got = 0;

	while (r->head != tail && got < n) {
		ev[got++] = ring_events(r)[r->head & (r->entries - 1)];
		__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
	}
	return got;
}

/* What a program's refresh is: a store with release order. */
static void store_deadline(struct twheel_slot *table, uint64_t h,
			   uint64_t deadline)
{
	__atomic_store_n(&slot_of(table, h)->deadline, deadline,
			 __ATOMIC_RELEASE);
}

FIXTURE(sh) {
	int fd;
	struct twheel_info info;
	struct twheel_slot *table;
	uint32_t slots;
};

FIXTURE_SETUP(sh)
{
	self->fd = tw_open(_metadata);
	tw_info(_metadata, self->fd, &self->info);
	ASSERT_NE(self->info.ioctls & TWHEEL_FEAT_SHARE, 0ULL);
	ASSERT_EQ(tw_share(self->fd, 4 * PAGE_SLOTS, &self->table,
			   &self->slots), 0);
	ASSERT_EQ(self->slots, (uint32_t)(4 * PAGE_SLOTS));
}

FIXTURE_TEARDOWN(sh)
{
	munmap(self->table, self->slots * sizeof(struct twheel_slot));
	close(self->fd);
}

TEST_F(sh, bad_setup_changes_nothing)
{
	struct twheel_share s = { .slots = 16 };
	int fd = tw_open(_metadata);
	void *p;

	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0), MAP_FAILED);
	EXPECT_EQ(errno, ENODEV);
	s.flags = 1;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s.flags = 0;
	s.size = 4096;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s.size = 0;
	s.offset = 1;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s.offset = 0;
	s.slots = 1;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s.slots = self->info.max_pending + 2;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, NULL), -EFAULT);
	/* Still no table: the first good call gets one, rounded to a page. */
	s.slots = 2;
	ASSERT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), 0);
	EXPECT_EQ(s.slots, (uint32_t)PAGE_SLOTS);
	EXPECT_EQ(s.size, 4096ULL);
	EXPECT_EQ(s.offset, (uint64_t)TWHEEL_OFF_TABLE);
	s = (struct twheel_share){ .slots = 16 };
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EBUSY);
	/* Private: the kernel would never see the stores. Past the end. */
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0),
		  MAP_FAILED);
	EXPECT_EQ(errno, EINVAL);
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096),
		  MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	EXPECT_EQ(mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0), MAP_FAILED);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(p, MAP_FAILED);
	munmap(p, 4096);
	close(fd);
	/* A file that armed first keeps its timeouts as they are. */
	fd = tw_open(_metadata);
	tw_arm(_metadata, fd, 1, 10 * SEC);
	s = (struct twheel_share){ .slots = 16 };
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EBUSY);
	close(fd);
}

TEST_F(sh, kernel_writes_entries_and_limits_slots)
{
	struct twheel_slot *small;
	struct twheel_get g;
	uint32_t n, i;
	uint64_t h;
	int fd;

	h = tw_arm(_metadata, self->fd, 5, 10 * SEC);
	ASSERT_LT((uint32_t)h, self->slots);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(slot_of(self->table, h)->handle, h);
	EXPECT_EQ(slot_of(self->table, h)->deadline, g.deadline);
	ASSERT_EQ(tw_rearm(self->fd, h, 20 * SEC, 0), 0);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(slot_of(self->table, h)->deadline, g.deadline);
	ASSERT_EQ(tw_cancel(self->fd, h), 0);
	EXPECT_EQ(slot_of(self->table, h)->handle, 0ULL);
	/* A store into a dead entry wakes nothing. */
	store_deadline(self->table, h, now_ns() + SEC);
	EXPECT_EQ(tw_get(self->fd, h, &g), -ENOENT);

	/* Entry 0 is never used: one page holds PAGE_SLOTS - 1 timeouts. */
	fd = tw_open(_metadata);
	ASSERT_EQ(tw_share(fd, 2, &small, &n), 0);
	for (i = 1; i < n; i++) {
		ASSERT_EQ(tw_arm_full(fd, i, 10 * SEC, 0, 0, 0, &h), 0);
		EXPECT_EQ(small[(uint32_t)h].handle, h);
	}
	EXPECT_EQ(tw_arm_full(fd, 0, 10 * SEC, 0, 0, 0, &h), -ENOSPC);
	ASSERT_EQ(tw_cancel(fd, small[1].handle), 0);
	EXPECT_EQ(tw_arm_full(fd, 0, 10 * SEC, 0, 0, 0, &h), 0);
	EXPECT_EQ((uint32_t)h, 1U);
	munmap(small, 4096);
	close(fd);
}

TEST_F(sh, store_pushes_deadline_out)
{
	uint64_t h, d0, d1, t;
	struct twheel_stats st;
	struct twheel_event ev;
	struct twheel_get g;

	h = tw_arm(_metadata, self->fd, 9, 40 * MS);
	d0 = slot_of(self->table, h)->deadline;
	d1 = d0 + 500 * MS;
	store_deadline(self->table, h, d1);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.deadline, d1);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_ARMED);
	/* The old deadline comes and goes without a record. */
	EXPECT_FALSE(tw_wait_ready(self->fd, 100));
	tw_read_one(_metadata, self->fd, &ev, 2000);
	t = now_ns();
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(ev.cookie, 9ULL);
	EXPECT_EQ(ev.deadline, d1);
	EXPECT_GE(ev.expired, d1);
	EXPECT_GE(t, d1);
	ASSERT_EQ(tw_stats(self->fd, &st), 0);
	EXPECT_EQ(st.fired, 1ULL);
}

TEST_F(sh, many_refreshes_fire_once_each)
{
	uint64_t h[PAGE_SLOTS], last[PAGE_SLOTS], end, t, prev = 0;
	struct twheel_event ev[PAGE_SLOTS];
	struct twheel_stats st;
	bool stalled = false;
	int i, got = 0, n;

	/*
	 * Armed for one deadline, as if a round of stores had set it: a
	 * guest that takes longer than that to arm them counts as stalled.
	 */
	t = now_ns() + 200 * MS;
	for (i = 0; i < PAGE_SLOTS; i++)
		ASSERT_EQ(tw_arm_full(self->fd, i, t, 0, TWHEEL_ARM_ABS, 0,
				      &h[i]), 0);
	prev = t - 300 * MS;
	/* Each deadline comes due a few times and is filed again. */
	end = now_ns() + 900 * MS;
	while ((t = now_ns()) < end) {
		for (i = 0; i < PAGE_SLOTS; i++) {
			last[i] = t + 300 * MS;
			store_deadline(self->table, h[i], last[i]);
		}
		/*
		 * Unless this round came after the last round's deadlines
		 * (a stalled guest, once is enough: a record may wait since),
		 * none of them has come.
		 */
		if (stalled || now_ns() >= prev + 300 * MS) {
			stalled = true;
		} else {
			EXPECT_TRUE(tw_nothing_ready(self->fd));
		}
		prev = t;
		sleep_ns(10 * MS);
	}
	while (got < PAGE_SLOTS && tw_wait_ready(self->fd, 2000)) {
		n = tw_read_nocheck(self->fd, ev, PAGE_SLOTS);
		if (n == -EAGAIN)
			continue;
		ASSERT_GT(n, 0);
		for (i = 0; i < n; i++) {
			EXPECT_EQ(ev[i].handle, h[ev[i].cookie]);
			EXPECT_EQ(ev[i].deadline, last[ev[i].cookie]);
			EXPECT_GE(ev[i].expired, ev[i].deadline);
		}
		got += n;
	}
	EXPECT_EQ(got, PAGE_SLOTS);
	ASSERT_EQ(tw_stats(self->fd, &st), 0);
	/* A stall lets deadlines fire before the next store; read() refiles. */
	if (stalled) {
		EXPECT_GE(st.fired, (uint64_t)PAGE_SLOTS);
	} else {
		EXPECT_EQ(st.fired, (uint64_t)PAGE_SLOTS);
	}
	EXPECT_EQ(st.pending, 0ULL);
}

TEST_F(sh, lower_or_garbage_stores_are_ignored)
{
	/* Past the wheel's range: 100 years, beyond KTIME_MAX. */
	const uint64_t junk[] = { 0, 1, UINT64_MAX, 1ULL << 63,
				  now_ns() + 100ULL * 365 * 24 * 3600 * SEC };
	uint64_t h[6], d[6];
	struct twheel_event ev;
	int i, got;

	for (i = 0; i < 6; i++) {
		h[i] = tw_arm(_metadata, self->fd, i, 50 * MS);
		d[i] = slot_of(self->table, h[i])->deadline;
		/* The first one is pulled in by 20 ms, which takes a re-arm. */
		store_deadline(self->table, h[i],
			       i ? junk[i - 1] : d[i] - 20 * MS);
	}
	for (got = 0; got < 6; got++) {
		tw_read_one(_metadata, self->fd, &ev, 2000);
		ASSERT_LT(ev.cookie, 6ULL);
		EXPECT_EQ(ev.deadline, d[ev.cookie]);
		EXPECT_GE(ev.expired, d[ev.cookie]);
	}
}

TEST_F(sh, store_after_fire_is_seen_by_read)
{
	struct twheel_event ev;
	struct twheel_get g;
	uint64_t h, d1;

	h = tw_arm(_metadata, self->fd, 3, 10 * MS);
	ASSERT_TRUE(tw_wait_ready(self->fd, 2000));
	d1 = now_ns() + 150 * MS;
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_QUEUED);
	store_deadline(self->table, h, d1);
	/* What read() will do: file it for the stored deadline. */
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_ARMED);
	EXPECT_EQ(g.deadline, d1);
	/* read() finds the later deadline: the record goes, it is armed. */
	ASSERT_EQ(fcntl(self->fd, F_SETFL, O_NONBLOCK), 0);
	EXPECT_EQ(tw_read_nocheck(self->fd, &ev, 1), -EAGAIN);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.state, (uint32_t)TWHEEL_STATE_ARMED);
	EXPECT_EQ(g.deadline, d1);
	EXPECT_EQ(slot_of(self->table, h)->handle, h);
	tw_read_one(_metadata, self->fd, &ev, 2000);
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(ev.deadline, d1);
	EXPECT_GE(ev.expired, d1);
	EXPECT_EQ(slot_of(self->table, h)->handle, 0ULL);
}

TEST_F(sh, periodic_entry_follows_each_period)
{
	struct twheel_event ev;
	struct twheel_get g;
	uint64_t h;
	int i;

	ASSERT_EQ(tw_arm_full(self->fd, 1, 20 * MS, 20 * MS, 0, 0, &h), 0);
	for (i = 0; i < 3; i++) {
		tw_read_one(_metadata, self->fd, &ev, 2000);
		ASSERT_EQ(tw_get(self->fd, h, &g), 0);
		EXPECT_EQ(slot_of(self->table, h)->deadline, g.deadline);
		EXPECT_GT(g.deadline, ev.deadline);
		EXPECT_EQ(slot_of(self->table, h)->handle, h);
	}
	/* Pushed out once: the next record is for that deadline. */
	store_deadline(self->table, h, g.deadline + 100 * MS);
	tw_read_one(_metadata, self->fd, &ev, 2000);
	EXPECT_EQ(ev.deadline, g.deadline + 100 * MS);
	EXPECT_GE(ev.expired, ev.deadline);
}

TEST_F(sh, mapping_survives_munmap_fork_mremap_close)
{
	size_t size = self->slots * sizeof(struct twheel_slot);
	struct twheel_slot *t2, *t3;
	struct twheel_event ev;
	struct twheel_get g;
	uint64_t h, d;
	pid_t pid;
	int status;

	h = tw_arm(_metadata, self->fd, 1, 60 * MS);
	/* Unmapped while it is armed: it fires as filed. */
	ASSERT_EQ(munmap(self->table, size), 0);
	t2 = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, 0);
	ASSERT_NE(t2, MAP_FAILED);
	self->table = t2;
	EXPECT_EQ(slot_of(t2, h)->handle, h);
	tw_read_one(_metadata, self->fd, &ev, 2000);
	EXPECT_EQ(ev.handle, h);

	/* A child shares the mapping: its store pushes the parent's timeout. */
	h = tw_arm(_metadata, self->fd, 2, 60 * MS);
	d = slot_of(t2, h)->deadline + 100 * MS;
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		store_deadline(t2, h, d);
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.deadline, d);

	/* Moved: stores through the new address count. */
	t3 = mremap(t2, size, size, MREMAP_MAYMOVE);
	ASSERT_NE(t3, MAP_FAILED);
	self->table = t3;
	store_deadline(t3, h, d + 50 * MS);
	ASSERT_EQ(tw_get(self->fd, h, &g), 0);
	EXPECT_EQ(g.deadline, d + 50 * MS);

	/*
	 * Closed while mapped and armed: the mapping holds the file, whose
	 * timeout fires unread; the teardown's munmap() frees it.
	 */
	close(self->fd);
	self->fd = tw_open(_metadata);
	store_deadline(t3, h, d + 80 * MS);
	EXPECT_EQ(slot_of(t3, h)->handle, h);
	sleep_ns(300 * MS);
}

TEST(ring_setup_errors)
{
	struct twheel_share s = { .flags = TWHEEL_SHARE_RING, .slots = 16 };
	struct twheel_ring *r;
	int fd = tw_open(_metadata);
	void *p;

	s.ring_entries = 1;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s.ring_entries = TWHEEL_RING_MAX + 1;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s = (struct twheel_share){ .slots = 16, .ring_entries = 8 };
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s = (struct twheel_share){ .flags = TWHEEL_SHARE_RING, .slots = 16,
				   .ring_entries = 8, .reserved = 1 };
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s.reserved = 0;
	s.ring_size = 4096;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	s.ring_size = 0;
	s.ring_offset = TWHEEL_OFF_RING;
	EXPECT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), -EINVAL);
	/* 3 entries become 4; a header page and a page of records. */
	s.ring_offset = 0;
	s.ring_entries = 3;
	ASSERT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), 0);
	EXPECT_EQ(s.ring_entries, 4U);
	EXPECT_EQ(s.ring_size, 8192ULL);
	EXPECT_EQ(s.ring_offset, TWHEEL_OFF_RING);
	EXPECT_EQ(mmap(NULL, 12288, PROT_READ, MAP_SHARED, fd, TWHEEL_OFF_RING),
		  MAP_FAILED);
	EXPECT_EQ(mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		       TWHEEL_OFF_RING + 4096), MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	r = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 TWHEEL_OFF_RING);
	ASSERT_NE(r, MAP_FAILED);
	EXPECT_EQ(r->entries, 4U);
	EXPECT_EQ(r->head, 0U);
	EXPECT_EQ(r->tail, 0U);
	munmap(r, 8192);
	close(fd);
	/* No ring: nothing to map there. */
	fd = tw_open(_metadata);
	s = (struct twheel_share){ .slots = 16 };
	ASSERT_EQ(tw_ioctl(fd, TWHEEL_IOC_SHARE, &s), 0);
	EXPECT_EQ(s.ring_size, 0ULL);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, TWHEEL_OFF_RING);
	EXPECT_EQ(p, MAP_FAILED);
	EXPECT_EQ(errno, ENXIO);
	close(fd);
}

TEST(ring_delivers_without_read)
{
	struct twheel_slot *table;
	struct twheel_event ev[8];
	struct twheel_share s;
	struct twheel_ring *r;
	struct twheel_get g;
	uint64_t h[5], e, t;
	int fd = tw_open_flags(_metadata, O_NONBLOCK), i, n;

	ASSERT_EQ(tw_share_ring(fd, 8, &r, &s), 0);
	table = mmap(NULL, s.size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(table, MAP_FAILED);
	for (i = 0; i < 5; i++) {
		t = now_ns();
		h[i] = tw_arm(_metadata, fd, i, 10 * MS);
		e = slot_of(table, h[i])->handle;
		/* Live until its deadline, which a stalled host may pass. */
		if (now_ns() < t + 10 * MS)
			EXPECT_EQ(e, h[i]);
	}
	ASSERT_TRUE(tw_wait_ready(fd, 2000));
	while (ring_count(r) < 5)
		ASSERT_TRUE(tw_wait_ready(fd, 2000));
	/* Nothing waits for read(): all went into the ring. */
	EXPECT_EQ(r->waiting, 0U);
	/* Their entries said they died, with no system call since. */
	for (i = 0; i < 5; i++)
		EXPECT_EQ(slot_of(table, h[i])->handle, 0ULL);
	EXPECT_EQ(tw_read_nocheck(fd, ev, 8), -EAGAIN);
	n = ring_take(r, ev, 8);
	ASSERT_EQ(n, 5);
	for (i = 0; i < n; i++) {
		ASSERT_LT(ev[i].cookie, 5ULL);
		EXPECT_EQ(ev[i].handle, h[ev[i].cookie]);
		EXPECT_GE(ev[i].expired, ev[i].deadline);
		EXPECT_EQ(ev[i].flags, 0U);
	}
	EXPECT_TRUE(tw_nothing_ready(fd));
	/* Their handles died when the records went in. */
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(tw_get(fd, h[i], &g), -ENOENT);
		EXPECT_EQ(tw_cancel(fd, h[i]), -ENOENT);
	}
	munmap(table, s.size);
	close(fd);
}

TEST(full_ring_loses_nothing)
{
	struct twheel_event ev[32];
	struct twheel_stats st;
	struct twheel_share s;
	struct twheel_ring *r;
	uint32_t seen = 0;
	int fd = tw_open_flags(_metadata, O_NONBLOCK), i, n;

	ASSERT_EQ(tw_share_ring(fd, 4, &r, &s), 0);
	for (i = 0; i < 20; i++)
		tw_arm(_metadata, fd, i, 5 * MS);
	sleep_ns(100 * MS);
	ASSERT_EQ(tw_stats(fd, &st), 0);
	ASSERT_EQ(st.fired, 20ULL);
	EXPECT_EQ(ring_count(r), 4U);
	EXPECT_EQ(r->waiting, 16U);
	n = tw_read(_metadata, fd, ev, 32);
	ASSERT_EQ(n, 16);
	EXPECT_EQ(r->waiting, 0U);
	n += ring_take(r, ev + n, 32 - n);
	ASSERT_EQ(n, 20);
	for (i = 0; i < n; i++) {
		ASSERT_LT(ev[i].cookie, 20ULL);
		EXPECT_EQ(seen & (1U << ev[i].cookie), 0U);
		seen |= 1U << ev[i].cookie;
	}
	EXPECT_EQ(seen, 0xfffffU);
	/* Room again: the next record goes into the ring. */
	tw_arm(_metadata, fd, 20, 1 * MS);
	ASSERT_TRUE(tw_wait_ready(fd, 2000));
	EXPECT_EQ(ring_count(r), 1U);
	EXPECT_EQ(tw_read_nocheck(fd, ev, 1), -EAGAIN);
	close(fd);
}

TEST(ring_periodic_and_a_lying_head)
{
	struct twheel_event ev[64];
	struct twheel_share s;
	struct twheel_ring *r;
	struct twheel_get g;
	uint64_t h, last = 0;
	int fd = tw_open_flags(_metadata, O_NONBLOCK), i, n;

	ASSERT_EQ(tw_share_ring(fd, 64, &r, &s), 0);
	ASSERT_EQ(tw_arm_full(fd, 7, 5 * MS, 5 * MS, 0, 0, &h), 0);
	sleep_ns(100 * MS);
	n = ring_take(r, ev, 64);
	ASSERT_GE(n, 3);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(ev[i].handle, h);
		EXPECT_EQ(ev[i].flags, (uint32_t)TWHEEL_EV_PERIODIC);
		EXPECT_GT(ev[i].deadline, last);
		EXPECT_GE(ev[i].expired, ev[i].deadline);
		last = ev[i].deadline;
	}
	ASSERT_EQ(tw_get(fd, h, &g), 0);
	EXPECT_GT(g.deadline, last);
	/* A head past the tail is a full ring: records wait for read(). */
	r->head = r->tail + 1000;
	sleep_ns(50 * MS);
	n = tw_read(_metadata, fd, ev, 64);
	ASSERT_EQ(n, 1);
	EXPECT_EQ(ev[0].handle, h);
	EXPECT_GT(ev[0].deadline, last);
	r->head = r->tail;
	ASSERT_EQ(tw_cancel(fd, h), 0);
	n = (int)ring_count(r);
	sleep_ns(30 * MS);
	EXPECT_EQ(ring_count(r), (uint32_t)n);
	close(fd);
}

/* What the scribblers of a hostile program share. */
struct scribble {
	struct twheel_slot *table;
	uint32_t slots;
	uint32_t *ring;		/* the ring's mapping, header and records */
	uint32_t ring_words;
	volatile int stop;
	unsigned int seed;
};

static void *scribbler(void *arg)
{
	struct scribble *s = arg;
	unsigned int seed = __atomic_add_fetch(&s->seed, 7919, __ATOMIC_RELAXED);
	uint64_t *words = (uint64_t *)s->table;
	uint32_t n = s->slots * 2, i;
	uint64_t v;

	while (!s->stop) {
		i = (uint32_t)rand_r(&seed) % n;
		v = (uint64_t)rand_r(&seed) << 33 ^ (uint64_t)rand_r(&seed);
		switch (rand_r(&seed) % 4) {
		case 0:
			v = now_ns() + v % (200 * MS);
			break;
		case 1:
			v = now_ns() - v % SEC;
			break;
		case 2:
			v = ~v;
			break;
		}
		__atomic_store_n(&words[i], v, __ATOMIC_RELAXED);
		/* And the ring: head, tail, entries, records. */
		i = (uint32_t)rand_r(&seed) % s->ring_words;
		__atomic_store_n(&s->ring[i], (uint32_t)v, __ATOMIC_RELAXED);
	}
	return NULL;
}

/* A failed check of hostile_program(): said on stderr, exit status 1. */
#define HOSTILE_FAILED()						\
	(fprintf(stderr, "hostile_program: check at line %d failed\n",	\
		 __LINE__), 1)

/*
 * As uid 65534, three threads scribble over the table and the expiry ring
 * while the main thread arms, cancels (handles read from the table), reads
 * and empties the ring: no record read() returns comes before the deadline
 * the kernel filed, and the program's own stores can only make its
 * timeouts later. Returns 0, or 1 when a check failed.
 */
static int hostile_program(void)
{
	uint64_t armed[PAGE_SLOTS * 4] = { 0 }, h, end, t0, delay, cursor = 0;
	struct scribble s = { .seed = 1 };
	struct twheel_event ev[64];
	struct twheel_get g[64];
	struct twheel_stats st;
	uint32_t filled;
	struct twheel_share sh = { .flags = TWHEEL_SHARE_RING,
				   .slots = PAGE_SLOTS * 4, .ring_entries = 16 };
	pthread_t th[3];
	int fd, i, j, n;
	void *p;

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return HOSTILE_FAILED();

	fd = open(TW_DEV, O_RDWR | O_NONBLOCK);
	if (fd < 0 || tw_ioctl(fd, TWHEEL_IOC_SHARE, &sh))
		return HOSTILE_FAILED();
	s.table = mmap(NULL, sh.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	p = mmap(NULL, sh.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)sh.ring_offset);
	if (s.table == MAP_FAILED || p == MAP_FAILED)
		return HOSTILE_FAILED();
	s.slots = sh.slots;
	s.ring = p;
	s.ring_words = (uint32_t)(sh.ring_size / sizeof(uint32_t));
	for (i = 0; i < 3; i++)
		if (pthread_create(&th[i], NULL, scribbler, &s))
			return HOSTILE_FAILED();
	end = now_ns() + 1500 * MS;
	for (i = 0; (t0 = now_ns()) < end; i++) {
		/* Armed no earlier than t0 + delay, whatever is stored. */
		delay = (uint64_t)(i % 50) * MS;
		if (!tw_arm_full(fd, 0, delay, 0, 0, 0, &h)) {
			if ((uint32_t)h >= s.slots)
				return HOSTILE_FAILED();
			armed[(uint32_t)h] = t0 + delay;
		}
		if (i % 3 == 0 && armed[i % s.slots])
			tw_cancel(fd, s.table[i % s.slots].handle);
		/* The ring's records may be garbage: they are its own. */
		((struct twheel_ring *)p)->head = ((struct twheel_ring *)p)->tail;
		n = tw_read_nocheck(fd, ev, 64);
		if (n < 0 && n != -EAGAIN)
			return HOSTILE_FAILED();
		for (j = 0; j < n; j++)
			if (ev[j].expired < ev[j].deadline ||
			    ev[j].deadline < armed[(uint32_t)ev[j].handle])
				return HOSTILE_FAILED();
	}
	s.stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	do {
		if (tw_drain(fd, g, 64, &cursor, TWHEEL_DRAIN_CANCEL, &filled))
			return HOSTILE_FAILED();
	} while (filled);
	if (tw_stats(fd, &st) || st.pending)
		return HOSTILE_FAILED();
	close(fd);
	return 0;
}

TEST(scribbled_table_hurts_only_its_owner)
{
	uint64_t d[20], end;
	struct twheel_event ev;
	int fd, i, got = 0, status;
	pid_t pid;

	/* The bystander: root's file, no table, a timeout every 50 ms. */
	fd = tw_open(_metadata);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0)
		_exit(hostile_program());
	for (i = 0; i < 20; i++) {
		tw_arm(_metadata, fd, i, (uint64_t)(i + 1) * 50 * MS);
		d[i] = now_ns() + (uint64_t)(i + 1) * 50 * MS;
	}
	end = now_ns() + 5 * SEC;
	while (got < 20 && now_ns() < end) {
		if (!tw_wait_ready(fd, 100))
			continue;
		ASSERT_EQ(tw_read(_metadata, fd, &ev, 1), 1);
		ASSERT_LT(ev.cookie, 20ULL);
		EXPECT_GE(ev.expired, ev.deadline);
		EXPECT_LE(ev.deadline, d[ev.cookie]);
		got++;
	}
	EXPECT_EQ(got, 20);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(fd);
}

/* TWHEEL_IOC_ARM of a one-shot into table entry @slot (TWHEEL_ARM_SLOT). */
static int arm_slot(int fd, uint64_t slot, uint64_t cookie, uint64_t delay,
		    uint64_t *handle)
{
	struct twheel_arm a = { .cookie = cookie, .expires = delay,
				.flags = TWHEEL_ARM_SLOT, .handle = slot };
	int ret = tw_ioctl(fd, TWHEEL_IOC_ARM, &a);

	*handle = ret ? 0 : a.handle;
	return ret;
}

/*
 * A table whose program picks the slots (TWHEEL_SHARE_PICK_SLOTS), of
 * @slots entries, with @flags too; the table mapped; 0 or -errno.
 */
static int share_picking(int fd, uint32_t flags, uint32_t slots,
			 struct twheel_slot **table, struct twheel_share *out)
{
	*out = (struct twheel_share){
		.flags = TWHEEL_SHARE_PICK_SLOTS | flags, .slots = slots,
		.ring_entries = flags ? 64 : 0,
	};
	return share_table(fd, out, table);
}

/* Nothing live and every entry empty: what a refused arm leaves. */
static bool untouched(int fd, const struct twheel_slot *table, uint32_t n)
{
	uint32_t i;

	if (tw_fdinfo(fd, "pending") != 0)
		return false;
	for (i = 0; i < n; i++)
		if (table[i].handle || table[i].deadline)
			return false;
	return true;
}

/*
 * TWHEEL_ARM_SLOT: only, and always, in a file whose table lets the program
 * pick; only entries the table has; every refusal changes nothing. An
 * entry whose timeout is live is busy; once it is dead the next arm there
 * gets a new handle of the same slot, and the old one stays dead.
 */
TEST(picked_slots)
{
	struct twheel_op ops[2] = {
		{ .op = TWHEEL_OP_ARM, .flags = TWHEEL_ARM_SLOT, .handle = 6,
		  .expires = 10 * SEC },
		{ .op = TWHEEL_OP_ARM, .flags = TWHEEL_ARM_SLOT, .handle = 6,
		  .expires = 10 * SEC },
	};
	int fd = tw_open(_metadata), plain = tw_open(_metadata);
	struct twheel_slot *table, *other;
	struct twheel_share s;
	struct twheel_get g;
	uint32_t n;
	uint64_t h, h2;

	/* No table, and a table the kernel picks the slots of. */
	EXPECT_EQ(arm_slot(plain, 1, 0, 10 * SEC, &h), -EINVAL);
	ASSERT_EQ(tw_share(plain, PAGE_SLOTS, &other, &n), 0);
	EXPECT_EQ(arm_slot(plain, 1, 0, 10 * SEC, &h), -EINVAL);
	EXPECT_TRUE(untouched(plain, other, n));

	ASSERT_EQ(share_picking(fd, 0, PAGE_SLOTS, &table, &s), 0);
	ASSERT_EQ(s.slots, (uint32_t)PAGE_SLOTS);
	EXPECT_EQ(tw_arm_full(fd, 0, 10 * SEC, 0, 0, 0, &h), -EINVAL);
	EXPECT_EQ(arm_slot(fd, 0, 0, 10 * SEC, &h), -EINVAL);
	EXPECT_EQ(arm_slot(fd, s.slots, 0, 10 * SEC, &h), -EINVAL);
	EXPECT_EQ(arm_slot(fd, 1ULL << 32 | 1, 0, 10 * SEC, &h), -EINVAL);
	EXPECT_EQ(arm_slot(fd, 1, 0, 1ULL << 62, &h), -ERANGE);
	EXPECT_TRUE(untouched(fd, table, s.slots));

	ASSERT_EQ(arm_slot(fd, 5, 55, 10 * SEC, &h), 0);
	EXPECT_EQ((uint32_t)h, 5U);
	EXPECT_EQ(table[5].handle, h);
	ASSERT_EQ(tw_get(fd, h, &g), 0);
	EXPECT_EQ(table[5].deadline, g.deadline);
	EXPECT_EQ(g.cookie, 55ULL);
	EXPECT_EQ(tw_rearm(fd, h, 20 * SEC, TWHEEL_ARM_SLOT), -EINVAL);
	EXPECT_EQ(arm_slot(fd, 5, 0, 10 * SEC, &h2), -EBUSY);
	EXPECT_EQ(table[5].handle, h);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 1);

	ASSERT_EQ(tw_cancel(fd, h), 0);
	EXPECT_EQ(table[5].handle, 0ULL);
	ASSERT_EQ(arm_slot(fd, 5, 56, 10 * SEC, &h2), 0);
	EXPECT_EQ((uint32_t)h2, 5U);
	EXPECT_NE(h2, h);
	EXPECT_EQ(tw_get(fd, h, &g), -ENOENT);
	EXPECT_EQ(tw_cancel(fd, h), -ENOENT);
	EXPECT_EQ(table[5].handle, h2);

	/* A batch: the second arm into the same entry is busy. */
	ASSERT_EQ(tw_batch(fd, ops, 2, sizeof(ops[0])), 0);
	EXPECT_EQ(ops[0].result, 0);
	EXPECT_EQ((uint32_t)ops[0].handle, 6U);
	EXPECT_EQ(table[6].handle, ops[0].handle);
	EXPECT_EQ(ops[1].result, -EBUSY);
	EXPECT_EQ(ops[1].handle, 0ULL);
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 2);
	munmap(table, s.size);
	munmap(other, 4096);
	close(fd);
	close(plain);
}

/*
 * A one-shot's entry is free for the next arm as soon as the program has its
 * record: from the ring at once, however close behind the expiry the arm
 * comes, and after read() without a ring.
 */
TEST(picked_slot_free_once_its_record_is_taken)
{
	int fd = tw_open(_metadata), fd2 = tw_open(_metadata);
	struct twheel_slot *table, *t2;
	struct twheel_share s, s2;
	struct twheel_event ev;
	struct twheel_ring *r;
	uint64_t h, t, old = 0;
	int i, ret;

	ASSERT_EQ(share_picking(fd, TWHEEL_SHARE_RING, 64, &table, &s), 0);
	r = mmap(NULL, s.ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 (off_t)s.ring_offset);
	ASSERT_NE(r, MAP_FAILED);
	for (i = 0; i < 200; i++) {
		ASSERT_EQ(arm_slot(fd, 3, i, 1, &h), 0);
		EXPECT_NE(h, old);
		t = now_ns() + 10 * SEC;
		while (!ring_count(r) && now_ns() < t)
			;
		ASSERT_EQ(ring_take(r, &ev, 1), 1);
		ASSERT_EQ(ev.handle, h);
		ret = arm_slot(fd, 3, i, 10 * SEC, &h);
		ASSERT_EQ(ret, 0) TH_LOG("round %d: the arm after the record got %d",
					 i, ret);
		ASSERT_EQ(tw_cancel(fd, h), 0);
		old = h;
	}
	EXPECT_EQ(tw_fdinfo(fd, "pending"), 0);

	ASSERT_EQ(share_picking(fd2, 0, 64, &t2, &s2), 0);
	ASSERT_EQ(arm_slot(fd2, 9, 1, 1, &h), 0);
	EXPECT_EQ(arm_slot(fd2, 9, 1, 1, &old), -EBUSY);
	ASSERT_TRUE(tw_wait_ready(fd2, 10000));
	EXPECT_EQ(arm_slot(fd2, 9, 1, 1, &old), -EBUSY);
	ASSERT_EQ(tw_read(_metadata, fd2, &ev, 1), 1);
	EXPECT_EQ(ev.handle, h);
	EXPECT_EQ(t2[9].handle, 0ULL);
	EXPECT_EQ(arm_slot(fd2, 9, 1, 10 * SEC, &old), 0);
	munmap(r, s.ring_size);
	munmap(table, s.size);
	munmap(t2, s2.size);
	close(fd);
	close(fd2);
}

#define USER_MAX	"/sys/module/twheel/parameters/max_user_timeouts"
/* The limit while the test runs, in timeouts: 128 bytes of memory each. */
#define LIMIT		100
/* A one-page table costs 4096 / 128 timeouts. */
#define PAGE_COST	32

/* A failed check of limited_program(): said on stderr, exit status 1. */
#define LIMITED_FAILED()						\
	(fprintf(stderr, "uid 65534 program: check at line %d failed\n",	\
		 __LINE__), 1)

/* Close @fd: a new file of the user then finds nothing charged. 0 or 1. */
static int close_gives_all_back(int fd)
{
	close(fd);
	fd = open(TW_DEV, O_RDWR | O_NONBLOCK);
	if (fd < 0 || tw_fdinfo(fd, "user_timeouts") != 0)
		return LIMITED_FAILED();
	close(fd);
	return 0;
}

/*
 * As uid 65534 under a limit of LIMIT timeouts: a table or ring costing
 * more gets -ENOSPC and changes nothing; a one-page table takes PAGE_COST
 * of the limit, so only LIMIT - PAGE_COST timeouts can be armed beside it;
 * closing the file gives all of it back. Returns 0, or 1 when a check
 * failed.
 */
static int limited_program(void)
{
	struct twheel_share big = { .slots = 16 * PAGE_SLOTS };
	struct twheel_share ring = { .flags = TWHEEL_SHARE_RING,
				     .slots = PAGE_SLOTS,
				     .ring_entries = 4096 };
	struct twheel_share one = { .slots = PAGE_SLOTS };
	long long held;
	uint64_t h;
	int fd, i, ret[2];

	/*
	 * Dumpable again after the change of credentials: else 5.10 no
	 * longer lets the process read its own /proc/self/fdinfo.
	 */
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return LIMITED_FAILED();
	fd = open(TW_DEV, O_RDWR | O_NONBLOCK);
	if (fd < 0)
		return LIMITED_FAILED();
	held = tw_fdinfo(fd, "user_timeouts");
	ret[0] = tw_ioctl(fd, TWHEEL_IOC_SHARE, &big);
	ret[1] = tw_ioctl(fd, TWHEEL_IOC_SHARE, &ring);
	fprintf(stderr, "limited_program: user_timeouts %lld at the start; too big a table %d, ring %d; then user_timeouts %lld\n",
		held, ret[0], ret[1], tw_fdinfo(fd, "user_timeouts"));
	if (held != 0 || ret[0] != -ENOSPC || ret[1] != -ENOSPC ||
	    tw_fdinfo(fd, "user_timeouts") != 0)
		return LIMITED_FAILED();
	if (tw_ioctl(fd, TWHEEL_IOC_SHARE, &one) ||
	    tw_fdinfo(fd, "user_timeouts") != PAGE_COST)
		return LIMITED_FAILED();
	for (i = 0; i < LIMIT - PAGE_COST; i++)
		if (tw_arm_full(fd, i, 3600 * SEC, 0, 0, 0, &h))
			return LIMITED_FAILED();
	if (tw_arm_full(fd, i, 3600 * SEC, 0, 0, 0, &h) != -ENOSPC ||
	    tw_fdinfo(fd, "user_timeouts") != LIMIT)
		return LIMITED_FAILED();
	return close_gives_all_back(fd);
}

/*
 * As uid 65534 under the same limit, in a file whose program picks the
 * slots: a dead timeout stays in its entry, still charged, so the file
 * holds at most one timeout per entry whatever the program arms and
 * cancels; an arm into an entry with a dead timeout reuses it and charges
 * nothing more. Returns 0, or 1 when a check failed.
 */
static int picking_program(void)
{
	struct twheel_share one = { .flags = TWHEEL_SHARE_PICK_SLOTS,
				    .slots = PAGE_SLOTS };
	struct twheel_arm a = { .flags = TWHEEL_ARM_SLOT,
				.expires = 3600 * SEC };
	int fd, i, ret;

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
		return LIMITED_FAILED();
	fd = open(TW_DEV, O_RDWR | O_NONBLOCK);
	if (fd < 0 || tw_ioctl(fd, TWHEEL_IOC_SHARE, &one))
		return LIMITED_FAILED();
	for (i = 1; i <= LIMIT - PAGE_COST; i++) {
		a.handle = i;
		if (tw_ioctl(fd, TWHEEL_IOC_ARM, &a) || tw_cancel(fd, a.handle))
			return LIMITED_FAILED();
	}
	a.handle = i;
	ret = tw_ioctl(fd, TWHEEL_IOC_ARM, &a);
	fprintf(stderr, "picking_program: %d entries armed and cancelled: pending %lld, user_timeouts %lld; an arm into a new entry %d\n",
		i - 1, tw_fdinfo(fd, "pending"),
		tw_fdinfo(fd, "user_timeouts"), ret);
	if (ret != -ENOSPC || tw_fdinfo(fd, "pending") != 0 ||
	    tw_fdinfo(fd, "user_timeouts") != LIMIT)
		return LIMITED_FAILED();
	a.handle = 1;
	if (tw_ioctl(fd, TWHEEL_IOC_ARM, &a) ||
	    tw_fdinfo(fd, "user_timeouts") != LIMIT)
		return LIMITED_FAILED();
	return close_gives_all_back(fd);
}

FIXTURE(limit) {
	char saved[32];
};

FIXTURE_SETUP(limit)
{
	char want[32];
	int fd = open(USER_MAX, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	ASSERT_GE(fd, 0);
	n = read(fd, self->saved, sizeof(self->saved) - 1);
	close(fd);
	ASSERT_GT(n, 0);
	self->saved[n] = '\0';
	snprintf(want, sizeof(want), "%d", LIMIT);
	ASSERT_EQ(tw_write_file(USER_MAX, want), 0);
}

FIXTURE_TEARDOWN(limit)
{
	EXPECT_EQ(tw_write_file(USER_MAX, self->saved), 0);
}

/* Run @program in a child (it becomes uid 65534): its exit status. */
static int in_child(int (*program)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(program());
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(limit, table_and_ring_count_toward_the_user_limit)
{
	EXPECT_EQ(in_child(limited_program), 0);
}

TEST_F(limit, picked_slots_hold_one_timeout_per_entry)
{
	EXPECT_EQ(in_child(picking_program), 0);
}

TEST_HARNESS_MAIN
