#!/usr/bin/env python3
"""Layering rules of firmware/, checked from the sources.

A module is a file name without its extension: firmware/kernel/run.c and
firmware/kernel/run.h are the module firmware/kernel/run.  Module A uses
module B when a file of A includes a header of B (quoted includes, found
from the repository root or, for "board.h", in boards/BOARD/).  Two rules:

1. No include cycles: the "uses" graph of the firmware has no cycle, so
   every module can be read, tested and changed knowing only the modules
   below it.
2. A header declares its own module's functions only: every function a
   firmware header declares is defined in that module's .c or .S file.
   (A header that declares another module's functions hides a call cycle
   from rule 1: that is how the profiler and control.c once called each
   other.)

    python3 tests/firmware_layers.py [ROOT]   # prints what breaks a rule; exit 1 if any
"""
import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A function prototype at file level: return type, name, parameters, ';'.
PROTO_RE = re.compile(r'^(?!\s)(?!static\b)(?!typedef\b)(?!#)(?!extern\s+"C")[A-Za-z_][\w \t\*]*?\b(\w+)\s*\(([^;{}]*)\)\s*'
                      r'(?:__attribute__\s*\(\(.*?\)\)\s*)?;', re.M | re.S)
DEF_C_RE = r'^(?!\s)(?!static\b)[A-Za-z_][\w \t\*]*?\b%s\s*\([^;]*?\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?\{'
DEF_S_RE = r'^\s*%s\s*:'
SOURCE_EXT = (".c", ".h", ".S")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def module_of(path):
    return os.path.splitext(path)[0]


def firmware_files(root):
    out = []
    for d, _, files in os.walk(os.path.join(root, "firmware")):
        for f in files:
            if f.endswith(SOURCE_EXT):
                out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def resolve(root, name):
    """The repository path a quoted include names, or None (system, generated)."""
    if os.path.exists(os.path.join(root, name)):
        return name
    if name == "board.h":               # -Iboards/$(BOARD): any board's counts
        return "boards/BOARD/board.h"
    return None


def uses_graph(root):
    """{module: set of modules it includes}, firmware modules only as sources."""
    graph = {}
    for path in firmware_files(root):
        with open(os.path.join(root, path), errors="replace") as f:
            text = strip_comments(f.read())
        me = module_of(path)
        deps = graph.setdefault(me, set())
        for name in INCLUDE_RE.findall(text):
            target = resolve(root, name)
            if target and module_of(target) != me:
                deps.add(module_of(target))
    return graph


def cycles(graph):
    """Every strongly connected component with more than one module (Tarjan),
    each as a sorted list, plus one concrete cycle through it."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return [(comp, one_cycle(graph, comp)) for comp in out]


def one_cycle(graph, comp):
    """A path start -> ... -> start inside the component."""
    members, start = set(comp), comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def foreign_declarations(root):
    """[(header, function)]: functions a firmware header declares that its
    own module's .c/.S does not define."""
    found = []
    files = firmware_files(root)
    for header in (p for p in files if p.endswith(".h")):
        with open(os.path.join(root, header), errors="replace") as f:
            text = strip_comments(f.read())
        names = [m.group(1) for m in PROTO_RE.finditer(text)]
        if not names:
            continue
        base = module_of(header)
        bodies = []
        for ext in (".c", ".S"):
            p = os.path.join(root, base + ext)
            if os.path.exists(p):
                with open(p, errors="replace") as f:
                    bodies.append((ext, strip_comments(f.read())))
        for name in names:
            defined = any(re.search((DEF_C_RE if ext == ".c" else DEF_S_RE) % re.escape(name), body, re.M | re.S)
                          for ext, body in bodies)
            if not defined:
                found.append((header, name))
    return found


def problems(root):
    out = []
    for comp, path in cycles(uses_graph(root)):
        out.append("include cycle among %s: %s" % (", ".join(comp), " -> ".join(path)))
    for header, name in foreign_declarations(root):
        out.append("%s declares %s(), which %s.c does not define: declare it in its own module's "
                   "header" % (header, name, module_of(header)))
    return out


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = problems(root)
    for p in found:
        print(p)
    if not found:
        print("firmware layering: no include cycles, every header declares its own module's functions")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
