"""dcpicalc against the truth on every other workload the build makes
(issue 14: "make bench runs it on every workload"): bench_calc measures
the six it was tuned on at DCPI's default rate over three seeds; this one
runs each of the rest once (seed 1, deterministic, board clipper-ev5) at
20 times that rate (cycles every 3000-3200, dmiss, l2miss and branchmp
every 1000-1100), because most of them are short: at the default rate
drystone gives 110 cycle samples, listmark 21, and calc's estimates are
then noise.  Nothing here was tuned on them (drystone and listmark are
shaped like the public benchmarks people bring; sprawl is a flat run of
32768 blocks that misses the I-cache at every line).

A row per workload: record's exit status (trap and overflow fail on
purpose), cycle samples, the samples the target took and lost (a counted
drop; calc's executions would fall with the samples it never got, and
its loss note says so: sprawl, which outruns the link at 20x, runs at
DCPI's own rate), and check --calc's keys as bench_calc reports them.  ALPHAPROF_EVERY_CALC_WORKLOADS overrides the
list, ALPHAPROF_CALC_JOBS how many recordings run at once (default 2).
"""
import concurrent.futures
import json
import os
import re
import shutil
import tempfile

from benchlib import Table
from bench_calc import METRICS, WORKLOADS as TUNED
from harness import alphaprof, build_path

EVENTS = "cycles:3000-3200,dmiss:1000-1100,l2miss:1000-1100,branchmp:1000-1100"
# sprawl outruns the link at 20x (two thirds of its samples dropped, counted):
# DCPI's own rate for it, over 300 ms of its run (some 20 k cycle samples)
OWN = {"sprawl": ("cycles,dmiss,l2miss,branchmp", ["--", "300"])}
JOBS = int(os.environ.get("ALPHAPROF_CALC_JOBS", "2"))


def workloads():
    if os.environ.get("ALPHAPROF_EVERY_CALC_WORKLOADS"):
        return os.environ["ALPHAPROF_EVERY_CALC_WORKLOADS"].split()
    d = build_path("workloads")
    return sorted(f[:-4] for f in os.listdir(d) if f.endswith(".elf") and f[:-4] not in TUNED)


def measure(d, w):
    db, orc = os.path.join(d, w + ".db"), os.path.join(d, w + ".oracle")
    events, args = OWN.get(w, (EVENTS, []))
    r = alphaprof(["record", "--deterministic", "--board", "clipper-ev5", "--seed", "1", "--db", db,
                   "--oracle", orc, "--events", events, "--timeout", "1800", build_path("workloads", w + ".elf")] + args,
                  timeout=1900)
    m = re.search(r"record: (\d+) samples .*; (\d+) samples dropped", r.out + r.err)
    if not m:
        raise RuntimeError("record of %s said no sample count:\n%s" % (w, r))
    c = json.loads(alphaprof(["check", "--calc", "--db", db, "--oracle", orc, "--json"]).out)
    c["exit"] = r.status
    c["taken"], c["lost"] = int(m.group(1)) + int(m.group(2)), int(m.group(2))
    print("bench_every_calc: %s: %s" % (w, json.dumps(c)), flush=True)
    for f in os.listdir(d):
        if f.startswith(w + "."):
            os.unlink(os.path.join(d, f))
    return c


def run(build):
    ws = workloads()
    t = Table("calc_accuracy_every", "alphaprof calc against the oracle on every other workload: in-order core, "
              "20x DCPI's default rate (sprawl: 1x), seed 1",
              ["workload", "exit", "cycle samples", "lost %"] + [m[1] for m in METRICS])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-every-calc-")
    try:
        with concurrent.futures.ThreadPoolExecutor(JOBS) as ex:
            got = dict(zip(ws, ex.map(lambda w: measure(d, w), ws)))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    for w in ws:
        c = got[w]
        t.add(w, c["exit"], "%.0f" % c["samples"], "%.1f" % (100.0 * c["lost"] / max(c["taken"], 1)),
              *["%.3g" % (100 * c[k]) for k, _ in METRICS])
    keys = ("freq_within_5", "freq_within_10", "freq_within_15")
    big = [w for w in ws if got[w]["samples"] >= 1000 and not got[w]["lost"]]
    n = sum(got[w]["samples"] for w in big) or 1
    pooled = [100 * sum(got[w]["samples"] * got[w][k] for w in big) / n for k in keys]
    t.notes = ("Pooled over the workloads with >= 1000 cycle samples and none lost (%s): executions within "
               "5/10/15 %% for %.1f/%.1f/%.1f %% of the cycle samples (no goal here: the issue's targets are "
               "at DCPI's default rate, bench_calc's table). Workloads with a few hundred samples or fewer "
               "are listed for completeness: there a class has a handful of samples and its estimate is "
               "sampling noise. check --calc as in calc_accuracy: executions against the oracle's retired "
               "counts of the profiled interval, weighted by cycle samples; causes against the oracle's "
               "exact TIP cycle stacks." % (", ".join(big), *pooled))
    return [t]
