/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_util.h - helpers the /dev/twheel tests share
 *
 * Thin wrappers around the ioctls that return 0 or -errno (so a test can
 * compare against the errno it expects), a clock, record reading, and pages
 * with chosen protections for the fault tests. They must be called from a
 * test body (ASSERT on setup failures).
 */
#ifndef TWHEEL_UTIL_H
#define TWHEEL_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/twheel.h>

#include "harness.h"

#define TW_DEV		"/dev/twheel"
#define MS		1000000ULL
#define SEC		1000000000ULL
#define EV_SIZE		((int)sizeof(struct twheel_event))

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / SEC, .tv_nsec = ns % SEC };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ioctl() as 0 or -errno. */
static inline int tw_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static inline int tw_open_flags(int flags)
{
	int fd = open(TW_DEV, O_RDWR | O_CLOEXEC | flags);

	if (fd < 0 && errno == ENOENT)
		SKIP(TW_DEV " does not exist (module not loaded?)");
	ASSERT_GE(fd, 0);
	return fd;
}

static inline int tw_open(void)
{
	return tw_open_flags(0);
}

static inline void tw_info(int fd, struct twheel_info *info)
{
	memset(info, 0, sizeof(*info));
	ASSERT_EQ(tw_ioctl(fd, TWHEEL_IOC_INFO, info), 0);
}

static inline int tw_arm_full(int fd, uint64_t cookie, uint64_t expires,
			      uint64_t period, uint32_t flags, uint32_t cpu,
			      uint64_t *handle)
{
	struct twheel_arm a = {
		.cookie = cookie, .expires = expires, .period = period,
		.flags = flags, .cpu = cpu,
	};
	int ret = tw_ioctl(fd, TWHEEL_IOC_ARM, &a);

	if (handle)
		*handle = ret ? 0 : a.handle;
	return ret;
}

/* Arm a one-shot timeout after @delay; ASSERTs success. */
static inline uint64_t tw_arm(int fd, uint64_t cookie, uint64_t delay)
{
	uint64_t h;

	ASSERT_EQ(tw_arm_full(fd, cookie, delay, 0, 0, 0, &h), 0);
	ASSERT_NE_U(h, 0);
	return h;
}

static inline int tw_rearm(int fd, uint64_t handle, uint64_t expires,
			   uint32_t flags)
{
	struct twheel_rearm r = {
		.handle = handle, .expires = expires, .flags = flags,
	};

	return tw_ioctl(fd, TWHEEL_IOC_REARM, &r);
}

static inline int tw_cancel(int fd, uint64_t handle)
{
	struct twheel_cancel c = { .handle = handle };

	return tw_ioctl(fd, TWHEEL_IOC_CANCEL, &c);
}

static inline int tw_batch(int fd, void *ops, uint32_t count,
			   uint32_t op_size)
{
	struct twheel_batch b = {
		.ops = (uintptr_t)ops, .count = count, .op_size = op_size,
	};

	return tw_ioctl(fd, TWHEEL_IOC_BATCH, &b);
}

/* read() of up to @n records: number of records, or -errno. */
static inline int tw_read(int fd, struct twheel_event *ev, int n)
{
	ssize_t r = read(fd, ev, (size_t)n * sizeof(*ev));

	if (r < 0)
		return -errno;
	if (r % sizeof(*ev))
		TH_FAIL(1, "read returned %zd, not whole records", r);
	return (int)(r / sizeof(*ev));
}

/* Wait up to @ms for the file to become readable: 1 if it did. */
static inline int tw_wait_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Nothing readable now, with O_NONBLOCK semantics whatever the file's. */
static inline int tw_nothing_ready(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* A value from the file's /proc/self/fdinfo entry, or -1. */
static inline long long tw_fdinfo(int fd, const char *key)
{
	char path[64], line[256];
	size_t klen = strlen(key);
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':')
			v = strtoll(line + klen + 1, NULL, 10);
	fclose(f);
	return v;
}

/*
 * Two adjacent pages: the first read-write, the second with @prot2. Returns
 * the boundary (start of the second page).
 */
static inline char *tw_guard_pages(int prot2)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	memset(p, 0, 2 * pg);
	ASSERT_EQ(mprotect(p + pg, pg, prot2), 0);
	return p + pg;
}

#endif /* TWHEEL_UTIL_H */
