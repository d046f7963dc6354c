"""End-to-end: reports say when the profile is not the whole truth.  A
1200-baud link cannot carry the hardware model's cycle samples every ~1000
cycles over sprawl's many PCs: most are counted as dropped (link_full), so
report, annotate and check print one warning line before their table with
how many.  A clean run prints none.  Drop totals are samples; damaged
frames are counted apart.
"""
import os
import re

from harness import alphaprof, build_path, check, cleanup, require, tmpdir

WARN = re.compile(r"^alphaprof (report|annotate|check): warning: (\d+) of (\d+) samples taken "
                  r"\(([\d.]+)%\) were lost", re.M)


def test_report_annotate_check_warn_when_samples_were_lost():
    d = tmpdir()
    try:
        db, oracle = os.path.join(d, "p.db"), os.path.join(d, "o.oracle")
        img = require(build_path("workloads", "sprawl.elf"))
        # 1200 baud: the link carries about a tenth of what sprawl's counter
        # samples want however fast the host runs the board (at 9600 a host
        # at load 9 ran it so slowly that all of it fitted)
        r = alphaprof(["record", "--db", db, "--board", "clipper-pm", "--baud", "1200",
                       "--events", "cycles:1000-1100", "--oracle", oracle, img, "--", "1000"], timeout=120)
        check(r.status == 0, "the lossy record runs", r)
        m = re.search(r"; (\d+) samples dropped; (\d+) frames damaged or lost", r.err)
        check(m and int(m.group(1)) > 0, "record reports the dropped samples, frames apart", r)
        for cmd in (["report", "--db", db], ["annotate", "--db", db, "main"],
                    ["check", "--db", db, "--oracle", oracle]):
            c = alphaprof(cmd, timeout=60)
            check(c.status == 0, "%s runs" % cmd[0], c)
            w = WARN.search(c.err)
            check(w and w.group(1) == cmd[0] and int(w.group(2)) == int(m.group(1))
                  and float(w.group(4)) > 1.0,
                  "%s warns with the lost samples: %s" % (cmd[0], c.err.splitlines()[:2]), c)
            check(len(WARN.findall(c.err)) == 1, "one line", c)
    finally:
        cleanup(d)


def test_report_is_quiet_when_nothing_was_lost():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        img = require(build_path("workloads", "hello.elf"))
        r = alphaprof(["record", "--db", db, img, "--", "spin", "500"], timeout=60)
        check(r.status == 0 and "; 0 samples dropped; 0 frames damaged or lost" in r.err,
              "a clean run drops nothing", r)
        c = alphaprof(["report", "--db", db], timeout=60)
        check(c.status == 0 and "warning" not in c.err, "no warning on a whole profile", c)
    finally:
        cleanup(d)
