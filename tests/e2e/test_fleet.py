"""End-to-end: the PostgreSQL fleet store, on a throwaway PostgreSQL 15
server (tests/e2e/pgserver.py).  Real recordings are pushed (twice: stored
once), read back by report, diff, stats, gate and html through
--db postgresql://...#selection exactly as from their files, and bad
URIs or selections are one clear line.  Where the server cannot start on
this machine the test says why and does nothing else."""
import json
import os
import sqlite3

import pgserver
from harness import alphaprof, build_path, check, cleanup, require, tmpdir


def record(d, name, image, seed):
    db = os.path.join(d, name + ".db")
    r = alphaprof(["record", "--deterministic", "--seed", str(seed), "--db", db,
                   require(build_path("workloads", image))], timeout=240)
    check(r.status == 0, "record %s" % name, r)
    return db


def report(db):
    r = alphaprof(["report", "--db", db, "--json", "--limit", "0"])
    check(r.status == 0, "report --db %s" % db, r)
    return json.loads(r.out)


def test_fleet_store_push_is_idempotent_and_every_reader_reads_it():
    try:
        pg = pgserver.Server().start()
    except pgserver.Unavailable as e:
        print("SKIPPED: no PostgreSQL server could be started here: %s" % e)
        return
    d = tmpdir()
    try:
        uri = pg.uri()
        a = record(d, "a", "hotspots.elf", 1)
        b = record(d, "b", "hotspots.elf", 2)
        c = record(d, "c", "qsort.elf", 3)
        first = alphaprof(["push", "--db", a, "--to", uri])
        again = alphaprof(["push", "--db", a, "--to", uri])
        check(first.status == 0 and "stored as run 1" in first.out and again.status == 0 and
              "stored as run 1 (replacing its earlier push)" in again.out and not again.err,
              "pushing twice: run 1 both times, quietly", again)
        local = sqlite3.connect(a)
        rows, total = local.execute("SELECT count(*), sum(count) FROM samples").fetchone()
        tables = [t for (t,) in local.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for t in tables:
            n, = local.execute('SELECT count(*) FROM "%s"' % t).fetchone()
            check(pg.psql('SELECT count(*) FROM "%s"' % t) == str(n), "table %s stored once, every row (%d)" % (t, n))
        check(pg.psql("SELECT count(*), sum(count) FROM samples") == "%d|%d" % (rows, total), "samples stored once")
        for db in (b, c):
            r = alphaprof(["push", "--db", db, "--to", uri])
            check(r.status == 0, "push %s" % db, r)
        check(pg.psql("SELECT count(*) FROM fleet_runs") == "3", "three runs")
        build_id = local.execute("SELECT lower(hex(build_id)) FROM images WHERE name = 'hotspots'").fetchone()[0]
        check(pg.psql("SELECT count(*) FROM fleet_images WHERE name = 'hotspots' AND encode(build_id, 'hex') = '%s'"
                      % build_id) == "1", "the hotspots build is kept once by its build-id")

        # read back: the same numbers as from the file
        here, there = report(a), report(uri + "#run=1")
        check(here["procedures"] == there["procedures"] and here["events"] == there["events"],
              "report reads run 1 exactly as the file")
        check(report(uri + "#workload=qsort")["procedures"] == report(c)["procedures"], "selected by workload")
        check(report(uri + "#workload=hotspots")["procedures"] == report(b)["procedures"],
              "the newest matching run (b)")
        check(report(uri + "#workload=hotspots&nth=1")["procedures"] == here["procedures"], "nth=1: the one before")
        check(report(uri + "#build_id=" + build_id + "&board=clipper&since=2000-01-01")["events"][0]["total"] > 0,
              "selected by build-id, board and time")
        r = alphaprof(["diff", "--db", uri + "#run=1", "--db2", a, "--json", "--limit", "0"])
        check(r.status == 0 and all(x["delta"] == 0 for x in json.loads(r.out)["rows"]), "diff: run 1 is the file", r)
        r = alphaprof(["stats", "--db", uri + "#run=1", "--db", uri + "#run=2", "--json"])
        check(r.status == 0 and len(json.loads(r.out)["sets"]) == 2, "stats across two fleet runs", r)
        r = alphaprof(["gate", "--base", uri + "#run=1", "--db", uri + "#run=2"])
        check(r.status == 0 and "gate: PASS" in r.out, "gate between two fleet runs", r)
        out = os.path.join(d, "fleet.html")
        r = alphaprof(["html", "--db", uri + "#run=3", "-o", out])
        check(r.status == 0 and os.path.getsize(out) > 10000, "html from a fleet run", r)

        # trend: a procedure across the runs, oldest first, each point what
        # report reads from that run's own file
        r = alphaprof(["trend", "--db", uri + "#workload=hotspots", "mix_b", "--json"])
        check(r.status == 0, "trend of mix_b over the hotspots runs", r)
        tr = json.loads(r.out)
        check([x["run"] for x in tr["runs"]] == [1, 2] and tr["event"] == "timer",
              "the two hotspots runs, oldest first, on the timer: %s" % [x["run"] for x in tr["runs"]], r)
        for x, db in zip(tr["runs"], (a, b)):
            rep = report(db)
            # mix_b is mix_b.constprop.0 in this build: trend finds GCC's clone
            mine = [p["samples"][0] for p in rep["procedures"]
                    if p["name"].split(".")[0] == "mix_b" and p["image"] == "hotspots"]
            check(x["found"] and mine and x["samples"] == mine[0] and x["total"] == rep["events"][0]["total"],
                  "run %d: %s of %s in mix_b, as report of its file (%s of %s)"
                  % (x["run"], x.get("samples"), x["total"], mine, rep["events"][0]["total"]), r)
            check(x["ci"][0] <= x["share"] <= x["ci"][1] and x["build_id"] == build_id, "share within its interval", r)
        t = alphaprof(["trend", "--db", uri + "#workload=hotspots", "--last", "1", "mix_b"])
        check(t.status == 0 and "over 1 run" in t.out and len([l for l in t.out.splitlines() if l.strip().startswith("2 ")]) == 1,
              "--last 1: the newest run only", t)
        t = alphaprof(["trend", "--db", uri + "#workload=hotspots", "no_such_procedure"])
        check(t.status == 0 and t.out.count("procedure not found") == 2, "a procedure no build has: said per run", t)
        t = alphaprof(["trend", "--db", a, "mix_b"])
        check(t.status == 2 and "fleet store" in t.err, "trend of a file: a usage error naming the fleet store", t)

        # bad input: one line each
        r = alphaprof(["report", "--db", uri + "#colour=red"])
        check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and "colour=red" in r.err, "an unknown key", r)
        r = alphaprof(["report", "--db", uri + "#run=99"])
        check(r.status == 1 and "no run matching" in r.err, "no such run", r)
        gone = "postgresql:///postgres?host=%s&user=fleet" % os.path.join(d, "nosocket")
        r = alphaprof(["report", "--db", gone + "#run=1"])
        check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and "cannot reach the fleet store" in r.err,
              "an unreachable store: one line", r)
        r = alphaprof(["record", "--db", uri, require(build_path("workloads", "hotspots.elf"))], timeout=120)
        check(r.status != 0 and "alphaprof push" in r.err, "record does not write to the fleet store: says how", r)
        r = alphaprof(["push", "--db", a])
        check(r.status == 2 and "--to" in r.err, "push without --to: a usage error", r)
    finally:
        cleanup(d)
        pg.stop()


