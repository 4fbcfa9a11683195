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
 *     then cancelled (again in batches, with TWHEEL_CANCEL_REPORT saying
 *     whether each was stopped in time); the others time out and their
 *     records arrive through read();
 *   - a few idle connections with 60 s timeouts, still armed at the end.
 *
 * Before the run it asks the kernel about a timeout (TWHEEL_IOC_GET) and
 * shows a response that comes too late: its timeout has fired, the record
 * waits unread, and the cancel says so (TWHEEL_CANCELLED_QUEUED). One epoll
 * loop then waits for records and for the next response due; the first
 * expiries are printed as they arrive with their lateness (the kernel's
 * expiry time minus the deadline). At the end the program hands over what
 * is still armed (TWHEEL_IOC_DRAIN with TWHEEL_DRAIN_CANCEL) and prints the
 * file's counters (TWHEEL_IOC_STATS) next to its own. It runs for about 6
 * seconds and exits 0 if no timeout fired early and every record, cancel
 * and counter is accounted for.
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
#define NR_IDLE		3		/* idle connections */
#define TICK_PERIOD	(500 * MS)
#define IDLE_TIMEOUT	(60 * SEC)
#define RUN_TIME	(6 * SEC)
#define SHOW_TIMEOUTS	5		/* request timeouts printed one by one */
/* Cookies: requests use 1..NR_REQUESTS. */
#define TICK_COOKIE	0
#define LATE_COOKIE	(NR_REQUESTS + 1)
#define IDLE_COOKIE	(NR_REQUESTS + 2)	/* and up, one per connection */

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
	unsigned int cancelled_queued;	/* had fired; record dropped unread */
	unsigned int other_cancels;	/* the late response, the drain */
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

/* Arm a one-shot timeout; returns its handle. */
static __u64 arm_one(int fd, __u64 cookie, __u64 delay)
{
	struct twheel_arm arm = { .cookie = cookie, .expires = delay };

	if (ioctl(fd, TWHEEL_IOC_ARM, &arm))
		die("TWHEEL_IOC_ARM");
	stats.armed++;
	return arm.handle;
}

/* One line about a live timeout, as TWHEEL_IOC_GET or _DRAIN tells it. */
static void print_timeout(const char *name, const struct twheel_get *g)
{
	printf("  %-18s cookie %4llu, %s", name,
	       (unsigned long long)g->cookie,
	       g->state == TWHEEL_STATE_ARMED ? "armed" :
	       g->state == TWHEEL_STATE_QUEUED ?
	       "fired, its record not read yet" : "?");
	if (g->state == TWHEEL_STATE_ARMED)
		printf(", fires in %.3f s", (double)g->remaining / SEC);
	if (g->period)
		printf(", every %llu ms", (unsigned long long)(g->period / MS));
	printf("\n");
}

/* Ask the kernel about the timeout @handle (TWHEEL_IOC_GET). */
static void show_timeout(int fd, const char *name, __u64 handle)
{
	struct twheel_get g = { .handle = handle };

	if (ioctl(fd, TWHEEL_IOC_GET, &g))
		die("TWHEEL_IOC_GET");
	print_timeout(name, &g);
}

/*
 * A response that comes after its timeout fired, but before the program
 * read the record: the cancel still works, and says the record is dropped.
 */
static void late_response(int fd)
{
	struct timespec pause = { .tv_nsec = 20 * MS };
	struct twheel_cancel cancel = { .flags = TWHEEL_CANCEL_REPORT };
	int ret;

	cancel.handle = arm_one(fd, LATE_COOKIE, 5 * MS);
	nanosleep(&pause, NULL);
	show_timeout(fd, "late response:", cancel.handle);
	ret = ioctl(fd, TWHEEL_IOC_CANCEL, &cancel);
	if (ret < 0)
		die("TWHEEL_IOC_CANCEL");
	stats.other_cancels++;
	printf("  its cancel returns %d: %s\n", ret,
	       ret == TWHEEL_CANCELLED_QUEUED ?
	       "TWHEEL_CANCELLED_QUEUED, the record is dropped unread" :
	       ret == TWHEEL_CANCELLED_ARMED ?
	       "TWHEEL_CANCELLED_ARMED, stopped before it fired" : "?");
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
				.flags = TWHEEL_CANCEL_REPORT,
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
		/*
		 * TWHEEL_CANCELLED_ARMED: stopped in time. _QUEUED: it had
		 * fired, but its record was not read yet and never will be.
		 * -ENOENT would mean the timeout had fired and been read.
		 */
		if (ops[i].result > 0)
			stats.cancelled++;
		if (ops[i].result == TWHEEL_CANCELLED_QUEUED)
			stats.cancelled_queued++;
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
		if (stats.timed_out <= SHOW_TIMEOUTS)
			printf("[%6.3f s] request %4llu timed out after %.3f s (late %.3f ms)\n",
			       secs(ev->expired),
			       (unsigned long long)ev->cookie - 1,
			       (double)r->timeout / SEC, (double)late / MS);
		if (stats.timed_out == SHOW_TIMEOUTS)
			printf("           (further request timeouts are counted, not printed)\n");
	} else {
		stats.unknown++;
	}
}

