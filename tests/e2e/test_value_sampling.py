"""End-to-end: the value-sampling interpreter (firmware/profiler/value-interp.c)
against the board's own execution.  The valuediff workload builds the same
interpreter source, generates seeded random sequences over every
instruction of the table it runs, runs each natively and interpreted from
the same registers and memory, and compares registers and memory.
"""
import json
import os
import re
import sqlite3

from harness import alphaprof, build_path, check, cleanup, require, run_image, tmpdir

CLASSES = ["ialu", "ishift", "imul", "load", "store", "branch", "branch_cond", "jump",
           "fadd", "fmov", "barrier", "misc", "nop", "prefetch"]


def _valuediff(seed, instructions):
    image = require(build_path("workloads", "valuediff.elf"), "the valuediff workload")
    return run_image(image, args=[str(seed), str(instructions)], timeout_s=300)


def test_interpreter_agrees_with_the_board_on_every_generated_sequence():
    r = _valuediff(7, 60000)
    summary = [l for l in r.lines() if re.match(r"valuediff: (ok|FAILED) ", l)]
    check(len(summary) == 1, "valuediff prints its summary", r)
    m = re.search(r"interpreted (\d+) compared (\d+) mismatches (\d+) instructions (\d+) never-executed (\d+)",
                  summary[0])
    check(m is not None, "the summary has its counts", r)
    interpreted, compared, mismatches, insns, never = map(int, m.groups())
    check(mismatches == 0, "no sequence differs between the board and the interpreter", r)
    check(r.status == 0, "valuediff exits 0", r)
    check(interpreted >= 60000, "at least the asked-for instructions were interpreted", r)
    check(compared >= 1000, "over a thousand sequences ran both ways", r)
    check(insns >= 140 and never == 0, "every table instruction the interpreter runs was executed", r)
    for c in CLASSES:
        check(any(l.startswith("valuediff: class %s executed " % c) for l in r.lines()),
              "opcode class %s is covered" % c, r)
    check(any(l.startswith("valuediff: stop overflow_trap ") for l in r.lines()),
          "overflowing /v operations were predicted (and not run natively)", r)


def _valuemix_record(d, *opts, iterations=2000000):
    # --deterministic: samples land on any instruction, not only on the
    # heads of QEMU's translation blocks, so what is interpreted is a fair
    # sample of the executions (see README, Value sampling)
    image = require(build_path("workloads", "valuemix.elf"), "the valuemix workload")
    db, oracle = os.path.join(d, "v.db"), os.path.join(d, "v.oracle")
    r = alphaprof(["record", "--board", "clipper-pm", "--deterministic", "--oracle", oracle, "--db", db,
                   "--timeout", "250"] + list(opts) + [image, "--", str(iterations)], timeout=280)
    check(r.status == 0, "record of valuemix succeeds", r)
    return db, oracle, r


def _rows_of(db, proc):
    r = alphaprof(["values", "--db", db, proc, "--json", "--top", "16"])
    check(r.status == 0, "alphaprof values reads the profile", r)
    return json.loads(r.out)["instructions"], r


def _stat(db, name):
    con = sqlite3.connect(db)
    try:
        row = con.execute("SELECT sum(value) FROM stats WHERE name = ?", (name,)).fetchone()
        drops = con.execute("SELECT reason, sum(count) FROM drops WHERE reason LIKE '%value%' GROUP BY reason").fetchall()
    finally:
        con.close()
    return (row[0] or 0), dict(drops)


