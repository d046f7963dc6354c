"""Instrumented images behave exactly as their originals (issue 15 item 1),
on every workload the build makes, in every mode of `alphaprof instrument`:
--paths, --paths --metrics, --cct, --cct --metrics and --both.  The tests
check a chosen few per mode; this runs them all, so a workload added later
is swept too.

Each pair runs with `alphaprof run` (host time, the default timer profile)
and compares the exit status and the workload's console lines, the
monitor's own lines left out.  A line that reports a duration (" ns") or
rounds done in a fixed time (sprawl) has its numbers masked: the
instrumented image is slower, so those differ by design and by nothing
else.  A mode the instrumenter refuses for an image (one line, non-zero
exit) is shown as refused, not as a difference.
"""
import os
import re
import shutil
import tempfile

from benchlib import Table
from harness import alphaprof, build_path

MODES = [("--paths", ["--paths"]), ("--paths --metrics", ["--paths", "--metrics"]), ("--cct", ["--cct"]),
         ("--cct --metrics", ["--cct", "--metrics"]), ("--both", ["--both"])]
TIMED = re.compile(r" ns\b|rounds of")


def console(img):
    """(exit status, the workload's lines with timed numbers masked)."""
    r = alphaprof(["run", "--timeout", "120", img], timeout=150)
    lines = [l for l in r.out.splitlines() + r.err.splitlines()
             if not l.startswith("monitor:") and not l.startswith("alphaprof")]
    return r.status, [re.sub(r"\d+", "N", l) if TIMED.search(l) else l for l in lines]


def run(build):
    t = Table("instrument_same_output", "Instrumented images against their originals: exit status and console "
              "output, every workload, every mode",
              ["workload", "exit status", "lines"] + [m for m, _ in MODES])
    d = tempfile.mkdtemp(prefix="bench-same-")
    pairs = same = refused = 0
    differ = []
    try:
        wdir = build_path("workloads")
        for name in sorted(f[:-4] for f in os.listdir(wdir) if f.endswith(".elf")):
            orig = os.path.join(wdir, name + ".elf")
            want = console(orig)
            cells = []
            for label, opts in MODES:
                inst = os.path.join(d, "%s%s.elf" % (name, "".join(opts).replace("--", "-")))
                r = alphaprof(["instrument"] + opts + [orig, "-o", inst], timeout=120)
                if r.status != 0:
                    refused += 1
                    cells.append("refused")
                    continue
                pairs += 1
                got = console(inst)
                if got == want:
                    same += 1
                    cells.append("same")
                else:
                    differ.append("%s %s" % (name, label))
                    cells.append("DIFFERS (exit %d)" % got[0])
                os.unlink(inst)
            t.add(name, want[0], len(want[1]), *cells)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.target("pairs whose exit status and output are the same", "%d of %d" % (same, pairs),
             "all", same == pairs and pairs > 0)
    t.notes = ("alphaprof run of each workload and of its instrumented copy (host time, the default timer "
               "profile); the monitor's lines are left out and the numbers of a line reporting a duration "
               "(' ns') or rounds done in a fixed time are masked.  Refused: %d (the instrumenter's one-line "
               "refusal, not a run).%s" % (refused, "  Differ: " + ", ".join(differ) if differ else ""))
    return [t]