/* Read and handle every record that is ready (the file is non-blocking). */
static void read_records(int fd)
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
	printf("timeouts armed:      %u (%u requests, 1 periodic tick, %u idle, 1 late)\n",
	       stats.armed, NR_REQUESTS, NR_IDLE);
	printf("cancelled:           %u (responses before the timeout)\n",
	       stats.cancelled);
	printf("  stopped in time:   %u (TWHEEL_CANCELLED_ARMED)\n",
	       stats.cancelled - stats.cancelled_queued);
	printf("  record dropped:    %u (TWHEEL_CANCELLED_QUEUED: fired, not read)\n",
	       stats.cancelled_queued);
	printf("requests timed out:  %u\n", stats.timed_out);
	printf("ticks:               %u (%u counted as overruns)\n",
	       stats.ticks, stats.tick_overruns);
	printf("records read:        %u\n", fired);
	printf("early:               %u\n", stats.early);
	printf("lateness:            max %.3f ms, mean %.3f ms\n",
	       (double)stats.max_late / MS,
	       fired ? (double)stats.sum_late / fired / MS : 0.0);
}

/*
 * Stop: list every timeout still live and cancel it in the same call
 * (TWHEEL_IOC_DRAIN with TWHEEL_DRAIN_CANCEL), as a program handing its
 * timeouts over to another would. Returns how many there were.
 */
static unsigned int hand_over(int fd)
{
	struct twheel_get e[16];
	struct twheel_drain d = {
		.entries = (uintptr_t)e, .count = 16,
		.entry_size = sizeof(e[0]), .flags = TWHEEL_DRAIN_CANCEL,
	};
	unsigned int total = 0, i;
	char name[32];

	do {
		if (ioctl(fd, TWHEEL_IOC_DRAIN, &d))
			die("TWHEEL_IOC_DRAIN");
		for (i = 0; i < d.filled; i++) {
			if (e[i].cookie == TICK_COOKIE)
				snprintf(name, sizeof(name), "tick:");
			else
				snprintf(name, sizeof(name),
					 "idle connection %llu:",
					 (unsigned long long)(e[i].cookie -
							      IDLE_COOKIE));
			print_timeout(name, &e[i]);
		}
		total += d.filled;
	} while (d.filled);
	stats.other_cancels += total;
	return total;
}

/*
 * The file's own counters (TWHEEL_IOC_STATS), and whether they agree with
 * what the program saw. Returns 0 if they do.
 */
static int print_kernel_stats(int fd)
{
	struct twheel_stats st = { 0 };
	char label[32];
	__u64 sum = 0;
	int i;

	if (ioctl(fd, TWHEEL_IOC_STATS, &st))
		die("TWHEEL_IOC_STATS");
	printf("\n--- the file's counters (TWHEEL_IOC_STATS) ---\n");
	printf("armed %llu, fired %llu, cancelled %llu, overruns %llu; "
	       "now pending %llu, queued %llu\n",
	       (unsigned long long)st.armed, (unsigned long long)st.fired,
	       (unsigned long long)st.cancelled,
	       (unsigned long long)st.overruns,
	       (unsigned long long)st.pending, (unsigned long long)st.queued);
	printf("how late the kernel handled each expiry:\n");
	for (i = 0; i < TWHEEL_STATS_LATE_BUCKETS; i++) {
		sum += st.late[i];
		if (!st.late[i])
			continue;
		if (!i)
			snprintf(label, sizeof(label), "under 1 us");
		else if (i == TWHEEL_STATS_LATE_BUCKETS - 1)
			snprintf(label, sizeof(label), "%u us and more",
				 1U << (i - 1));
		else
			snprintf(label, sizeof(label), "%u-%u us",
				 1U << (i - 1), 1U << i);
		printf("  %-18s %6llu\n", label,
		       (unsigned long long)st.late[i]);
	}
	return st.armed != stats.armed || st.pending || st.queued ||
	       st.cancelled != stats.cancelled + stats.other_cancels ||
	       st.overruns != stats.tick_overruns || sum != st.fired;
}

int main(void)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct twheel_info info = { 0 };
	__u64 tick, next, now, end;
	unsigned int handed_over;
	int fd, ep, wait_ms, i, bad;

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
	for (i = 0; i < NR_IDLE; i++)
		arm_one(fd, IDLE_COOKIE + i, IDLE_TIMEOUT);
	printf("[%6.3f s] armed a %llu ms tick, %d request timeouts (0.5-4.5 s)\n",
	       secs(now_ns()), (unsigned long long)(TICK_PERIOD / MS),
	       NR_REQUESTS);
	printf("           and %d idle connection timeouts (%llu s)\n", NR_IDLE,
	       (unsigned long long)(IDLE_TIMEOUT / SEC));
	printf("Asking the kernel about two of them (TWHEEL_IOC_GET):\n");
	show_timeout(fd, "tick:", tick);
	show_timeout(fd, "request 0:", req[0].handle);
	printf("A response 20 ms after its 5 ms timeout, before the record is read:\n");
	late_response(fd);
	printf("\n");

	next = respond(fd, now_ns());
	while ((now = now_ns()) < end) {
		__u64 until = next && next < end ? next : end;

		wait_ms = until > now ? (int)((until - now + MS - 1) / MS) : 0;
		if (epoll_wait(ep, &e, 1, wait_ms) < 0 && errno != EINTR)
			die("epoll_wait");
		read_records(fd);
		next = respond(fd, now_ns());
	}

	/* close() would cancel them too, silently. */
	printf("\nStopping: what is still armed is listed and cancelled (TWHEEL_IOC_DRAIN):\n");
	handed_over = hand_over(fd);
	read_records(fd);
	print_stats();
	bad = print_kernel_stats(fd);
	close(ep);
	close(fd);
	if (stats.early || stats.unknown || bad ||
	    handed_over != NR_IDLE + 1 ||
	    stats.cancelled + stats.timed_out != NR_REQUESTS) {
		printf("FAILED: early or unaccounted timeouts\n");
		return 1;
	}
	return 0;
}
