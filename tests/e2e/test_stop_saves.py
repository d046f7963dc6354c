"""End-to-end: stop means save.  `alphaprof record` stopped by its
--timeout, SIGINT or SIGTERM while the workload still runs asks the target
to stop sampling and flush (STOP over the profile link), stores what comes
and only then ends QEMU, exiting 124, 130 or 143 as before.  "Where is it
spinning?" is exactly when a user wants the profile.

What the target took is its own cumulative count in the FLUSH frames
(samples_taken): every one of them must be in the database.
"""
import os
import signal
import sqlite3
import subprocess
import time

from harness import REPO, alphaprof, build_path, check, cleanup, require, tmpdir


def totals(db):
    con = sqlite3.connect(db)
    try:
        stored = con.execute("SELECT coalesce(sum(count), 0) FROM samples").fetchone()[0]
        taken = con.execute("SELECT coalesce(sum(value), 0) FROM stats WHERE name = 'samples_taken'").fetchone()[0]
        dropped = con.execute("SELECT coalesce(sum(count), 0) FROM drops WHERE reason IN "
                              "('overflow_full', 'link_full', 'link_lost_samples')").fetchone()[0]
        return stored, dropped, taken
    finally:
        con.close()


def check_saved(db, what, result):
    stored, dropped, taken = totals(db)
    check(taken > 1000, "%s: the target sampled (%d)" % (what, taken), result)
    check(stored + dropped == taken and stored >= 0.99 * taken,
          "%s: what the target took is stored: %d stored + %d counted of %d taken"
          % (what, stored, dropped, taken), result)


def test_record_timeout_stores_what_the_board_took():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        img = require(build_path("workloads", "hello.elf"))
        r = alphaprof(["record", "--db", db, "--timeout", "4", img, "--", "spin", "60000"], timeout=40)
        check(r.status == 124 and "timed out" in r.err, "the timeout still exits 124", r)
        check("the board stopped sampling and flushed" in r.err, "record says it saved the profile", r)
        check_saved(db, "--timeout", r)
    finally:
        cleanup(d)


def test_record_stopped_before_an_instrumented_image_exits_says_its_paths_were_not_stored_and_fails():
    """The path counters and the calling context tree are sent once every
    core has stopped (cct-drain.c note 1), so a run stopped early stores
    the samples and none of them: record says so in one line naming the
    image, and fails, where it said "everything it took is stored"."""
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "hello.elf"))
        img = os.path.join(d, "hello-paths.elf")
        r = alphaprof(["instrument", "--paths", orig, "-o", img])
        check(r.status == 0, "instrument --paths hello", r)
        db = os.path.join(d, "p.db")
        r = alphaprof(["record", "--db", db, "--timeout", "4", img, "--", "spin", "60000"], timeout=40)
        check(r.status == 124, "the timeout still exits 124", r)
        said = [l for l in r.err.splitlines() if "is instrumented" in l]
        check(len(said) == 1 and img in said[0] and "stored none of them" in said[0] and "--timeout" in said[0],
              "one line names the image, what is missing and the fix", r)
        check_saved(db, "--timeout", r)
        r = alphaprof(["paths", "--db", db])
        check(r.status != 0 and "no path counts" in r.err and "instrument --paths" in r.err,
              "paths says there are no counts and how to get them", r)
        r = alphaprof(["record", "--db", os.path.join(d, "q.db"), "--timeout", "4", orig, "--", "spin", "60000"],
                      timeout=40)
        check(r.status == 124 and "is instrumented" not in r.err, "an image not instrumented gets no such line", r)
    finally:
        cleanup(d)


def test_record_sigint_and_sigterm_store_what_the_board_took():
    d = tmpdir()
    try:
        img = require(build_path("workloads", "hello.elf"))
        exe = require(build_path("host", "alphaprof"), "the launcher")
        for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            db = os.path.join(d, "p%d.db" % sig)
            out, err = os.path.join(d, "out%d" % sig), os.path.join(d, "err%d" % sig)
            p = subprocess.Popen([exe, "record", "--db", db, img, "--", "spin", "60000"], cwd=REPO,
                                 stdin=subprocess.DEVNULL, stdout=open(out, "w"), stderr=open(err, "w"))
            try:
                deadline = time.time() + 30
                while "hello: ok" not in open(out).read() and time.time() < deadline and p.poll() is None:
                    time.sleep(0.1)
                time.sleep(2.5)
                p.send_signal(sig)
                rc = p.wait(30)
            finally:
                if p.poll() is None:
                    p.kill()
                    p.wait()
            text = "stdout:\n%s\nstderr:\n%s" % (open(out).read(), open(err).read())
            check(rc == status, "%s exits %d (got %s)\n%s" % (sig.name, status, rc, text))
            check("the board stopped sampling and flushed" in text, "%s: saved\n%s" % (sig.name, text))
            check_saved(db, sig.name, text)
    finally:
        cleanup(d)


def test_run_profile_socket_timeout_sigint_sigterm_store_what_the_board_took():
    """`run --profile-socket` serves the link itself: its --timeout, SIGINT and SIGTERM stop the
    board's sampling and end QEMU only once the attached daemon stored the flush; run exits
    124/130/143 and the daemon, seeing its run's STOP, ends with 0 (not a cut link)."""
    import test_daemon as td
    for how, status in (("timeout", 124), ("SIGINT", 130), ("SIGTERM", 143)):
        d = tmpdir()
        board = daemon = None
        try:
            sock, db = os.path.join(d, "profile.sock"), os.path.join(d, "p.db")
            img = require(build_path("workloads", "hello.elf"))
            timeout = ["--timeout", "6"] if how == "timeout" else []
            board = td.Proc(d, "board", ["run"] + timeout + ["--profile-socket", sock, img, "--", "spin", "60000"])
            daemon = td.start_daemon(d, sock, db, img)
            td.wait_for(daemon, r"^daemon: commit \d+: [1-9]\d* samples stored")
            if how != "timeout":
                time.sleep(1.5)
                board.p.send_signal(getattr(signal, how))
            rc = board.wait(60)
            check(rc == status, "run: %s exits %d" % (how, status), board)
            check("the daemon stored every sample it took" in board.err(), "%s: run says the profile is saved" % how,
                  board)
            drc = daemon.wait(60)
            check(drc == 0 and "stopped it" in daemon.err(), "%s: the daemon ends with the run's stop, exit 0" % how,
                  daemon)
            check_saved(db, how, "%s\n%s" % (board, daemon))
            taken = td.stat(db, "samples_taken")
            check(taken > 0, "%s: the board's counts are in (%d)" % (how, taken), board)
        finally:
            for p in (daemon, board):
                if p:
                    p.stop()
            cleanup(d)
