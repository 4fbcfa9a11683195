// SPDX-License-Identifier: GPL-2.0
/*
 * twheel - command line tool for the twheel module and /dev/twheel
 *
 *   twheel info            module, parameters, limits (TWHEEL_IOC_INFO)
 *   twheel stat [--watch [SEC]]   per-CPU wheel statistics (debugfs)
 *   twheel ps [--watch [SEC]]     each open /dev/twheel file and its
 *                          counters, from /proc/PID/fdinfo
 *   twheel sleep DURATION  sleep on a twheel timeout
 *   twheel arm [--period D] [--count N] [--fixed-delay] [--cpu N] [--boottime]
 *              [-v] DELAY  arm a timeout and print its expiries; -v adds
 *                          what GET, DRAIN and STATS say
 *   twheel --version       the tool's, the library's and the module's release
 * --json (anywhere on the line): every command prints JSON instead, one
 * object (or array) per line.
 *
 * Built on libtwheel. twheel(8) is the manual.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libtwheel.h"

#define SYS_MODULE	"/sys/module/twheel"
#define STATS_FILE	"/sys/kernel/debug/twheel/stats"

static const char *prog = "twheel";
/* --json: machine-readable output. */
static int json;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: twheel [--json] info\n"
		"       twheel [--json] stat [--watch [SECONDS]]\n"
		"       twheel [--json] ps [--watch [SECONDS]]\n"
		"       twheel [--json] sleep DURATION\n"
		"       twheel [--json] arm [--period DURATION] [--fixed-delay] [--count N]\n"
		"                  [--cpu N] [--cookie N] [--boottime] [--verbose] DELAY\n"
		"       twheel [--json] --version\n"
		"DURATION: a number with ns, us, ms, s, m or h (default s), e.g. 250ms, 1.5s\n"
		"See twheel(8).\n");
}

/*
 * JSON output: a stack-free writer. jopen()/jclose() print { } or [ ],
 * jkey() a member name; the jsep flag remembers whether a comma is due.
 */
static int jsep;

static void jcomma(void)
{
	if (jsep)
		putchar(',');
	jsep = 1;
}

