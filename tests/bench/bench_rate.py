"""Rate honesty (issue 12): 4 cores at the shortest legal period, with and
without --deterministic, at 9600 and 115200 baud, a daemon asking FLUSH_NOW
every 200 ms: does the run end, how long (virtual time, the monitor's
"control latency" lines) until the board cuts and answers FLUSH_NOW, and
which period each core achieved (the database's achieved_periods) against
the one asked.  Then the profiler's overhead at the default rate in the
hardware model's cycles, side by side with the unprofiled run, as
bench_profiler.model_costs measures it (cycle counter) and for the timer,
with link bytes per sample.
"""
import os
import re
import shutil
import sqlite3
import tempfile

from benchlib import Table
from bench_profiler import MODEL_REPEAT, oracle_cycles, profile_line
from harness import alphaprof, build_path, require
from test_daemon import best_stretch_rate, low_baud_run, start_board, start_daemon

SPIN_MS = {"det": 800, "fast": 3000}
# The overhead is measured at bench_profiler's full length (MODEL_REPEAT:
# ~0.9 G instructions a run): short runs weigh the fixed costs (start-up
# frames, final flush) and overstate it.
OVERHEAD_REPEAT = {w: MODEL_REPEAT[w] for w in ("copy", "qsort")}


def latency(out, frame):
    """The monitor's control latency line (link-protocol.h section 6): cuts,
    cut us, answers, queued us, on the wire n, on the wire us, its line
    time us, wait us at most."""
    m = re.search(r"monitor: control latency: %s, virtual time from arrival: (\d+) flushes begun within "
                  r"(\d+) us, (\d+) answered within (\d+) us; (\d+) on the wire within (\d+) us "
                  r"\((\d+) us of it line time\), waited at most (\d+) us" % frame, out)
    return [int(x) for x in m.groups()] if m else None


def ack_share(out):
    m = re.search(r"daemon: \d+ LINK_ACK sent: (\d+) bytes within their budget \([0-9.]+% of the (\d+) received\)"
                  r", (\d+) past it", out)
    return (100.0 * int(m.group(1)) / max(1, int(m.group(2))), int(m.group(3))) if m else None


def rate_run(baud, det):
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    board = daemon = None
    try:
        mode = ["--deterministic"] if det else []
        board, sock, img = start_board(d, SPIN_MS["det" if det else "fast"], "--cores", "4", "--baud", str(baud),
                                       "--append", "period=1000-1000", *mode)
        db = os.path.join(d, "p.db")
        daemon = start_daemon(d, sock, db, img, "--flush-every", "200")
        rc = daemon.wait(900)
        board.wait(120)
        out = board.out()
        ended = rc == 0 and "hello: spun" in out
        acks = ack_share(daemon.out())
        con = sqlite3.connect(db)
        achieved = [p for _, p in con.execute("SELECT core, period FROM achieved_periods ORDER BY core")]
        asked = con.execute("SELECT avg(period) FROM periods WHERE event = 255").fetchone()[0]
        missed = con.execute("SELECT sum(value) FROM stats WHERE name = 'missed_deadlines'").fetchone()[0]
        con.close()
        return ended, latency(out, "FLUSH_NOW"), latency(out, "START"), asked, achieved, missed, acks
    finally:
        for p in (daemon, board):
            if p:
                p.stop()
        shutil.rmtree(d, ignore_errors=True)


