"""Paths per calling context (issue 15, `alphaprof instrument --both`):
what counting every Ball-Larus path in the call record of its context costs
in modelled cycles, beside what --paths and --cct alone cost on the same
workloads in the same run, and whether the counts equal the model's exact
truth (check --paths: path_count_error and context_path_error 0; check
--cct: cct_count_error 0).

The cost is the workload's own time, as bench_cct.py measures it: the
oracle's cycles of every user-mode PC (the image and its trampolines) from
deterministic runs of the original and each instrumented image.  The
issue's target for flow and context sensitive profiles with metrics
(<= 60 %) is for --both --metrics (cct-region.h note 16), measured beside:
its counts must stay exact too, and its metrics per (context, path) are
checked against the model's (context_path_metric_error).
"""
import json
import os
import shutil
import tempfile

from bench_cct import record, user_cycles
from benchlib import Table
from harness import alphaprof, build_path, require

# The --paths bench's and the --cct bench's costliest workloads.
WORKLOADS = [("branches", []), ("qsort", []), ("drystone", [])]


def instrumented(d, name, args, mode, extra=()):
    orig = require(build_path("workloads", name + ".elf"))
    mode = "-".join([mode] + [x.strip("-") for x in extra])
    inst = os.path.join(d, "%s-%s.elf" % (name, mode))
    r = alphaprof(["instrument", "--" + mode.split("-")[0]] + list(extra) + [orig, "-o", inst])
    if r.status != 0:
        raise RuntimeError("instrument failed:\n%s" % r)
    o, db = record(d, name + "-" + mode, inst, args)
    return user_cycles(o), o, db


def check(what, db, oracle):
    r = alphaprof(["check", what, "--db", db, "--oracle", oracle, "--json"])
    if r.status != 0:
        raise RuntimeError("check %s failed:\n%s" % (what, r))
    return json.loads(r.out)


def run(build):
    t = Table("both_overhead", "Paths per calling context (`--both`, counts, and `--both --metrics`): cost in "
              "modelled cycles beside `--paths` and `--cct` alone, and exactness",
              ["workload", "path executions", "of them in a context", "contexts", "user cycles, original",
               "--paths %", "--cct %", "--both %", "--both --metrics %", "path_count_error", "context_path_error",
               "cct_count_error", "--metrics: context_path_error",
               "--metrics: context_path_metric_error cycles", "--metrics: context_path_metric_error dmiss",
               "--metrics: path_metric_error cycles"])
    d = tempfile.mkdtemp(prefix="bench-both-")
    worst, worst_m, all_exact, worst_err = 0.0, 0.0, True, 0.0
    overs_m = []
    try:
        for name, args in WORKLOADS:
            orig = require(build_path("workloads", name + ".elf"))
            o0, _ = record(d, name, orig, args)
            c0 = user_cycles(o0)
            cp, _, _ = instrumented(d, name, args, "paths")
            cc, _, _ = instrumented(d, name, args, "cct")
            cb, ob, dbb = instrumented(d, name, args, "both")
            cm, om, dbm = instrumented(d, name, args, "both", ("--metrics",))
            jp, jc = check("--paths", dbb, ob), check("--cct", dbb, ob)
            jm = check("--paths", dbm, om)
            over = [100.0 * (c - c0) / c0 for c in (cp, cc, cb, cm)]
            worst, worst_m = max(worst, over[2]), max(worst_m, over[3])
            overs_m.append(over[3])
            all_exact &= jp["path_count_error"] == 0 and jp["context_path_error"] == 0 and jc["cct_count_error"] == 0
            all_exact &= jm["path_count_error"] == 0 and jm["context_path_error"] == 0
            cme = jm["context_path_metric_error"]
            worst_err = max(worst_err, cme["cycles"], cme["dmiss"])
            t.add(name, jp["instrumented"]["paths_profile"], jp["contexts"]["paths_profile"], jc["contexts_oracle"],
                  c0, over[0], over[1], over[2], over[3], jp["path_count_error"], jp["context_path_error"],
                  jc["cct_count_error"], jm["context_path_error"], cme["cycles"], cme["dmiss"],
                  jm["path_metric_error"]["cycles"])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.target("path_count_error, context_path_error (counts and --metrics) and cct_count_error on every workload",
             0 if all_exact else 1, "0", all_exact)
    t.target("largest context_path_metric_error, --both --metrics (cycles or dmiss per (context, path) against "
             "the model's, check --paths)", "%.4f" % worst_err, "(none; --paths --metrics' path_metric_error "
             "<= 0.10)", worst_err <= 0.10)
    t.target("largest overhead, --both counts, modelled cycles", "%.0f %%" % worst, "(none for counts)", True)
    t.target("largest overhead, --both --metrics, modelled cycles", "%.0f %%" % worst_m, "<= 60 %",
             worst_m <= 60.0)
    # the seed's overheads are means over SPEC95's programs: the same measure here
    mean_m = sum(overs_m) / len(overs_m)
    t.target("mean overhead, --both --metrics, modelled cycles (the seed's Context and HW: 60 %, Context and Flow: "
             "70 %, on average)", "%.1f %%" % mean_m, "<= 60 %", mean_m <= 60.0)
    t.notes = ("--both (firmware/abi/cct-region.h notes 10-17) is --cct's counting trampolines (a leaf's call also k"
               "eeps the leaf's record in the core's leaf_rec) and --paths' counting trampolines, each activation fi"
               "nding its counters' base once at its procedure's entry (its call record's counters when the record c"
               "urrent is its procedure's, else the context-free ones; a cmoveq, no branch) and keeping it where --p"
               "aths keeps its counters' address (path-region.h note 13), so a path's count is --paths' count and --"
               "paths' loops in registers and frame mode apply (branches, nearly no calls: as --paths; was 62.9 % wh"
               "en each count tested the record); a procedure with one path an activation counts in the record at it"
               "s exit, context-free out of line.  What is left: the calls (--cct's cost) and each activation's look"
               "up at the entry.  --both --metrics (cct-region.h note 16) adds --paths --metrics' PMU reads at each "
               "path's start and end and 32-byte slots; kept leaves keep the metered slots' base the same way, other"
               " metered procedures still test the record at each count; its per-context metrics go to the host as C"
               "CT_PATHS_METERED frames (link protocol 8) and to cct_path_counts.cycles and .event (schema 12), chec"
               "ked against the model's per-context deltas (FILE.cctpaths version 2): context_path_metric_error = su"
               "m over (context, procedure, path) of |instrumented - truth| / sum truth, the same windows as --paths"
               " --metrics' path_metric_error.")
    return [t]
