"""End-to-end: `alphaprof instrument --both` (util/instrument.c,
firmware/abi/cct-region.h notes 10-14): every call counted per calling
context and every Ball-Larus path counted in the call record of the context
it ran in (or context-free: a procedure reached by a tail call), drained as
CCT, CCT_PATHS and PATHS frames, and checked against the model's exact
truth of the same run: the tree (check --cct, FILE.cct), each path's count
(path_count_error, FILE.blpaths) and each path's count per context
(context_path_error, FILE.cctpaths).  --both --metrics (cct-region.h
note 16) keeps each path's cycles and one event per context too, sent as
CCT_PATHS_METERED frames and stored beside the counts (schema 12): its
counts stay exact, its metrics per context are within a few per cent of
the model's per-context deltas (context_path_metric_error, FILE.cctpaths
version 2), and its images behave as the originals."""
import json
import os
import re
import shutil

from harness import alphaprof, build_path, check, cleanup, require, run_image, tmpdir

# What the --paths and --cct tests run: console output that does not depend on time.
SAME_OUTPUT = [("branches", []), ("qsort", []), ("calltree", ["64"]), ("hello", []), ("compress", []),
               ("libcheck", []), ("valuediff", ["3", "4000"]), ("chatter", []), ("matmul", []), ("copy", []),
               ("chase", []), ("trap", []), ("overflow", [])]


def _instrument(d, name, extra=()):
    orig = require(build_path("workloads", name + ".elf"), "the %s workload" % name)
    out = os.path.join(d, name + "-both.elf")
    r = alphaprof(["instrument", "--both"] + list(extra) + [orig, "-o", out])
    check(r.status == 0 and os.path.exists(out), "instrument --both %s %s succeeds" % (" ".join(extra), name), r)
    check("per context" in r.out, "it says what it counts per context", r)
    if "--metrics" in extra:
        check("metrics: cycles and " in r.out, "it says which metrics it keeps", r)
    return orig, out


def _console(r):
    """What the run printed, less what differs by design: the image's
    build-id and size, the run time, the registers of a fault (the
    trampolines use the temporaries), and where a stack overflow's fault
    lands (frame mode grows a procedure's frame by 16 bytes,
    path-region.h note 11, so endless recursion reaches the guard pages a
    few frames sooner: overflow)."""
    return [re.sub(r"va=0x[0-9a-f]+ sp=0x[0-9a-f]+", "va=V sp=S", l) if "stack overflow" in l else l
            for l in r.lines() if "build-id" not in l and "run time" not in l
            and not l.startswith("monitor:   ")]


def _same_output(extra):
    d = tmpdir()
    try:
        for name, args in SAME_OUTPUT:
            orig, inst = _instrument(d, name, extra)
            a = run_image(orig, args=args, timeout_s=300)
            b = run_image(inst, args=args, timeout_s=300)
            check(a.status == b.status, "%s: the instrumented image exits as the original (%d)" % (name, a.status), b)
            check(_console(a) == _console(b), "%s: the instrumented image prints what the original prints" % name,
                  "%s\n----\n%s" % (a, b))
        orig, inst = _instrument(d, "parallel", extra)
        a = run_image(orig, "--cores", "3", timeout_s=300)
        b = run_image(inst, "--cores", "3", timeout_s=300)
        check(a.status == b.status == 0 and _console(a) == _console(b),
              "parallel on 3 cores: the instrumented image behaves as the original", b)
    finally:
        cleanup(d)


def test_both_instrumented_images_print_and_exit_as_the_originals():
    _same_output(())


def test_both_metrics_instrumented_images_print_and_exit_as_the_originals():
    _same_output(("--metrics", "--event", "retired"))


def _record(d, img, args, cores=1, deterministic=False):
    db, oracle = os.path.join(d, "b.db"), os.path.join(d, "b.oracle")
    r = alphaprof(["record", "--board", "clipper-pm", "--cores", str(cores), "--oracle", oracle, "--db", db,
                   "--timeout", "250"] + (["--deterministic"] if deterministic else []) + [img, "--"] + args,
                  timeout=280)
    check(r.status == 0, "record of the instrumented image succeeds", r)
    check(any(l.startswith("monitor: cct paths: core 0:") for l in r.lines()),
          "the monitor says what it sent per context", r)
    return db, oracle


