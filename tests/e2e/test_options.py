"""End-to-end: every option is checked up front, in one line, exit 2, by
the option tables of host-tools/util/options.c, with the monitor's own
grammars (firmware/abi/boot-line.c, event-spec.c) for what goes on the boot
line; one default-database rule for every subcommand.
"""
import json
import os

from harness import alphaprof, build_path, check, cleanup, require, tmpdir

BUILTINS = ["run", "record", "daemon", "report", "annotate", "check", "db", "stats", "diff", "export", "pme", "calc",
            "topstalls"]


def refused(args, needle, env=None):
    """The command exits 2 with one line naming the problem and the help."""
    r = alphaprof(args, env=env)
    cmd = args[0]
    check(r.status == 2, "%s: exit status 2" % " ".join(args), r)
    check(len(r.err.splitlines()) == 1 and r.err.startswith("alphaprof %s: " % cmd),
          "%s: one line on stderr" % " ".join(args), r)
    check(needle in r.err and ("see 'alphaprof %s --help'" % cmd) in r.err,
          "%s: names %r and the help" % (" ".join(args), needle), r)
    check("monitor:" not in r.out, "%s: the board never started" % " ".join(args), r)
    return r


def hello():
    return require(build_path("workloads", "hello.elf"))


def test_every_subcommand_refuses_an_unknown_option_in_one_line():
    for cmd in BUILTINS:
        refused([cmd, "--no-such-option"], "unknown option '--no-such-option'")
        refused([cmd, "--no-such-option=1"], "unknown option '--no-such-option'")


def test_every_subcommand_generates_its_help_from_its_table():
    for cmd in BUILTINS:
        r = alphaprof([cmd, "--help"])
        check(r.status == 0 and r.out.startswith("usage: alphaprof %s " % cmd) and "-h, --help" in r.out
              and r.err == "", "%s --help" % cmd, r)


def test_a_missing_value_is_named():
    for cmd, opt in (("report", "--db"), ("record", "--period"), ("daemon", "--link"), ("run", "--cores"),
                     ("diff", "--epoch"), ("export", "--format")):
        refused([cmd, opt], "%s needs a value" % opt)


def test_an_unknown_event_of_the_analyses_is_refused_up_front():
    for cmd in (["check", "--oracle", "/nonexistent"], ["stats"], ["diff"], ["export", "--format", "folded"]):
        refused(cmd + ["--event", "bogus"], "no event 'bogus'")


def test_timer_period_beyond_the_monitors_limit_is_refused_up_front():
    refused(["record", "--period", "2000000-3000000", hello()], "--period '2000000-3000000'")
    refused(["daemon", "--link", "unix:/tmp/none.sock", "--period", "2000000-3000000"], "MAX <= 1000000")


def test_event_period_beyond_the_monitors_limit_is_refused_up_front():
    refused(["record", "--events", "cycles:2000000-3000000", hello()], "'cycles:2000000-3000000' is not a period")
    refused(["daemon", "--link", "unix:/tmp/none.sock", "--events", "cycles:2000000-3000000"], "is not a period")


def test_an_empty_event_list_is_refused():
    refused(["record", "--events", "", hello()], "an empty list")
    refused(["record", "--events", "cycles,", hello()], "an empty item")
    refused(["daemon", "--link", "unix:/tmp/none.sock", "--events", ""], "an empty list")


def test_record_and_daemon_know_every_event_name_and_the_same_limits():
    # nine events: record and daemon refuse them alike (the monitor
    # multiplexes at most eight)
    nine = "cycles,retired,imiss,dmiss,branchmp,loads,stores,branches,l2miss"
    refused(["record", "--events", nine, hello()], "at most 8 events")
    refused(["daemon", "--link", "unix:/tmp/none.sock", "--events", nine], "at most 8 events")
    # every event of the one list is a name the daemon knows (it used to know four)
    r = alphaprof(["daemon", "--link", "unix:/tmp/none.sock", "--events", "itbmiss,dtbmiss,l2miss",
                   "--connect-timeout", "0", "--db", "/nonexistent-dir/x.db"])
    check("no event" not in r.err, "daemon knows itbmiss, dtbmiss and l2miss", r)


def test_paired_profileme_with_a_timer_period_is_refused():
    refused(["record", "--paired", "--period", "2000-3000", hello()], "--period is the timer's")
    refused(["record", "--profileme", "--period", "2000-3000", hello()], "--pme-interval")


def test_run_append_with_a_bad_value_is_refused_by_the_host():
    refused(["run", "--append", "tick_hz=abc", hello()], "--append 'tick_hz=abc': give a rate in 0..100000")
    refused(["run", "--append", "no_such_key=1", hello()], "no boot option 'no_such_key'")
    refused(["run", "--append", "period=5-1", hello()], "MIN-MAX ns")
    refused(["run", "--append", "run=", hello()], "--append 'run=': give an image name of 1 to 31 characters")
    refused(["record", "--append", "events=cycles,bogus", hello()], "'bogus' is not an event name")


def test_daemon_with_an_unknown_board_is_refused():
    refused(["daemon", "--link", "unix:/tmp/none.sock", "--board", "nosuch"], "--board 'nosuch'")


