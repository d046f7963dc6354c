"""End-to-end: `alphaprof export` read by real consumers on a real recording
of qsort: callgrind format by valgrind's callgrind_annotate (totals,
inclusive costs per procedure, per-line source annotation), pprof's
gzipped profile.proto decoded by protoc against pprof's own schema
(Debian's golang-github-google-pprof-dev) and checked for referential
integrity, folded stacks checked strictly against the flame-graph format
(Debian ships no flame-graph tool).  Every consumer's numbers must agree
with alphaprof report.
"""
import gzip
import json
import os
import re
import shutil
import subprocess

from harness import REPO, alphaprof, build_path, check, cleanup, npm_package, require, tmpdir

PPROF_PROTO_DIR = "/usr/share/gocode/src/github.com/google/pprof/proto"


def record(d):
    db = os.path.join(d, "p.db")
    r = alphaprof(["record", "--deterministic", "--db", db, "--events", "cycles:2000-2200",
                   require(build_path("workloads", "qsort.elf"))], timeout=240)
    check(r.status == 0, "record qsort", r)
    rep = json.loads(alphaprof(["report", "--db", db, "--json", "--limit", "0"]).out)
    return db, rep


def tool(name, package):
    path = shutil.which(name)
    check(path is not None, "%s is missing: install Debian's %s (setup/packages.txt)" % (name, package))
    return path


def test_callgrind_export_reads_in_callgrind_annotate():
    exe = tool("callgrind_annotate", "valgrind")
    d = tmpdir()
    try:
        db, rep = record(d)
        out = os.path.join(d, "callgrind.out")
        r = alphaprof(["export", "--db", db, "--format", "callgrind", "-o", out])
        check(r.status == 0, "export callgrind", r)
        p = subprocess.run([exe, "--inclusive=yes", "--threshold=100", "--auto=yes", out],
                           capture_output=True, text=True, cwd=REPO, timeout=60)
        check(p.returncode == 0, "callgrind_annotate accepts the file:\n" + p.stderr)
        total = rep["events"][0]["total"]
        m = re.search(r"^\s*([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", p.stdout, re.M)
        check(m and int(m.group(1).replace(",", "")) == total,
              "PROGRAM TOTALS is report's total %d\n%s" % (total, p.stdout[:2000]))
        inclusive = {}
        for line in p.stdout.splitlines():
            m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*:(\S+)", line)
            if m:
                inclusive.setdefault(m.group(2), int(m.group(1).replace(",", "")))
        for proc in rep["procedures"]:
            if proc["name"] in ("compare_longs", "qsort", "run_once"):
                check(inclusive.get(proc["name"]) == proc["samples"][0],
                      "inclusive cost of %s (%s) is report's %d\n%s"
                      % (proc["name"], inclusive.get(proc["name"]), proc["samples"][0], p.stdout[:3000]))
        # One entry per function: a definition DWARF declares in a header
        # (newlib's qsort in stdlib.h) must not leave an empty twin there.
        q = subprocess.run([exe, "--threshold=100", out], capture_output=True, text=True, cwd=REPO, timeout=60)
        twins = [l for l in q.stdout.splitlines() if re.search(r":qsort( \[|$)", l)]
        check(len(twins) == 1, "qsort listed once by callgrind_annotate: %s" % twins)
        # Per-line annotation of the workload's own source: the lines of
        # compare_longs carry its samples.
        check("Auto-annotated source: workloads/qsort/qsort.c" in p.stdout, "qsort.c annotated", None)
        body = p.stdout.split("Auto-annotated source: workloads/qsort/qsort.c", 1)[1]
        lines = [l for l in body.splitlines() if "(const long *)x" in l or "(a > b) - (a < b)" in l]
        counts = [int(re.match(r"^\s*([\d,]+)", l).group(1).replace(",", "")) for l in lines
                  if re.match(r"^\s*[\d,]+ ", l)]
        cmp = [x for x in rep["procedures"] if x["name"] == "compare_longs"][0]["samples"][0]
        # (its entry and return lines may hold a stray sample or two)
        check(0.99 * cmp <= sum(counts) <= cmp,
              "compare_longs' two body lines hold >= 99%% of its %d samples (%s)" % (cmp, lines))
    finally:
        cleanup(d)