def _exact(db, oracle, what, min_context_paths):
    r = alphaprof(["check", "--paths", "--db", db, "--oracle", oracle, "--json"])
    check(r.status == 0, "%s: check --paths compares" % what, r)
    j = json.loads(r.out)
    check(j["path_count_error"] == 0, "%s: every path's count, its contexts' and context-free summed, equals the "
          "model's" % what, r)
    i = j["instrumented"]
    check(i["paths_profile"] == i["paths_truth"], "%s: every path execution was counted" % what, r)
    check(i["lost_paths"] == i["unmatched_exits"] == i["bad_paths"] == i["unnamed"] == 0,
          "%s: nothing lost or unmatched on the board" % what, r)
    check(j["context_path_error"] == 0, "%s: every path's count in every context equals the model's" % what, r)
    c = j["contexts"]
    check(c["paths_profile"] == c["paths_truth"] >= min_context_paths and c["keys"] == c["keys_equal"] > 0,
          "%s: the same paths in the same contexts on both sides" % what, r)
    r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle])
    check(r.status == 0 and "cct_count_error 0" in r.out, "%s: the tree's call counts equal the model's" % what, r)
    return j


def test_paths_per_context_equal_the_models_exact_counts():
    d = tmpdir()
    try:
        _, inst = _instrument(d, "calltree")
        db, oracle = _record(d, inst, ["16"])
        j = _exact(db, oracle, "calltree", 3000)
        check(j["contexts"]["context_free_profile"] > 0,
              "paths outside their procedure's record (before the first call, tail calls) are counted "
              "context-free, not dropped", j)
        r = alphaprof(["check", "--paths", "--db", db, "--oracle", oracle])
        check(r.status == 0 and "context_path_error 0" in r.out, "the text report says it too", r)
        _reports(db, j)
    finally:
        cleanup(d)


def _reports(db, j):
    """paths --context ranks (context, path) pairs, each context its call
    chain ending in the path's procedure; paths sums them per path; cct
    shows each context's path executions; all add up to what was counted."""
    total, in_ctx = j["instrumented"]["paths_profile"], j["contexts"]["paths_profile"]
    r = alphaprof(["paths", "--db", db, "--context", "--json"])
    check(r.status == 0, "paths --context reports", r)
    p = json.loads(r.out)["paths"]
    check(sum(x["count"] for x in p) == total, "paths --context: every counted execution is in a row", r)
    check(sum(x["count"] for x in p if x["record"] >= 0) == in_ctx, "... those in a context in their rows", r)
    check(all(x["context"].split(" > ")[-1] == x["procedure"] for x in p if x["record"] >= 0),
          "each context is a call chain ending in the path's procedure", r)
    check(p[0]["context"] == "main > fib > leaf", "calltree's hottest path is leaf's under fib under main", r)
    sited = [x for x in p if x["record"] >= 0]
    check(all([h.split("@")[0] for h in x["context_sites"].split(" > ")] == x["context"].split(" > ")
              for x in sited) and all(x["context_sites"].split(" > ")[1].split("@")[1].startswith("calltree.c:")
                                   for x in sited if x["context"].startswith("main > ")),
          "context_sites: the same chain with each call's site (callee@file:line)", r)
    twins = {}
    for x in sited:
        check(len(x["context_site_addrs"]) == len(x["context"].split(" > ")), "a call site's address per call", x)
        twins.setdefault((x["procedure"], x["path"], x["context"]), set()).add(tuple(x["context_site_addrs"]))
    check(len(twins[("leaf", 0, "main > leaf")]) == 2 and
          all(len(v) == sum(1 for x in sited if (x["procedure"], x["path"], x["context"]) == k)
              for k, v in twins.items()),
          "leaf's two calls in main (one source line): rows with one chain of names are told apart by their "
          "sites' addresses", r)
    t = alphaprof(["paths", "--db", db, "--context"])
    check(t.status == 0 and "leaf@calltree.c:" in t.out, "the text shows the sites too", t)
    r = alphaprof(["paths", "--db", db, "--json"])
    s = json.loads(r.out)["paths"]
    check(r.status == 0 and sum(x["count"] for x in s) == total and len(s) < len(p),
          "paths without --context sums each path's contexts", r)
    r = alphaprof(["cct", "--db", db, "--json"])
    recs = json.loads(r.out)["records"]
    check(r.status == 0 and sum(x["path_executions"] for x in recs) == in_ctx and
          all(sum(h["count"] for h in x["hot_paths"]) <= x["path_executions"] for x in recs),
          "cct shows each context's path executions and its hottest paths", r)
    r = alphaprof(["cct", "--db", db])
    check(r.status == 0 and "paths: " in r.out, "the text tree says them under the contexts", r)


