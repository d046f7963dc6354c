"""dcpicalc against the truth (issue 14): every workload on the in-order
core (board clipper-ev5) at DCPI's default rate (cycles every 60000-64000;
dmiss, l2miss, branchmp every 4000-4400: the four counters, no multiplexing,
whose period scaling overstated cycles by about 9 % with six events),
deterministic runs; alphaprof check --calc against the oracle of the same
run: executions within 5/10/15 % (share of cycle samples), unexplained
stall cycles, stall cycles with the oracle's cause, stack error, edge
executions within 10 % (DCPI's figure 9, against the oracle's taken
counts); and how long calc takes (all procedures, JSON).
"""
import json
import os
import shutil
import tempfile
import time

from benchlib import Table
from harness import alphaprof, build_path, require

WORKLOADS = ["copy", "chase", "branches", "matmul", "qsort", "compress"]
# repeats for some 10-50 k cycle samples each at the default rate
REPEAT = {"copy": 8, "chase": 1, "branches": 10, "matmul": 30, "qsort": 8, "compress": 16}
EVENTS = "cycles,dmiss,l2miss,branchmp"


def run(build):
    t = Table("calc_accuracy", "alphaprof calc (dcpicalc) against the oracle: in-order core, DCPI's default rate",
              ["workload", "cycle samples", "within 5 %", "within 10 %", "within 15 %", "unexplained %",
               "cause agreement %", "stack error %", "edges within 10 %", "calc s"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-calc-")
    agg = {"samples": 0, "w5": 0, "w10": 0, "w15": 0, "unexpl": [], "agree": [], "edges": 0, "edges_in": 0}
    try:
        for w in WORKLOADS:
            img = require(build_path("workloads", w + ".elf"))
            db, orc = os.path.join(d, w + ".db"), os.path.join(d, w + ".oracle")
            r = alphaprof(["record", "--deterministic", "--board", "clipper-ev5", "--db", db, "--oracle", orc,
                           "--events", EVENTS, "--timeout", "1800", img, "--", str(REPEAT[w])], timeout=1900)
            if r.status != 0:
                raise RuntimeError("record failed:\n%s" % r)
            c = json.loads(alphaprof(["check", "--calc", "--db", db, "--oracle", orc, "--json"]).out)
            start = time.time()
            alphaprof(["calc", "--db", db, "--summary", "--json"])
            took = time.time() - start
            t.add(w, c["samples"], 100 * c["freq_within_5"], 100 * c["freq_within_10"], 100 * c["freq_within_15"],
                  100 * c["unexplained_share"], 100 * c["cause_agreement"], 100 * c["stack_error"],
                  100 * c["edge_within_10"], took)
            agg["edges"] += c["edge_executions"]
            agg["edges_in"] += c["edge_executions"] * c["edge_within_10"]
            n = c["samples"]
            agg["samples"] += n
            for k, key in (("w5", "freq_within_5"), ("w10", "freq_within_10"), ("w15", "freq_within_15")):
                agg[k] += n * c[key]
            agg["unexpl"].append(c["unexplained_share"])
            agg["agree"].append(c["cause_agreement"])
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    n = agg["samples"] or 1
    w5, w10, w15 = (100 * agg[k] / n for k in ("w5", "w10", "w15"))
    t.target("executions within 5/10/15 % (all workloads' cycle samples)", "%.0f/%.0f/%.0f %%" % (w5, w10, w15),
             "85/95/98 % (DCPI: 73/87/92)", w5 >= 85 and w10 >= 95 and w15 >= 98)
    worst_u = 100 * max(agg["unexpl"])
    t.target("unexplained stall cycles, worst workload", "%.1f %%" % worst_u, "<= 5 % (DCPI: 8.6)", worst_u <= 5)
    worst_a = 100 * min(agg["agree"])
    t.target("stall cycles with the oracle's cause, worst workload", "%.1f %%" % worst_a, ">= 85 %", worst_a >= 85)
    t.notes = ("Edge executions within 10 %% of the oracle's, all workloads: %.0f %% (DCPI: 58 %%; no goal). "
               % (100 * agg["edges_in"] / (agg["edges"] or 1)) + "check --calc (host-tools/util/calc-accuracy.h): executions against the oracle's retired counts "
               "of the profiled interval, weighted by cycle samples; causes against the oracle's exact TIP "
               "cycle stacks per instruction (a mispredict's bubble is the branch's in both); edges against "
               "the oracle's taken counts (a conditional branch's two ways; a block's one way out), "
               "weighted by their executions (from flow constraints here: no ProfileMe). calc s: "
               "alphaprof calc --summary --json over every procedure of the profile (its work is per "
               "instruction, not per sample).")
    return [t]