def test_values_finds_the_semi_invariant_and_the_known_distributions_of_valuemix():
    d = tmpdir()
    try:
        # the accuracy bench's period: 20-22 us of valuemix between runs
        # (a run's own time no longer counts towards it: profiler.c note 5)
        db, oracle, rec = _valuemix_record(d, "--value-every", "1", "--period", "20000-22000")
        rows, r = _rows_of(db, "mix_loop")
        check(rows, "mix_loop has value profiles", r)
        by_top = {}
        for row in rows:
            if row["values"]:
                by_top.setdefault(row["values"][0]["value"], []).append(row)
        # the semi-invariant load of `mode` (always 3) leads, exactly
        modes = [x for x in by_top.get(3, []) if x["offered"] >= 100]
        check(modes and modes[0]["top_share"] == 1.0, "mode's load: 3 every time", r)
        check(rows[0]["top_share"] == 1.0, "semi-invariants come first", r)
        # bytes[]: 0x41 70 %, 0x42 30 %: two values, every one kept (tau 1)
        # (the byte loads are the rows holding only 0x41 and 0x42: a spread
        # load's 64 values include 0x41 and may draw it first by chance)
        bytes_rows = [x for x in by_top.get(0x41, []) if x["offered"] >= 200
                      and {v["value"] for v in x["values"]} <= {0x41, 0x42}]
        check(bytes_rows, "the byte loads' top value is 0x41", r)
        for x in bytes_rows:
            check(0.60 <= x["top_share"] <= 0.80, "0x41's share is near 70 %% (got %.3f)" % x["top_share"], r)
        # skewed[]: 7 is half of all
        check(any(x["offered"] >= 200 for x in by_top.get(7, [])), "the skewed load's top value is 7", r)
        # every value offered on the board is stored or dropped with a reason
        offered, drops = _stat(db, "values_offered")
        sent, _ = _stat(db, "values_sent")
        check(offered > 1000 and offered == sent + sum(drops.values()),
              "values offered (%d) = sent (%d) + dropped %s" % (offered, sent, drops), rec)
        con = sqlite3.connect(db)
        stored = con.execute("SELECT sum(offered) FROM value_lists").fetchone()[0]
        con.close()
        check(stored + drops.get("link_lost_values", 0) == sent,
              "what the board sent (%d) is stored (%d) or counted lost" % (sent, stored), rec)
        # the model's truth agrees
        c = alphaprof(["check", "--values", "--oracle", oracle, "--db", db, "--json", "--min-samples", "200"])
        check(c.status == 0, "check --values runs", c)
        a = json.loads(c.out)
        check(a["loads_checked"] >= 3, "the dominant loads are checked", c)
        check(a["top_value_recall"] >= 0.95, "the true top value is first (recall %.3f)" % a["top_value_recall"], c)
        # beside the strict recall, the near-tie rule (util/value-accuracy.h): a
        # first value counts when its true share is within 1.96 standard errors
        # of the sampled difference from the true top's; recomputed here
        for load in a["loads"]:
            p1, pk, n = load["true_share"], load["first_true_share"], load["offered"]
            margin = a["tie_z"] * ((p1 + pk - (p1 - pk) ** 2) / n) ** 0.5
            tied = load["ranked_first"] or p1 - pk <= margin
            check(load["within_error"] == tied and (load["ranked_first"] or abs(load["tie_margin"] - margin) < 1e-9),
                  "load at %#x: within_error follows the rule" % load["pc"], c)
            check(0 <= load["fair_hit_probability"] <= 1, "a probability", c)
        check(a["hits_within_error"] == sum(l["within_error"] for l in a["loads"]) and
              a["near_ties"] == a["hits_within_error"] - a["hits"] and
              abs(a["top_value_recall_within_error"] - a["hits_within_error"] / a["loads_checked"]) < 1e-9,
              "top_value_recall_within_error counts the strict hits and the near-ties", c)
        check(a["top_value_recall_within_error"] >= a["top_value_recall"], "the rule only adds near-ties", c)
        # the 2-point goal is a benchmark's (bench_value_accuracy,
        # README: 0.86 on this run's size).  Here ~650 values per load give a
        # standard error of ~2 points, so a fair sampler's mean error over
        # three loads exceeds 2 points about 1 run in 50 (CI saw 2.49 once):
        # the test asks for what a biased sampler cannot reach, 4 points,
        # and each estimate within 4 standard errors (twice its stated 95 %
        # half-width) of the truth
        check(a["top_value_freq_error"] <= 4.0, "top_value_freq_error %.2f points" % a["top_value_freq_error"], c)
        ci = {}
        for row in json.loads(alphaprof(["values", "--db", db, "mix_loop", "--json", "--top", "1"]).out)["instructions"]:
            if row["values"]:
                top = row["values"][0]
                ci[row["pc"]] = (top["value"], top["share"], top["ci"])
        for load in a["loads"]:
            value, share, (lo, hi) = ci[load["pc"]]
            half = max(share - lo, hi - share, 0.01)
            check(value == load["true_value"] and abs(share - load["true_share"]) <= 2.0 * half,
                  "load at %#x: %.3f estimated, %.3f true, 95 %% interval [%.3f, %.3f]"
                  % (load["pc"], share, load["true_share"], lo, hi), c)
        lat = alphaprof(["values", "--db", db, "--latency", "mix_loop", "--json"])
        check(lat.status == 0 and json.loads(lat.out)["loads"], "load latencies are binned", lat)
    finally:
        cleanup(d)


