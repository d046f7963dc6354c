"""End-to-end: a stack that grows without end is stopped at its own guard
pages with a FATAL line that says "stack overflow" and names the core,
before it reaches another core's stack or the heap (the overflow workload
recurses with 1 KiB frames)."""
import re

from harness import build_path, check, require, run_image

STACK_LINE = re.compile(r"^monitor: FATAL stack overflow on core (\d) in overflow: pc=0x[0-9a-f]+ "
                        r"va=0x([0-9a-f]+) sp=0x[0-9a-f]+: the user stack of core (\d) outgrew its 4032 KiB",
                        re.M)


def test_endless_recursion_stops_at_the_user_stack_guard_with_stack_overflow():
    r = run_image(require(build_path("workloads", "overflow.elf")), timeout_s=60)
    check(r.status != 0, "the run fails", r)
    m = STACK_LINE.search(r.out)
    check(m, "one FATAL line says stack overflow", r)
    va = int(m.group(2), 16)
    check(m.group(1) == m.group(3) == "0", "core 0's own stack", r)
    check(0x0f000000 <= va < 0x0f010000, "the fault is in core 0's guard pages, not the heap below", r)
    check("translation not valid" not in r.out, "not a bare translation fault", r)


def test_every_core_has_its_own_user_stack_guard():
    r = run_image(require(build_path("workloads", "overflow.elf")), "--cores", "4", args=["all"], timeout_s=60)
    check(r.status != 0, "the run fails", r)
    m = STACK_LINE.search(r.out)
    check(m, "a FATAL stack overflow line", r)
    core, va = int(m.group(1)), int(m.group(2), 16)
    base = 0x0f000000 + core * 0x400000
    check(base <= va < base + 0x10000, "core %d faulted in its own guard pages (va %#x)" % (core, va), r)


MONITOR_STACK_LINE = re.compile(r"^monitor: FATAL stack overflow on core (\d) in the monitor: pc=0x[0-9a-f]+ "
                                r"sp=0x([0-9a-f]+): the monitor's stack of core (\d) \(0x([0-9a-f]+)\.\.0x[0-9a-f]+\) "
                                r"overflowed into its guard zone", re.M)
FW_STACK_GUARD = 0x2000     # linker/ram-map.h


def monitor_stack_probe(cores):
    """stack_probe=1 grows the last core's monitor stack one frame per
    interrupt; the guard zone must stop it on that core, inside the zone."""
    r = run_image(require(build_path("workloads", "hello.elf")), "--cores", str(cores),
                  "--append", "stack_probe=1", args=["spin", "3000"], timeout_s=90)
    check(r.status != 0, "the run fails", r)
    check("nothing stopped it" not in r.out, "the guard stopped the probe", r)
    m = MONITOR_STACK_LINE.search(r.out)
    check(m, "one FATAL line says stack overflow in the monitor", r)
    core, sp, zone = int(m.group(1)), int(m.group(2), 16), int(m.group(4), 16)
    check(core == int(m.group(3)) == cores - 1, "the last core's own monitor stack (core %d)" % core, r)
    check(zone <= sp < zone + FW_STACK_GUARD, "caught inside its guard zone (sp %#x, zone at %#x)" % (sp, zone), r)


def test_the_boot_cores_monitor_stack_overflow_is_stopped_by_its_guard_zone():
    monitor_stack_probe(1)


def test_a_secondary_cores_monitor_stack_overflow_is_stopped_by_its_guard_zone():
    monitor_stack_probe(2)
    monitor_stack_probe(4)
