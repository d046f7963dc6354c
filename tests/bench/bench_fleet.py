"""The fleet store (issue 17): 1,000 runs pushed to a throwaway PostgreSQL
15 server (tests/e2e/pgserver.py), then a cross-run per-procedure trend
query (mix_b's samples in every run, by the run's start time) and one run
read back by `alphaprof report`.

The runs are ten real recordings of hotspots (period seeds 1..10), each
pushed 100 times as distinct runs (its creation time changed in a copy,
which is what makes a run new: util/fleet-store.h note 2)."""
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import time

import pgserver
from benchlib import Table
from harness import alphaprof, build_path, require

RUNS = 1000
RECORDINGS = 10


def mix_b_range(elf):
    p = subprocess.run(["alpha-linux-gnu-nm", "-S", "--defined-only", elf], capture_output=True, text=True, check=True)
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[3].startswith("mix_b"):
            return int(parts[0], 16), int(parts[0], 16) + int(parts[1], 16)
    raise RuntimeError("no mix_b in %s" % elf)


def run(build):
    t = Table("fleet", "Fleet store: %d runs in PostgreSQL 15 (one server, Unix socket)" % RUNS, ["what", "value"])
    pg = pgserver.Server().start()
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    try:
        elf = require(build_path("workloads", "hotspots.elf"))
        recs = []
        for s in range(1, RECORDINGS + 1):
            db = os.path.join(d, "rec%d.db" % s)
            r = alphaprof(["record", "--deterministic", "--seed", str(s), "--db", db, elf], timeout=300)
            if r.status != 0:
                raise RuntimeError("record failed:\n%s" % r)
            recs.append(db)
        uri = pg.uri()
        pushes = []
        for k in range(RUNS):
            db = os.path.join(d, "run.db")
            shutil.copy(recs[k % RECORDINGS], db)
            c = sqlite3.connect(db)
            c.execute("UPDATE meta SET value = ? WHERE key = 'created'", ("2026-01-01T00:00:%06d.000Z" % k,))
            c.execute("UPDATE epochs SET started = ? WHERE id = 1",
                      ("2026-%02d-%02dT%02d:00:00.000Z" % (1 + k // 300, 1 + k // 12 % 25, k % 24),))
            c.commit()
            c.close()
            start = time.perf_counter()
            r = alphaprof(["push", "--db", db, "--to", uri], timeout=120)
            pushes.append(time.perf_counter() - start)
            if r.status != 0:
                raise RuntimeError("push failed:\n%s" % r)
        again = alphaprof(["push", "--db", db, "--to", uri], timeout=120)
        runs = int(pg.psql("SELECT count(*) FROM fleet_runs"))
        rows = int(pg.psql("SELECT count(*) FROM samples"))
        lo, hi = mix_b_range(elf)
        base = int(pg.psql("SELECT min(address) FROM loadmaps l JOIN images i ON i.run = l.run AND i.id = l.image "
                           "WHERE i.name = 'hotspots'"))
        trend = ("SELECT r.started, sum(s.count) FROM fleet_runs r JOIN images i ON i.run = r.id AND i.name = 'hotspots' "
                 "JOIN samples s ON s.run = i.run AND s.image = i.id AND s.\"offset\" >= %d AND s.\"offset\" < %d "
                 "GROUP BY r.id, r.started ORDER BY r.started" % (lo - base, hi - base))
        times, got = [], ""
        for _ in range(5):
            start = time.perf_counter()
            got = pg.psql(trend)
            times.append(time.perf_counter() - start)
        points = len(got.splitlines())
        cmd_times, cmd_points = [], 0
        for _ in range(3):
            start = time.perf_counter()
            r = alphaprof(["trend", "--db", uri + "#workload=hotspots", "--last", "0", "--json", "mix_b"], timeout=120)
            cmd_times.append(time.perf_counter() - start)
            if r.status != 0:
                raise RuntimeError("trend failed:\n%s" % r)
            cmd_points = sum(1 for x in json.loads(r.out)["runs"] if x["found"])
        reads = []
        for k in (1, RUNS // 2, RUNS):
            start = time.perf_counter()
            r = alphaprof(["report", "--db", "%s#run=%d" % (uri, k)], timeout=120)
            reads.append(time.perf_counter() - start)
            if r.status != 0:
                raise RuntimeError("report from the fleet failed:\n%s" % r)
        t.add("runs stored (after %d pushes and one repeated)" % RUNS, runs)
        t.add("sample rows stored", rows)
        t.add("push, seconds per run (median / max)", "%.3f / %.3f" % (statistics.median(pushes), max(pushes)))
        t.add("all %d pushes, seconds" % RUNS, "%.1f" % sum(pushes))
        t.add("trend query: mix_b's samples in every run by start (median of 5, incl. psql start), s",
              "%.3f" % statistics.median(times))
        t.add("trend points returned", points)
        t.add("alphaprof trend mix_b --last 0 (every run; median of 3), s", "%.3f" % statistics.median(cmd_times))
        t.add("alphaprof trend points with mix_b found", cmd_points)
        t.add("alphaprof report of one fleet run (median of 3), s", "%.3f" % statistics.median(reads))
        t.target("cross-run per-procedure trend query", "%.3f s" % statistics.median(times), "<= 1 s",
                 statistics.median(times) <= 1.0)
        t.target("alphaprof trend over every run", "%.3f s" % statistics.median(cmd_times), "<= 1 s",
                 statistics.median(cmd_times) <= 1.0 and cmd_points == RUNS)
        t.target("pushing a run again stores it once", "%d runs" % runs, "%d" % RUNS,
                 runs == RUNS and again.status == 0)
        t.notes = ("Past one server: partition the per-run tables by the run's start month (declarative "
                   "partitioning on fleet_runs.started carried into each table), send trend queries to read "
                   "replicas, and keep pushes on the primary; run keys stay unique across partitions.")
    finally:
        shutil.rmtree(d, ignore_errors=True)
        pg.stop()
    return [t]
