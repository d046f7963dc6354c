"""Value sampling (issue 16): how close value profiles come to the model's
exact value oracle (check --values: top_value_recall, top_value_freq_error),
over loads with >= 30 and >= 200 sampled executions, on workloads of known
(valuemix) and real value distributions and on one shaped like a public
benchmark nobody tuned for (drystone).  Each workload runs under several
seeds (the period randomiser's, which also seeds the interpreter's skip and
the hotlists' coin flips): the strict recall moves with the seed, so it is
reported as a range and the target is on its lowest.  Beside the strict
recall, the same loads under the near-tie rule (top_value_recall_within_error:
a first value statistically tied with the true top at the load's sample
count counts, util/value-accuracy.h) and what a fair sampler of the same
sample counts reaches on average (top_value_recall_expected).

The accuracy runs are not the overhead runs: they interpret on every
interrupt (--value-every 1) at the longest length (64), with runs long
enough to give every load enough values; the paper's settings (every 4th
interrupt, length 16) and their cost are bench_values.py's.
"""
import concurrent.futures
import json
import os
import shutil
import tempfile

from bench_values import record
from benchlib import Table
from harness import alphaprof, build_path, require

# (workload, its arguments), the longest first.  compress 24 rounds: 3
# times the values of 8 (its near-tie, 10.6 % against 8.9 % of executions,
# needs thousands); qsort 8 rounds; valuemix 4 M iterations: known
# distributions; drystone: Dhrystone as people bring it, its run fixed at
# build.
ACCURACY_WORKLOADS = [("compress", ["24"]), ("qsort", ["8"]), ("valuemix", ["4000000"]), ("drystone", [])]
SEEDS = [1, 2, 3]
LENGTH = 64
# The timer's period, ns of the workload's own time between value runs: a
# run's cost no longer comes out of the period (profiler.c note 5,
# value-sampling.c note 8: the runs were denser where they cost more, a
# bias qsort's partition-stack depth showed at 3.4 standard errors), so at
# the default 60-64 us a run would capture a third of the values it did
# when it ran only the ~22 us a 64-instruction run left of the period.
# 20-22 us keeps that number of runs, each after a drawn stretch of the
# workload whatever the previous run interpreted.
PERIOD = "20000-22000"
# Records at once (each is one QEMU; the results are deterministic and do
# not depend on how many run beside them).
JOBS = int(os.environ.get("ALPHAPROF_BENCH_JOBS", "3"))


def misses(check):
    """The strict misses of one check --values --json, each as 'pc: true top
    p1% vs first p2% at n values'."""
    return ["%x: %.1f%% vs %.1f%% at %d" % (l["pc"], 100 * l["true_share"], 100 * l["first_true_share"], l["offered"])
            for l in check["loads"] if not l["ranked_first"]]


def one_run(d, w, args, seed):
    img = require(build_path("workloads", w + ".elf"))
    o, db, _ = record(d, "%s-%s-s%d" % (w, "-".join(args) or "1", seed), img, args, "--seed", str(seed),
                      "--value-every", "1", "--value-length", str(LENGTH), "--period", PERIOD, timeout=5000)
    checks = []
    for extra in ([], ["--min-samples", "200"]):
        r = alphaprof(["check", "--values", "--oracle", o, "--db", db, "--json"] + extra)
        if r.status != 0:
            raise RuntimeError("check --values failed:\n%s" % r)
        checks.append(json.loads(r.out))
    return checks


