"""Helpers for the end-to-end tests: run build/host/alphaprof with a timeout
and capture what it printed, make small Alpha ELF images, find build outputs.

Tests are plain functions that raise AssertionError on failure; tests/run.py
runs each in its own process with a time limit.
"""
import os
import shutil
import struct
import subprocess
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(REPO, os.environ.get("ALPHAPROF_BUILD", "build"))

# Layout of struct image_header (linker/image-header.h), for poking at files.
HEADER_FMT = "<QIIQQQQQIIII32s20s20s"
HEADER_SIZE = struct.calcsize(HEADER_FMT)
IMAGE_MAGIC = 0x474D49464F525041
assert HEADER_SIZE == 144


class Result:
    def __init__(self, args, status, out, err):
        self.args, self.status, self.out, self.err = args, status, out, err

    def lines(self):
        return self.out.splitlines()

    def monitor_lines(self, prefix=""):
        return [l for l in self.lines() if l.startswith("monitor: " + prefix)]

    def __str__(self):
        return ("command: %s\nexit status: %s\n--- stdout ---\n%s--- stderr ---\n%s"
                % (" ".join(self.args), self.status, self.out, self.err))


def build_path(*parts):
    return os.path.join(BUILD, *parts)


def require(path, what="it"):
    """A built file the test needs: missing means the build is broken."""
    if not os.path.exists(path):
        raise AssertionError("%s is missing: build %s with make (make test builds everything first)"
                             % (path, what))
    return path


# Sanitizer settings for the ASan+UBSan builds (build/host-asan/): any
# report stops the program, and sanitized() fails the test on it.
SANITIZER_ENV = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
                 "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
SANITIZER_REPORT = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def alphaprof(args, input=None, timeout=60, env=None, sanitized=False):
    """Runs build/host/alphaprof ARGS; a run that outlives timeout fails.
    sanitized: the ASan+UBSan build instead, failing on any report."""
    exe = require(build_path("host-asan" if sanitized else "host", "alphaprof"), "the launcher")
    full_env = dict(os.environ)
    if sanitized:
        full_env.update(SANITIZER_ENV)
    if env:
        full_env.update(env)
    cmd = [exe] + list(args)
    try:
        p = subprocess.run(cmd, input=input if input is not None else "", capture_output=True,
                           text=True, timeout=timeout, env=full_env, cwd=REPO,
                           errors="replace")
    except subprocess.TimeoutExpired as e:
        raise AssertionError("alphaprof %s did not finish within %s s\n%s" %
                             (" ".join(args), timeout, e.stdout or ""))
    r = Result(cmd, p.returncode, p.stdout, p.stderr)
    if sanitized and any(m in r.err for m in SANITIZER_REPORT):
        raise AssertionError("a sanitizer report from the ASan+UBSan build\n%s" % r)
    return r


def run_image(image, *opts, args=None, input=None, timeout_s=60):
    """alphaprof run with a launcher timeout a bit below the harness one."""
    argv = ["run", "--timeout", str(timeout_s)] + list(opts) + [image]
    if args:
        argv += ["--"] + list(args)
    return alphaprof(argv, input=input, timeout=timeout_s + 20)


def check(cond, message, result=None):
    if not cond:
        raise AssertionError(message + ("\n" + str(result) if result is not None else ""))


def tmpdir():
    d = tempfile.mkdtemp(prefix="platform-e2e-")
    return d


def cleanup(d):
    shutil.rmtree(d, ignore_errors=True)


def make_image(path, base=0x1000000, text=None, build_id=True, magic=IMAGE_MAGIC):
    """Writes a minimal unsealed workload image: an Alpha ELF with a header
    section and some text in one PT_LOAD, plus a GNU build-id note."""
    text = text if text is not None else bytes((i * 13 + 5) & 0xFF for i in range(64))
    load_size = HEADER_SIZE + len(text)
    header = struct.pack(HEADER_FMT, magic, 1, HEADER_SIZE, base, load_size,
                         base + load_size + 0x1000, base + HEADER_SIZE, 0,
                         0, 0, 0, 0, b"", b"", b"")
    note = struct.pack("<III4s", 4, 20, 3, b"GNU\0") + bytes(range(0x30, 0x44))
    shstr = b"\0.image_header\0.text\0.note.gnu.build-id\0.shstrtab\0"
    seg_off = 0x200
    note_off = seg_off + load_size
    str_off = note_off + len(note)
    sh_off = (str_off + len(shstr) + 7) & ~7

    def shdr(name, typ, flags, addr, off, size, align):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size, 0, 0, align, 0)

    sections = [shdr(0, 0, 0, 0, 0, 0, 0),
                shdr(1, 1, 3, base, seg_off, HEADER_SIZE, 8),                        # .image_header WA
                shdr(15, 1, 6, base + HEADER_SIZE, seg_off + HEADER_SIZE, len(text), 8)]  # .text AX
    if build_id:
        sections.append(shdr(21, 7, 0, 0, note_off, len(note), 4))
    sections.append(shdr(40, 3, 0, 0, str_off, len(shstr), 1))
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    ehdr = ident + struct.pack("<HHIQQQIHHHHHH", 2, 0x9026, 1, base + HEADER_SIZE, 64, sh_off,
                               0, 64, 56, 1, 64, len(sections), len(sections) - 1)
    phdr = struct.pack("<IIQQQQQQ", 1, 7, seg_off, base, base, load_size, load_size + 0x1000, 8)
    data = bytearray(sh_off + 64 * len(sections))
    data[0:64] = ehdr
    data[64:64 + 56] = phdr
    data[seg_off:seg_off + HEADER_SIZE] = header
    data[seg_off + HEADER_SIZE:seg_off + load_size] = text
    data[note_off:note_off + len(note)] = note
    data[str_off:str_off + len(shstr)] = shstr
    data[sh_off:] = b"".join(sections)
    with open(path, "wb") as f:
        f.write(data)
    return path


