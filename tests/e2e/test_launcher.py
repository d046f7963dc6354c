"""End-to-end tests of `alphaprof run`: refusing bad input before QEMU starts
(no firmware needed), then real boots of the monitor with the test images.

The hello workload's contract used here: it prints a greeting and exits 0;
with arguments `exit N` it exits with status N; with `echo` it reads one line
from the console and prints it back.
"""
import os
import re
import shutil
import subprocess
import time

from harness import (HEADER_SIZE, alphaprof, build_path, check, cleanup, elf_sections,
                     flip_byte, make_image, require, run_image, seal, tmpdir)


def hello():
    return require(build_path("workloads", "hello.elf"), "the hello workload")


def firmware():
    return require(build_path("firmware", "monitor-clipper.elf"), "the monitor")


# --- no firmware needed -------------------------------------------------

def test_help_and_unknown_command():
    r = alphaprof(["--help"])
    check(r.status == 0 and "run" in r.out, "alphaprof --help lists the commands", r)
    r = alphaprof(["help", "run"])
    check(r.status == 0 and "--cores" in r.out, "alphaprof help run describes run", r)
    r = alphaprof(["frobnicate"])
    check(r.status != 0 and "'frobnicate' is not an alphaprof command" in r.err,
          "an unknown command is named", r)


def test_missing_image_file():
    r = alphaprof(["run", "build/workloads/no-such-image.elf"])
    check(r.status == 2, "missing image: status 2", r)
    check("no-such-image.elf: no such file" in r.err, "the message names the file", r)
    check("monitor:" not in r.out, "QEMU must not start", r)


def test_non_elf_file():
    d = tmpdir()
    try:
        p = os.path.join(d, "notes.elf")
        with open(p, "w") as f:
            f.write("this is not an image\n")
        r = alphaprof(["run", p])
        check(r.status == 2 and "notes.elf: not an ELF file" in r.err,
              "a text file is refused as not ELF", r)
    finally:
        cleanup(d)


def test_unsealed_and_corrupt_images_refused():
    d = tmpdir()
    try:
        p = make_image(os.path.join(d, "img.elf"))
        r = alphaprof(["run", p])
        check(r.status == 2 and "img.elf: not sealed" in r.err and "alphaprof-seal" in r.err,
              "an unsealed image is refused with how to seal it", r)
        s = seal(p)
        check(s.status == 0, "alphaprof-seal seals the synthetic image", s)
        s = seal(p, "--check")
        check(s.status == 0 and "ok" in s.out, "alphaprof-seal --check accepts it", s)
        text_off = elf_sections(p)[".text"][1]
        flip_byte(p, text_off + 3)
        r = alphaprof(["run", p])
        check(r.status == 2 and "payload checksum mismatch" in r.err,
              "a payload changed after sealing is refused", r)
        flip_byte(p, text_off + 3)
        flip_byte(p, elf_sections(p)[".image_header"][1] + HEADER_SIZE - 60)   # inside name
        r = alphaprof(["run", p])
        check(r.status == 2 and "header checksum mismatch" in r.err,
              "a header changed after sealing is refused", r)
        q = make_image(os.path.join(d, "other.elf"), magic=0x1234)
        r = alphaprof(["run", q])
        check(r.status == 2 and "bad magic" in r.err, "an ELF without the image magic is refused", r)
    finally:
        cleanup(d)


def test_missing_qemu_is_explained():
    d = tmpdir()
    try:
        img = make_image(os.path.join(d, "img.elf"))
        check(seal(img).status == 0, "seal the synthetic image")
        os.makedirs(os.path.join(d, "boards", "clipper"))
        with open(build_path("..", "boards", "clipper", "board.conf")) as f:
            conf = f.read()
        conf = re.sub(r"(?m)^qemu\s*=.*$", "qemu = qemu-system-alpha-not-installed", conf)
        conf = re.sub(r"(?m)^firmware\s*=.*$", "firmware = " + img, conf)
        with open(os.path.join(d, "boards", "clipper", "board.conf"), "w") as f:
            f.write(conf)
        r = alphaprof(["run", img], env={"ALPHAPROF_HOME": d})
        check(r.status == 127, "missing QEMU: status 127", r)
        check("qemu-system-alpha-not-installed not found; run make setup (installs qemu-system-misc)"
              in r.err, "missing QEMU: says what to do", r)
    finally:
        cleanup(d)


def test_bad_options():
    r = alphaprof(["run", "--cores", "9", "x.elf"])
    check(r.status == 2 and "at most" in r.err or "1..4" in r.err, "--cores beyond the board", r)
    r = alphaprof(["run", "--link", "tcp", "x.elf"])
    check(r.status == 2 and "unix or stdio" in r.err, "--link checked", r)
    r = alphaprof(["run", "--append", "noequals", "x.elf"])
    check(r.status == 2 and "KEY=VALUE" in r.err, "--append checked", r)
    r = alphaprof(["run"])
    check(r.status == 2 and "no workload image" in r.err, "no image given", r)


