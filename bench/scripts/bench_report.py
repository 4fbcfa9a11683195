#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py - turn the bench guest's results into a table, JSON and plots.

Reads the results channel of one `make bench` guest run (bench/scripts/bench-guest.sh
writes one JSON object per line, from twbench and from twheel_bench.ko), and
writes into --out:

  table.txt     the table printed on the terminal: every workload, every peer,
                each figure with its ratio against the best peer that is not
                twheel, and where each goal stands (two tables: twheel
                against its peers, the device path against its wheel);
  results.json  every figure of the run, the goals and the notes;
  *.png         gnuplot plots: cost per operation against pending count, and
                the lateness distributions (needs gnuplot; skipped without it).

Only the standard library is used. Missing workloads or peers (a QUICK run, a
module that did not load) leave gaps, never errors.
"""
import argparse
import datetime
import json
import math
import os
import shutil
import subprocess
import sys

TWHEEL_PREFIX = "twheel"
PEER_ORDER = ["timerfd", "posix", "io_uring-b256", "io_uring-b16",
              "libuv", "libevent", "libevent-common",
              "twheel", "twheel-now", "twheel-b1", "twheel-b16", "twheel-b256", "twheel-shm",
              "twheel-ring",
              "timer_list", "hrtimer", "nanosleep"]


def is_twheel(peer):
    return peer.startswith(TWHEEL_PREFIX)


def peer_key(p):
    base = p.split("(")[0].split("+")[0]
    return (PEER_ORDER.index(base) if base in PEER_ORDER else 99, p)


def fmt_ns(ns):
    if ns is None or (isinstance(ns, float) and math.isnan(ns)):
        return "-"
    if ns >= 1e9:
        return "%.2f s" % (ns / 1e9)
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.2f us" % (ns / 1e3)
    return "%.0f ns" % ns


def fmt_us(us):
    if us is None:
        return "-"
    return fmt_ns(us * 1e3)


def fmt_count(n):
    if n >= 1000000 and n % 1000000 == 0:
        return "%dM" % (n // 1000000)
    if n >= 1000 and n % 1000 == 0:
        return "%dk" % (n // 1000)
    return str(n)


def fmt_ratio(r):
    if r is None:
        return ""
    if r >= 100:
        return "%.0fx" % r
    if r >= 10:
        return "%.1fx" % r
    return "%.2fx" % r


class Table:
    """A plain-text table with a title and right-aligned numeric columns."""

    def __init__(self, title, header, note=None):
        self.title, self.header, self.note, self.rows = title, header, note, []

    def add(self, row):
        self.rows.append([str(c) for c in row])

    def render(self):
        if not self.rows:
            return ""
        cols = len(self.header)
        width = [max(len(self.header[i]), *(len(r[i]) for r in self.rows))
                 for i in range(cols)]
        out = [self.title, "=" * len(self.title)]
        if self.note:
            out.append(self.note)
        line = lambda r: "  ".join(
            (r[i].ljust(width[i]) if i == 0 else r[i].rjust(width[i]))
            for i in range(cols)).rstrip()
        out.append(line(self.header))
        out.append("  ".join("-" * w for w in width))
        out.extend(line(r) for r in self.rows)
        return "\n".join(out) + "\n"


def load(path):
    recs, notes, blocks, done = [], [], {}, False
    cur = None
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if cur is not None:
                if line.startswith("@@ END"):
                    cur = None
                else:
                    blocks[cur].append(line)
                continue
            if line.startswith("{"):
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    notes.append("unparsable result line: " + line[:120])
            elif line.startswith("@@ NOTE "):
                notes.append(line[8:])
            elif line.startswith("@@ BEGIN "):
                cur = line.split(" ", 3)[-1]
                blocks[cur] = []
            elif line.startswith("@@ DONE"):
                done = True
    return recs, notes, blocks, done


def valid(r):
    return not r.get("errors")


def metric_table(recs, workload, title, note, metric="ns_per_op",
                 extra_scaling=False, baseline=None):
    """peer x pending table of a cost metric with ratios vs the best peer."""
    rs = [r for r in recs if r["workload"] == workload]
    if not rs:
        return None, {}
    pendings = sorted({r["pending"] for r in rs})
    peers = sorted({r["peer"] for r in rs}, key=peer_key)
    val = {}
    for r in rs:
        # Repeated passes: keep the best valid one (an error poisons nothing).
        k, v = (r["peer"], r["pending"]), (r.get(metric) if valid(r) else None)
        if k not in val or (v is not None and (val[k] is None or v < val[k])):
            val[k] = v
    best = {}
    for n in pendings:
        cands = [val[(p, n)] for p in peers
                 if (p, n) in val and val[(p, n)] and
                 (baseline(p) if baseline else not is_twheel(p))]
        best[n] = min(cands) if cands else None
    header = ["peer"] + ["%s pending" % fmt_count(n) for n in pendings]
    if extra_scaling and len(pendings) > 1:
        header.append("%s/%s" % (fmt_count(pendings[-1]), fmt_count(pendings[0])))
    t = Table(title, header, note)
    for p in peers:
        row = [p]
        for n in pendings:
            v = val.get((p, n))
            if (p, n) not in val:
                row.append("-")
            elif v is None:
                row.append("ERR")
            else:
                ratio = v / best[n] if best[n] else None
                row.append("%s (%s)" % (fmt_ns(v), fmt_ratio(ratio)) if ratio else fmt_ns(v))
        if extra_scaling and len(pendings) > 1:
            a, b = val.get((p, pendings[0])), val.get((p, pendings[-1]))
            row.append(fmt_ratio(b / a) if a and b else "-")
        t.add(row)
    return t, val


class Figures:
    """The figures the goals read, gathered once from a run's records.

    churn, rearm, cancel, refresh, kchurn, kcancel, krearm: {(peer, pending): ns} (the
    best pass of each); hot: {peer: ns}; mem, acc, idle, two, ex: the records
    of those workloads; tick_ns: twheel's tick in the guest.
    """

    def __init__(self, recs, tick_ns):
        self.recs, self.tick_ns = recs, tick_ns
        self.churn = self.rearm = self.cancel = self.refresh = {}
        self.kchurn = self.kcancel = self.krearm = {}
        self.hot = best_hot(recs)
        self.mem, self.acc, self.idle, self.two = (
            [r for r in recs if r["workload"] == w]
            for w in ("memory", "accuracy", "idle", "twocpu"))
        self.ex = merged_expiry(recs)
        self.baseline = None


# Figures of an expiry record per delivered expiry, and its counts.
EXPIRY_PER = ("proc_cpu_ns_per_expiry", "system_cpu_ns_per_expiry", "syscalls_per_expiry")
EXPIRY_SUMS = ("rounds", "delivered", "early", "duplicates", "errors", "stale", "window_s",
               "twheel_hrtimer_fires")


def merged_expiry(recs):
    """Each peer's expiry records (its rounds) as one: counts added up, the
    per-expiry figures over all of its deliveries."""
    by = {}
    for r in recs:
        if r["workload"] != "expiry":
            continue
        m = by.get(r["peer"])
        if m is None:
            by[r["peer"]] = m = dict(r, rounds=0, delivered=0)
            for k in EXPIRY_PER:
                m[k] = 0.0
            for k in EXPIRY_SUMS[2:]:
                if k in m:
                    m[k] = 0
        n = r["delivered"]
        for k in EXPIRY_PER:
            m[k] = (m[k] * m["delivered"] + r[k] * n) / (m["delivered"] + n) if n else m[k]
        m["rounds"] += r.get("rounds", 1)
        for k in EXPIRY_SUMS[1:]:
            if k in r and k in m:
                m[k] += r[k]
    return list(by.values())


def best_hot(recs):
    hot = {}
    for r in recs:
        if r["workload"] == "hot":
            v = r.get("ns_per_op") if valid(r) else None
            if r["peer"] not in hot or (v is not None and (hot[r["peer"]] is None or v < hot[r["peer"]])):
                hot[r["peer"]] = v
    return hot


def at(d, peer):
    """One peer's figures of a {(peer, pending): ns} map, by pending count."""
    return {n: v for (p, n), v in d.items() if p == peer and v}


