"""Paths that name something other than a regular file (no QEMU needed: the
host refuses them before it starts anything).  A FIFO nobody writes to,
given as an image, an oracle or a database, once made run, record, daemon
and alphaprof-seal wait forever in open(); now each says what the path is
in one line and exits non-zero at once.  A directory likewise."""
import os
import platform
import subprocess
import sys

from harness import alphaprof, build_path, check, cleanup, require, tmpdir


def one_error_line(r, path, what="is a FIFO, not a regular file"):
    lines = [l for l in r.err.splitlines() if l.strip()]
    check(r.status not in (0, None) and len(lines) == 1 and path in lines[0] and what in lines[0],
          "one line naming %s and what it is, non-zero exit" % path, r)


def test_a_fifo_as_image_is_refused_by_every_command():
    d = tmpdir()
    try:
        fifo = os.path.join(d, "image.elf")
        os.mkfifo(fifo)
        db = os.path.join(d, "p.db")
        for args in (["run", fifo], ["run", "--no-check", fifo],
                     ["record", "--db", db, fifo],
                     ["daemon", "--db", db, "--link", "unix:" + os.path.join(d, "no.sock"),
                      "--elf", fifo]):
            one_error_line(alphaprof(args, timeout=20), fifo)
        seal = require(build_path("host", "alphaprof-seal"), "the sealing tool")
        try:
            p = subprocess.run([seal, "--name", "x", fifo], capture_output=True, text=True,
                               timeout=20)
        except subprocess.TimeoutExpired:
            raise AssertionError("alphaprof-seal waited on a FIFO")
        check(p.returncode != 0 and "is a FIFO" in p.stderr and fifo in p.stderr,
              "alphaprof-seal refuses a FIFO: " + p.stderr)
    finally:
        cleanup(d)


def test_a_fifo_as_oracle_or_database_is_refused():
    d = tmpdir()
    try:
        fifo = os.path.join(d, "thing")
        os.mkfifo(fifo)
        db = os.path.join(d, "p.db")
        check(alphaprof(["db", "--db", db, "init"]).status == 0, "an empty database")
        one_error_line(alphaprof(["check", "--db", db, "--oracle", fifo], timeout=20), fifo)
        for cmd in ("report", "stats", "annotate main", "db"):
            one_error_line(alphaprof(cmd.split() + ["--db", fifo], timeout=20), fifo)
        one_error_line(alphaprof(["report", "--db", d], timeout=20), d, "is a directory")
    finally:
        cleanup(d)


def test_a_fifo_or_directory_as_export_output_is_refused():
    """(a FIFO nobody reads made export wait forever)"""
    d = tmpdir()
    try:
        fifo = os.path.join(d, "out")
        os.mkfifo(fifo)
        db = os.path.join(d, "p.db")
        check(alphaprof(["db", "--db", db, "init"]).status == 0, "an empty database")
        for target, what in ((fifo, "is a FIFO"), (d, "is a directory")):
            r = alphaprof(["export", "--db", db, "--format", "folded", "-o", target], timeout=20)
            check(r.status == 2, "exit 2", r)
            one_error_line(r, target, what)
    finally:
        cleanup(d)


def test_a_fifo_or_directory_as_oracle_to_write_is_refused_before_the_run():
    d = tmpdir()
    try:
        fifo = os.path.join(d, "o")
        os.mkfifo(fifo)
        hello = require(build_path("workloads", "hello.elf"))
        for target, what in ((fifo, "is a FIFO"), (d, "is a directory")):
            for cmd in (["run"], ["record", "--db", os.path.join(d, "p.db")]):
                r = alphaprof(cmd + ["--oracle", target, hello], timeout=30)
                check(r.status == 2 and "monitor:" not in r.out, "refused before the board starts", r)
                one_error_line(r, target, what)
    finally:
        cleanup(d)


def test_export_refuses_to_write_over_the_database_or_image_it_reads():
    """(-o naming the database truncated it to the exported text; -o naming
    the profiled image truncated it under export's own map of its symbols:
    a bus error and an empty image)"""
    d = tmpdir()
    try:
        img = os.path.join(d, "drystone.elf")
        with open(require(build_path("workloads", "drystone.elf")), "rb") as f, open(img, "wb") as g:
            g.write(f.read())
        db = os.path.join(d, "p.db")
        r = alphaprof(["record", "--deterministic", "--db", db, img], timeout=200)
        check(r.status == 0, "drystone recorded from a copy", r)
        keep = {p: open(p, "rb").read() for p in (db, img)}
        for target, what in ((db, "the database"), (os.path.join(d, ".", "p.db"), "the database"),
                             (img, "the profiled image")):
            r = alphaprof(["export", "--db", db, "--format", "folded", "-o", target], timeout=60)
            check(r.status == 2 and len(r.err.strip().splitlines()) == 1 and what in r.err,
                  "-o %s is refused in one line" % target, r)
        check(all(open(p, "rb").read() == b for p, b in keep.items()), "the database and the image are untouched")
        out = os.path.join(d, "p.folded")
        r = alphaprof(["export", "--db", db, "--format", "folded", "-o", out], timeout=60)
        check(r.status == 0 and os.path.getsize(out) > 0, "another file is written", r)
    finally:
        cleanup(d)


