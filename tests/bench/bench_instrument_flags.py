"""Instrumented images built with other compiler flags (issue 15: "images
built by anyone work").  Every other bench instruments the workloads as the
build makes them (-O2); a user brings code built -O0, -Os or -O3 with
unrolled loops, whose loops, frames and register use differ.  This builds
a few workloads again with each of those (workloads/build.mk's
WORKLOAD_EXTRA_CFLAGS, into build/workloads-FLAGS/) and, in every mode of
`alphaprof instrument` that counts, checks what the other benches check at
-O2: the same exit status and console output as the original (numbers
masked on a line that reports a duration or modelled cycles: the copy is
slower by design), and counts equal to the model's exact truth
(path_count_error, context_path_error, cct_count_error 0), with the
metered modes' path_metric_error beside.

Deterministic records with the oracle, one pair at a time.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

from benchlib import Table
from harness import REPO, alphaprof, build_path

FLAGS = [("O0", "-O0"), ("Os", "-Os"), ("O3u", "-O3 -funroll-loops")]
WORKLOADS = ["drystone", "listmark", "manypaths", "libcheck", "chatter"]
MODES = [("--paths", ["--paths"]), ("--paths --metrics", ["--paths", "--metrics"]), ("--both", ["--both"]),
         ("--both --metrics", ["--both", "--metrics"]), ("--cct --metrics", ["--cct", "--metrics"])]
TIMED = re.compile(r" ns\b|rounds of|\bcycles\b")
# a build that warns under -Werror only at this level (libcheck's setjmp
# test keeps an int across longjmp: GCC -O0 flags it, though -O0 keeps it
# in memory)
EXTRA = {("libcheck", "O0"): " -Wno-clobbered"}


def build(tag, flags, name):
    out = os.path.join(os.path.relpath(build_path(), REPO), "workloads-" + tag)
    elf = os.path.join(out, name + ".elf")
    r = subprocess.run(["make", "-s", "WL_OUT=" + out, "WORKLOAD_EXTRA_CFLAGS=" + flags + EXTRA.get((name, tag), ""),
                        elf], cwd=REPO, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise RuntimeError("building %s %s failed:\n%s%s" % (name, flags, r.stdout, r.stderr))
    return os.path.join(REPO, elf)


def record(d, tag, img, oracle=True):
    db = os.path.join(d, tag + ".db")
    o = os.path.join(d, tag + ".o")
    r = alphaprof(["record", "--board", "clipper-pm", "--deterministic", "--timeout", "1500"] +
                  (["--oracle", o] if oracle else []) + ["--db", db, img], timeout=1600)
    lines = [l for l in r.out.splitlines() + r.err.splitlines()
             if not l.startswith("monitor:") and not l.startswith("alphaprof") and not l.startswith("daemon:")]
    return (r.status, [re.sub(r"\d+", "N", l) if TIMED.search(l) else l for l in lines]), db, o


def exactness(label, db, o):
    """(counts exact, path_metric_error's largest or None, notes, calls on the overflow record)."""
    exact, err, notes, overflow = True, None, [], 0
    if "--cct" in label or "--both" in label:
        j = json.loads(alphaprof(["check", "--cct", "--db", db, "--oracle", o, "--json"]).out)
        exact &= j["cct_count_error"] == 0
        overflow = j["overflow_calls"]
        if j["cct_count_error"]:
            notes.append("cct_count_error %d (%d calls on the overflow record)" % (j["cct_count_error"], overflow))
    if "--paths" in label or "--both" in label:
        j = json.loads(alphaprof(["check", "--paths", "--db", db, "--oracle", o, "--json"]).out)
        bad = j["path_count_error"] or j.get("context_path_error") or 0
        exact &= bad == 0
        if bad:
            notes.append("path_count_error %d, context_path_error %s" % (j["path_count_error"],
                                                                        j.get("context_path_error")))
        if "--metrics" in label:
            err = max(j["path_metric_error"].values())
    return exact, err, notes, overflow


def run(build_dir):
    t = Table("instrument_flags", "Images built -O0, -Os and -O3 -funroll-loops, instrumented in every counting "
              "mode: the same output as the original, counts equal to the model's truth",
              ["workload", "flags"] + [m for m, _ in MODES])
    d = tempfile.mkdtemp(prefix="bench-flags-")
    pairs = same = exact_n = runs = 0
    worst_err = 0.0
    differ = []
    try:
        for name in WORKLOADS:
            for tag, flags in FLAGS:
                img = build(tag, flags, name)
                want, _, _ = record(d, "%s-%s" % (name, tag), img, oracle=False)
                cells = []
                for label, opts in MODES:
                    key = "%s-%s%s" % (name, tag, "".join(opts).replace("--", "-"))
                    inst = os.path.join(d, key + ".elf")
                    r = alphaprof(["instrument", "-q"] + opts + [img, "-o", inst], timeout=300)
                    if r.status != 0:
                        differ.append("%s %s %s: refused: %s" % (name, flags, label, r.err.strip()))
                        cells.append("refused")
                        continue
                    got, db, o = record(d, key, inst)
                    pairs += 1
                    ok_out = got == want
                    same += ok_out
                    exact, err, notes, overflow = exactness(label, db, o)
                    fixed = ""
                    if overflow and "--both" in label:
                        # the records were full: smaller ones, as check --cct advises
                        r = alphaprof(["instrument", "-q"] + opts + ["--context-paths", "8", img, "-o", inst],
                                      timeout=300)
                        _, db8, o8 = record(d, key + "-cp8", inst)
                        exact8, _, _, _ = exactness(label, db8, o8)
                        fixed = "; --context-paths 8: %s" % ("exact" if exact8 else "INEXACT")
                        notes.append("with --context-paths 8 " + ("exact" if exact8 else "still not exact"))
                    runs += 1
                    exact_n += exact
                    if err is not None:
                        worst_err = max(worst_err, err)
                    if not ok_out:
                        notes.append("output differs (exit %d, want %d)" % (got[0], want[0]))
                    if notes:
                        differ.append("%s %s %s: %s" % (name, flags, label, "; ".join(notes)))
                    cells.append(("same, exact" if ok_out and exact else "DIFFERS" if not ok_out else
                                  "records full: %d calls on the overflow record" % overflow if overflow else
                                  "INEXACT") + ("" if err is None else ", %.4f" % err) + fixed)
                    for f in os.listdir(d):
                        if f.startswith(key + "."):
                            os.unlink(os.path.join(d, f))
                t.add(name, flags, *cells)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    t.target("pairs whose exit status and output are the same", "%d of %d" % (same, pairs), "all",
             same == pairs and pairs > 0)
    t.target("instrumented runs whose counts equal the truth", "%d of %d" % (exact_n, runs), "all",
             exact_n == runs and runs > 0)
    t.target("largest path_metric_error (cycles or dmiss, metered runs)", "%.4f" % worst_err, "<= 0.10",
             worst_err <= 0.10)
    t.notes = ("Each cell: output the same as the original's and counts exact (path_count_error, "
               "context_path_error, cct_count_error 0), and for a metered mode the larger of its cycles and "
               "dmiss path_metric_error.  A --both run whose call records filled the core's region (its calls "
               "then counted on the overflow record, check --cct says so) is run again with --context-paths 8, "
               "as check --cct advises.  The images are built by workloads/build.mk with "
               "WORKLOAD_EXTRA_CFLAGS after the workload's own flags, into build/workloads-O0, -Os, -O3u.%s"
               % ("  Not as wanted: " + "; ".join(differ) if differ else ""))
    return [t]
