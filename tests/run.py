#!/usr/bin/env python3
"""The test runner of `make test`.

Runs every unit test binary (build/tests/unit/ and its ASan+UBSan twin
build/tests/unit-asan/), one result per cmocka test case, then every
libFuzzer target in build/tests/fuzz/ for FUZZ_SECONDS (env
ALPHAPROF_FUZZ_SECONDS, default 20) on a corpus kept in
build/tests/fuzz-corpus/, and every `test_*` function of
tests/e2e/test_*.py, each in its own process with a time limit, at most two
at a time (fuzzers and e2e tests share the two slots).  One line per test, and last exactly
one line "N passed, N failed".  Exits non-zero if anything failed or if
nothing ran.

    python3 tests/run.py [--build DIR] [-k PATTERN] [--list]
"""
import argparse
import concurrent.futures
import importlib
import os
import re
import signal
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
E2E_DIR = os.path.join(REPO, "tests", "e2e")
UNIT_VARIANTS = ("unit", "unit-asan")
UNIT_TIMEOUT = 120
E2E_TIMEOUT = 240
E2E_JOBS = 2        # a 2-core machine: each QEMU takes a core
FUZZ_SECONDS = int(os.environ.get("ALPHAPROF_FUZZ_SECONDS", "20"))

RUN_RE = re.compile(r"^\[ RUN      \] (\S+)")
OK_RE = re.compile(r"^\[       OK \] (\S+)")
FAILED_RE = re.compile(r"^\[  FAILED  \] (\S+)$")
SKIPPED_RE = re.compile(r"^\[  SKIPPED \] (\S+)")


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def report(self, ok, name, seconds, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print("%s %s (%.2fs)" % ("PASS" if ok else "FAIL", name, seconds), flush=True)
        if detail and not ok:
            lines = detail.rstrip().splitlines()
            # the failure's own line (AssertionError: what) first, then
            # the end of what it explains: a long explanation (a daemon's
            # log) must not push out what failed
            first = [l for l in lines if l.startswith(("AssertionError", "Traceback"))][:1]
            shown = lines[-60:]
            if first and first[0] not in shown:
                shown = first + ["..."] + lines[-58:]
            for line in shown:
                print("    " + line)
            sys.stdout.flush()


def matches(name, patterns):
    return not patterns or any(p in name for p in patterns)


def unit_binaries(build):
    found = []
    for variant in UNIT_VARIANTS:
        d = os.path.join(build, "tests", variant)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            p = os.path.join(d, f)
            if f.startswith("test_") and os.path.isfile(p) and os.access(p, os.X_OK):
                found.append((variant + "/" + f, p))
    return found


def run_unit(label, path, patterns, results):
    env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT="stdout",
               ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    start = time.monotonic()
    try:
        # stderr (cmocka's failure details, sanitizer reports) in order with stdout
        p = subprocess.run([path], cwd=REPO, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=UNIT_TIMEOUT,
                           errors="replace")
        out, status = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        status = None
    elapsed = time.monotonic() - start

    cases, order, running = {}, [], None
    for line in out.splitlines():
        m = RUN_RE.match(line)
        if m:
            running = m.group(1)
            order.append(running)
            continue
        m = OK_RE.match(line)
        if m and m.group(1) == running:
            cases[running] = True
            running = None
            continue
        m = FAILED_RE.match(line) or SKIPPED_RE.match(line)
        if m and m.group(1) == running:
            cases[running] = False      # a skip is not a pass
            running = None
    per_case = elapsed / max(len(order), 1)
    reported = 0
    for name in order:
        full = "%s.%s" % (label, name)
        if not matches(full, patterns):
            continue
        reported += 1
        ok = cases.get(name, False)
        detail = ""
        if not ok:
            detail = case_output(out, name)
            if name not in cases:
                detail += "\n(the binary stopped during this test: %s)" % describe(status)
        results.report(ok, full, per_case, detail)
    # A binary that ran no case, timed out, or failed although every case
    # passed (e.g. a leak found at exit) is a failure of its own.
    all_ok = all(cases.get(n, False) for n in order)
    unexplained = not order or status is None or (status != 0 and all_ok)
    if unexplained and (reported or matches(label, patterns)):
        results.report(False, label, elapsed, "%s\n%s" % (describe(status), out))


def describe(status):
    if status is None:
        return "timed out after %d s" % UNIT_TIMEOUT
    if status < 0:
        return "killed by signal %d" % -status
    return "exit status %d" % status


def case_output(out, name):
    lines = out.splitlines()
    keep, inside = [], False
    for line in lines:
        if RUN_RE.match(line):
            inside = RUN_RE.match(line).group(1) == name
        if inside:
            keep.append(line)
    if not keep or keep[-1].startswith("[ RUN"):
        keep += lines[-40:]
    return "\n".join(keep)


def fuzz_binaries(build):
    d = os.path.join(build, "tests", "fuzz")
    if not os.path.isdir(d):
        return []
    return [("fuzz/" + f, os.path.join(d, f)) for f in sorted(os.listdir(d))
            if f.startswith("fuzz_") and os.access(os.path.join(d, f), os.X_OK)]


def run_fuzz_one(label, path, build):
    """Runs one libFuzzer target for FUZZ_SECONDS; any crash, leak, timeout
    or sanitizer report makes it exit non-zero."""
    corpus = os.path.join(build, "tests", "fuzz-corpus", os.path.basename(path))
    os.makedirs(corpus, exist_ok=True)
    start = time.monotonic()
    cmd = [path, "-max_total_time=%d" % FUZZ_SECONDS, "-timeout=10", "-rss_limit_mb=2048",
           "-print_final_stats=1", "-artifact_prefix=%s/" % os.path.dirname(corpus), corpus]
    try:
        p = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=FUZZ_SECONDS + 120)
        ok, out = p.returncode == 0, p.stdout
        if not ok:
            out += "\n(%s; the failing input is saved beside %s)" % (describe(p.returncode), corpus)
    except subprocess.TimeoutExpired as e:
        ok, out = False, "%s\n(fuzzer did not stop after %d s)" % (e.stdout or "", FUZZ_SECONDS + 120)
    return label, ok, time.monotonic() - start, out


