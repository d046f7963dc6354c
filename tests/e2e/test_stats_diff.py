"""End-to-end: `alphaprof diff` and `alphaprof stats` on profiles the real
board recorded, and `check`/`diff` refusing truth that belongs to another
run or another build.

Deterministic runs of one workload repeat their samples exactly, so two of
them must show no change at all (every delta 0, nothing significant, every
range 0), while a run of another workload must show the change in full."""
import json
import os
import shutil

from harness import alphaprof, build_path, check, cleanup, elf_sections, flip_byte, require, seal, tmpdir


def record(db, image, *opts):
    r = alphaprof(["record", "--deterministic", "--db", db] + list(opts) + [image], timeout=240)
    check(r.status == 0, "record %s" % image, r)
    return r


def report_procs(db, epoch):
    j = json.loads(alphaprof(["report", "--db", db, "--epoch", str(epoch), "--json", "--limit", "0"]).out)
    return {(p["name"], p["image"]): p["samples"][0] for p in j["procedures"]}, j["events"][0]["total"]


def test_diff_and_stats_on_recorded_profiles():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        chase = require(build_path("workloads", "chase.elf"))
        qsort = require(build_path("workloads", "qsort.elf"))
        record(db, chase, "--period", "20000-24000")                 # epoch 1
        alphaprof(["db", "--db", db, "new-epoch"])
        record(db, chase, "--period", "20000-24000")                 # epoch 2: the same run again
        alphaprof(["db", "--db", db, "new-epoch"])
        record(db, qsort, "--period", "20000-24000")                 # epoch 3: another workload
        procs = {e: report_procs(db, e) for e in (1, 2, 3)}
        check(procs[1] == procs[2], "deterministic runs repeat every procedure's samples")

        # two identical runs: nothing changed, nothing significant
        r = alphaprof(["diff", "--db", db, "--epoch", "1", "--epoch", "2", "--json", "--limit", "0"])
        check(r.status == 0, "diff of epochs 1 and 2", r)
        j = json.loads(r.out)
        check(j["a"]["samples"] == procs[1][1] and j["b"]["samples"] == procs[2][1],
              "diff's totals are report's", r)
        check(j["rows"] and all(row["delta"] == 0 and not row["significant"] for row in j["rows"]),
              "no change between identical runs", r)
        check({(row["name"], row["image"]): row["a"] for row in j["rows"]} == procs[1][0],
              "diff's counts per procedure are report's", r)

        # chase against qsort: chase's time is gone, qsort's appears, both significant
        r = alphaprof(["diff", "--db", db, "--epoch", "1", "--epoch", "3", "--json", "--limit", "0"])
        j = json.loads(r.out)
        rows = {(row["name"], row["image"]): row for row in j["rows"]}
        check(abs(sum(row["share_a"] for row in j["rows"]) - 1) < 1e-9 and
              abs(sum(row["share_b"] for row in j["rows"]) - 1) < 1e-9, "each side's shares sum to 1", r)
        gone = rows[("chase", "chase")]
        check(gone["b"] == 0 and gone["delta"] < -0.5 and gone["significant"],
              "chase's procedure lost its time, significantly", r)
        top = j["rows"][0]
        check(abs(top["delta"]) == max(abs(row["delta"]) for row in j["rows"]),
              "largest change first", r)
        text = alphaprof(["diff", "--db", db, "--epoch", "1", "--epoch", "3"])
        check(text.status == 0 and "chase" in text.out and "yes" in text.out, "the text table", text)
        insn = alphaprof(["diff", "--db", db, "--epoch", "1", "--epoch", "2", "--insn", "--json", "--limit", "0"])
        ji = json.loads(insn.out)
        check(insn.status == 0 and ji["level"] == "instruction" and
              all(row["delta"] == 0 for row in ji["rows"]), "per instruction, same build: no change", insn)

        # stats over the three epochs: chase's procedure in two of three sets
        r = alphaprof(["stats", "--db", db, "--json", "--limit", "0"])
        check(r.status == 0, "stats over every epoch", r)
        s = json.loads(r.out)
        check([x["epoch"] for x in s["sets"]] == [1, 2, 3], "one set per epoch", r)
        c = [p for p in s["procedures"] if p["name"] == "chase" and p["image"] == "chase"][0]
        want = procs[1][0][("chase", "chase")]
        check(c["counts"] == [want, want, 0] and c["n"] == 2 and c["min"] == 0 and c["max"] == want
              and c["sum"] == 2 * want and abs(c["range"] - 0.5) < 1e-9,
              "chase's counts per set, range (max - min) / sum = 1/2: %s" % c, r)
        check(c["dispersion"] > 10, "the runs really differ (sd/sqrt(mean) %.1f)" % c["dispersion"], r)
        r = alphaprof(["stats", "--db", db, "--epoch", "1", "--epoch", "2", "--json", "--limit", "0"])
        s = json.loads(r.out)
        check(all(p["range"] == 0 and p["sd"] == 0 for p in s["procedures"]),
              "identical runs: every range 0", r)
        one = alphaprof(["stats", "--db", db, "--epoch", "1"])
        check(one.status == 1 and "two" in one.err, "one set is not enough: said so", one)
        twice = alphaprof(["stats", "--db", db, "--db", os.path.join(d, ".", "p.db")])
        check(twice.status == 1 and "same database" in twice.err and len(twice.err.strip().splitlines()) == 1,
              "one database given twice (spelled two ways) is refused: its epochs would count twice", twice)
    finally:
        cleanup(d)


