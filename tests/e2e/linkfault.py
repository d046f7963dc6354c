#!/usr/bin/env python3
"""Fault injection for the profile link: a proxy between the board's profile
socket (`alphaprof run --profile-socket BOARD`) and whoever attaches to it
(`alphaprof daemon --link unix:PROXY`), and a daemon killer.

Design notes
 1. Each client connection to the proxy gets its own connection to the
    board's socket (QEMU serves one client at a time; a killed daemon's
    successor attaches again).  Both directions are relayed by one thread
    each: t2h (target -> host) and h2t (host -> target).
 2. The stream is cut at the 0x00 delimiters of link-protocol.h section 1;
    each chunk is COBS-decoded just far enough to learn its frame type, so
    a rule can name "the N-th SAMPLES frame in t2h".  Chunks are forwarded
    whole (0x00 chunk 0x00) once their closing delimiter arrived.
 3. Frame rules (--rule DIR:TYPE:N:ACTION, N counted from 1 per direction
    and type): drop, dup (sent twice), truncate (the first half only),
    flip (one bit in the middle), replay (sent again REPLAY_AFTER frames
    later), spoil (flip, and flip every later whole copy of that frame: the
    same type and seq; its PART pieces pass, link-protocol.h 5.7).  TYPE
    "any" counts every frame.  N may be "every" to act on each.
 4. Byte faults at a rate per byte (--t2h-flip R, --h2t-drop R, ...): flip
    one bit, drop, duplicate.  One seeded generator per direction (--seed),
    so a run's damage pattern repeats.
 5. Every action is logged as one line "DIR ACTION TYPE N" on stdout (or
    --log FILE), so tests can tell what was done.

Use:  python3 tests/e2e/linkfault.py --listen PROXY.sock --connect BOARD.sock \
          [--seed S] [--t2h-flip R] [--rule t2h:HELLO:1:drop ...]
The tests import it and run LinkProxy in-process (start()/stop()).
"""
import argparse
import os
import random
import signal
import socket
import sys
import threading
import time

# link-protocol.h frame types (LK_T_*)
FRAME_TYPES = {
    "HELLO": 0x01, "NAMES": 0x02, "LOADMAP": 0x03, "SAMPLES": 0x04, "PME_AGG": 0x05,
    "PAIRS": 0x06, "FLUSH": 0x07, "EPOCH": 0x08, "END": 0x09, "CONSOLE": 0x0a, "ACK": 0x0b, "VALUES": 0x0c,
    "VALUE_STATS": 0x0d, "PART": 0x0e, "CCT": 0x0f, "PATHS": 0x10,
    "START": 0x40, "STOP": 0x41, "CONFIG": 0x42, "NEW_EPOCH": 0x43, "FLUSH_NOW": 0x44,
    "LINK_ACK": 0x45,
}
TYPE_NAMES = {v: k for k, v in FRAME_TYPES.items()}
ACTIONS = ("drop", "dup", "truncate", "flip", "replay", "spoil")
DIRECTIONS = ("t2h", "h2t")
REPLAY_AFTER = 20


def cobs_first_byte(chunk):
    """The first byte of the COBS-decoded chunk (its frame type), or None."""
    if len(chunk) < 2:
        return None
    code = chunk[0]
    if code == 1:
        return 0            # a zero byte first
    return chunk[1]


def cobs_decode(chunk):
    """The raw frame of a COBS chunk (link-protocol.h section 1), or None."""
    out, i = bytearray(), 0
    while i < len(chunk):
        code = chunk[i]
        if code == 0 or i + code > len(chunk):
            return None
        out += chunk[i + 1:i + code]
        i += code
        if code < 0xff and i < len(chunk):
            out.append(0)
    return bytes(out)


def frame_id(chunk):
    """(type, seq) of a chunk's frame, or None."""
    raw = cobs_decode(chunk)
    if raw is None or len(raw) < 4:
        return None
    return raw[0], raw[2] | raw[3] << 8


class Rule:
    def __init__(self, text):
        parts = text.split(":")
        if len(parts) != 4:
            raise ValueError("rule %r: give DIR:TYPE:N:ACTION, e.g. t2h:HELLO:1:drop" % text)
        self.direction, tname, n, self.action = parts
        if self.direction not in DIRECTIONS:
            raise ValueError("rule %r: direction is t2h or h2t" % text)
        if tname != "any" and tname not in FRAME_TYPES:
            raise ValueError("rule %r: no frame type %s (%s)" % (text, tname, ", ".join(FRAME_TYPES)))
        self.type = None if tname == "any" else FRAME_TYPES[tname]
        self.tname = tname
        self.every = n == "every"
        self.n = 0 if self.every else int(n)
        if self.action not in ACTIONS:
            raise ValueError("rule %r: action is one of %s" % (text, ", ".join(ACTIONS)))

    def matches(self, ftype, nth):
        return (self.type is None or self.type == ftype) and (self.every or nth == self.n)


