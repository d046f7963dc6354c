"""End-to-end: `alphaprof html` reports opened in real headless Chromium.

For a counters profile, a ProfileMe profile and a diff, the report must
load with no console message at all (errors, CSP violations: Chromium logs
each), finish rendering, and show what the profile holds: flame-graph
frames of its procedures, one table row per procedure with report's
counts, a listing whose hot instructions are heat-coloured, the ProfileMe
charts and the diff's significant rows.  Each also takes a screenshot
(kept beside the report in the test's directory while it runs)."""
import json
import os
import re
import shutil
import sqlite3

from browser import open_page
from harness import alphaprof, build_path, check, cleanup, require, tmpdir


def record(d, name, image, *opts, timeout=300):
    db = os.path.join(d, name + ".db")
    r = alphaprof(["record", "--deterministic", "--db", db] + list(opts) + [require(build_path("workloads", image))],
                  timeout=timeout)
    check(r.status == 0, "record %s" % image, r)
    if "--profileme" in opts or "--paired" in opts:
        return db, None
    rep = json.loads(alphaprof(["report", "--db", db, "--json", "--limit", "0"]).out)
    return db, rep


def html(db, out, *opts):
    r = alphaprof(["html", "--db", db, "-o", out] + list(opts), timeout=120)
    check(r.status == 0 and os.path.getsize(out) > 0, "alphaprof html writes %s" % out, r)
    with open(out) as f:
        text = f.read()
    check(not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text) and "@import" not in text,
          "the report loads nothing from anywhere (no external src, href or import)")
    return text


def rendered(page):
    body = page.root.find("body")[0]
    check(not page.console, "no console message while loading: %s" % page.console[:5])
    check(body.attrs.get("data-ready") == "1", "the report's script finished rendering")
    check(body.attrs.get("data-errors") == "0", "no uncaught error")
    check(os.path.getsize(page.screenshot) > 20000, "a screenshot was taken (%s)" % page.screenshot)
    return body


def frame_names(page):
    return [f.all_text() or f.attrs.get("title", "").split(":")[0] for f in page.root.find("div", cls="frame")]


def table_rows(page, id):
    t = page.root.by_id(id)
    check(t is not None, "the table #%s is there" % id)
    return [[td.all_text() for td in tr.find("td")] for tr in t.find("tr") if tr.find("td")]


def check_listing_heat(page, proc):
    box = page.root.by_id("listing-box")
    check(box is not None and box.attrs.get("data-proc") == proc, "the listing of %s opened from #proc=" % proc)
    hot = box.find("tr", cls="hot")
    check(hot, "hot instructions are marked")
    colours = {tr.attrs.get("style", "") for tr in hot}
    check(all("background" in c and "255, 255, 255" not in c for c in colours),
          "hot rows are heat-coloured: %s" % sorted(colours)[:3])
    check(len(colours) >= 2 or len(hot) == 1, "the heat varies with the samples")
    check(box.find("tr", cls="src"), "source lines are interleaved")