def run(build):
    acc = Table("values_accuracy", "Value profiles against the model's value oracle (check --values), per seed",
                ["workload", "seed", "loads checked", "top_value_recall % (strict)", "a fair sampler's %",
                 "within sampling error % (near-ties)", "top_value_freq_error (points)", "strict misses",
                 ">= 200 sampled: loads", "recall %", "error (points)"])
    summary = Table("values_accuracy_range", "Value profiles against the value oracle: the range over seeds",
                    ["workload", "seeds", "top_value_recall % (strict), lowest-highest", "a fair sampler's %",
                     "top_value_freq_error (points), lowest-highest", "lowest recall >= 95%", "error <= 2"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    runs = [(w, args, s) for w, args in ACCURACY_WORKLOADS for s in SEEDS]
    results = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, JOBS)) as pool:
            futures = {pool.submit(one_run, d, w, args, s): (w, tuple(args), s) for w, args, s in runs}
            for f in concurrent.futures.as_completed(futures):
                try:
                    results[futures[f]] = f.result()
                except RuntimeError as e:
                    lines = [l for l in str(e).splitlines() if l.strip()]
                    results[futures[f]] = lines[-1] if lines else "failed"
                res = results[futures[f]]
                print("values_accuracy: %s %s seed %d: %s" % (futures[f][0], " ".join(futures[f][1]), futures[f][2],
                      res if isinstance(res, str) else "recall %.4g%% (%d of %d), error %.3g points, misses %s" % (
                          100 * res[0]["top_value_recall"], res[0]["hits"], res[0]["loads_checked"],
                          res[0]["top_value_freq_error"], misses(res[0]))), flush=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    every_ok, every_err_ok = True, True
    for w, args in ACCURACY_WORKLOADS:
        label = "%s %s" % (w, " ".join(args))
        recalls, expected, errors, ok = [], [], [], True
        for s in SEEDS:
            res = results[(w, tuple(args), s)]
            if isinstance(res, str):
                acc.add(label, s, "-", "-", "-", "-", "-", "failed: " + res, "-", "-", "-")
                ok = False
                continue
            a, b = res
            acc.add(label, s, a["loads_checked"], 100 * a["top_value_recall"], 100 * a["top_value_recall_expected"],
                    "%.3g (%d)" % (100 * a["top_value_recall_within_error"], a["near_ties"]),
                    a["top_value_freq_error"], "; ".join(misses(a)) or "-",
                    b["loads_checked"], 100 * b["top_value_recall"], b["top_value_freq_error"])
            recalls.append(100 * a["top_value_recall"])
            expected.append(100 * a["top_value_recall_expected"])
            errors.append(a["top_value_freq_error"])
        if not recalls:
            summary.add(label, 0, "-", "-", "-", "no", "no")
            every_ok = every_err_ok = False
            continue
        rec_ok, err_ok = ok and min(recalls) >= 95, ok and max(errors) <= 2
        every_ok &= rec_ok
        every_err_ok &= err_ok
        summary.add(label, len(recalls), "%.3g-%.3g" % (min(recalls), max(recalls)),
                    "%.3g-%.3g" % (min(expected), max(expected)), "%.3g-%.3g" % (min(errors), max(errors)),
                    "yes" if rec_ok else "no", "yes" if err_ok else "no")
    summary.target("top_value_recall (strict), the lowest over %d seeds, every workload" % len(SEEDS), "see rows",
                   ">= 95%", every_ok)
    summary.target("top_value_freq_error, the highest over the seeds, every workload", "see rows", "<= 2 points",
                   every_err_ok)
    settings = ("record --seed S --value-every 1 --value-length %d --period %s (the workload's own time between "
                "value runs; the paper's rate and length, and their cost, are bench_values's), deterministic runs."
                % (LENGTH, PERIOD))
    acc.notes = (settings + "  Loads whose true top value covers >= 10% of executions and with >= 30 values "
                 "sampled (check's default), and beside it the same run's loads with >= 200 (the e2e test's); truth "
                 "from the model's value oracle (FILE.values) of the whole run.  \"a fair sampler's\" is the mean "
                 "over the same loads of the probability that an unbiased sampler of the same number of values "
                 "ranks the true top first (check --values's top_value_recall_expected); \"within sampling "
                 "error\" counts a load when its first value is the true top or its true share is within 1.96 "
                 "standard errors of the sampled difference (at the load's sample count) of the true top's "
                 "(top_value_recall_within_error; in brackets the near-ties it adds).  \"strict misses\": per "
                 "load the profile ranked wrong, its pc, the true top's share against the share of the value "
                 "ranked first, and the values sampled there.")
    summary.notes = settings + "  Per seed: values_accuracy."
    return [acc, summary]
