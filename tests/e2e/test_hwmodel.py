"""End-to-end: the hardware model (hw-model/, board clipper-pm) under real
workloads.  Event-counter records carry the exact PC, so the cache-missing
load of chase gets the D-cache misses; the oracle of the same run proves
the profile's accuracy and accounts for every overflow record.
"""
import json
import os
import re
import subprocess

from harness import alphaprof, build_path, check, cleanup, require, tmpdir


def record(d, image, *opts):
    db, oracle = os.path.join(d, "p.db"), os.path.join(d, "oracle.bin")
    r = alphaprof(["record", "--deterministic", "--db", db, "--oracle", oracle] + list(opts)
                  + [require(build_path("workloads", image + ".elf"))], timeout=200)
    check(r.status == 0, "record %s on the hardware model" % image, r)
    return db, oracle, r


def run_parallel_on_four_cores(d):
    """parallel on 4 cores under the model, deterministic: its oracle's path."""
    oracle = os.path.join(d, "o.bin")
    r = alphaprof(["run", "--deterministic", "--cores", "4", "--oracle", oracle,
                   require(build_path("workloads", "parallel.elf"))], timeout=200)
    check(r.status == 0, "parallel runs on the model", r)
    return oracle


def test_dcache_misses_land_on_the_missing_load():
    dcache_misses_on_the_load(1)


def test_dcache_misses_land_on_the_missing_load_on_four_cores():
    # chase runs on core 0 while the other three idle in the monitor: their
    # samples must not blur the picture.
    dcache_misses_on_the_load(4)


def dcache_misses_on_the_load(cores):
    d = tmpdir()
    try:
        db, oracle, r = record(d, "chase", "--cores", str(cores), "--events", "cycles,dmiss")
        a = json.loads(alphaprof(["annotate", "--db", db, "--json", "chase"]).out)
        names = [e["name"] for e in a["events"]]
        dmiss = names.index("dmiss")
        insns = a["instructions"]
        total = sum(i["samples"][dmiss] for i in insns)
        load = [i for i in insns if i["instruction"].startswith("ldq\tv0,0(v0)")][0]
        check(total > 500 and load["samples"][dmiss] >= 0.95 * total,
              ">= 95%% of chase's D-cache-miss samples on its load (%d of %d)" % (load["samples"][dmiss], total))
    finally:
        cleanup(d)


def test_cycle_profile_matches_the_oracle():
    d = tmpdir()
    try:
        db, oracle, r = record(d, "qsort", "--events", "cycles:1000-1200")
        c = alphaprof(["check", "--db", db, "--oracle", oracle, "--json"])
        check(c.status == 0, "check runs", c)
        j = json.loads(c.out)
        check(j["instruction_error"] < 0.05,
              "instruction-level cycle error below 5%% (%.2f%%)" % (100 * j["instruction_error"]), c)
        # Every overflow record the model produced is stored, dropped or
        # (after the profiler stopped) unread.
        stored = int(subprocess.run(["sqlite3", db, "SELECT sum(count) FROM samples"],
                                    capture_output=True, text=True).stdout.strip())
        dropped = int(subprocess.run(["sqlite3", db, "SELECT coalesce(sum(count),0) FROM drops"],
                                     capture_output=True, text=True).stdout.strip())
        check(stored + dropped + j["ring_dropped"] + j["ring_unread"] == j["model_overflows"],
              "records: %d stored + %d dropped + %d ring-dropped + %d unread == %d produced"
              % (stored, dropped, j["ring_dropped"], j["ring_unread"], j["model_overflows"]), c)
        bad = alphaprof(["check", "--db", db, "--oracle", os.path.join(d, "p.db")])
        check(bad.status == 1 and "not an alphaprof oracle file" in bad.err, "a wrong file is named", bad)
    finally:
        cleanup(d)


def test_performance_interrupts_deliver_full_rings():
    # Cycles at the shortest period on chase (IPC ~0.1) fill a quarter of
    # the ring well within the firmware's 1 ms tick: the model must
    # interrupt the core, no record may be lost to a full ring, and none
    # counted twice when the interrupt lands inside the tick's own drain.
    d = tmpdir()
    try:
        db, oracle, r = record(d, "chase", "--events", "cycles:1000-1100")
        c = alphaprof(["check", "--db", db, "--oracle", oracle, "--json"])
        check(c.status == 0, "check runs", c)
        j = json.loads(c.out)
        check(j["interrupts"] > 10, "the model raised performance interrupts (%d)" % j["interrupts"], c)
        check(j["ring_dropped"] == 0, "no record lost to a full ring (%d)" % j["ring_dropped"], c)
        stored = int(subprocess.run(["sqlite3", db, "SELECT sum(count) FROM samples"],
                                    capture_output=True, text=True).stdout.strip())
        check(stored + j["ring_unread"] == j["model_overflows"],
              "%d stored + %d unread == %d produced" % (stored, j["ring_unread"], j["model_overflows"]), c)
    finally:
        cleanup(d)


