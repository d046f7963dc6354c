"""End-to-end: every shipped workload boots under the monitor and runs to
completion with its own self-check ("NAME: ok ...") and exit status 0, on
one core and, for the parallel one, on every core count the board offers.
"""
import re

from harness import build_path, check, require, run_image

WORKLOADS = ["copy", "chase", "branches", "matmul", "qsort", "compress", "parallel", "libcheck"]


def image(name):
    return require(build_path("workloads", name + ".elf"), "the %s workload" % name)


def expect_ok(name, *opts, cores=1, args=None):
    r = run_image(image(name), "--cores", str(cores), *opts, args=args, timeout_s=200)
    check(r.status == 0, "%s exits 0 on %d cores" % (name, cores), r)
    check(any(l.startswith(name + ": ok") for l in r.lines()),
          "%s prints its self-check line" % name, r)
    check(not any("FAILED" in l for l in r.lines()), "%s reports no failure" % name, r)
    check("monitor: %s exited with status 0" % name in r.lines(), "monitor reports the exit", r)
    return r


def _make_test(name):
    def test():
        expect_ok(name)
    test.__name__ = "test_%s_runs" % name
    return test


for _name in WORKLOADS:
    globals()["test_%s_runs" % _name] = _make_test(_name)


def test_parallel_on_every_core_count():
    for cores in (2, 3, 4):
        r = expect_ok("parallel", cores=cores)
        partials = [l for l in r.lines() if re.match(r"parallel: core \d+ partial", l)]
        check(len(partials) == cores, "one partial sum per core on %d cores" % cores, r)


def test_parallel_takes_its_rounds_and_refuses_a_bad_count():
    r = expect_ok("parallel", cores=2, args=["1"])
    check(any("sum of squares below" in l for l in r.lines()), "one round gives the same total", r)
    for bad in ("0", "9", "x"):
        r = run_image(image("parallel"), "--cores", "2", args=[bad], timeout_s=200)
        check(r.status != 0 and any("is not a number of rounds: give 1..8" in l for l in r.lines()),
              "parallel %s is refused in one line" % bad, r)


def test_deterministic_mode_repeats_exactly():
    # One vCPU thread with -icount: the same run prints the same virtual time.
    runs = [run_image(image("parallel"), "--cores", "2", "--deterministic",
                      "--append", "report_ticks=1", "--append", "tick_hz=100", timeout_s=200)
            for _ in range(2)]
    for r in runs:
        check(r.status == 0, "deterministic parallel run exits 0", r)
    # Results, run time and every tick count repeat exactly.  The
    # secondary's start (an IPI taken under QEMU's round-robin vCPU kick,
    # which follows host timers) can move by a few ns on a loaded host, so
    # only the boot core's alarm span is compared to the nanosecond.
    def repeatable(r):
        out = []
        for l in r.lines():
            if " alarm " in l and not l.startswith("monitor: core 0 "):
                l = l.rsplit(" over ", 1)[0]
            if " alarm " in l or "run time" in l or "partial" in l or l.startswith("parallel:"):
                out.append(l)
        return out
    a, b = repeatable(runs[0]), repeatable(runs[1])
    check(any(" alarm " in l for l in a) and a == b,
          "results, run time and tick reports repeat exactly:\n%s\n---\n%s" % ("\n".join(a), "\n".join(b)),
          runs[1])
