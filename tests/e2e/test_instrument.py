"""End-to-end: `alphaprof instrument --cct [--metrics]` (util/instrument.c)
and the calling context tree it builds at run time (firmware/abi/
cct-region.h; counts only, or with --metrics inclusive cycles and
instructions too, note 9), drained over the link into the database,
printed by `alphaprof cct` and checked call for call against the hardware
model's exact tree (check --cct, PATH.cct)."""
import hashlib
import json
import os
import re
import stat
import subprocess

from harness import alphaprof, build_path, check, cleanup, elf_sections, make_image, require, run_image, seal, tmpdir

# Workloads whose console output does not depend on time, with arguments.
SAME_OUTPUT = [("hello", []), ("qsort", []), ("libcheck", []), ("compress", []), ("chase", []),
               ("branches", []), ("calltree", ["64"]), ("valuediff", ["3", "4000"]), ("trap", []),
               ("overflow", [])]


def _instrument(d, name, metrics=False):
    orig = require(build_path("workloads", name + ".elf"), "the %s workload" % name)
    out = os.path.join(d, name + ("-cctm.elf" if metrics else "-cct.elf"))
    r = alphaprof(["instrument", "--cct"] + (["--metrics"] if metrics else []) + [orig, "-o", out])
    check(r.status == 0 and os.path.exists(out), "instrument --cct%s %s succeeds" % (" --metrics" * metrics, name), r)
    check(("inclusive cycles" in r.out) == metrics, "it says whether it keeps metrics", r)
    return orig, out


def _console(r):
    """What the run printed, less what differs by design: the image's
    build-id and size, the run time, and the registers of a fault (the
    trampolines use the temporaries)."""
    return [l for l in r.lines() if "build-id" not in l and "run time" not in l
            and not l.startswith("monitor:   ")]


def test_instrumented_images_print_and_exit_as_the_originals():
    d = tmpdir()
    try:
        for name, args in SAME_OUTPUT:
            orig, inst = _instrument(d, name)
            a = run_image(orig, args=args, timeout_s=300)
            b = run_image(inst, args=args, timeout_s=300)
            check(a.status == b.status, "%s: the instrumented image exits as the original (%d)" % (name, a.status), b)
            check(_console(a) == _console(b), "%s: the instrumented image prints what the original prints" % name,
                  "%s\n----\n%s" % (a, b))
        orig, inst = _instrument(d, "parallel")
        a = run_image(orig, "--cores", "3", timeout_s=300)
        b = run_image(inst, "--cores", "3", timeout_s=300)
        check(a.status == b.status == 0 and _console(a) == _console(b),
              "parallel on 3 cores: the instrumented image behaves as the original", b)
    finally:
        cleanup(d)


def test_metered_images_print_and_exit_as_the_originals():
    # --metrics keeps values in $22-$25 across a leaf's call (cct-region.h
    # note 3a): only a leaf that leaves them alone may be called so
    d = tmpdir()
    try:
        for name, args in SAME_OUTPUT:
            orig, inst = _instrument(d, name, metrics=True)
            a = run_image(orig, args=args, timeout_s=300)
            b = run_image(inst, args=args, timeout_s=300)
            check(a.status == b.status and _console(a) == _console(b),
                  "%s: the metered image prints and exits as the original" % name, "%s\n----\n%s" % (a, b))
    finally:
        cleanup(d)


def test_instrument_leaves_the_original_and_its_addresses_and_reseals():
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "qsort.elf"), "the qsort workload")
        before = hashlib.sha256(open(orig, "rb").read()).hexdigest()
        _, inst = _instrument(d, "qsort")
        check(hashlib.sha256(open(orig, "rb").read()).hexdigest() == before, "the original image is not written")
        r = seal(inst, "--check")
        check(r.status == 0, "the instrumented image passes the monitor's checks (alphaprof-seal --check)", r)

        def symbols(path):
            out = subprocess.run(["alpha-linux-gnu-nm", "--defined-only", path], capture_output=True, text=True,
                                 timeout=60).stdout
            return {l.split()[2]: int(l.split()[0], 16) for l in out.splitlines() if len(l.split()) == 3}

        a, b = symbols(orig), symbols(inst)
        check(all(b.get(n) == v for n, v in a.items()), "every symbol of the original keeps its address")
        check("[instrumentation]" in b and b["[instrumentation]"] > max(a.values()),
              "the trampolines have a symbol of their own, after the image")
    finally:
        cleanup(d)