# --- with the monitor ---------------------------------------------------

def test_hello_runs():
    firmware()
    r = run_image(hello(), "--verbose")
    check(r.status == 0, "hello exits 0", r)
    check("monitor: hello exited with status 0" in r.lines(), "the monitor reports the exit", r)
    check("monitor: running hello on 1 cores" in r.lines() or
          any(l.startswith("monitor: running hello on 1 core") for l in r.lines()),
          "the monitor says it runs hello", r)
    check("-device loader,file=" in r.err and "-kernel" in r.err, "--verbose shows the QEMU command", r)
    ram = re.search(r"mem-path=(\S+)", r.err)
    sock = re.search(r"socket,id=link,\S*path=(\S+)", r.err)
    check(ram and sock, "--verbose shows the RAM file and the socket", r)
    check(not os.path.exists(ram.group(1)), "the RAM file is removed after the run", r)
    check(not os.path.exists(sock.group(1)), "the socket is removed after the run", r)


def test_exit_status_propagates():
    firmware()
    r = run_image(hello(), args=["exit", "3"])
    check(r.status == 3, "hello exit 3 gives status 3", r)
    check("monitor: hello exited with status 3" in r.lines(), "monitor line with status 3", r)
    r = run_image(hello(), args=["exit", "0"])
    check(r.status == 0, "hello exit 0 gives status 0", r)


def test_stdio_link():
    firmware()
    r = run_image(hello(), "--link", "stdio", args=["exit", "5"])
    check(r.status == 5 and "monitor: hello exited with status 5" in r.lines(),
          "the stdio link carries the console and the status", r)


def test_four_cores_online():
    firmware()
    r = run_image(hello(), "--cores", "4")
    check(r.status == 0, "hello on 4 cores exits 0", r)
    online = sorted(r.monitor_lines("core "))
    check(online == ["monitor: core %d online" % i for i in range(4)],
          "exactly cores 0..3 come online", r)


def test_stdin_reaches_guest():
    firmware()
    token = "ping-4711-pong"
    r = run_image(hello(), args=["echo"], input=token + "\n")
    check(r.status == 0, "hello echo exits 0", r)
    check(any(token in l and not l.startswith("monitor:") for l in r.lines()),
          "the line sent on stdin comes back from the guest", r)


def test_corrupt_image_refused_by_monitor():
    firmware()
    d = tmpdir()
    try:
        p = os.path.join(d, "hello.elf")
        shutil.copy(hello(), p)
        flip_byte(p, elf_sections(p)[".text"][1] + 16, 0x80)
        r = alphaprof(["run", p])
        check(r.status == 2 and "payload checksum mismatch" in r.err,
              "the launcher refuses it first", r)
        r = run_image(p, "--no-check")
        check(r.status == 1, "the monitor's refusal exits 1", r)
        fatal = r.monitor_lines("FATAL")
        check(any(re.search(r"image at 0x[0-9a-f]+ is corrupt", l) for l in fatal),
              "the monitor prints a FATAL corrupt-image line", r)
        check(not r.monitor_lines("running"), "the corrupt image does not run", r)
    finally:
        cleanup(d)


def test_trap_reports_fatal():
    firmware()
    trap = require(build_path("workloads", "trap.elf"), "the trap workload")
    r = run_image(trap)
    check(r.status != 0, "a trapping workload fails", r)
    fatal = r.monitor_lines("FATAL")
    check(fatal and re.search(r"pc=0x[0-9a-f]+", fatal[0]) and " in trap" in fatal[0],
          "FATAL line names the image and the faulting pc", r)
    check(not any("exited with status 0" in l for l in r.lines()), "no success reported", r)


def test_timeout_kills_qemu():
    firmware()
    # hello echo waits for a line that never comes (stdin ends without one):
    # the launcher must give up after --timeout, kill QEMU and say so.
    exe = require(build_path("host", "alphaprof"), "the launcher")
    start = time.monotonic()
    p = subprocess.Popen([exe, "run", "--timeout", "3", hello(), "--", "echo"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        out, err = p.communicate(timeout=40)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    elapsed = time.monotonic() - start
    check(p.returncode == 124, "status 124 on timeout, got %s\n%s%s" % (p.returncode, out, err))
    check("timed out after 3 s" in err, "the timeout is reported: " + err)
    check(len(err.splitlines()) == 1, "in one line, without QEMU's own 'terminating on signal': " + err)
    check(elapsed < 20, "the launcher stopped promptly (%.1f s)" % elapsed)
