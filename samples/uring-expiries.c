// SPDX-License-Identifier: GPL-2.0
/*
 * uring-expiries.c - read a twheel file's expiry records through io_uring
 *
 * For a program whose I/O already goes through io_uring: the twheel file is
 * read like any other file, and its records arrive as completions beside
 * the program's others. Where the kernel has IORING_OP_READ_MULTISHOT
 * (6.7), one submission keeps reading: each completion names a buffer of
 * a provided-buffer ring holding one or more records, and the read stays
 * armed while IORING_CQE_F_MORE is set (it is submitted again when it ends,
 * as when every buffer is in use: -ENOBUFS). On older kernels (the probe
 * says so) each completion of a plain IORING_OP_READ is followed by the
 * next submission.
 *
 * The program arms 1,000 one-shot timeouts of 10 to 200 ms with libtwheel
 * (one batch), reads every record through the ring and checks each: a
 * cookie it armed, seen once, not before its deadline. It prints
 *   mode=multishot|single records=N reads=R early=E bad=B
 * and exits 0 when all 1,000 arrived within 10 s with E and B 0.
 *
 * Build: make -C samples (static, with liburing and lib/out/libtwheel.a).
 */
#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#include "libtwheel.h"

#define MS		1000000ULL
#define NR_TIMEOUTS	1000
#define GIVE_UP		(10000 * MS)
#define RECS_PER_BUF	16
#define BUF_SIZE	(RECS_PER_BUF * sizeof(struct twheel_event))
#define NR_BUFS		32	/* a power of two: the buffer ring's size */
#define BGID		1

/* Older liburing headers stop before it; the kernel's value since 6.7. */
#ifndef IORING_OP_READ_MULTISHOT
#define IORING_OP_READ_MULTISHOT	(IORING_OP_SENDMSG_ZC + 1)
#endif

struct reader {
	struct io_uring ring;
	struct io_uring_buf_ring *br;
	char *bufs;
	int fd;
	bool multishot;
	unsigned long records, reads, early, bad;
	unsigned char seen[NR_TIMEOUTS];
	__u64 deadline[NR_TIMEOUTS];
};

static int arm_all(struct twheel *tw, struct reader *r)
{
	unsigned int i;
	int ret;

	for (i = 0; i < NR_TIMEOUTS; i++) {
		r->deadline[i] = twheel_now_ns() + (10 + i % 191) * MS;
		ret = twheel_prep_arm(tw, i, r->deadline[i], 0, TWHEEL_ARM_ABS,
				      0, NULL);
		if (ret)
			return ret;
	}
	ret = twheel_flush(tw);
	return ret < 0 ? ret : 0;
}

static void check(struct reader *r, const struct twheel_event *ev)
{
	__u64 now = twheel_now_ns();

	if (ev->cookie >= NR_TIMEOUTS || r->seen[ev->cookie]++ ||
	    ev->deadline != r->deadline[ev->cookie]) {
		r->bad++;
		return;
	}
	if (ev->expired < ev->deadline || now < ev->deadline)
		r->early++;
	r->records++;
}

/* The provided buffers of the multishot read, registered as group BGID. */
static int setup_buffers(struct reader *r)
{
	struct io_uring_buf_reg reg = { .ring_entries = NR_BUFS, .bgid = BGID };
	unsigned int i;
	int ret;

	if (posix_memalign((void **)&r->br, 4096, NR_BUFS * sizeof(struct io_uring_buf)))
		return -ENOMEM;
	r->bufs = malloc(NR_BUFS * BUF_SIZE);
	if (!r->bufs)
		return -ENOMEM;
	reg.ring_addr = (unsigned long)r->br;
	ret = io_uring_register_buf_ring(&r->ring, &reg, 0);
	if (ret)
		return ret;
	io_uring_buf_ring_init(r->br);
	for (i = 0; i < NR_BUFS; i++)
		io_uring_buf_ring_add(r->br, r->bufs + i * BUF_SIZE, BUF_SIZE, i,
				      io_uring_buf_ring_mask(NR_BUFS), i);
	io_uring_buf_ring_advance(r->br, NR_BUFS);
	return 0;
}