static void jstr_raw(const char *v)
{
	putchar('"');
	for (; *v; v++) {
		unsigned char c = (unsigned char)*v;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void jkey(const char *k)
{
	if (k) {
		jcomma();
		jstr_raw(k);
		putchar(':');
		jsep = 0;
	}
}

static void jopen(const char *k, char c)
{
	jkey(k);
	jcomma();
	putchar(c);
	jsep = 0;
}

static void jclose(char c)
{
	putchar(c);
	jsep = 1;
}

/* End of one top-level value: a line of its own. */
static void jend(void)
{
	putchar('\n');
	jsep = 0;
	fflush(stdout);
}

static void ju64(const char *k, uint64_t v)
{
	jkey(k);
	jcomma();
	printf("%" PRIu64, v);
}

static void jstr(const char *k, const char *v)
{
	jkey(k);
	jcomma();
	jstr_raw(v);
}

/* A value of fdinfo or sysfs: a number as a number, else a string. */
static void jval(const char *k, const char *v)
{
	char *end;

	errno = 0;
	(void)strtoull(v, &end, 10);
	jkey(k);
	jcomma();
	if (*v && !*end && !errno && isdigit((unsigned char)*v))
		fputs(v, stdout);
	else
		jstr_raw(v);
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(err < 0 ? -err : err));
	return 1;
}

/* "1.5s", "250ms", "10us", "100ns", "2m", "1h", "3" (seconds) -> ns. */
static int parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *sfx; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].sfx)) {
			v *= units[i].mul;
			if (v >= 18446744073709551615.0)
				return -ERANGE;
			*ns = (uint64_t)(v + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* One name per set bit of @v, from @names (bit i: names[i]). */
static void jbits(const char *k, uint64_t v, const char *const *names,
		  unsigned int n)
{
	unsigned int i;

	jopen(k, '[');
	for (i = 0; i < n; i++)
		if (v & (1ULL << i))
			jstr(NULL, names[i]);
	jclose(']');
}

static const char *const feat_names[] = {
	"INFO", "ARM", "REARM", "CANCEL", "BATCH", "GET", "DRAIN", "STATS",
	"SHARE",
};
static const char *const arm_flag_names[] = {
	"ABS", "CPU", "FIXED_DELAY", "BOOTTIME", "SLOT",
};
static const char *const rearm_flag_names[] = { "ABS" };
static const char *const cancel_flag_names[] = { "REPORT" };
static const char *const drain_flag_names[] = { "CANCEL" };
/* Bit TWHEEL_OP_BIT(op) of batch_ops: op 0 is no operation. */
static const char *const op_names[] = { "-", "ARM", "REARM", "CANCEL", "GET" };
#define NAMES(a)	(a), (unsigned int)(sizeof(a) / sizeof((a)[0]))

/* Each feature or flags mask of @info, with the names of its bits, to @out. */
static void each_mask(const struct twheel_info *info,
		      void (*out)(const char *k, uint64_t v,
				  const char *const *names, unsigned int n))
{
	out("ioctls", info->ioctls, NAMES(feat_names));
	out("arm_flags", info->arm_flags, NAMES(arm_flag_names));
	out("rearm_flags", info->rearm_flags, NAMES(rearm_flag_names));
	out("cancel_flags", info->cancel_flags, NAMES(cancel_flag_names));
	out("drain_flags", info->drain_flags, NAMES(drain_flag_names));
	out("batch_flags", info->batch_flags, NULL, 0);
	out("batch_ops", info->batch_ops, NAMES(op_names));
}

/* Every file of directory @dir as "name": value. */
static void json_dir(const char *k, const char *dir)
{
	char path[512], val[256];
	struct dirent *de;
	DIR *d = opendir(dir);

	jopen(k, '{');
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (!read_line(path, val, sizeof(val)))
			jval(de->d_name, val);
	}
	if (d)
		closedir(d);
	jclose('}');
}

static int info_json(void)
{
	static const char *const files[] = { "version", "srcversion", "refcnt", "taint" };
	const struct twheel_info *info;
	struct twheel *tw;
	char path[128], val[256];
	unsigned int i;
	int ret;

	ret = twheel_open(&tw, NULL, 1, 0);
	if (ret)
		return fail("open " TWHEEL_DEVICE, ret);
	info = twheel_get_info(tw);
	jopen(NULL, '{');
	jopen("module", '{');
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), SYS_MODULE "/%s", files[i]);
		if (!read_line(path, val, sizeof(val)))
			jval(files[i], val);
	}
	jclose('}');
	json_dir("parameters", SYS_MODULE "/parameters");
	jopen("device", '{');
	ju64("api_version", info->api_version);
	each_mask(info, jbits);
	ju64("event_size", info->event_size);
	ju64("tick_ns", info->tick_ns);
	ju64("max_delay_ns", info->max_delay_ns);
	ju64("max_pending", info->max_pending);
	ju64("max_batch", info->max_batch);
	if (info->size >= TWHEEL_INFO_SIZE_VER1)
		ju64("max_user_timeouts", info->max_user_timeouts);
	jclose('}');
	jclose('}');
	jend();
	twheel_close(tw);
	return 0;
}

/* "  name  0xBITS NAME NAME..." for a feature or flags mask. */
static void print_bits(const char *k, uint64_t v, const char *const *names,
		       unsigned int n)
{
	unsigned int i;

	printf("  %-16s 0x%" PRIx64, k, v);
	for (i = 0; i < n; i++)
		if (v & (1ULL << i))
			printf(" %s", names[i]);
	putchar('\n');
}