def _metrics_per_context(j, what, event, limits):
    """context_path_metric_error (check --paths) within limits for cycles
    and the event: sum over (context, procedure, path) of |instrumented -
    truth| / sum truth.  A metric stored in the wrong context, swapped with
    the other, dropped or never sent puts it far above them.  The
    contexts' metrics are part of each path's (path_metric_error sums
    them with the context-free counters'), on both sides."""
    m = j["context_path_metric_error"]
    check(m is not None and set(m) == {"cycles", event},
          "%s: check --paths reports the metric error per context for cycles and %s" % (what, event), j)
    for name, limit in zip(("cycles", event), limits):
        check(m[name] <= limit, "%s: the %s of each path in each context are within %.0f %% of the model's "
              "(context_path_metric_error %.4f)" % (what, name, 100 * limit, m[name]), j)
    check(j["context_unmetered"] == 0, "%s: every count per context came with its metrics" % what, j)
    per_path = {x["metric"]: x for x in j["metrics"]}
    for x in j["context_metrics"]:
        p = per_path[x["metric"]]
        check(0 < x["truth"] <= p["truth"] and 0 < x["profile"] <= p["profile"],
              "%s: the contexts' %s are a part of the paths' on both sides" % (what, x["metric"]), j)
    check(j["path_metric_error"]["cycles"] <= limits[0],
          "%s: each path's cycles, its contexts' and context-free summed, are within %.0f %% of the model's"
          % (what, 100 * limits[0]), j)


def _metric_reports(db, j, event):
    """paths --context gives each (context, path) its cycles and event,
    adding up to the totals; cct shows each context's path cycles and
    event and their shares of all contexts'."""
    r = alphaprof(["paths", "--db", db, "--context", "--json"])
    check(r.status == 0, "paths --context reports", r)
    p = json.loads(r.out)
    check(p["metered"] and p["event"] == event, "paths --context says the run is metered and its event", r)
    rows = p["paths"]
    check(sum(x["cycles"] for x in rows) == p["total_cycles"] and sum(x["event"] for x in rows) == p["total_event"],
          "paths --context: every row's cycles and %s add up to the totals" % event, r)
    ctx_cycles = sum(x["cycles"] for x in rows if x["record"] >= 0)
    check(ctx_cycles == j["context_metrics"][0]["profile"] > 0,
          "paths --context: the rows in a context hold the cycles check --paths counts per context", (r, j))
    r = alphaprof(["cct", "--db", db, "--json"])
    c = json.loads(r.out)
    check(r.status == 0 and c["path_metrics"] and c["path_event"] == event, "cct says its paths are metered", r)
    recs = c["records"]
    check(sum(x["path_cycles"] for x in recs) == ctx_cycles and
          abs(sum(x["path_cycles_share"] for x in recs) - 1) < 1e-9 and
          all(sum(h["cycles"] for h in x["hot_paths"]) <= x["path_cycles"] for x in recs),
          "cct: each context's path cycles, its hottest paths' among them, shares adding up to 1", r)
    r = alphaprof(["cct", "--db", db])
    check(r.status == 0 and "path cycles " in r.out and (" %s " % event) in r.out,
          "the text tree says each context's path cycles and %s" % event, r)


def test_paths_per_context_with_metrics_keep_exact_counts_and_the_models_cycles_and_misses_per_context():
    """The metered slots (32 bytes, cct-region.h note 16) in the records
    and the context-free region: every count still equals the truth, and
    each (context, path)'s cycles and D-cache misses reach the database
    (CCT_PATHS_METERED) within a few per cent of the model's.  A
    deterministic run: cycles error 0.006 here, but 0.059 once in a
    fresh-clone run without it, likely the host-time timer putting more
    of the monitor's interrupt handling inside the paths under load."""
    d = tmpdir()
    try:
        _, inst = _instrument(d, "calltree", ("--metrics",))
        db, oracle = _record(d, inst, ["16"], deterministic=True)
        j = _exact(db, oracle, "calltree with metrics", 3000)
        _metrics_per_context(j, "calltree with metrics", "dmiss", (0.05, 0.10))
        r = alphaprof(["check", "--paths", "--db", db, "--oracle", oracle])
        check(r.status == 0 and "context_path_metric_error" in r.out, "the text report says it too", r)
        _metric_reports(db, j, "dmiss")
        _wrong_metrics_are_caught(d, db, oracle)
    finally:
        cleanup(d)