def test_every_counted_event_has_its_instruction_in_the_oracle():
    # The model's per-core event counts (what the counters count) equal the
    # same events summed over the oracle's per-PC truth, exactly, for every
    # event, on 4 cores with ProfileMe bad paths and traps in play.
    d = tmpdir()
    try:
        oracle = run_parallel_on_four_cores(d)
        t = json.loads(alphaprof(["check", "--oracle", oracle, "--totals", "--json"]).out)
        check(t["events"] == t["events_by_pc"], "per-core counts == per-PC sums:\n%s\n%s"
              % (t["events"], t["events_by_pc"]), t)
        check(t["events"]["retired"] == t["instructions"] and t["events"]["cycles"] == t["cycles"],
              "retired and cycles counters equal the cores' totals", t)
        check(len(t["cores"]) == 4 and all(c["fetched"] == c["instructions"] + c["aborted"] for c in t["cores"]),
              "fetched = retired + aborted on every core", t)
    finally:
        cleanup(d)


def test_cycle_stacks_sum_to_each_cores_cycles():
    # The oracle's cycle stacks (TIP's rules, integers in 1/CYCLE_UNIT of a
    # cycle): on 4 cores running parallel each core's stack sums to its
    # cycles exactly and the instructions' stacks to the cores'; a profile's
    # cycle samples get their time error against them, and the interval's
    # stacks name the busiest instructions' procedures.
    d = tmpdir()
    try:
        oracle = run_parallel_on_four_cores(d)
        s = alphaprof(["check", "--oracle", oracle, "--stacks", "--json", "--whole-run"])
        check(s.status == 0, "check --stacks runs", s)
        j = json.loads(s.out)
        check(len(j["cores"]) == 4 and all(c["cycles"] > 10 ** 5 and c["stack_units"] == c["cycles"] * j["cycle_unit"]
                                           for c in j["cores"]),
              "every core's stack is its cycles exactly: %s" % j["cores"], s)
        check(j["exact"] and j["pc_sums_match"] and j["stack"] == j["stack_by_pc"],
              "the instructions' stacks sum to the cores'", s)
        check(j["stack"]["base"] > 0 and j["stack"].get("mispredict", 0) > 0, "causes are booked: %s" % j["stack"], s)
        db, oracle, r = record(d, "qsort", "--events", "cycles:1000-1100")
        c = json.loads(alphaprof(["check", "--db", db, "--oracle", oracle, "--json"]).out)
        check(0 < c["time_error"] < 1 and c["instruction_error"] < c["time_error"],
              "cycle samples: %.2f%% against their own attribution, time error %.2f%% against TIP's"
              % (100 * c["instruction_error"], 100 * c["time_error"]), c)
        s = alphaprof(["check", "--db", db, "--oracle", oracle, "--stacks"])
        check(s.status == 0 and ("sums to its cycles: exactly" in s.out or "within its open retire cycle" in s.out),
              "the interval's stacks add up", s)
        check(re.search(r"^\s+[0-9a-f]+\s+[0-9.]+\s+[0-9.]+\s+\d+\s+qsort\s+mispredict", s.out, re.M),
              "a qsort branch's time is mostly its mispredictions", s)
    finally:
        cleanup(d)


def test_plain_board_refuses_hw_events_clearly():
    d = tmpdir()
    try:
        r = alphaprof(["record", "--board", "clipper", "--oracle", os.path.join(d, "o.bin"),
                       "--db", os.path.join(d, "p.db"), require(build_path("workloads", "hello.elf"))])
        check(r.status == 2 and "no hardware model" in r.err, "an oracle needs the model's board", r)
    finally:
        cleanup(d)


