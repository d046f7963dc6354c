"""The host tools' ASan+UBSan build (build/host-asan/alphaprof) end to end:
a real recording on the board with the hardware model (ingest of every
frame type but pairs, the oracle's run id stored), then every analysis of
it, and bad input, each with zero sanitizer reports (harness.alphaprof
sanitized=True fails a test on any) and the same exit status and output as
the plain build."""
import json
import os
import shutil
import subprocess

from harness import alphaprof, build_path, check, cleanup, require, tmpdir

ANALYSES = [
    ["report"], ["report", "--json"], ["annotate", "proc_8"], ["annotate", "--json", "proc_8"],
    ["db", "epochs"], ["db", "dump", "--json"], ["pme"], ["pme", "--json"],
    ["export", "--format", "folded"], ["export", "--format", "callgrind"], ["export", "--format", "pprof"],
]


def test_record_and_every_analysis_under_asan_and_ubsan():
    d = tmpdir()
    try:
        db, db2, oracle = os.path.join(d, "p.db"), os.path.join(d, "q.db"), os.path.join(d, "o")
        image = require(build_path("workloads", "drystone.elf"))     # (7.6 M instructions: a short run)
        r = alphaprof(["record", "--deterministic", "--db", db, "--events", "cycles:4000-4400,dmiss",
                       "--oracle", oracle, image], timeout=240, sanitized=True)
        check(r.status == 0 and "samples" in r.err, "record under ASan+UBSan", r)
        r = alphaprof(["record", "--deterministic", "--db", db2, "--profileme", image], timeout=240,
                      sanitized=True)
        check(r.status == 0 and "ProfileMe samples" in r.err, "a ProfileMe record under ASan+UBSan", r)
        for args in ANALYSES:
            for base in (db, db2):
                if args[0] == "export":
                    out = os.path.join(d, "out." + args[-1])
                    args = args + ["--output", out]
                plain = alphaprof([args[0], "--db", base] + args[1:])
                asan = alphaprof([args[0], "--db", base] + args[1:], sanitized=True)
                check(asan.status == plain.status and asan.out == plain.out,
                      "%s: the same under ASan+UBSan as plain" % " ".join(args), asan)
        for args in (["check", "--db", db, "--oracle", oracle], ["check", "--db", db, "--oracle", oracle, "--json"],
                     ["check", "--db", db2, "--oracle", oracle],
                     ["diff", "--db", db, "--db2", db, "--json"], ["diff", "--db", db, "--db2", db, "--insn"],
                     ["stats", "--db", db, "--db", db, "--json"]):
            r = alphaprof(args, sanitized=True)
            check(r.status == alphaprof(args).status, "%s: the same status as plain" % " ".join(args), r)
        check(json.loads(alphaprof(["check", "--db", db, "--oracle", oracle, "--json"],
                                   sanitized=True).out)["samples"] > 0, "check's JSON under ASan")
    finally:
        cleanup(d)


def test_value_sampling_ingest_transform_and_its_readers_under_asan_and_ubsan():
    d = tmpdir()
    try:
        db = os.path.join(d, "v.db")
        valuemix = require(build_path("workloads", "valuemix.elf"))
        r = alphaprof(["record", "--deterministic", "--db", db, "--value-every", "1", "--value-transform", "accessors",
                       valuemix, "--", "300000"], timeout=240, sanitized=True)
        check(r.status == 0 and "samples" in r.err, "a value-sampling record with a transform under ASan+UBSan", r)
        for args in (["values"], ["values", "--kind", "all", "--json"], ["values", "--kind", "accessor"],
                     ["values", "--latency"], ["annotate", "mix_loop"], ["annotate", "--json", "mix_loop"]):
            plain = alphaprof([args[0], "--db", db] + args[1:])
            asan = alphaprof([args[0], "--db", db] + args[1:], sanitized=True)
            check(asan.status == plain.status == 0 and asan.out == plain.out,
                  "%s: the same under ASan+UBSan as plain" % " ".join(args), asan)
        out = os.path.join(d, "v.html")
        r = alphaprof(["html", "--db", db, "-o", out], sanitized=True)
        check(r.status == 0 and os.path.getsize(out) > 10000, "html with value tables under ASan+UBSan", r)
    finally:
        cleanup(d)