def test_html_report_of_a_counters_profile_renders_in_chromium():
    d = tmpdir()
    try:
        db, rep = record(d, "qsort", "qsort.elf", "--events", "cycles:2000-2200,dmiss")
        out = os.path.join(d, "report.html")
        html(db, out)
        top = rep["procedures"][0]["name"]
        page = open_page(out, "proc=" + top, screenshot=os.path.join(d, "counters.png"))
        rendered(page)
        names = frame_names(page)
        check(len(names) >= 10 and "qsort" in names and top in names,
              "flame-graph frames drawn, the top procedure among them (%d frames)" % len(names))
        check(page.root.by_id("flame").attrs.get("data-frames") == str(len(names)), "every frame counted is drawn")
        rows = table_rows(page, "proc-table")
        check(len(rows) == min(300, len(rep["procedures"])), "one row per procedure (%d)" % len(rows))
        by_name = {}
        for r in rows:          # a name may be in two images (memset: monitor and workload)
            by_name.setdefault(r[0], []).append(r)
        for p in [p for p in rep["procedures"] if p["name"]][:10]:    # "": outside any symbol
            counts = [(int(r[2].replace(",", "")), int(r[3].replace(",", ""))) for r in by_name.get(p["name"], [])]
            check((p["samples"][0], p["samples"][1]) in counts,
                  "%s's row holds report's counts (%s, rows %s)" % (p["name"], p["samples"][:2], counts))
        events = table_rows(page, "events")
        check([e[0] for e in events] == ["cycles", "dmiss"] and all(e[2] != "unknown" for e in events),
              "both events with their achieved periods")
        check(page.root.by_id("drops") is not None or page.root.by_id("drops-none") is not None, "drops said")
        check_listing_heat(page, top)
        check(page.root.by_id("profileme") is None and page.root.by_id("diff") is None,
              "no ProfileMe or diff section without their data")

        # sorted by a column, zoomed into a frame: as a link asks
        page = open_page(out, "sort=procedure&zoom=compare_longs", screenshot=os.path.join(d, "sorted.png"))
        rendered(page)
        names_sorted = [r[0] for r in table_rows(page, "proc-table")]
        check(names_sorted == sorted(names_sorted) and len(names_sorted) == len(rows),
              "the table sorted by procedure name, ascending")
        flame = page.root.by_id("flame")
        check(flame.attrs.get("data-zoom") == "compare_longs", "the flame graph zoomed to compare_longs")
        zoomed = [f for f in page.root.find("div", cls="frame") if f.all_text() == "compare_longs"
                  and "ancestor" not in f.classes()]
        widths = [float(re.search(r"width:\s*([\d.]+)px", f.attrs["style"]).group(1)) for f in zoomed]
        all_width = float(re.search(r"width:\s*([\d.]+)px", page.root.find("div", cls="ancestor")[0].attrs["style"]).group(1))
        check(widths and max(widths) >= all_width - 1, "compare_longs now spans the whole width (%s of %s px)" % (widths, all_width))
        check(not [f for f in page.root.find("div", cls="frame") if f.attrs.get("title", "").startswith("qsort:")
                   and "ancestor" not in f.classes()], "its sibling, the procedure qsort, is out of the zoomed view")
    finally:
        cleanup(d)


def test_html_report_of_a_profileme_profile_has_its_charts():
    d = tmpdir()
    try:
        db, _ = record(d, "drystone", "drystone.elf", "--profileme", "--pme-interval", "2000-2200")  # (a short run)
        out = os.path.join(d, "pme.html")
        html(db, out)
        page = open_page(out, "proc=main", screenshot=os.path.join(d, "pme.png"))
        rendered(page)
        sec = page.root.by_id("profileme")
        check(sec is not None, "the ProfileMe section is there")
        charts = sec.find("div", cls="chart")
        check(len(charts) >= 3, "rate charts and latency histograms (%d charts)" % len(charts))
        bars = sec.find("rect")
        cis = [l for l in sec.find("line") if "ci" in l.classes()]
        check(len(bars) >= 5 and len(cis) >= 3, "bars with confidence intervals drawn")
        titles = [c.find("h3")[0].all_text() for c in charts]
        check(any(t.startswith("Latency ") for t in titles), "a latency histogram: %s" % titles)
        box = page.root.by_id("listing-box")
        heads = [th.all_text() for th in box.find("th")]
        check("pme" in heads and "retired" in heads, "the listing has ProfileMe columns: %s" % heads)
    finally:
        cleanup(d)