def test_oracle_snapshots_give_the_truth_of_the_profiled_interval():
    # The monitor has the model write oracle snapshots (oracle_request) when
    # its profiler starts and stops; check compares the profile with their
    # difference, so boot and the final flush no longer count as error.
    d = tmpdir()
    try:
        db, oracle, r = record(d, "drystone", "--events", "cycles:1000-1100")     # (any workload; a short one)
        totals = {}
        for name, path in (("run", oracle), ("start", oracle + ".1"), ("stop", oracle + ".2")):
            t = alphaprof(["check", "--oracle", path, "--totals", "--json"])
            check(t.status == 0, "the %s oracle reads" % name, t)
            totals[name] = json.loads(t.out)["instructions"]
        check(0 < totals["start"] < totals["stop"] < totals["run"],
              "snapshots in order: start %(start)d < stop %(stop)d < run %(run)d" % totals)
        interval = json.loads(alphaprof(["check", "--db", db, "--oracle", oracle, "--json"]).out)
        whole = json.loads(alphaprof(["check", "--db", db, "--oracle", oracle, "--json", "--whole-run"]).out)
        check(interval["oracle_scope"] == "interval" and whole["oracle_scope"] == "run",
              "check says which truth it used", interval)
        check(interval["oracle_instructions"] == totals["stop"] - totals["start"],
              "the interval is stop minus start (%d)" % interval["oracle_instructions"], interval)
        check(interval["procedure_error"] < whole["procedure_error"],
              "the interval's truth fits the profile better (procedure error %.2f%% against %.2f%%)"
              % (100 * interval["procedure_error"], 100 * whole["procedure_error"]))
        # a damaged snapshot is named, not used
        with open(oracle + ".1", "r+b") as f:
            f.truncate(100)
        bad = alphaprof(["check", "--db", db, "--oracle", oracle])
        check(bad.status == 1 and oracle + ".1" in bad.err and "truncated" in bad.err,
              "a damaged snapshot is named", bad)
        # a later run without a profiler takes no snapshots, and removes
        # the earlier ones so that they cannot pass for its own
        r = alphaprof(["run", "--oracle", oracle, require(build_path("workloads", "hello.elf"))])
        check(r.status == 0 and not os.path.exists(oracle + ".1") and not os.path.exists(oracle + ".2"),
              "stale snapshots removed", r)
    finally:
        cleanup(d)


def test_deterministic_runs_repeat_the_profiled_interval_exactly():
    # --deterministic: the model's interrupts arrive at the same
    # instruction run to run, so the profiled interval (the monitor's
    # start and stop snapshots) and every sample repeat bit for bit, on one
    # core and on four.  (What follows the stop, the final flush over the
    # serial link, waits on the host reading it and may differ a little.)
    d = tmpdir()
    try:
        for image, cores, events in (("drystone", 1, "cycles:1000-1100,retired:1000-1100,loads:1000-1100"),
                                     ("parallel", 4, "cycles:2000-2200")):
            runs = []
            for n in (1, 2):
                run_dir = os.path.join(d, "%s-%d" % (image, n))
                os.mkdir(run_dir)
                db, oracle, r = record(run_dir, image, "--cores", str(cores), "--events", events)
                snaps = [json.loads(alphaprof(["check", "--oracle", oracle + ".%d" % k, "--totals",
                                               "--json"]).out) for k in (1, 2)]
                samples = subprocess.run(["sqlite3", db, "SELECT event, core, offset, count FROM samples "
                                          "ORDER BY event, core, offset"], capture_output=True, text=True).stdout
                runs.append((snaps, samples))
            (snaps, samples), (snaps2, samples2) = runs
            if cores == 1:
                check(snaps[1]["cores"][0]["interrupts"] >= 5,      # (drystone: 8 rings full)
                      "interrupts delivered the records: %s" % snaps[1]["cores"])
            check(snaps == snaps2, "%s on %d cores: the snapshots repeat exactly:\n%s\n%s"
                  % (image, cores, snaps, snaps2))
            check(samples and samples == samples2, "%s on %d cores: the samples repeat exactly" % (image, cores))
    finally:
        cleanup(d)


def test_garbage_in_the_window_never_hurts_qemu_or_the_oracle():
    # window_fuzz=N: the monitor plays a buggy guest, filling its PMU window
    # (configuration, ring indices, oracle requests, rings) with random
    # words for N rounds, then quietens it.  In both modes QEMU runs on, the
    # workload finishes, the oracle is whole, and oracle requests beyond
    # ORACLE_SNAPSHOT_MAX write nothing.
    d = tmpdir()
    try:
        for mode in ("full", "counters"):
            oracle = os.path.join(d, "o-" + mode)
            r = alphaprof(["run", "--model", mode, "--oracle", oracle, "--append", "window_fuzz=3000",
                           require(build_path("workloads", "hello.elf"))], timeout=120)
            check(r.status == 0 and "3000 rounds of garbage" in r.out and "hello: ok" in r.out,
                  "%s: the run survives the garbage" % mode, r)
            t = alphaprof(["check", "--oracle", oracle, "--totals", "--json"])
            check(t.status == 0 and json.loads(t.out)["instructions"] > 10 ** 6, "%s: the oracle is whole" % mode, t)
            snaps = [f for f in os.listdir(d) if f.startswith("o-%s." % mode)]
            # snapshots 1..64 and the side truths (oracle-format.h): values, cct, path plan and counts, paths per context
            check(all(re.fullmatch(r"o-%s\.([1-9]|[1-5][0-9]|6[0-4]|values|cct|plan|blpaths|pmepaths|cctpaths)" % mode, f)
                      for f in snaps),
                  "%s: snapshots only 1..64 (and the side truth files): %s" % (mode, sorted(snaps)))
    finally:
        cleanup(d)