static int cmd_info(void)
{
	const struct twheel_info *info;
	struct twheel *tw;
	struct dirent *de;
	char path[512], val[256];
	DIR *d;
	int ret;

	if (access(SYS_MODULE, F_OK)) {
		fprintf(stderr, "%s: the twheel module is not loaded (modprobe twheel)\n", prog);
		return 1;
	}
	if (json)
		return info_json();
	printf("module:\n");
	if (!read_line(SYS_MODULE "/version", val, sizeof(val)))
		printf("  %-16s %s\n", "version", val);
	if (!read_line(SYS_MODULE "/srcversion", val, sizeof(val)))
		printf("  %-16s %s\n", "srcversion", val);
	if (!read_line(SYS_MODULE "/refcnt", val, sizeof(val)))
		printf("  %-16s %s\n", "refcnt", val);
	if (!read_line(SYS_MODULE "/taint", val, sizeof(val)))
		printf("  %-16s %s\n", "taint", val[0] ? val : "-");
	printf("parameters (" SYS_MODULE "/parameters):\n");
	d = opendir(SYS_MODULE "/parameters");
	if (d) {
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), SYS_MODULE "/parameters/%s", de->d_name);
			if (!read_line(path, val, sizeof(val)))
				printf("  %-16s %s\n", de->d_name, val);
		}
		closedir(d);
	}
	ret = twheel_open(&tw, NULL, 1, 0);
	if (ret)
		return fail("open " TWHEEL_DEVICE, ret);
	info = twheel_get_info(tw);
	printf("device (" TWHEEL_DEVICE ", TWHEEL_IOC_INFO):\n");
	printf("  %-16s %u\n", "api_version", info->api_version);
	each_mask(info, print_bits);
	printf("  %-16s %u\n", "event_size", info->event_size);
	printf("  %-16s %" PRIu64 "\n", "tick_ns", (uint64_t)info->tick_ns);
	printf("  %-16s %" PRIu64 "\n", "max_delay_ns", (uint64_t)info->max_delay_ns);
	printf("  %-16s %u\n", "max_pending", info->max_pending);
	printf("  %-16s %u\n", "max_batch", info->max_batch);
	if (info->size >= TWHEEL_INFO_SIZE_VER1)
		printf("  %-16s %" PRIu64 "\n", "max_user_timeouts",
		       (uint64_t)info->max_user_timeouts);
	twheel_close(tw);
	return 0;
}

/* "--watch [SECONDS]" or "-w [SECONDS]" after a command; else usage. */
static int parse_watch(int argc, char **argv, int *watch, double *secs)
{
	int i;

	*watch = 0;
	*secs = 1;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--watch") && strcmp(argv[i], "-w"))
			return -EINVAL;
		*watch = 1;
		if (i + 1 < argc && isdigit((unsigned char)argv[i + 1][0]))
			*secs = atof(argv[++i]);
	}
	if (*secs <= 0)
		*secs = 1;
	return 0;
}

/* One snapshot of the debugfs statistics: a header and numeric rows. */
#define MAX_COLS	16
#define MAX_ROWS	1024

struct stats {
	char tick[64];
	int ncols, nrows;
	char cols[MAX_COLS][32];
	char rows[MAX_ROWS][16];
	unsigned long long v[MAX_ROWS][MAX_COLS];
};

static int read_stats(struct stats *st)
{
	char line[1024], *tok, *save;
	FILE *f = fopen(STATS_FILE, "r");
	int c;

	if (!f)
		return -errno;
	memset(st, 0, sizeof(*st));
	while (fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \t\n", &save);
		if (!tok)
			continue;
		if (!strcmp(tok, "tick_ns")) {
			tok = strtok_r(NULL, " \t\n", &save);
			snprintf(st->tick, sizeof(st->tick), "%s", tok ? tok : "?");
		} else if (!strcmp(tok, "cpu")) {
			while ((tok = strtok_r(NULL, " \t\n", &save)) && st->ncols < MAX_COLS)
				snprintf(st->cols[st->ncols++], sizeof(st->cols[0]), "%s", tok);
		} else if (st->nrows < MAX_ROWS) {
			snprintf(st->rows[st->nrows], sizeof(st->rows[0]), "%s", tok);
			for (c = 0; c < st->ncols && (tok = strtok_r(NULL, " \t\n", &save)); c++)
				st->v[st->nrows][c] = strtoull(tok, NULL, 10);
			st->nrows++;
		}
	}
	fclose(f);
	return st->ncols ? 0 : -EPROTO;
}