def test_a_bad_profile_socket_path_is_refused_before_qemu_starts():
    refused(["run", "--profile-socket", "/nonexistent/dir/board.sock", hello()], "/nonexistent/dir")
    refused(["run", "--profile-socket", "/tmp/" + "x" * 120, hello()], "give a socket path of 1..")
    d = tmpdir()
    try:
        plain = os.path.join(d, "file")
        open(plain, "w").close()
        refused(["run", "--profile-socket", plain, hello()], "exists and is not a socket")
    finally:
        cleanup(d)


def test_record_honours_alphaprof_db_like_every_other_subcommand():
    d = tmpdir()
    try:
        db = os.path.join(d, "env.db")
        env = {"ALPHAPROF_DB": db}
        img = require(build_path("workloads", "chase.elf"))
        r = alphaprof(["record", "--deterministic", "--period", "20000-24000", img], env=env, timeout=120)
        check(r.status == 0 and os.path.exists(db) and (" into %s," % db) in r.err,
              "record writes to $ALPHAPROF_DB", r)
        rep = alphaprof(["report", "--json"], env=env)
        check(rep.status == 0 and json.loads(rep.out)["events"][0]["total"] > 0,
              "report reads the same database through $ALPHAPROF_DB", rep)
        ep = alphaprof(["db", "epochs"], env=env)
        check(ep.status == 0 and ep.err == "", "db reads it too", ep)
    finally:
        cleanup(d)


def test_report_json_lists_every_procedure_unless_limited():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        img = require(build_path("workloads", "qsort.elf"))
        r = alphaprof(["record", "--deterministic", "--db", db, "--period", "5000-6000", img], timeout=120)
        check(r.status == 0, "record qsort", r)
        full = json.loads(alphaprof(["report", "--db", db, "--json"]).out)
        check(full["procedures_total"] == len(full["procedures"]) and full["procedures_total"] >= 2,
              "JSON lists all %d procedures by default" % full["procedures_total"])
        one = json.loads(alphaprof(["report", "--db", db, "--json", "--limit", "1"]).out)
        check(len(one["procedures"]) == 1 and one["procedures_total"] == full["procedures_total"],
              "--limit 1 shows one and says how many there are")
        text = alphaprof(["report", "--db", db, "--limit", "1"])
        check("(%d more procedures; --limit 0 shows all)" % (full["procedures_total"] - 1) in text.out,
              "the text report says how many more", text)
    finally:
        cleanup(d)


def test_an_empty_path_or_name_is_refused_by_every_string_option():
    # "" as --db once recorded into SQLite's temporary database: exit 0, nothing kept
    for args, opt in ((["record", "--db", "", hello()], "--db"), (["db", "--db", "", "init"], "--db"),
                      (["report", "--db", ""], "--db"), (["record", "--oracle", "", hello()], "--oracle"),
                      (["run", "--board", "", hello()], "--board"), (["annotate", "--image", "", "main"], "--image"),
                      (["export", "--format", "folded", "-o", ""], "--output"),
                      (["daemon", "--link", ""], "--link"), (["diff", "--db2", ""], "--db2"),
                      (["check", "--oracle", ""], "--oracle"), (["db", "new-epoch", "--note", ""], "--note"),
                      (["check", "--calc", "--oracle", "o.bin", "--oracle", ""], "--oracle"),
                      (["gate", "--base", ""], "--base"), (["stats", "--db", ""], "--db")):
        refused(args, "%s '': give a" % opt)


def test_an_empty_image_path_is_named_as_empty():
    for cmd in ("run", "record"):
        r = alphaprof([cmd, ""])
        check(r.status == 2 and r.err.strip().endswith("an empty path; give " +
                                                       ("the path of a workload image (.elf)" if cmd == "run"
                                                        else "the image's ELF file (build/workloads/NAME.elf)")),
              "%s '': one line says the path is empty" % cmd, r)


def test_an_oracle_snapshot_given_as_the_oracle_is_refused():
    d = tmpdir()
    try:
        oracle, db = os.path.join(d, "o.bin"), os.path.join(d, "p.db")
        r = alphaprof(["record", "--deterministic", "--db", db, "--oracle", oracle, hello(), "--", "spin", "20"],
                      timeout=120)
        check(r.status == 0 and os.path.exists(oracle + ".1"), "a run with oracle snapshots", r)
        for n in (1, 2):
            c = alphaprof(["check", "--db", db, "--oracle", "%s.%d" % (oracle, n)])
            check(c.status == 1 and len(c.err.splitlines()) == 1 and
                  ("is snapshot %d, taken while the run went on" % n) in c.err and ("give %s " % oracle) in c.err,
                  "check names the snapshot and the file to give", c)
        check(alphaprof(["check", "--db", db, "--oracle", oracle]).status == 0, "the run's own oracle is fine")
    finally:
        cleanup(d)


def test_db_dump_of_an_epoch_that_is_not_there_is_refused():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        check(alphaprof(["db", "--db", db, "init"]).status == 0, "an empty database")
        r = alphaprof(["db", "--db", db, "dump", "--epoch", "99"])
        check(r.status == 1 and r.err.strip() == "alphaprof db: %s has no epoch 99 (epochs 1..1); see alphaprof db "
              "epochs" % db and not r.out, "one line, nothing dumped", r)
    finally:
        cleanup(d)
