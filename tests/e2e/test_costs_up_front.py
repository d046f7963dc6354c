"""End-to-end: record says what a recording costs and loses before it
starts (the numbers make bench measured, host-tools/util/run-costs.c), and
what it says holds: a short --pme-interval loses about the share it warned
of, every lost record counted."""
import json
import os
import re

from harness import alphaprof, build_path, check, cleanup, require, tmpdir


def record(d, *opts, image="hello"):
    oracle, db = os.path.join(d, "o.bin"), os.path.join(d, "p.db")
    r = alphaprof(["record", "--deterministic", "--oracle", oracle, "--db", db] + list(opts)
                  + [require(build_path("workloads", image + ".elf"))], timeout=240)
    check(r.status == 0, "record runs", r)
    return r, oracle, db


def test_record_says_the_time_limit_and_profileme_cost_before_the_run():
    d = tmpdir()
    try:
        r, _, _ = record(d, "--profileme")
        first = r.err.splitlines()[:2]
        check(len(first) == 2 and "ProfileMe costs the modelled core" in first[0]
              and "the run is stopped after 300 s" in first[1], "both notes come first", r)
        check("warning: --pme-interval" not in r.err, "no loss warning at the default interval", r)
        r, _, _ = record(d, "--timeout", "120")
        check(r.err.splitlines()[0].endswith("the run is stopped after 120 s of host time (--timeout; "
                                             "--timeout S to change)"), "an explicit limit is said as such", r)
        check("ProfileMe" not in r.err.splitlines()[0], "no ProfileMe note without ProfileMe", r)
    finally:
        cleanup(d)


def test_short_pme_interval_warns_at_start_and_loses_about_what_it_said():
    d = tmpdir()
    try:
        r, oracle, db = record(d, "--profileme", "--pme-interval", "2048-2176", image="qsort")
        m = re.search(r"warning: --pme-interval 2048-2176: .* expect about (\d+) % of the records lost", r.err)
        check(m and r.err.index(m.group(0)) < r.err.index("ProfileMe samples"), "warned before the summary", r)
        c = alphaprof(["check", "--oracle", oracle, "--db", db, "--json"])
        p = json.loads(c.out)["profileme"]
        lost = 100.0 * (p["produced"] - p["stored"]) / p["produced"]
        check(abs(lost - int(m.group(1))) <= 8, "lost %.1f %%, warned %s %%" % (lost, m.group(1)), c)
        check(p["balanced"] and p["ring_dropped"] > 0, "every lost record counted, most in the ring", c)
        r, _, _ = record(d, "--profileme", "--pme-interval", "4096-4400")
        check("warning: --pme-interval" not in r.err, "no warning from 4096 up", r)
    finally:
        cleanup(d)
