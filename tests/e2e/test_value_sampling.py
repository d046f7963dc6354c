"""End-to-end: the value-sampling interpreter (firmware/profiler/value-interp.c)
against the board's own execution.  The valuediff workload builds the same
interpreter source, generates seeded random sequences over every
instruction of the table it runs, runs each natively and interpreted from
the same registers and memory, and compares registers and memory.
"""
import re

from harness import build_path, check, require, run_image

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
