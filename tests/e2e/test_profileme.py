"""End-to-end: ProfileMe through the hardware model (board clipper-pm).

The model tags one fetched instruction every --pme-interval fetches (two in
paired mode) and writes its Profile Registers to the core's ring; the
firmware aggregates them per PC (PME_AGG) and keeps pairs whole (PAIRS); the
host stores them in pme, pme_bits, pme_latency, pairs and pair_records.
ProfileMe records name the exact instruction, so the D-cache-miss samples of
chase are on its load and the mispredict samples of branches on its
data-dependent branch; bad-path fetches are aborted (retired bit clear).
The oracle of the same run accounts for every record the model produced.
"""
import json
import os
import re
import sqlite3
import subprocess

from harness import alphaprof, build_path, check, cleanup, require, tmpdir


def record(d, image, *opts, cores=1):
    db, oracle = os.path.join(d, "p.db"), os.path.join(d, "oracle.bin")
    r = alphaprof(["record", "--deterministic", "--cores", str(cores), "--db", db, "--oracle", oracle]
                  + list(opts) + [require(build_path("workloads", image + ".elf"))], timeout=220)
    check(r.status == 0, "record %s with %s" % (image, " ".join(opts)), r)
    return db, oracle, r


def query(db, sql, *args):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def bit(db, name):
    rows = query(db, "SELECT idx FROM names WHERE kind = 'pme_bit' AND name = ?", name)
    check(len(rows) == 1, "the firmware named ProfileMe event bit %s (names table: %s)"
          % (name, query(db, "SELECT * FROM names")))
    return rows[0][0]


def function_insns(image, function):
    """[(offset, text)] of function's instructions, offsets from the image's
    load address (objdump of the ELF)."""
    dis = subprocess.run(["alpha-linux-gnu-objdump", "-d", build_path("workloads", image + ".elf")],
                         capture_output=True, text=True).stdout
    inside, insns = False, []
    for line in dis.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:", line)
        if m:
            inside = m.group(2).split(".")[0] == function
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} ){4}\s*(.*)$", line)
        if inside and m:
            insns.append((int(m.group(1), 16) - 0x1000000, m.group(2)))   # IMAGE_DEFAULT_BASE
    check(insns, "function %s in %s" % (function, image))
    return insns


def offset_of(image, function, pattern):
    """Offset of the one instruction of function matching pattern."""
    found = [o for o, text in function_insns(image, function) if re.search(pattern, text)]
    check(len(found) == 1, "one instruction /%s/ in %s of %s (found %s)" % (pattern, function, image, found))
    return found[0]


def bit_counts(db, image, b):
    """{offset: samples with event bit b} for the image."""
    return dict(query(db, "SELECT b.offset, sum(b.count) FROM pme_bits b JOIN images i ON i.id = b.image"
                          " WHERE i.name = ? AND b.bit = ? GROUP BY b.offset", image, b))


def accounting(db, oracle, epoch="all"):
    c = alphaprof(["check", "--db", db, "--oracle", oracle, "--json", "--epoch", epoch])
    check(c.status == 0, "check --oracle on a ProfileMe profile", c)
    return json.loads(c.out)["profileme"], c


def check_accounting(db, oracle):
    a, c = accounting(db, oracle)
    check(a["produced"] > 0 and a["stored"] > 0, "the model produced and the database holds records", c)
    check(a["balanced"] and a["produced"] == a["stored"] + a["agg_full"] + a["link_full"] + a["link_lost"]
          + a["ring_dropped"] + a["unread"],
          "every ProfileMe record stored, dropped with a reason or unread at exit: %s" % a, c)
    stored = query(db, "SELECT coalesce(sum(samples), 0) FROM pme")[0][0]
    check(stored == a["stored"], "check counts the pme table (%d vs %d)" % (stored, a["stored"]))
    return a