def test_instrument_refuses_what_it_cannot_instrument_and_never_writes_over_its_input_or_a_device():
    d = tmpdir()
    try:
        orig, inst = _instrument(d, "hello")
        r = alphaprof(["instrument", "--cct", inst, "-o", os.path.join(d, "again.elf")])
        check(r.status == 1 and "already instrumented" in r.err and len(r.err.strip().splitlines()) == 1,
              "an instrumented image is refused with one line", r)
        r = alphaprof(["instrument", "--cct", orig, "-o", orig])
        check(r.status == 2, "-o naming the input is a usage error", r)
        # the input however spelled, or a file that is not one: refused, the input untouched
        before = open(orig, "rb").read()
        link = os.path.join(d, "link.elf")
        os.symlink(orig, link)
        fifo = os.path.join(d, "fifo.elf")
        os.mkfifo(fifo)
        for inp, out, what in ((orig, os.path.join(os.path.dirname(orig), ".", os.path.basename(orig)),
                                "names the input image"), (link, orig, "names the input image"),
                               (orig, fifo, "is a FIFO, not a regular file"),
                               (orig, "/dev/null", "is a character device")):
            r = alphaprof(["instrument", "--paths", inp, "-o", out])
            check(r.status == 2 and len(r.err.strip().splitlines()) == 1 and what in r.err,
                  "-o %s for %s is refused in one line" % (out, inp), r)
        check(open(orig, "rb").read() == before and os.path.isfile(orig) and stat.S_ISFIFO(os.stat(fifo).st_mode)
              and stat.S_ISCHR(os.stat("/dev/null").st_mode), "the input, the FIFO and /dev/null are as they were")
        # a directory that is not there: one line naming the file asked for (it named a temporary twin)
        out = os.path.join(d, "no-such-dir", "x.elf")
        r = alphaprof(["instrument", "--paths", orig, "-o", out])
        check(r.status == 1 and r.err.strip().splitlines() == ["alphaprof instrument: %s: cannot write: No such file "
                                                               "or directory" % out], "-o in a missing directory", r)
        # an image whose symbol names are garbage: nothing can be counted, so nothing is written
        # (it wrote a copy that counted nothing, exit 0)
        garbled = os.path.join(d, "garbled.elf")
        data = bytearray(open(orig, "rb").read())
        _, off, size = elf_sections(orig)[".strtab"]
        data[off + 1:off + size] = b"\xff" * (size - 1)
        open(garbled, "wb").write(bytes(data))
        out = os.path.join(d, "garbled-paths.elf")
        r = alphaprof(["instrument", "--paths", garbled, "-o", out])
        check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and "could be counted" in r.err and
              not os.path.exists(out), "an image with garbage symbol names: refused, nothing written", r)
        # bad option values are usage errors (exit 2) named as such, before the operands are counted
        for args, what in ((["--paths", "--hash-slots", "3", orig], "--hash-slots 3: give 0"),
                           (["--paths", "--metrics", "--event", orig], "--event %s: not an event" % orig)):
            r = alphaprof(["instrument"] + args + ["-o", os.path.join(d, "v.elf")])
            check(r.status == 2 and len(r.err.strip().splitlines()) == 1 and what in r.err,
                  "instrument %s: a usage error naming the value" % " ".join(args[:-1]), r)
        r = alphaprof(["instrument", "--cct", "--hash-slots", "64", orig, "-o", os.path.join(d, "h.elf")])
        check(r.status == 2 and "--hash-slots" in r.err and "--cct" in r.err, "--hash-slots does not go with --cct",
              r)
        r = alphaprof(["instrument", orig, "-o", os.path.join(d, "x.elf")])
        check(r.status == 2 and "--cct" in r.err, "without --cct the command says what to ask for", r)
        bare = make_image(os.path.join(d, "bare.elf"))
        check(seal(bare).status == 0, "a minimal image seals")
        r = alphaprof(["instrument", "--cct", bare, "-o", os.path.join(d, "bare-cct.elf")])
        check(r.status == 1 and len(r.err.strip().splitlines()) == 1 and not os.path.exists(
            os.path.join(d, "bare-cct.elf")), "an image without symbols is refused, nothing written", r)
    finally:
        cleanup(d)


def _record(d, img, *opts, args=None, tag="c"):
    db, oracle = os.path.join(d, tag + ".db"), os.path.join(d, tag + ".oracle")
    r = alphaprof(["record", "--board", "clipper-pm", "--oracle", oracle, "--db", db, "--timeout", "250"]
                  + list(opts) + [img] + (["--"] + args if args else []), timeout=280)
    check(r.status == 0, "record of the instrumented image succeeds", r)
    return db, oracle


