/* SPDX-License-Identifier: GPL-2.0 */
/*
 * twheel_util.h - helpers the /dev/twheel tests share
 *
 * Thin wrappers around the ioctls that return 0 or -errno (so a test can
 * compare against the errno it expects), a clock, record reading, and pages
 * with chosen protections for the fault tests.
 *
 * The tests use the kernel's kselftest_harness.h (taken from a kernel
 * source tree at build time, see the Makefile). Helpers that check
 * something take the test's "_metadata" as their first argument, as in
 * the kernel's own selftests, and may only be called from a test's main
 * thread (setup, body or teardown). The others (tw_ioctl(), tw_arm_full(),
 * tw_rearm(), tw_cancel(), tw_batch(), tw_read_nocheck(), tw_wait_ready(),
 * ...) check nothing and are what threads a test starts may call.
 */
#ifndef TWHEEL_UTIL_H
#define TWHEEL_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"

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

/*
 * Sleep at least @ns. A 32-bit glibc's nanosleep() uses the 32-bit time
 * syscalls for times that fit them, and a kernel built without
 * CONFIG_COMPAT_32BIT_TIME (the suite's debug kernels) has none: ENOSYS at
 * once. poll() takes its timeout as an int of ms and works everywhere.
 */
static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = ns / SEC, .tv_nsec = ns % SEC };
	uint64_t end = now_ns() + ns, t;

	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			break;
	while ((t = now_ns()) < end)
		poll(NULL, 0, (int)((end - t + MS - 1) / MS));
}

/* ioctl() as 0 or -errno. */
static inline int tw_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

/*
 * Open the device. Without it (module not loaded) the test ends as skipped
 * right here: the test's process exits with KSFT_SKIP, which the harness
 * reports as a skip; unless the test already failed, which it stays.
 */
static inline int tw_open_flags(struct __test_metadata *const _metadata,
				int flags)
{
	int fd = open(TW_DEV, O_RDWR | O_CLOEXEC | flags);

	if (fd < 0 && errno == ENOENT && _metadata->exit_code != KSFT_FAIL)
		SKIP(_exit(KSFT_SKIP),
		     TW_DEV " does not exist (module not loaded?)");
	ASSERT_GE(fd, 0);
	return fd;
}

static inline int tw_open(struct __test_metadata *const _metadata)
{
	return tw_open_flags(_metadata, 0);
}