def ratios(a, b, limit):
    """a/b at each pending count both have, and whether all are <= limit."""
    rs = {n: a[n] / b[n] for n in sorted(a) if n in b}
    return rs, bool(rs) and all(v <= limit for v in rs.values())


def fmt_rs(rs):
    return ", ".join("%s %s" % (fmt_count(n), fmt_ratio(v)) for n, v in rs.items())


def fmt_rs_sorted(rs):
    return ", ".join("%s %s" % (fmt_count(n), fmt_ratio(v)) for n, v in sorted(rs.items()))


def status(ok, nodata=False):
    return "no data" if nodata else ("met" if ok else "missed")


def outcome(ok, detail, nodata=False, goal=None):
    """What a figure function returns: the status, its figures, and the
    goal's name where the figures change it (None: the table's name)."""
    return {"goal": goal, "status": status(ok, nodata), "detail": detail}


# Figure functions: (figures, bound) -> outcome(), or None to leave the goal
# out of this run's table.

def churn256_vs_timerfd(f, bound):
    tw256, tfd = at(f.churn, "twheel-b256"), at(f.churn, "timerfd")
    if not (tw256 and tfd):
        return outcome(False, "", True, "churn, batches of 256: >= 10x cheaper than timerfd")
    ur = {}
    for peer in ("io_uring-b256", "io_uring-b16"):
        for n, v in at(f.churn, peer).items():
            ur.setdefault(n, v)
    rs = {n: tfd[n] / tw256[n] for n in tw256 if n in tfd}
    ok = all(v >= bound for v in rs.values())
    ru = {n: ur[n] / tw256[n] for n in tw256 if n in ur}
    detail = "timerfd/twheel-b256: " + fmt_rs_sorted(rs)
    if ru:
        detail += "; io_uring/twheel-b256: " + fmt_rs_sorted(ru)
        if 1000 in ru and 100000 in ru:
            ok = ok and ru[100000] > ru[1000] and ru[100000] > 1
    return outcome(ok, detail)


def single_vs_timerfd_sorted(f, bound):
    tws, tfd = at(f.churn, "twheel"), at(f.churn, "timerfd")
    if not (tws and tfd):
        return outcome(False, "", True)
    rs = {n: tws[n] / tfd[n] for n in tws if n in tfd}
    return outcome(all(v <= bound for v in rs.values()), "twheel/timerfd: " + fmt_rs_sorted(rs))


def cancel_growth_three(f, bound):
    parts, ok = [], True
    for label, d, peer in (("ioctl", f.cancel, "twheel"), ("batch 256", f.cancel, "twheel-b256"),
                           ("in kernel", f.kcancel, "twheel")):
        v = at(d, peer)
        if len(v) >= 2:
            lo, hi = min(v), max(v)
            r = v[hi] / v[lo]
            ok = ok and r <= bound
            parts.append("%s: %s/%s = %s" % (label, fmt_count(hi), fmt_count(lo), fmt_ratio(r)))
    if not parts:
        return outcome(False, "", True)
    big = max((n for (p, n) in f.cancel), default=0)
    out = outcome(ok, "; ".join(parts))
    if big < 1000000:
        out["status"] += " (largest run: %s)" % fmt_count(big)
    return out