def seal(path, *extra):
    exe = require(build_path("host", "alphaprof-seal"), "the sealing tool")
    p = subprocess.run([exe] + list(extra) + [path], capture_output=True, text=True, timeout=30)
    return Result([exe, path], p.returncode, p.stdout, p.stderr)


def elf_sections(path):
    """{name: (addr, offset, size)} of an ELF64 little-endian file."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stroff = heads[shstrndx][4]
    out = {}
    for h in heads:
        end = data.index(b"\0", stroff + h[0])
        out[data[stroff + h[0]:end].decode()] = (h[3], h[4], h[5])
    return out


def flip_byte(path, offset, mask=0x01):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([b ^ mask]))


def board_like(home, name, base, changes=None):
    """Writes HOME/boards/NAME/board.conf (HOME to be ALPHAPROF_HOME): the
    repository's boards/BASE/board.conf with its paths made absolute and
    the keys in changes ({key: function(old value) -> new value}) changed."""
    changes = changes or {}
    out = []
    for line in open(os.path.join(REPO, "boards", base, "board.conf")).read().splitlines():
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip()
        setting = key and not line.lstrip().startswith("#")
        if key in ("firmware", "plugin") and value and not value.startswith("/"):
            value = os.path.join(REPO, value)
            line = "%s = %s" % (key, value)
        if setting and key in changes:
            line = "%s = %s" % (key, changes[key](value))
        out.append(line)
    os.makedirs(os.path.join(home, "boards", name), exist_ok=True)
    with open(os.path.join(home, "boards", name, "board.conf"), "w") as f:
        f.write("\n".join(out) + "\n")
    return {"ALPHAPROF_HOME": home}


def npm_package(name, version):
    """An npm package's files, installed once with npm into build/npm (a
    project-local cache; set-up installs npm): the path of its directory."""
    prefix = os.path.join(BUILD, "npm")
    path = os.path.join(prefix, "node_modules", name)
    try:
        with open(os.path.join(path, "package.json")) as f:
            import json
            if json.load(f).get("version") == version:
                return path
    except (OSError, ValueError):
        pass
    npm = shutil.which("npm")
    if npm is None:
        raise AssertionError("npm is missing: run make setup (setup/packages.txt installs Debian's npm)")
    os.makedirs(prefix, exist_ok=True)
    p = subprocess.run([npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", "--no-save",
                        "%s@%s" % (name, version)], capture_output=True, text=True, timeout=600)
    if p.returncode != 0 or not os.path.isdir(path):
        raise AssertionError("npm install %s@%s into %s failed:\n%s%s" % (name, version, prefix, p.stdout, p.stderr))
    return path


def oracle_executions(path):
    """{pc: retired} from an oracle file (hw-model/oracle-format.h)."""
    data = open(path, "rb").read()
    magic, version, ncores, npcs, nevents, snapshot, run_id, ncauses, unit = struct.unpack_from("<QIIQIIQII", data)
    check(magic == 0x4c43524f666f7270, "%s is an oracle file" % path)
    header = struct.calcsize("<QIIQIIQII")
    core = 8 * (2 + nevents + 9 + ncauses)     # struct oracle_core: 11 counters, events[], stack[]
    body = len(data) - header - ncores * core
    check(npcs > 0 and body % npcs == 0, "oracle %s: %d PCs in %d bytes" % (path, npcs, body))
    entry = body // npcs
    base = header + ncores * core
    out = {}
    for i in range(npcs):
        pc, executions = struct.unpack_from("<QQ", data, base + i * entry)
        if executions:
            out[pc] = executions
    return out