def other_build(src, dst):
    """A copy of an image with another build-id (one bit of its GNU
    build-id note flipped), sealed again under the same name."""
    name = os.path.basename(src)[:-len(".elf")]
    shutil.copy(src, dst)
    _, off, _ = elf_sections(dst)[".note.gnu.build-id"]
    flip_byte(dst, off + 16)                     # past the note header: the id itself
    s = seal(dst, "--name", name)
    check(s.status == 0, "reseal the copy", s)
    return dst


def test_check_and_diff_refuse_truth_of_another_run_or_build():
    d = tmpdir()
    try:
        a_db, b_db = os.path.join(d, "a.db"), os.path.join(d, "b.db")
        o1, o2 = os.path.join(d, "o1"), os.path.join(d, "o2")
        image = os.path.join(d, "drystone.elf")     # (any image; a short one)
        shutil.copy(require(build_path("workloads", "drystone.elf")), image)
        os.makedirs(os.path.join(d, "rebuilt"))
        rebuilt = other_build(image, os.path.join(d, "rebuilt", "drystone.elf"))
        record(a_db, image, "--events", "cycles:20000-24000", "--oracle", o1)
        record(b_db, rebuilt, "--events", "cycles:20000-24000", "--oracle", o2)

        ok = alphaprof(["check", "--db", a_db, "--oracle", o1])
        check(ok.status == 0, "the run's own oracle is accepted", ok)
        bad = alphaprof(["check", "--db", a_db, "--oracle", o2])
        lines = bad.err.strip().splitlines()
        check(bad.status == 1 and len(lines) == 1 and o2 in lines[0] and "oracle of another run" in lines[0]
              and o1 in lines[0], "another run's oracle is refused in one line naming both", bad)

        # snapshots of another run beside the right oracle
        for n in (1, 2):
            shutil.copy("%s.%d" % (o2, n), "%s.%d" % (o1, n))
        bad = alphaprof(["check", "--db", a_db, "--oracle", o1])
        check(bad.status == 1 and "snapshot of another run" in bad.err and o1 + ".1" in bad.err,
              "another run's snapshots are refused", bad)
        ok = alphaprof(["check", "--db", a_db, "--oracle", o1, "--whole-run"])
        check(ok.status == 0, "--whole-run needs no snapshots", ok)

        # different builds of the image: instructions cannot be matched
        bad = alphaprof(["diff", "--db", a_db, "--db2", b_db, "--insn"])
        lines = bad.err.strip().splitlines()
        check(bad.status == 1 and len(lines) == 1 and "image drystone differs between A" in lines[0]
              and "build-id" in lines[0], "diff --insn refuses two builds", bad)
        procs = alphaprof(["diff", "--db", a_db, "--db2", b_db])
        check(procs.status == 0 and "Note: image drystone differs" in procs.out,
              "per procedure the builds are matched by name, with a note", procs)

        # the ELF a profile points at was rebuilt since: its symbols are not used
        shutil.copy(rebuilt, image)
        rep = alphaprof(["report", "--db", a_db])
        check(rep.status == 0 and "rebuilt since" in rep.err and image in rep.err,
              "a rebuilt ELF is named, its symbols unused", rep)
    finally:
        cleanup(d)


