// SPDX-License-Identifier: GPL-2.0
/*
 * twheel-demo.c - a small, complete /dev/twheel program to start from
 *
 * It plays a server with a heartbeat and many requests in flight:
 *
 *   - a periodic "tick" every 500 ms, like the classic HashedWheelTimer
 *     example (a fixed-rate periodic timeout: one record per period);
 *   - 2000 requests, each with a timeout between 0.5 s and 4.5 s, armed in
 *     batches of TWHEEL_IOC_BATCH;
 *   - most requests get their "response" before the timeout: the timeout is
 *     then cancelled (again in batches); the others time out and their
 *     records arrive through read().
 *
 * One epoll loop waits for records and for the next response due. Every
 * expiry is printed as it arrives with its lateness (the kernel's expiry
 * time minus the deadline); at the end come the statistics. The program
 * runs for about 6 seconds and exits 0 if no timeout fired early and every
 * record is accounted for.
 *
 * Build: gcc -O2 -Wall -I../uapi -o twheel-demo twheel-demo.c
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/twheel.h>

#define MS		1000000ULL
#define SEC		1000000000ULL

#define NR_REQUESTS	2000
#define TICK_PERIOD	(500 * MS)
#define RUN_TIME	(6 * SEC)
#define TICK_COOKIE	0		/* requests use cookies 1..NR_REQUESTS */

/* One simulated request. */
struct request {
	__u64 handle;	/* its timeout, from TWHEEL_OP_ARM */
	__u64 timeout;	/* relative timeout, ns */
	__u64 respond_at;	/* absolute time of its response; 0: never */
	int done;		/* responded (timeout cancelled) or timed out */
};

static struct request req[NR_REQUESTS];

/* What the run saw. */
static struct {
	unsigned int armed, cancelled, timed_out, ticks, tick_overruns;
	unsigned int early, unknown;
	__u64 max_late, sum_late;
} stats;

static __u64 t_start;

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * SEC + ts.tv_nsec;
}

