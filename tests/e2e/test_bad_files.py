"""Paths that name something other than a regular file (no QEMU needed: the
host refuses them before it starts anything).  A FIFO nobody writes to,
given as an image, an oracle or a database, once made run, record, daemon
and alphaprof-seal wait forever in open(); now each says what the path is
in one line and exits non-zero at once.  A directory likewise."""
import os
import subprocess

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