def recorded(d):
    """A real profile of drystone with its oracle, in d."""
    db, oracle = os.path.join(d, "p.db"), os.path.join(d, "o.bin")
    r = alphaprof(["record", "--deterministic", "--db", db, "--oracle", oracle,
                   require(build_path("workloads", "drystone.elf"))], timeout=200)
    check(r.status == 0, "drystone recorded", r)
    return db, oracle


def test_a_full_standard_output_fails_every_reader_in_one_line():
    """(paths, cct, check and others printed into /dev/full and exited 0)"""
    if not os.path.exists("/dev/full"):
        return
    d = tmpdir()
    try:
        db, oracle = recorded(d)
        for args in (["report", "--db", db], ["annotate", "--db", db, "main"],
                     ["check", "--db", db, "--oracle", oracle], ["db", "--db", db, "epochs"]):
            with open("/dev/full", "w") as full:
                p = subprocess.run([build_path("host", "alphaprof")] + args, stdout=full, stderr=subprocess.PIPE,
                                   text=True, timeout=120)
            lines = [l for l in p.stderr.splitlines() if l.strip()]
            check(p.returncode == 1 and len(lines) == 1 and "writ" in lines[0] and "output" in lines[0],
                  "%s into /dev/full: exit %d, %s" % (args[0], p.returncode, p.stderr))
    finally:
        cleanup(d)


def damaged_copy(db, d, name, sql):
    import sqlite3
    copy = os.path.join(d, name + ".db")
    src, dst = sqlite3.connect(db), sqlite3.connect(copy)
    src.backup(dst)
    src.close()
    dst.executescript(sql)
    dst.commit()
    dst.close()
    return copy


def test_a_damaged_database_is_named_damaged_by_every_reader():
    """(a negative or absurd sample count once gave a report that summed it,
    exit 0; a missing table gave SQLite's bare words)"""
    d = tmpdir()
    try:
        db, oracle = recorded(d)
        first = " WHERE offset = (SELECT min(offset) FROM samples)"
        cases = (("negative", "UPDATE samples SET count = -5" + first, "is damaged: it holds a sample count of -5"),
                 ("huge", "UPDATE samples SET count = 9223372036854775807" + first,
                  "is damaged: it holds a sample count of 9223372036854775807"),
                 ("nosamples", "DROP TABLE samples", "is damaged: its table samples is missing"),
                 ("noimages", "DROP TABLE images", "is damaged: its table images is missing"))
        for name, sql, what in cases:
            bad = damaged_copy(db, d, name, sql)
            for args in (["report", "--db", bad], ["annotate", "--db", bad, "main"],
                         ["check", "--db", bad, "--oracle", oracle], ["stats", "--db", bad, "--db", db],
                         ["diff", "--db", db, "--db2", bad], ["export", "--db", bad, "--format", "folded"],
                         ["db", "--db", bad, "epochs"]):
                r = alphaprof(args, timeout=30)
                one_error_line(r, bad, what)
    finally:
        cleanup(d)


def test_check_without_the_images_symbols_refuses_a_procedure_level_error():
    """(without them each PC counted as its own procedure: 62 % instead of 19 %)"""
    d = tmpdir()
    try:
        db, oracle = recorded(d)
        hello = require(build_path("workloads", "hello.elf"))
        for name, path, what in (("moved", "/nonexistent/drystone.elf", "No such file or directory"),
                                 ("other", hello, "rebuilt since")):
            bad = damaged_copy(db, d, name, "UPDATE images SET path = '%s' WHERE name = 'drystone'" % path)
            r = alphaprof(["check", "--db", bad, "--oracle", oracle], timeout=30)
            check(r.status == 1, "check fails", r)
            one_error_line(r, "no symbols for drystone, so no procedure-level error", what)
            if name == "moved":         # (it hinted at build/workloads/NAME.elf, a path the user never gave)
                check("put that image back there, or record again" in r.err, "the remedy for a moved image", r)
        check(alphaprof(["check", "--db", db, "--oracle", oracle]).status == 0, "with its symbols it checks")
    finally:
        cleanup(d)


def test_a_file_that_is_not_an_image_is_refused_by_every_command_before_it_waits():
    """(daemon once checked only that the file was regular, then waited for
    the board: a text file was found bad only when its samples came)"""
    d = tmpdir()
    try:
        text = os.path.join(d, "notes.txt")
        with open(text, "w") as f:
            f.write("not an image\n")
        db = os.path.join(d, "p.db")
        for args in (["run", text], ["record", "--db", db, text],
                     ["daemon", "--db", db, "--link", "unix:" + os.path.join(d, "no.sock"), "--elf", text]):
            r = alphaprof(args, timeout=20)
            one_error_line(r, text, "not an ELF file")
        # the host's own programs: an ELF, of the host's machine, named (record said its time limit first)
        host = os.path.realpath(sys.executable)
        for args in (["run", host], ["record", "--db", db, host], ["instrument", "--paths", host, "-o",
                                                                   os.path.join(d, "x.elf")]):
            r = alphaprof(args, timeout=20)
            one_error_line(r, host, "not an ELF for Alpha (x86-64, machine 62)" if platform.machine() == "x86_64"
                           else "not an ELF for Alpha (")
    finally:
        cleanup(d)