def rate_table():
    t = Table("rate_shortest_period", "4 cores at the shortest legal period (period=1000-1000), daemon FLUSH_NOW "
              "every 200 ms host time; virtual time from a control frame's arrival (link-protocol.h section 6)",
              ["mode", "baud", "ended", "FLUSH_NOW n", "cut <= ms", "ACK queued <= ms", "on the wire <= ms",
               "its line time ms", "waited <= ms", "START on the wire ms", "LINK_ACK % of bytes (forced)",
               "period asked ns", "achieved per core ns", "missed deadlines"])
    worst_cut, worst_wait_det, all_ended = 0.0, 0.0, True
    for det in (True, False):
        for baud in (9600, 115200):
            ended, fl, st, asked, achieved, missed, acks = rate_run(baud, det)
            all_ended = all_ended and ended
            if fl:
                worst_cut = max(worst_cut, fl[1] / 1000)
                if det:
                    worst_wait_det = max(worst_wait_det, fl[7] / 1000)
            t.add("deterministic" if det else "parallel", baud, "yes" if ended else "NO",
                  fl[0] if fl else 0, fl[1] / 1000 if fl else "-", fl[3] / 1000 if fl else "-",
                  fl[5] / 1000 if fl else "-", fl[6] / 1000 if fl else "-", fl[7] / 1000 if fl else "-",
                  st[5] / 1000 if st else "-", "%.1f (%d)" % acks if acks else "-", asked or "-",
                  " ".join(str(p) for p in achieved), missed)
    t.target("every run ends", "yes" if all_ended else "no", "all", all_ended)
    t.target("FLUSH_NOW cut, virtual time from its arrival", "%.1f ms" % worst_cut, "<= 50 ms", worst_cut <= 50)
    t.target("FLUSH_NOW answer's wait beyond its line time, deterministic", "%.1f ms" % worst_wait_det,
             "<= 50 ms", worst_wait_det <= 50)
    t.notes = ("Cut: the board begins the flush (what FLUSH_NOW covers is decided). On the wire: the last byte "
               "of its ACK left the UART; the ACK follows the data the flush covers and every core's FLUSH "
               "frame, so the host has the whole flush then. Line time: of that, the time the line carried "
               "bytes sent since the cut (link-bound: ~1 ms a byte at 9600 baud, four FLUSH frames alone are "
               "~250 bytes); waited: the rest, what the board or its host added. Deterministic: -icount, the "
               "4 cores share virtual time, so the timer samples at its floor (4 x 350 ns x 2 = 2800 ns). "
               "Parallel: virtual time is host time; the achieved period and the waits are what the loaded "
               "host delivered. LINK_ACK bytes are paced by the bytes received (link-protocol.h 5.8).")
    return t