static inline void tw_info(struct __test_metadata *const _metadata, int fd,
			   struct twheel_info *info)
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
static inline uint64_t tw_arm(struct __test_metadata *const _metadata, int fd,
			      uint64_t cookie, uint64_t delay)
{
	uint64_t h;

	ASSERT_EQ(tw_arm_full(fd, cookie, delay, 0, 0, 0, &h), 0);
	ASSERT_NE(h, 0ULL);
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

static inline int tw_get(int fd, uint64_t handle, struct twheel_get *g)
{
	memset(g, 0, sizeof(*g));
	g->handle = handle;
	return tw_ioctl(fd, TWHEEL_IOC_GET, g);
}

/* TWHEEL_IOC_CANCEL's own return value, the positive ones included. */
static inline int tw_cancel_flags(int fd, uint64_t handle,
				  uint32_t flags)
{
	struct twheel_cancel c = { .handle = handle, .flags = flags };
	int ret = ioctl(fd, TWHEEL_IOC_CANCEL, &c);

	return ret < 0 ? -errno : ret;
}

static inline int tw_stats(int fd, struct twheel_stats *st)
{
	memset(st, 0, sizeof(*st));
	return tw_ioctl(fd, TWHEEL_IOC_STATS, st);
}

static inline int tw_drain(int fd, struct twheel_get *e, uint32_t count,
			   uint64_t *cursor, uint32_t flags,
			   uint32_t *filled)
{
	struct twheel_drain d = {
		.entries = (uintptr_t)e, .count = count,
		.entry_size = sizeof(*e), .cursor = *cursor, .flags = flags,
	};
	int ret = tw_ioctl(fd, TWHEEL_IOC_DRAIN, &d);

	if (!ret) {
		*cursor = d.cursor;
		*filled = d.filled;
	}
	return ret;
}

/* What tw_read_nocheck() returns for a read() of part of a record. */
#define TW_PARTIAL	INT_MIN

/*
 * read() of up to @n records: number of records, -errno, or TW_PARTIAL
 * when read() returned a length that is not a whole number of records.
 */
static inline int tw_read_nocheck(int fd, struct twheel_event *ev, int n)
{
	ssize_t r = read(fd, ev, (size_t)n * sizeof(*ev));

	if (r < 0)
		return -errno;
	if (r % sizeof(*ev))
		return TW_PARTIAL;
	return (int)(r / sizeof(*ev));
}

/* The same for a test's main thread: part of a record fails the test. */
static inline int tw_read(struct __test_metadata *const _metadata, int fd,
			  struct twheel_event *ev, int n)
{
	int r = tw_read_nocheck(fd, ev, n);

	ASSERT_NE(TW_PARTIAL, r) {
		TH_LOG("read() returned part of a record");
	}
	return r;
}

/* Wait up to @ms for the file to become readable: 1 if it did. */
static inline int tw_wait_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Read one record, waiting up to @ms for it; the test fails if none came. */
static inline void tw_read_one(struct __test_metadata *const _metadata, int fd,
			       struct twheel_event *ev, int ms)
{
	ASSERT_TRUE(tw_wait_ready(fd, ms));
	ASSERT_EQ(tw_read(_metadata, fd, ev, 1), 1);
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
static inline char *tw_guard_pages(struct __test_metadata *const _metadata,
				   int prot2)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_TRUE(p != MAP_FAILED);
	memset(p, 0, 2 * pg);
	ASSERT_EQ(mprotect(p + pg, pg, prot2), 0);
	return p + pg;
}

/* The modules in the guests of make check (scripts/guest/check.sh). */
#define TW_MODDIR	"/lib/twheel"

/* finit_module(@ko, @params) as 0 or -errno. */
static inline int tw_load_module(const char *ko, const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* delete_module(@name, O_NONBLOCK) as 0 or -errno. */
static inline int tw_unload_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

/* Write @s to the file @path: 0 or -errno. */
static inline int tw_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Does the file @path hold the word @word (split at blanks and brackets)? */
static inline int tw_file_has_word(const char *path, const char *word)
{
	char buf[256] = "", *tok, *save;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	for (tok = strtok_r(buf, " \n[]", &save); tok;
	     tok = strtok_r(NULL, " \n[]", &save))
		if (!strcmp(tok, word))
			return 1;
	return 0;
}

/*
 * The path of the program @name in the directory of this one (the
 * Makefile puts the CLI and the samples beside the tests) in @out: 0 if it
 * is there and executable, else -1.
 */
static inline int tw_beside(const char *name, char *out, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n < 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (!slash ||
	    snprintf(out, len, "%.*s/%s", (int)(slash - self), self, name) >= (int)len)
		return -1;
	return access(out, X_OK);
}

#define TW_WAKEALARM	"/sys/class/rtc/rtc0/wakealarm"

/* CPUs tw_cpus_down() looks at: 1 to TW_CPUS_MAX - 1. */
#define TW_CPUS_MAX	64

/* Take CPU @cpu offline (@on 0) or online through sysfs; 0 or -errno. */
static inline int tw_cpu_set_online(int cpu, int on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return tw_write_file(path, on ? "1" : "0");
}

/*
 * Take every online CPU but CPU 0 offline through sysfs: the mask of those
 * taken down, for tw_cpus_up(). A CPU that cannot go down stays up.
 */
static inline uint64_t tw_cpus_down(void)
{
	uint64_t down = 0;
	char path[64];
	int cpu;

	for (cpu = 1; cpu < TW_CPUS_MAX; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (tw_file_has_word(path, "1") && !tw_cpu_set_online(cpu, 0))
			down |= 1ULL << cpu;
	}
	return down;
}

/* Bring the CPUs of @down online again, 5 tries each; 0 or -errno. */
static inline int tw_cpus_up(uint64_t down)
{
	int cpu, tries, ret = 0, err;

	for (cpu = 1; cpu < TW_CPUS_MAX; cpu++) {
		if (!(down & (1ULL << cpu)))
			continue;
		err = tw_cpu_set_online(cpu, 1);
		for (tries = 1; err && tries < 5; tries++) {
			sleep(1);
			err = tw_cpu_set_online(cpu, 1);
		}
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/*
 * Suspend the machine to RAM (deep sleep where offered) for @secs seconds,
 * woken by the RTC alarm: 0 once it has resumed, -EOPNOTSUPP where it
 * cannot (no suspend to RAM or no RTC wake alarm), else the -errno of the
 * write that failed, or of bringing a CPU back. Whether CLOCK_MONOTONIC
 * stopped is for the caller to see.
 *
 * The other CPUs go offline through sysfs first and come back the same way
 * after: left to the suspend, a resume under TCG at times fails to bring a
 * CPU up (it does not answer within 10 s) and leaves it out of the kernel's
 * online mask while its sysfs device still says online, which nothing but
 * a reboot mends (seen on 5.10 and 6.12 guests).
 */
static inline int tw_suspend(int secs)
{
	uint64_t down;
	char when[16];
	int ret = 0, up;

	if (access(TW_WAKEALARM, W_OK) ||
	    !tw_file_has_word("/sys/power/state", "mem"))
		return -EOPNOTSUPP;
	if (tw_file_has_word("/sys/power/mem_sleep", "deep"))
		ret = tw_write_file("/sys/power/mem_sleep", "deep");
	snprintf(when, sizeof(when), "+%d", secs);
	if (!ret)
		ret = tw_write_file(TW_WAKEALARM, "0");
	if (!ret)
		ret = tw_write_file(TW_WAKEALARM, when);
	down = tw_cpus_down();
	if (!ret)
		ret = tw_write_file("/sys/power/state", "mem");
	up = tw_cpus_up(down);
	return ret ? ret : up;
}

#endif /* TWHEEL_UTIL_H */
