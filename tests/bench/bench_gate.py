"""The profile regression gate (issue 17): three base runs of the hotspots
workload at the default sampling rate, then 20 unchanged reruns (a false
alarm is any that fails the gate) and one run of a build whose mix_b does
3 % more work (it must fail, on mix_b).  Every run has its own period seed,
so the noise is the sampler's own; builds are made from one workload.mk as
the e2e test does (tests/e2e/test_gate.py)."""
import json
import os
import shutil
import tempfile

from benchlib import Table
from harness import alphaprof
from test_gate import build_variants

SCALE = 200000          # about 40,000 samples in mix_b at the default period
RERUNS = 20


def record(d, name, image, seed):
    db = os.path.join(d, name + ".db")
    r = alphaprof(["record", "--deterministic", "--seed", str(seed), "--db", db, image], timeout=900)
    if r.status != 0:
        raise RuntimeError("record %s failed:\n%s" % (name, r))
    return db


def gate(bases, db):
    args = ["gate", "--db", db, "--json"]
    for b in bases:
        args += ["--base", b]
    r = alphaprof(args, timeout=120)
    if r.status not in (0, 1):
        raise RuntimeError("gate failed:\n%s" % r)
    return r.status, json.loads(r.out)


def mix_b(j):
    return [r for r in j["rows"] if r["name"] and r["name"].startswith("mix_b")][0]


def run(build):
    t = Table("gate", "The regression gate: 3 base runs, default rate, hotspots at SCALE=%d" % SCALE,
              ["new run", "runs", "gate failed", "mix_b samples", "mix_b change %", "its se %", "max |z| (mix_b)"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    try:
        images = build_variants(d, SCALE)
        bases = [record(d, "base%d" % i, images["base"], i) for i in (1, 2, 3)]
        fails, changes, zs, ses = 0, [], [], []
        for k in range(RERUNS):
            db = record(d, "same%d" % k, images["same"], 100 + k)
            status, j = gate(bases, db)
            fails += status == 1
            b = mix_b(j)
            changes.append(100 * b["change"])
            ses.append(100 * b["se_change"])
            zs.append(abs(b["z"]))
            os.remove(db)
        samples = mix_b(j)["counts"][0]
        t.add("unchanged rebuild", RERUNS, fails, samples, "%+.3f..%+.3f" % (min(changes), max(changes)),
              "%.2f" % max(ses), "%.2f" % max(zs))
        slow = record(d, "slow", images["slow"], 999)
        status, j = gate(bases, slow)
        b = mix_b(j)
        regressed = [r["name"] for r in j["rows"] if r["verdict"] == "regression"]
        t.add("mix_b +3 %", 1, int(status == 1), b["counts"][-1], "%+.3f" % (100 * b["change"]),
              "%.2f" % (100 * b["se_change"]), "%.2f" % abs(b["z"]))
        t.target("false alarms in %d unchanged reruns" % RERUNS, fails, "0", fails == 0)
        t.target("3 % slowdown of mix_b caught", "yes" if status == 1 and regressed and
                 regressed[0].startswith("mix_b") else "no", "yes", status == 1 and len(regressed) == 1)
        t.notes = ("The gate's variance is the larger of Poisson sampling error and the base runs' spread; "
                   "the timer's randomised period samples far more evenly than Poisson, so the changes seen "
                   "on unchanged reruns are much smaller than the standard error the test assumes.")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return [t]
