"""End-to-end: `alphaprof instrument --paths` (util/instrument.c,
firmware/abi/path-region.h): Ball-Larus path counters in a rewritten image,
drained over the link as PATHS frames into the database, and checked path
for path against the hardware model's exact path counts of the same run
(check --paths: path_count_error, FILE.blpaths)."""
import json
import os

from harness import alphaprof, build_path, check, cleanup, require, run_image, tmpdir

# Workloads whose console output does not depend on time, with arguments.
SAME_OUTPUT = [("branches", []), ("qsort", []), ("calltree", ["64"]), ("hello", []), ("compress", []),
               ("libcheck", []), ("valuediff", []), ("chatter", []), ("matmul", []), ("copy", [])]


def _instrument(d, name):
    orig = require(build_path("workloads", name + ".elf"), "the %s workload" % name)
    out = os.path.join(d, name + "-paths.elf")
    r = alphaprof(["instrument", "--paths", orig, "-o", out])
    check(r.status == 0 and os.path.exists(out), "instrument --paths %s succeeds" % name, r)
    return orig, out


def _console(r):
    """What the run printed, less what differs by design: the image's
    build-id and size, the run time."""
    return [l for l in r.lines() if "build-id" not in l and "run time" not in l]


def test_path_instrumented_images_print_and_exit_as_the_originals():
    d = tmpdir()
    try:
        for name, args in SAME_OUTPUT:
            orig, inst = _instrument(d, name)
            a = run_image(orig, args=args, timeout_s=300)
            b = run_image(inst, args=args, timeout_s=300)
            check(a.status == b.status, "%s: the instrumented image exits as the original (%d)" % (name, a.status), b)
            check(_console(a) == _console(b), "%s: the instrumented image prints what the original prints" % name,
                  "%s\n----\n%s" % (a, b))
    finally:
        cleanup(d)


def _record(d, img, args, cores=1):
    db, oracle = os.path.join(d, "p.db"), os.path.join(d, "p.oracle")
    r = alphaprof(["record", "--board", "clipper-pm", "--cores", str(cores), "--oracle", oracle, "--db", db,
                   "--timeout", "250", img, "--"] + args, timeout=280)
    check(r.status == 0, "record of the instrumented image succeeds", r)
    check(any(l.startswith("monitor: paths: core 0:") for l in r.lines()), "the monitor says what it sent", r)
    return db, oracle


def test_path_counts_equal_the_models_exact_counts():
    d = tmpdir()
    try:
        _, inst = _instrument(d, "calltree")
        db, oracle = _record(d, inst, ["16"])
        r = alphaprof(["check", "--paths", "--db", db, "--oracle", oracle, "--json"])
        check(r.status == 0, "check --paths compares", r)
        j = json.loads(r.out)
        check(j["path_count_error"] == 0, "every path's count equals the model's", r)
        i = j["instrumented"]
        check(i["paths_profile"] == i["paths_truth"] > 1000, "every path execution was counted", r)
        check(i["distinct_equal"] == i["distinct_truth"] == i["distinct_profile"] > 30,
              "the same paths on both sides", r)
        check(i["procedures_instrumented"] > 50, "most procedures are instrumented", r)
        check(i["lost_paths"] == i["unmatched_exits"] == i["bad_paths"] == i["unnamed"] == 0,
              "nothing lost or unmatched on the board", r)
        r = alphaprof(["check", "--paths", "--db", db, "--oracle", oracle])
        check(r.status == 0 and "path_count_error 0" in r.out, "the text report says it too", r)
    finally:
        cleanup(d)


def test_path_counts_on_two_cores_each_in_its_own_region_equal_the_truth():
    """parallel: both cores count, each found its region from its own sp, and
    the path registers kept in registers never mix the cores' paths."""
    d = tmpdir()
    try:
        _, inst = _instrument(d, "parallel")
        db, oracle = _record(d, inst, [], cores=2)
        r = alphaprof(["check", "--paths", "--db", db, "--oracle", oracle, "--json"])
        check(r.status == 0, "check --paths compares", r)
        j = json.loads(r.out)
        check(j["path_count_error"] == 0, "every path's count on both cores equals the model's", r)
        i = j["instrumented"]
        check(i["paths_profile"] == i["paths_truth"] > 1000000, "every path execution was counted", r)
        check(i["lost_paths"] == i["unmatched_exits"] == i["bad_paths"] == 0, "nothing lost on the board", r)
    finally:
        cleanup(d)


def test_path_instrumenting_refuses_both_and_an_instrumented_image():
    d = tmpdir()
    try:
        orig, inst = _instrument(d, "hello")
        r = alphaprof(["instrument", "--both", orig, "-o", os.path.join(d, "x.elf")])
        check(r.status == 2 and "not built yet" in r.err and len(r.err.strip().splitlines()) <= 3,
              "--both is refused with one clear line", r)
        r = alphaprof(["instrument", "--paths", inst, "-o", os.path.join(d, "y.elf")])
        check(r.status == 1 and "already instrumented" in r.err and not os.path.exists(os.path.join(d, "y.elf")),
              "an instrumented image is refused, nothing written", r)
    finally:
        cleanup(d)