def test_calls_from_code_the_workload_writes_at_run_time_are_left_out_of_the_count_and_counted():
    """valuediff runs bodies it generates into an array; their `bsr`s are
    calls the model sees and no instrumenter of the image can patch."""
    d = tmpdir()
    try:
        _, inst = _instrument(d, "valuediff")
        db, oracle = _record(d, inst, args=["4", "3000", "48"])
        r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle, "--json"])
        check(r.status == 0, "check --cct compares", r)
        j = json.loads(r.out)
        check(j["outside_calls"] > 0, "the generated code's calls are counted as made outside the image", r)
        check(j["cct_count_error"] == 0 and j["calls_profile"] == j["calls_oracle"] > 10000,
              "every call the image's own code made is counted in its context", r)
        r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle])
        check(r.status == 0 and "no function of the image" in r.out, "the text report says what was left out", r)
    finally:
        cleanup(d)


def test_cct_call_counts_equal_the_models_exact_tree():
    d = tmpdir()
    try:
        _, inst = _instrument(d, "calltree")
        db, oracle = _record(d, inst, args=["16"])
        r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle, "--json"])
        check(r.status == 0, "check --cct compares", r)
        j = json.loads(r.out)
        check(j["cct_count_error"] == 0, "every context's call count equals the model's", r)
        check(j["contexts_equal"] == j["contexts_oracle"] == j["contexts_profile"] and j["contexts_oracle"] > 30,
              "the same contexts on both sides", r)
        check(j["calls_profile"] == j["calls_oracle"] > 1000, "every call was counted", r)

        r = alphaprof(["cct", "--db", db, "--json"])
        check(r.status == 0, "alphaprof cct prints the tree", r)
        t = json.loads(r.out)
        recs = t["records"]
        by_id = {x["id"]: x for x in recs}
        fib = [x for x in recs if x["procedure"] == "fib" and by_id[x["parent"]]["procedure"] == "main"]
        check(len(fib) == 1 and fib[0]["calls"] > 16, "fib called from main has one record with its recursion", r)
        check(not any(x["procedure"] == "fib" and by_id[x["parent"]]["procedure"] == "fib" for x in recs),
              "recursive calls fold onto the ancestor's record (no fib under fib)", r)
        check(fib[0]["site_file"] and fib[0]["site_file"].endswith("calltree.c") and fib[0]["site_line"] > 0,
              "the call site is a source line", r)
        leaf_from_main = [x for x in recs if x["procedure"] == "leaf" and by_id[x["parent"]]["procedure"] == "main"]
        check(len(leaf_from_main) >= 2, "two call sites of leaf in main are two contexts", r)
        check(t["metrics"] is False and all(x["cycles"] is None for x in recs),
              "a tree of counts only has no cycles to show", r)
        r = alphaprof(["cct", "--db", db])
        check(r.status == 0 and "fib" in r.out and "calltree.c:" in r.out, "the text tree names procedures and lines", r)
        check("call counts only" in r.out and "cycles-excl" not in r.out, "the text tree says it has counts only", r)

        # real stacks in the exports, every sample still counted once
        r = alphaprof(["export", "--db", db, "--format", "folded"])
        check(r.status == 0, "folded export", r)
        check(len(r.err.strip().splitlines()) == 1 and "split among its contexts by their calls" in r.err,
              "one line says the samples are split by calls (a tree without metrics)", r)
        out = os.path.join(d, "no-such-dir", "x.folded")
        e = alphaprof(["export", "--db", db, "--format", "folded", "-o", out])
        check(e.status == 1 and e.err.strip().splitlines() == ["alphaprof export: cannot write %s: No such file or "
                                                               "directory" % out],
              "-o that cannot be written: its one line alone (the note came first)", e)
        lines = [l.rsplit(" ", 1) for l in r.out.splitlines()]
        total = sum(int(c) for _, c in lines)
        rep = alphaprof(["report", "--db", db, "--json"])
        check(total == json.loads(rep.out)["events"][0]["total"], "the folded stacks hold every sample once", r)
        check(any(";_start;main;" in st for st, _ in lines),
              "samples sit in contexts under main and _start (which ones moves with the host's load)", r)
        r = alphaprof(["export", "--db", db, "--format", "callgrind"])
        check(r.status == 0 and any(l.startswith("cfn=") and l.endswith(" main") for l in r.out.splitlines()),
              "callgrind has the call edge into main", r)
    finally:
        cleanup(d)