def check_aborted(db):
    """Per instruction, samples fetched down a bad path <= samples aborted,
    and samples retired + aborted == samples."""
    bad = bit(db, "bad-path")
    rows = query(db, "SELECT p.image, p.offset, p.samples, p.retired, p.aborted,"
                     " coalesce((SELECT sum(count) FROM pme_bits b WHERE b.image = p.image AND"
                     "  b.offset = p.offset AND b.core = p.core AND b.epoch = p.epoch AND b.bit = ?), 0)"
                     " FROM pme p", bad)
    for image, off, samples, retired, aborted, badpath in rows:
        check(retired + aborted == samples and badpath <= aborted,
              "image %d offset %#x: %d samples = %d retired + %d aborted, %d bad-path"
              % (image, off, samples, retired, aborted, badpath))
    return sum(r[5] for r in rows), sum(r[4] for r in rows)


def test_dmiss_samples_on_the_missing_load():
    d = tmpdir()
    try:
        db, oracle, r = record(d, "chase", "--profileme", "--pme-interval", "4000-4400")
        load = offset_of("chase", "chase", r"^ldq\s+v0,0\(v0\)")
        dmiss = bit_counts(db, "chase", bit(db, "dmiss"))
        # in chase(), as the counter test (the set-up in main misses too)
        total = sum(dmiss.get(o, 0) for o, _ in function_insns("chase", "chase"))
        on_load = dmiss.get(load, 0)
        check(total > 500 and on_load >= 0.95 * total,
              ">= 95%% of chase()'s ProfileMe D-cache-miss samples on its load (%d of %d)" % (on_load, total))
        check(max(dmiss, key=dmiss.get) == load, "the load has the most D-cache-miss samples of the image")
        # Its load latency is there too, summed per instruction.
        lat = query(db, "SELECT sum(l.sum) FROM pme_latency l JOIN names n ON n.kind = 'pme_latency'"
                        " AND n.idx = l.field AND n.name = 'load-complete' WHERE l.offset = ?", load)[0][0]
        check(lat and lat > on_load, "load-complete latency summed on the missing load (%s)" % lat)
        check_accounting(db, oracle)
        check("ProfileMe samples" in r.err, "record reports the ProfileMe samples", r)
    finally:
        cleanup(d)


def test_mispredicts_on_the_unpredictable_branch():
    d = tmpdir()
    try:
        db, oracle, r = record(d, "branches", "--profileme", "--pme-interval", "4000-4400")
        branch = offset_of("branches", "classify", r"^beq\s+t1,")
        mp = bit_counts(db, "branches", bit(db, "mispredict"))
        total = sum(mp.values())
        check(total > 200 and mp.get(branch, 0) >= 0.9 * total,
              ">= 90%% of the mispredict samples on classify's data-dependent branch (%d of %d)"
              % (mp.get(branch, 0), total))
        badpath, aborted = check_aborted(db)
        check(badpath > 0, "bad-path fetches were sampled (%d, %d aborted)" % (badpath, aborted))
        check_accounting(db, oracle)
    finally:
        cleanup(d)