class Direction:
    """One direction's state: counters per type, its generator, pending replays."""

    def __init__(self, name, seed, rates, rules, log):
        self.name = name
        self.rng = random.Random("%s-%s" % (seed, name))
        self.flip, self.drop, self.dup = rates
        self.rules = [r for r in rules if r.direction == name]
        self.log = log
        self.counts = {}
        self.any_count = 0
        self.buf = bytearray()
        self.replays = []       # (frames left, chunk)
        self.spoiled = set()    # (type, seq) of frames spoiled whole, every time
        self.stats = {"frames": 0, "bytes": 0, "flipped": 0, "dropped": 0, "duplicated": 0}

    def _damage_bytes(self, data):
        if not (self.flip or self.drop or self.dup):
            return data
        out = bytearray()
        rng = self.rng
        for b in data:
            if self.drop and rng.random() < self.drop:
                self.stats["dropped"] += 1
                continue
            if self.flip and rng.random() < self.flip:
                b ^= 1 << rng.randrange(8)
                self.stats["flipped"] += 1
            out.append(b)
            if self.dup and rng.random() < self.dup:
                out.append(b)
                self.stats["duplicated"] += 1
        return bytes(out)

    @staticmethod
    def _flipped(chunk):
        """The chunk on the wire with one bit in its middle flipped."""
        c = bytearray(chunk)
        i = len(c) // 2
        c[i] ^= 0x10
        if c[i] == 0:           # (was 0x10: flip another bit, never a delimiter)
            c[i] = 0x01
        return b"\x00" + bytes(c) + b"\x00"

    def _frame(self, chunk):
        """Applies the frame rules to one chunk; the wire bytes to send."""
        ftype = cobs_first_byte(chunk)
        self.any_count += 1
        nth = self.counts.get(ftype, 0) + 1
        self.counts[ftype] = nth
        self.stats["frames"] += 1
        wire = b"\x00" + bytes(chunk) + b"\x00"
        out = b""
        for left_chunk in list(self.replays):
            left, c = left_chunk
            self.replays.remove(left_chunk)
            if left <= 1:
                out += c
            else:
                self.replays.append((left - 1, c))
        tname = TYPE_NAMES.get(ftype, "0x%02x" % (ftype or 0))
        if self.spoiled and frame_id(chunk) in self.spoiled:
            self.log("%s spoil %s again" % (self.name, tname))
            return out + self._flipped(chunk)
        for r in self.rules:
            n = self.any_count if r.type is None else nth
            if not r.matches(ftype, n):
                continue
            self.log("%s %s %s %d" % (self.name, r.action, tname, n))
            if r.action == "drop":
                return out
            if r.action == "dup":
                return out + wire + wire
            if r.action == "truncate":
                return out + b"\x00" + bytes(chunk[:max(1, len(chunk) // 2)]) + b"\x00"
            if r.action == "spoil":
                fid = frame_id(chunk)
                if fid is not None:
                    self.spoiled.add(fid)
                return out + self._flipped(chunk)
            if r.action == "flip":
                return out + self._flipped(chunk)
            if r.action == "replay":
                self.replays.append((REPLAY_AFTER, wire))
                return out + wire
        return out + wire

    def feed(self, data):
        """Bytes in from one side; the bytes to send to the other."""
        self.stats["bytes"] += len(data)
        if not self.rules:
            return self._damage_bytes(data)
        out = bytearray()
        self.buf += data
        while True:
            i = self.buf.find(0)
            if i < 0:
                break
            chunk = self.buf[:i]
            del self.buf[:i + 1]
            if chunk:
                out += self._frame(chunk)
        return self._damage_bytes(bytes(out))


class LinkProxy:
    """The proxy: listen on `listen`, relay to `connect` with faults."""

    def __init__(self, listen, connect, seed=1, rates=None, rules=(), log_path=None):
        self.listen_path = listen
        self.connect_path = connect
        self.seed = seed
        self.rates = rates or {}
        self.rules = [Rule(r) if isinstance(r, str) else r for r in rules]
        self.log_path = log_path
        self.lines = []
        self.lock = threading.Lock()
        self.stopping = False
        self.sessions = 0
        self.server = None
        self.thread = None

    def log(self, line):
        with self.lock:
            self.lines.append(line)
            if self.log_path:
                with open(self.log_path, "a") as f:
                    f.write(line + "\n")

    def actions(self):
        with self.lock:
            return list(self.lines)

    def start(self):
        if os.path.exists(self.listen_path):
            os.unlink(self.listen_path)
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.listen_path)
        self.server.listen(4)
        self.server.settimeout(0.2)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.stopping = True
        if self.thread:
            self.thread.join(5)
        if self.server:
            self.server.close()
        try:
            os.unlink(self.listen_path)
        except OSError:
            pass

    def _upstream(self):
        deadline = time.time() + 60
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.connect_path)
                return s
            except OSError:
                s.close()
                if time.time() > deadline or self.stopping:
                    raise
                time.sleep(0.05)

    def _serve(self):
        while not self.stopping:
            try:
                client, _ = self.server.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            try:
                board = self._upstream()
            except OSError:
                client.close()
                continue
            self.sessions += 1
            # counts per direction run over the proxy's whole life, so
            # "the 2nd HELLO" may be the second daemon's
            if not hasattr(self, "dirs"):
                self.dirs = {name: Direction(name, self.seed, (
                    self.rates.get(name + "_flip", 0), self.rates.get(name + "_drop", 0),
                    self.rates.get(name + "_dup", 0)), self.rules, self.log) for name in DIRECTIONS}
            for dr in self.dirs.values():
                dr.buf.clear()      # a cut-off chunk of the last connection
            self.log("connect %d" % self.sessions)
            done = threading.Event()
            a = threading.Thread(target=self._relay, args=(board, client, self.dirs["t2h"], done), daemon=True)
            b = threading.Thread(target=self._relay, args=(client, board, self.dirs["h2t"], done), daemon=True)
            a.start()
            b.start()
            while not done.is_set() and not self.stopping:
                done.wait(0.2)
            for s in (client, board):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            a.join(5)
            b.join(5)
            client.close()
            board.close()
            self.log("disconnect %d" % self.sessions)

    def _relay(self, src, dst, direction, done):
        src.settimeout(0.2)
        try:
            while not done.is_set() and not self.stopping:
                try:
                    data = src.recv(65536)
                except socket.timeout:
                    continue
                if not data:
                    break
                out = direction.feed(data)
                if out:
                    dst.sendall(out)
        except OSError as e:
            if not self.stopping:
                self.log("%s relay error: %s" % (direction.name, e))
        finally:
            done.set()


class DaemonKiller:
    """Kills a daemon with SIGKILL at random moments and starts the next one
    with `spawn(i)`; `procs` keeps them all (their output tells what they did)."""

    def __init__(self, spawn, seed=1, min_s=0.5, max_s=3.0):
        self.spawn = spawn
        self.rng = random.Random(seed)
        self.min_s, self.max_s = min_s, max_s
        self.procs = []

    def run(self, kills, alive=None):
        """kills times: start a daemon, let it live a random while, kill -9 it.
        Then a last daemon is started and returned (the caller waits for it)."""
        for i in range(kills):
            p = self.spawn(i)
            self.procs.append(p)
            time.sleep(self.rng.uniform(self.min_s, self.max_s))
            if alive is not None and not alive():
                break
            if p.p.poll() is None:
                p.p.send_signal(signal.SIGKILL)
                p.p.wait()
        last = self.spawn(len(self.procs))
        self.procs.append(last)
        return last


def main():
    ap = argparse.ArgumentParser(description="fault-injecting proxy for the alphaprof profile link")
    ap.add_argument("--listen", required=True, help="socket path the daemon attaches to")
    ap.add_argument("--connect", required=True, help="the board's profile socket")
    ap.add_argument("--seed", type=int, default=1)
    for d in DIRECTIONS:
        for kind in ("flip", "drop", "dup"):
            ap.add_argument("--%s-%s" % (d, kind), type=float, default=0.0, metavar="RATE",
                            help="per-byte %s rate, %s" % (kind, d))
    ap.add_argument("--rule", action="append", default=[], metavar="DIR:TYPE:N:ACTION")
    ap.add_argument("--log", help="append the actions to this file (default stdout)")
    a = ap.parse_args()
    rates = {"%s_%s" % (d, k): getattr(a, "%s_%s" % (d, k)) for d in DIRECTIONS for k in ("flip", "drop", "dup")}
    try:
        rules = [Rule(r) for r in a.rule]
    except ValueError as e:
        print("linkfault: %s" % e, file=sys.stderr)
        return 2
    p = LinkProxy(a.listen, a.connect, a.seed, rates, rules, a.log)
    if not a.log:
        p.log = lambda line: print(line, flush=True)
    p.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.is_set():
        stop.wait(0.5)
    p.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