/* Gauges are shown as they are; counters as a rate when watching. */
static int is_gauge(const char *col)
{
	return !strcmp(col, "pending") || !strncmp(col, "max_", 4);
}

static void print_stats_json(const struct stats *st)
{
	int r, c;

	jopen(NULL, '{');
	jval("tick_ns", st->tick);
	jopen("cpus", '[');
	for (r = 0; r < st->nrows; r++) {
		jopen(NULL, '{');
		jval("cpu", st->rows[r]);
		for (c = 0; c < st->ncols; c++)
			ju64(st->cols[c], st->v[r][c]);
		jclose('}');
	}
	jclose(']');
	jclose('}');
	jend();
}

static void print_stats(const struct stats *st, const struct stats *prev, double secs)
{
	int r, c;

	if (json) {
		print_stats_json(st);	/* counters as they are: rates are the reader's */
		return;
	}

	if (prev)
		printf("tick_ns %s, counters per second over %.1f s\n", st->tick, secs);
	else
		printf("tick_ns %s\n", st->tick);
	printf("%-5s", "cpu");
	for (c = 0; c < st->ncols; c++)
		printf(" %*s", (int)strlen(st->cols[c]) > 9 ? (int)strlen(st->cols[c]) : 9, st->cols[c]);
	printf("\n");
	for (r = 0; r < st->nrows; r++) {
		printf("%-5s", st->rows[r]);
		for (c = 0; c < st->ncols; c++) {
			int w = (int)strlen(st->cols[c]) > 9 ? (int)strlen(st->cols[c]) : 9;
			unsigned long long v = st->v[r][c];

			if (prev && !is_gauge(st->cols[c]) && r < prev->nrows)
				v = (unsigned long long)((double)(v - prev->v[r][c]) / secs + 0.5);
			printf(" %*llu", w, v);
		}
		printf("\n");
	}
}

static int cmd_stat(int argc, char **argv)
{
	static struct stats a, b;
	struct stats *cur = &a, *prev = &b, *t;
	double secs;
	int watch, ret;

	if (parse_watch(argc, argv, &watch, &secs)) {
		usage(stderr);
		return 2;
	}
	ret = read_stats(cur);
	if (ret) {
		if (ret == -ENOENT || ret == -EACCES)
			fprintf(stderr, "%s: cannot read " STATS_FILE ": %s "
				"(per-CPU statistics need root, debugfs mounted and the "
				"module loaded; 'twheel ps' shows each file's counters "
				"without them)\n",
				prog, strerror(-ret));
		else
			fail(STATS_FILE, ret);
		return 1;
	}
	print_stats(cur, NULL, 0);
	while (watch) {
		fflush(stdout);
		usleep((useconds_t)(secs * 1e6));
		t = prev;
		prev = cur;
		cur = t;
		ret = read_stats(cur);
		if (ret)
			return fail(STATS_FILE, ret);
		if (!json)
			printf("\n");
		print_stats(cur, prev, secs);
	}
	return 0;
}

static int is_twheel_fd(const char *link)
{
	return !strcmp(link, TWHEEL_DEVICE);
}

/* The "key:\tvalue" lines of one /proc/PID/fdinfo/FD. */
#define FDINFO_MAX	32

struct fdinfo {
	int n;
	char key[FDINFO_MAX][32];
	char val[FDINFO_MAX][256];
};