def test_daemon_pushes_its_spool_to_the_fleet_store():
    from test_daemon import Proc, start_board, stored
    try:
        pg = pgserver.Server().start()
    except pgserver.Unavailable as e:
        print("SKIPPED: no PostgreSQL server could be started here: %s" % e)
        return
    d = tmpdir()
    board = daemon = None
    try:
        uri = pg.uri()
        gone = "postgresql:///postgres?host=%s&user=fleet" % os.path.join(d, "nosocket")
        r = alphaprof(["daemon", "--link", "unix:" + os.path.join(d, "none.sock"), "--db", gone,
                       "--spool", os.path.join(d, "s0.db")])
        check(r.status == 2 and "cannot reach the fleet store" in r.err, "an unreachable store: exit 2 before the link", r)
        board, sock, img = start_board(d, 3000)
        spool = os.path.join(d, "spool.db")
        daemon = Proc(d, "daemon", ["daemon", "--link", "unix:" + sock, "--db", uri, "--spool", spool,
                                    "--push-every", "1", "-v", img])
        rc = daemon.wait(120)
        board.wait(60)
        check(rc == 0, "the daemon ends with the board", daemon)
        pushes = daemon.out().count("daemon: pushed %s to the fleet store as run 1" % spool)
        check(pushes >= 2, "pushed while running and at the end (%d pushes), always run 1" % pushes, daemon)
        check(pg.psql("SELECT count(*) FROM fleet_runs") == "1", "one run for the spool")
        total = stored(spool)
        check(total > 0 and pg.psql("SELECT sum(count) FROM samples") == str(total),
              "the store holds every sample of the spool (%d)" % total)
        here, there = report(spool), report(uri + "#run=1")
        check(here["procedures"] == there["procedures"], "report reads the daemon's run as its spool")
    finally:
        for p in (daemon, board):
            if p:
                p.stop()
        cleanup(d)
        pg.stop()