def test_paired_samples_are_stored_whole():
    d = tmpdir()
    try:
        db, oracle, r = record(d, "drystone", "--paired", "--pme-interval", "2000-2200",     # (any workload; a short one)
                               "--pair-window", "64")
        pairs = query(db, "SELECT count(*) FROM pairs")[0][0]
        check(pairs > 100, "paired samples stored (%d)" % pairs, r)
        per_pair = query(db, "SELECT count(*), min(n), max(n) FROM (SELECT pair, count(*) AS n,"
                             " group_concat(slot) AS s FROM pair_records GROUP BY pair)")[0]
        check(per_pair == (pairs, 2, 2), "every pair has exactly two records (%s)" % (per_pair,))
        gaps = query(db, "SELECT min(gap), max(gap) FROM pairs")[0]
        check(1 <= gaps[0] and gaps[1] <= 64, "minor intervals within the pair window (%s)" % (gaps,))
        # bad-path records of pairs, one by one, are aborted
        ret, bad = 1 << bit(db, "retired"), 1 << bit(db, "bad-path")
        n_bad = query(db, "SELECT count(*) FROM pair_records WHERE events & ? != 0", bad)[0][0]
        n_bad_retired = query(db, "SELECT count(*) FROM pair_records WHERE events & ? != 0 AND events & ? != 0",
                              bad, ret)[0][0]
        check(n_bad > 0 and n_bad_retired == 0,
              "%d bad-path records in pairs, none retired (%d)" % (n_bad, n_bad_retired))
        # pair records are in the aggregates too, and every pair is accounted for
        a = check_accounting(db, oracle)
        check(a["pairs_balanced"] and a["pairs_taken"] == a["pairs"] + a["pair_full"] + a["pairs_link_lost"],
              "every pair taken stored whole or dropped with a reason: %s" % a)
        check(a["stored"] >= 2 * pairs, "paired records aggregated per instruction too")
        check_aborted(db)
    finally:
        cleanup(d)


def test_profileme_on_four_cores():
    d = tmpdir()
    try:
        db, oracle, r = record(d, "parallel", "--paired", "--pme-interval", "4000-4400", cores=4)
        cores = [c for (c,) in query(db, "SELECT DISTINCT core FROM pme ORDER BY core")]
        check(cores == [0, 1, 2, 3], "ProfileMe samples from every core (%s)" % cores, r)
        pair_cores = [c for (c,) in query(db, "SELECT DISTINCT core FROM pairs ORDER BY core")]
        check(pair_cores == [0, 1, 2, 3], "pairs from every core (%s)" % pair_cores, r)
        a = check_accounting(db, oracle)
        check(a["pairs_balanced"], "pairs accounted for on 4 cores: %s" % a)
        check_aborted(db)
    finally:
        cleanup(d)


def test_profileme_options_are_checked():
    d = tmpdir()
    try:
        elf = require(build_path("workloads", "hello.elf"))
        db = os.path.join(d, "p.db")
        for opts, msg in ((["--profileme", "--pme-interval", "10-20"], "--pme-interval"),
                          (["--profileme", "--pme-interval", "5000"], "--pme-interval"),
                          (["--pme-interval", "5000-6000"], "needs --profileme"),
                          (["--profileme", "--pair-window", "8"], "needs --paired"),
                          (["--paired", "--pair-window", "0"], "--pair-window"),
                          (["--profileme", "--events", "cycles"], "either --events"),
                          (["--pme-draw", "geometric"], "--pme-draw needs --profileme"),
                          (["--profileme", "--pme-draw", "poisson"], "uniform, geometric, time or time-geometric")):
            r = alphaprof(["record", "--db", db] + opts + [elf])
            check(r.status == 2 and msg in r.err, "record %s is refused clearly" % " ".join(opts), r)
        # The plain board has no ProfileMe unit: the monitor says so and
        # falls back to the timer.
        r = alphaprof(["record", "--board", "clipper", "--profileme", "--db", db, elf], timeout=120)
        check(r.status == 0 and "needs the hardware model with ProfileMe" in r.out,
              "profileme on the plain board warns and samples with the timer", r)
    finally:
        cleanup(d)


def test_overflowing_rings_are_accounted_for():
    """At one record per ~250 fetches the 1 ms drain cannot keep up with the
    1024-entry ring: the model drops records, the firmware reports them
    (ring_overflow) and the books still balance."""
    d = tmpdir()
    try:
        db, oracle, r = record(d, "drystone", "--profileme", "--pme-interval", "200-300")  # (any; a short one)
        a = check_accounting(db, oracle)
        check(a["ring_dropped"] > 0, "the ring overflowed (%s)" % a)
        reported = query(db, "SELECT coalesce(sum(count), 0) FROM drops WHERE reason = 'ring_overflow'")[0][0]
        check(reported == a["ring_dropped"],
              "the firmware reported the model's ring losses (%d vs %d)" % (reported, a["ring_dropped"]))
    finally:
        cleanup(d)


