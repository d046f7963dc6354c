"""End-to-end: the on-target profiler under real workloads (timer sampling on
the plain board).  The monitor's own summary line is checked against the
run: samples are taken at the configured rate, every one is sent or counted
dropped, and the workload is undisturbed (its self-check still passes).
"""
import re

from harness import build_path, check, require, run_image


def summary(r):
    m = re.search(r"monitor: profile: (\d+) samples, (\d+) hash hits, (\d+) misses, (\d+) entries sent, "
                  r"(\d+) dropped, (\d+) link bytes", r.out)
    check(m, "the monitor prints its profile summary", r)
    return dict(zip(("samples", "hits", "misses", "entries", "dropped", "bytes"),
                    (int(x) for x in m.groups())))


def run_ns(r):
    m = re.search(r"monitor: run time (\d+) ns", r.out)
    check(m, "the monitor prints the run time", r)
    return int(m.group(1))


def test_timer_sampling_rate_and_accounting():
    img = require(build_path("workloads", "chase.elf"))
    r = run_image(img, "--deterministic", "--append", "profile=timer", "--append", "period=20000-24000")
    check(r.status == 0 and any(l.startswith("chase: ok") for l in r.lines()), "chase still passes", r)
    s = summary(r)
    expected = run_ns(r) / 22000.0
    check(abs(s["samples"] - expected) < 0.05 * expected,
          "about one sample per 22 us of virtual time (%d vs %.0f)" % (s["samples"], expected), r)
    check(s["hits"] + s["misses"] == s["samples"], "every sample is a hit or a miss", r)
    check(s["dropped"] == 0 and s["entries"] == s["misses"],
          "every table entry reached the link, none dropped", r)


def test_profiling_on_every_core_keeps_console_input():
    img = require(build_path("workloads", "hello.elf"))
    r = run_image(img, "--cores", "4", "--append", "profile=timer", args=["echo"], input="abc\n")
    check(r.status == 0 and "hello: echo abc" in r.lines(), "console input still works while sampling", r)
    s = summary(r)
    check(s["samples"] > 0 and s["dropped"] == 0, "samples from 4 cores, none dropped", r)


def test_bad_profile_options_are_warnings():
    img = require(build_path("workloads", "hello.elf"))
    # past the host's check of the same table (--no-check): the monitor's own
    r = run_image(img, "--no-check", "--append", "profile=bogus", "--append", "period=5-1")
    check(r.status == 0, "hello still runs", r)
    check(any("profile=bogus" in l for l in r.monitor_lines("warning")) and
          any("period=5-1" in l for l in r.monitor_lines("warning")), "both options are named", r)