static int read_fdinfo(const char *path, struct fdinfo *fi)
{
	char line[512], *colon, *v;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	fi->n = 0;
	while (fi->n < FDINFO_MAX && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (strlen(line) >= sizeof(fi->key[0]))
			continue;
		for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
			;
		v[strcspn(v, "\n")] = 0;
		memcpy(fi->key[fi->n], line, strlen(line) + 1);
		snprintf(fi->val[fi->n], sizeof(fi->val[0]), "%s", v);
		fi->n++;
	}
	fclose(f);
	return 0;
}

static const char *fdinfo_get(const struct fdinfo *fi, const char *key)
{
	int i;

	for (i = 0; i < fi->n; i++)
		if (!strcmp(fi->key[i], key))
			return fi->val[i];
	return "?";
}

/*
 * The lateness bucket (fdinfo "late:", struct twheel_stats.late) below
 * which 99% of the expiries fall, as its upper bound: "<1us", "<=2us", ...,
 * or "-" before the first expiry. The last bucket has no upper bound.
 */
static void late_p99(const char *late, char *out, size_t len)
{
	unsigned long long b[TWHEEL_STATS_LATE_BUCKETS] = { 0 }, total = 0, sum = 0;
	char *end;
	int i, n = 0;

	while (n < TWHEEL_STATS_LATE_BUCKETS) {
		b[n] = strtoull(late, &end, 10);
		if (end == late)
			break;
		total += b[n++];
		late = end;
	}
	snprintf(out, len, "-");
	for (i = 0; i < n && total; i++) {
		sum += b[i];
		if (sum * 100 < total * 99)
			continue;
		if (i == 0)
			snprintf(out, len, "<1us");
		else if (i == TWHEEL_STATS_LATE_BUCKETS - 1)
			snprintf(out, len, ">%lluus", 1ULL << (i - 1));
		else
			snprintf(out, len, "<=%lluus", 1ULL << i);
		break;
	}
}

static void ps_header(void)
{
	printf("%7s %-16s %4s %9s %7s %10s %10s %10s %9s %9s\n", "PID", "COMMAND",
	       "FD", "PENDING", "QUEUED", "ARMED", "FIRED", "CANCELLED",
	       "OVERRUNS", "LATE_P99");
}

static void ps_row(const char *pid, const char *comm, const char *fd,
		   const struct fdinfo *fi)
{
	char p99[32];
	int i;

	late_p99(fdinfo_get(fi, "late"), p99, sizeof(p99));
	if (!json) {
		printf("%7s %-16s %4s %9s %7s %10s %10s %10s %9s %9s\n", pid, comm,
		       fd, fdinfo_get(fi, "pending"), fdinfo_get(fi, "queued"),
		       fdinfo_get(fi, "armed"), fdinfo_get(fi, "fired"),
		       fdinfo_get(fi, "cancelled"), fdinfo_get(fi, "overruns"), p99);
		return;
	}
	jopen(NULL, '{');
	jval("pid", pid);
	jstr("command", comm);
	jval("fd", fd);
	for (i = 0; i < fi->n; i++) {
		if (!strcmp(fi->key[i], "late")) {
			const char *v = fi->val[i];
			char *end;

			jopen("late", '[');
			for (;;) {
				unsigned long long x = strtoull(v, &end, 10);

				if (end == v)
					break;
				ju64(NULL, x);
				v = end;
			}
			jclose(']');
		} else if (strcmp(fi->key[i], "pos") && strcmp(fi->key[i], "flags") &&
			   strcmp(fi->key[i], "mnt_id") && strcmp(fi->key[i], "ino")) {
			jval(fi->key[i], fi->val[i]);
		}
	}
	jstr("late_p99", p99);
	jclose('}');
}

