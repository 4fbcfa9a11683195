/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - tracepoints of the twheel wheel: arm, cancel, expire
 *
 * Usable from ftrace (events/twheel/), perf and bpftrace. The timeout
 * pointer identifies a timeout across events; hashed like any %p.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM twheel

#if !defined(_TWHEEL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TWHEEL_TRACE_H

#include <linux/tracepoint.h>

#include <linux/twheel.h>

TRACE_EVENT(twheel_arm,
	    TP_PROTO(struct twheel_timeout *t, u64 expires, unsigned int cpu),
	    TP_ARGS(t, expires, cpu),
	    TP_STRUCT__entry(__field(void *, timeout)
			     __field(u64, expires)
			     __field(unsigned int, cpu)),
	    TP_fast_assign(__entry->timeout = t;
			   __entry->expires = expires;
			   __entry->cpu = cpu;),
	    TP_printk("timeout=%p expires=%llu cpu=%u",
		      __entry->timeout, __entry->expires, __entry->cpu)
);

TRACE_EVENT(twheel_cancel,
	    TP_PROTO(struct twheel_timeout *t, unsigned int cpu),
	    TP_ARGS(t, cpu),
	    TP_STRUCT__entry(__field(void *, timeout)
			     __field(unsigned int, cpu)),
	    TP_fast_assign(__entry->timeout = t;
			   __entry->cpu = cpu;),
	    TP_printk("timeout=%p cpu=%u", __entry->timeout, __entry->cpu)
);

TRACE_EVENT(twheel_expire,
	    TP_PROTO(struct twheel_timeout *t, u64 due_ns, u64 now_ns),
	    TP_ARGS(t, due_ns, now_ns),
	    TP_STRUCT__entry(__field(void *, timeout)
			     __field(u64, due_ns)
			     __field(u64, now_ns)),
	    TP_fast_assign(__entry->timeout = t;
			   __entry->due_ns = due_ns;
			   __entry->now_ns = now_ns;),
	    TP_printk("timeout=%p due=%llu now=%llu", __entry->timeout,
		      __entry->due_ns, __entry->now_ns)
);

#endif /* _TWHEEL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