def test_html_report_of_a_value_profile_has_its_value_table():
    d = tmpdir()
    try:
        db = os.path.join(d, "values.db")
        r = alphaprof(["record", "--deterministic", "--db", db, "--value-every", "1",
                       require(build_path("workloads", "valuemix.elf")), "--", "1000000"], timeout=300)
        check(r.status == 0, "record valuemix with value sampling", r)
        want = json.loads(alphaprof(["values", "--db", db, "--kind", "all", "--json", "--limit", "0"]).out)
        out = os.path.join(d, "values.html")
        html(db, out)
        page = open_page(out, "proc=mix_loop", screenshot=os.path.join(d, "values.png"))
        rendered(page)
        rows = table_rows(page, "values-table")
        check(len(rows) == len(want["instructions"]) and len(rows) > 10,
              "one row per instruction and kind (%d, alphaprof values %d)" % (len(rows), len(want["instructions"])))
        # semi-invariants first, as alphaprof values orders them
        for row, w in zip(rows, want["instructions"]):
            check(int(row[1], 16) == w["pc"] and row[2] == w["kind"] and row[3].replace(",", "") == str(w["offered"]),
                  "row %s %s %s is values' %x %s %d" % (row[1], row[2], row[3], w["pc"], w["kind"], w["offered"]))
        mode = [row for row in rows if row[0] == "mix_loop" and row[2] == "result" and row[4] == "3"
                and int(row[3].replace(",", "")) >= 100]
        check(mode and mode[0][5] == "100.0%", "mode's load: 3 on 100.0%% of its executions: %s" % mode[:1])
        inv = page.root.by_id("values-table").find("tr", cls="invariant")
        check(inv, "semi-invariants are marked")
        # the listing has annotate's value columns: mode's load shows 3, 100.0 %
        box = page.root.by_id("listing-box")
        heads = [th.all_text() for th in box.find("th")]
        check("top value" in heads and "share" in heads, "the listing has value columns: %s" % heads)
        ti, si = heads.index("top value"), heads.index("share")
        lrows = [[c.all_text() for c in tr.find("td")] for tr in box.find("tr", cls="insn-row")]
        check(any(r[ti] == "3" and r[si] == "100.0%" for r in lrows), "mode's load in the listing: 3 at 100.0%")
    finally:
        cleanup(d)


def test_html_diff_report_shows_the_significant_changes():
    d = tmpdir()
    try:
        a, _ = record(d, "a", "chase.elf")
        b, _ = record(d, "b", "qsort.elf")
        diff = json.loads(alphaprof(["diff", "--db", a, "--db2", b, "--json", "--limit", "0"]).out)
        out = os.path.join(d, "diff.html")
        html(b, out, "--base", a)
        page = open_page(out, screenshot=os.path.join(d, "diff.png"))
        rendered(page)
        rows = table_rows(page, "diff-table")
        check(len(rows) == min(500, len(diff["rows"])), "one row per procedure compared")
        sig = {r[0] for r in rows if r[-1] == "yes"}
        want = {r["name"] or "[outside any procedure]" for r in diff["rows"] if r["significant"]}
        check(sig == want, "the same rows significant as alphaprof diff says: %s" % sorted(sig ^ want)[:5])
        t = page.root.by_id("diff-table")
        check(t.find("tr", cls="sig-up") and t.find("tr", cls="sig-down"), "growth and shrinkage are coloured")
        check(frame_names(page), "the flame graph is drawn in diff colours")
    finally:
        cleanup(d)


def test_html_bad_input_is_one_line():
    d = tmpdir()
    try:
        missing = os.path.join(d, "nosuch.db")
        r = alphaprof(["html", "--db", missing, "-o", os.path.join(d, "r.html")])
        lines = r.err.strip().splitlines()
        check(r.status == 1 and len(lines) == 1 and missing in lines[0], "a missing database: exit 1, one line", r)
        check(not os.path.exists(os.path.join(d, "r.html")), "and no report")
        r = alphaprof(["html", "--db", missing])
        check(r.status == 2 and "-o" in r.err, "no -o: a usage error", r)
        db = os.path.join(d, "t.db")
        r = alphaprof(["record", "--deterministic", "--db", db, require(build_path("workloads", "qsort.elf"))],
                      timeout=120)
        check(r.status == 0, "record qsort", r)
        for board, why in (("nosuch", "unknown board"), ("clipper", "no hardware model")):
            r = alphaprof(["html", "--db", db, "--board", board, "-o", os.path.join(d, "r.html")])
            lines = r.err.strip().splitlines()
            check(r.status == 1 and len(lines) == 1 and why in lines[0] and not os.path.exists(os.path.join(d, "r.html")),
                  "--board %s: exit 1, one line saying %s, no report" % (board, why), r)
        out = os.path.join(d, "no-such-dir", "r.html")
        r = alphaprof(["html", "--db", db, "-o", out])
        check(r.status == 1 and r.err.strip().splitlines() == ["alphaprof html: cannot write %s: No such file or "
                                                               "directory" % out],
              "-o in a missing directory: one line naming the file asked for (it named a temporary twin)", r)
    finally:
        cleanup(d)