/* The /dev/twheel files of process @pid; returns how many. */
static int ps_process(const char *pid, int *denied)
{
	char path[PATH_MAX + 600], link[PATH_MAX], comm[64];
	struct fdinfo fi;
	struct dirent *fd;
	DIR *fds;
	ssize_t n;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	fds = opendir(path);
	if (!fds) {
		*denied += errno == EACCES;
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	if (read_line(path, comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "?");
	while ((fd = readdir(fds))) {
		if (fd->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, fd->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = 0;
		if (!is_twheel_fd(link))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, fd->d_name);
		if (read_fdinfo(path, &fi))
			continue;
		ps_row(pid, comm, fd->d_name, &fi);
		found++;
	}
	closedir(fds);
	return found;
}

static int ps_once(void)
{
	struct dirent *p;
	DIR *proc;
	int denied = 0;

	proc = opendir("/proc");
	if (!proc)
		return fail("/proc", errno);
	if (json)
		jopen(NULL, '[');
	else
		ps_header();
	while ((p = readdir(proc)))
		if (isdigit((unsigned char)p->d_name[0]))
			ps_process(p->d_name, &denied);
	closedir(proc);
	if (json) {
		jclose(']');
		jend();
	}
	if (denied && geteuid() != 0)
		fprintf(stderr, "%s: %d processes not shown (not yours; run as root)\n",
			prog, denied);
	return 0;
}

static int cmd_ps(int argc, char **argv)
{
	double secs;
	int watch, ret;

	if (parse_watch(argc, argv, &watch, &secs)) {
		usage(stderr);
		return 2;
	}
	ret = ps_once();
	while (watch && !ret) {
		fflush(stdout);
		usleep((useconds_t)(secs * 1e6));
		if (!json)
			printf("\n");
		ret = ps_once();
	}
	return ret;
}

static const char *state_name(uint32_t state)
{
	return state == TWHEEL_STATE_ARMED ? "armed" :
	       state == TWHEEL_STATE_QUEUED ? "queued" : "?";
}

/* arm -v: the new timeout as the kernel describes it (TWHEEL_OP_GET). */
static int print_get(struct twheel *tw, uint64_t handle)
{
	struct twheel_result g;
	int ret;

	ret = twheel_prep_get(tw, handle, &g);
	if (!ret)
		ret = twheel_flush(tw);
	if (ret >= 0 && g.result < 0)
		ret = g.result;
	if (ret < 0)
		return fail("get", ret);
	if (json) {
		jopen(NULL, '{');
		jstr("type", "get");
		ju64("handle", g.handle);
		ju64("cookie", g.cookie);
		jstr("state", state_name((uint32_t)g.result));
		ju64("deadline", g.deadline);
		ju64("remaining_ns", g.remaining);
		ju64("period", g.period);
		ju64("flags", g.flags);
		ju64("cpu", g.cpu);
		jclose('}');
		jend();
		return 0;
	}
	/* remaining: on the timeout's own clock (BOOTTIME or MONOTONIC). */
	printf("# get handle %" PRIu64 " cookie %" PRIu64 " state %s deadline %"
	       PRIu64 " remaining_ns %" PRIu64 " period %" PRIu64
	       " flags 0x%" PRIx32 " cpu %" PRIu32 "\n", g.handle, g.cookie,
	       state_name((uint32_t)g.result), g.deadline, g.remaining,
	       g.period, g.flags, g.cpu);
	return 0;
}

static void drained_json(const struct twheel_get *e)
{
	jopen(NULL, '{');
	jstr("type", "drained");
	ju64("handle", e->handle);
	ju64("cookie", e->cookie);
	jstr("state", state_name(e->state));
	ju64("deadline", e->deadline);
	ju64("remaining_ns", e->remaining);
	ju64("period", e->period);
	jclose('}');
	jend();
}

static void stats_json(const struct twheel_stats *st)
{
	int i;

	jopen(NULL, '{');
	jstr("type", "stats");
	ju64("pending", st->pending);
	ju64("queued", st->queued);
	ju64("armed", st->armed);
	ju64("fired", st->fired);
	ju64("cancelled", st->cancelled);
	ju64("overruns", st->overruns);
	jopen("late", '[');
	for (i = 0; i < TWHEEL_STATS_LATE_BUCKETS; i++)
		ju64(NULL, st->late[i]);
	jclose(']');
	jclose('}');
	jend();
}

static void event_json(const struct twheel_event *ev)
{
	jopen(NULL, '{');
	jstr("type", "expiry");
	ju64("handle", ev->handle);
	ju64("cookie", ev->cookie);
	ju64("deadline", ev->deadline);
	ju64("expired", ev->expired);
	ju64("late_ns", twheel_event_late_ns(ev));
	ju64("overrun", ev->overrun);
	jclose('}');
	jend();
}

/*
 * arm -v, at the end: list what is still live and cancel it
 * (TWHEEL_IOC_DRAIN with TWHEEL_DRAIN_CANCEL), then the file's counters
 * (TWHEEL_IOC_STATS).
 */
static int print_drain_stats(struct twheel *tw)
{
	struct twheel_stats st;
	struct twheel_get e[16];
	uint64_t cursor = 0;
	int n, i;

	while ((n = twheel_drain(tw, e, 16, &cursor, TWHEEL_DRAIN_CANCEL)) > 0)
		for (i = 0; i < n; i++)
			if (json)
				drained_json(&e[i]);
			else
				printf("# drained handle %" PRIu64 " cookie %" PRIu64
			       " state %s deadline %" PRIu64 " remaining_ns %"
			       PRIu64 " period %" PRIu64 "\n",
			       (uint64_t)e[i].handle, (uint64_t)e[i].cookie,
			       state_name(e[i].state), (uint64_t)e[i].deadline,
			       (uint64_t)e[i].remaining, (uint64_t)e[i].period);
	if (n < 0)
		return fail("drain", n);
	n = twheel_get_stats(tw, &st);
	if (n < 0)
		return fail("stats", n);
	if (json) {
		stats_json(&st);
		return 0;
	}
	printf("# stats pending %" PRIu64 " queued %" PRIu64 " armed %" PRIu64
	       " fired %" PRIu64 " cancelled %" PRIu64 " overruns %" PRIu64 "\n",
	       (uint64_t)st.pending, (uint64_t)st.queued, (uint64_t)st.armed,
	       (uint64_t)st.fired, (uint64_t)st.cancelled,
	       (uint64_t)st.overruns);
	printf("# late");
	for (i = 0; i < TWHEEL_STATS_LATE_BUCKETS; i++)
		printf(" %" PRIu64, (uint64_t)st.late[i]);
	printf("\n");
	return 0;
}

/*
 * Arm one timeout and print its expiries: "handle cookie deadline expired
 * late_ns overrun", one line each, @count of them (0: forever). With
 * @verbose also "# " lines: the timeout after the arm, and at the end what
 * is still live (then cancelled) and the file's counters.
 */
static int arm_and_wait(uint64_t delay, uint64_t period, uint32_t flags,
			uint32_t cpu, uint64_t cookie, unsigned long count,
			int quiet, int verbose)
{
	const struct twheel_event *ev;
	struct twheel_result r;
	struct twheel *tw;
	unsigned long seen = 0;
	int ret;

	ret = twheel_open(&tw, NULL, 1, 0);
	if (ret)
		return fail("open " TWHEEL_DEVICE, ret);
	ret = twheel_prep_arm(tw, cookie, delay, period, flags, cpu, &r);
	if (!ret)
		ret = twheel_flush(tw);
	if (ret < 0) {
		twheel_close(tw);
		return fail("arm", ret);
	}
	if (r.result) {
		twheel_close(tw);
		return fail("arm", r.result);
	}
	if (verbose && print_get(tw, r.handle)) {
		twheel_close(tw);
		return 1;
	}
	while (!count || seen < count) {
		ret = twheel_fill(tw);
		if (ret == -EINTR)
			continue;
		if (ret < 0) {
			twheel_close(tw);
			return fail("read", ret);
		}
		twheel_for_each_event(tw, ev) {
			seen++;
			if (quiet)
				continue;
			if (json)
				event_json(ev);
			else
				printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
				       " %" PRIu64 " %" PRIu64 "\n",
				       (uint64_t)ev->handle, (uint64_t)ev->cookie,
				       (uint64_t)ev->deadline, (uint64_t)ev->expired,
				       twheel_event_late_ns(ev), (uint64_t)ev->overrun);
		}
		fflush(stdout);
	}
	ret = verbose ? print_drain_stats(tw) : 0;
	twheel_close(tw);
	return ret;
}

static int cmd_sleep(int argc, char **argv)
{
	uint64_t ns;

	if (argc != 2 || parse_duration(argv[1], &ns)) {
		usage(stderr);
		return 2;
	}
	return arm_and_wait(ns, 0, 0, 0, 0, 1, 1, 0);
}

static int cmd_arm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "period", required_argument, NULL, 'p' },
		{ "fixed-delay", no_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "cookie", required_argument, NULL, 'k' },
		{ "boottime", no_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t delay, period = 0, cookie = 0;
	unsigned long count = 1;
	uint32_t flags = 0, cpu = 0;
	int o, count_set = 0, verbose = 0;

	optind = 1;
	while ((o = getopt_long(argc, argv, "p:fn:c:k:bv", opts, NULL)) != -1) {
		switch (o) {
		case 'b':
			flags |= TWHEEL_ARM_BOOTTIME;
			break;
		case 'p':
			if (parse_duration(optarg, &period))
				goto bad;
			break;
		case 'f':
			flags |= TWHEEL_ARM_FIXED_DELAY;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			count_set = 1;
			break;
		case 'c':
			cpu = (uint32_t)strtoul(optarg, NULL, 0);
			flags |= TWHEEL_ARM_CPU;
			break;
		case 'k':
			cookie = strtoull(optarg, NULL, 0);
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			goto bad;
		}
	}
	if (optind != argc - 1 || parse_duration(argv[optind], &delay))
		goto bad;
	/* A periodic timeout runs until --count expiries, or forever. */
	if (period && !count_set)
		count = 0;
	return arm_and_wait(delay, period, flags, cpu, cookie, count, 0,
			    verbose);
bad:
	usage(stderr);
	return 2;
}

