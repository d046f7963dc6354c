"""End-to-end: a second, independent truth for the oracle.  The plugin
tests/plugins/insn-count.c shares no code with hw-model/: QEMU itself adds
one per executed instruction to its PC's counter (inline, no callback).  It
runs in the same QEMU as the hardware model, on every shipped workload, and
the oracle's retired count must equal it at every PC: unop and prefetches
(loads to $31/$f31) included, with the profiler's interrupts landing after
every kind of instruction.
"""
import glob
import os

from harness import alphaprof, board_like, build_path, check, cleanup, oracle_executions, require, tmpdir

# Workloads that end in a fault (trap and overflow exist for that).
FAULTING = {"trap", "overflow"}
# Arguments that keep a run short under the full model on a busy machine
# (sprawl runs for a time it is given: 100 ms of virtual time is still
# about 1200 rounds over its 65536 PCs; 300 ms took over 200 s at load 8
# on 2 cores, most of it the counter plugin and the link's samples).
ARGS = {"sprawl": ["100"]}


def counting_board(d, counts):
    """A board like clipper-pm whose QEMU also loads insn-count.so."""
    plugin = require(build_path("tests", "plugins", "insn-count.so"), "the counter plugin")
    return board_like(d, "counted", "clipper-pm",
                      {"qemu_args": lambda v: "%s -plugin %s,out=%s" % (v, plugin, counts)})


def counted(path):
    out = {}
    for line in open(path):
        pc, n = line.split()
        out[int(pc, 16)] = int(n)
    return out


def agree_on(workload, cores):
    d = tmpdir()
    try:
        counts, oracle = os.path.join(d, "counts.txt"), os.path.join(d, "oracle.bin")
        env = counting_board(d, counts)
        image = require(build_path("workloads", workload + ".elf"))
        # Profiling on: its interrupts land after every kind of instruction.
        r = alphaprof(["record", "--board", "counted", "--deterministic", "--cores", str(cores),
                       "--events", "cycles:1000-1100", "--db", os.path.join(d, "p.db"),
                       "--oracle", oracle, "--timeout", "200", image] + (["--"] + ARGS[workload] if workload in ARGS else []),
                      timeout=230, env=env)
        check(r.status == 0, "%s runs on the counted board" % workload, r)
        truth, model = counted(counts), oracle_executions(oracle)
        differ = sorted(pc for pc in set(truth) | set(model) if truth.get(pc, 0) != model.get(pc, 0))
        detail = "\n".join("  pc %#x: QEMU executed %d, oracle retired %d"
                           % (pc, truth.get(pc, 0), model.get(pc, 0)) for pc in differ[:15])
        check(not differ, "%s: %d of %d PCs differ between the independent counter and the oracle\n%s"
              % (workload, len(differ), len(truth), detail))
        check(sum(truth.values()) > 10000, "%s executed instructions were counted" % workload)
    finally:
        cleanup(d)


def test_independent_counter_equals_oracle_while_the_host_floods_the_console():
    """Each byte the host sends interrupts the vCPU from QEMU's main thread;
    one that lands between an abandoned device load (QEMU 7.2's I/O
    recompile) and its retry makes QEMU start the load afresh, so its exec
    callback fires twice for one execution.  The oracle once retired both
    (the console poll's ldbu, +6 and +12 in two runs); the load retires with
    its access (alphaprof-core.c, R2)."""
    d = tmpdir()
    try:
        counts, oracle = os.path.join(d, "counts.txt"), os.path.join(d, "oracle.bin")
        env = counting_board(d, counts)
        r = alphaprof(["run", "--board", "counted", "--deterministic", "--oracle", oracle, "--timeout", "200",
                       require(build_path("workloads", "chatter.elf")), "--", "3000"],
                      input="x" * 2000000, timeout=230, env=env)
        check(r.status == 0 and "chatter: line 2999 of 3000," in r.out, "chatter ran while flooded", r)
        truth, model = counted(counts), oracle_executions(oracle)
        differ = sorted(pc for pc in set(truth) | set(model) if truth.get(pc, 0) != model.get(pc, 0))
        check(not differ, "%d PCs differ: %s" % (len(differ), ", ".join(
            "%#x counter %d oracle %d" % (pc, truth.get(pc, 0), model.get(pc, 0)) for pc in differ[:10])))
        check(max(truth.values()) > 100000, "the monitor polled the UART over 100000 times")
    finally:
        cleanup(d)


def workloads():
    names = sorted(os.path.basename(p)[:-4] for p in glob.glob(build_path("workloads", "*.elf")))
    return [n for n in names if n not in FAULTING]


def _make(name, cores):
    def test():
        agree_on(name, cores)
    test.__name__ = "test_independent_counter_equals_oracle_at_every_pc_on_%s" % name
    return test


for _w in workloads():
    _t = _make(_w, 4 if _w == "parallel" else 1)
    globals()[_t.__name__] = _t