def _tree(db):
    """{context: calls} of a session's tree, a context being its path from
    the root as (procedure, call site) pairs: the same procedure called
    from the same site under the same caller procedure is still another
    context when the caller's own context differs (calltree's _fputc_r
    under two __sfputs_r), so nothing shorter names a context."""
    r = alphaprof(["cct", "--db", db, "--json"])
    check(r.status == 0, "alphaprof cct --json", r)
    t = json.loads(r.out)
    by_id = {(x["core"], x["id"]): x for x in t["records"]}

    def path(x):
        p = []
        while x is not None and x["procedure"] != "[root]":
            p.append((x["procedure"], x["site_address"]))
            x = by_id.get((x["core"], x["parent"]))
        return tuple(reversed(p))
    contexts = {}
    for x in t["records"]:
        k = (x["core"], path(x))
        check(k not in contexts, "each context is one record of the tree: %s" % (k,))
        contexts[k] = x["calls"]
    return t, contexts


def test_cct_with_metrics_counts_the_same_calls_and_measures_each_contexts_cycles():
    d = tmpdir()
    try:
        orig, counts = _instrument(d, "calltree")
        _, metered = _instrument(d, "calltree", metrics=True)
        a = run_image(orig, args=["16"], timeout_s=120)
        b = run_image(metered, args=["16"], timeout_s=120)
        check(a.status == b.status == 0 and _console(a) == _console(b),
              "the metered image prints and exits as the original", b)
        db1, o1 = _record(d, counts, args=["16"], tag="counts")
        db2, o2 = _record(d, metered, args=["16"], tag="metrics")
        for db, oracle in ((db1, o1), (db2, o2)):
            r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle, "--json"])
            check(r.status == 0 and json.loads(r.out)["cct_count_error"] == 0, "both modes' counts are exact", r)
        t1, calls1 = _tree(db1)
        t2, calls2 = _tree(db2)
        check(calls1 == calls2 and len(calls1) > 30, "the two trees have the same contexts and counts")
        check(t2["metrics"] is True, "the metered tree says it has metrics")
        recs = t2["records"]
        check(all(0 <= x["cycles_exclusive"] <= x["cycles"] and 0 <= x["retired_exclusive"] <= x["retired"]
                  for x in recs), "exclusive metrics lie between 0 and the inclusive ones")
        # a leaf's call keeps its metrics in its caller's slot until the
        # drain (cct-region.h note 3a): calltree's leaf is three
        # instructions and calls nothing, so each context of it has at
        # least those per call and all its metrics are its own.  No upper
        # bound here: the sampling handler's instructions count in the
        # context it interrupts (as in the truth), so a context's metrics
        # move with where the samples fell; test_cct_metrics checks them
        # against the model's own window of each call.
        leaves = [x for x in recs if x["procedure"] == "leaf" and x["calls"] >= 8]
        check(len(leaves) >= 3 and all(x["retired"] >= 3 * x["calls"] and x["cycles"] > 0
                                       and x["cycles_exclusive"] == x["cycles"]
                                       and x["retired_exclusive"] == x["retired"] for x in leaves),
              "every context of the leaf has its calls' instructions and cycles, all exclusive: %s"
              % [(x["calls"], x["retired"], x["cycles"]) for x in leaves])
        main = [x for x in recs if x["procedure"] == "main"]
        check(len(main) == 1 and main[0]["cycles"] > 0 and main[0]["retired"] > 0,
              "inclusive cycles and instructions come from the PMU page")
        r = alphaprof(["cct", "--db", db2])
        check(r.status == 0 and "cycles-excl" in r.out and "counts only" not in r.out,
              "the text tree of a metered run shows the metrics", r)
        r = alphaprof(["export", "--db", db2, "--format", "folded"])
        # (any context under main: where host-time samples fall moves with
        # the host's load; once, loaded, none fell in fib and hundreds in
        # the startup code QEMU was translating)
        check(r.status == 0 and r.err.strip() == "" and any(";_start;main;" in l for l in r.out.splitlines()),
              "a metered tree splits samples by exclusive cycles, with nothing to note", r)
    finally:
        cleanup(d)


def test_cct_on_several_cores_equals_the_truth():
    d = tmpdir()
    try:
        _, inst = _instrument(d, "parallel")
        db, oracle = _record(d, inst, "--cores", "2")
        r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle, "--json"])
        check(r.status == 0 and json.loads(r.out)["cct_count_error"] == 0, "both cores' trees are exact", r)
        r = alphaprof(["cct", "--db", db, "--json"])
        t = json.loads(r.out)
        check(sorted(c["core"] for c in t["cores"]) == [0, 1], "each core has its own tree", r)
        check(any(x["procedure"] == "core_main" and x["core"] == 1 for x in t["records"]),
              "core 1's tree starts at core_main", r)
    finally:
        cleanup(d)