def report_data(text):
    """The report's embedded data document (html-data.h)."""
    m = re.search(r'<script type="application/json" id="alphaprof-data">(.*?)</script>', text, re.S)
    check(m is not None, "the report holds its data document")
    return json.loads(m.group(1).replace("<\\/", "</"))


def summary_row(page, key):
    for tr in page.root.by_id("summary").find("tr"):
        cells = [td.all_text() for td in tr.find("td")]
        if len(cells) == 2 and cells[0] == key:
            return cells[1]
    return None


def drawn_frames(page):
    """Every flame-graph frame drawn: name, left, width, top (px)."""
    out = []
    for f in page.root.find("div", cls="frame"):
        style = f.attrs.get("style", "")
        left, width, top = [float(re.search(k + r":\s*(-?[\d.]+)px", style).group(1)) for k in ("left", "width", "top")]
        name = f.all_text() or f.attrs.get("title", "").rsplit(": ", 1)[0]
        out.append({"name": name, "left": left, "width": width, "top": top})
    return out


def drawn_parent(frames, f):
    """The frame drawn right above f that spans it: its caller on screen."""
    above = [p for p in frames if abs(p["top"] - (f["top"] - 18)) < 0.5 and p["left"] <= f["left"] + 0.5
             and p["left"] + p["width"] >= f["left"] + f["width"] - 1]
    return above[0] if len(above) == 1 else None


def test_html_flame_graph_of_an_instrumented_run_shows_the_cct_call_stacks():
    d = tmpdir()
    try:
        orig = require(build_path("workloads", "calltree.elf"), "the calltree workload")
        inst = os.path.join(d, "calltree-cct.elf")
        # with metrics: samples split by exclusive cycles; sampled by
        # instructions retired, so the three-instruction leaf takes samples
        # of its own (its cycles hide behind its trampolines' and the
        # caller's: by cycles it may take none and not be drawn at all)
        r = alphaprof(["instrument", "--cct", "--metrics", orig, "-o", inst])
        check(r.status == 0, "instrument --cct --metrics calltree", r)
        db = os.path.join(d, "cct.db")
        # counters in deterministic mode: the same samples every run
        r = alphaprof(["record", "--deterministic", "--board", "clipper-pm", "--events", "retired:2000-2200",
                       "--db", db, "--timeout", "250", inst, "--", "2000"], timeout=300)
        check(r.status == 0, "record the instrumented calltree", r)
        out = os.path.join(d, "cct.html")
        data = report_data(html(db, out))
        check(data["flame"]["cct"] and data["flame"]["sites_in_contexts"] > 0,
              "the report says its flame graph comes from the calling context tree: %s" % data["flame"])
        # the same stacks as export --format folded (one stack builder): the
        # report's, less their source-line frame, summed, are the export's
        folded = alphaprof(["export", "--db", db, "--format", "folded"])
        check(folded.status == 0, "folded export", folded)
        want = {}
        for line in folded.out.splitlines():
            st, c = line.rsplit(" ", 1)
            want[st] = want.get(st, 0) + int(c)
        have = {}
        for path, c in data["stacks"]:
            names = [data["names"][i] for i in path]
            if len(names) >= 3 and re.match(r"^[^;\s]+:\d+$", names[-1]):
                names = names[:-1]
            if c[0]:
                key = ";".join(n.replace(";", ":") for n in names)
                have[key] = have.get(key, 0) + c[0]
        check(have == want, "the flame graph's stacks are export's folded stacks: %s"
              % sorted(set(have.items()) ^ set(want.items()))[:6])
        check(any(";_start;main;fib" in st for st in have), "fib's samples sit under main and _start")

        page = open_page(out, screenshot=os.path.join(d, "cct.png"))
        rendered(page)
        said = summary_row(page, "flame graph") or ""
        check("calling context tree" in said, "the summary says the flame graph shows CCT call stacks: %r" % said)
        frames = drawn_frames(page)
        chains = []
        for f in frames:
            if f["name"] != "fib":
                continue
            p = drawn_parent(frames, f)
            g = p and drawn_parent(frames, p)
            chains.append((p and p["name"], g and g["name"]))
        check(("main", "_start") in chains,
              "a fib frame is drawn under main, itself under _start (a real caller->callee stack): %s" % chains)
        check(("via", "main") in chains, "and fib called through via is drawn under via: %s" % chains)
        leaf_parents = {(drawn_parent(frames, f) or {}).get("name") for f in frames if f["name"] == "leaf"}
        check("fib" in leaf_parents, "leaf is drawn under its caller fib: %s" % leaf_parents)
    finally:
        cleanup(d)