def _value_profile(db):
    con = sqlite3.connect(db)
    try:
        lists = con.execute("SELECT offset, kind, offered FROM value_lists ORDER BY offset, kind").fetchall()
        counts = con.execute("SELECT offset, kind, value, samples, estimate FROM value_counts "
                             "ORDER BY offset, kind, value").fetchall()
    finally:
        con.close()
    return lists, counts


def test_a_seed_repeats_its_value_profile_exactly_and_another_seed_samples_other_executions():
    # bench_value_accuracy reports the strict recall as a range over seeds: it
    # rests on a deterministic run under one seed giving the same value profile
    # every time, and on another seed capturing other executions
    d = tmpdir()
    try:
        profiles = []
        for name, seed in (("a", "1"), ("b", "1"), ("c", "2")):
            sub = os.path.join(d, name)
            os.makedirs(sub)
            db = os.path.join(sub, "v.db")
            r = alphaprof(["record", "--board", "clipper-pm", "--deterministic", "--db", db, "--timeout", "70",
                           "--seed", seed, "--value-every", "1", "--value-length", "64",
                           require(build_path("workloads", "valuemix.elf"), "the valuemix workload"), "--", "100000"],
                          timeout=75)
            check(r.status == 0, "record of valuemix under seed %s succeeds" % seed, r)
            profiles.append(_value_profile(db))
        check(profiles[0][1], "the run has value profiles", profiles[0][0][:5])
        check(profiles[0] == profiles[1], "seed 1 twice: the same value profile, value for value",
              (len(profiles[0][1]), len(profiles[1][1])))
        check(profiles[0][1] != profiles[2][1], "seed 2: other executions sampled", len(profiles[2][1]))
    finally:
        cleanup(d)


def test_without_value_sampling_there_are_no_values_and_values_says_how_to_get_them():
    d = tmpdir()
    try:
        db, _, _ = _valuemix_record(d, iterations=100000)
        r = alphaprof(["values", "--db", db])
        check(r.status == 1, "values exits 1 without value samples", r)
        check(len(r.err.strip().splitlines()) == 1 and "--value-every" in r.err,
              "one line saying how to record them", r)
    finally:
        cleanup(d)


def test_a_bad_value_capture_is_refused_before_the_board_starts():
    r = alphaprof(["record", "--value-capture", "load:colour", "--db", "/nonexistent/x.db", "x.elf"])
    check(r.status == 2, "usage error", r)
    check(len(r.err.strip().splitlines()) == 1 and "CLASS:KIND" in r.err, "one line naming the grammar", r)
    r = alphaprof(["record", "--value-length", "65", "x.elf"])
    check(r.status == 2 and "1..64" in r.err, "value length limits are the monitor's", r)


def _pc_of(row):
    return row["pc"]


def test_annotate_shows_each_instructions_top_value_its_share_and_how_many_were_sampled():
    d = tmpdir()
    try:
        db, _, _ = _valuemix_record(d, "--value-every", "1", iterations=1000000)
        vals = json.loads(alphaprof(["values", "--db", db, "mix_loop", "--json", "--kind", "all",
                                     "--top", "3", "--limit", "0"]).out)["instructions"]
        r = alphaprof(["annotate", "--db", db, "mix_loop", "--json"])
        check(r.status == 0, "annotate reads a profile with value samples", r)
        insns = {i["address"]: i for i in json.loads(r.out)["instructions"]}
        check(vals, "mix_loop has value profiles", r)
        for row in vals:
            got = [k for k in insns[row["pc"]]["values"] if k["kind"] == row["kind"]]
            check(len(got) == 1 and got[0]["offered"] == row["offered"],
                  "annotate has %s's %s values (%d sampled)" % (hex(row["pc"]), row["kind"], row["offered"]), r)
            check([t["value"] for t in got[0]["top"]] == [v["value"] for v in row["values"][:3]]
                  and all(abs(t["share"] - v["share"]) < 1e-9 for t, v in zip(got[0]["top"], row["values"])),
                  "the same top values and shares as alphaprof values", r)
        # the semi-invariant (mode, always 3): result first, 100 %
        modes = [i for i in insns.values() if i["values"] and i["values"][0]["kind"] == "result"
                 and i["values"][0]["top"] and i["values"][0]["top"][0]["value"] == 3
                 and i["instruction"].startswith("ldq") and i["values"][0]["offered"] >= 100]
        check(modes and modes[0]["values"][0]["top"][0]["share"] == 1.0, "mode's load: 3, 100 %", r)
        t = alphaprof(["annotate", "--db", db, "mix_loop"])
        line = [l for l in t.out.splitlines() if "%x " % modes[0]["address"] in l]
        check("top value" in t.out and line and re.search(r"\s3\s+100\.0\s+%d\s" % modes[0]["values"][0]["offered"],
                                                            line[0]),
              "the text listing shows 3, 100.0 %% and the count on mode's load: %r" % line, t)
    finally:
        cleanup(d)