def e2e_tests():
    sys.path.insert(0, E2E_DIR)
    found = []
    for f in sorted(os.listdir(E2E_DIR)):
        if f.startswith("test_") and f.endswith(".py"):
            mod_name = f[:-3]
            mod = importlib.import_module(mod_name)
            fns = [(fn.__code__.co_firstlineno, name) for name, fn in vars(mod).items()
                   if name.startswith("test_") and callable(fn) and hasattr(fn, "__code__")]
            # in source order: cheap tests first, as written
            found += ["e2e/%s.%s" % (mod_name, name) for _, name in sorted(fns)]
    return found


def run_e2e_one(full_name, build):
    """Runs one e2e test in a child process (its own session, so a hang is
    killed with everything it started)."""
    mod_fn = full_name.split("/", 1)[1]
    env = dict(os.environ, ALPHAPROF_BUILD=os.path.relpath(build, REPO)
               if not os.path.isabs(build) else build, PYTHONDONTWRITEBYTECODE="1")
    start = time.monotonic()
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--run-one", mod_fn],
                         cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, errors="replace", start_new_session=True)
    try:
        out, _ = p.communicate(timeout=E2E_TIMEOUT)
        ok = p.returncode == 0
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGTERM)
        try:
            out, _ = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
        out += "\n(timed out after %d s)" % E2E_TIMEOUT
        ok = False
    return full_name, ok, time.monotonic() - start, out


def run_one(mod_fn):
    """Child side of run_e2e_one: run the function, exit 0 on success."""
    sys.path.insert(0, E2E_DIR)
    mod_name, fn_name = mod_fn.split(".", 1)
    fn = getattr(importlib.import_module(mod_name), fn_name)
    try:
        fn()
    except AssertionError as e:
        print("AssertionError: %s" % e)
        return 1
    except Exception:
        import traceback
        traceback.print_exc()
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description="alphaprof test runner")
    ap.add_argument("--build", default="build", help="build directory (default build)")
    ap.add_argument("-k", action="append", default=[], metavar="PATTERN",
                    help="run only tests whose name contains PATTERN (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the tests and exit")
    ap.add_argument("--run-one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.run_one:
        return run_one(a.run_one)
    build = a.build if os.path.isabs(a.build) else os.path.join(REPO, a.build)

    units = unit_binaries(build)
    fuzzers = [(label, p) for label, p in fuzz_binaries(build) if matches(label, a.k)]
    e2e = [t for t in e2e_tests() if matches(t, a.k)]
    if a.list:
        for label, _ in units:
            if matches(label, a.k):
                print(label + " (cmocka binary: every case)")
        for label, _ in fuzzers:
            print(label + " (libFuzzer, %d s)" % FUZZ_SECONDS)
        for t in e2e:
            print(t)
        return 0

    results = Results()
    started = time.monotonic()
    if not units and matches("unit", a.k):
        results.report(False, "unit", 0.0,
                       "no unit test binaries under %s/tests/unit: run make tests-build" % build)
    for label, path in units:
        run_unit(label, path, a.k, results)

    units_done = time.monotonic()
    summed = 0.0
    with concurrent.futures.ThreadPoolExecutor(max_workers=E2E_JOBS) as pool:
        futures = [pool.submit(run_fuzz_one, label, p, build) for label, p in fuzzers]
        futures += [pool.submit(run_e2e_one, t, build) for t in e2e]
        for fut in futures:     # report in a stable order
            name, ok, secs, out = fut.result()
            summed += secs
            results.report(ok, name, secs, out)

    # (what the 30-minute budget of make test is spent on)
    done = time.monotonic()
    print("time: unit tests %.0f s; fuzz and e2e %.0f s on %d slots, %.0f s summed" %
          (units_done - started, done - units_done, E2E_JOBS, summed), flush=True)

    print("%d passed, %d failed" % (results.passed, results.failed), flush=True)
    return 0 if results.failed == 0 and results.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
