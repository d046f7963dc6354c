"""Value sampling (issue 16): how close value profiles come to the model's
exact value oracle (check --values: top_value_recall, top_value_freq_error),
over loads with >= 30 and >= 200 sampled executions, on workloads of known
(valuemix) and real value distributions.
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
# (it killed QEMU after 10 s, so qsort ran 4).
ACCURACY_WORKLOADS = [("valuemix", ["4000000"]), ("valuemix", ["2000000"]), ("compress", ["8"]), ("qsort", ["8"])]


def run(build):
    acc = Table("values_accuracy", "Value profiles against the model's value oracle (check --values)",
                ["workload", "loads checked", "top_value_recall %", "top_value_freq_error (points)",
                 ">= 200 sampled: loads", "recall %", "error (points)"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    recall_ok, err_ok, recall200_ok, err200_ok = True, True, True, True
    failed = []
    try:
        for w, args in ACCURACY_WORKLOADS:
            img = require(build_path("workloads", w + ".elf"))
            label = "%s %s" % (w, " ".join(args))
            try:
                o, db, _ = record(d, w + "-acc" + "-".join(args), img, args, "--value-every", "1")
            except RuntimeError as e:
                acc.add(label, "-", "-", "-", "-", "-", "-")
                failed.append("%s: %s" % (label, [l for l in str(e).splitlines() if "QEMU" in l or "failed" in l][-1]))
                recall_ok = err_ok = recall200_ok = err200_ok = False
                continue
            r = alphaprof(["check", "--values", "--oracle", o, "--db", db, "--json"])
            r200 = alphaprof(["check", "--values", "--oracle", o, "--db", db, "--json", "--min-samples", "200"])
            if r.status != 0 or r200.status != 0:
                acc.add(label, 0, "-", "-", "-", "-", "-")
                continue
            a, b = json.loads(r.out), json.loads(r200.out)
            acc.add(label, a["loads_checked"], 100 * a["top_value_recall"], a["top_value_freq_error"],
                    b["loads_checked"], 100 * b["top_value_recall"], b["top_value_freq_error"])
            recall_ok &= a["top_value_recall"] >= 0.95
            err_ok &= a["top_value_freq_error"] <= 2.0
            recall200_ok &= b["top_value_recall"] >= 0.95
            err200_ok &= b["top_value_freq_error"] <= 2.0
    finally:
        shutil.rmtree(d, ignore_errors=True)
    acc.target("top_value_recall on every workload", "see rows", ">= 95%", recall_ok)
    acc.target("top_value_freq_error on every workload", "see rows", "<= 2 points", err_ok)
    acc.target("top_value_recall, loads with >= 200 sampled, every workload", "see rows", ">= 95%", recall200_ok)
    acc.target("top_value_freq_error, loads with >= 200 sampled, every workload", "see rows", "<= 2 points", err200_ok)
    acc.notes = ("Loads whose true top value covers >= 10% of executions and with >= 30 values sampled (check's "
                 "default), and beside it the same run's loads with >= 200 (the e2e test's); truth from the model's "
                 "value oracle (FILE.values) of the whole run.  At 30-100 sampled executions of a load the "
                 "binomial noise of which executions the interpreter saw (sd 6-9 points at a 30% share) dominates: "
                 "the hotlist itself is exact there (tau 1)." +
                 ("  Runs that failed: " + "; ".join(failed) if failed else ""))
    return [acc]
