"""The hardware model (issue 3): guest MIPS of plain QEMU and of the full
model, measured side by side on the shipped workloads (wall-clock ratios in
one run), and the accuracy of sampled profiles against the model's oracle
(issue 5): cycle sampling through the event counters versus timer sampling
of the same runs.
"""
import json
import os
import shutil
import tempfile
import time

from benchlib import Table
from harness import alphaprof, build_path, require

WORKLOADS = ["copy", "chase", "branches", "matmul", "qsort", "compress"]


def timed(args):
    start = time.time()
    r = alphaprof(args, timeout=600)
    if r.status != 0:
        raise RuntimeError("run failed:\n%s" % r)
    return time.time() - start


def oracle_totals(path):
    r = alphaprof(["check", "--oracle", path, "--totals", "--json"])
    if r.status != 0:
        raise RuntimeError("check failed:\n%s" % r)
    return json.loads(r.out)


# Repeat counts (the workloads' first argument): about 300 M instructions
# a run, so QEMU's start-up (~0.1 s) weighs little even in plain QEMU.
REPEAT = {"copy": 6, "chase": 3, "branches": 6, "matmul": 8, "qsort": 3, "compress": 6}
# For the accuracy runs: about 1 M cycle samples at a 1000-1100 cycle period.
ACC_REPEAT = {"copy": 15, "chase": 1, "branches": 22, "matmul": 24, "qsort": 19, "compress": 12}


def run(build):
    speed = Table("hwmodel_speed", "Hardware model speed: guest MIPS of plain QEMU, counters-only and the full model (fast mode, 1 core, side by side)",
                  ["workload", "instructions", "plain s", "counters s", "full s", "plain MIPS",
                   "counters MIPS", "full MIPS", "counters/plain %", "full slowdown"])
    acc = Table("accuracy", "Profile accuracy against the oracle (instruction-level error, deterministic runs)",
                ["workload", "cycle samples", "counter error %", "timer samples", "timer error %"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    model_mips, ratios, errors = [], [], []
    try:
        for w in WORKLOADS:
            img = require(build_path("workloads", w + ".elf"))
            rep = ["--", str(REPEAT[w])]
            oracle = os.path.join(d, w + ".oracle")
            plain = min(timed(["run", img] + rep) for _ in range(2))
            counters = min(timed(["run", "--model", "counters", img] + rep) for _ in range(2))
            full = timed(["run", "--model", "full", "--oracle", oracle, img] + rep)
            n = oracle_totals(oracle)["instructions"]
            speed.add(w, n, plain, counters, full, n / plain / 1e6, n / counters / 1e6, n / full / 1e6,
                      100 * plain / counters, full / plain)
            model_mips.append(n / full / 1e6)
            ratios.append(plain / counters)
            # accuracy: counters (exact PC) and the timer, each against its run's oracle
            row = [w]
            for mode, n in ((["--events", "cycles:1000-1100"], ACC_REPEAT[w]),
                            (["--timer", "--period", "5000-5500"], REPEAT[w])):
                db = os.path.join(d, "%s-%s.db" % (w, mode[0]))
                orc = os.path.join(d, "%s-%s.oracle" % (w, mode[0]))
                r = alphaprof(["record", "--deterministic", "--board", "clipper-pm", "--db", db,
                               "--oracle", orc] + mode + [img, "--", str(n)], timeout=1200)
                if r.status != 0:
                    raise RuntimeError("record failed:\n%s" % r)
                c = json.loads(alphaprof(["check", "--db", db, "--oracle", orc, "--json"]).out)
                row += [c["samples"], 100 * c["instruction_error"]]
            acc.add(*row)
            if row[1] >= 900000:
                errors.append(row[2])
    finally:
        shutil.rmtree(d, ignore_errors=True)
    speed.target("slowest counters-only speed, % of plain QEMU", "%.0f%%" % (100 * min(ratios)), ">= 70 %",
                 min(ratios) >= 0.7)
    speed.target("slowest full-model speed (MIPS)", min(model_mips), ">= 50", min(model_mips) >= 50)
    speed.notes = ("Wall-clock of alphaprof run (QEMU start-up included; the best of two for plain "
                   "and counters-only). Counters-only makes one plugin callback per translation "
                   "block; the full model one per instruction and memory access and runs the "
                   "timing model, bad paths included, on each. An empty per-block callback alone ran "
                   "compress at 58 % of plain QEMU (measured once by hand): QEMU 7.2 offers only inline "
                   "adds without callbacks, and those cannot raise an overflow at an exact PC, so "
                   "70 % is out of reach on small-block code. What bounds the full model (perf, qsort, "
                   "user time): QEMU with our two callbacks and no model costs ~2.7 ns an instruction "
                   "(~370 MIPS); the model and its per-PC oracle ~30 ns, spread flat over fetch, "
                   "map, issue-queue and functional-unit bookkeeping, cache and predictor lookups and "
                   "the oracle entry's ~20 counter updates (no function above 5 %); the bad path "
                   "(qsort fetches 0.9 aborted instructions per retired one) ~10-15 % of that. "
                   "-O3 -flto, inline fast paths and skipping zero counters took qsort 20.6 -> 28.0, "
                   "copy 27.7 -> 38.8, matmul 25.8 -> 38.8 MIPS (user time, same results); 50 MIPS needs less work "
                   "per instruction, not faster code for the same work.")
    acc.target("worst counter-sampling cycle error at >= 0.9 M samples", "%.2f%%" % max(errors),
               "<= 2 % at 1 M samples", max(errors) <= 2)
    acc.notes = ("Counter samples carry the PC of the instruction the model charged the cycles to "
                 "(time-proportional, like TIP); timer samples take the interrupted PC under -icount, "
                 "i.e. they sample instructions, not modelled cycles, so stalls are invisible to them. "
                 "Counter runs repeat the workload (ACC_REPEAT) to about 1 M samples; timer runs are "
                 "shorter (REPEAT). The oracle covers the whole run, boot included, and the profile "
                 "only the profiled part, which adds a small systematic error.")
    return [speed, acc]