def test_html_report_of_a_paired_profile_has_the_path_tables():
    d = tmpdir()
    try:
        db, _ = record(d, "paired", "drystone.elf", "--paired", "--pme-interval", "2000-2200")
        want = json.loads(alphaprof(["paths", "--db", db, "--json", "--limit", "10"], timeout=300).out)
        out = os.path.join(d, "paired.html")
        data = report_data(html(db, out))
        check(not data["flame"]["cct"], "no calling context tree here")
        page = open_page(out, screenshot=os.path.join(d, "paired.png"))
        rendered(page)
        check(page.root.by_id("paths") is not None, "the Paths section is there")
        t = page.root.by_id("paths-table")
        check(t is not None, "the paths table is there")
        heads = t.find("tr", cls="path-proc")
        check(len(heads) == len(want["procedures"]), "a heading row per procedure with samples (%d, paths %d)"
              % (len(heads), len(want["procedures"])))
        rows = [[c.all_text() for c in tr.find("td")] for tr in t.find("tr", cls="path-row")]
        expect = [(p["procedure"], x) for p in want["procedures"] for x in p["paths"]]

        def same(row, proc, x):     # shown rounded: share to 0.1 %, executions to 1
            return (row[0] == proc and row[1] == "{:,}".format(x["samples"])
                    and abs(float(row[2].rstrip("%")) - 100 * x["share"]) <= 0.05 + 1e-9
                    and abs(int(row[3].replace(",", "")) - x["executions"]) <= 0.5 + 1e-9
                    and row[4] == ("(entry) " if x["from_entry"] else "") + x["path"])
        check(len(rows) >= 10 and len(rows) == len(expect) and all(same(r, *e) for r, e in zip(rows, expect)),
              "the path rows are alphaprof paths' top 10 per procedure, in its order with its samples, shares, "
              "executions and blocks (%d rows, paths %d; first difference %s)"
              % (len(rows), len(expect), next(((r, e) for r, e in zip(rows, expect) if not same(r, *e)), None)))
        check(any(" > " in r[4] for r in rows), "paths of several blocks are shown oldest first")
        said = summary_row(page, "paths") or ""
        check("{:,}".format(want["samples"]) in said, "the summary counts the paired samples: %r" % said)
    finally:
        cleanup(d)


def close(a, b, rel=1e-8):
    """The report writes estimates to 10 significant digits."""
    return abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


