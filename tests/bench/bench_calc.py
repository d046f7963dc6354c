"""dcpicalc against the truth (issue 14): every workload on the in-order
core (board clipper-ev5) at DCPI's default rate (cycles every 60000-64000;
dmiss, l2miss, branchmp every 4000-4400: the four counters, no multiplexing,
whose period scaling overstated cycles by about 9 % with six events),
deterministic runs; alphaprof check --calc against the oracle:
executions within 5/10/15 % (share of cycle samples), unexplained stall
cycles, stall cycles with the oracle's cause, stack error, edge executions
within 10 % (DCPI's figure 9, against the oracle's taken counts); and how
long calc takes (all procedures, JSON).

DCPI judged its estimates on profiles of three runs of each program
(SOSP 97, section 6.6): each workload here is recorded once per seed of
the period randomiser (SEEDS), one after another into one database, each
run an epoch of its own; its row is the profile of all of them (check
--calc --epoch all with every run's oracle, their truths summed), and the
targets are judged on those rows' cycle samples pooled.  A single run's
profile moves with the seed (chase's loop gets about 300 samples at its
issue points: within-5 % moved 6/98/6 % over seeds 1/2/3 by hand), so
each run is also checked alone: the range over the seeds, "min-max
(mean)", and the aggregate of those single-run profiles beside it.
ALPHAPROF_CALC_SEEDS="1 2" overrides the seeds, ALPHAPROF_CALC_WORKLOADS="chase"
the workloads (a quick look), ALPHAPROF_CALC_JOBS how many workloads record at
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


def measure(d, w):
    """Records w once per seed into one database, each run in an epoch of
    its own (epoch k: seed SEEDS[k-1]), and checks each run's profile and
    the three runs' profile (--epoch all, every run's oracle: DCPI's
    profiles were of three runs of each program).  {seed: JSON, "runs": JSON}."""
    db = os.path.join(d, "%s.db" % w)
    orcs = [os.path.join(d, "%s-%d.oracle" % (w, s)) for s in SEEDS]
    if not (d == KEEP and os.path.exists(db) and all(os.path.exists(o) for o in orcs)):
        for f in os.listdir(d):
            if f.startswith(w + ".db") or f.startswith(w + "-"):
                os.unlink(os.path.join(d, f))
        img = require(build_path("workloads", w + ".elf"))
        for k, (seed, orc) in enumerate(zip(SEEDS, orcs)):
            if k:
                alphaprof(["db", "new-epoch", "--db", db, "--note", "seed %d" % seed])
            r = alphaprof(["record", "--deterministic", "--board", "clipper-ev5", "--seed", str(seed), "--db", db,
                           "--oracle", orc, "--events", EVENTS, "--timeout", "1800", img, "--", str(REPEAT[w])],
                          timeout=1900)
            if r.status != 0:
                raise RuntimeError("record failed:\n%s" % r)
    got = {s: check(w, "seed %d" % s, db, ["--epoch", str(k + 1)], [orc]) for k, (s, orc) in enumerate(zip(SEEDS, orcs))}
    got["runs"] = check(w, "runs %s" % "/".join(map(str, SEEDS)), db, ["--epoch", "all"], orcs)
    if d != KEEP:
        for f in os.listdir(d):
            if f.startswith(w + ".db") or f.startswith(w + "-"):
                os.unlink(os.path.join(d, f))
    return got


def check(w, what, db, epoch, orcs):
    c = json.loads(alphaprof(["check", "--calc", "--db", db, "--json"] + epoch +
                             [a for o in orcs for a in ("--oracle", o)]).out)
    start = time.time()
    alphaprof(["calc", "--db", db, "--summary", "--json"] + epoch)
    c["calc_s"] = time.time() - start
    print("bench_calc: %s %s: %s" % (w, what, json.dumps(c)), flush=True)    # (each as it comes)
    return c


def run(build):
    seeds = "/".join(map(str, SEEDS))
    t = Table("calc_accuracy", "alphaprof calc (dcpicalc) against the oracle: in-order core, DCPI's default rate, "
              "profiles of %d runs (seeds %s), as DCPI's" % (len(SEEDS), seeds),
              ["workload", "cycle samples"] + [m[1] for m in METRICS] + ["calc s", "one run: within 5 %",
                                                                          "one run: within 10 %"])
    d = KEEP or tempfile.mkdtemp(prefix="alphaprof-bench-calc-")
    if KEEP:
        os.makedirs(KEEP, exist_ok=True)
    got = {}                                    # workload -> {seed: JSON, "runs": JSON}
    try:
        # workloads side by side, JOBS at a time (each run is one model
        # thread; deterministic runs do not depend on the host's speed);
        # one workload's runs one after another into its database
        with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
            for w, c in zip(WORKLOADS, ex.map(lambda w: measure(d, w), WORKLOADS)):
                got[w] = c
        for w in WORKLOADS:
            c, one = got[w]["runs"], [got[w][s] for s in SEEDS]
            t.add(w, "%.0f" % c["samples"], *["%.3g" % (100 * c[k]) for k, _ in METRICS],
                  "%.3g" % max(x["calc_s"] for x in one + [c]),
                  span([100 * x["freq_within_5"] for x in one]), span([100 * x["freq_within_10"] for x in one]))
    finally:
        if not KEEP:
            shutil.rmtree(d, ignore_errors=True)
    keys = ("freq_within_5", "freq_within_10", "freq_within_15")

    def pooled(which):
        cs = [got[w][x] for w in WORKLOADS for x in which]
        n = sum(c["samples"] for c in cs) or 1
        return [100 * sum(c["samples"] * c[k] for c in cs) / n for k in keys]
    runs = pooled(["runs"])
    one = pooled(SEEDS)
    per_seed = {s: pooled([s]) for s in SEEDS}
    goal = (85, 95, 98)
    ok = lambda v: all(x >= g for x, g in zip(v, goal))
    lo = min(SEEDS, key=lambda s: (ok(per_seed[s]), per_seed[s][0]))
    t.target("executions within 5/10/15 %% (every workload's profile of runs %s, cycle samples pooled)" % seeds,
             "%.0f/%.0f/%.0f %%" % tuple(runs), "85/95/98 % (DCPI: 73/87/92)", ok(runs))
    t.target("the same from one run's profile (each seed's, pooled; the worst seed, %d: %.0f/%.0f/%.0f %%)"
             % ((lo,) + tuple(per_seed[lo])), "%.0f/%.0f/%.0f %%" % tuple(one), "85/95/98 %", ok(one))
    every = [c for w in WORKLOADS for c in got[w].values()]
    worst_u = 100 * max(c["unexplained_share"] for c in every)
    t.target("unexplained stall cycles, worst profile (of runs or one run)", "%.1f %%" % worst_u,
             "<= 5 % (DCPI: 8.6)", worst_u <= 5)
    worst_a = 100 * min(c["cause_agreement"] for c in every)
    t.target("stall cycles with the oracle's cause, worst profile (of runs or one run)", "%.1f %%" % worst_a,
             ">= 85 %", worst_a >= 85)
    edges = sum(got[w]["runs"]["edge_executions"] for w in WORKLOADS) or 1
    edges_in = sum(got[w]["runs"]["edge_executions"] * got[w]["runs"]["edge_within_10"] for w in WORKLOADS)
    by_seed = "; ".join("%s %s" % (w, "/".join("%.1f" % (100 * got[w][s]["freq_within_5"]) for s in SEEDS))
                        for w in WORKLOADS)
    t.notes = ("DCPI measured its frequency estimates on profiles of three runs of each program (SOSP 97, "
               "section 6.6), so each workload here is recorded %d times with record --seed %s (the period "
               "randomiser), each run in an epoch of its own of one database, and the row is check --calc "
               "--epoch all with every run's oracle (their truths summed); the last two columns are the "
               "range over the single runs' profiles, min-max (mean). Within 5 %% by seed, one run: %s. "
               "Edge executions within 10 %% of the oracle's, profiles of runs: %.0f %% (DCPI: 58 %%; no "
               "goal). " % (len(SEEDS), seeds, by_seed, 100 * edges_in / edges) +
               "check --calc (host-tools/util/calc-accuracy.h): executions against the oracle's retired counts "
               "of the profiled interval, weighted by cycle samples; causes against the oracle's exact TIP "
               "cycle stacks per instruction (a mispredict's bubble is the branch's in both); edges against "
               "the oracle's taken counts (a conditional branch's two ways; a block's one way out), "
               "weighted by their executions (from flow constraints here: no ProfileMe). calc s: the slowest "
               "alphaprof calc --summary --json over every procedure of a profile (its work is per "
               "instruction, not per sample).")
    return [t]