static int submit_read(struct reader *r)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	if (!sqe)
		return -EBUSY;
	if (r->multishot) {
		io_uring_prep_rw(IORING_OP_READ_MULTISHOT, sqe, r->fd, NULL, 0, 0);
		sqe->flags |= IOSQE_BUFFER_SELECT;
		sqe->buf_group = BGID;
	} else {
		io_uring_prep_read(sqe, r->fd, r->bufs, BUF_SIZE, 0);
	}
	return io_uring_submit(&r->ring) == 1 ? 0 : -EIO;
}

/* One completion: check its records, give the buffer back, read on. */
static int complete(struct reader *r, const struct io_uring_cqe *cqe)
{
	const char *buf = r->bufs;
	unsigned int id = 0;
	int i, n;

	/*
	 * Every provided buffer held records the program had not handed back
	 * yet: the multishot read ends. Those completions give the buffers
	 * back; then it is submitted again.
	 */
	if (r->multishot && cqe->res == -ENOBUFS)
		return submit_read(r);
	if (cqe->res < 0)
		return cqe->res;
	if (r->multishot) {
		if (!(cqe->flags & IORING_CQE_F_BUFFER))
			return -EIO;
		id = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
		buf = r->bufs + id * BUF_SIZE;
	}
	n = cqe->res / (int)sizeof(struct twheel_event);
	for (i = 0; i < n; i++)
		check(r, (const struct twheel_event *)buf + i);
	r->reads++;
	if (!r->multishot)
		return submit_read(r);
	io_uring_buf_ring_add(r->br, r->bufs + id * BUF_SIZE, BUF_SIZE, id,
			      io_uring_buf_ring_mask(NR_BUFS), 0);
	io_uring_buf_ring_advance(r->br, 1);
	return cqe->flags & IORING_CQE_F_MORE ? 0 : submit_read(r);
}

static int setup(struct reader *r, struct twheel *tw)
{
	struct io_uring_probe *probe;
	int ret;

	r->fd = twheel_fd(tw);
	ret = io_uring_queue_init(8, &r->ring, 0);
	if (ret)
		return ret;
	probe = io_uring_get_probe_ring(&r->ring);
	r->multishot = probe &&
		       io_uring_opcode_supported(probe, IORING_OP_READ_MULTISHOT);
	io_uring_free_probe(probe);
	if (r->multishot)
		return setup_buffers(r);
	r->bufs = malloc(BUF_SIZE);
	return r->bufs ? 0 : -ENOMEM;
}

int main(void)
{
	struct __kernel_timespec ts = { .tv_nsec = 100 * MS };
	static struct reader r;
	struct io_uring_cqe *cqe;
	struct twheel *tw;
	__u64 end;
	int ret;

	ret = twheel_open(&tw, NULL, 0, 0);
	if (ret) {
		fprintf(stderr, "uring-expiries: %s\n", strerror(-ret));
		return 1;
	}
	ret = setup(&r, tw);
	if (!ret)
		ret = submit_read(&r);
	if (!ret)
		ret = arm_all(tw, &r);
	end = twheel_now_ns() + GIVE_UP;
	while (!ret && r.records + r.bad < NR_TIMEOUTS && twheel_now_ns() < end) {
		ret = io_uring_wait_cqe_timeout(&r.ring, &cqe, &ts);
		if (ret == -ETIME) {
			ret = 0;
			continue;
		}
		if (!ret) {
			ret = complete(&r, cqe);
			io_uring_cqe_seen(&r.ring, cqe);
		}
	}
	printf("mode=%s records=%lu reads=%lu early=%lu bad=%lu\n",
	       r.multishot ? "multishot" : "single", r.records, r.reads,
	       r.early, r.bad);
	if (ret)
		fprintf(stderr, "uring-expiries: %s\n", strerror(-ret));
	io_uring_queue_exit(&r.ring);
	twheel_close(tw);
	return ret || r.records != NR_TIMEOUTS || r.early || r.bad;
}
