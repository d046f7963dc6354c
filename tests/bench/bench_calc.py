"""dcpicalc against the truth (issue 14): every workload on the in-order
core (board clipper-ev5) at DCPI's default rate (cycles every 60000-64000;
dmiss, l2miss, branchmp every 4000-4400: the four counters, no multiplexing,
whose period scaling overstated cycles by about 9 % with six events),
deterministic runs, each recorded once per seed of the period randomiser
(SEEDS); alphaprof check --calc against the oracle of the same run:
executions within 5/10/15 % (share of cycle samples), unexplained stall
cycles, stall cycles with the oracle's cause, stack error, edge executions
within 10 % (DCPI's figure 9, against the oracle's taken counts); and how
long calc takes (all procedures, JSON).

A number that moves with the seed is a range, not a point: chase's loop
gets about 300 samples at its issue points, and its within-5 % moved
6/98/6 % over seeds 1/2/3 by hand.  So each cell is the range over the
seeds, "min-max (mean)", and the targets are judged on the aggregate of
every workload's cycle samples, pooled over the seeds (the mean), with the
range of the per-seed aggregates and the lowest seed stated beside it.
ALPHAPROF_CALC_SEEDS="1 2" overrides the seeds, ALPHAPROF_CALC_WORKLOADS="chase"
the workloads (a quick look), ALPHAPROF_CALC_JOBS how many recordings run at
once (default 3), ALPHAPROF_CALC_KEEP=DIR keeps each recording's profile and
oracle there, and a later run with the same DIR checks those again instead
of recording anew (so a change to calc is judged on the same recordings:
deterministic runs of the same images would record them byte for byte).
"""
import concurrent.futures
import json
import os
import shutil
import tempfile
import time

from benchlib import Table
from harness import alphaprof, build_path, require

WORKLOADS = os.environ.get("ALPHAPROF_CALC_WORKLOADS", "copy chase branches matmul qsort compress").split()
# repeats for some 10-50 k cycle samples each at the default rate
REPEAT = {"copy": 8, "chase": 1, "branches": 10, "matmul": 30, "qsort": 8, "compress": 16}
EVENTS = "cycles,dmiss,l2miss,branchmp"
SEEDS = [int(s) for s in os.environ.get("ALPHAPROF_CALC_SEEDS", "1 2 3").split()]
JOBS = int(os.environ.get("ALPHAPROF_CALC_JOBS", "3"))
KEEP = os.environ.get("ALPHAPROF_CALC_KEEP")
# check --calc's keys, scaled to per cent, in the table's order
METRICS = [("freq_within_5", "within 5 %"), ("freq_within_10", "within 10 %"), ("freq_within_15", "within 15 %"),
           ("unexplained_share", "unexplained %"), ("cause_agreement", "cause agreement %"),
           ("stack_error", "stack error %"), ("edge_within_10", "edges within 10 %")]


def span(xs, f="%.3g"):
    """A range over the seeds: "min-max (mean)", or the one value."""
    if len(set(f % x for x in xs)) == 1:
        return f % xs[0]
    return (f + "-" + f + " (" + f + ")") % (min(xs), max(xs), sum(xs) / len(xs))


def measure(d, w, seed):
    db, orc = os.path.join(d, "%s-%d.db" % (w, seed)), os.path.join(d, "%s-%d.oracle" % (w, seed))
    if d == KEEP and os.path.exists(db) and os.path.exists(orc):
        return check(w, seed, db, orc)      # (the oracle is written when the run has ended)
    img = require(build_path("workloads", w + ".elf"))
    r = alphaprof(["record", "--deterministic", "--board", "clipper-ev5", "--seed", str(seed), "--db", db,
                   "--oracle", orc, "--events", EVENTS, "--timeout", "1800", img, "--", str(REPEAT[w])],
                  timeout=1900)
    if r.status != 0:
        raise RuntimeError("record failed:\n%s" % r)
    c = check(w, seed, db, orc)
    for f in os.listdir(d) if d != KEEP else []:
        if f.startswith("%s-%d." % (w, seed)):
            os.unlink(os.path.join(d, f))
    return c


def check(w, seed, db, orc):
    c = json.loads(alphaprof(["check", "--calc", "--db", db, "--oracle", orc, "--json"]).out)
    start = time.time()
    alphaprof(["calc", "--db", db, "--summary", "--json"])
    c["calc_s"] = time.time() - start
    print("bench_calc: %s seed %d: %s" % (w, seed, json.dumps(c)), flush=True)    # (each as it comes)
    return c