def test_cct_without_a_tree_says_so():
    d = tmpdir()
    try:
        img = require(build_path("workloads", "hello.elf"))
        db = os.path.join(d, "p.db")
        r = alphaprof(["record", "--db", db, img], timeout=120)
        check(r.status == 0, "record of an image that is not instrumented", r)
        r = alphaprof(["cct", "--db", db])
        check(r.status == 1 and "instrument --cct" in r.err and len(r.err.strip().splitlines()) == 1,
              "cct on a profile without a tree: one line saying how to get one", r)
    finally:
        cleanup(d)


def test_metrics_read_on_a_board_without_counters_are_flagged_and_a_metered_image_picks_the_model_board():
    """clipper has no hardware model, so no PMU page: the counts hold, the
    metrics are all 0, and cct and paths say why in one line."""
    d = tmpdir()
    try:
        _, cctm = _instrument(d, "listmark", metrics=True)
        pathm = os.path.join(d, "listmark-pathsm.elf")
        orig = build_path("workloads", "listmark.elf")
        r = alphaprof(["instrument", "--paths", "--metrics", orig, "-o", pathm])
        check(r.status == 0, "instrument --paths --metrics", r)
        for img, cmd, what in ((cctm, "cct", "context"), (pathm, "paths", "path")):
            db = os.path.join(d, cmd + ".db")
            r = alphaprof(["record", "--board", "clipper", "--db", db, img], timeout=300)
            check(r.status == 0, "record on the board without a hardware model", r)
            r = alphaprof([cmd, "--db", db])
            notes = [l for l in r.err.splitlines() if "warning" in l]
            check(r.status == 0 and len(notes) == 1 and ("every %s's cycles are 0" % what) in notes[0]
                  and "clipper-pm" in notes[0], "%s names the missing counters and the board to use" % cmd, r)
        db = os.path.join(d, "pm.db")
        r = alphaprof(["record", "--board", "clipper-pm", "--db", db, cctm], timeout=300)
        r = alphaprof(["cct", "--db", db])
        check(r.status == 0 and "warning" not in r.err, "no note where the counters were read", r)
        # with no --board, record and run pick the hardware model's board for a metered image
        # (record took clipper, the default, and every metric read 0)
        for img, cmd in ((cctm, "cct"), (pathm, "paths")):
            db = os.path.join(d, "auto-" + cmd + ".db")
            r = alphaprof(["record", "--db", db, img], timeout=300)
            check(r.status == 0, "record a metered image with no --board", r)
            r = alphaprof([cmd, "--db", db])
            check(r.status == 0 and "warning" not in r.err and not re.search(r"\bcycles 0\b", r.out),
                  "%s: the metrics were read (the board has the counters)" % cmd, r)
    finally:
        cleanup(d)


def test_a_full_shadow_stack_is_counted_not_lost():
    d = tmpdir()
    try:
        orig, inst = _instrument(d, "calltree")
        a = run_image(orig, args=["2", "3000"], timeout_s=120)
        b = run_image(inst, args=["2", "3000"], timeout_s=120)
        check(a.status == b.status == 0 and _console(a) == _console(b),
              "recursion 3000 deep runs as in the original", b)
        db, oracle = _record(d, inst, args=["2", "3000"])
        r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle, "--json"])
        j = json.loads(r.out)
        check(j["skipped_calls"] > 0, "calls beyond the shadow stack's frames are counted as skipped", r)
        check(j["cct_count_error"] == j["skipped_calls"] == j["calls_oracle"] - j["calls_profile"],
              "what the profile lacks against the truth is exactly what the board said it skipped", r)
        r = alphaprof(["cct", "--db", db])
        check("%d calls skipped" % j["skipped_calls"] in r.out, "cct says how many calls it skipped", r)
    finally:
        cleanup(d)


def test_longjmp_leaves_no_stale_context_with_or_without_metrics():
    # libcheck's setjmp test longjmps out of two instrumented calls
    d = tmpdir()
    try:
        for metrics in (False, True):
            _, inst = _instrument(d, "libcheck", metrics=metrics)
            db, oracle = _record(d, inst, tag="m" if metrics else "c")
            r = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle, "--json"])
            j = json.loads(r.out)
            check(j["cct_count_error"] == 0 and j["contexts_equal"] == j["contexts_oracle"],
                  "after a longjmp the calls land in the context of setjmp's caller, as in the truth%s"
                  % (" (--metrics)" if metrics else ""), r)
    finally:
        cleanup(d)