def _wrong_metrics_are_caught(d, db, oracle):
    """The check can fail: the same counts with each context's cycles
    moved to the next context (a drain that mixed up records), or the
    metrics dropped, give a context_path_metric_error far above the
    limits while context_path_error stays 0."""
    import shutil
    import sqlite3
    for what, sql in (("cycles moved to the next context",
                       "UPDATE cct_path_counts SET cycles = (SELECT c2.cycles FROM cct_path_counts c2 WHERE "
                       "c2.session = cct_path_counts.session AND c2.core = cct_path_counts.core AND "
                       "c2.record > cct_path_counts.record ORDER BY c2.record, c2.path LIMIT 1) "
                       "WHERE record < (SELECT max(record) FROM cct_path_counts)"),
                      ("metrics dropped", "UPDATE cct_path_counts SET cycles = 0, event = 0")):
        bad = os.path.join(d, "bad.db")
        shutil.copy(db, bad)
        con = sqlite3.connect(bad)
        con.execute(sql)
        con.commit()
        con.close()
        r = alphaprof(["check", "--paths", "--db", bad, "--oracle", oracle, "--json"])
        j = json.loads(r.out)
        check(r.status == 0 and j["context_path_error"] == 0 and j["context_path_metric_error"]["cycles"] > 0.2,
              "%s: check --paths says so in context_path_metric_error" % what, r)
        os.unlink(bad)


def test_metered_records_leave_room_for_every_context_so_no_call_lands_on_the_overflow_record():
    """--both --metrics gives a record 32 bytes a path (cct-region.h note
    16), so per context only procedures of at most CCT_BOTH_MAX_CTX_METERED
    paths count there (note 12); with 256 paths' slots listmark's records
    filled the area, 4 calls landed on the overflow record, and the tree
    and the context paths were off by 8.  Now every count is exact."""
    d = tmpdir()
    try:
        _, inst = _instrument(d, "listmark", ("--metrics",))
        db, oracle = _record(d, inst, [], deterministic=True)
        r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle])
        check(r.status == 0 and "put 4 on the overflow record" not in r.out and "overflow" not in r.out,
              "no call on the overflow record", r)
        _exact(db, oracle, "listmark with metrics", 10000)
    finally:
        cleanup(d)


def test_paths_per_context_with_metrics_on_two_cores_keep_exact_counts_and_the_models_metrics():
    d = tmpdir()
    try:
        _, inst = _instrument(d, "parallel", ("--metrics", "--event", "retired"))
        # (instruction-counted time: on a slow host's timer the metered
        # run took minutes)
        db, oracle = _record(d, inst, ["2"], cores=2, deterministic=True)
        j = _exact(db, oracle, "parallel on 2 cores with metrics", 100000)
        _metrics_per_context(j, "parallel on 2 cores", "retired", (0.05, 0.05))
    finally:
        cleanup(d)


def test_after_a_longjmp_paths_go_on_in_the_setjmp_callers_context_on_both_sides():
    """libcheck's longjmp abandons recursive frames: the CCT trampoline of
    the setjmp call drops their frames, its path continuation unwinds the
    register stack (cct-region.h note 10), and the truth resumes the
    setjmp caller in its own context."""
    d = tmpdir()
    try:
        _, inst = _instrument(d, "libcheck")
        db, oracle = _record(d, inst, [])
        _exact(db, oracle, "libcheck", 900)      # most of its paths are division millicode: context-free
    finally:
        cleanup(d)


def test_paths_per_context_on_two_cores_equal_the_truth():
    d = tmpdir()
    try:
        _, inst = _instrument(d, "parallel")
        db, oracle = _record(d, inst, ["2"], cores=2, deterministic=True)
        _exact(db, oracle, "parallel on 2 cores", 100000)
    finally:
        cleanup(d)