def asked_table():
    """Issue 12 saw --period 10000-11000 give the default's ~15 K samples/s
    while the database kept 10500: the same workload, 1 core, without
    -icount, side by side at both periods."""
    t = Table("rate_asked_vs_achieved", "Period asked against achieved, parallel mode (virtual time = host time), "
              "hello spin 2000, 1 core, side by side",
              ["period asked", "samples", "samples/s (virtual)", "achieved ns", "missed deadlines",
               "estimate / run time"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    try:
        img = require(build_path("workloads", "hello.elf"))
        for period in ("60000-64000", "10000-11000"):
            db = os.path.join(d, period + ".db")
            r = alphaprof(["record", "--timeout", "120", "--db", db, "--period", period, img, "--", "spin", "2000"],
                          timeout=200)
            m = re.search(r"monitor: run time (\d+) ns", r.out)
            if r.status != 0 or not m:
                raise RuntimeError("record failed:\n%s" % r)
            ns = int(m.group(1))
            samples = profile_line(r)[0]
            con = sqlite3.connect(db)
            achieved = con.execute("SELECT period FROM achieved_periods WHERE core = 0").fetchone()[0]
            missed = con.execute("SELECT sum(value) FROM stats WHERE name = 'missed_deadlines'").fetchone()[0]
            con.close()
            t.add(period, samples, samples / (ns / 1e9), achieved, missed, samples * achieved / ns)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.notes = ("Without -icount the host delivers each alarm; a loaded host delivers them late, so the "
               "achieved period is whatever it could do. The database stores it per core and report's "
               "estimate (samples x achieved period) stays the run's virtual time.")
    return t


def full_link_table(runs=3, baud=9600):
    """How close a full 9600-baud link comes to its rate: test_daemon's
    low-baud scenario (more load than the line carries, the target's own
    drains), the best stretch of >= 0.5 s between two FLUSH frames.  A
    throughput, so a bench and not a test: without -icount virtual time is
    host time, and a loaded host that starves the vCPU leaves the line idle
    for time the board never ran.  The load average is beside each run."""
    t = Table("rate_full_link", "A full %d-baud link: best stretch between FLUSH frames, virtual time, "
              "parallel mode" % baud, ["run", "flushes", "best B/s", "share of the line's %d B/s %%" % (baud // 10),
                                       "link_full drops", "load average (1 min)"])
    worst = None
    for k in range(runs):
        d = tempfile.mkdtemp(prefix="alphaprof-bench-")
        board = daemon = None
        try:
            load = os.getloadavg()[0]
            board, daemon, db, flushes = low_baud_run(d, baud)
            best = best_stretch_rate(flushes)
            con = sqlite3.connect(db)
            full = con.execute("SELECT sum(count) FROM drops WHERE reason = 'link_full'").fetchone()[0] or 0
            con.close()
            share = 100.0 * best / (baud / 10)
            worst = share if worst is None else min(worst, share)
            t.add(k + 1, len(flushes), best, share, full, load)
        finally:
            for p in (daemon, board):
                if p:
                    p.stop()
            shutil.rmtree(d, ignore_errors=True)
    t.target("lowest best-stretch share of the line's rate", "%.1f%%" % worst, ">= 80 %", worst >= 80)
    t.notes = ("sprawl 5000 ms, events=cycles:1000-1100, --baud %d, daemon --flush-every 0 (tests/e2e/test_daemon.py "
               "low_baud_run). Runs one after another; a load average above the cores' count means the host "
               "starved the board." % baud)
    return t


def overhead_table():
    t = Table("rate_overhead", "Profiler overhead at the default rate after the rate-honesty change, "
              "modelled cycles (deterministic, --oracle, side by side)",
              ["workload", "source", "cycles unprofiled", "cycles profiled", "overhead %", "samples",
               "link B/sample"])
    d = tempfile.mkdtemp(prefix="alphaprof-bench-")
    worst, per_byte = {}, []
    try:
        for w, n in OVERHEAD_REPEAT.items():
            img = require(build_path("workloads", w + ".elf"))
            repeat = ["--", str(n)]
            base_o = os.path.join(d, w + "-base.bin")
            r = alphaprof(["run", "--timeout", "6000", "--deterministic", "--oracle", base_o, img] + repeat,
                          timeout=6100)
            if r.status != 0:
                raise RuntimeError("unprofiled run failed:\n%s" % r)
            base = oracle_cycles(base_o)
            for source, opts in (("cycles", ["--events", "cycles"]), ("timer", ["--board", "clipper-pm", "--timer"])):
                prof_o = os.path.join(d, "%s-%s.bin" % (w, source))
                r = alphaprof(["record", "--timeout", "6000", "--deterministic", "--oracle", prof_o, "--db",
                               os.path.join(d, "%s-%s.db" % (w, source))] + opts + [img] + repeat, timeout=6100)
                if r.status != 0:
                    raise RuntimeError("record failed:\n%s" % r)
                samples, _, _, _, _, link = profile_line(r)
                prof = oracle_cycles(prof_o)
                overhead = 100.0 * (prof - base) / base
                worst[source] = max(worst.get(source, 0.0), overhead)
                per_byte.append(link / max(1, samples))
                t.add(w, source, base, prof, overhead, samples, link / max(1, samples))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.target("worst overhead, cycle counter (was 0.438 %)", "%.3f%%" % worst["cycles"], "<= 0.5 %",
             worst["cycles"] <= 0.5)
    t.target("worst overhead, timer", "%.3f%%" % worst["timer"], "<= 0.5 %", worst["timer"] <= 0.5)
    t.target("max link bytes per sample", max(per_byte), "<= 0.25", max(per_byte) <= 0.25)
    t.notes = ("Full length: bench_profiler's MODEL_REPEAT (copy x18, qsort x10), one run each. The unprofiled "
               "run and the profiled ones side by side in one bench run.")
    return t


def run(build):
    tables = [rate_table(), asked_table(), full_link_table()]
    try:
        tables.append(overhead_table())
    except RuntimeError as e:           # the rate table is kept; the failure is said
        print("bench_rate: the overhead table failed: %s" % e)
    return tables
