"""End-to-end: what the hardware model cannot do fails the run with one
line on stderr naming it (the plugin's errors file, read by the
launcher), whether it is found when the plugin loads or when it writes
the oracle at exit."""
import os

from harness import alphaprof, board_like, build_path, check, cleanup, require, tmpdir


def hello():
    return require(build_path("workloads", "hello.elf"))


def board_with_args(d, extra):
    """clipper-pm with extra plugin arguments, under a home of its own."""
    return board_like(d, "odd", "clipper-pm", {"plugin_args": lambda v: "%s,%s" % (v, extra)})


def model_lines(r):
    return [l for l in r.err.splitlines() if "hardware model:" in l]


def test_an_oracle_in_a_missing_directory_is_refused_before_the_run():
    r = alphaprof(["run", "--board", "clipper-pm", "--oracle", "/nonexistent/dir/o", hello()], timeout=60)
    check(r.status == 2, "refused up front", r)
    check(r.err.splitlines() == ["alphaprof run: --oracle /nonexistent/dir/o: no directory /nonexistent/dir/ to "
                                 "write it in; see 'alphaprof run --help'"], "one line names the directory", r)
    check("hello: ok" not in r.out, "nothing ran", r)


def test_an_oracle_path_that_is_a_directory_is_refused_before_the_run():
    d = tmpdir()
    try:
        r = alphaprof(["record", "--oracle", d, "--db", os.path.join(d, "p.db"), hello()], timeout=60)
        check(r.status == 2 and "is a directory, not a regular file" in r.err and len(r.err.splitlines()) == 1,
              "one line, exit 2", r)
        check("hello: ok" not in r.out, "nothing ran", r)
    finally:
        cleanup(d)


def test_an_oracle_in_a_missing_directory_fails_the_model_at_once_with_one_line():
    """(given to the plugin by the board file, past the launcher's check)"""
    d = tmpdir()
    try:
        env = board_with_args(d, "oracle=/nonexistent/dir/o")
        r = alphaprof(["run", "--board", "odd", hello()], timeout=60, env=env)
        check(r.status != 0, "the run fails", r)
        lines = model_lines(r)
        check(lines == ["alphaprof run: hardware model: cannot write the oracle file /nonexistent/dir/o: "
                        "No such file or directory"], "one line names the file and why", r)
        check("qemu_plugin_install" not in r.err, "QEMU's own echo of it is not shown", r)
        check("hello: ok" not in r.out and "Hello" not in r.out, "nothing ran", r)
    finally:
        cleanup(d)


def test_an_oracle_that_cannot_be_written_at_exit_fails_the_run():
    d = tmpdir()
    try:
        target = os.path.join(d, "o")
        os.makedirs(target)             # a directory: the final rename onto it fails
        env = board_with_args(d, "oracle=" + target)
        r = alphaprof(["run", "--board", "odd", hello()], timeout=60, env=env)
        check("monitor: hello exited with status 0" in r.lines(), "the workload itself ran", r)
        check(r.status == 1, "but the run fails: its oracle is missing", r)
        lines = model_lines(r)
        check(len(lines) == 1 and "cannot write the oracle file %s" % target in lines[0], "named once", r)
    finally:
        cleanup(d)


def test_a_bad_plugin_argument_fails_the_run_with_one_line():
    d = tmpdir()
    try:
        env = board_with_args(d, "width=abc")
        r = alphaprof(["run", "--board", "odd", hello()], timeout=60, env=env)
        check(r.status != 0, "the run fails", r)
        check(model_lines(r) == ["alphaprof run: hardware model: unknown or bad argument 'width=abc'"],
              "one line names the argument", r)
    finally:
        cleanup(d)


def test_record_fails_when_the_model_cannot_write_its_oracle():
    d = tmpdir()
    try:
        env = board_with_args(d, "oracle=/nonexistent/dir/o")
        r = alphaprof(["record", "--board", "odd", "--db", os.path.join(d, "p.db"), hello()], timeout=60, env=env)
        check(r.status != 0, "record fails", r)
        check(any("cannot write the oracle file /nonexistent/dir/o" in l for l in model_lines(r)),
              "and says why", r)
    finally:
        cleanup(d)