def test_a_runtime_helper_named_without_the_prefix_is_the_runtimes_and_counts_stay_exact():
    """cct-region.h note 15: the runtime's new_record is a procedure of its
    own (kept out of line on purpose, as the compiler may keep any helper),
    named without __alphaprof_cct.  Counted as a workload procedure, its
    path code ran inside the slow path and the plan took it for the callee
    of the call being served: path_count_error 100 on calltree 16."""
    from test_paths import elf_symbols
    orig = require(build_path("workloads", "calltree.elf"), "the calltree workload")
    names = [s["name"].split(".")[0] for s in elf_symbols(orig)]
    check("new_record" in names and "__alphaprof_cct_lookup" in names,
          "the image's runtime has a helper procedure without the prefix (what this test is about)", names)
    d = tmpdir()
    try:
        _, inst = _instrument(d, "calltree")
        db, oracle = _record(d, inst, ["8"])
        _exact(db, oracle, "calltree 8 with the runtime's helper out of line", 2000)
    finally:
        cleanup(d)


def test_a_runtime_helper_the_images_own_code_also_calls_is_refused_in_one_line():
    """cct-region.h note 15: a procedure the runtime branches into is the
    runtime's and never counted; were the image's own code to call it too
    (a memset the compiler called from the runtime), those calls would go
    uncounted, so the image is refused.  Made here by patching calltree's
    leaf to begin with a bsr to the runtime's new_record, then resealing."""
    import shutil
    import struct
    from harness import elf_sections, seal
    from test_paths import elf_symbols
    orig = require(build_path("workloads", "calltree.elf"), "the calltree workload")
    syms = {s["name"].split(".")[0]: s["start"] for s in elf_symbols(orig)}
    d = tmpdir()
    try:
        bad = os.path.join(d, "shared.elf")
        shutil.copy(orig, bad)
        addr, off, _ = elf_sections(bad)[".text"]
        pc = syms["leaf"]
        disp = ((syms["new_record"] - (pc + 4)) // 4) & 0x1FFFFF
        with open(bad, "r+b") as f:
            f.seek(off + pc - addr)
            f.write(struct.pack("<I", (0x34 << 26) | (26 << 21) | disp))     # bsr ra, new_record
        check(seal(bad).status == 0, "the patched image reseals")
        for mode in ("--both", "--cct", "--paths"):
            out = os.path.join(d, "x.elf")
            r = alphaprof(["instrument", mode, bad, "-o", out])
            check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and "new_record" in r.err
                  and "leaf" in r.err and not os.path.exists(out),
                  "instrument %s names the shared helper and its caller in one line, nothing written" % mode, r)
    finally:
        cleanup(d)


def test_both_refuses_mixed_modes_a_bad_event_and_an_instrumented_image():
    d = tmpdir()
    try:
        orig, inst = _instrument(d, "hello")
        for args, what in ((["--cct", "--paths"], "--cct --paths: say --both"),
                           (["--both", "--cct"], "--both with --cct"),
                           (["--both", "--event", "retired"], "--event without --metrics"),
                           (["--both", "--metrics", "--event", "cycles"], "--event cycles"),
                           (["--both", "--metrics", "--event", "nosuch"], "an unknown event")):
            r = alphaprof(["instrument"] + args + [orig, "-o", os.path.join(d, "x.elf")])
            check(r.status == 2 and len(r.err.strip().splitlines()) <= 3 and not os.path.exists(os.path.join(d, "x.elf")),
                  "%s: refused with one clear line, nothing written" % what, r)
        r = alphaprof(["instrument", "--both", "--metrics", "--event", "nosuch", orig, "-o", os.path.join(d, "x.elf")])
        check("nosuch" in r.err and "dmiss" in r.err, "it names the bad event and the good ones", r)
        r = alphaprof(["instrument", "--both", inst, "-o", os.path.join(d, "y.elf")])
        check(r.status == 1 and "already instrumented" in r.err and not os.path.exists(os.path.join(d, "y.elf")),
              "an instrumented image is refused, nothing written", r)
    finally:
        cleanup(d)