/* The release of this tool, of the library it runs with and of the module. */
static int cmd_version(void)
{
	char mod[64];

	if (read_line(SYS_MODULE "/version", mod, sizeof(mod)))
		snprintf(mod, sizeof(mod), "-");
	if (json) {
		jopen(NULL, '{');
		jstr("twheel", TWHEEL_VERSION);
		jstr("libtwheel", twheel_version());
		jstr("module", mod);
		jclose('}');
		jend();
	} else {
		printf("twheel %s\nlibtwheel %s\nmodule %s\n", TWHEEL_VERSION,
		       twheel_version(), mod);
	}
	return 0;
}

/* Take --json out of the arguments, wherever it is. */
static int strip_json(int argc, char **argv)
{
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (i && !strcmp(argv[i], "--json"))
			json = 1;
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

int main(int argc, char **argv)
{
	argc = strip_json(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "info") && argc == 2)
		return cmd_info();
	if (!strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1);
	if (!strcmp(argv[1], "ps"))
		return cmd_ps(argc - 1, argv + 1);
	if ((!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) && argc == 2)
		return cmd_version();
	if (!strcmp(argv[1], "sleep"))
		return cmd_sleep(argc - 1, argv + 1);
	if (!strcmp(argv[1], "arm"))
		return cmd_arm(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	usage(stderr);
	return 2;
}