def bar_stack(bar):
    """A drawn stack bar's cycles by cause (its segments' data)."""
    return {s.attrs["data-cause"]: float(s.attrs["data-cycles"]) for s in bar.find("span", cls="seg")}


def same_stack(drawn, want):
    """drawn: cause -> cycles of the segments; want: a subcommand's JSON
    stack (cause -> cycles, zeros allowed)."""
    nonzero = {k: v for k, v in want.items() if v}
    return set(drawn) == set(nonzero) and all(close(drawn[k], nonzero[k]) for k in nonzero)


def listing_rows(box):
    """The listing's rows in order: ("bubble", text) and ("insn", tr)."""
    out = []
    for tr in box.by_id("listing-table").find("tr"):
        if "bubble" in tr.classes():
            out.append(("bubble", tr.all_text()))
        elif "insn-row" in tr.classes():
            out.append(("insn", tr))
    return out


def test_html_listing_draws_profilemes_cycle_stacks_as_pme_stacks_estimates_them():
    d = tmpdir()
    try:
        db, _ = record(d, "paired", "chase.elf", "--paired", "--pme-interval", "8000-8800")
        s = alphaprof(["pme", "--stacks", "--db", db, "--json", "--limit", "0"], timeout=120)
        check(s.status == 0, "pme --stacks", s)
        want = json.loads(s.out)
        out = os.path.join(d, "stacks.html")
        data = report_data(html(db, out))
        check(data["cycles"]["pme"]["pairs"] == want["pairs"] and close(data["cycles"]["pme"]["cycles"], want["cycles"]),
              "the report's stacks are from pme --stacks's pairs and total: %s" % data["cycles"]["pme"])
        page = open_page(out, "proc=chase", screenshot=os.path.join(d, "stacks.png"))
        rendered(page)
        # the Cycles section: pme --stacks's procedures, in its order
        srows = [tr for tr in page.root.by_id("pme-summary").find("tr") if tr.find("td")]
        check(len(srows) == min(300, len(want["procedures"])) and len(srows) >= 3, "a row per procedure (%d)" % len(srows))
        for tr, w in zip(srows, want["procedures"]):
            cells = [td.all_text() for td in tr.find("td")]
            check(cells[2] == (w["procedure"] or "[outside any procedure]") and cells[3] == w["image"]
                  and close(float(tr.attrs["data-cycles"]), w["cycles"])
                  and same_stack(bar_stack(tr.find("div", cls="stackbar")[0]), w["stack"]),
                  "Cycles row %s is pme --stacks's %s" % (cells[:4], w["procedure"]))
        # its loops: pme --stacks's (header, depth, cycles and stack), most
        # cycles first (loops of equal cycles may come in either order)
        lrows = [tr for tr in page.root.by_id("pme-loops").find("tr") if tr.find("td")]
        check(len(lrows) == min(300, len(want["loops"])) >= 1, "a row per loop (%d)" % len(lrows))
        wl = {w["header"]: w for w in want["loops"]}
        drawn_cycles = []
        for tr in lrows:
            cells = [td.all_text() for td in tr.find("td")]
            w = wl.get(int(cells[4], 16))
            check(w and cells[3] == w["procedure"] and int(tr.attrs["data-depth"]) == w["depth"]
                  and close(float(tr.attrs["data-cycles"]), w["cycles"])
                  and same_stack(bar_stack(tr.find("div", cls="stackbar")[0]), w["stack"]),
                  "loop row %s is pme --stacks's loop at its header" % cells[:6])
            drawn_cycles.append(float(tr.attrs["data-cycles"]))
        check(drawn_cycles == sorted(drawn_cycles, reverse=True), "most cycles first")
        check(lrows[0].find("td")[3].all_text() == "chase", "chase's loop holds the most cycles")
        box = page.root.by_id("listing-box")
        # the procedure's summary: pme --stacks's row for chase, cause by cause
        wp = [p for p in want["procedures"] if p["procedure"] == "chase"]
        check(len(wp) == 1, "pme --stacks has chase")
        bar = page.root.by_id("listing-stack-bar")
        check(bar is not None and close(float(bar.attrs["data-cycles"]), wp[0]["cycles"]),
              "chase's stack bar holds its %.0f cycles" % wp[0]["cycles"])
        check(same_stack(bar_stack(bar), wp[0]["stack"]) and len(bar_stack(bar)) >= 2,
              "chase's stack, cause by cause, is pme --stacks's: %s vs %s" % (bar_stack(bar), wp[0]["stack"]))
        table = {tr.attrs["data-cause"]: float(tr.attrs["data-cycles"])
                 for tr in page.root.by_id("listing-stack-table").find("tr") if "data-cause" in tr.attrs}
        check(same_stack(table, wp[0]["stack"]), "and so is the table under it")
        legend = [i.all_text() for i in box.find("span", cls="legend-item")]
        check(set(legend) >= set(bar_stack(bar)), "every cause drawn is in the legend: %s" % legend)
        colours = {s.attrs.get("style", "").split("background:")[-1].strip() for s in bar.find("span", cls="seg")}
        check(len(colours) == len(bar_stack(bar)), "one colour per cause: %s" % colours)
        # every instruction: its bar is pme --stacks's instruction row
        wi = {i["pc"]: i for i in want["instructions"] if i["procedure"] == "chase"}
        drawn = {}
        for kind, tr in listing_rows(box):
            bars = tr.find("div", cls="stackbar") if kind == "insn" else []
            if bars:
                drawn[int(tr.attrs["data-pc"])] = bars[0]
        hot = [pc for pc, i in wi.items() if i["cycles"] > 0]
        check(len(hot) >= 3 and all(pc in drawn for pc in hot),
              "a stack bar for each of chase's %d instructions with cycles" % len(hot))
        for pc, b in drawn.items():
            check(pc in wi and close(float(b.attrs["data-cycles"]), wi[pc]["cycles"])
                  and same_stack(bar_stack(b), wi[pc]["stack"]),
                  "the bar at %x is pme --stacks's: %s vs %s" % (pc, bar_stack(b), wi.get(pc, {}).get("stack")))
    finally:
        cleanup(d)


