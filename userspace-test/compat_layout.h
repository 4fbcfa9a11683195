/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat_layout.h - the layout of every structure of the ABI, as text
 *
 * compat_test (64-bit, the kernel's layout) and twheel-compat32 (-m32)
 * both build tw_layout_text() from this one list of fields; compat_test
 * passes its text to twheel-compat32 in the environment, which compares it
 * with its own, field by field. A field whose offset or size differs on
 * i386 (a __u64 after a lone __u32 is 4-aligned there, 8-aligned on
 * x86-64; a long or a pointer is 4 bytes there) shows up by name.
 */
#ifndef TWHEEL_COMPAT_LAYOUT_H
#define TWHEEL_COMPAT_LAYOUT_H

#include <stddef.h>
#include <stdio.h>
#include <linux/twheel.h>

#include "../kselftest.h"

/* Environment variable that carries the 64-bit layout to the 32-bit run. */
#define TW_LAYOUT_ENV	"TWHEEL_LAYOUT64"

struct tw_layout_field {
	const char *name;
	size_t offset;
	size_t size;
};

#define TW_SIZE(s)	{ #s, 0, sizeof(struct s) }
#define TW_FIELD(s, f)	{ #s "." #f, offsetof(struct s, f), \
			  sizeof(((struct s *)0)->f) }

static const struct tw_layout_field tw_layout[] = {
	TW_SIZE(twheel_arm),
	TW_FIELD(twheel_arm, cookie),
	TW_FIELD(twheel_arm, expires),
	TW_FIELD(twheel_arm, period),
	TW_FIELD(twheel_arm, flags),
	TW_FIELD(twheel_arm, cpu),
	TW_FIELD(twheel_arm, handle),
	TW_SIZE(twheel_rearm),
	TW_FIELD(twheel_rearm, handle),
	TW_FIELD(twheel_rearm, expires),
	TW_FIELD(twheel_rearm, flags),
	TW_FIELD(twheel_rearm, reserved),
	TW_SIZE(twheel_cancel),
	TW_FIELD(twheel_cancel, handle),
	TW_FIELD(twheel_cancel, flags),
	TW_FIELD(twheel_cancel, reserved),
	TW_SIZE(twheel_op),
	TW_FIELD(twheel_op, op),
	TW_FIELD(twheel_op, flags),
	TW_FIELD(twheel_op, handle),
	TW_FIELD(twheel_op, cookie),
	TW_FIELD(twheel_op, expires),
	TW_FIELD(twheel_op, period),
	TW_FIELD(twheel_op, cpu),
	TW_FIELD(twheel_op, result),
	TW_SIZE(twheel_batch),
	TW_FIELD(twheel_batch, ops),
	TW_FIELD(twheel_batch, count),
	TW_FIELD(twheel_batch, op_size),
	TW_FIELD(twheel_batch, flags),
	TW_FIELD(twheel_batch, reserved),
	TW_SIZE(twheel_info),
	TW_FIELD(twheel_info, api_version),
	TW_FIELD(twheel_info, size),
	TW_FIELD(twheel_info, ioctls),
	TW_FIELD(twheel_info, arm_flags),
	TW_FIELD(twheel_info, event_size),
	TW_FIELD(twheel_info, tick_ns),
	TW_FIELD(twheel_info, max_delay_ns),
	TW_FIELD(twheel_info, max_pending),
	TW_FIELD(twheel_info, max_batch),
	TW_FIELD(twheel_info, max_user_timeouts),
	TW_FIELD(twheel_info, rearm_flags),
	TW_FIELD(twheel_info, cancel_flags),
	TW_FIELD(twheel_info, drain_flags),
	TW_FIELD(twheel_info, batch_flags),
	TW_FIELD(twheel_info, batch_ops),
	TW_SIZE(twheel_event),
	TW_FIELD(twheel_event, handle),
	TW_FIELD(twheel_event, cookie),
	TW_FIELD(twheel_event, deadline),
	TW_FIELD(twheel_event, expired),
	TW_FIELD(twheel_event, overrun),
	TW_FIELD(twheel_event, flags),
	TW_FIELD(twheel_event, reserved),
	TW_SIZE(twheel_get),
	TW_FIELD(twheel_get, handle),
	TW_FIELD(twheel_get, cookie),
	TW_FIELD(twheel_get, deadline),
	TW_FIELD(twheel_get, remaining),
	TW_FIELD(twheel_get, period),
	TW_FIELD(twheel_get, overrun),
	TW_FIELD(twheel_get, state),
	TW_FIELD(twheel_get, flags),
	TW_FIELD(twheel_get, cpu),
	TW_FIELD(twheel_get, reserved),
	TW_SIZE(twheel_drain),
	TW_FIELD(twheel_drain, entries),
	TW_FIELD(twheel_drain, count),
	TW_FIELD(twheel_drain, entry_size),
	TW_FIELD(twheel_drain, cursor),
	TW_FIELD(twheel_drain, flags),
	TW_FIELD(twheel_drain, filled),
	TW_SIZE(twheel_stats),
	TW_FIELD(twheel_stats, pending),
	TW_FIELD(twheel_stats, queued),
	TW_FIELD(twheel_stats, armed),
	TW_FIELD(twheel_stats, fired),
	TW_FIELD(twheel_stats, cancelled),
	TW_FIELD(twheel_stats, overruns),
	TW_FIELD(twheel_stats, late),
	TW_SIZE(twheel_share),
	TW_FIELD(twheel_share, flags),
	TW_FIELD(twheel_share, slots),
	TW_FIELD(twheel_share, size),
	TW_FIELD(twheel_share, offset),
	TW_FIELD(twheel_share, ring_entries),
	TW_FIELD(twheel_share, reserved),
	TW_FIELD(twheel_share, ring_size),
	TW_FIELD(twheel_share, ring_offset),
	TW_SIZE(twheel_ring),
	TW_FIELD(twheel_ring, head),
	TW_FIELD(twheel_ring, reserved0),
	TW_FIELD(twheel_ring, tail),
	TW_FIELD(twheel_ring, reserved1),
	TW_FIELD(twheel_ring, entries),
	TW_FIELD(twheel_ring, waiting),
	TW_FIELD(twheel_ring, reserved2),
	TW_SIZE(twheel_slot),
	TW_FIELD(twheel_slot, deadline),
	TW_FIELD(twheel_slot, handle),
};

#define TW_LAYOUT_COUNT	ARRAY_SIZE(tw_layout)

/* One field as "name=offset+size"; the text is these, space-separated. */
static inline int tw_layout_entry(char *buf, size_t len,
				  const struct tw_layout_field *f)
{
	return snprintf(buf, len, "%s=%zu+%zu", f->name, f->offset, f->size);
}

/* The whole layout; returns its length (>= @len: truncated). */
static inline size_t tw_layout_text(char *buf, size_t len)
{
	size_t used = 0, i;

	for (i = 0; i < TW_LAYOUT_COUNT; i++) {
		used += tw_layout_entry(used < len ? buf + used : NULL,
					used < len ? len - used : 0,
					&tw_layout[i]);
		if (used < len)
			buf[used] = i + 1 < TW_LAYOUT_COUNT ? ' ' : '\0';
		used++;
	}
	return used - 1;
}

#endif /* TWHEEL_COMPAT_LAYOUT_H */
