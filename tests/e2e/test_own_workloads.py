"""End-to-end: bring your own benchmark.  A workload directory carries its
own settings in workload.mk (source directories or a file list, include
directories, defines and flags); listmark is shaped like a benchmark
brought in from elsewhere (kernels in core/, a port layer per platform,
its own -D settings, pointers kept in 32-bit integers) and its result is
checked against a reference computed here; pmutime times itself through
the user-readable PMU page (alphaprof/pmu.h) and checks exact counts;
images of removed workloads leave build/.
"""
import json
import os
import re
import shutil
import subprocess

from harness import BUILD, REPO, alphaprof, build_path, check, cleanup, require, run_image, tmpdir


def image(name):
    return require(build_path("workloads", name + ".elf"), "the %s workload" % name)


# ---- listmark's reference, from its definition (workloads/listmark/core) ----

def crc16_u8(crc, byte):
    for _ in range(8):
        crc = (crc >> 1) ^ 0xA001 if (crc ^ byte) & 1 else crc >> 1
        byte >>= 1
    return crc


def crc16_u16(crc, value):
    return crc16_u8(crc16_u8(crc, value & 0xff), value >> 8)


def list_kernel(seed):
    crc = 0
    for v in sorted((i * 7919 + seed * 31) & 0xffff for i in range(64)):
        crc = crc16_u16(crc, v)
    return crc


def matrix_kernel(seed):
    a = [[((i * 8 + j + seed) & 0xff) - 128 for j in range(8)] for i in range(8)]
    b = [[((i ^ j) + seed * 3) & 0x7f for j in range(8)] for i in range(8)]
    crc = 0
    for i in range(8):
        for j in range(8):
            crc = crc16_u16(crc, sum(a[i][k] * b[k][j] for k in range(8)) & 0xffff)
    return crc


def listmark_crc(iterations, seed):
    crc = 0
    for it in range(iterations):
        crc = crc16_u16(crc, list_kernel(seed + it))
        crc = crc16_u16(crc, matrix_kernel(seed + it))
    return crc


def listing(r, key):
    m = re.search(r"^listmark: %s (.*)$" % key, r.out, re.M)
    check(m, "listmark prints its %s line" % key, r)
    return m.group(1)


def test_brought_in_benchmark_builds_from_its_workload_mk_and_matches_its_reference():
    r = run_image(image("listmark"), timeout_s=120)
    check(r.status == 0, "listmark exits 0", r)
    check(listing(r, "flags") == "-O2 -DITERATIONS=40 -DSEED=7", "its FLAGS_STR define arrived whole", r)
    check(listing(r, "iterations") == "40 seed 7", "its -DITERATIONS and -DSEED arrived", r)
    check(int(listing(r, "crc"), 16) == listmark_crc(40, 7),
          "listmark's CRC is the reference's %#06x" % listmark_crc(40, 7), r)
    handle = int(listing(r, "pool handle"), 16)
    check(0x08000000 <= handle < 0x0f000000, "a heap pointer kept in 32 bits points into the image heap", r)
    check(re.search(r"^listmark: \d+ ns$", r.out, re.M), "without the hardware model its port layer counts virtual ns", r)


def test_brought_in_benchmark_times_itself_in_model_cycles():
    d = tmpdir()
    try:
        oracle = os.path.join(d, "o.bin")
        r = run_image(image("listmark"), "--board", "clipper-pm", "--deterministic", "--oracle", oracle,
                      timeout_s=200)
        check(r.status == 0, "listmark exits 0 on clipper-pm", r)
        check(int(listing(r, "crc"), 16) == listmark_crc(40, 7), "the same result under the model", r)
        m = re.search(r"^listmark: (\d+) cycles$", r.out, re.M)
        check(m, "its port layer reads the model's cycle counter", r)
        t = alphaprof(["check", "--oracle", oracle, "--totals", "--json", "--whole-run"])
        check(t.status == 0, "the oracle's totals", t)
        total = json.loads(t.out)["cycles"]
        check(0 < int(m.group(1)) < total, "the timed part (%s cycles) is part of the run (%d)" % (m.group(1), total))
    finally:
        cleanup(d)