def refresh_vs_libevent_common(f, bound):
    shm, common = at(f.refresh, "twheel-shm"), at(f.refresh, "libevent-common")
    if not (shm and common):
        return outcome(False, "", True)
    rs, ok = ratios(shm, common, bound)
    out = outcome(ok, "twheel-shm/libevent-common: " + fmt_rs(rs))
    if max(rs, default=0) < 1000000:
        out["status"] += " (largest run: %s)" % fmt_count(max(rs, default=0))
    return out


def ring_vs_read(f, bound):
    v = {r["peer"]: r for r in f.ex}
    ring, read = v.get("twheel-ring"), v.get("twheel-b256")
    if not (ring and read and read.get("system_cpu_ns_per_expiry")):
        return outcome(False, "", True)
    r = ring["system_cpu_ns_per_expiry"] / read["system_cpu_ns_per_expiry"]
    return outcome(r <= bound, "machine CPU per expiry twheel-ring/twheel-b256 %s; system calls per "
                   "expiry %.3f against %.3f" % (fmt_ratio(r), ring["syscalls_per_expiry"],
                                                 read["syscalls_per_expiry"]))


def memory_vs_timerfd(f, bound):
    tm = [r for r in f.mem if is_twheel(r["peer"])]
    if not tm:
        return outcome(False, "", True)
    v = max(r["kernel_bytes_per_timeout"] for r in tm)
    return outcome(v <= bound, "twheel %.0f B/timeout; timerfd %s" % (v, ", ".join(
        "%.0f B" % r["kernel_bytes_per_timeout"] for r in f.mem if r["peer"] == "timerfd") or "-"))


def memory_of_shared_table(f, bound):
    r = next((r for r in f.mem if r["peer"] == "twheel-shm"), None)
    if not r:
        return outcome(False, "", True)
    k = r["kernel_bytes_per_timeout"]
    m = r.get("memcg_kernel_bytes_per_timeout")
    ok = k <= bound and (m is None or m <= bound)
    return outcome(ok, "twheel-shm kernel memory %.0f B, memcg kernel %s per timeout; the shared table "
                   "%.0f B per timeout beside it" % (k, "%.0f B" % m if m is not None else "-",
                                                     r.get("shared_bytes_per_timeout") or 0))


def kernel_vs_timer_list_and_hrtimer(f, bound):
    within, cheaper = bound
    ktw, ktl, khr = at(f.kchurn, "twheel"), at(f.kchurn, "timer_list"), at(f.kchurn, "hrtimer")
    if not (ktw and ktl and khr):
        return outcome(False, "", True,
                       "in the kernel: within 1.2x of timer_list, >= 2x cheaper than hrtimer")
    n = max(n for n in ktw if n in ktl and n in khr)
    a, b = ktw[n] / ktl[n], khr[n] / ktw[n]
    return outcome(a <= within and b >= cheaper,
                   "twheel/timer_list %s, hrtimer/twheel %s" % (fmt_ratio(a), fmt_ratio(b)),
                   goal="in the kernel at %s pending: arm+cancel within 1.2x of timer_list, "
                   ">= 2x cheaper than hrtimer" % fmt_count(n))


def twheel_accuracy(f):
    return [r for r in f.acc if is_twheel(r["peer"])]


def early_deliveries(f, bound):
    twa = twheel_accuracy(f)
    if not twa:
        return outcome(False, "", True, "zero early deliveries; p99 within one tick of timerfd")
    early = sum(r["early"] for r in twa)
    return outcome(early <= bound,
                   "%d early out of %d twheel deliveries (userspace receipt and kernel timestamps)"
                   % (early, sum(r["delivered"] for r in twa)))


def p99_vs_timerfd(f, ticks):
    twa, parts, ok = twheel_accuracy(f), [], True
    for load in sorted({r["load"] for r in twa}):
        tw = [r for r in twa if r["load"] == load and "(kernel)" not in r["peer"]]
        tf = [r for r in f.acc if r["load"] == load and r["peer"] == "timerfd"]
        if tw and tf and f.tick_ns:
            ok = ok and tw[0]["p99_us"] - tf[0]["p99_us"] <= ticks * f.tick_ns / 1e3
            parts.append("%s: twheel %s vs timerfd %s (tick %s)" % (
                load, fmt_us(tw[0]["p99_us"]), fmt_us(tf[0]["p99_us"]), fmt_ns(f.tick_ns)))
    return outcome(ok, "; ".join(parts)) if parts else None


def idle_firings(f, bound):
    ti = [r for r in f.idle if r["peer"].startswith("twheel")]
    if ti and all(r.get("twheel_hrtimer_per_sec") is not None for r in ti):
        v = max(r["twheel_hrtimer_per_sec"] for r in ti)
        return outcome(v <= bound, ", ".join("%s %.2f/s" % (r["peer"], r["twheel_hrtimer_per_sec"])
                                              for r in ti))
    if ti:
        return outcome(False, "twheel's debugfs statistics had no hrtimer firing counter the parser "
                       "recognised", True)
    return outcome(False, "", True)


def batch256_vs_kernel(f, bound):
    rs, ok = ratios(at(f.churn, "twheel-b256"), at(f.kchurn, "twheel"), bound)
    return outcome(ok, "twheel-b256/kernel twheel: " + fmt_rs(rs) + "".join(
        "; %s: %s vs %s" % (fmt_count(n), fmt_ns(f.churn[("twheel-b256", n)]),
                            fmt_ns(f.kchurn[("twheel", n)]))
        for n in rs), not rs)


def single_vs_timerfd(f, bound):
    rs, ok = ratios(at(f.churn, "twheel"), at(f.churn, "timerfd"), bound)
    return outcome(ok, "twheel/timerfd: " + fmt_rs(rs), not rs)


