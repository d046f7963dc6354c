"""End-to-end: the profiler delivers the period asked for or says what it
delivers instead, never livelocks, and answers the host's control frames by
its own clock (issue 12, rate honesty).

Truths used: the monitor's "run time N ns" line (virtual time of the run,
exact under --deterministic), its warning and "control latency" lines, and
the FLUSH stats the database keeps per core (timer_ns / timer_timed: the
period each core achieved, view achieved_periods).  Nothing here asserts on
wall-clock time: host timeouts only bound how long a test may take.
"""
import json
import os
import re
import sqlite3

from harness import alphaprof, build_path, check, cleanup, require, tmpdir
from test_daemon import start_board, start_daemon

# firmware/profiler/timer-source.c: the floor of N cores sharing virtual time
TICK_COST_NS, WORKLOAD_SHARE = 350, 2


def q(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def run_ns(out):
    m = re.search(r"monitor: run time (\d+) ns", out)
    return int(m.group(1)) if m else None


def record(db, *opts, image="hello.elf", args=("spin", "50"), timeout=240):
    img = require(build_path("workloads", image))
    return alphaprof(["record", "--db", db, "--timeout", str(timeout - 30)] + list(opts) + [img, "--"] + list(args),
                     timeout=timeout)


def report_json(db):
    r = alphaprof(["report", "--db", db, "--json"])
    check(r.status == 0, "report reads the database", r)
    return json.loads(r.out)["events"][0]


def test_four_cores_at_the_shortest_period_end_and_say_what_they_sample_at():
    d = tmpdir()
    try:
        floor = 4 * TICK_COST_NS * WORKLOAD_SHARE
        for mode in (["--deterministic"], []):
            db = os.path.join(d, "p%d.db" % len(mode))
            r = record(db, "--cores", "4", "--period", "1000-1000", *mode)
            check(r.status == 0 and "hello: spun" in r.out, "the 50 ms workload ends %s" % mode, r)
            warn = [l for l in r.out.splitlines() if l.startswith("monitor: warning: period=1000-1000")]
            check(len(warn) == 1 and "sampling every %d..%d ns instead" % (floor, floor) in warn[0],
                  "one line at start says the period cannot be kept and what is sampled instead", r)
            achieved = dict(q(db, "SELECT core, period FROM achieved_periods"))
            check(sorted(achieved) == [0, 1, 2, 3] and all(p >= floor for p in achieved.values()),
                  "every core's achieved period is stored, none below the floor: %s" % achieved, r)
            ev = report_json(db)
            check(ev["requested_period"] == floor, "the database keeps the period the board set out to keep")
            missed = q(db, "SELECT sum(value) FROM stats WHERE name = 'missed_deadlines'")[0][0]
            check(missed is not None, "deadlines the board could not keep are counted", r)
    finally:
        cleanup(d)


def test_achieved_period_is_stored_and_time_estimates_use_it():
    """Deterministic at 20-24 us the period is kept: achieved within 1 % of
    22 us.  Without -icount at 10-11 us the host may not deliver it: the
    achieved period is whatever it was, and samples x achieved period still
    add up to the run's virtual time on every core (the estimate report
    prints), where the requested period would not if it was missed."""
    d = tmpdir()
    try:
        db = os.path.join(d, "det.db")
        r = record(db, "--deterministic", "--cores", "2", "--period", "20000-24000",
                   image="chase.elf", args=())
        check(r.status == 0, "chase runs", r)
        achieved = dict(q(db, "SELECT core, period FROM achieved_periods"))
        check(all(abs(p - 22000) < 220 for p in achieved.values()) and len(achieved) == 2,
              "a period the board can keep is achieved (%s vs 22000)" % achieved, r)
        ev = report_json(db)
        per_core = ev["estimate"] / ev["cores"]
        check(abs(per_core - run_ns(r.out)) < 0.02 * run_ns(r.out),
              "samples x achieved period = the run's virtual time (%.0f vs %d ns)" % (per_core, run_ns(r.out)), r)

        db = os.path.join(d, "fast.db")
        r = record(db, "--cores", "2", "--period", "10000-11000", args=("spin", "1000"))
        check(r.status == 0, "hello runs", r)
        ev = report_json(db)
        per_core = ev["estimate"] / ev["cores"]
        check(abs(per_core - run_ns(r.out)) < 0.05 * run_ns(r.out),
              "the estimate uses the achieved period %d ns (asked %d): %.0f vs %d ns"
              % (ev["period"], ev["requested_period"], per_core, run_ns(r.out)), r)
        text = alphaprof(["report", "--db", db]).out
        check(("achieved (10500 asked)" in text) == (ev["period"] != 10500),
              "report says the achieved period and the one asked when they differ", text)
    finally:
        cleanup(d)


def control_latency(board_out, frame):
    m = re.search(r"monitor: control latency: %s, virtual time from arrival: (\d+) flushes begun within "
                  r"(\d+) us, (\d+) answered within (\d+) us" % frame, board_out)
    return tuple(int(x) for x in m.groups()) if m else None


def test_flush_now_is_cut_within_50_ms_of_virtual_time_at_the_shortest_period():
    """4 cores at the shortest period, 115200 baud deterministic and 9600
    baud not: the board begins every FLUSH_NOW's flush (the cut: what it
    covers is decided) within 50 ms of virtual time after the frame reached
    its UART, and START is answered at once.  At 115200 baud the answer,
    which follows the data the flush covers, comes within 150 ms."""
    for baud, mode, spin in ((115200, ["--deterministic"], 400), (9600, [], 3000)):
        d = tmpdir()
        board = daemon = None
        try:
            board, sock, img = start_board(d, spin, "--cores", "4", "--baud", str(baud),
                                           "--append", "period=1000-1000", *mode)
            db = os.path.join(d, "p.db")
            daemon = start_daemon(d, sock, db, img, "--flush-every", "200")
            rc = daemon.wait(240)
            board.wait(60)
            check(rc == 0, "the daemon ends with the board", daemon)
            out = board.out()
            flush = control_latency(out, "FLUSH_NOW")
            start = control_latency(out, "START")
            check(flush and flush[0] >= 1 and flush[1] <= 50000,
                  "FLUSH_NOW cut within 50 ms virtual at %d baud: %s" % (baud, flush), board)
            check(start and start[2] == 1 and start[3] <= 50000,
                  "START answered within 50 ms virtual at %d baud: %s" % (baud, start), board)
            notes = [l for l in daemon.err().splitlines() if "cannot keep the timer period 1000-1000 ns" in l]
            check(len(notes) == 1 and "samples every 2800..2800 ns" in notes[0],
                  "the daemon says at the session's start what the board samples at (HELLO)", daemon)
            if baud == 115200:
                check(flush[3] <= 150000, "FLUSH_NOW answered within 150 ms at 115200: %s" % (flush,), board)
        finally:
            for p in (daemon, board):
                if p:
                    p.stop()
            cleanup(d)
