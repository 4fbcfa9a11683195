// SPDX-License-Identifier: GPL-2.0
/*
 * common.c - clocks, random numbers, JSON output and machine counters for
 * twbench
 *
 * The JSON writer is deliberately tiny: one flat object per line, numbers
 * and strings and arrays of numbers only, which is all the report script
 * (bench/scripts/bench_report.py) reads. Progress and diagnostics go to stderr so
 * stdout stays machine-readable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: fast, good enough to pick slots. */
uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("twbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void note(const char *fmt, ...)
{
	va_list ap;

	fputs("twbench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die("out of memory (%zu x %zu)", n, size);
	return p;
}

/*
 * A real user of one-timerfd-per-timeout raises its fd limit; so do we
 * (fs.nr_open is raised by the guest script when it can be).
 */
void raise_limits(uint64_t nofile)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < nofile) {
		rl.rlim_cur = nofile;
		if (rl.rlim_max < nofile)
			rl.rlim_max = nofile;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			note("setrlimit(NOFILE, %llu): %s",
			     (unsigned long long)nofile, strerror(errno));
	}
	/* Each POSIX timer preallocates a sigqueue charged to SIGPENDING. */
	rl.rlim_cur = RLIM_INFINITY;
	rl.rlim_max = RLIM_INFINITY;
	if (setrlimit(RLIMIT_SIGPENDING, &rl)) {
		getrlimit(RLIMIT_SIGPENDING, &rl);
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_SIGPENDING, &rl);
	}
}

void pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		note("sched_setaffinity(%d): %s", cpu, strerror(errno));
}

static int json_first;

void json_begin(const char *workload, const char *peer)
{
	printf("{\"workload\":\"%s\",\"peer\":\"%s\"", workload, peer);
	json_first = 0;
}

void json_str(const char *key, const char *val)
{
	printf(",\"%s\":\"%s\"", key, val);
}

void json_u64(const char *key, uint64_t v)
{
	printf(",\"%s\":%llu", key, (unsigned long long)v);
}

static void put_dbl(double v)
{
	if (isfinite(v))
		printf("%.6g", v);
	else
		fputs("null", stdout);
}

void json_dbl(const char *key, double v)
{
	printf(",\"%s\":", key);
	put_dbl(v);
}

void json_arr(const char *key, const double *v, size_t n)
{
	size_t i;

	printf(",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			putchar(',');
		put_dbl(v[i]);
	}
	putchar(']');
}

void json_end(void)
{
	(void)json_first;
	puts("}");
	fflush(stdout);
}

/* Value of "Key:" in a "Key: value" file, or -1. */
static int64_t file_key(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	int64_t v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, kl) &&
		    (line[kl] == ':' || line[kl] == ' ')) {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static int64_t file_num(const char *path)
{
	char buf[64];
	int64_t v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f))
		v = strtoll(buf, NULL, 10);
	fclose(f);
	return v;
}

/* The memory cgroup this process is in (cgroup v2), or NULL. */
static const char *memcg_dir(void)
{
	static char dir[600];
	static int done;
	char line[512];
	FILE *f;

	if (done)
		return dir[0] ? dir : NULL;
	done = 1;
	f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(dir, sizeof(dir), "/sys/fs/cgroup%s",
				 line + 3);
			break;
		}
	}
	fclose(f);
	return dir[0] ? dir : NULL;
}

void sysmem_read(struct sysmem *m)
{
	static const char *const keys[] = {
		"Slab", "KernelStack", "PageTables", "VmallocUsed", "Percpu",
	};
	const char *cg = memcg_dir();
	char path[700];
	size_t i;
	int64_t v;

	m->meminfo_kb = 0;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		v = file_key("/proc/meminfo", keys[i]);
		if (v > 0)
			m->meminfo_kb += v;
	}
	m->slab_kb = file_key("/proc/meminfo", "Slab");
	m->memcg_kernel = -1;
	m->memcg_current = -1;
	if (!cg)
		return;
	snprintf(path, sizeof(path), "%s/memory.stat", cg);
	m->memcg_kernel = file_key(path, "kernel");
	if (m->memcg_kernel < 0) {
		v = file_key(path, "slab");
		if (v >= 0)
			m->memcg_kernel = v + (file_key(path, "percpu") > 0 ?
					       file_key(path, "percpu") : 0);
	}
	snprintf(path, sizeof(path), "%s/memory.current", cg);
	m->memcg_current = file_num(path);
}

long user_hz(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return hz > 0 ? hz : 100;
}

/* idle+iowait of the "cpu" line. */
uint64_t proc_stat_idle_ticks(void)
{
	unsigned long long v[5] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4]);
	fclose(f);
	return n == 5 ? v[3] + v[4] : 0;
}

/* Sum of the per-CPU counts on the "LOC:" line of /proc/interrupts. */
uint64_t loc_interrupts(void)
{
	char line[4096];
	uint64_t sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (strncmp(p, "LOC:", 4))
			continue;
		p += 4;
		for (;;) {
			unsigned long long n = strtoull(p, &end, 10);

			if (end == p)
				break;
			sum += n;
			p = end;
		}
		break;
	}
	fclose(f);
	return sum;
}

/*
 * A counter from twheel's debugfs statistics (/sys/kernel/debug/twheel/stats,
 * format owned by the module): a table whose header line names the columns
 * ("cpu pending armed ... hrtimer ...") with one row per CPU and an "all"
 * row. Returns the "all" row's value of the first column whose name
 * contains @col (the sum of the CPU rows when there is no "all" row), or
 * "key value" / "key: value" lines as a fallback; -1 when not found.
 */
int64_t twheel_stat(const char *col)
{
	const char *path = getenv("TWHEEL_STATS");
	FILE *f = fopen(path ? path : "/sys/kernel/debug/twheel/stats", "r");
	char line[1024], *tok, *save;
	int idx = -1, i;
	int64_t sum = -1, all = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *first;

		first = strtok_r(line, " \t\n:", &save);
		if (!first)
			continue;
		if (idx < 0) {
			tok = strtok_r(NULL, " \t\n", &save);
			/* "key value" */
			if (strstr(first, col) && tok && *tok >= '0' &&
			    *tok <= '9') {
				all = strtoll(tok, NULL, 10);
				break;
			}
			/* a header line naming a column that contains @col */
			for (i = 1; tok; tok = strtok_r(NULL, " \t\n", &save), i++) {
				if (strstr(tok, col)) {
					idx = i;
					break;
				}
			}
			continue;
		}
		for (i = 1, tok = strtok_r(NULL, " \t\n", &save); tok && i < idx;
		     tok = strtok_r(NULL, " \t\n", &save), i++)
			;
		if (!tok)
			continue;
		if (!strcmp(first, "all"))
			all = strtoll(tok, NULL, 10);
		else if (*first >= '0' && *first <= '9')
			sum = (sum < 0 ? 0 : sum) + strtoll(tok, NULL, 10);
	}
	fclose(f);
	return all >= 0 ? all : sum;
}

int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double percentile(const double *sorted, size_t n, double p)
{
	size_t i;

	if (!n)
		return NAN;
	i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
	if (i >= n)
		i = n - 1;
	return sorted[i];
}