def test_counters_only_mode_samples_exact_pcs():
    # --model counters: no timing model, one callback per block; an
    # overflow inside a block still lands on the instruction whose event
    # caused it, so every loads sample is on a load.
    d = tmpdir()
    try:
        db, oracle, r = record(d, "qsort", "--model", "counters", "--events", "loads:1000-1100,retired:1000-1100")
        t = json.loads(alphaprof(["check", "--oracle", oracle, "--totals", "--json"]).out)
        check(t["events"]["retired"] == t["instructions"] and t["events"]["loads"] > 10 ** 6,
              "the oracle counts retired instructions and loads", r)
        a = json.loads(alphaprof(["annotate", "--db", db, "--json", "compare_longs"]).out)
        names = [e["name"] for e in a["events"]]
        loads = names.index("loads")
        on = {i["instruction"].split("\t")[0]: i["samples"][loads] for i in a["instructions"] if i["samples"][loads]}
        check(on and all(op.startswith("ld") for op in on), "loads samples only on loads: %s" % on)
        c = json.loads(alphaprof(["check", "--db", db, "--oracle", oracle, "--event", "loads", "--json"]).out)
        stored = int(subprocess.run(["sqlite3", db, "SELECT sum(count) FROM samples"],
                                    capture_output=True, text=True).stdout.strip())
        check(stored + c["ring_dropped"] + c["ring_unread"] == c["model_overflows"],
              "every record stored or accounted (%d stored, %s)" % (stored, c), r)
        # periods of 1000-1100 events: no overflow may be skipped (the
        # counters are brought up to date only near one); the oracle also
        # counts boot, before the counters start
        events = t["events"]["loads"] + t["events"]["retired"]
        check(0.95 * events / 1100 <= c["model_overflows"] <= events / 1000 + 2,
              "overflows (%d) fit %d events at periods 1000-1100" % (c["model_overflows"], events), r)
        bad = alphaprof(["record", "--model", "counters", "--events", "dmiss", "--db", os.path.join(d, "x.db"),
                         require(build_path("workloads", "hello.elf"))])
        check(bad.status == 2 and "dmiss needs --model full" in bad.err, "uncountable events refused", bad)
    finally:
        cleanup(d)


def test_more_events_than_counters_are_multiplexed():
    # Six events on four counters take turns (10 ms slices); each event's
    # sample count times its reported period estimates its total.
    d = tmpdir()
    try:
        events = "cycles:2000-2200,retired:2000-2200,loads:2000-2200,stores:2000-2200,branches:2000-2200,branchmp:1000-1100"
        db, oracle, r = record(d, "qsort", "--events", events)
        check("multiplexed" in r.out, "the monitor says the events are multiplexed", r)
        rep = json.loads(alphaprof(["report", "--db", db, "--json"]).out)
        got = {e["name"]: e["total"] * e["period"] for e in rep["events"]}
        truth = json.loads(alphaprof(["check", "--oracle", oracle, "--totals", "--json"]).out)["events"]
        for name in ("cycles", "retired", "loads", "stores", "branches", "branchmp"):
            check(name in got and abs(got[name] - truth[name]) <= 0.15 * truth[name],
                  "%s: estimated %s, oracle %d (within 15%%)" % (name, got.get(name), truth[name]), r)
        bad = alphaprof(["record", "--events", "cycles,retired,loads,stores,branches,dmiss,imiss,l2miss,itbmiss",
                         "--db", os.path.join(d, "x.db"), require(build_path("workloads", "hello.elf"))])
        check(bad.status == 2 and "at most 8 events" in bad.err, "nine events refused", bad)
    finally:
        cleanup(d)


