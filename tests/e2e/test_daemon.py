"""End-to-end: `alphaprof daemon` attached to a running board's profile link
(`alphaprof run --profile-socket PATH`, the profiler waiting for START).

The board runs `hello spin MS` on the plain board (timer sampling, virtual
time = host time), so it is still running while the daemon attaches, is
signalled or killed.  Checks are on what the database holds (every sample
the target took is stored or counted as dropped), the target's own FLUSH
counters as the daemon logs them (-v), and the monitor's summary line.
Nothing here asserts on wall-clock time: waits only bound how long a test
may take.
"""
import os
import re
import signal
import shutil
import sqlite3
import subprocess
import time

from harness import REPO, alphaprof, build_path, check, cleanup, elf_sections, flip_byte, require, tmpdir

# Drop reasons of samples the target took (link-protocol.h LK_DROP_*, as
# lk_drop_name spells them): the hash table's overflow buffers were full, or
# the link had no room.  (Ring overflows are records the hardware model
# lost before the profiler took them.)
TABLE_DROPS = ("overflow_full", "link_full")


class Proc:
    """A background alphaprof process with its output in files."""

    def __init__(self, d, name, args):
        exe = require(build_path("host", "alphaprof"), "the launcher")
        self.out_path = os.path.join(d, name + ".out")
        self.err_path = os.path.join(d, name + ".err")
        self.args = [exe] + list(args)
        self.p = subprocess.Popen(self.args, cwd=REPO, stdin=subprocess.DEVNULL,
                                  stdout=open(self.out_path, "w"), stderr=open(self.err_path, "w"))

    def out(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def err(self):
        with open(self.err_path, errors="replace") as f:
            return f.read()

    def wait(self, timeout):
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            raise AssertionError("%s did not end within %s s\n%s" % (" ".join(self.args), timeout, self))

    def stop(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def __str__(self):
        return ("command: %s\nexit status: %s\n--- stdout ---\n%s--- stderr ---\n%s"
                % (" ".join(self.args), self.p.poll(), self.out(), self.err()))


def wait_for(proc, pattern, timeout=60, count=1):
    """Waits until pattern occurs count times in proc's stdout; the matches."""
    deadline = time.time() + timeout
    while True:
        found = re.findall(pattern, proc.out(), re.M)
        if len(found) >= count:
            return found
        if proc.p.poll() is not None or time.time() > deadline:
            raise AssertionError("waited for %r (%d times) in vain\n%s" % (pattern, count, proc))
        time.sleep(0.1)


def start_board(d, spin_ms, *opts, image="hello.elf"):
    sock = os.path.join(d, "profile.sock")
    img = require(build_path("workloads", image))
    args = ["spin", str(spin_ms)] if image == "hello.elf" else [str(spin_ms)]
    board = Proc(d, "board", ["run", "--timeout", "120", "--profile-socket", sock] + list(opts)
                 + [img, "--"] + args)
    return board, sock, img


def start_daemon(d, sock, db, img, *opts, name="daemon"):
    return Proc(d, name, ["daemon", "--link", "unix:" + sock, "--db", db, "-v"] + list(opts) + [img])


def q(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def one(db, sql):
    v = q(db, sql)[0][0]
    return v if v is not None else 0


def stored(db, where="1"):
    return one(db, "SELECT sum(count) FROM samples WHERE " + where)


def target_drops(db, where="1"):
    names = ",".join("'%s'" % n for n in TABLE_DROPS)
    return one(db, "SELECT sum(count) FROM drops WHERE core >= 0 AND reason IN (%s) AND %s" % (names, where))


def stat(db, name, where="1"):
    return one(db, "SELECT sum(value) FROM stats WHERE name = '%s' AND %s" % (name, where))


def monitor_samples(board):
    m = re.search(r"monitor: profile: (\d+) samples", board.out())
    check(m, "the monitor prints its profile summary", board)
    return int(m.group(1))


def test_daemon_attaches_and_fills_database():
    d = tmpdir()
    board = daemon = None
    try:
        board, sock, img = start_board(d, 4000)
        db = os.path.join(d, "p.db")
        daemon = start_daemon(d, sock, db, img, "--status", "--check-link")
        rc = daemon.wait(90)
        board.wait(60)
        check(rc == 0 and "the board ended (END) and closed the link" in daemon.err(),
              "the daemon runs until the board ends", daemon)
        out = daemon.out()
        check("ACK START: status 0" in out, "START is acknowledged", daemon)
        check("link check: damaged chunk sent, malformed CONFIG answered bad frame" in out,
              "a malformed control frame is answered with LK_ACK_BAD_FRAME", daemon)
        check("samples/s" in daemon.err() and "hash hits" in daemon.err(),
              "a live status line with the sample rate and hit rate", daemon)
        check(len(re.findall(r"^daemon: commit \d+:", out, re.M)) >= 10,
              "many small commits, not one burst", daemon)
        check(q(db, "PRAGMA integrity_check") == [("ok",)], "the database is sound")
        # hello spins on the clock: its loop and the monitor's clock call
        by_image = dict(q(db, "SELECT i.name, sum(s.count) FROM samples s JOIN images i "
                              "ON s.image = i.id GROUP BY i.name"))
        taken = stat(db, "samples_taken")
        check(by_image.get("hello", 0) > 0.1 * stored(db) and taken > 1000 and
              by_image.get("hello", 0) + by_image.get("monitor-clipper", 0) == stored(db),
              "every sample mapped to the workload or the monitor by the loadmap: %s" % by_image)
        check(stored(db) + target_drops(db) == taken,
              "every sample taken is stored or counted as dropped (%d + %d vs %d)"
              % (stored(db), target_drops(db), taken))
        check(taken == monitor_samples(board), "the monitor's own count agrees", board)
        check(stat(db, "control_bad") >= 1 and stat(db, "control_frames") >= 3,
              "the target counted the damaged chunk and the control frames")
    finally:
        for p in (daemon, board):
            if p:
                p.stop()
        cleanup(d)


def test_new_epoch_on_sigusr1_and_epoch_every():
    d = tmpdir()
    board = daemon = None
    try:
        board, sock, img = start_board(d, 7000)
        db = os.path.join(d, "p.db")
        daemon = start_daemon(d, sock, db, img, "--flush-every", "200")
        wait_for(daemon, r"^daemon: commit \d+: [1-9]\d* samples stored")
        daemon.p.send_signal(signal.SIGUSR1)
        wait_for(daemon, r"^daemon: EPOCH 2 ")
        daemon.wait(90)
        board.wait(60)
        out = daemon.out()
        check("ACK NEW_EPOCH: status 0" in out, "NEW_EPOCH is acknowledged", daemon)
        epochs = q(db, "SELECT id, ended IS NOT NULL FROM epochs ORDER BY id")
        check(epochs == [(1, 1), (2, 0)], "epoch 1 ended, epoch 2 current: %s" % epochs, daemon)
        s1, s2 = stored(db, "epoch = 1"), stored(db, "epoch = 2")
        check(s1 > 0 and s2 > 0, "both epochs hold samples (%d, %d)" % (s1, s2), daemon)
        for e in (1, 2):
            w = "epoch = %d" % e
            check(stored(db, w) + target_drops(db, w) == stat(db, "samples_taken", w),
                  "epoch %d: what was taken in it is stored in it" % e, daemon)

        # the same with a timer: --epoch-every
        d2 = os.path.join(d, "second")
        os.mkdir(d2)
        board2, sock2, _ = start_board(d2, 5000)
        db2 = os.path.join(d, "p2.db")
        daemon2 = start_daemon(d2, sock2, db2, img, "--epoch-every", "1")
        daemon2.wait(90)
        board2.wait(60)
        n = one(db2, "SELECT count(*) FROM epochs")
        check(n >= 3, "a new epoch every second of a 5 s run (%d epochs)" % n, daemon2)
        check(one(db2, "SELECT count(DISTINCT epoch) FROM samples") >= 3, "several hold samples", daemon2)
    finally:
        for p in (daemon, board):
            if p:
                p.stop()
        cleanup(d)


def test_sigkill_leaves_every_committed_flush_and_a_new_daemon_attaches():
    d = tmpdir()
    board = daemon = daemon2 = None
    try:
        board, sock, img = start_board(d, 9000)
        db = os.path.join(d, "p.db")
        daemon = start_daemon(d, sock, db, img, "--flush-every", "100")
        wait_for(daemon, r"^daemon: commit \d+: [1-9]\d* samples stored", count=8)
        daemon.p.send_signal(signal.SIGKILL)
        daemon.p.wait()
        committed = [int(x) for x in re.findall(r"^daemon: commit \d+: (\d+) samples stored",
                                                 daemon.out(), re.M)]
        check(committed and committed[-1] > 0, "the daemon logged its commits", daemon)
        check(q(db, "PRAGMA integrity_check") == [("ok",)], "the killed daemon's database is sound")
        check(stored(db) >= committed[-1],
              "every flush committed before the kill is there (%d >= %d)" % (stored(db), committed[-1]))

        # a new daemon re-attaches to the same board: a new session (START
        # while sampling flushes the old one first)
        daemon2 = start_daemon(d, sock, db, img, name="daemon2")
        rc = daemon2.wait(90)
        board.wait(60)
        check(rc == 0 and "ACK START: status 0" in daemon2.out(), "the second daemon starts", daemon2)
        check(one(db, "SELECT count(*) FROM sessions") == 2, "two sessions in the database", daemon2)
        check(stored(db) > committed[-1], "the second session added samples", daemon2)
    finally:
        for p in (daemon, daemon2, board):
            if p:
                p.stop()
        cleanup(d)


def test_sigint_and_sigterm_stop_sampling_save_and_exit_130_and_143():
    for sig, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        d = tmpdir()
        board = daemon = None
        try:
            board, sock, img = start_board(d, 6000)
            db = os.path.join(d, "p.db")
            daemon = start_daemon(d, sock, db, img)
            wait_for(daemon, r"^daemon: commit \d+: [1-9]\d* samples stored")
            daemon.p.send_signal(sig)
            rc = daemon.wait(60)
            check(rc == status, "signal %d: the daemon saves, then exits %d" % (sig, status), daemon)
            out = daemon.out()
            check("sent STOP" in out and "ACK STOP: status 0: stopped" in out,
                  "STOP is sent and acknowledged", daemon)
            check("every sample it took is stored or counted" in daemon.err(), "it says the profile is saved",
                  daemon)
            taken = stat(db, "samples_taken")
            check(taken > 0 and stored(db) + target_drops(db) == taken,
                  "everything taken before STOP is stored or counted", daemon)
            check(stored(db) >= 0.99 * taken, "at least 99 %% stored (%d of %d)" % (stored(db), taken), daemon)
            board.wait(60)
            # the board ran on for seconds after STOP: had it kept sampling, its
            # own total would be far above what the daemon received
            check(monitor_samples(board) == taken,
                  "no sample taken after STOP (monitor %d, database %d)" % (monitor_samples(board), taken),
                  board)
        finally:
            for p in (daemon, board):
                if p:
                    p.stop()
            cleanup(d)


LOW_BAUD_FLUSH = re.compile(r"^daemon: flush \d+ at (\d+) ns: bytes_sent (\d+) samples_taken \d+ link_full (\d+)", re.M)


def low_baud_run(d, baud, spin_ms=5000):
    """The board at `baud` with more load than the line carries: the
    hardware model's cycle counter every ~1000 cycles with its exact PCs
    over sprawl's 64K instructions, far more distinct PCs than the hash
    table holds, so it evicts (and wants to send) nearly every sample; no
    FLUSH_NOW, the target's own drain every 100 ms, as a board left alone.
    Returns (board, daemon, db, flushes as (virtual ns, bytes_sent)); the
    caller stops both processes."""
    board, sock, img = start_board(d, spin_ms, "--board", "clipper-pm", "--baud", str(baud),
                                   "--append", "profile=counters",
                                   "--append", "events=cycles:1000-1100", image="sprawl.elf")
    db = os.path.join(d, "p.db")
    daemon = start_daemon(d, sock, db, img, "--flush-every", "0")
    rc = daemon.wait(120)
    board.wait(60)
    check(rc == 0, "the daemon ends with the board", daemon)
    flushes = [(int(t), int(b)) for t, b, _ in LOW_BAUD_FLUSH.findall(daemon.out())]
    return board, daemon, db, flushes


def best_stretch_rate(flushes):
    """Bytes a second of virtual time over the best stretch of at least
    half a second between two FLUSH frames."""
    return max([(b1 - b0) / ((t1 - t0) / 1e9)
                for (t0, b0), (t1, b1) in zip(flushes, flushes[1:]) if t1 - t0 >= 5e8] or [0])


def test_low_baud_link_budget_and_link_full_drops():
    """At 9600 baud the link carries at most 960 bytes a second of virtual
    time; what does not fit is counted as link_full, nothing is lost.  How
    close a full link comes to its rate is bench_rate's (rate_full_link):
    without -icount virtual time is host time, and a vCPU thread a loaded
    host starves leaves the line idle for time the board never ran (the
    best stretch fell to 286-481 B/s at load 7-11 on 2 cores)."""
    baud = 9600
    spin_ms = 5000
    d = tmpdir()
    board = daemon = None
    try:
        board, daemon, db, flushes = low_baud_run(d, baud, spin_ms)
        check("link %d baud" % baud in daemon.out(), "HELLO carries the link's baud rate", daemon)
        check(len(flushes) >= 6, "the target's FLUSH frames arrived (%d)" % len(flushes), daemon)
        per_byte = 10e9 / baud      # ns a character occupies the line (8N1)
        for (t0, b0), (t1, b1) in zip(flushes, flushes[1:]):
            check(b1 - b0 <= (t1 - t0) / per_byte + 17,
                  "at most %d B/s between flushes: %d bytes in %d ns" % (baud // 10, b1 - b0, t1 - t0),
                  daemon)
        (ta, ba), (tb, bb) = flushes[0], flushes[-1]
        rate = (bb - ba) / ((tb - ta) / 1e9)
        check(rate <= baud / 10 + 17 / ((tb - ta) / 1e9),
              "never above the link's rate (%.0f B/s of virtual time)" % rate, daemon)
        host_bytes = stat(db, "link_bytes_ok")
        check(host_bytes >= bb - ba, "the host received what the target sent", daemon)
        full = one(db, "SELECT sum(count) FROM drops WHERE reason = 'link_full'")
        taken = stat(db, "samples_taken")
        check(full > 0, "samples that did not fit are counted as link_full drops", daemon)
        check(stored(db) + target_drops(db) == taken,
              "none lost: %d stored + %d dropped = %d taken" % (stored(db), target_drops(db), taken),
              daemon)
        check(one(db, "SELECT sum(count) FROM drops WHERE reason LIKE 'link_lost%'") == 0,
              "no frame lost on the way", daemon)
        m = re.search(r"monitor: run time (\d+) ns", board.out())
        check(m and int(m.group(1)) < 1.5 * spin_ms * 1e6 + 2e9,
              "the slow link does not hold the workload up (run time in virtual ns)", board)
    finally:
        for p in (daemon, board):
            if p:
                p.stop()
        cleanup(d)


def test_daemon_bad_options_and_no_board():
    d = tmpdir()
    try:
        r = alphaprof(["daemon", "--db", os.path.join(d, "p.db")])
        check(r.status == 2 and "--link is required" in r.err, "--link is required", r)
        r = alphaprof(["daemon", "--link", "/tmp/x.sock"])
        check(r.status == 2 and "give unix:PATH" in r.err, "a link spec other than unix:PATH", r)
        r = alphaprof(["daemon", "--link", "unix:/tmp/x.sock", "--events", "cycles,nosuch"])
        check(r.status == 2 and "no event 'nosuch'" in r.err, "an unknown event is named", r)
        r = alphaprof(["daemon", "--link", "unix:/tmp/x.sock", "--events", "cycles", "--period", "2000-3000"])
        check(r.status == 2 and "exclude each other" in r.err, "counters and timer at once", r)
        sock = os.path.join(d, "none.sock")
        r = alphaprof(["daemon", "--link", "unix:" + sock, "--db", os.path.join(d, "p.db"),
                       "--connect-timeout", "1"])
        check(r.status == 1 and "nobody listens there" in r.err and "--profile-socket" in r.err,
              "no board on the socket: a clear error naming the way out", r)
    finally:
        cleanup(d)


def test_build_id_mismatch_names_both_sides():
    # The daemon is given another build of the image the board runs: an
    # error naming the image, both build-ids and the file, not a profile
    # silently mapped to the wrong code.
    d = tmpdir()
    board = daemon = None
    try:
        board, sock, img = start_board(d, 500)
        other = os.path.join(d, "hello.elf")
        shutil.copy(img, other)
        addr, offset, size = elf_sections(other)[".note.gnu.build-id"]
        flip_byte(other, offset + size - 1)
        daemon = start_daemon(d, sock, os.path.join(d, "p.db"), other)
        rc = daemon.wait(90)
        check(rc == 1 and "build-id mismatch for image hello" in daemon.err() and other in daemon.err(),
              "the mismatch names the image and the file", daemon)
        board.wait(60)
    finally:
        for p in (daemon, board):
            if p:
                p.stop()
        cleanup(d)
