"""End-to-end: record says what a recording costs and loses before it
starts (the numbers make bench measured, host-tools/util/run-costs.c), and
what it says holds: a short --pme-interval loses about the share it warned
of, every lost record counted."""
import json
import os
import re
import sqlite3

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
              and "the run will be stopped after 300 s" in first[1], "both notes come first", r)
        check("warning: --pme-interval" not in r.err, "no loss warning at the default interval", r)
        r, _, _ = record(d, "--timeout", "120")
        check(r.err.splitlines()[0].endswith("the run will be stopped after 120 s of host time (--timeout; "
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
        r, _, _ = record(d, "--profileme", "--pme-interval", "3500-3800")
        check("warning: --pme-interval" not in r.err, "none where the measured loss is 0 %", r)
    finally:
        cleanup(d)


def test_a_short_paired_interval_says_the_monitors_own_share_and_it_holds():
    """Each paired record costs the monitor instructions of its own, which
    are fetched and sampled like the workload's: record says the share
    before the run, and the samples that land in the monitor show it."""
    d = tmpdir()
    try:
        r, _, db = record(d, "--paired", "--pme-interval", "8000-8800", image="hotspots")
        m = re.search(r"note: --pme-interval 8000-8800 \(per pair\): each pair costs the monitor about \d+ "
                      r"instructions of its own, so about (\d+) % of the samples land in the monitor", r.err)
        check(m and r.err.index(m.group(0)) < r.err.index("ProfileMe samples"), "said before the summary", r)
        con = sqlite3.connect(db)
        try:
            by_image = dict(con.execute("SELECT i.name, sum(p.samples) FROM pme p JOIN images i ON i.id = p.image "
                                        "GROUP BY i.name").fetchall())
        finally:
            con.close()
        monitor = sum(n for name, n in by_image.items() if name.startswith("monitor-"))
        share = 100.0 * monitor / sum(by_image.values())
        check(abs(share - int(m.group(1))) <= 15, "%.1f %% of the samples in the monitor, said %s %%"
              % (share, m.group(1)), r)
        r, _, _ = record(d, "--paired", "--pme-interval", "120000-128000", image="hello")
        check("samples land in the monitor" not in r.err, "nothing to say at the default pair interval", r)
    finally:
        cleanup(d)