def test_copy_loop_cycles_sit_on_the_stores_waiting_for_missed_loads():
    # McCalpin copy over arrays four times the L2: the loads miss, and the
    # stores that need their data are where the core waits (TIP-style
    # attribution), so annotate shows the cycles on the stores.
    d = tmpdir()
    try:
        db, oracle, r = record(d, "copy", "--events", "cycles:1000-1100,dmiss:1000-1100")
        a = json.loads(alphaprof(["annotate", "--db", db, "--json", "run_once"]).out)
        names = [e["name"] for e in a["events"]]
        cyc, miss = names.index("cycles"), names.index("dmiss")
        loop = [i for i in a["instructions"] if "copy_unrolled" in (i.get("inlined") or [])]
        check(loop, "copy_unrolled is inlined into run_once", r)
        total = sum(i["samples"][cyc] for i in loop)
        stores = [i for i in loop if i["instruction"].startswith("stt")]
        on_stores = sum(i["samples"][cyc] for i in stores)
        check(total > 1000 and on_stores >= 0.8 * total,
              "the copy loop's cycles are on its stores (%d of %d)" % (on_stores, total))
        top = max(stores, key=lambda i: i["samples"][cyc])
        reg = top["instruction"].split("\t")[1].split(",")[0]
        feeding = [i for i in loop if i["instruction"].startswith("ldt\t" + reg + ",")]
        check(feeding and feeding[0]["samples"][miss] > 100,
              "the busiest store (%s) waits for a load that misses: %s" % (top["instruction"], feeding))
    finally:
        cleanup(d)


def test_four_cores_top_procedure_matches_the_oracle():
    d = tmpdir()
    try:
        db, oracle, r = record(d, "parallel", "--cores", "4", "--events", "cycles:6000-6400")
        c = json.loads(alphaprof(["check", "--db", db, "--oracle", oracle, "--json"]).out)
        check(c["top_procedure"]["profile"] == c["top_procedure"]["oracle"] == "core_main",
              "top procedure on 4 cores: %s" % c["top_procedure"], r)
        check(c["procedure_error"] < 0.15, "procedure-level error below 15%% (%.3f)" % c["procedure_error"], r)
        for core in range(4):
            rep = json.loads(alphaprof(["report", "--db", db, "--core", str(core), "--json"]).out)
            check(rep["events"] and rep["events"][0]["total"] > 100, "core %d has cycle samples" % core)
    finally:
        cleanup(d)


def test_table_cost_probe_measures_hits_and_misses():
    # profile_probe=1: the monitor times its hash table with the model's
    # cycle register; a miss (evicting an entry) costs more than a hit.
    for policy in ("rr4", "stf6"):
        r = alphaprof(["run", "--deterministic", "--board", "clipper-pm", "--append", "profile_probe=1",
                       "--append", "table=" + policy, require(build_path("workloads", "hello.elf"))])
        m = re.search(r"table cost \((\w+)\): hit (\d+) cycles over (\d+) hits, miss (\d+) cycles over (\d+) "
                      r"misses \((\d+) evicted\)", r.out)
        check(r.status == 0 and m and m.group(1) == policy, "the probe reports (%s)" % policy, r)
        hit, hits, miss, misses, evicted = (int(m.group(i)) for i in range(2, 7))
        check(hits == 1536 and misses == 2048 and evicted == 2048, "every timed sample hit or evicted", r)
        check(0 < hit < miss < 1000, "hit %d < miss %d cycles" % (hit, miss), r)
    r = alphaprof(["run", "--append", "profile_probe=1", require(build_path("workloads", "hello.elf"))])
    check(r.status == 0 and "profile_probe needs the hardware model" in r.out, "the plain board says why", r)


def test_qemu_stopped_mid_run_leaves_a_whole_oracle():
    # The launcher's timeout stops QEMU in the middle of a run: the oracle
    # it leaves (written at exit, renamed into place) is whole and readable,
    # and its totals agree with its per-PC truth.
    d = tmpdir()
    try:
        oracle = os.path.join(d, "o.bin")
        r = alphaprof(["run", "--timeout", "1", "--oracle", oracle,
                       require(build_path("workloads", "chase.elf")), "--", "5"], timeout=60)
        check(r.status == 124, "the run was stopped by the timeout", r)
        check(not os.path.exists(oracle + ".tmp"), "no half-written oracle left behind")
        if os.path.exists(oracle):
            t = alphaprof(["check", "--oracle", oracle, "--totals", "--json"])
            check(t.status == 0, "the oracle reads", t)
            j = json.loads(t.out)
            check(j["instructions"] > 0 and j["events"] == j["events_by_pc"], "a consistent oracle", t)
    finally:
        cleanup(d)