def test_profileme_commands_name_a_rebuilt_elf_and_report_points_a_profileme_only_profile_at_pme():
    """A ProfileMe profile whose ELF was rebuilt since: pme, paths, annotate
    and topstalls each say which ELF and why, once, instead of showing bare
    addresses or saying to record with --paired; report and export, which
    read counter samples, say what the profile does hold."""
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        image = os.path.join(d, "drystone.elf")     # (any image; a short one)
        shutil.copy(require(build_path("workloads", "drystone.elf")), image)
        os.makedirs(os.path.join(d, "rebuilt"))
        rebuilt = other_build(image, os.path.join(d, "rebuilt", "drystone.elf"))
        oracle = os.path.join(d, "p.oracle")
        record(db, image, "--board", "clipper-pm", "--profileme", "--paired", "--oracle", oracle)
        ok = alphaprof(["pme", "--db", db])
        check(ok.status == 0 and "no symbols for drystone" not in ok.err and "proc_8" in ok.out,
              "the recorded build gives symbols and no warning", ok)
        shutil.copy(rebuilt, image)
        for cmd in (["pme"], ["pme", "--stacks"], ["paths"], ["annotate", "proc_8"], ["topstalls"]):
            r = alphaprof(cmd + ["--db", db])
            said = [l for l in r.err.splitlines() if "no symbols for drystone" in l]
            check(len(said) == 1 and "rebuilt since" in said[0] and image in said[0],
                  "%s names the rebuilt ELF once" % " ".join(cmd), r)
            check("record with --paired" not in r.err, "%s does not blame the recording" % " ".join(cmd), r)
        r = alphaprof(["check", "--pme", "--db", db, "--oracle", oracle])
        check(r.status == 1 and "no code for drystone, so no stack check" in r.err and image in r.err,
              "check --pme refuses to judge stacks with another build's code", r)
        for cmd in (["report"], ["export", "--format", "folded", "-o", os.path.join(d, "f.txt")]):
            r = alphaprof(cmd + ["--db", db])
            lines = r.err.strip().splitlines()
            check(r.status == 1 and len(lines) == 1 and "no counter samples" in lines[0]
                  and "ProfileMe samples (alphaprof pme)" in lines[0],
                  "%s points a ProfileMe-only profile at alphaprof pme" % cmd[0], r)
    finally:
        cleanup(d)


def _recorded_then_instrumented_again(d, mode, error_key):
    """calltree instrumented with mode (--paths or --cct), recorded with its
    oracle and checked exact (error_key 0), then the same file instrumented
    again with --metrics: (db, oracle, image)."""
    db, oracle = os.path.join(d, "p.db"), os.path.join(d, "p.oracle")
    orig = require(build_path("workloads", "calltree.elf"))
    inst = os.path.join(d, "calltree-instrumented.elf")
    r = alphaprof(["instrument", mode, orig, "-o", inst])
    check(r.status == 0, "instrument %s" % mode, r)
    r = alphaprof(["record", "--deterministic", "--board", "clipper-pm", "--oracle", oracle, "--db", db, inst,
                   "--", "4"], timeout=240)
    check(r.status == 0, "record the instrumented image", r)
    ok = alphaprof(["check", mode, "--db", db, "--oracle", oracle, "--json"])
    check(ok.status == 0 and json.loads(ok.out)[error_key] == 0, "the recorded image checks exact", ok)
    r = alphaprof(["instrument", mode, "--metrics", orig, "-o", inst])
    check(r.status == 0, "instrument the same file again, with metrics", r)
    return db, oracle, inst


def test_path_counts_of_an_image_instrumented_again_since_are_refused_not_put_on_other_paths():
    """A path-instrumented image numbers its paths in a table of its own;
    instrumenting again (here with --metrics) makes another table and
    another build-id, so `paths` and `check --paths` refuse the counts in
    one line naming the image, rather than read them with the new table."""
    d = tmpdir()
    try:
        db, oracle, inst = _recorded_then_instrumented_again(d, "--paths", "path_count_error")
        for cmd in (["paths", "--db", db], ["check", "--paths", "--db", db, "--oracle", oracle]):
            bad = alphaprof(cmd)
            lines = bad.err.strip().splitlines()
            check(bad.status == 1 and len(lines) == 1 and inst in lines[0] and "not the build the profile recorded"
                  in lines[0], "%s refuses the counts in one line naming the image" % cmd[0], bad)
    finally:
        cleanup(d)


def test_a_calling_context_tree_of_an_image_instrumented_again_since_is_not_checked_with_its_new_sites():
    """check --cct maps the trampolines' call PCs back to call sites with the
    image's site table; an image instrumented again since has other
    trampolines, so the check refuses in one line naming it, and `cct`
    says the symbols are not the recorded build's."""
    d = tmpdir()
    try:
        db, oracle, inst = _recorded_then_instrumented_again(d, "--cct", "cct_count_error")
        bad = alphaprof(["check", "--cct", "--db", db, "--oracle", oracle])
        lines = bad.err.strip().splitlines()
        check(bad.status == 1 and len(lines) == 1 and inst in lines[0] and "rebuilt since" in lines[0],
              "check --cct refuses in one line naming the image", bad)
        tree = alphaprof(["cct", "--db", db])
        check(any("no symbols for" in l and inst in l for l in tree.err.splitlines()),
              "cct says its symbols are not the recorded build's", tree)
    finally:
        cleanup(d)
