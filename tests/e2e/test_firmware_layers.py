"""The firmware's layering rules (tests/firmware_layers.py), checked on the
real tree, and the checker itself checked on small trees that break them:
a checker that cannot fail proves nothing.
"""
import os
import sys

from harness import REPO, check, cleanup, tmpdir

sys.path.insert(0, os.path.join(REPO, "tests"))
import firmware_layers  # noqa: E402


def problems_of(files):
    """The layering problems of a small tree of {path: text}."""
    d = tmpdir()
    try:
        for path, text in files.items():
            full = os.path.join(d, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as f:
                f.write(text)
        return firmware_layers.problems(d)
    finally:
        cleanup(d)


def test_firmware_has_no_include_cycles_and_headers_declare_their_own_functions():
    found = firmware_layers.problems(REPO)
    check(not found, "firmware layering: " + "; ".join(found))


def test_layering_check_finds_a_cycle_through_three_modules():
    found = problems_of({
        "firmware/a/one.h": "void one(void);\n",
        "firmware/a/one.c": '#include "firmware/b/two.h"\nvoid one(void)\n{\n}\n',
        "firmware/b/two.h": "void two(void);\n",
        "firmware/b/two.c": '#include "firmware/c/three.h"\nvoid two(void) {}\n',
        "firmware/c/three.h": '#include "firmware/a/one.h"\n',
    })
    check(len(found) == 1 and "include cycle" in found[0], "one cycle reported: %r" % found)
    for m in ("firmware/a/one", "firmware/b/two", "firmware/c/three"):
        check(m in found[0], "the cycle names %s: %r" % (m, found))


def test_layering_check_finds_a_header_declaring_another_modules_function():
    found = problems_of({
        "firmware/p/control.h": "int control_tick(void);\nint profiler_pause(void);\n",
        "firmware/p/control.c": '#include "firmware/p/control.h"\nint control_tick(void)\n{\n    return 0;\n}\n',
        "firmware/p/profiler.c": '#include "firmware/p/control.h"\nint profiler_pause(void) { return 1; }\n',
    })
    check(len(found) == 1 and "profiler_pause" in found[0] and "control.h" in found[0],
          "the foreign declaration is reported: %r" % found)


def test_layering_check_accepts_a_layered_tree_and_board_h_on_the_include_path():
    found = problems_of({
        "boards/x/board.h": '#define BOARD_NAME "x"\n',
        "firmware/low/io.h": '#include "board.h"\nstatic inline int io(void) { return 0; }\n',
        "firmware/high/run.h": "void run(void) __attribute__((noreturn));\n",
        "firmware/high/run.c": '#include "firmware/high/run.h"\n#include "firmware/low/io.h"\n'
                               "void run(void)\n{\n    for (;;)\n        io();\n}\n",
    })
    check(found == [], "no problems in a layered tree: %r" % found)