def parse_textproto(text):
    """protoc --decode output -> nested dicts of lists."""
    root, stack = {}, []
    cur = root
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.endswith("{"):
            node = {}
            cur.setdefault(line[:-1].strip(), []).append(node)
            stack.append(cur)
            cur = node
        elif line == "}":
            cur = stack.pop()
        else:
            key, _, value = line.partition(": ")
            if value.startswith('"'):
                value = json.loads(value) if "\\" not in value else value.strip('"')
            elif value in ("true", "false"):
                value = value == "true"
            else:
                value = int(value)
            cur.setdefault(key, []).append(value)
    return root


def test_pprof_export_decodes_with_pprofs_schema():
    protoc = tool("protoc", "protobuf-compiler")
    check(os.path.exists(os.path.join(PPROF_PROTO_DIR, "profile.proto")),
          "pprof's profile.proto is missing: install Debian's golang-github-google-pprof-dev")
    d = tmpdir()
    try:
        db, rep = record(d)
        out = os.path.join(d, "profile.pb.gz")
        r = alphaprof(["export", "--db", db, "--format", "pprof", "-o", out])
        check(r.status == 0, "export pprof", r)
        with gzip.open(out) as f:
            raw = f.read()
        p = subprocess.run([protoc, "--decode=perftools.profiles.Profile", "-I", PPROF_PROTO_DIR,
                            "profile.proto"], input=raw, capture_output=True, timeout=60)
        check(p.returncode == 0, "protoc decodes it:\n" + p.stderr.decode(errors="replace"))
        # protoc decodes unknown or mistyped fields as numbers: none may be left
        text = p.stdout.decode()
        check(not re.search(r"^\s*\d+: ", text, re.M), "no fields outside pprof's schema")
        prof = parse_textproto(text)
        strings = prof["string_table"]
        check(strings[0] == "", "string_table[0] is the empty string")

        def s(i):
            check(0 <= i < len(strings), "string index %d in range" % i)
            return strings[i]
        types = [(s(t.get("type", [0])[0]), s(t.get("unit", [0])[0])) for t in prof["sample_type"]]
        check(types[0][0] == "cycles", "the first sample type is cycles (%s)" % types)
        maps = {m["id"][0]: m for m in prof["mapping"]}
        funcs = {f["id"][0]: f for f in prof["function"]}
        locs = {l["id"][0]: l for l in prof["location"]}
        for l in locs.values():
            m = maps[l["mapping_id"][0]]
            addr = l.get("address", [0])[0]
            check(m.get("memory_start", [0])[0] <= addr < m.get("memory_limit", [0])[0],
                  "location %d inside its mapping" % l["id"][0])
            for ln in l.get("line", []):
                check(ln["function_id"][0] in funcs, "location's function exists")
        total = 0
        for smp in prof["sample"]:
            check(len(smp["value"]) == len(types), "a value per sample type")
            for lid in smp["location_id"]:
                check(lid in locs, "sample's location exists")
            total += smp["value"][0]
        check(total == rep["events"][0]["total"], "the samples sum to report's total (%d vs %d)"
              % (total, rep["events"][0]["total"]))
        names = {s(f["name"][0]) for f in funcs.values()}
        check({"compare_longs", "qsort", "run_once"} <= names, "the procedures are functions (%s)" % sorted(names))
    finally:
        cleanup(d)


def test_folded_export_is_strict_flamegraph_input():
    d = tmpdir()
    try:
        db, rep = record(d)
        r = alphaprof(["export", "--db", db, "--format", "folded"])
        check(r.status == 0 and r.out.endswith("\n"), "export folded", r)
        seen, total, per_proc = set(), 0, {}
        images = {i["name"] for i in rep["images"]}
        for line in r.out.splitlines():
            m = re.fullmatch(r"([^ ;][^;]*(?:;[^;]+)*) ([1-9][0-9]*)", line)
            check(m is not None, "flame-graph line 'frame;frame;... count': %r" % line)
            frames = m.group(1).split(";")
            check(all(f and f == f.strip() for f in frames), "no empty or padded frames: %r" % line)
            check(frames[0] in images, "each stack starts at its image: %r" % line)
            check(m.group(1) not in seen, "each stack once: %r" % line)
            seen.add(m.group(1))
            total += int(m.group(2))
            if len(frames) > 1:
                per_proc[frames[1]] = per_proc.get(frames[1], 0) + int(m.group(2))
        check(total == rep["events"][0]["total"], "stacks sum to report's total", r)
        r = alphaprof(["export", "--db", db, "--format", "folded", "--event", "dmiss"])
        check(r.status == 1 and r.err.strip().splitlines() == ["alphaprof export: %s holds no samples of event 'dmiss'; "
                                                               "it has: cycles (event 0)" % db],
              "an event the profile has no samples of: one line naming what it has (its number said as one)", r)
        for proc in rep["procedures"]:
            if proc["name"] in ("compare_longs", "qsort"):
                check(per_proc.get(proc["name"]) == proc["samples"][0],
                      "%s's stacks hold report's %d" % (proc["name"], proc["samples"][0]), r)
    finally:
        cleanup(d)