static double secs(__u64 t)
{
	return (double)(t - t_start) / SEC;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Arm the periodic tick: first after one period, then every period. */
static __u64 arm_tick(int fd)
{
	struct twheel_arm arm = {
		.cookie = TICK_COOKIE,
		.expires = TICK_PERIOD,
		.period = TICK_PERIOD,
	};

	if (ioctl(fd, TWHEEL_IOC_ARM, &arm))
		die("TWHEEL_IOC_ARM");
	stats.armed++;
	return arm.handle;
}

/*
 * Give every request a timeout and decide when its response comes: 95% of
 * them answer before their timeout, the rest never do.
 */
static void plan_requests(void)
{
	int i;

	for (i = 0; i < NR_REQUESTS; i++) {
		req[i].timeout = 500 * MS + (__u64)(rand() % 4000) * MS;
		if (rand() % 100 < 95)
			req[i].respond_at = t_start + 10 * MS +
				req[i].timeout * (rand() % 90) / 100;
	}
}

/* Arm the timeouts of all requests, up to max_batch per ioctl. */
static void arm_requests(int fd, unsigned int max_batch)
{
	struct twheel_op *ops = calloc(max_batch, sizeof(*ops));
	struct twheel_batch batch = { .op_size = sizeof(*ops) };
	unsigned int first, i, n;

	if (!ops)
		die("calloc");
	for (first = 0; first < NR_REQUESTS; first += n) {
		n = NR_REQUESTS - first < max_batch ? NR_REQUESTS - first :
						      max_batch;
		for (i = 0; i < n; i++)
			ops[i] = (struct twheel_op){
				.op = TWHEEL_OP_ARM,
				.cookie = first + i + 1,
				.expires = req[first + i].timeout,
			};
		batch.ops = (uintptr_t)ops;
		batch.count = n;
		if (ioctl(fd, TWHEEL_IOC_BATCH, &batch))
			die("TWHEEL_IOC_BATCH (arm)");
		for (i = 0; i < n; i++) {
			if (ops[i].result) {
				fprintf(stderr, "arm of request %u: %s\n",
					first + i, strerror(-ops[i].result));
				exit(1);
			}
			req[first + i].handle = ops[i].handle;
			stats.armed++;
		}
	}
	free(ops);
}

/*
 * Cancel, in one batch, the timeouts of every request whose response is
 * due by @now. Returns the time of the next response, or 0 if none is left.
 */
static __u64 respond(int fd, __u64 now)
{
	static struct twheel_op ops[NR_REQUESTS];
	static int idx[NR_REQUESTS];
	struct twheel_batch batch = {
		.ops = (uintptr_t)ops, .op_size = sizeof(ops[0]),
	};
	__u64 next = 0;
	int i, n = 0;

	for (i = 0; i < NR_REQUESTS; i++) {
		if (req[i].done || !req[i].respond_at)
			continue;
		if (req[i].respond_at <= now) {
			ops[n] = (struct twheel_op){
				.op = TWHEEL_OP_CANCEL,
				.handle = req[i].handle,
			};
			idx[n++] = i;
		} else if (!next || req[i].respond_at < next) {
			next = req[i].respond_at;
		}
	}
	if (!n)
		return next;
	batch.count = n;
	if (ioctl(fd, TWHEEL_IOC_BATCH, &batch))
		die("TWHEEL_IOC_BATCH (cancel)");
	for (i = 0; i < n; i++) {
		/* -ENOENT would mean the timeout had fired and been read. */
		if (ops[i].result == 0)
			stats.cancelled++;
		req[idx[i]].done = 1;
	}
	return next;
}

/* Print one expiry record and count it. */
static void handle_record(const struct twheel_event *ev)
{
	__u64 late = ev->expired - ev->deadline;

	if (ev->expired < ev->deadline) {
		stats.early++;
		late = 0;
	}
	stats.sum_late += late;
	if (late > stats.max_late)
		stats.max_late = late;

	if (ev->cookie == TICK_COOKIE) {
		stats.ticks += 1 + ev->overrun;
		stats.tick_overruns += ev->overrun;
		printf("[%6.3f s] tick %u%s (late %.3f ms)\n", secs(ev->expired),
		       stats.ticks, ev->overrun ? " with overruns" : "",
		       (double)late / MS);
	} else if (ev->cookie <= NR_REQUESTS && !req[ev->cookie - 1].done) {
		struct request *r = &req[ev->cookie - 1];

		r->done = 1;
		stats.timed_out++;
		printf("[%6.3f s] request %4llu timed out after %.3f s (late %.3f ms)\n",
		       secs(ev->expired), (unsigned long long)ev->cookie - 1,
		       (double)r->timeout / SEC, (double)late / MS);
	} else {
		stats.unknown++;
	}
}

/* Read and handle every record that is ready (the file is non-blocking). */
static void drain(int fd)
{
	struct twheel_event ev[64];
	ssize_t n;
	int i;

	while ((n = read(fd, ev, sizeof(ev))) > 0)
		for (i = 0; i < n / (ssize_t)sizeof(ev[0]); i++)
			handle_record(&ev[i]);
	if (n < 0 && errno != EAGAIN)
		die("read");
}

static void print_stats(void)
{
	unsigned int fired = stats.timed_out + stats.ticks - stats.tick_overruns;

	printf("\n--- twheel-demo statistics ---\n");
	printf("timeouts armed:      %u (%u requests + 1 periodic tick)\n",
	       stats.armed, NR_REQUESTS);
	printf("cancelled:           %u (responses before the timeout)\n",
	       stats.cancelled);
	printf("requests timed out:  %u\n", stats.timed_out);
	printf("ticks:               %u (%u counted as overruns)\n",
	       stats.ticks, stats.tick_overruns);
	printf("records read:        %u\n", fired);
	printf("early:               %u\n", stats.early);
	printf("lateness:            max %.3f ms, mean %.3f ms\n",
	       (double)stats.max_late / MS,
	       fired ? (double)stats.sum_late / fired / MS : 0.0);
}

int main(void)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct twheel_info info = { 0 };
	__u64 tick, next, now, end;
	struct twheel_cancel cancel;
	int fd, ep, wait_ms;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = open("/dev/twheel", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/twheel");
	if (ioctl(fd, TWHEEL_IOC_INFO, &info))
		die("TWHEEL_IOC_INFO");
	printf("twheel ABI %u: tick %llu us, longest delay %llu days\n",
	       info.api_version, (unsigned long long)info.tick_ns / 1000,
	       (unsigned long long)(info.max_delay_ns / (86400 * SEC)));
	printf("at most %u timeouts per file, %u per batch\n",
	       info.max_pending, info.max_batch);

	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e))
		die("epoll");

	srand(42);
	t_start = now_ns();
	end = t_start + RUN_TIME;
	tick = arm_tick(fd);
	plan_requests();
	arm_requests(fd, info.max_batch);
	printf("[%6.3f s] armed a %llu ms tick and %d request timeouts (0.5-4.5 s)\n",
	       secs(now_ns()), (unsigned long long)(TICK_PERIOD / MS),
	       NR_REQUESTS);

	next = respond(fd, now_ns());
	while ((now = now_ns()) < end) {
		__u64 until = next && next < end ? next : end;

		wait_ms = until > now ? (int)((until - now + MS - 1) / MS) : 0;
		if (epoll_wait(ep, &e, 1, wait_ms) < 0 && errno != EINTR)
			die("epoll_wait");
		drain(fd);
		next = respond(fd, now_ns());
	}

	/* Stop the tick; the file's other timeouts would go with close(). */
	cancel = (struct twheel_cancel){ .handle = tick };
	if (ioctl(fd, TWHEEL_IOC_CANCEL, &cancel))
		die("TWHEEL_IOC_CANCEL");
	print_stats();
	close(ep);
	close(fd);
	if (stats.early || stats.unknown ||
	    stats.cancelled + stats.timed_out != NR_REQUESTS) {
		printf("FAILED: early or unaccounted timeouts\n");
		return 1;
	}
	return 0;
}