def _user_cycles(d, tag, img):
    """The workload's own modelled cycles (every user-mode PC: the image
    and its trampolines) in a deterministic run, as bench_both measures."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
    from bench_cct import user_cycles
    db, oracle = os.path.join(d, tag + ".db"), os.path.join(d, tag + ".oracle")
    r = alphaprof(["record", "--board", "clipper-pm", "--deterministic", "--oracle", oracle, "--db", db,
                   "--timeout", "250", img, "--"], timeout=280)
    check(r.status == 0, "record of %s succeeds" % tag, r)
    return user_cycles(oracle), db, oracle


def test_both_counts_a_path_for_what_paths_alone_pays_where_there_are_nearly_no_calls():
    """cct-region.h note 17: each activation finds its counters' base
    once, at its entry (its call record's counters when the record is its
    procedure's, else the context-free ones), and keeps it where --paths
    keeps its counters' address, so a path's count costs what it costs
    with --paths.  branches makes nearly no calls (5.2 M path executions,
    66 contexts): its --both image takes within 3 % of its --paths
    image's modelled cycles (37 % more when each count loaded and tested
    the current record: 62.9 % overhead against 18.9 %), its counts still
    exact."""
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "branches.elf"), "the branches workload")
        cycles = {}
        for mode in ("--paths", "--both"):
            img = os.path.join(d, "branches%s.elf" % mode)
            r = alphaprof(["instrument", mode, orig, "-o", img])
            check(r.status == 0, "instrument %s branches succeeds" % mode, r)
            cycles[mode], db, oracle = _user_cycles(d, mode.strip("-"), img)
        check(cycles["--both"] <= 1.03 * cycles["--paths"],
              "--both's image takes within 3 %% of --paths' modelled cycles (%d against %d)"
              % (cycles["--both"], cycles["--paths"]), cycles)
        _exact(db, oracle, "branches", 5000000)
    finally:
        cleanup(d)


def test_recursion_counts_in_the_ancestors_record_and_a_tail_called_leaf_context_free():
    """What each activation's counters' base (cct-region.h note 17, found
    at the entry) must give, on calltree 16: fib's recursion folds onto
    the record of its outermost call, so all of fib(10)'s paths under main
    count in main > fib (none under fib > fib); leaf, reached from tail
    by a branch (a tail call: the record current is tail's), counts its
    16 executions context-free, not in the record of the last leaf call
    (main > via > leaf, whose leaf_rec its own entry or exit cleared); the
    leaf calls themselves count in their own records (fib(10) calls leaf
    89 times a round)."""
    d = tmpdir()
    try:
        _, inst = _instrument(d, "calltree")
        db, oracle = _record(d, inst, ["16"])
        _exact(db, oracle, "calltree", 3000)
        r = alphaprof(["paths", "--db", db, "--context", "--json"])
        check(r.status == 0, "paths --context reports", r)
        rows = json.loads(r.out)["paths"]
        fib = [x for x in rows if x["procedure"] == "fib"]
        check(fib and all(x["context"].split(" > ")[-2:] != ["fib", "fib"] for x in fib) and
              {x["context"] for x in fib} == {"main > fib", "main > via > fib"},
              "fib's recursion counts in its outermost call's record", fib)
        leaf = {}
        for x in rows:
            if x["procedure"] == "leaf":
                leaf[x["context"] if x["record"] >= 0 else None] = leaf.get(x["context"] if x["record"] >= 0
                                                                            else None, 0) + x["count"]
        check(leaf.get(None) == 16, "leaf tail-called from tail counts its 16 executions context-free", leaf)
        check(leaf.get("main > fib > leaf") == 16 * 89 and leaf.get("main > via > leaf") == 8,
              "leaf's calls count in their own records", leaf)
    finally:
        cleanup(d)


def _hashed(r):
    """How many procedures `instrument --both` says it counts in the hash
    table, and the table's slots."""
    for l in r.lines():
        if "with too many paths for an array counted in a hash table of" in l:
            return int(l.split(": ")[2].split()[0]), int(l.split("hash table of ")[1].split()[0])
    return 0, 0


def test_a_procedure_with_more_than_2_to_the_24_paths_counts_each_path_in_its_context_in_the_hash_table():
    """manypaths' decide() has 2^26 Ball-Larus paths (no array of
    counters); --both counts them in the core's hash table keyed by
    (context, procedure, path) (path-region.h note 15), drained as
    CCT_PATHS entries of decide's record: its 300 distinct paths, each run
    10 times, equal the model's per-context truth one by one, nothing lost;
    the image prints what the original prints; `paths --context` shows
    them in decide's context.  Only when asked: by default --both leaves
    them alone (its region's table cannot hold qsort's paths)."""
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "manypaths.elf"), "the manypaths workload")
        inst = os.path.join(d, "mp.elf")
        r = alphaprof(["instrument", "--both", orig, "-o", inst])
        check(r.status == 0 and _hashed(r)[0] == 0, "by default --both hashes nothing", r)
        r = alphaprof(["instrument", "--both", "--hash-slots", "4096", orig, "-o", inst])
        n, slots = _hashed(r)
        check(n >= 1 and slots >= 2048, "the summary says procedures are hashed per context, and in how many slots", r)
        check("asked for" not in r.out, "the slots asked for fit", r)
        r = alphaprof(["instrument", "--both", "--hash-slots", "8192", orig, "-o", os.path.join(d, "mp8k.elf")])
        check(r.status == 0 and _hashed(r)[1] < 8192 and "fewer than the 8192 asked for" in r.out,
              "--hash-slots past the region's room: the summary says it got fewer slots than it asked for", r)
        a, b = run_image(orig, timeout_s=120), run_image(inst, timeout_s=120)
        check(a.status == b.status == 0 and _console(a) == _console(b),
              "the instrumented image prints what the original prints", "%s\n----\n%s" % (a, b))
        db, oracle = _record(d, inst, [])
        j = _exact(db, oracle, "manypaths", 3000)
        i = j["instrumented"]
        check(i["procedures_hashed"] >= 1 and i["distinct_equal"] == i["distinct_truth"] >= 300,
              "hashed procedures compared, the same paths on both sides", j)
        r = alphaprof(["paths", "--db", db, "decide", "--context", "--json", "--limit", "0"])
        check(r.status == 0, "paths decide --context", r)
        p = json.loads(r.out)["paths"]
        check(len(p) == 300 and all(x["count"] == 10 for x in p), "decide's 300 paths, 10 executions each", r)
        check(all("main" in str(x.get("context")) and x.get("record") is not None for x in p),
              "each counted in decide's context under main, none context-free", r)
    finally:
        cleanup(d)


