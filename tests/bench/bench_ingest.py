"""Host ingest rate (issue 4): a link stream made by the encoder, as the
firmware sends it, decoded and merged into a fresh profile database by the
ingest loop (build/tests/bench/ingest-bench, tests/bench/ingest-bench.c).

"hot": DCPI hash-table entries for 4 cores x 3 events over a 64 KiB image,
most of them in a 1 KiB loop, so flushes bring back the same instructions,
as in a real profile.  "cold": every entry a new database row (worst case).
"""
import json
import subprocess
import tempfile

from benchlib import Table
from harness import build_path, require


def run(build):
    exe = require(build_path("tests", "bench", "ingest-bench"), "the ingest benchmark")
    with tempfile.TemporaryDirectory(prefix="alphaprof-bench-") as d:
        p = subprocess.run([exe, d, "4000000"], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError("ingest-bench failed: %s" % p.stderr)
    cases = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    t = Table("ingest", "Host ingest: link stream -> decoder -> profile database (SQLite, WAL)",
              ["case", "entries", "samples", "rows", "link B/entry", "commits", "seconds",
               "entries/s"])
    for c in cases:
        t.add(c["case"], c["entries"], c["samples"], c["rows"],
              c["stream_bytes"] / max(1, c["entries"]), c["commits"], c["seconds"],
              c["entries_per_s"])
    hot = next(c for c in cases if c["case"] == "hot")
    t.target("ingest rate, hot profile", "%.0f entries/s" % hot["entries_per_s"],
             ">= 1,000,000 entries/s", hot["entries_per_s"] >= 1e6)
    t.notes = ("Merges are summed in memory and written every 250 ms as sorted UPSERTs in one "
               "transaction; the cold case is bounded by SQLite inserting one B-tree row per entry.")
    return [t]