SPEEDSCOPE_VERSION = "1.25.0"


def speedscope_validator():
    """speedscope's own file-format schema, from its npm package, as a
    validator (Debian's python3-jsonschema)."""
    import jsonschema
    pkg = npm_package("speedscope", SPEEDSCOPE_VERSION)
    with open(require(os.path.join(pkg, "dist", "release", "file-format-schema.json"), "speedscope's schema")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def export_speedscope(d, db):
    """The profile exported as speedscope's file: its path and document."""
    out = os.path.join(d, "p.speedscope.json")
    r = alphaprof(["export", "--db", db, "--format", "speedscope", "-o", out])
    check(r.status == 0, "export speedscope", r)
    with open(out) as f:
        return out, json.load(f)


def test_speedscope_export_validates_against_speedscopes_schema():
    validator = speedscope_validator()
    d = tmpdir()
    try:
        db, rep = record(d)
        out, doc = export_speedscope(d, db)
        errors = sorted(validator.iter_errors(doc), key=str)
        check(not errors, "valid against speedscope's file-format schema: %s" % "; ".join(e.message for e in errors[:5]))
        frames = doc["shared"]["frames"]
        check(len(doc["profiles"]) == len(rep["events"]), "one profile per event")
        prof = doc["profiles"][0]
        check(prof["type"] == "sampled" and prof["unit"] == "none" and len(prof["samples"]) == len(prof["weights"]),
              "a sampled profile of counts, a weight per stack")
        total = rep["events"][0]["total"]
        check(sum(prof["weights"]) == total == prof["endValue"], "weights sum to report's total %d" % total)
        stacks = [tuple(s) for s in prof["samples"]]
        check(len(set(stacks)) == len(stacks) and all(0 <= i < len(frames) for s in stacks for i in s),
              "each stack once, every frame index in the table")
        images = {i["name"] for i in rep["images"]}
        check(all(frames[s[0]]["name"] in images for s in stacks), "each stack starts at its image")
        per_proc = {}
        for s, w in zip(stacks, prof["weights"]):
            if len(s) > 1:
                per_proc[frames[s[1]]["name"]] = per_proc.get(frames[s[1]]["name"], 0) + w
        for proc in rep["procedures"]:
            if proc["name"] in ("compare_longs", "qsort"):
                check(per_proc.get(proc["name"]) == proc["samples"][0],
                      "%s's stacks weigh report's %d" % (proc["name"], proc["samples"][0]))
        check(any(f.get("file", "").endswith(".c") and f.get("line", 0) > 0 for f in frames),
              "procedures carry their source file and line from DWARF")

        # timer samples weigh as nanoseconds: samples x the mean period
        tdb = os.path.join(d, "t.db")
        rec = alphaprof(["record", "--deterministic", "--db", tdb, require(build_path("workloads", "drystone.elf"))],
                        timeout=240)
        check(rec.status == 0, "record drystone with the timer", rec)
        trep = json.loads(alphaprof(["report", "--db", tdb, "--json"]).out)
        r = alphaprof(["export", "--db", tdb, "--format", "speedscope"])
        tdoc = json.loads(r.out)
        check(not list(validator.iter_errors(tdoc)), "the timer profile is valid too")
        ev = trep["events"][0]
        tp = tdoc["profiles"][0]
        check(tp["unit"] == "nanoseconds" and tp["endValue"] == ev["total"] * ev["period"] == sum(tp["weights"]),
              "timer weights are samples x period (%s ns)" % tp["endValue"], r)

        bad = alphaprof(["export", "--db", os.path.join(d, "nosuch.db"), "--format", "speedscope"])
        check(bad.status == 1 and len(bad.err.strip().splitlines()) == 1, "a missing database: one line, exit 1", bad)
    finally:
        cleanup(d)


def speedscope_percent(x):
    """A share as speedscope's tables print it (percent, digits by size)."""
    if x == 100:
        return "100%"
    if x > 99:
        return ">99%"
    if x < 0.01:
        return "<0.01%"
    return "%.*f%%" % (2 if x < 1 else 1 if x < 10 else 0, x)


# Console lines speedscope and headless Chromium print on every load,
# whatever the file: speedscope's version banner, WebGL set-up and its
# own import progress (console.log), and the GPU emulation's (SwiftShader:
# headless Chromium has no GPU) performance notes.  Anything else fails.
SPEEDSCOPE_CONSOLE_NOISE = [r'"speedscope v[\d.]+"', r'"WebGL initialized\.', r'"Importing as speedscope json file"',
                            r'"import: [\d.]+ ms"', r'GL Driver Message \(OpenGL, Performance, .*GPU stall due to ReadPixels']


def test_speedscope_itself_loads_the_export_in_headless_chromium():
    import functools
    import http.server
    import threading
    from browser import open_url

    pkg = npm_package("speedscope", SPEEDSCOPE_VERSION)
    app = require(os.path.join(pkg, "dist", "release"), "speedscope's built web app")
    require(os.path.join(app, "index.html"), "speedscope's index.html")
    d = tmpdir()
    server = None
    try:
        db, rep = record(d)
        out, doc = export_speedscope(d, db)

        class Handler(http.server.SimpleHTTPRequestHandler):
            def translate_path(self, path):     # the app's files, and the export as /profile.json
                return out if path.split("?")[0] == "/profile.json" else super().translate_path(path)

            def log_message(self, *args):
                pass

        # speedscope fetches ?profileURL= itself, so it must be served (it refuses file:// URLs)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=app))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = "http://127.0.0.1:%d" % server.server_address[1]
        # the sandwich view: a table of every frame's total and self weight
        page = open_url(base + "/index.html#profileURL=" + base + "/profile.json&view=sandwich",
                        screenshot=os.path.join(d, "speedscope.png"), width=1400, height=1200,
                        extra=["--enable-unsafe-swiftshader"])
        unexpected = [l for l in page.console if not any(re.search(p, l) for p in SPEEDSCOPE_CONSOLE_NOISE)]
        check(not unexpected, "speedscope said nothing but its usual lines: %s" % unexpected[:5])
        check(any("Importing as speedscope json file" in l for l in page.console),
              "speedscope read the file as its own format: %s" % page.console[:8])
        titles = [t.all_text() for t in page.root.find("title")]
        check(titles == [doc["name"] + " - speedscope"], "the page is titled with the profile's name: %s" % titles)
        prof = doc["profiles"][0]
        check(prof["name"] in page.root.all_text(), "the toolbar shows the profile %r" % prof["name"])
        check(os.path.getsize(page.screenshot) > 20000, "a screenshot was taken")

        # each frame's self and total share as speedscope computed them from the file
        frames, total = doc["shared"]["frames"], prof["endValue"]
        self_w, total_w = [0] * len(frames), [0] * len(frames)
        for stack, w in zip(prof["samples"], prof["weights"]):
            self_w[stack[-1]] += w
            for i in set(stack):
                total_w[i] += w
        rows = [tr for tr in page.root.find("tr") if len(tr.find("td")) == 3      # (not the profile picker's)
                and all(re.search(r"\(.*%\)", td.all_text()) for td in tr.find("td")[:2])]
        check(len(rows) >= 5, "the sandwich table lists the frames (%d rows drawn)" % len(rows))
        shown = []
        for tr in rows:
            tot, slf, sym = tr.find("td")
            name, file = sym.all_text(), sym.attrs.get("title", "")
            pct = [re.search(r"\(([^)]*)\)", c.all_text()).group(1) for c in (tot, slf)]
            cands = [i for i, f in enumerate(frames) if f["name"] == name and f.get("file", "") == file]
            check(any(pct == [speedscope_percent(100 * total_w[i] / total), speedscope_percent(100 * self_w[i] / total)]
                      for i in cands),
                  "%s (%s): speedscope's total and self %s are the export's %s"
                  % (name, file, pct, [(speedscope_percent(100 * total_w[i] / total),
                                        speedscope_percent(100 * self_w[i] / total)) for i in cands]))
            shown.append(max(self_w[i] for i in cands))
        check(shown[0] == max(self_w) and shown == sorted(shown, reverse=True),
              "sorted by self weight, the heaviest frame first")
    finally:
        if server:
            server.shutdown()
            server.server_close()
        cleanup(d)