def test_pmu_page_gives_a_workload_exact_retired_and_load_counts():
    d = tmpdir()
    try:
        r = alphaprof(["record", "--deterministic", "--events", "loads:1000-1100,cycles", "--db",
                       os.path.join(d, "p.db"), image("pmutime")], timeout=120)
        check(r.status == 0, "pmutime's numbers are exact", r)
        check("pmutime: retired 3004 (expected 3004)" in r.lines(), "retired counted exactly", r)
        check("pmutime: loads 1001 on counter 0 (expected 1001)" in r.lines(),
              "the counter the profiler set to loads counts exactly", r)
        check(re.search(r"^pmutime: cycles \d+ for 1000 iterations$", r.out, re.M), "cycles read", r)
    finally:
        cleanup(d)


def test_pmu_page_without_profiling_still_has_cycles_and_retired():
    r = run_image(image("pmutime"), "--board", "clipper-pm", timeout_s=120)
    check(r.status == 0 and "pmutime: ok" in r.lines(), "pmutime checks itself on the model's board", r)
    check("pmutime: no counter counts loads" in r.lines(), "no counter is on without the profiler", r)


def test_pmu_page_is_read_only_for_workloads():
    r = run_image(image("pmutime"), "--board", "clipper-pm", args=["write"], timeout_s=120)
    check(r.status != 0, "a store into the PMU page stops the run", r)
    check(re.search(r"FATAL entMM .* va=0x800010 .*access violation.*write", r.out), "named as a write fault", r)
    check("pmutime: the write went through" not in r.lines(), "the store never happened", r)


def test_pmu_page_open_says_no_model_on_the_plain_board():
    r = run_image(image("pmutime"), timeout_s=120)
    check(r.status == 0 and "pmutime: no hardware model on this board: nothing to read" in r.lines(),
          "alphaprof_pmu_open() is NULL without the model", r)


