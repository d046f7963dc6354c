"""End-to-end: alphaprof record runs a workload with the on-target profiler
and fills the database over the real profile link; alphaprof report reads
it back.  Sample totals are checked against the monitor's own count, so no
sample is lost or invented on the way.
"""
import json
import os
import re
import subprocess

from harness import alphaprof, build_path, check, cleanup, require, tmpdir


def monitor_samples(r):
    m = re.search(r"monitor: profile: (\d+) samples, .* (\d+) dropped", r.out)
    check(m, "the monitor prints its profile summary", r)
    return int(m.group(1)), int(m.group(2))


def db_total(db):
    return int(subprocess.run(["sqlite3", db, "SELECT coalesce(sum(count),0) FROM samples"],
                              capture_output=True, text=True).stdout.strip() or 0)


def test_record_stores_every_sample_and_report_finds_the_hot_loop():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        img = require(build_path("workloads", "chase.elf"))
        r = alphaprof(["record", "--deterministic", "--db", db, "--period", "20000-24000", img], timeout=120)
        check(r.status == 0 and any(l.startswith("chase: ok") for l in r.lines()), "record runs chase", r)
        taken, dropped = monitor_samples(r)
        check(taken > 1000, "a useful number of samples", r)
        check(db_total(db) + dropped == taken, "database holds every sample the monitor took", r)
        rep = alphaprof(["report", "--db", db, "--json"])
        check(rep.status == 0, "report runs", rep)
        j = json.loads(rep.out)
        check(j["events"][0]["name"] == "timer" and j["events"][0]["total"] == db_total(db),
              "report totals match the database", rep)
        top = j["procedures"][0]
        check(top["name"] == "chase" and top["image"] == "chase",
              "the pointer-chasing loop is the top procedure", rep)
        text = alphaprof(["report", "--db", db])
        check(re.search(r"^\s+\d+\s+[\d.]+\s+[\d.]+\s+chase\s+chase$", text.out, re.M),
              "the text report lists chase with counts and percentages", text)
    finally:
        cleanup(d)


def test_record_on_four_cores_attributes_every_core():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        img = require(build_path("workloads", "parallel.elf"))
        r = alphaprof(["record", "--cores", "4", "--deterministic", "--db", db, "--period", "10000-12000", img],
                      timeout=120)
        check(r.status == 0, "record on 4 cores", r)
        taken, dropped = monitor_samples(r)
        check(db_total(db) + dropped == taken, "every sample of every core is stored", r)
        cores = subprocess.run(["sqlite3", db, "SELECT count(DISTINCT core) FROM samples"],
                               capture_output=True, text=True).stdout.strip()
        check(cores == "4", "samples from all 4 cores", r)
        rep = alphaprof(["report", "--db", db, "--core", "2", "--json"])
        top = json.loads(rep.out)["procedures"][0]
        # gcc inlines sum_of_squares into core_main
        check(top["name"] in ("core_main", "sum_of_squares") and top["image"] == "parallel",
              "core 2 spends its time in its slice of the sum", rep)
    finally:
        cleanup(d)


def test_report_errors_are_clear():
    d = tmpdir()
    try:
        r = alphaprof(["report", "--db", os.path.join(d, "missing.db")])
        check(r.status != 0 and "missing.db" in r.err, "a missing database is named", r)
        junk = os.path.join(d, "junk.db")
        with open(junk, "w") as f:
            f.write("not a database at all\n" * 100)
        r = alphaprof(["report", "--db", junk])
        check(r.status != 0 and "junk.db" in r.err and "Traceback" not in r.err, "a foreign file is refused", r)
        r = alphaprof(["report", "--epoch", "zero"])
        check(r.status == 2 and "--epoch" in r.err, "a bad option is named", r)
    finally:
        cleanup(d)


def test_annotate_shows_source_disassembly_and_samples():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        img = require(build_path("workloads", "chase.elf"))
        r = alphaprof(["record", "--deterministic", "--db", db, "--period", "5000-6000", img], timeout=120)
        check(r.status == 0, "record chase", r)
        a = alphaprof(["annotate", "--db", db, "--json", "chase"])
        check(a.status == 0, "annotate runs", a)
        j = json.loads(a.out)
        insns = j["instructions"]
        check(sum(i["samples"][0] for i in insns) == j["events"][0]["procedure"] > 1000,
              "per-instruction samples add up to the procedure's", a)
        load = [i for i in insns if i["instruction"].startswith("ldq\tv0,0(v0)")]
        check(load and load[0]["file"].endswith("workloads/chase/chase.c") and load[0]["samples"][0] > 0,
              "the chasing load is disassembled, placed in chase.c and sampled", a)
        # Objdump, an independent disassembler, agrees on every instruction.
        dis = subprocess.run(["alpha-linux-gnu-objdump", "-d", img], capture_output=True, text=True).stdout
        for i in insns:
            m = re.search(r"^\s*%x:\s+(?:[0-9a-f]{2} ){4}\s*(\S+)" % i["address"], dis, re.M)
            check(m and i["instruction"].split("\t")[0] == m.group(1),
                  "instruction at %x matches objdump" % i["address"], a)
        t = alphaprof(["annotate", "--db", db, "chase"])
        check("while (steps-- > 0)" in t.out, "the text shows the source line", t)
        bad = alphaprof(["annotate", "--db", db, "no_such_function"])
        check(bad.status == 1 and "no_such_function" in bad.err, "an unknown procedure is named", bad)
    finally:
        cleanup(d)


def test_append_overrides_records_own_keys():
    # --append goes on the boot command line after record's own keys, and
    # the monitor takes the last of a key: the user's events win.
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        r = alphaprof(["record", "--model", "counters", "--db", db, "--events", "cycles:6000-6400",
                       "--append", "events=loads:2000-2100",
                       require(build_path("workloads", "qsort.elf"))], timeout=120)
        check(r.status == 0, "record with --append", r)
        names = subprocess.run(["sqlite3", db, "SELECT DISTINCT n.name FROM samples s JOIN names n "
                                "ON n.kind = 'event' AND n.idx = s.event"], capture_output=True, text=True)
        check(names.stdout.split() == ["loads"], "only the appended event sampled: %r" % names.stdout, names)
    finally:
        cleanup(d)