def run(build):
    t = Table("calc_accuracy", "alphaprof calc (dcpicalc) against the oracle: in-order core, DCPI's default rate, "
              "seeds %s" % "/".join(map(str, SEEDS)),
              ["workload", "cycle samples"] + [m[1] for m in METRICS] + ["calc s"])
    d = KEEP or tempfile.mkdtemp(prefix="alphaprof-bench-calc-")
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
    got = {}                                    # (workload, seed) -> check --calc's JSON
    try:
        # the recordings side by side, JOBS at a time (each is one model
        # thread; deterministic runs do not depend on the host's speed)
        runs = [(w, s) for w in WORKLOADS for s in SEEDS]
        with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
            for (w, s), c in zip(runs, ex.map(lambda ws: measure(d, *ws), runs)):
                got[w, s] = c
        for w in WORKLOADS:
            cs = [got[w, s] for s in SEEDS]
            t.add(w, span([c["samples"] for c in cs], "%.0f"), *[span([100 * c[k] for c in cs]) for k, _ in METRICS],
                  "%.3g" % max(c["calc_s"] for c in cs))
    finally:
        if not KEEP:
            shutil.rmtree(d, ignore_errors=True)
    keys = ("freq_within_5", "freq_within_10", "freq_within_15")

    def pooled(seeds):
        n = sum(got[w, s]["samples"] for w in WORKLOADS for s in seeds) or 1
        return [100 * sum(got[w, s]["samples"] * got[w, s][k] for w in WORKLOADS for s in seeds) / n for k in keys]
    mean = pooled(SEEDS)
    per_seed = {s: pooled([s]) for s in SEEDS}
    goal = (85, 95, 98)
    ok = lambda v: all(x >= g for x, g in zip(v, goal))
    lo = min(SEEDS, key=lambda s: (ok(per_seed[s]), per_seed[s][0]))
    ranges = " / ".join("%.0f-%.0f" % (min(per_seed[s][i] for s in SEEDS), max(per_seed[s][i] for s in SEEDS))
                        for i in range(3))
    t.target("executions within 5/10/15 %% (all workloads' cycle samples, pooled over seeds %s; the per-seed "
             "aggregates %s)" % ("/".join(map(str, SEEDS)), ranges),
             "%.0f/%.0f/%.0f %%" % tuple(mean), "85/95/98 % (DCPI: 73/87/92)", ok(mean))
    t.target("the same, on the worst seed (%d)" % lo, "%.0f/%.0f/%.0f %%" % tuple(per_seed[lo]),
             "85/95/98 %", ok(per_seed[lo]))
    worst_u = 100 * max(c["unexplained_share"] for c in got.values())
    t.target("unexplained stall cycles, worst workload and seed", "%.1f %%" % worst_u, "<= 5 % (DCPI: 8.6)",
             worst_u <= 5)
    worst_a = 100 * min(c["cause_agreement"] for c in got.values())
    t.target("stall cycles with the oracle's cause, worst workload and seed", "%.1f %%" % worst_a, ">= 85 %",
             worst_a >= 85)
    edges = sum(c["edge_executions"] for c in got.values()) or 1
    edges_in = sum(c["edge_executions"] * c["edge_within_10"] for c in got.values())
    by_seed = "; ".join("%s %s" % (w, "/".join("%.1f" % (100 * got[w, s]["freq_within_5"]) for s in SEEDS))
                        for w in WORKLOADS)
    seeds = "/".join(map(str, SEEDS))
    t.notes = ("Cells: the range over seeds %s of record --seed (the period randomiser), min-max (mean). "
               "Within 5 %% by seed: %s. Edge executions within 10 %% of the oracle's, all workloads and seeds: "
               "%.0f %% (DCPI: 58 %%; no goal). " % (seeds, by_seed, 100 * edges_in / edges) +
               "check --calc (host-tools/util/calc-accuracy.h): executions against the oracle's retired counts "
               "of the profiled interval, weighted by cycle samples; causes against the oracle's exact TIP "
               "cycle stacks per instruction (a mispredict's bubble is the branch's in both); edges against "
               "the oracle's taken counts (a conditional branch's two ways; a block's one way out), "
               "weighted by their executions (from flow constraints here: no ProfileMe). calc s: the slowest "
               "alphaprof calc --summary --json over every procedure of the profile (its work is per "
               "instruction, not per sample).")
    return [t]
