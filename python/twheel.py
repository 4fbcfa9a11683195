# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""twheel: very many timeouts in the kernel's timing wheel, from Python.

A ctypes binding of libtwheel (libtwheel.so.1, package libtwheel1), the
userspace library of /dev/twheel. One Twheel object is one open file: its
timeouts are armed, pushed out and cancelled through libtwheel's queue
(one system call per flush, however many operations), and their expiry
records are read from it; fileno() goes into select, poll, epoll or an
asyncio loop like any descriptor.

    import twheel
    with twheel.Twheel(nonblock=True) as tw:
        h = tw.arm(cookie=7, expires=twheel.now_ns() + 50_000_000, absolute=True)
        ...
        for ev in tw.events():          # ready records, without blocking
            print(ev.cookie, ev.late_ns)

Times are nanoseconds of CLOCK_MONOTONIC (CLOCK_BOOTTIME with
boottime=True) as this process sees them. Errors raise OSError with the
errno libtwheel returned. Features are found through info() (the module's
flag masks), never by comparing versions.
"""

import ctypes
import errno
import os

__all__ = ["Twheel", "Event", "Result", "now_ns", "boottime_ns", "version",
           "ARM_ABS", "ARM_CPU", "ARM_FIXED_DELAY", "ARM_BOOTTIME",
           "CANCEL_REPORT", "CANCELLED_ARMED", "CANCELLED_QUEUED",
           "EV_PERIODIC", "EV_STOPPED"]

# uapi/linux/twheel.h
ARM_ABS = 0x1
ARM_CPU = 0x2
ARM_FIXED_DELAY = 0x4
ARM_BOOTTIME = 0x8
CANCEL_REPORT = 0x1
CANCELLED_ARMED = 1
CANCELLED_QUEUED = 2
EV_PERIODIC = 0x1
EV_STOPPED = 0x2
# lib/libtwheel.h
_OPEN_NONBLOCK = 0x1


class Event(ctypes.Structure):
    """One expiry record (struct twheel_event)."""
    _fields_ = [("handle", ctypes.c_uint64), ("cookie", ctypes.c_uint64),
                ("deadline", ctypes.c_uint64), ("expired", ctypes.c_uint64),
                ("overrun", ctypes.c_uint64), ("flags", ctypes.c_uint32),
                ("reserved", ctypes.c_uint32)]

    @property
    def late_ns(self):
        """How late the kernel found it due, in ns (never negative)."""
        return max(self.expired - self.deadline, 0)

    @property
    def periodic(self):
        return bool(self.flags & EV_PERIODIC)


class Result(ctypes.Structure):
    """What a queued operation did, once flushed (struct twheel_result)."""
    _fields_ = [("handle", ctypes.c_uint64), ("result", ctypes.c_int32),
                ("op", ctypes.c_uint32), ("cookie", ctypes.c_uint64),
                ("deadline", ctypes.c_uint64), ("period", ctypes.c_uint64),
                ("flags", ctypes.c_uint32), ("cpu", ctypes.c_uint32),
                ("remaining", ctypes.c_uint64),
                ("reserved", ctypes.c_uint64 * 5)]


class Info(ctypes.Structure):
    """What the module can do (struct twheel_info)."""
    _fields_ = [("api_version", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("ioctls", ctypes.c_uint64), ("arm_flags", ctypes.c_uint32),
                ("event_size", ctypes.c_uint32), ("tick_ns", ctypes.c_uint64),
                ("max_delay_ns", ctypes.c_uint64),
                ("max_pending", ctypes.c_uint32),
                ("max_batch", ctypes.c_uint32),
                ("max_user_timeouts", ctypes.c_uint64),
                ("rearm_flags", ctypes.c_uint32),
                ("cancel_flags", ctypes.c_uint32),
                ("drain_flags", ctypes.c_uint32),
                ("batch_flags", ctypes.c_uint32),
                ("batch_ops", ctypes.c_uint64)]


def _load():
    lib = ctypes.CDLL(os.environ.get("LIBTWHEEL", "libtwheel.so.1"),
                      use_errno=True)
    ptr, u32, u64, c_int = (ctypes.c_void_p, ctypes.c_uint32,
                            ctypes.c_uint64, ctypes.c_int)
    res = ctypes.POINTER(Result)
    sigs = {
        "twheel_open": (c_int, [ctypes.POINTER(ptr), ctypes.c_char_p,
                                ctypes.c_uint, ctypes.c_uint]),
        "twheel_close": (None, [ptr]),
        "twheel_fd": (c_int, [ptr]),
        "twheel_get_info": (ctypes.POINTER(Info), [ptr]),
        "twheel_prep_arm": (c_int, [ptr, u64, u64, u64, u32, u32, res]),
        "twheel_prep_rearm": (c_int, [ptr, u64, u64, u32, res]),
        "twheel_prep_cancel": (c_int, [ptr, u64, u32, res]),
        "twheel_flush": (c_int, [ptr]),
        "twheel_queued": (ctypes.c_uint, [ptr]),
        "twheel_fill": (c_int, [ptr]),
        "twheel_next_event": (ctypes.POINTER(Event), [ptr]),
        "twheel_clock_ns": (u64, [u32]),
        "twheel_version": (ctypes.c_char_p, []),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


_lib = _load()


def _check(ret, what):
    """libtwheel returns -errno: raise it."""
    if ret < 0:
        raise OSError(-ret, "%s: %s" % (what, os.strerror(-ret)))
    return ret


def now_ns():
    """CLOCK_MONOTONIC now, in ns, as deadlines of this process are."""
    return _lib.twheel_clock_ns(0)


def boottime_ns():
    """CLOCK_BOOTTIME now, in ns (for timeouts armed with boottime=True)."""
    return _lib.twheel_clock_ns(ARM_BOOTTIME)


def version():
    """The release of libtwheel, e.g. "0.2.0": for messages only."""
    return _lib.twheel_version().decode()


class Twheel:
    """One open twheel file (twheel_open(3)).

    arm(), rearm() and cancel() submit at once and return what the kernel
    said; prep_arm(), prep_rearm() and prep_cancel() only queue and return a
    Result that flush() fills in. A cancelled timeout's record never
    reaches events(), even one already read ahead (libtwheel's promise).
    """

    def __init__(self, path=None, depth=0, nonblock=False):
        self._tw = ctypes.c_void_p()
        self._pending = []      # Results of queued operations (kept alive)
        flags = _OPEN_NONBLOCK if nonblock else 0
        _check(_lib.twheel_open(ctypes.byref(self._tw),
                                path.encode() if path else None, depth, flags),
               "twheel_open")

    def close(self):
        if self._tw:
            _lib.twheel_close(self._tw)
            self._tw = ctypes.c_void_p()
            self._pending = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def fileno(self):
        return _lib.twheel_fd(self._tw)

    def info(self):
        """The module's limits and flag masks (struct twheel_info)."""
        src = _lib.twheel_get_info(self._tw).contents
        return Info.from_buffer_copy(src)

    @staticmethod
    def _flags(absolute, boottime, cpu, fixed_delay=False):
        return ((ARM_ABS if absolute else 0) |
                (ARM_BOOTTIME if boottime else 0) |
                (ARM_CPU if cpu is not None else 0) |
                (ARM_FIXED_DELAY if fixed_delay else 0))

    def _queued(self, ret, what):
        res = self._pending[-1]
        if ret < 0:
            self._pending.pop()
            _check(ret, what)
        return res

    def prep_arm(self, cookie, expires, period=0, absolute=False,
                 boottime=False, cpu=None, fixed_delay=False):
        """Queue an arm: @expires ns from now, or a deadline if @absolute."""
        self._pending.append(Result())
        flags = self._flags(absolute, boottime, cpu, fixed_delay)
        ret = _lib.twheel_prep_arm(self._tw, cookie, expires, period, flags,
                                   cpu or 0, ctypes.byref(self._pending[-1]))
        return self._queued(ret, "twheel_prep_arm")

    def prep_rearm(self, handle, expires, absolute=False):
        """Queue a re-arm of a live timeout to a new expiry."""
        self._pending.append(Result())
        ret = _lib.twheel_prep_rearm(self._tw, handle, expires,
                                     ARM_ABS if absolute else 0,
                                     ctypes.byref(self._pending[-1]))
        return self._queued(ret, "twheel_prep_rearm")

    def prep_cancel(self, handle, report=False):
        """Queue a cancel; with @report its result says how it found it."""
        self._pending.append(Result())
        ret = _lib.twheel_prep_cancel(self._tw, handle,
                                      CANCEL_REPORT if report else 0,
                                      ctypes.byref(self._pending[-1]))
        return self._queued(ret, "twheel_prep_cancel")

    def flush(self):
        """Submit the queue in one batch; the Results are filled in."""
        ret = _check(_lib.twheel_flush(self._tw), "twheel_flush")
        if not _lib.twheel_queued(self._tw):
            self._pending = []
        return ret

    def _now(self, res, what):
        self.flush()
        return _check(res.result, what)

    def arm(self, cookie, expires, **kw):
        """Arm and submit at once; the new timeout's handle."""
        res = self.prep_arm(cookie, expires, **kw)
        self._now(res, "arm")
        return res.handle

    def rearm(self, handle, expires, absolute=False):
        self._now(self.prep_rearm(handle, expires, absolute), "rearm")

    def cancel(self, handle, report=False):
        """Cancel at once: 0, or with @report CANCELLED_ARMED/_QUEUED."""
        return self._now(self.prep_cancel(handle, report), "cancel")

    def events(self):
        """The records that are ready (blocks for the first one unless the
        file was opened with nonblock=True). Copies: they outlive the
        library's buffer."""
        ret = _lib.twheel_fill(self._tw)
        if ret == -errno.EAGAIN:
            return []
        _check(ret, "twheel_fill")
        self._pending = []
        out = []
        ev = _lib.twheel_next_event(self._tw)
        while ev:
            out.append(Event.from_buffer_copy(ev.contents))
            ev = _lib.twheel_next_event(self._tw)
        return out
