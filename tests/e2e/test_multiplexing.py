"""End-to-end: more events than counters, with an event rarer per
multiplexing slice than its own sampling period.  Each event keeps its
partial period across its turns on the counters
(firmware/profiler/counter-source.c, hw-model/pmu-window.h
"Multiplexing"): without that, every turn would start a fresh countdown
that the slice never finishes, and the event would get no samples at all.
Checked against the model's truth of the profiled interval.
"""
import json
import os
import subprocess

from harness import alphaprof, build_path, check, cleanup, require, tmpdir

SLICE_NS = 10000000         # counter-source.c MUX_SLICE_NS
PERIOD = (300000, 330000)   # stores per sample


def oracle_events(path):
    r = alphaprof(["check", "--oracle", path, "--totals", "--json"])
    check(r.status == 0, "oracle totals of %s" % path, r)
    j = json.loads(r.out)
    return j["events"], j["instructions"]


def test_a_rare_event_keeps_its_partial_period_across_slices_and_matches_the_oracle():
    d = tmpdir()
    try:
        db, oracle = os.path.join(d, "p.db"), os.path.join(d, "o.bin")
        # five events on four counters: two groups taking turns; stores
        # alone in the second
        events = "cycles,retired,loads,branches,stores:%d-%d" % PERIOD
        r = alphaprof(["record", "--deterministic", "--model", "counters", "--events", events,
                       "--oracle", oracle, "--db", db, require(build_path("workloads", "compress.elf")),
                       "--", "30"], timeout=200)
        check(r.status == 0, "record compress with five events", r)
        start, _ = oracle_events(oracle + ".1")
        stop, instructions = oracle_events(oracle + ".2")
        truth = stop["stores"] - start["stores"]
        # rare per slice: one slice (1 ns an instruction) holds fewer stores
        # than the shortest period
        per_slice = truth / (instructions / SLICE_NS)
        check(per_slice < PERIOD[0], "stores are rarer per slice (%d) than a period (%d)"
              % (per_slice, PERIOD[0]), r)
        q = lambda sql: subprocess.run(["sqlite3", db, sql], capture_output=True, text=True).stdout.strip()
        stores = q("SELECT idx FROM names WHERE kind = 'event' AND name = 'stores'")
        check(stores.isdigit(), "the database names the stores event")
        samples = int(q("SELECT coalesce(sum(count), 0) FROM samples WHERE event = %s" % stores))
        period = int(q("SELECT period FROM periods WHERE event = %s LIMIT 1" % stores) or 0)
        check(samples >= 40, "the rare event is sampled: %d samples of stores" % samples, r)
        check(period == (PERIOD[0] + PERIOD[1]) // 2 * 2, "the period is scaled by the two turns (%d)" % period)
        estimate = samples * period
        error = abs(estimate - truth) / truth
        check(error < 0.3, "stores estimated %d, truth %d (%.1f %% off; ~%d samples: sampling error "
              "about %.0f %%)" % (estimate, truth, 100 * error, samples, 100 / samples ** 0.5), r)
    finally:
        cleanup(d)