def test_bad_input_under_asan_and_ubsan():
    d = tmpdir()
    try:
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        junk = os.path.join(d, "junk")
        with open(junk, "wb") as f:
            f.write(b"\x7fELF" + bytes(200))
        db = os.path.join(d, "p.db")
        alphaprof(["db", "--db", db, "init"], sanitized=True)
        oracle = os.path.join(d, "o")
        r = alphaprof(["run", "--board", "clipper-pm", "--oracle", oracle,
                       require(build_path("workloads", "hello.elf"))], timeout=120, sanitized=True)
        check(r.status == 0 and os.path.getsize(oracle) > 64, "run with an oracle under ASan+UBSan", r)
        with open(oracle, "r+b") as f:           # its header now claims 2^28 PCs
            f.seek(16)                           # struct oracle_header: magic, version, ncores, npcs
            f.write((1 << 28).to_bytes(8, "little"))
        for args in (["run", fifo], ["run", junk], ["record", "--db", db, junk], ["report", "--db", fifo],
                     ["report", "--db", junk], ["annotate", "--db", db, "nosuch"],
                     ["check", "--db", db, "--oracle", oracle], ["check", "--db", db, "--oracle", fifo],
                     ["diff", "--db", db, "--epoch", "1", "--epoch", "2"], ["stats", "--db", db],
                     ["db", "--db", db, "dump", "nosuch"], ["export", "--db", db, "--format", "nosuch"]):
            r = alphaprof(args, timeout=30, sanitized=True)
            check(r.status not in (0, None) and r.err.strip(), "%s: refused with a message" % " ".join(args), r)
        r = alphaprof(["check", "--db", db, "--oracle", oracle], sanitized=True)
        check("damaged file" in r.err and "out of memory" not in r.err, "a damaged oracle is named", r)
        seal = require(build_path("host-asan", "alphaprof-seal"), "the sanitized sealing tool")
        copy = os.path.join(d, "hello.elf")
        shutil.copy(require(build_path("workloads", "hello.elf")), copy)
        env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="halt_on_error=1")
        for args in ([copy], ["--check", copy], [fifo], [junk]):
            p = subprocess.run([seal] + args, capture_output=True, text=True, timeout=30, env=env)
            check("Sanitizer" not in p.stderr and "runtime error" not in p.stderr,
                  "alphaprof-seal %s: no sanitizer report\n%s" % (" ".join(args), p.stderr))
    finally:
        cleanup(d)


def test_instrument_and_calling_context_trees_under_asan_and_ubsan():
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "calltree.elf"))
        inst, db, oracle = os.path.join(d, "c.elf"), os.path.join(d, "c.db"), os.path.join(d, "o")
        r = alphaprof(["instrument", "--cct", orig, "-o", inst], sanitized=True)
        check(r.status == 0, "instrument under ASan+UBSan", r)
        r = alphaprof(["record", "--board", "clipper-pm", "--db", db, "--oracle", oracle, inst, "--", "8"],
                      timeout=240, sanitized=True)
        check(r.status == 0, "record of an instrumented image (CCT frames) under ASan+UBSan", r)
        for args in (["cct"], ["cct", "--json"], ["check", "--cct", "--oracle", oracle, "--json"],
                     ["export", "--format", "folded"], ["export", "--format", "callgrind"]):
            plain = alphaprof([args[0], "--db", db] + args[1:])
            asan = alphaprof([args[0], "--db", db] + args[1:], sanitized=True)
            check(plain.status == 0 and asan.status == plain.status and asan.out == plain.out,
                  "%s: the same under ASan+UBSan as plain" % " ".join(args), asan)
        r = alphaprof(["instrument", "--cct", inst, "-o", os.path.join(d, "again.elf")], sanitized=True)
        check(r.status == 1, "an instrumented image is refused under ASan+UBSan too", r)
    finally:
        cleanup(d)
