"""The board as a build parameter (firmware/build.mk, boards/): the monitor
is built for the board make is given and named after it, an unknown board
is refused by name, and what the hardware-model plugin knows of a board
(its interrupt register) comes from that board's files and agrees with the
firmware's board.h.
"""
import glob
import json
import os
import re
import subprocess

from harness import REPO, alphaprof, board_like, build_path, check, cleanup, require, tmpdir


def board_conf(path):
    out = {}
    for line in open(path):
        line = line.split("#", 1)[0]
        if "=" in line:
            key, value = line.split("=", 1)
            out[key.strip()] = value.strip()
    return out


def board_h_values(board_h, names):
    """The values of board.h's constants, as the C compiler computes them."""
    d = tmpdir()
    try:
        src = os.path.join(d, "values.c")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\n#include "board.h"\nint main(void)\n{\n')
            for n in names:
                f.write('    printf("%%s %%llu\\n", "%s", (unsigned long long)(%s));\n' % (n, n))
            f.write("    return 0;\n}\n")
        exe = os.path.join(d, "values")
        subprocess.run(["gcc", "-std=c11", "-I", os.path.dirname(board_h), "-o", exe, src], check=True)
        out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
        return {k: int(v) for k, v in (line.split() for line in out.splitlines())}
    finally:
        cleanup(d)


def test_the_plugins_interrupt_register_is_the_firmware_boards():
    boards = 0
    for conf_path in sorted(glob.glob(os.path.join(REPO, "boards", "*", "board.conf"))):
        conf = board_conf(conf_path)
        if not conf.get("plugin"):
            continue
        args = dict(a.split("=", 1) for a in conf.get("plugin_args", "").split(",") if "=" in a)
        check("ipi_reg" in args and "ipi_shift" in args,
              "%s: plugin_args give the interrupt register (ipi_reg, ipi_shift)" % conf_path)
        m = re.search(r"monitor-([\w-]+)\.elf$", conf["firmware"])
        check(m, "%s: the firmware is a monitor named after its board" % conf_path)
        board_h = os.path.join(REPO, "boards", m.group(1), "board.h")
        check(os.path.exists(board_h), "%s: its firmware board has a board.h" % conf_path)
        v = board_h_values(board_h, ["BOARD_CCHIP_MISC_PHYS", "BOARD_IPI_SHIFT"])
        check(int(args["ipi_reg"], 0) == v["BOARD_CCHIP_MISC_PHYS"],
              "%s: ipi_reg %s is board.h's BOARD_CCHIP_MISC_PHYS 0x%x"
              % (conf_path, args["ipi_reg"], v["BOARD_CCHIP_MISC_PHYS"]))
        check(int(args["ipi_shift"], 0) == v["BOARD_IPI_SHIFT"],
              "%s: ipi_shift is board.h's BOARD_IPI_SHIFT" % conf_path)
        boards += 1
    check(boards >= 1, "at least one board with the hardware model (clipper-pm)")


def test_without_the_boards_interrupt_register_the_model_raises_none_and_the_firmware_polls():
    """The plugin has no interrupt register of its own: a board file that
    gives none gets no performance interrupts, and the firmware's 1 ms tick
    still drains every ring (clipper-pm raises them:
    test_hwmodel's test_performance_interrupts_deliver_full_rings)."""
    d = tmpdir()
    try:
        env = board_like(d, "no-ipi", "clipper-pm", {"plugin_args": lambda v: "mode=full"})
        db, oracle = os.path.join(d, "p.db"), os.path.join(d, "o.bin")
        img = require(build_path("workloads", "drystone.elf"))     # (any workload; a short one)
        r = alphaprof(["record", "--deterministic", "--board", "no-ipi", "--events", "cycles:1000-1100",
                       "--db", db, "--oracle", oracle, img], env=env, timeout=200)
        check(r.status == 0, "record on a board without the interrupt register", r)
        c = alphaprof(["check", "--db", db, "--oracle", oracle, "--json"])
        check(c.status == 0, "check runs", c)
        j = json.loads(c.out)
        check(j["interrupts"] == 0, "no performance interrupts (%d)" % j["interrupts"], c)
        check(j["model_overflows"] > 1000, "the counters sampled (%d)" % j["model_overflows"], c)
    finally:
        cleanup(d)


def test_make_refuses_an_unknown_board_naming_the_known_ones():
    p = subprocess.run(["make", "-n", "BOARD=no-such-board", "all"], cwd=REPO, capture_output=True,
                       text=True)
    check(p.returncode != 0, "make BOARD=no-such-board fails: %s" % p.stderr)
    check("BOARD=no-such-board" in p.stderr and "clipper" in p.stderr,
          "the message names the board and the known ones: %s" % p.stderr)


def test_make_builds_and_names_the_monitor_for_the_board_it_is_given():
    """A board of our own outside the tree (BOARD_ROOT): clipper's devices
    under another name.  Its monitor boots, and the profile's loadmap names
    the monitor after the board."""
    d = tmpdir()
    try:
        root = os.path.join(d, "boards")
        os.makedirs(os.path.join(root, "e2e-board"))
        text = open(os.path.join(REPO, "boards", "clipper", "board.h")).read()
        text = text.replace('#define BOARD_NAME              "clipper"', '#define BOARD_NAME "e2e-board"')
        check('"e2e-board"' in text, "the copy is renamed")
        with open(os.path.join(root, "e2e-board", "board.h"), "w") as f:
            f.write(text)
        build = os.path.join(d, "build")
        os.makedirs(build)
        os.symlink(build_path("newlib"), os.path.join(build, "newlib"))
        elf = os.path.join(build, "firmware", "monitor-e2e-board.elf")
        p = subprocess.run(["make", "-j2", "BUILD=" + build, "BOARD_ROOT=" + root, "BOARD=e2e-board", elf],
                           cwd=REPO, capture_output=True, text=True, timeout=200)
        check(p.returncode == 0 and os.path.exists(elf), "the monitor builds for BOARD=e2e-board:\n"
              + p.stderr[-2000:])
        env = board_like(os.path.join(d, "home"), "e2e-board", "clipper", {"firmware": lambda v: elf})
        db = os.path.join(d, "p.db")
        img = require(build_path("workloads", "hello.elf"))
        r = alphaprof(["record", "--board", "e2e-board", "--db", db, img, "--", "spin", "20"],
                      env=env, timeout=120)
        check(r.status == 0, "record on the new board", r)
        dump = alphaprof(["db", "--db", db, "dump", "--table", "images"])
        check("monitor-e2e-board" in dump.out, "the loadmap names the monitor after its board", dump)
    finally:
        cleanup(d)