def hot_vs_timerfd(f, bound):
    a, b = f.hot.get("twheel"), f.hot.get("timerfd")
    if not (a and b):
        return outcome(False, "", True)
    return outcome(a / b <= bound, "twheel %s vs timerfd %s per operation: %s" % (
        fmt_ns(a), fmt_ns(b), fmt_ratio(a / b)))


def batch_of_one(f, bound):
    parts, ok = [], True
    for label, d in (("churn", f.churn), ("re-arm", f.rearm), ("cancel", f.cancel)):
        rs, _ = ratios(at(d, "twheel-b1"), at(d, "twheel"), bound)
        ok = ok and all(v <= bound for v in rs.values())
        if rs:
            parts.append("%s %s" % (label, fmt_rs(rs)))
    if f.hot.get("twheel-b1") and f.hot.get("twheel"):
        r = f.hot["twheel-b1"] / f.hot["twheel"]
        ok = ok and r <= bound
        parts.append("hot timer %s" % fmt_ratio(r))
    return outcome(ok, "twheel-b1/twheel: " + "; ".join(parts), not parts)


def memory_with_memcg(f, bound):
    tm = [r for r in f.mem if is_twheel(r["peer"])]
    if not tm:
        return outcome(False, "", True)
    k = max(r["kernel_bytes_per_timeout"] for r in tm)
    m = max((r.get("memcg_kernel_bytes_per_timeout") or 0) for r in tm)
    return outcome(k <= bound and m <= bound,
                   "kernel memory %.0f B, memcg kernel %.0f B per timeout" % (k, m))


def cancel_growth_all(f, bound):
    parts, ok = [], True
    for peer in ("twheel", "twheel-b1", "twheel-b16", "twheel-b256"):
        v = at(f.cancel, peer)
        if len(v) >= 2:
            lo, hi = min(v), max(v)
            ok = ok and v[hi] / v[lo] <= bound
            parts.append("%s %s/%s %s" % (peer, fmt_count(hi), fmt_count(lo), fmt_ratio(v[hi] / v[lo])))
    big = max((n for (p, n) in f.cancel), default=0)
    name = None
    if parts and big < 1000000:
        name = ("cancel at 1M pending <= 1.5x cancel at 1k, single ioctls and batches"
                " (largest run: %s)" % fmt_count(big))
    return outcome(ok, "; ".join(parts), not parts, name)


def kernel_vs_timer_list(f, bound):
    ktw, ktl, ktn = at(f.kchurn, "twheel"), at(f.kchurn, "timer_list"), at(f.kchurn, "twheel-now")
    ns = [n for n in ktw if n in ktl]
    if not ns:
        return outcome(False, "", True)
    n = max(ns)
    detail = "twheel/timer_list at %s: %s (%s vs %s)" % (
        fmt_count(n), fmt_ratio(ktw[n] / ktl[n]), fmt_ns(ktw[n]), fmt_ns(ktl[n]))
    ok = ktw[n] / ktl[n] <= bound
    if n in ktn:
        detail += "; with the caller's clock (twheel_mod): %s (%s)" % (
            fmt_ratio(ktn[n] / ktl[n]), fmt_ns(ktn[n]))
        if not ok and ktn[n] / ktl[n] <= bound:
            ok = True
            detail += ", met that way"
    return outcome(ok, detail, goal="in-kernel arm+cancel <= 1.2x timer_list at %s pending "
                   "(or with the caller's clock)" % fmt_count(n))


def quick_run(envs):
    return next((r.get("quick") for r in envs if r.get("peer") == "guest"), None)


# Each figure as a ratio to timerfd's in the same run, so that a busier host
# in one of the two runs does not count as a change.
def delivery_vs_timerfd(rs):
    v = {r["peer"]: r["proc_cpu_ns_per_expiry"] for r in merged_expiry(rs)}
    return v["twheel-b256"] / v["timerfd"] if v.get("twheel-b256") and v.get("timerfd") else None


def scaling(rs, peer):
    by = {r["threads"]: r["ops_per_sec"] for r in rs
          if r["workload"] == "twocpu" and r["peer"] == peer}
    return by[2] / by[1] if by.get(1) and by.get(2) else None


def scaling_vs_timerfd(rs):
    a, b = scaling(rs, "twheel-b256"), scaling(rs, "timerfd")
    return a / b if a and b else None


def p99_over_timerfd(rs, load):
    def p99(peer):
        return [r["p99_us"] for r in rs if r["workload"] == "accuracy" and r["load"] == load and
                r["peer"] == peer]
    tw, tf = p99("twheel-b256"), p99("timerfd")
    return tw[0] - tf[0] if tw and tf else None


def signed_us(us):
    return ("-" if us < 0 else "") + fmt_us(abs(us))


def against_baseline(f, brecs, bound):
    """The figures compared with the baseline run's: (ok, parts)."""
    parts, ok = [], True
    a, b = delivery_vs_timerfd(f.recs), delivery_vs_timerfd(brecs)
    if a and b:
        ok = ok and a <= bound["delivery"] * b
        parts.append("delivery CPU/expiry vs timerfd %s (baseline %s)" % (fmt_ratio(a), fmt_ratio(b)))
    a, b = scaling_vs_timerfd(f.recs), scaling_vs_timerfd(brecs)
    if a and b:
        ok = ok and a >= bound["scaling"] * b
        parts.append("2-CPU scaling vs timerfd's %s (baseline %s)" % (fmt_ratio(a), fmt_ratio(b)))
    for load in ("light", "stress"):
        a, b = p99_over_timerfd(f.recs, load), p99_over_timerfd(brecs, load)
        if a is not None and b is not None and f.tick_ns:
            # Within one tick of timerfd, or no further off than before plus a tick.
            ok = ok and a <= max(b, 0) + bound["p99_ticks"] * f.tick_ns / 1e3
            parts.append("%s p99 over timerfd %s (baseline %s)" % (load, signed_us(a), signed_us(b)))
    return ok, parts


