"""Analysis speed (issue 5): `report` over a database of more than 10 M
samples and `annotate` of a large procedure, each the median of five runs.

The database is a real recording (qsort twice, three hardware events at a
short period) whose rows are copied into 30 epochs, so `report --epoch all`
reads ~48 K rows holding ~11 M samples, the shape a long continuous
profile has after DCPI-style aggregation.
"""
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from benchlib import Table
from harness import alphaprof, build_path, require

EPOCHS = 30


def timed(args, runs=5):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        r = alphaprof(args, timeout=120)
        times.append(time.perf_counter() - start)
        if r.status != 0:
            raise RuntimeError("%s failed:\n%s" % (" ".join(args), r))
    return statistics.median(times)


def sql(db, text):
    p = subprocess.run(["sqlite3", db, text], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("sqlite3: %s" % p.stderr)
    return p.stdout.strip()


def run(build):
    t = Table("analysis", "Analysis speed on a large database (median of 5 runs)",
              ["command", "rows", "samples", "seconds"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    try:
        db = os.path.join(d, "big.db")
        r = alphaprof(["record", "--deterministic", "--events",
                       "cycles:1000-1100,retired:1000-1100,loads:1000-1100", "--db", db,
                       require(build_path("workloads", "qsort.elf")), "--", "2"], timeout=600)
        if r.status != 0:
            raise RuntimeError("record failed:\n%s" % r)
        sql(db, "WITH RECURSIVE k(e) AS (SELECT 2 UNION ALL SELECT e + 1 FROM k WHERE e < %d) "
                "INSERT INTO epochs(id, started, ended, note) SELECT e, '2026-01-01T00:00:00Z', "
                "'2026-01-01T00:00:01Z', 'bench copy' FROM k; "
                "WITH RECURSIVE k(e) AS (SELECT 2 UNION ALL SELECT e + 1 FROM k WHERE e < %d) "
                "INSERT INTO samples SELECT k.e, image, event, core, offset, count "
                "FROM samples, k WHERE samples.epoch = 1;" % (EPOCHS, EPOCHS))
        rows, samples = (int(x) for x in sql(db, "SELECT count(*), sum(count) FROM samples").split("|"))
        report = timed(["report", "--db", db, "--epoch", "all"])
        annotate = timed(["annotate", "--db", db, "--epoch", "all", "_vfprintf_r"])
        size = sql(db, "SELECT count(*) FROM samples WHERE epoch = 1")
        t.add("report --epoch all", rows, samples, report)
        t.add("annotate _vfprintf_r (newlib's printf core)", rows, samples, annotate)
        t.target("report over %.1f M samples" % (samples / 1e6), "%.3f s" % report, "<= 1 s", report <= 1.0)
        t.target("annotate of a large procedure", "%.3f s" % annotate, "<= 0.5 s", annotate <= 0.5)
        t.notes = ("Times include process start, opening the database and reading the ELF's "
                   "symbols and DWARF (libdw). %s rows per epoch." % size)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return [t]