def test_daemon_epochs_split_profileme_exactly():
    """A board serving its profile link (run --profile-socket, ProfileMe
    pairs on 4 cores, the unit off until START) and `alphaprof daemon`
    starting a new epoch: each epoch's records and pairs taken, as its FLUSH
    frames count them, are stored in it or dropped in it; the oracle
    accounts for every record of the run."""
    import signal
    import time
    d = tmpdir()
    procs = []
    try:
        sock, db, oracle = os.path.join(d, "s.sock"), os.path.join(d, "p.db"), os.path.join(d, "o.bin")
        img = require(build_path("workloads", "hello.elf"))
        exe = require(build_path("host", "alphaprof"))
        out = {n: open(os.path.join(d, n + ".out"), "w") for n in ("board", "daemon")}
        board = subprocess.Popen([exe, "run", "--timeout", "120", "--board", "clipper-pm", "--oracle", oracle,
                                  "--cores", "4", "--profile-socket", sock, "--append", "profile=paired",
                                  "--append", "pme=20000-22000", img, "--", "spin", "4000"],
                                 stdout=out["board"], stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        procs.append(board)
        deadline = time.time() + 30
        while not os.path.exists(sock) and time.time() < deadline:
            time.sleep(0.05)
        daemon = subprocess.Popen([exe, "daemon", "--link", "unix:" + sock, "--db", db, "-v",
                                   "--flush-every", "200", img],
                                  stdout=out["daemon"], stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        procs.append(daemon)
        log = os.path.join(d, "daemon.out")
        deadline = time.time() + 60
        while time.time() < deadline and not re.search(r"commit \d+: [1-9]\d* samples stored", open(log).read()):
            time.sleep(0.1)
        daemon.send_signal(signal.SIGUSR1)
        check(daemon.wait(timeout=120) == 0 and board.wait(timeout=60) == 0,
              "board and daemon end cleanly\n" + open(log).read())
        check("EPOCH 2" in open(log).read(), "the daemon started epoch 2\n" + open(log).read())
        for e in (1, 2):
            for c in range(4):
                taken = query(db, "SELECT coalesce(sum(value), 0) FROM stats WHERE epoch = ? AND core = ?"
                                  " AND name = 'pme_taken'", e, c)[0][0]
                stored = query(db, "SELECT coalesce(sum(samples), 0) FROM pme WHERE epoch = ? AND core = ?",
                               e, c)[0][0]
                lost = query(db, "SELECT coalesce(sum(count), 0) FROM drops WHERE epoch = ? AND core = ?"
                                 " AND reason IN ('agg_full', 'link_full')", e, c)[0][0]
                check(taken == stored + lost, "epoch %d core %d: %d records taken, %d stored + %d dropped"
                      % (e, c, taken, stored, lost))
                ptaken = query(db, "SELECT coalesce(sum(value), 0) FROM stats WHERE epoch = ? AND core = ?"
                                   " AND name = 'pairs_taken'", e, c)[0][0]
                pairs = query(db, "SELECT count(*) FROM pairs WHERE epoch = ? AND core = ?", e, c)[0][0]
                plost = query(db, "SELECT coalesce(sum(count), 0) FROM drops WHERE epoch = ? AND core = ?"
                                  " AND reason = 'pair_full'", e, c)[0][0]
                check(ptaken == pairs + plost, "epoch %d core %d: %d pairs taken, %d stored + %d dropped"
                      % (e, c, ptaken, pairs, plost))
            check(query(db, "SELECT count(*) FROM pairs WHERE epoch = ?", e)[0][0] > 0,
                  "epoch %d holds pairs" % e)
        check_accounting(db, oracle)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        cleanup(d)
