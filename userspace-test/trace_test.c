// SPDX-License-Identifier: GPL-2.0
/*
 * trace_test.c - the twheel tracepoints: twheel:twheel_arm, twheel_cancel
 * and twheel_expire exist in tracefs and record what /dev/twheel does.
 *
 * Tracing is machine-wide state: each test turns the twheel events on, does
 * its work, turns them off and reads the trace buffer.
 */
#include <fcntl.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <linux/twheel.h>

#include "../kselftest_harness.h"
#include "twheel_util.h"

#define TRACEFS		"/sys/kernel/tracing"

/* Write @val to the tracefs file @name; 0 or -errno. */
static int tracefs_write(const char *name, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), TRACEFS "/%s", name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read the whole trace buffer into a malloc()ed string. */
static char *tracefs_read_trace(void)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	fd = open(TRACEFS "/trace", O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096) {
			char *bigger = realloc(buf, cap *= 2);

			if (!bigger)
				break;
			buf = bigger;
		}
	}
	buf[len] = '\0';
	close(fd);
	return buf;
}

FIXTURE(trace) {
	int fd;
};

FIXTURE_SETUP(trace)
{
	struct stat st;

	if (stat(TRACEFS "/events", &st) != 0)
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (stat(TRACEFS "/events", &st) != 0)
		SKIP(return, "no tracefs at " TRACEFS);
	self->fd = tw_open(_metadata);
	ASSERT_EQ(tracefs_write("trace", ""), 0);
	ASSERT_EQ(tracefs_write("events/twheel/enable", "1"), 0);
	ASSERT_EQ(tracefs_write("tracing_on", "1"), 0);
}

FIXTURE_TEARDOWN(trace)
{
	tracefs_write("events/twheel/enable", "0");
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(trace, events_are_defined)
{
	static const char *const events[] = {
		"twheel_arm", "twheel_cancel", "twheel_expire",
	};
	char path[256];
	struct stat st;
	unsigned int i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(path, sizeof(path), TRACEFS "/events/twheel/%s/format",
			 events[i]);
		EXPECT_EQ(stat(path, &st), 0);
	}
}

TEST_F(trace, arm_cancel_and_expire_are_recorded)
{
	struct twheel_event ev;
	uint64_t h;
	char *log;

	h = tw_arm(_metadata, self->fd, 1, 10 * SEC);
	ASSERT_EQ(tw_cancel(self->fd, h), 0);
	tw_arm(_metadata, self->fd, 2, 5 * MS);
	ASSERT_EQ(tw_read(_metadata, self->fd, &ev, 1), 1);
	EXPECT_EQ(ev.cookie, 2ULL);
	ASSERT_EQ(tracefs_write("events/twheel/enable", "0"), 0);

	log = tracefs_read_trace();
	ASSERT_TRUE(log != NULL);
	EXPECT_TRUE(strstr(log, "twheel_arm: timeout=") != NULL);
	EXPECT_TRUE(strstr(log, "twheel_cancel: timeout=") != NULL);
	EXPECT_TRUE(strstr(log, "twheel_expire: timeout=") != NULL);
	EXPECT_TRUE(strstr(log, " due=") != NULL);
	free(log);
}

TEST_F(trace, disabled_events_record_nothing)
{
	char *log;

	ASSERT_EQ(tracefs_write("events/twheel/enable", "0"), 0);
	ASSERT_EQ(tracefs_write("trace", ""), 0);
	ASSERT_EQ(tw_cancel(self->fd, tw_arm(_metadata, self->fd, 3, 10 * SEC)),
		  0);
	log = tracefs_read_trace();
	ASSERT_TRUE(log != NULL);
	EXPECT_TRUE(strstr(log, "twheel_") == NULL);
	free(log);
}

TEST_HARNESS_MAIN
