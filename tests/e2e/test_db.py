"""End-to-end tests of `alphaprof db` on real database files (no QEMU):
creating, listing and starting epochs, dumps as tables and as JSON that
Python's json module reads, the schema, and clear errors for missing,
foreign and damaged files."""
import json
import os
import sqlite3

from harness import alphaprof, check, cleanup, tmpdir


def test_db_init_epochs_dump():
    d = tmpdir()
    try:
        db = os.path.join(d, "p.db")
        r = alphaprof(["db", "--db", db, "init"])
        check(r.status == 0 and "current epoch 1" in r.out, "init creates epoch 1", r)
        r = alphaprof(["db", "--db", db, "new-epoch", "--note", "after warm-up"])
        check(r.status == 0 and "epoch 2 started" in r.out, "new-epoch starts epoch 2", r)

        # samples written behind the tool's back, as the ingest would
        con = sqlite3.connect(db)
        con.execute("INSERT INTO samples VALUES (2, 0, 0, 1, 16777280, 41)")
        con.execute("INSERT INTO drops VALUES (2, 1, 'overflow_full', 3)")
        con.commit()
        con.close()

        r = alphaprof(["db", "--db", db])          # epochs is the default action
        check(r.status == 0, "epochs lists", r)
        lines = r.out.splitlines()
        check(lines[0].split()[:3] == ["epoch", "started", "ended"], "a header line", r)
        check(len(lines) == 3 and "current" in lines[2] and "after warm-up" in lines[2],
              "two epochs, the second current", r)
        check(lines[2].split()[4:6] == ["41", "0"], "epoch 2 holds the 41 samples", r)

        r = alphaprof(["db", "--db", db, "epochs", "--json"])
        doc = json.loads(r.out)
        check([e["epoch"] for e in doc["epochs"]] == [1, 2], "JSON epochs", r)
        check(doc["epochs"][1]["samples"] == 41 and doc["epochs"][1]["dropped"] == 3,
              "JSON totals", r)

        r = alphaprof(["db", "--db", db, "dump", "--json"])
        doc = json.loads(r.out)
        for t in ("meta", "epochs", "samples", "pme", "pairs", "pair_records", "drops"):
            check(t in doc, "dump has table %s" % t, r)
        check(doc["samples"] == [{"epoch": 2, "image": 0, "event": 0, "core": 1,
                                  "offset": 16777280, "count": 41}], "the sample row", r)
        check(doc["images"][0]["name"] == "[unknown]", "image 0 is the unknown profile", r)

        r = alphaprof(["db", "--db", db, "dump", "--table", "samples", "--epoch", "1"])
        check(r.status == 0 and "(no rows)" in r.out, "epoch 1 has no samples", r)
        r = alphaprof(["db", "--db", db, "dump", "--table", "samples"])
        check("0x1000040" in r.out and "41" in r.out, "offsets in hex in tables", r)

        r = alphaprof(["db", "schema"])
        check(r.status == 0 and "CREATE TABLE samples" in r.out, "schema prints the SQL", r)
        # the printed schema is the real one
        con = sqlite3.connect(":memory:")
        con.executescript(r.out)
        con.close()
    finally:
        cleanup(d)


def test_db_errors():
    d = tmpdir()
    try:
        missing = os.path.join(d, "none.db")
        r = alphaprof(["db", "--db", missing])
        check(r.status == 1 and "no profile database at " + missing in r.err
              and "alphaprof db --db %s init" % missing in r.err,
              "a missing database is named with the way out", r)
        check(not os.path.exists(missing), "reading does not create", r)

        text = os.path.join(d, "notes.txt")
        with open(text, "w") as f:
            f.write("not a database at all, but long enough to have a header\n" * 4)
        r = alphaprof(["db", "--db", text, "dump"])
        check(r.status == 1 and "is not an alphaprof profile database" in r.err,
              "a text file is refused", r)

        damaged = os.path.join(d, "damaged.db")
        alphaprof(["db", "--db", damaged, "init"])
        with open(damaged, "r+b") as f:        # SQLite's header: magic string
            f.write(b"garbage garbage!")
        r = alphaprof(["db", "--db", damaged])
        check(r.status == 1 and "damaged.db" in r.err and "not an alphaprof profile" in r.err,
              "a damaged header is refused", r)

        foreign = os.path.join(d, "other.db")
        con = sqlite3.connect(foreign)
        con.execute("CREATE TABLE accounts (id INTEGER)")
        con.commit()
        con.close()
        r = alphaprof(["db", "--db", foreign, "new-epoch"])
        check(r.status == 1 and "not an alphaprof profile database" in r.err,
              "someone else's SQLite file is refused, not changed", r)

        r = alphaprof(["db", "--db", foreign, "frob"])
        check(r.status == 2 and "unknown action 'frob'" in r.err, "bad action: status 2", r)
        r = alphaprof(["db", "--db", foreign, "epochs", "--table", "samples"])
        check(r.status == 2, "--table without dump: status 2", r)
        r = alphaprof(["db", "--help"])
        check(r.status == 0 and "new-epoch" in r.out, "--help", r)
        r = alphaprof(["db", "--db", os.path.join(d, "p.db"), "init"], env={"ALPHAPROF_DB": ""})
        check(r.status == 0, "init", r)
        r = alphaprof(["db"], env={"ALPHAPROF_DB": os.path.join(d, "p.db")})
        check(r.status == 0 and "first epoch" in r.out, "$ALPHAPROF_DB is the default", r)
    finally:
        cleanup(d)


def test_processes_creating_one_new_database_at_once_all_succeed():
    """(two records started on one new file: the second once failed with
    SQLite's "table meta already exists" and recorded nothing)"""
    import subprocess
    from harness import build_path
    d = tmpdir()
    try:
        for round in range(6):
            db = os.path.join(d, "p%d.db" % round)
            procs = [subprocess.Popen([build_path("host", "alphaprof"), "db", "--db", db, "init"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(6)]
            for p in procs:
                out, err = p.communicate(timeout=60)
                check(p.returncode == 0 and "current epoch 1" in out, "every init succeeds: %s" % err)
            epochs = sqlite3.connect(db).execute("SELECT count(*) FROM epochs").fetchone()[0]
            check(epochs == 1, "one schema, one first epoch (%d)" % epochs)
    finally:
        cleanup(d)