def no_figure_worse(f, bound):
    parts, ok = [], True
    twa = twheel_accuracy(f)
    early = sum(r["early"] for r in twa)
    if twa:
        ok = ok and early == 0
        parts.append("%d early" % early)
    ti = [r.get("twheel_hrtimer_per_sec") for r in f.idle if r["peer"].startswith("twheel")]
    if ti and all(v is not None for v in ti):
        ok = ok and max(ti) == 0
        parts.append("idle firings %.2f/s" % max(ti))
    base = f.baseline
    if base and quick_run(base.get("env", [])) != quick_run(
            [r for r in f.recs if r["workload"] == "env"]):
        ok = False
        parts.append("baseline is a %s run, this one is not: not compared" %
                     ("QUICK" if quick_run(base.get("env", [])) else "full"))
    elif base:
        bok, bparts = against_baseline(f, base.get("results", []), bound)
        ok, parts = ok and bok, parts + bparts
    else:
        ok = False
        parts.append("no baseline to compare with")
    return outcome(ok, "; ".join(parts), not parts)


# The goals: (goal, figure function, bound).  twheel against its peers:
PEER_GOALS = [
    ("churn, batches of 256: >= 10x cheaper than timerfd, further ahead of io_uring at 100k than at 1k",
     churn256_vs_timerfd, 10),
    ("single-ioctl churn no slower than timerfd_settime", single_vs_timerfd_sorted, 1.0),
    ("cancel cost at 1M pending within 1.5x of 1k", cancel_growth_three, 1.5),
    ("at most 64 bytes of kernel memory per pending timeout", memory_vs_timerfd, 64),
    ("refresh through the shared table <= 0.25x libevent's common-timeout refresh at 1k, 100k, 1M",
     refresh_vs_libevent_common, 0.25),
    ("with the shared table: <= 64 B of kernel memory per pending timeout, the table beside it",
     memory_of_shared_table, 64),
    ("expiries through the ring: machine CPU per expiry <= 0.5x the read() path", ring_vs_read, 0.5),
    ("in the kernel: arm+cancel within 1.2x of timer_list, >= 2x cheaper than hrtimer",
     kernel_vs_timer_list_and_hrtimer, (1.2, 2)),
    ("zero early deliveries", early_deliveries, 0),
    ("p99 lateness within one tick of timerfd's p99", p99_vs_timerfd, 1),
    ("zero twheel hrtimer firings per second when idle", idle_firings, 0),
]

# The device path against the wheel it wraps:
DEVICE_PATH_GOALS = [
    ("batch-256 churn per op <= 1.3x in-kernel twheel arm+cancel per op", batch256_vs_kernel, 1.3),
    ("single-ioctl churn <= 0.75x timerfd_settime", single_vs_timerfd, 0.75),
    ("one hot timer: ARM+CANCEL ioctls <= 1.0x timerfd_settime", hot_vs_timerfd, 1.0),
    ("a batch of one no slower than a single ioctl", batch_of_one, 1.0),
    ("<= 64 B kernel memory per pending timeout (slab and memcg deltas)", memory_with_memcg, 64),
    ("cancel at 1M pending <= 1.5x cancel at 1k, single ioctls and batches", cancel_growth_all, 1.5),
    ("in-kernel arm+cancel <= 1.2x timer_list at 1M pending (or with the caller's clock)",
     kernel_vs_timer_list, 1.2),
    ("no other figure worse (accuracy, idle firings, delivery cost, 2-CPU scaling)", no_figure_worse,
     {"delivery": 1.1, "scaling": 0.9, "p99_ticks": 1}),
]

GOAL_SETS = [
    ("peers", "Goals: twheel against its peers", PEER_GOALS),
    ("device path", "Goals: the device path against the wheel itself", DEVICE_PATH_GOALS),
]


def evaluate(goals, f, set_name):
    """Where each goal of a set stands: a list of {goal, status, detail, set}."""
    out = []
    for name, figure, bound in goals:
        o = figure(f, bound)
        if o is not None:
            out.append({"goal": o["goal"] or name, "status": o["status"],
                        "detail": o["detail"], "set": set_name})
    return out


