"""End-to-end: `alphaprof gate` on runs the real board recorded.

A copy of the hotspots workload is built three ways from its workload.mk:
as it is, rebuilt unchanged, and with -DSLOW_PERMILLE=30, which makes one
procedure (mix_b) do 3 % more work.  Three base runs (different period
seeds, so real sampling noise) gate the unchanged rebuild through and stop
the slowed build on mix_b alone; bad input exits 2 with one line."""
import json
import os
import shutil
import subprocess

from harness import BUILD, REPO, alphaprof, build_path, check, cleanup, require, tmpdir

PERIOD = "6000-6400"      # ten times the default rate: enough samples in seconds


def make(*goals):
    return subprocess.run(["make", "--no-print-directory", "BUILD=" + BUILD] + list(goals), cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def build_variants(d, scale=20000):
    """base.elf, same.elf (rebuilt unchanged) and slow.elf in d, one image
    name (so the gate matches their procedures)."""
    name = "zz-gate-%d" % os.getpid()
    src = os.path.join(REPO, "workloads", name)
    elf = build_path("workloads", name + ".elf")
    out = {}
    try:
        os.makedirs(src)
        shutil.copy(require(os.path.join(REPO, "workloads", "hotspots", "hotspots.c")), src)
        for variant, flags in (("base", ""), ("same", ""), ("slow", " -DSLOW_PERMILLE=30")):
            with open(os.path.join(src, "workload.mk"), "w") as f:
                f.write("WORKLOAD_CFLAGS := -DSCALE=%d%s\n" % (scale, flags))
            os.utime(os.path.join(src, "hotspots.c"))        # a real rebuild each time
            p = make(elf)
            check(p.returncode == 0, "the %s variant builds:\n%s%s" % (variant, p.stdout, p.stderr))
            out[variant] = os.path.join(d, variant + ".elf")
            shutil.copy(elf, out[variant])
    finally:
        shutil.rmtree(src, ignore_errors=True)
        if os.path.exists(elf):
            os.remove(elf)
        shutil.rmtree(build_path("workloads", name), ignore_errors=True)
    return out


def record(d, name, image, seed):
    db = os.path.join(d, name + ".db")
    r = alphaprof(["record", "--deterministic", "--period", PERIOD, "--seed", str(seed), "--db", db, image],
                  timeout=240)
    check(r.status == 0, "record %s" % name, r)
    return db


def gate(*args):
    return alphaprof(["gate"] + list(args), timeout=120)


def test_gate_stops_a_three_percent_slowdown_and_passes_an_unchanged_rebuild():
    d = tmpdir()
    try:
        images = build_variants(d)
        base = [record(d, "base%d" % i, images["base"], i) for i in (1, 2, 3)]
        same = record(d, "same", images["same"], 4)
        slow = record(d, "slow", images["slow"], 5)
        bases = sum((["--base", b] for b in base), [])

        ok = gate(*bases, "--db", same, "--json")
        check(ok.status == 0, "an unchanged rebuild passes (exit 0)", ok)
        j = json.loads(ok.out)
        check(j["verdict"] == "pass" and j["regressions"] == 0 and len(j["runs"]) == 4,
              "verdict pass, four runs read", ok)
        b = [r for r in j["rows"] if r["name"] and r["name"].startswith("mix_b")][0]
        check(abs(b["change"]) < 0.01 and b["counts"][0] > 10000,
              "mix_b unchanged within 1 %% on %d samples" % b["counts"][0], ok)

        bad = gate(*bases, "--db", slow, "--json")
        check(bad.status == 1, "the 3 % slowdown fails the gate (exit 1)", bad)
        j = json.loads(bad.out)
        regressed = [r for r in j["rows"] if r["verdict"] == "regression"]
        check(j["verdict"] == "fail" and len(regressed) == 1 and regressed[0]["name"].startswith("mix_b"),
              "mix_b alone is the regression", bad)
        check(0.02 < regressed[0]["change"] < 0.04 and regressed[0]["p_holm"] < 0.01,
              "its change (%.2f %%) is the 3 %% put in, significantly" % (100 * regressed[0]["change"]), bad)
        for r in j["rows"]:
            if r["name"] and r["name"][:5] in ("mix_a", "mix_c", "mix_d"):
                check(r["verdict"] == "same", "%s did not change" % r["name"], bad)
        text = gate(*bases, "--db", slow)
        check(text.status == 1 and "gate: FAIL: 1 significant regression beyond 2%" in text.out
              and any(l.startswith("regression") and "mix_b" in l for l in text.lines()),
              "the text names the regression and the verdict", text)

        loose = gate(*bases, "--db", slow, "--max-regress", "5%")
        check(loose.status == 0 and "gate: PASS" in loose.out, "a 3 % slowdown is inside --max-regress 5%", loose)
        better = gate("--base", slow, "--db", base[0], "--json")
        jb = json.loads(better.out)
        check(better.status == 0 and jb["improvements"] >= 1 and
              [r for r in jb["rows"] if r["verdict"] == "improvement"][0]["name"].startswith("mix_b"),
              "the other way round, one base run: mix_b is an improvement, exit 0", better)
    finally:
        cleanup(d)


def test_gate_bad_input_exits_2_with_one_line():
    d = tmpdir()
    try:
        missing = os.path.join(d, "nosuch.db")
        r = gate("--base", missing, "--db", missing)
        lines = r.err.strip().splitlines()
        check(r.status == 2 and len(lines) == 1 and missing in lines[0], "a missing database: exit 2, named", r)
        r = gate("--db", missing)
        check(r.status == 2 and "--base" in r.err, "no base run: a usage error", r)
        r = gate("--base", missing, "--max-regress", "two")
        check(r.status == 2 and "percentage" in r.err, "a bad threshold: a usage error", r)
        db = os.path.join(d, "p.db")
        rec = alphaprof(["record", "--deterministic", "--db", db, require(build_path("workloads", "hotspots.elf"))],
                        timeout=240)
        check(rec.status == 0, "record hotspots", rec)
        r = gate("--base", db, "--db", db, "--event", "dmiss")
        lines = r.err.strip().splitlines()
        check(r.status == 2 and len(lines) == 1 and "event" in lines[0], "an event no run has: exit 2", r)
        r = gate("--base", db, "--db", db)
        check(r.status == 0 and "gate: PASS" in r.out, "a run against itself passes", r)
    finally:
        cleanup(d)
