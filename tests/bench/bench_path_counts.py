"""Ball-Larus path profiling (issue 15 item 2): what `alphaprof instrument
--paths` costs in modelled cycles, and whether its path counts equal the
model's exact ones (check --paths: path_count_error 0).

The cost is the workload's own time, measured as bench_cct does: the
oracle's cycles of every user-mode PC (the image and its trampolines),
from deterministic runs of the original and the instrumented image side
by side under the same timer profile.
"""
import json
import os
import shutil
import tempfile

from bench_cct import record, user_cycles
from benchlib import Table
from harness import alphaprof, build_path, require

WORKLOADS = [("branches", []), ("qsort", [])]


def run(build):
    t = Table("path_counts_overhead", "Ball-Larus path instrumentation: cost in modelled cycles, and exactness",
              ["workload", "path executions", "distinct paths", "user cycles, original", "user cycles, --paths",
               "overhead %", "path_count_error", "procedures left alone that ran"])
    d = tempfile.mkdtemp(prefix="bench-paths-")
    worst, all_exact = 0.0, True
    try:
        for name, args in WORKLOADS:
            orig = require(build_path("workloads", name + ".elf"))
            inst = os.path.join(d, name + "-paths.elf")
            r = alphaprof(["instrument", "--paths", orig, "-o", inst])
            if r.status != 0:
                raise RuntimeError("instrument failed:\n%s" % r)
            o0, _ = record(d, name, orig, args)
            o1, db1 = record(d, name + "-paths", inst, args)
            c0, c1 = user_cycles(o0), user_cycles(o1)
            r = alphaprof(["check", "--paths", "--db", db1, "--oracle", o1, "--json"])
            if r.status != 0:
                raise RuntimeError("check --paths failed:\n%s" % r)
            j = json.loads(r.out)
            i = j["instrumented"]
            over = 100.0 * (c1 - c0) / c0
            worst = max(worst, over)
            all_exact &= j["path_count_error"] == 0
            t.add(name, i["paths_truth"], i["distinct_truth"], c0, c1, over, j["path_count_error"],
                  i["procedures_left_alone_run"])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.target("path_count_error on every workload", 0 if all_exact else 1, "0", all_exact)
    t.target("largest overhead, modelled cycles", "%.0f %%" % worst, "<= 30 %", worst <= 30)
    t.notes = ("Increments sit on spanning-tree chords weighted so that they fall where code is there anyway "
               "(ball-larus.h note 4); the path register is kept per procedure where it costs least "
               "(firmware/abi/path-region.h note 2): nowhere when every exit's number is known, in a "
               "temporary a leaf never names, in a callee-saved register a procedure with calls never names "
               "(pushed at entry, popped at exit), in memory only when none is left; trampolines work in "
               "registers dead where they run (util/liveness.c).  What is left is mostly finding the core's "
               "region from sp at each count (6 instructions) and the two branches to and from a trampoline.")
    return [t]