def header(recs, done, cmd, qemu, tick_ns):
    guest = {r["peer"]: r for r in recs if r["workload"] == "env"}.get("guest", {})
    head = ["twheel benchmark: %s" % cmd,
            "guest: Linux %s, %s vCPUs, %s MB, TCG of %s (emulated: compare the ratios, not the absolute times)"
            % (guest.get("kernel", "?"), guest.get("cpus", "?"),
               (guest.get("mem_kb") or 0) // 1024, qemu),
            "twheel tick: %s" % (fmt_ns(tick_ns) if tick_ns else "module not loaded"),
            "ratio in brackets: this peer's figure / the best non-twheel peer's at the same pending count"
            " (below 1 = cheaper than the best peer)",
            "repeated measurements (passes, in-kernel rounds; peers interleaved): the best one is shown"]
    if not done:
        head.append("WARNING: the guest did not finish; figures below are partial")
    return head


def cost_tables(recs, f):
    """Tables 1, 1b, 2 and K1-K3; fills the cost figures of f."""
    tables = []
    t, f.churn = metric_table(
        recs, "churn", "1. Timeout churn: cost per operation (arm or cancel; 90% cancelled, 10% fire)",
        "   lower is better; twheel = one ioctl per operation, twheel-bN = N operations per TWHEEL_IOC_BATCH")
    tables.append(t)
    t, f.rearm = metric_table(recs, "rearm", "1b. Re-arm (push a pending timeout further out): cost per operation",
                              None)
    tables.append(t)
    t, f.refresh = metric_table(
        recs, "refresh", "1c. Refresh (push an idle timeout out again, to 15 min from now): cost per refresh",
        "   the event-loop libraries servers link (no system call) against the device; twheel-shm stores"
        " into its own entry of the shared table (entries the program picks)")
    tables.append(t)
    t, f.cancel = metric_table(recs, "cancel", "2. Cancel scaling: cost per cancel", None,
                               extra_scaling=True)
    tables.append(t)

    def kb(p):
        return not is_twheel(p)
    t, f.kchurn = metric_table(recs, "kchurn", "K1. In the kernel (twheel_bench.ko): churn (arm + cancel), cost per operation",
                               "   ratio against the better of timer_list and hrtimer; twheel-now = twheel_mod() with the"
                               " caller's clock reading (one ktime_get_ns() per 64 arms)", baseline=kb)
    tables.append(t)
    t, f.kcancel = metric_table(recs, "kcancel", "K2. In the kernel: cost per cancel", None,
                                extra_scaling=True, baseline=kb)
    tables.append(t)
    t, f.krearm = metric_table(recs, "krearm", "K3. In the kernel: cost per re-arm", None, baseline=kb)
    tables.append(t)
    return tables


def hot_table(recs, hot):
    if not hot:
        return None
    nr = max(sum(1 for r in recs if r["workload"] == "hot" and r["peer"] == p) for p in hot)
    pairs = max((r.get("ops", 0) // 2 for r in recs if r["workload"] == "hot"), default=0)
    t = Table("H. One hot timer: one timeout armed for 1 s and cancelled, nothing else pending",
              ["peer", "cost per operation", "vs timerfd"],
              "   %s arm+cancel pairs, best of %d interleaved rounds; twheel = TWHEEL_IOC_ARM + "
              "TWHEEL_IOC_CANCEL, twheel-b1 = the same in batches of one" % (fmt_count(pairs), nr))
    for p in sorted(hot, key=peer_key):
        v = hot[p]
        tfv = hot.get("timerfd")
        t.add([p, fmt_ns(v) if v else "ERR", fmt_ratio(v / tfv) if v and tfv else "-"])
    return t


def batch_of_one_table(f):
    rows = []
    for name, d in (("churn", f.churn), ("re-arm", f.rearm), ("cancel", f.cancel)):
        for n in sorted({n for (p, n) in d}):
            a, b = d.get(("twheel-b1", n)), d.get(("twheel", n))
            if a and b:
                rows.append(("%s, %s pending" % (name, fmt_count(n)), a, b))
    if f.hot.get("twheel-b1") and f.hot.get("twheel"):
        rows.append(("one hot timer", f.hot["twheel-b1"], f.hot["twheel"]))
    if not rows:
        return None
    t = Table("B1. A batch of one against a single ioctl: cost per operation",
              ["workload", "twheel-b1", "twheel", "b1/single"])
    for w, a, b in rows:
        t.add([w, fmt_ns(a), fmt_ns(b), fmt_ratio(a / b)])
    return t


def cgroup_table(recs):
    pr = {r["workload"]: r for r in recs if r["workload"] in ("churn-rootcg", "churn-benchcg")}
    if len(pr) != 2 or not all(valid(r) for r in pr.values()):
        return None
    a, b = pr["churn-rootcg"]["ns_per_op"], pr["churn-benchcg"]["ns_per_op"]
    t = Table("Profile: memory cgroup charging in /dev/twheel (twheel-b256 churn, 1k pending)",
              ["where the process runs", "cost per operation"],
              "   the root cgroup is not charged; the difference is what accounting costs per operation")
    t.add(["root memory cgroup (not charged)", fmt_ns(a)])
    t.add(["bench memory cgroup (charged)", "%s (%s)" % (fmt_ns(b), fmt_ratio(b / a))])
    return t


def primitives_table(recs):
    kp = [r for r in recs if r["workload"] == "kprim"]
    if not kp:
        return None
    t = Table("Primitives on this guest (for reading the in-kernel figures)",
              ["primitive", "cost"], "   measured by twheel_bench.ko in a loop")
    seen = {}
    for r in kp:
        seen[r["peer"]] = min(seen.get(r["peer"], r["ns_per_op"]), r["ns_per_op"])
    for p, v in seen.items():
        t.add([p, fmt_ns(v)])
    return t


def expiry_table(ex):
    if not ex:
        return None
    t = Table("3. Expiry delivery: cost per delivered expiry",
              ["peer", "timeouts", "process CPU", "machine CPU", "syscalls", "delivered", "early"],
              "   rounds x timeouts a round; process CPU: the collecting process (precise); machine CPU:"
              " both CPUs' time over the rounds' windows less their /proc/stat idle time (10 ms units)")
    for r in sorted(ex, key=lambda r: peer_key(r["peer"])):
        t.add([r["peer"], "%d x %d" % (r.get("rounds", 1), r["pending"]),
               fmt_ns(r["proc_cpu_ns_per_expiry"]),
               fmt_ns(r["system_cpu_ns_per_expiry"]), "%.3f" % r["syscalls_per_expiry"],
               r["delivered"], r["early"]])
    return t


def accuracy_table(acc):
    if not acc:
        return None
    t = Table("4. Accuracy: lateness = time the program got the expiry - deadline",
              ["peer", "load", "p50", "p90", "p99", "max", "early", "delivered"],
              "   nanosleep: clock_nanosleep wake-ups, the machine's own latency floor; "
              "(kernel) = twheel's own delivery timestamp")
    for r in sorted(acc, key=lambda r: (r["load"] != "light", peer_key(r["peer"]))):
        t.add([r["peer"], r["load"], fmt_us(r["p50_us"]), fmt_us(r["p90_us"]),
               fmt_us(r["p99_us"]), fmt_us(r["max_us"]), r["early"],
               "%d/%d" % (r["delivered"], r["count"])])
    return t


def memory_table(recs, mem):
    ksz = {r["peer"]: r.get("bytes_per_timeout") for r in recs if r["workload"] == "kchurn"}
    if not (mem or ksz):
        return None
    t = Table("5. Memory per pending timeout",
              ["peer", "pending", "kernel memory", "memcg kernel", "memcg total", "shared"],
              "   kernel memory: /proc/meminfo Slab+KernelStack+PageTables+VmallocUsed+Percpu delta;"
              " memcg: the bench cgroup's memory.stat kernel / memory.current delta;"
              " shared: the table (and ring) mapped from the file, set up before the deltas start")
    for r in sorted(mem, key=lambda r: peer_key(r["peer"])):
        def g(k):
            return ("%.0f B" % r[k]) if r.get(k) is not None else "-"
        t.add([r["peer"], r["pending"], g("kernel_bytes_per_timeout"),
               g("memcg_kernel_bytes_per_timeout"), g("memcg_bytes_per_timeout"),
               g("shared_bytes_per_timeout")])
    for p in sorted((p for p in ksz if p != "twheel-now"), key=peer_key):
        t.add(["%s (in kernel)" % p, "-", "%d B (sizeof)" % ksz[p], "-", "-", "-"])
    return t


def idle_table(idle):
    if not idle:
        return None
    t = Table("6. Idle cost: timer interrupts per second on an otherwise idle guest",
              ["configuration", "LOC interrupts/s", "twheel hrtimer firings/s"],
              "   none = no twheel module, nothing armed (the machine's floor); +1far = one timeout 10 min away")
    for r in idle:
        tw = r.get("twheel_hrtimer_per_sec")
        t.add([r["peer"], "%.1f" % r["loc_per_sec"], "%.2f" % tw if tw is not None else "-"])
    return t


def twocpu_table(two):
    if not two:
        return None
    t = Table("7. Two CPUs: churn throughput, one thread per CPU vs one thread",
              ["peer", "pending", "1 thread ops/s", "2 threads ops/s", "scaling"])
    by = {}
    for r in two:
        by.setdefault(r["peer"], {})[r["threads"]] = r
    for p in sorted(by, key=peer_key):
        one, twot = by[p].get(1), by[p].get(2)
        t.add([p, (one or twot)["pending"],
               "%.0f" % one["ops_per_sec"] if one else "-",
               "%.0f" % twot["ops_per_sec"] if twot else "-",
               fmt_ratio(twot["ops_per_sec"] / one["ops_per_sec"]) if one and twot else "-"])
    return t


def goal_table(title, goals, note=None):
    t = Table(title, ["goal", "status", "figures"], note)
    for g in goals:
        t.add([g["goal"], g["status"], g["detail"]])
    return t


def build(recs, notes, blocks, done, cmd, qemu, baseline=None, baseline_name=None):
    tick_ns = {r["peer"]: r for r in recs if r["workload"] == "env"}.get("twheel", {}).get("tick_ns")
    f = Figures(recs, tick_ns)
    f.baseline = baseline
    tables = cost_tables(recs, f)
    tables += [hot_table(recs, f.hot), batch_of_one_table(f), cgroup_table(recs),
               primitives_table(recs), expiry_table(f.ex), accuracy_table(f.acc),
               memory_table(recs, f.mem), idle_table(f.idle), twocpu_table(f.two)]
    goals, gtables = [], []
    for set_name, title, table in GOAL_SETS:
        gs = evaluate(table, f, set_name)
        goals += gs
        note = None
        if table is DEVICE_PATH_GOALS:
            note = "   baseline for the last goal: %s" % (
                baseline_name or "none given (bench.sh --baseline FILE)")
        gtables.append(goal_table(title, gs, note))
    text = ("\n".join(header(recs, done, cmd, qemu, tick_ns)) + "\n\n" +
            "\n".join(t.render() for t in tables if t) + "\n" +
            "\n".join(t.render() for t in gtables))
    if notes:
        text += "\nNotes from the guest:\n" + "\n".join("  " + n for n in notes) + "\n"
    return text, goals


GP_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
             "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000"]


def gnuplot(script, out_dir):
    gp = shutil.which("gnuplot")
    if not gp:
        return False
    r = subprocess.run([gp], input=script, text=True, cwd=out_dir,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode:
        sys.stderr.write("bench_report: gnuplot failed: %s\n" % r.stderr.strip()[:400])
    return r.returncode == 0


def plot_cost(recs, workloads, title, png, out_dir):
    rs = [r for r in recs if r["workload"] in workloads and valid(r) and r.get("ns_per_op")]
    if not rs:
        return None
    best = {}
    for r in rs:
        label = r["peer"] if len(workloads) == 1 else "%s %s" % (r["peer"], r["workload"])
        k = (label, r["pending"])
        best[k] = min(best.get(k, r["ns_per_op"]), r["ns_per_op"])   # as in the table
    series = {}
    for (label, n), v in best.items():
        series.setdefault(label, []).append((n, v))
    lines = ['set terminal pngcairo size 900,560 font "sans,10"',
             'set output "%s"' % png, 'set title "%s"' % title,
             "set logscale xy", 'set xlabel "pending timeouts"',
             'set ylabel "ns per operation (log)"', "set grid",
             "set key outside right", 'set format x "%.0s%c"', 'set format y "%g"',
             "set offsets graph 0.05, graph 0.05, 0, 0"]
    plots = []
    for i, (label, pts) in enumerate(sorted(series.items(), key=lambda kv: peer_key(kv[0]))):
        name = "$d%d" % i
        lines.append("%s << EOD" % name)
        lines.extend("%d %g" % p for p in sorted(pts))
        lines.append("EOD")
        plots.append('%s using 1:2 with linespoints lw 2 pt 7 lc rgb "%s" title "%s" noenhanced'
                     % (name, GP_COLORS[i % len(GP_COLORS)], label))
    lines.append("plot " + ", ".join(plots))
    return png if gnuplot("\n".join(lines) + "\n", out_dir) else None


def plot_lateness(recs, load, png, out_dir):
    rs = [r for r in recs if r["workload"] == "accuracy" and r["load"] == load and r.get("cdf_us")]
    if not rs:
        return None
    lines = ['set terminal pngcairo size 900,560 font "sans,10"', 'set output "%s"' % png,
             'set title "Lateness distribution (%s load): fraction delivered within x"' % load,
             "set logscale x", 'set xlabel "lateness (us, log)"',
             'set ylabel "cumulative fraction"', "set grid", "set key bottom right",
             "set yrange [0:1]"]
    plots = []
    for i, r in enumerate(sorted(rs, key=lambda r: peer_key(r["peer"]))):
        name = "$l%d" % i
        lines.append("%s << EOD" % name)
        cdf = r["cdf_us"]
        for q, v in enumerate(cdf):
            if v is not None:
                lines.append("%g %g" % (max(v, 0.1), q / (len(cdf) - 1)))
        lines.append("EOD")
        plots.append('%s using 1:2 with lines lw 2 lc rgb "%s" title "%s" noenhanced'
                     % (name, GP_COLORS[i % len(GP_COLORS)], r["peer"]))
    lines.append("plot " + ", ".join(plots))
    return png if gnuplot("\n".join(lines) + "\n", out_dir) else None


DOC_BEGIN = ".. BEGIN GENERATED RESULTS (bench/scripts/bench_report.py --doc; do not edit by hand)"
DOC_END = ".. END GENERATED RESULTS"


def update_doc(doc_path, text, pngs, out_dir, complete):
    """Put the table and the plots of this run between the markers of the doc."""
    img_dir = os.path.join(os.path.dirname(doc_path), "benchmarks")
    os.makedirs(img_dir, exist_ok=True)
    for p in pngs:
        shutil.copy(os.path.join(out_dir, p), os.path.join(img_dir, p))
    body = [DOC_BEGIN, ""]
    if not complete:
        body += [".. warning:: This run did not complete; its figures are partial.", ""]
    body += ["::", ""]
    body += ["    " + l if l else "" for l in text.rstrip("\n").split("\n")]
    body.append("")
    for p in pngs:
        body += [".. image:: benchmarks/%s" % p, "   :alt: %s" % p, ""]
    body.append(DOC_END)
    try:
        with open(doc_path) as f:
            doc = f.read()
    except FileNotFoundError:
        doc = "Benchmarks\n==========\n\n%s\n%s\n" % (DOC_BEGIN, DOC_END)
    if DOC_BEGIN not in doc or DOC_END not in doc:
        doc = doc.rstrip("\n") + "\n\n" + DOC_BEGIN + "\n" + DOC_END + "\n"
    head, rest = doc.split(DOC_BEGIN, 1)
    tail = rest.split(DOC_END, 1)[1]
    with open(doc_path, "w") as f:
        f.write(head + "\n".join(body) + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--cmd", default="make bench")
    ap.add_argument("--qemu", default="QEMU", help="the QEMU that ran the guest (its --version line)")
    ap.add_argument("--doc", help="update this .rst file's generated section and copy the plots beside it")
    ap.add_argument("--baseline", help="results.json of an earlier run: the 'no other figure worse' goal")
    a = ap.parse_args()
    recs, notes, blocks, done = load(a.results)
    baseline = None
    if a.baseline and os.path.exists(a.baseline):
        with open(a.baseline) as f:
            baseline = json.load(f)
    text, goals = build(recs, notes, blocks, done, a.cmd, a.qemu, baseline,
                        "the %s run of %s" % (baseline.get("command", "?"), baseline.get("generated", "?"))
                        if baseline else None)
    os.makedirs(a.out, exist_ok=True)
    pngs = [p for p in (
        plot_cost(recs, ["churn"], "Timeout churn: cost per operation vs pending", "churn.png", a.out),
        plot_cost(recs, ["cancel"], "Cancel: cost per cancel vs pending", "cancel.png", a.out),
        plot_cost(recs, ["rearm"], "Re-arm: cost per operation vs pending", "rearm.png", a.out),
        plot_cost(recs, ["refresh"], "Refresh: cost per refresh vs pending", "refresh.png", a.out),
        plot_cost(recs, ["kchurn", "kcancel"], "In the kernel: churn and cancel vs pending (best round)",
                  "kernel.png", a.out),
        plot_lateness(recs, "light", "lateness-light.png", a.out),
        plot_lateness(recs, "stress", "lateness-stress.png", a.out),
    ) if p]
    with open(os.path.join(a.out, "table.txt"), "w") as f:
        f.write(text)
    doc = {
        "command": a.cmd,
        "qemu": a.qemu,
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "complete": done,
        "env": [r for r in recs if r["workload"] == "env"],
        "results": [r for r in recs if r["workload"] != "env"],
        "goals": goals,
        "notes": notes,
        "debugfs": blocks,
        "plots": pngs,
    }
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    if a.doc:
        update_doc(a.doc, text, pngs, a.out, done)
        # The documented run is the next run's default baseline (bench.sh).
        shutil.copy(os.path.join(a.out, "results.json"),
                    os.path.join(os.path.dirname(a.doc), "benchmarks", "results.json"))
    sys.stdout.write(text)
    if pngs:
        sys.stdout.write("\nplots: %s\n" % ", ".join(os.path.join(a.out, p) for p in pngs))


if __name__ == "__main__":
    main()
