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
from harness import REPO, alphaprof, build_path, require

WORKLOADS = ["copy", "chase", "branches", "matmul", "qsort", "compress"]


def timed(args, env=None):
    start = time.time()
    r = alphaprof(args, timeout=600, env=env)
    if r.status != 0:
        raise RuntimeError("run failed:\n%s" % r)
    return time.time() - start


def floor_boards(d):
    """ALPHAPROF_HOME for the yardstick boards: clipper-pm with
    tests/bench/tb-callback-floor.so (an empty callback, or an inline add,
    per block) in place of the model."""
    home = os.path.join(d, "home")
    os.makedirs(os.path.join(home, "boards"))
    with open(os.path.join(REPO, "boards", "clipper-pm", "board.conf")) as f:
        conf = f.read()
    plugin = require(build_path("tests", "bench", "tb-callback-floor.so"))
    for kind in ("callback", "inline"):
        lines = []
        for line in conf.splitlines():
            key = line.split("=", 1)[0].strip()
            if key == "plugin":
                line = "plugin = " + plugin
            elif key == "plugin_args":
                line = "plugin_args = floor=" + kind
            elif key == "firmware":
                line = "firmware = " + build_path("firmware", os.path.basename(line.split("=", 1)[1].strip()))
            lines.append(line)
        os.makedirs(os.path.join(home, "boards", "floor-" + kind))
        with open(os.path.join(home, "boards", "floor-" + kind, "board.conf"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return home


def oracle_totals(path):
    r = alphaprof(["check", "--oracle", path, "--totals", "--json"])
    if r.status != 0:
        raise RuntimeError("check failed:\n%s" % r)
    return json.loads(r.out)


# Repeat counts (the workloads' first argument): about 300 M instructions
# a run for the full model and the accuracy runs; for the runs near QEMU's
# speed, enough for 1-7 s of plain QEMU, so that its start-up (~0.07 s)
# weighs little (plain QEMU runs compress's 300 M in 0.15 s, half of it
# start-up; chase is slow in QEMU itself).
REPEAT = {"copy": 6, "chase": 3, "branches": 6, "matmul": 8, "qsort": 3, "compress": 6}
FAST_REPEAT = {"copy": 30, "chase": 3, "branches": 60, "matmul": 40, "qsort": 30, "compress": 60}
# For the accuracy runs: about 1 M cycle samples at a 1000-1100 cycle period.
ACC_REPEAT = {"copy": 15, "chase": 1, "branches": 22, "matmul": 96, "qsort": 19, "compress": 48}


def run(build):
    speed = Table("hwmodel_speed", "Hardware model speed: guest MIPS of plain QEMU, the plugin API's floor, counters-only and the full model (fast mode, 1 core, side by side)",
                  ["workload", "instructions", "plain MIPS", "inline floor %", "callback floor %",
                   "counters %", "counters/floor %", "full MIPS", "full slowdown"])
    acc = Table("accuracy", "Profile accuracy against the oracle (instruction-level error, deterministic runs)",
                ["workload", "cycle samples", "counter error %", "timer samples", "timer error %"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    model_mips, ratios, floors, errors = [], [], [], []
    try:
        home = floor_boards(d)
        for w in WORKLOADS:
            img = require(build_path("workloads", w + ".elf"))
            rep = ["--", str(REPEAT[w])]
            fast = ["--", str(FAST_REPEAT[w])]
            oracle = os.path.join(d, w + ".oracle")
            fast_oracle = os.path.join(d, w + "-fast.oracle")
            # best of two, alternating, for the runs near QEMU's speed
            best = {}
            for _ in range(2):
                for name, args, env in (
                        ("plain", ["run", img] + fast, None),
                        ("inline", ["run", "--board", "floor-inline", img] + fast, {"ALPHAPROF_HOME": home}),
                        ("callback", ["run", "--board", "floor-callback", img] + fast, {"ALPHAPROF_HOME": home}),
                        ("counters", ["run", "--model", "counters", "--oracle", fast_oracle, img] + fast, None)):
                    t = timed(args, env)
                    best[name] = min(best.get(name, t), t)
            full = timed(["run", "--model", "full", "--oracle", oracle, img] + rep)
            n = oracle_totals(oracle)["instructions"]
            n_fast = oracle_totals(fast_oracle)["instructions"]
            pct = {k: 100 * best["plain"] / best[k] for k in best}
            speed.add(w, n_fast, n_fast / best["plain"] / 1e6, pct["inline"], pct["callback"],
                      pct["counters"], 100 * best["callback"] / best["counters"], n / full / 1e6,
                      (full / n) / (best["plain"] / n_fast))
            model_mips.append(n / full / 1e6)
            ratios.append(pct["counters"] / 100)
            floors.append(pct["callback"] / 100)
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
    speed.target("slowest empty-callback floor, % of plain QEMU (the API's limit for counters-only)",
                 "%.0f%%" % (100 * min(floors)), "(yardstick)", True)
    speed.target("slowest full-model speed (MIPS)", min(model_mips), ">= 50", min(model_mips) >= 50)
    speed.notes = ("Wall-clock of alphaprof run, QEMU start-up included, best of two alternating runs "
                   "for everything near QEMU's speed (plain, floors, counters: FAST_REPEAT, 1-7 s of "
                   "plain QEMU, so start-up weighs little); percentages are of plain QEMU's "
                   "speed on the same run. The floors are tests/bench/tb-callback-floor.so on the "
                   "clipper-pm board: an inline add per translation block (counts, can raise nothing), "
                   "and an empty callback per block, the least a plugin of QEMU 7.2 can do to act at an "
                   "exact PC; counters-only is that callback plus its work (counters/floor %: how close "
                   "it comes). Full slowdown: time per instruction against plain QEMU's. What bounds the "
                   "full model (perf, qsort): the callbacks alone ~2.4 ns an instruction; the timing "
                   "model's step ~24 ns (fetch, map, issue queues, functional units, caches, predictor, "
                   "bad-path fetch: flat, no line above 3 %); the per-PC oracle ~4 ns; the cycle stacks "
                   "(exact TIP truth, issue 14) ~6 ns (qsort, 185 M instructions: 7.1-7.5 s user "
                   "before, 8.2-8.65 s after, A/B alternating on a loaded machine); counters, "
                   "ProfileMe and the bad path's oracle entries ~4 ns. chase runs at ~24 MIPS in plain "
                   "QEMU (its TLB handling), below the 50 MIPS target before any model.")
    acc.target("worst counter-sampling cycle error at >= 0.9 M samples", "%.2f%%" % max(errors),
               "<= 2 % at 1 M samples", max(errors) <= 2)
    acc.notes = ("Counter samples carry the PC of the instruction the model charged the cycles to "
                 "(the retire gap: the instruction whose retirement ends them; against the exact "
                 "TIP truth see tip_accuracy); timer samples take the interrupted PC under -icount, "
                 "i.e. they sample instructions, not modelled cycles, so stalls are invisible to them. "
                 "Counter runs repeat the workload (ACC_REPEAT) to about 1 M samples; timer runs are "
                 "shorter (REPEAT). The truth is the oracle of the profiled interval (the monitor's "
                 "start and stop snapshots), so what error remains is sampling error.")
    return [speed, acc]
