#!/usr/bin/env python3
"""make bench: runs every benchmark, prints each as a table and writes it
under bench/results/ (NAME.md, a table, and NAME.json, the raw numbers).

Benchmarks compare runs measured side by side in one invocation (ratios,
not absolute times: the machines are noisy).  Where a number is measured in
the board's virtual time (--deterministic: 1 ns per instruction) it is
exact and repeatable.  Targets from the issues are printed beside the
measurements; missing a target is reported, not hidden.

Usage: tests/bench.py [--build DIR] [-k SUBSTRING]
"""
import argparse
import importlib
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "e2e"))
sys.path.insert(0, os.path.join(HERE, "bench"))

# Modules in tests/bench/ named bench_*.py; each has run(build) -> list of
# Table objects (tests/bench/benchlib.py).
def discover():
    d = os.path.join(HERE, "bench")
    return sorted(f[:-3] for f in os.listdir(d) if f.startswith("bench_") and f.endswith(".py"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("-k", default=None, help="only benchmarks whose name contains this")
    a = ap.parse_args()
    os.environ["ALPHAPROF_BUILD"] = a.build
    out_dir = os.path.join(REPO, "bench", "results")
    os.makedirs(out_dir, exist_ok=True)
    failed = 0
    for name in discover():
        if a.k and a.k not in name:
            continue
        mod = importlib.import_module(name)
        start = time.time()
        try:
            tables = mod.run(a.build)
        except Exception as e:          # a broken benchmark is reported, not fatal
            print("%s: FAILED to run: %s" % (name, e))
            failed += 1
            continue
        for t in tables:
            text = t.render()
            print(text)
            with open(os.path.join(out_dir, t.name + ".md"), "w") as f:
                f.write(text)
            with open(os.path.join(out_dir, t.name + ".json"), "w") as f:
                json.dump(t.as_json(), f, indent=1)
        print("(%s took %.0f s)\n" % (name, time.time() - start))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