def test_a_hash_table_too_small_under_both_counts_the_paths_it_cannot_hold_as_lost_never_silently():
    """--both --hash-slots 8 (8 home slots and the bounded probe's 63 after
    them) cannot hold decide's 300 (context, path) keys: every execution of
    the others counts in lost_paths, counted + lost = the model's
    executions, the error is exactly the lost and every path counted is
    counted exactly, in its context too.  --both --metrics leaves such
    procedures alone, so --hash-slots with it is refused in one line."""
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "manypaths.elf"), "the manypaths workload")
        inst = os.path.join(d, "mp8.elf")
        r = alphaprof(["instrument", "--both", "--hash-slots", "8", orig, "-o", inst])
        check(r.status == 0 and _hashed(r)[1] == 8, "instrument --both --hash-slots 8", r)
        db, oracle = _record(d, inst, [])
        r = alphaprof(["check", "--paths", "--db", db, "--oracle", oracle, "--json"])
        check(r.status == 0, "check --paths compares", r)
        j = json.loads(r.out)
        i = j["instrumented"]
        check(10 * (300 - 71) <= i["lost_paths"] < 3000, "the paths past the table are counted lost", r)
        check(i["paths_profile"] + i["lost_paths"] == i["paths_truth"], "counted + lost = the truth's executions", r)
        check(j["path_count_error"] == i["lost_paths"], "the error is the lost paths, no more", r)
        check(i["distinct_profile"] == i["distinct_equal"], "every path counted is counted exactly", r)
        check(j["context_path_error"] == i["lost_paths"], "per context too: only the lost paths differ", r)
        r = alphaprof(["instrument", "--both", "--metrics", "--hash-slots", "8", orig, "-o", os.path.join(d, "x.elf")])
        check(r.status == 2 and "--hash-slots" in r.err and len(r.err.strip().splitlines()) <= 3 and
              not os.path.exists(os.path.join(d, "x.elf")), "--both --metrics --hash-slots: refused in one line", r)
    finally:
        cleanup(d)