def test_the_daemons_accessors_transform_turns_each_address_round_to_the_instructions_that_touched_it():
    from test_daemon import start_board, start_daemon
    d = tmpdir()
    board = daemon = None
    try:
        # valuemix long enough that mix_loop still runs when the daemon starts sampling
        board, sock, img = start_board(d, 10000000, "--append", "value_every=1", image="valuemix.elf")
        db = os.path.join(d, "p.db")
        daemon = start_daemon(d, sock, db, img, "--value-transform", "accessors")
        rc = daemon.wait(120)
        board.wait(60)
        check(rc == 0, "the daemon runs until the board ends", daemon)
        acc = json.loads(alphaprof(["values", "--db", db, "--kind", "accessor", "--json", "--top", "16",
                                    "--limit", "0"]).out)["instructions"]
        addr = json.loads(alphaprof(["values", "--db", db, "--kind", "address", "--json", "--top", "16",
                                     "--limit", "0"]).out)["instructions"]
        check(acc and addr, "accessor rows beside the address rows (%d, %d)" % (len(acc), len(addr)), daemon)
        # the same sampled accesses, turned round: per instruction the
        # accessor rows' estimates sum to its address row's, exactly
        # (both sums of count * tau; only rows --top kept are compared)
        by_pc = {}
        complete = set()
        for row in acc:
            for v in row["values"]:
                by_pc[v["value"]] = by_pc.get(v["value"], 0) + v["estimate"]
        con = sqlite3.connect(db)
        per_pc = dict(con.execute("SELECT i.address + c.offset, sum(c.estimate) FROM value_counts c "
                                  "JOIN (SELECT image, max(address) AS address FROM loadmaps GROUP BY image) i "
                                  "ON i.image = c.image WHERE c.kind = 3 GROUP BY 1").fetchall())
        turned = dict(con.execute("SELECT value, sum(estimate) FROM value_counts WHERE kind = 32 "
                                  "GROUP BY value").fetchall())
        con.close()
        check(per_pc and turned == per_pc,
              "every instruction's sampled accesses are in the accessor rows, no more and no less", daemon)
        # valuemix's arrays are each read by one load of mix_loop (and
        # written by fill, which -O2 inlines into main): an element's
        # accessors are that load and fill's stores
        proc_of = {row["pc"]: row["procedure"] for row in addr}
        for row in acc:
            check(all(v["value"] in proc_of for v in row["values"]), "accessors are instructions with addresses",
                  daemon)
        arrays = [row for row in acc if any(proc_of[v["value"]] == "mix_loop" for v in row["values"])]
        wrong = [(hex(row["pc"]), [(hex(v["value"]), proc_of[v["value"]]) for v in row["values"]]) for row in arrays
                 if len({v["value"] for v in row["values"] if proc_of[v["value"]] == "mix_loop"}) != 1
                 or any(proc_of[v["value"]] not in ("mix_loop", "fill", "main") for v in row["values"])]
        check(len(arrays) >= 100 and not wrong, "each array element: one load of mix_loop, and fill "
              "(%d elements): %s" % (len(arrays), wrong[:5]), daemon)
        bad = alphaprof(["daemon", "--link", "unix:" + sock, "--db", db, "--value-transform", "colour", img])
        check(bad.status == 2 and "accessors" in bad.err and len(bad.err.strip().splitlines()) == 1,
              "an unknown transform: one line naming the known ones", bad)
    finally:
        for p in (daemon, board):
            if p:
                p.stop()
        cleanup(d)
