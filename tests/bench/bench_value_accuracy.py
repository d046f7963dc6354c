"""Value sampling (issue 16): how close value profiles come to the model's
exact value oracle (check --values: top_value_recall, top_value_freq_error),
over loads with >= 30 and >= 200 sampled executions, on workloads of known
(valuemix) and real value distributions.  Beside the strict recall, the
same loads under the near-tie rule (top_value_recall_within_error: a first
value statistically tied with the true top at the load's sample count
counts, util/value-accuracy.h) and what a fair sampler of the same sample
counts reaches on average (top_value_recall_expected).
"""
import json
import os
import shutil
import tempfile

from bench_values import record
from benchlib import Table
from harness import alphaprof, build_path, require

# valuemix at two lengths: 2 M iterations is the e2e test's run (64 ms of
# virtual time, one hotlist bank for the whole run).  qsort 8 rounds: the
# launcher now waits up to 120 s for the model's truth written at exit
# (it killed QEMU after 10 s, so qsort ran 4).  Every interrupt is
# interpreted; at the default capture length (16) and at the longest (64):
# the longer one gives each load ~4 times the values for the interpreter's
# time alone (no extra interrupts), which is what decides qsort's near-ties
# (README, Value sampling).  (workload, its arguments, --value-length)
ACCURACY_WORKLOADS = [("valuemix", ["4000000"], 64), ("valuemix", ["2000000"], 16), ("compress", ["8"], 64),
                      ("compress", ["8"], 16), ("qsort", ["8"], 64), ("qsort", ["8"], 16)]
LONGEST = 64


def run(build):
    acc = Table("values_accuracy", "Value profiles against the model's value oracle (check --values)",
                ["workload", "length", "loads checked", "top_value_recall % (strict)", "a fair sampler's %",
                 "within sampling error % (near-ties)", "top_value_freq_error (points)",
                 ">= 200 sampled: loads", "recall %", "error (points)"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    recall_ok, err_ok, recall200_ok, err200_ok, tie_ok = True, True, True, True, True
    recall_longest_ok = True
    failed = []
    try:
        for w, args, length in ACCURACY_WORKLOADS:
            img = require(build_path("workloads", w + ".elf"))
            label = "%s %s" % (w, " ".join(args))
            try:
                o, db, _ = record(d, "%s-acc%s-l%d" % (w, "-".join(args), length), img, args, "--value-every", "1",
                                  "--value-length", str(length))
            except RuntimeError as e:
                acc.add(label, length, "-", "-", "-", "-", "-", "-", "-", "-")
                failed.append("%s: %s" % (label, [l for l in str(e).splitlines() if "QEMU" in l or "failed" in l][-1]))
                recall_ok = err_ok = recall200_ok = err200_ok = tie_ok = recall_longest_ok = False
                continue
            r = alphaprof(["check", "--values", "--oracle", o, "--db", db, "--json"])
            r200 = alphaprof(["check", "--values", "--oracle", o, "--db", db, "--json", "--min-samples", "200"])
            if r.status != 0 or r200.status != 0:
                acc.add(label, length, 0, "-", "-", "-", "-", "-", "-", "-")
                recall_ok = err_ok = recall200_ok = err200_ok = tie_ok = recall_longest_ok = False
                continue
            a, b = json.loads(r.out), json.loads(r200.out)
            acc.add(label, length, a["loads_checked"], 100 * a["top_value_recall"], 100 * a["top_value_recall_expected"],
                    "%.3g (%d)" % (100 * a["top_value_recall_within_error"], a["near_ties"]),
                    a["top_value_freq_error"],
                    b["loads_checked"], 100 * b["top_value_recall"], b["top_value_freq_error"])
            recall_ok &= a["top_value_recall"] >= 0.95
            if length == LONGEST:
                recall_longest_ok &= a["top_value_recall"] >= 0.95
            tie_ok &= a["top_value_recall_within_error"] >= 0.95
            err_ok &= a["top_value_freq_error"] <= 2.0
            recall200_ok &= b["top_value_recall"] >= 0.95
            err200_ok &= b["top_value_freq_error"] <= 2.0
    finally:
        shutil.rmtree(d, ignore_errors=True)
    acc.target("top_value_recall (strict), every workload at --value-length %d" % LONGEST, "see rows", ">= 95%",
               recall_longest_ok)
    acc.target("top_value_recall (strict), every row (also length 16)", "see rows", ">= 95%", recall_ok)
    acc.target("top_value_recall_within_error (near-ties at the load's sample count count), every row",
               "see rows", ">= 95%", tie_ok)
    acc.target("top_value_freq_error, every row", "see rows", "<= 2 points", err_ok)
    acc.target("top_value_recall, loads with >= 200 sampled, every row", "see rows", ">= 95%", recall200_ok)
    acc.target("top_value_freq_error, loads with >= 200 sampled, every row", "see rows", "<= 2 points", err200_ok)
    acc.notes = ("record --value-every 1 --value-length L (L in the second column).  Loads whose true top value "
                 "covers >= 10% of executions and with >= 30 values sampled (check's default), and beside it the same run's loads with >= 200 (the e2e test's); truth from the model's "
                 "value oracle (FILE.values) of the whole run.  At 30-100 sampled executions of a load the "
                 "binomial noise of which executions the interpreter saw (sd 6-9 points at a 30% share) dominates: "
                 "the hotlist itself is exact there (tau 1).  The strict recall misses are near-ties (qsort's "
                 "__divqu restores -1 on 50.3% and 1 on 48.8% of its executions, its partition loads 27% / 23%): "
                 "\"a fair sampler's\" is the mean over the same loads of the probability that an unbiased "
                 "sampler of the same number of values ranks the true top first (check --values's "
                 "top_value_recall_expected); a strict recall near it is what an unbiased sampler gives.  "
                 "\"within sampling error\" counts a load when its first value is the true top or its true share "
                 "is within 1.96 standard errors of the sampled difference (at the load's sample count) of the "
                 "true top's (top_value_recall_within_error; in brackets the near-ties it adds)." +
                 ("  Runs that failed: " + "; ".join(failed) if failed else ""))
    return [acc]