def calc_bubbles(text):
    """calc PROC's text listing: pc -> the bubble lines above it."""
    out, pending = {}, []
    for line in text.splitlines():
        if re.match(r"^ {10}\S", line):
            pending.append(line.strip())
        elif re.match(r"^\s*[0-9a-f]+  \S", line) and not line.startswith("***"):
            out[int(line.split()[0], 16)] = pending
            pending = []
    return out


def test_html_listing_has_dcpicalcs_columns_on_the_in_order_core_as_calc_gives_them():
    d = tmpdir()
    try:
        db = os.path.join(d, "ev5.db")
        r = alphaprof(["record", "--deterministic", "--board", "clipper-ev5", "--events",
                       "cycles:4000-4400,imiss,dmiss,branchmp", "--db", db,
                       require(build_path("workloads", "qsort.elf"))], timeout=300)
        check(r.status == 0, "record qsort on the in-order board", r)
        summary = json.loads(alphaprof(["calc", "--summary", "--db", db, "--json", "--limit", "0"], timeout=120).out)
        proc = summary["procedures"][0]["procedure"]
        c = alphaprof(["calc", "--db", db, "--json", proc], timeout=120)
        check(c.status == 0, "calc %s" % proc, c)
        want = json.loads(c.out)
        bubbles = calc_bubbles(alphaprof(["calc", "--db", db, proc], timeout=120).out)

        # without --board: the core record stored with the profile
        out = os.path.join(d, "stored.html")
        r = alphaprof(["html", "--db", db, "-o", out], timeout=120)
        cyc = report_data(open(out).read())["cycles"] if r.status == 0 else None
        check(cyc is not None and cyc["board"] == "clipper-ev5", "without --board, the recording board's calc", r)
        # a profile that does not say its core (a daemon's): no calc columns and a hint
        nocore = os.path.join(d, "nocore.db")
        shutil.copy(db, nocore)
        with sqlite3.connect(nocore) as c:
            c.execute("UPDATE sessions SET board_config = NULL")
        out = os.path.join(d, "nocore.html")
        r = alphaprof(["html", "--db", nocore, "-o", out], timeout=120)
        check(r.status == 0 and report_data(open(out).read())["cycles"] is None, "without --board no calc", r)
        check(len(r.err.strip().splitlines()) == 1 and "--board clipper-ev5" in r.err, "and one line says why", r)

        out = os.path.join(d, "calc.html")
        data = report_data(html(db, out, "--board", "clipper-ev5"))
        check(data["cycles"]["board"] == "clipper-ev5" and data["cycles"]["pme"] is None, "calc's stacks only")
        page = open_page(out, "proc=" + proc, screenshot=os.path.join(d, "calc.png"))
        rendered(page)
        # calc --summary's table, in its order
        srows = [tr for tr in page.root.by_id("calc-summary").find("tr") if tr.find("td")]
        check(len(srows) == min(300, len(summary["procedures"])) and len(srows) >= 5, "a row per procedure")
        for tr, w in zip(srows, summary["procedures"]):
            cells = [td.all_text() for td in tr.find("td")]
            check(cells[3] == w["procedure"] and close(float(tr.attrs["data-cycles"]), w["cycles"])
                  and same_stack(bar_stack(tr.find("div", cls="stackbar")[0]), w["stack"]),
                  "summary row %s is calc --summary's %s" % (cells[:5], w["procedure"]))
        # the procedure's stack, and each instruction's columns, bubbles and stack
        bar = page.root.by_id("listing-calc-bar")
        check(close(float(bar.attrs["data-cycles"]), want["cycles"]) and same_stack(bar_stack(bar), want["stack"]),
              "%s's stack is calc's: %s vs %s" % (proc, bar_stack(bar), want["stack"]))
        box = page.root.by_id("listing-box")
        heads = [th.all_text() for th in box.by_id("listing-table").find("th")]
        check({"executions", "conf", "CPI", "culprit", "calc stack"} <= set(heads), "calc's columns: %s" % heads)
        wi = {i["address"]: i for i in want["instructions"]}
        seen, above, with_bubbles, with_culprit = set(), [], 0, 0
        for kind, x in listing_rows(box):
            if kind == "bubble":
                above.append(x)
                continue
            pc = int(x.attrs["data-pc"])
            w = wi.get(pc)
            check(w is not None, "instruction %x is in calc's listing" % pc)
            seen.add(pc)
            culprit = x.attrs.get("data-culprit")
            check(close(float(x.attrs["data-executions"]), w["executions"]) and close(float(x.attrs["data-cpi"]), w["cpi"])
                  and (culprit == "" if w["culprit"] is None else int(culprit) == w["culprit"]),
                  "%x: executions, CPI and culprit are calc's (%s, %s, %s vs %s, %s, %s)"
                  % (pc, x.attrs["data-executions"], x.attrs["data-cpi"], culprit, w["executions"], w["cpi"], w["culprit"]))
            bars = x.find("div", cls="stackbar")
            check(same_stack(bar_stack(bars[0]) if bars else {}, w["stack"]),
                  "%x: its stack is calc's: %s" % (pc, w["stack"]))
            check(above == bubbles.get(pc), "%x: the bubbles above it are calc's: %s vs %s" % (pc, above, bubbles.get(pc)))
            with_bubbles += bool(above)
            with_culprit += culprit != ""
            above = []
        check(seen == set(wi), "every instruction of %s listed (%d of %d)" % (proc, len(seen), len(wi)))
        check(with_bubbles >= 2 and with_culprit >= 1, "stalls drawn as bubbles (%d instructions), culprits named (%d)"
              % (with_bubbles, with_culprit))
    finally:
        cleanup(d)
