#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kmod-calls.py - which files of twheel.ko call each other.

Reads the symbols of the module's objects in a build directory (nm: what
each object defines and what it needs) and finds the groups of files that
call each other, directly or round a longer loop.  Two such pairs are the
design: expire.c with wheel.c (the expiry side and the arm/cancel side of
the wheel) and dev_file.c with dev_read.c (a device timeout and its expiry
record); their top comments say so.  Any other group fails.

Usage: scripts/kmod-calls.py BUILD_DIR/kmod   (after a module build)
Prints every call between files (--all) or only the groups; exit 1 on a
group that is not allowed, 2 when there are no objects.
"""
import collections
import glob
import os
import subprocess
import sys

ALLOWED = [{"expire.o", "wheel.o"}, {"dev_file.o", "dev_read.o"}]
NOT_MODULE = ("twheel.o", "twheel.mod.o", "trace.o")


def symbols(obj):
    """(functions and data defined, symbols needed) of one object."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, needed = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "TDBR":
            defined.add((f[2], f[1] == "T"))
        elif len(f) == 2 and f[0] == "U":
            needed.add(f[1])
    return defined, needed


def call_graph(objs):
    """{caller: {callee: [functions]}} between the objects (calls only)."""
    info = {o: symbols(o) for o in objs}
    funcs = {o: {n for n, is_fn in d if is_fn} for o, (d, _) in info.items()}
    graph = collections.defaultdict(dict)
    for a in objs:
        for b in objs:
            called = sorted(info[a][1] & funcs[b]) if a != b else []
            if called:
                graph[a][b] = called
    return graph


def groups(graph, objs):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in objs:
        if v not in index:
            visit(v)
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--all"]
    if len(args) != 1:
        sys.exit(__doc__.split("\n\n")[2])
    objs = sorted(o for o in glob.glob(os.path.join(args[0], "*.o"))
                  if os.path.basename(o) not in NOT_MODULE and "kunit" not in o
                  and "example" not in o and not o.endswith(".mod.o"))
    if not objs:
        print("kmod-calls: no objects in %s: build the module first" % args[0], file=sys.stderr)
        return 2
    graph = call_graph(objs)
    name = os.path.basename
    if "--all" in sys.argv:
        for a in sorted(graph):
            for b, fns in sorted(graph[a].items()):
                print("%s -> %s: %s" % (name(a), name(b), " ".join(fns)))
    bad = 0
    for comp in groups(graph, objs):
        names = {name(o) for o in comp}
        allowed = names in ALLOWED
        print("%s call each other%s" % (" ".join(sorted(names)), "" if allowed else ": not allowed"))
        for a in sorted(comp):
            for b in sorted(comp):
                if b in graph.get(a, {}):
                    print("  %s -> %s: %s" % (name(a), name(b), " ".join(graph[a][b])))
        bad += not allowed
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