def test_check_paths_and_cct_refuse_another_runs_truth_a_snapshot_and_selections_that_do_not_apply_in_one_line():
    """check --cct compared a tree with another run's oracle (exit 0, an
    error of 163585 calls); check --paths compared counts with a .blpaths
    of another run left beside the right oracle; both read a snapshot
    (FILE.1) as if it were the run's oracle.  Each is now one line, exit 1."""
    d = tmpdir()
    try:
        _, inst = _instrument(d, "manypaths")
        runs = []
        for tag in ("a", "b"):
            db, oracle = os.path.join(d, tag + ".db"), os.path.join(d, tag + ".oracle")
            r = alphaprof(["record", "--board", "clipper-pm", "--deterministic", "--oracle", oracle, "--db", db,
                           "--timeout", "250", inst], timeout=280)
            check(r.status == 0, "record %s" % tag, r)
            runs.append((db, oracle))
        (a_db, a_o), (_, b_o) = runs
        for what in ("--cct", "--paths"):
            r = alphaprof(["check", what, "--db", a_db, "--oracle", a_o])
            check(r.status == 0, "check %s with the run's own oracle" % what, r)
            r = alphaprof(["check", what, "--db", a_db, "--oracle", b_o])
            check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and "oracle of another run" in r.err,
                  "check %s refuses another run's oracle in one line" % what, r)
        mixed = os.path.join(d, "mixed.oracle")
        for f in os.listdir(d):
            if f.startswith("a.oracle"):
                shutil.copy(os.path.join(d, f), os.path.join(d, "mixed" + f[len("a"):]))
        shutil.copy(b_o + ".blpaths", mixed + ".blpaths")
        r = alphaprof(["check", "--paths", "--db", a_db, "--oracle", mixed])
        check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and "blpaths is of another run" in r.err,
              "another run's path counts beside the oracle are refused in one line", r)
        if os.path.exists(a_o + ".1"):
            for what in ("--cct", "--paths"):
                r = alphaprof(["check", what, "--db", a_db, "--oracle", a_o + ".1"])
                check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and "is snapshot 1" in r.err and
                      "give " + a_o in r.err, "check %s names a snapshot and the file to give" % what, r)
        # selections these commands cannot honour were ignored (the whole session shown, exit 0)
        for args, status, what in ((["paths", "--epoch", "7"], 2, "--epoch selects ProfileMe samples"),
                                   (["paths", "--core", "5"], 2, "--core selects ProfileMe samples"),
                                   (["cct", "--core", "5"], 1, "has no calling context tree of core 5 (cores: 0)"),
                                   (["check", "--cct", "--oracle", a_o, "--epoch", "9"], 2, "--epoch does not apply")):
            r = alphaprof(args + ["--db", a_db])
            check(r.status == status and len(r.err.strip().splitlines()) == 1 and what in r.err and not r.out,
                  "%s: refused in one line" % " ".join(args), r)
        r = alphaprof(["paths", "--db", a_db])
        rows = [l for l in r.out.splitlines() if re.match(r"\s+\d+\s+\d+\.\d+\s", l)]
        check(r.status == 0 and len(rows) == 30 and re.search(r"\(\d+ more paths: --limit N or --json\)", r.out),
              "paths shows 30 rows in text by default, as --help says, and how many more there are", r)
    finally:
        cleanup(d)


def test_context_paths_bounds_which_procedures_count_per_context_and_the_counts_stay_exact():
    """--context-paths N: a procedure with more than N paths counts them
    context-free only, so the call records are smaller (chatter built -O3
    -funroll-loops filled the core's records at the default 256 and put
    59728 calls on the overflow record; at 8 its tree was exact:
    bench_instrument_flags).  Fewer procedures per context, every count
    still the model's; refused without --both."""
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "drystone.elf"), "the drystone workload")
        per = {}
        for n in (None, 4):
            out = os.path.join(d, "cp%s.elf" % n)
            r = alphaprof(["instrument", "--both"] + (["--context-paths", str(n)] if n else []) + [orig, "-o", out])
            m = re.search(r"\((\d+) per context, the others context-free\)", r.out)
            check(r.status == 0 and m, "instrument --both --context-paths %s" % n, r)
            per[n] = int(m.group(1))
        check(per[4] < per[None], "fewer procedures count per context (%d < %d)" % (per[4], per[None]))
        db, oracle = os.path.join(d, "cp.db"), os.path.join(d, "cp.oracle")
        r = alphaprof(["record", "--board", "clipper-pm", "--deterministic", "--oracle", oracle, "--db", db,
                       "--timeout", "250", os.path.join(d, "cp4.elf")], timeout=280)
        check(r.status == 0, "record the --context-paths 4 image", r)
        j = json.loads(alphaprof(["check", "--paths", "--db", db, "--oracle", oracle, "--json"]).out)
        check(j["path_count_error"] == 0 and j["context_path_error"] == 0, "paths and paths per context exact", j)
        j = json.loads(alphaprof(["check", "--cct", "--db", db, "--oracle", oracle, "--json"]).out)
        check(j["cct_count_error"] == 0, "the tree exact", j)
        r = alphaprof(["instrument", "--paths", "--context-paths", "4", orig, "-o", os.path.join(d, "x.elf")])
        check(r.status == 2 and "--context-paths goes with --both" in r.err, "refused without --both", r)
    finally:
        cleanup(d)
