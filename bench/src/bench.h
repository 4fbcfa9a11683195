/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench.h - shared declarations of twbench, the twheel benchmark program
 *
 * Every timeout mechanism ("peer") is driven through struct peer_ops, so the
 * workloads in twbench.c are written once and run unchanged against
 * timerfd+epoll, io_uring, POSIX timers, /dev/twheel (with its shared
 * table too) and the timers of libuv and libevent. A peer addresses
 * its timeouts by a dense slot number chosen by the workload; how a slot
 * maps to a kernel object (an fd, a request's user_data, a timer_t, a
 * twheel handle) is the peer's business.
 *
 * Peers whose natural interface is batched (io_uring, the twheel batch
 * ioctl) queue operations and submit them when the batch is full or on
 * flush(); the workloads flush before they stop a clock.
 */
#ifndef TWBENCH_H
#define TWBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL

/* Called by drain() for every expiry delivered to userspace. */
typedef void (*expire_fn)(void *arg, uint32_t slot, uint64_t now_ns,
			  uint64_t kernel_ns);

struct peer;

struct peer_ops {
	const char *name;
	/* Prepare to hold up to @capacity slots (no per-slot work yet). */
	int (*open)(struct peer *p, uint32_t capacity);
	/* Create the per-slot kernel object, if the peer has one (untimed). */
	int (*prepare)(struct peer *p, uint32_t slot);
	/* Arm an idle slot: @ns is a delay, or a CLOCK_MONOTONIC deadline. */
	int (*arm)(struct peer *p, uint32_t slot, uint64_t ns, bool abs);
	/* Move an armed slot to a new delay. */
	int (*rearm)(struct peer *p, uint32_t slot, uint64_t ns);
	/* Cancel an armed slot; it must never be reported as expired after. */
	int (*cancel)(struct peer *p, uint32_t slot);
	/* Submit whatever is queued. */
	int (*flush)(struct peer *p);
	/*
	 * Deliver expiries: wait at most @timeout_ms (0: do not block) for
	 * the first, then take what is ready. Returns how many were delivered.
	 */
	int (*drain)(struct peer *p, int timeout_ms, expire_fn fn, void *arg);
	void (*close)(struct peer *p);
};

struct peer {
	const struct peer_ops *ops;
	const char *label;	/* name in the results, e.g. "twheel-b256" */
	uint32_t batch;		/* operations per submission (1: none) */
	uint32_t capacity;
	uint64_t syscalls;	/* system calls issued, counted by the peer */
	uint64_t stale;		/* expiries of slots not armed, dropped */
	uint64_t errors;	/* operations that failed */
	uint64_t shared_bytes;	/* memory shared with the kernel (mmap) */
	void *priv;
};

/* Peers (peer_*.c). */
extern const struct peer_ops timerfd_ops;
extern const struct peer_ops uring_ops;
extern const struct peer_ops posix_ops;
extern const struct peer_ops twheel_ops;
extern const struct peer_ops twheel_shm_ops;
extern const struct peer_ops libuv_ops;
extern const struct peer_ops libevent_ops;	/* and libevent-common */

/* Slot states the workloads keep, shared with the peers for checks. */
enum { SLOT_IDLE = 0, SLOT_ARMED = 1, SLOT_QUEUED = 2 };

/* common.c */
uint64_t now_ns(void);
uint64_t cpu_ns(void);
uint64_t rng_next(uint64_t *s);
void *xcalloc(size_t n, size_t size);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void raise_limits(uint64_t nofile);
void pin_cpu(int cpu);

/* Results are JSON objects, one per line, on stdout. */
void json_begin(const char *workload, const char *peer);
void json_str(const char *key, const char *val);
void json_u64(const char *key, uint64_t v);
void json_dbl(const char *key, double v);
void json_arr(const char *key, const double *v, size_t n);
void json_end(void);

/* Machine counters read around a measurement. */
struct sysmem {
	int64_t meminfo_kb;	/* Slab+KernelStack+PageTables+VmallocUsed+Percpu */
	int64_t slab_kb;
	int64_t memcg_kernel;	/* memory.stat "kernel" (or slab+percpu+...) */
	int64_t memcg_current;	/* memory.current */
};
void sysmem_read(struct sysmem *m);
/*
 * Idle and iowait time of all CPUs, USER_HZ ticks: measured (the idle
 * task's time), not sampled at each tick as the busy times are.
 */
uint64_t proc_stat_idle_ticks(void);
long user_hz(void);
uint64_t loc_interrupts(void);		/* /proc/interrupts LOC, all CPUs */
int64_t twheel_stat(const char *col);	/* twheel debugfs counter, or -1 */

int cmp_dbl(const void *a, const void *b);
double percentile(const double *sorted, size_t n, double p);

#endif /* TWBENCH_H */
