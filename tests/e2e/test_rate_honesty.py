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
        # within 10 %: the requested period would be off by its ratio to the
        # achieved one (14 times at load 8); what is left is the host's
        # stalls at the run's ends (5.9 % at load 8 on 2 cores)
        check(abs(per_core - run_ns(r.out)) < 0.10 * run_ns(r.out),
              "the estimate uses the achieved period %d ns (asked %d): %.0f vs %d ns"
              % (ev["period"], ev["requested_period"], per_core, run_ns(r.out)), r)
        text = alphaprof(["report", "--db", db]).out
        check(("achieved (10500 asked)" in text) == (ev["period"] != 10500),
              "report says the achieved period and the one asked when they differ", text)
    finally:
        cleanup(d)


def control_latency(board_out, frame):
    """The monitor's control latency line of one frame type (link-protocol.h
    section 6): cuts, cut us, answers, answer queued us, answers on the
    wire, on the wire us, line time us of the slowest, wait us at most."""
    m = re.search(r"monitor: control latency: %s, virtual time from arrival: (\d+) flushes begun within "
                  r"(\d+) us, (\d+) answered within (\d+) us; (\d+) on the wire within (\d+) us "
                  r"\((\d+) us of it line time\), waited at most (\d+) us" % frame, board_out)
    return tuple(int(x) for x in m.groups()) if m else None


def test_flush_now_is_answered_within_its_line_time_and_50_ms_at_the_shortest_period():
    """4 cores at the shortest period, 9600 and 115200 baud, deterministic
    and not, the daemon's reliable session asking FLUSH_NOW every 200 ms:
    the board begins every FLUSH_NOW's flush (the cut) within 50 ms of
    virtual time after the frame reached its UART, and its answer (the ACK
    after every core's FLUSH frame) leaves the line within the line time
    of the bytes sent since the cut (the data the flush covers and its
    FLUSH frames: link-bound, ~1 ms a byte at 9600) plus at most 50 ms
    (deterministic: without -icount virtual time is the host's, and a
    loaded host stalls the board for longer; those runs are measured by
    bench_rate).
    The daemon's LINK_ACKs are paced by the bytes it receives
    (link-protocol.h 5.8), so a FLUSH_NOW is served during the run even at
    9600 baud under -icount, where LINK_ACKs timed by the host's clock had
    kept every one waiting until the workload ended."""
    for baud, mode, spin in ((9600, ["--deterministic"], 800), (115200, ["--deterministic"], 400),
                             (9600, [], 3000), (115200, [], 3000)):
        d = tmpdir()
        board = daemon = None
        try:
            board, sock, img = start_board(d, spin, "--cores", "4", "--baud", str(baud),
                                           "--append", "period=1000-1000", *mode)
            db = os.path.join(d, "p.db")
            daemon = start_daemon(d, sock, db, img, "--flush-every", "200")
            rc = daemon.wait(240)
            board.wait(60)
            what = "%d baud %s" % (baud, mode)
            check(rc == 0, "the daemon ends with the board", daemon)
            out = board.out()
            flush = control_latency(out, "FLUSH_NOW")
            start = control_latency(out, "START")
            # without -icount at 115200 the cut is the loaded host's (136 ms at load 12): bench_rate
            check(flush and flush[0] >= 1 and (flush[1] <= 50000 or not mode and baud > 9600),
                  "FLUSH_NOW cut within 50 ms virtual at %s: %s" % (what, flush), board)
            check(flush[4] >= 1 and flush[4] == flush[2],
                  "every FLUSH_NOW answered during the run left the line (%s): %s" % (what, flush), board)
            # (without -icount its 50 ms are the host's too: 54 ms at load 8)
            check(start and start[2] == 1 and (start[3] <= 50000 or not mode),
                  "START answered within 50 ms virtual at %s: %s" % (what, start), board)
            if mode:    # without -icount virtual time is the host's: a loaded host stalls the board
                check(flush[7] <= 50000 and flush[5] <= flush[6] + 50000,
                      "FLUSH_NOW's answer waited at most 50 ms beyond its line time at %s: %s" % (what, flush),
                      board)
                check(start[7] <= 50000, "START's answer waited at most 50 ms beyond its line time at %s: %s"
                      % (what, start), board)
            notes = [l for l in daemon.err().splitlines() if "cannot keep the timer period 1000-1000 ns" in l]
            check(len(notes) == 1 and "samples every 2800..2800 ns" in notes[0],
                  "the daemon says at the session's start what the board samples at (HELLO)", daemon)
            acks = re.search(r"daemon: \d+ LINK_ACK sent: (\d+) bytes within their budget \([0-9.]+% of the (\d+) "
                             r"received\)", daemon.out())
            check(acks and int(acks.group(1)) <= int(acks.group(2)) // 4 + 64,
                  "LINK_ACK bytes within their budget stay within a quarter of the bytes received and the "
                  "first LINK_ACK (5.8): %s" % (acks and acks.group(0)), daemon)
        finally:
            for p in (daemon, board):
                if p:
                    p.stop()
            cleanup(d)
