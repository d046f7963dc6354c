"""End-to-end tests of the monitor itself: cores, timer, console input,
traps and bad images, each through a real QEMU boot.
"""
import re
import subprocess

from harness import build_path, check, require, run_image


def hello():
    return require(build_path("workloads", "hello.elf"), "the hello workload")


def trap():
    return require(build_path("workloads", "trap.elf"), "the trap workload")


def alarm_lines(r):
    """{core: (ticks, late, period_ns, elapsed_ns)} from report_ticks=1."""
    out = {}
    for l in r.lines():
        m = re.match(r"monitor: core (\d+) alarm (\d+) ticks (\d+) late period (\d+) ns over (\d+) ns", l)
        if m:
            out[int(m.group(1))] = tuple(int(x) for x in m.groups()[1:])
    return out


def test_alarm_tick_rate_is_exact_in_deterministic_mode():
    for hz, ms in ((1000, 40), (10000, 20)):
        r = run_image(hello(), "--deterministic", "--cores", "2", "--append", "tick_hz=%d" % hz,
                      "--append", "report_ticks=1", args=["spin", str(ms)])
        check(r.status == 0, "hello spin exits 0", r)
        alarms = alarm_lines(r)
        check(sorted(alarms) == [0, 1], "both cores report their alarm", r)
        for core, (ticks, late, period, elapsed) in alarms.items():
            check(period == 1000000000 // hz, "period matches tick_hz=%d" % hz, r)
            # Deadlines are absolute: every period that ended is one tick,
            # taken or (if its interrupt came after the next deadline) late.
            check(ticks + late == elapsed // period,
                  "core %d: %d ticks + %d late == %d periods" % (core, ticks, late, elapsed // period), r)
        ticks0, late0, period0, elapsed0 = alarms[0]
        check(late0 == 0, "the busy boot core takes every tick on time", r)
        check(elapsed0 >= ms * 1000000, "the run lasted the requested virtual time", r)


def test_uart_receive_interrupt():
    token = "rx-%d" % 271828
    r = run_image(hello(), "--cores", "2", args=["echo"], input=token + "\n")
    check(r.status == 0, "hello echo exits 0", r)
    check("hello: echo " + token in r.lines(), "the guest read the line through the RX interrupt", r)


def test_trap_kinds_are_reported():
    for kind, entry, cause in (("null", "entMM", r"va=0x10 mmcsr=0 \(translation not valid\)"),
                               ("divzero", "entIF", r"integer divide by zero"),
                               ("illegal", "entIF", r"illegal instruction")):
        r = run_image(trap(), args=[kind])
        check(r.status == 1, "trap %s exits 1" % kind, r)
        fatal = r.monitor_lines("FATAL")
        check(len(fatal) == 1 and fatal[0].startswith("monitor: FATAL %s on core 0 in trap: pc=0x" % entry)
              and re.search(cause, fatal[0]), "trap %s: one FATAL %s line with the cause" % (kind, entry), r)
        regs = [l for l in r.lines() if re.match(r"monitor:   r\d", l)]
        check(len(regs) == 8, "all 32 registers are dumped", r)
        check(not r.monitor_lines("trap exited"), "no exit is reported after a trap", r)


def test_trap_pc_is_the_faulting_load():
    r = run_image(trap(), args=["null"])
    pc = re.search(r"pc=0x([0-9a-f]+)", r.monitor_lines("FATAL")[0]).group(1)
    dis = subprocess.run(["alpha-linux-gnu-objdump", "-d", "--start-address=0x" + pc,
                          "--stop-address=0x%x" % (int(pc, 16) + 4), trap()],
                         capture_output=True, text=True).stdout
    check(re.search(r"\bldq\b", dis), "the FATAL pc is a load instruction:\n" + dis, r)


def test_unknown_boot_option_is_a_warning():
    # the host refuses it up front (test_launcher); --no-check lets it reach
    # the monitor, which must keep running
    r = run_image(hello(), "--no-check", "--append", "no_such_key=1")
    check(r.status == 0, "hello still runs", r)
    check("monitor: warning: unknown boot option 'no_such_key=1'; ignored" in r.lines(),
          "the monitor names the unknown option", r)


def test_run_names_the_image():
    r = run_image(hello(), "--append", "run=hello")
    check(r.status == 0 and "monitor: running hello on 1 cores" in r.lines(), "run=hello runs it", r)
    r = run_image(hello(), "--append", "run=nosuch")
    check(r.status == 1 and any("run=nosuch: no loaded image" in l for l in r.monitor_lines("FATAL")),
          "an unknown run= name is refused", r)
    check(not r.monitor_lines("running"), "nothing runs", r)