def make(*goals):
    return subprocess.run(["make", "--no-print-directory", "BUILD=" + BUILD] + list(goals), cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def test_workload_mk_settings_build_a_new_workload_and_its_image_goes_when_it_does():
    name = "zz-probe-%d" % os.getpid()
    src = os.path.join(REPO, "workloads", name)
    elf = build_path("workloads", name + ".elf")
    try:
        os.makedirs(os.path.join(src, "lib", "inc"))
        with open(os.path.join(src, "workload.mk"), "w") as f:
            f.write("WORKLOAD_SRCDIRS := . lib\nWORKLOAD_INCLUDES := lib/inc\n"
                    "WORKLOAD_CFLAGS := -DANSWER=42 -DGREETING='\"hello there\"'\n")
        with open(os.path.join(src, "main.c"), "w") as f:
            f.write('#include <stdio.h>\n#include "answer.h"\n'
                    'int main(void) { printf("probe: %s %d\\n", GREETING, answer()); return 0; }\n')
        with open(os.path.join(src, "lib", "inc", "answer.h"), "w") as f:
            f.write("int answer(void);\n")
        with open(os.path.join(src, "lib", "answer.c"), "w") as f:
            f.write('#include "answer.h"\nint answer(void) { return ANSWER; }\n')
        p = make(elf)
        check(p.returncode == 0, "the new workload builds:\n" + p.stdout + p.stderr)
        r = run_image(elf, timeout_s=60)
        check(r.status == 0 and "probe: hello there 42" in r.lines(), "its defines and its lib/ arrived", r)

        with open(os.path.join(src, "workload.mk"), "a") as f:
            f.write("WORKLOAD_SRCDIRS += nosuch\n")
        p = make(elf)
        check(p.returncode != 0 and "workloads/%s/workload.mk: directory nosuch is not in workloads/%s/"
              % (name, name) in p.stderr, "a missing directory is named:\n" + p.stderr)

        shutil.rmtree(src)
        p = make("workloads-prune")
        check(p.returncode == 0, "pruning runs:\n" + p.stdout + p.stderr)
        check(not os.path.exists(elf), "the removed workload's image left build/")
        check(not os.path.exists(build_path("workloads", name)), "and its objects")
    finally:
        shutil.rmtree(src, ignore_errors=True)
        if os.path.exists(elf):
            os.remove(elf)
        shutil.rmtree(build_path("workloads", name), ignore_errors=True)


# ---- drystone's reference, from its definition (workloads/drystone/src) ----

def drystone_expected(runs):
    """The values main.c prints, run by run as its loop computes them."""
    checksum, array_2_8_7 = 0, 10
    for _ in range(runs):
        a, b, c = 2, 3, 0
        bool_glob = 1                   # "...1'ST STRING" sorts before "...2'ND STRING"
        while a < b:
            c = b + a + 2               # proc_7
            a += 1
        loc = a + 5                     # proc_8
        array_1_8 = c if loc == 8 else None
        array_2_8_7 += 1 if loc == 8 else 0
        int_glob = 5
        e = 1                           # IDENT_2: func_1('A', 'C') is IDENT_1, never equal
        c = b * a
        b = c // a
        b = 7 * (c - b) - a
        checksum += a + b + c + int_glob + bool_glob + e
    return checksum, int_glob, array_1_8, array_2_8_7


def drystone_line(r, key):
    m = re.search(r"^drystone: %s (.*)$" % key, r.out, re.M)
    check(m, "drystone prints its %s line" % key, r)
    return m.group(1)


def test_dhrystone_shaped_benchmark_builds_from_its_workload_mk_and_matches_its_reference():
    r = run_image(image("drystone"), timeout_s=120)
    check(r.status == 0, "drystone exits 0", r)
    check(drystone_line(r, "compiler") == 'gcc -O2 "alpha"', "a -D string with spaces and quotes arrived whole", r)
    checksum, int_glob, a1, a2 = drystone_expected(20000)
    check(drystone_line(r, "runs") == "20000 checksum %d int_glob %d array_1[8] %d array_2[8][7] %d"
          % (checksum, int_glob, a1, a2), "its -DRUNS arrived and its results are the reference's", r)
    check(re.search(r"^drystone: \d+ ns for 20000 runs$", r.out, re.M), "its port layer times it in ns", r)


def test_dhrystone_shaped_benchmark_profiles_annotates_and_checks_against_the_oracle():
    d = tmpdir()
    try:
        db, oracle = os.path.join(d, "p.db"), os.path.join(d, "o.bin")
        r = alphaprof(["record", "--deterministic", "--db", db, "--oracle", oracle, image("drystone")], timeout=200)
        check(r.status == 0 and re.search(r"^drystone: \d+ cycles for 20000 runs$", r.out, re.M),
              "recorded, timed by its port layer in model cycles", r)
        rep = json.loads(alphaprof(["report", "--db", db, "--json"]).out)
        procs = {p["name"] for p in rep["procedures"]}
        check({"main", "proc_8", "strcmp"} <= procs, "procedures of both source files and the library: %s" % procs)
        a = alphaprof(["annotate", "--db", db, "proc_8"])
        check(a.status == 0 and "workloads/drystone/src/procs.c:" in a.out, "annotate finds the subdirectory's source", a)
        c = alphaprof(["check", "--db", db, "--oracle", oracle, "--json"])
        check(c.status == 0, "check runs", c)
        top = json.loads(c.out)["top_procedure"]
        check(top["profile"] == top["oracle"], "the profile's top procedure is the oracle's: %s" % top, c)
    finally:
        cleanup(d)
