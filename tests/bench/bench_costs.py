"""Costs and limits a user should know before a run (issue 13), measured
so that alphaprof record can say them up front: what --profileme costs in
the hardware model's cycles, and what share of ProfileMe records a short
--pme-interval loses (the firmware drains the 1024-record ring from its
1 ms tick, and from the model's interrupt only at intervals of 4096 and
up).  Deterministic runs, every record accounted by check --oracle.
"""
import json
import os
import shutil
import tempfile

from benchlib import Table
from harness import alphaprof, build_path, require

COST_WORKLOADS = ["copy", "matmul", "qsort", "compress"]
LOSS_WORKLOAD = "qsort"
INTERVALS = [256, 512, 1024, 2048, 3072, 4096, 16384, 60000]


def totals(oracle):
    r = alphaprof(["check", "--oracle", oracle, "--totals", "--json", "--whole-run"])
    if r.status != 0:
        raise RuntimeError("check --totals failed:\n%s" % r)
    return json.loads(r.out)["cycles"]


def record(d, name, img, *opts):
    oracle, db = os.path.join(d, name + ".o"), os.path.join(d, name + ".db")
    r = alphaprof(["record", "--deterministic", "--oracle", oracle, "--db", db] + list(opts) + [img], timeout=900)
    if r.status != 0:
        raise RuntimeError("record failed:\n%s" % r)
    return oracle, db


def run(build):
    cost = Table("costs_profileme", "What --profileme costs, in modelled cycles (default interval 60000-64000)",
                 ["workload", "cycles unprofiled", "cycles --profileme", "cost %"])
    loss = Table("costs_pme_interval", "ProfileMe records lost at short --pme-interval (%s)" % LOSS_WORKLOAD,
                 ["interval", "records produced", "stored", "lost in the ring", "lost %"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    worst = 0.0
    try:
        for w in COST_WORKLOADS:
            img = require(build_path("workloads", w + ".elf"))
            base_o = os.path.join(d, w + "-base.o")
            r = alphaprof(["run", "--board", "clipper-pm", "--deterministic", "--oracle", base_o, img], timeout=900)
            if r.status != 0:
                raise RuntimeError("run failed:\n%s" % r)
            prof_o, _ = record(d, w + "-pme", img, "--profileme")
            base, prof = totals(base_o), totals(prof_o)
            pct = 100.0 * (prof - base) / base
            worst = max(worst, pct)
            cost.add(w, base, prof, pct)
        img = require(build_path("workloads", LOSS_WORKLOAD + ".elf"))
        first_lossless = None
        for i in INTERVALS:
            o, db = record(d, "i%d" % i, img, "--profileme", "--pme-interval", "%d-%d" % (i, i + i // 16))
            r = alphaprof(["check", "--oracle", o, "--db", db, "--json"])
            p = json.loads(r.out)["profileme"]
            lost = p["produced"] - p["stored"]
            loss.add(i, p["produced"], p["stored"], p["ring_dropped"], 100.0 * lost / max(1, p["produced"]))
            if lost == 0 and first_lossless is None:
                first_lossless = i
    finally:
        shutil.rmtree(d, ignore_errors=True)
    cost.target("worst --profileme cost in modelled cycles", "%.2f%%" % worst, "said up front", True)
    cost.notes = ("alphaprof record --profileme prints this range when it starts. The cost is every "
                  "extra modelled cycle: the 1 ms tick draining the ring, the aggregates, the link frames.")
    loss.target("shortest interval measured without loss", first_lossless, "said up front", first_lossless is not None)
    loss.notes = ("alphaprof record warns when it starts if --pme-interval's MIN is below the first lossless "
                  "interval here; every lost record is counted (ring_overflow drops), none is silent.")
    return [cost, loss]
