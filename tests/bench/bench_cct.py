"""Calling context trees (issue 15): what `alphaprof instrument --cct`
costs in modelled cycles (the profiled interval, FILE.2 minus FILE.1, of
deterministic runs of the original and the instrumented image measured side
by side under the same timer profile), and whether its call counts equal
the model's exact calling context tree (check --cct: cct_count_error 0).
"""
import json
import os
import shutil
import tempfile

from benchlib import Table
from harness import alphaprof, build_path, require

WORKLOADS = [("qsort", []), ("listmark", []), ("matmul", []), ("compress", []), ("drystone", [])]


def cycles(oracle):
    r = alphaprof(["check", "--oracle", oracle, "--totals", "--json"])
    if r.status != 0:
        raise RuntimeError("check --totals failed:\n%s" % r)
    return json.loads(r.out)["cycles"]


def record(d, name, img, args):
    oracle, db = os.path.join(d, name + ".o"), os.path.join(d, name + ".db")
    r = alphaprof(["record", "--board", "clipper-pm", "--deterministic", "--timeout", "1500", "--oracle", oracle,
                   "--db", db, img, "--"] + args, timeout=1600)
    if r.status != 0:
        raise RuntimeError("record failed:\n%s" % r)
    return oracle, db


def run(build):
    t = Table("cct_overhead", "Calling context tree instrumentation: cost in modelled cycles, and exactness",
              ["workload", "calls", "contexts", "cycles, original", "cycles, --cct", "overhead %",
               "cct_count_error"])
    d = tempfile.mkdtemp(prefix="bench-cct-")
    worst, all_exact = 0.0, True
    try:
        for name, args in WORKLOADS:
            orig = require(build_path("workloads", name + ".elf"))
            inst = os.path.join(d, name + "-cct.elf")
            r = alphaprof(["instrument", "--cct", orig, "-o", inst])
            if r.status != 0:
                raise RuntimeError("instrument failed:\n%s" % r)
            o0, _ = record(d, name, orig, args)
            o1, db1 = record(d, name + "-cct", inst, args)
            c0, c1 = cycles(o0), cycles(o1)
            r = alphaprof(["check", "--cct", "--db", db1, "--oracle", o1, "--json"])
            if r.status != 0:
                raise RuntimeError("check --cct failed:\n%s" % r)
            j = json.loads(r.out)
            over = 100.0 * (c1 - c0) / c0
            worst = max(worst, over)
            all_exact &= j["cct_count_error"] == 0
            t.add(name, j["calls_oracle"], j["contexts_oracle"], c0, c1, over, j["cct_count_error"])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.target("cct_count_error on every workload", 0 if all_exact else 1, "0", all_exact)
    t.target("largest overhead, modelled cycles", "%.0f %%" % worst, "<= 40 %", worst <= 40)
    t.notes = ("Each call goes through a trampoline of about 60 instructions (two PMU reads, a shadow frame, "
               "the record's count and inclusive metrics; firmware/abi/cct-region.h), so the overhead grows "
               "with the call rate: workloads whose procedures are a few dozen instructions long pay several "
               "times their own cost.")
    return [t]
