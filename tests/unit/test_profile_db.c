/* The profile database on real SQLite files in a temporary directory:
 * creation, refusal of wrong files, merges that add up, epochs, images,
 * pairs, dumps, and a writer killed at random moments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/profile-db.h"

struct fixture {
    char dir[64];
    char path[128];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/alphaprof-dbtest-XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/profile.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    DIR *d = opendir(f->dir);
    if (d) {
        struct dirent *e;
        char p[400];
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(p, sizeof p, "%s/%s", f->dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

static struct pdb *open_ok(const char *path, enum pdb_mode mode)
{
    struct pdb *db;
    struct ap_err err;
    if (pdb_open(path, mode, &db, &err) != 0)
        fail_msg("pdb_open %s: %s", path, err.msg);
    return db;
}

static int64_t q(struct pdb *db, const char *sql)
{
    int64_t v = -12345;
    struct ap_err err;
    if (pdb_query_int(db, sql, &v, &err) != 0)
        fail_msg("%s: %s", sql, err.msg);
    return v;
}

static void commit_ok(struct pdb *db)
{
    struct ap_err err;
    if (pdb_commit(db, &err) != 0)
        fail_msg("commit: %s", err.msg);
}

static void expect_open_error(const char *path, enum pdb_mode mode, const char *needle)
{
    struct pdb *db;
    struct ap_err err = {{0}};
    assert_int_equal(pdb_open(path, mode, &db, &err), -1);
    assert_null(db);
    if (!strstr(err.msg, needle))
        fail_msg("error for %s lacks '%s': %s", path, needle, err.msg);
    if (!strstr(err.msg, path))
        fail_msg("error does not name the file: %s", err.msg);
}

/* Changes a file behind the profile database's back. */
static void raw_sql(const char *path, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_create_and_reopen(void **state)
{
    struct fixture *f = *state;
    expect_open_error(f->path, PDB_READ, "no profile database");
    expect_open_error(f->path, PDB_WRITE, "alphaprof db --db");
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    assert_string_equal(pdb_path(db), f->path);
    assert_int_equal(q(db, "SELECT count(*) FROM epochs"), 1);
    int64_t e;
    struct ap_err err;
    assert_int_equal(pdb_current_epoch(db, &e, &err), 0);
    assert_int_equal(e, 1);
    assert_int_equal(q(db, "SELECT count(*) FROM images WHERE id = 0 AND name = '[unknown]'"), 1);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    pdb_close(db);

    /* WAL mode sticks to the file; reopening does not recreate */
    db = open_ok(f->path, PDB_READ);
    assert_int_equal(q(db, "SELECT count(*) FROM epochs"), 1);
    assert_int_equal(q(db, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
    pdb_close(db);
    db = open_ok(f->path, PDB_CREATE);
    assert_int_equal(q(db, "SELECT count(*) FROM epochs"), 1);
    pdb_close(db);
}

static void test_refuses_wrong_files(void **state)
{
    struct fixture *f = *state;
    char p[200];

    snprintf(p, sizeof p, "%s/notes.txt", f->dir);
    write_file(p, "this is not a database, just text long enough to look like a header...\n");
    expect_open_error(p, PDB_READ, "not an alphaprof profile database");
    expect_open_error(p, PDB_CREATE, "not an alphaprof profile database");   /* never clobbered */

    snprintf(p, sizeof p, "%s/empty.db", f->dir);
    write_file(p, "");
    expect_open_error(p, PDB_READ, "empty");

    snprintf(p, sizeof p, "%s/foreign.db", f->dir);
    raw_sql(p, "CREATE TABLE accounts (id INTEGER)");
    expect_open_error(p, PDB_READ, "not an alphaprof profile database (it has no meta table)");
    expect_open_error(p, PDB_CREATE, "no meta table");
    raw_sql(p, "CREATE TABLE meta (key TEXT, value TEXT); INSERT INTO meta VALUES ('format', 'other')");
    expect_open_error(p, PDB_READ, "meta has no format");

    snprintf(p, sizeof p, "%s/newer.db", f->dir);
    struct pdb *db = open_ok(p, PDB_CREATE);
    pdb_close(db);
    raw_sql(p, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
    expect_open_error(p, PDB_READ, "schema version 99");
    struct ap_err err;

    expect_open_error(f->dir, PDB_READ, "is a directory");

    /* read-only handles refuse writes with a clear message */
    db = open_ok(f->path, PDB_CREATE);
    pdb_close(db);
    db = open_ok(f->path, PDB_READ);
    int64_t e;
    assert_int_equal(pdb_new_epoch(db, NULL, &e, &err), -1);
    assert_non_null(strstr(err.msg, "read-only"));
    pdb_close(db);
}

static void test_samples_add_up(void **state)
{
    struct fixture *f = *state;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    for (int round = 0; round < 3; round++) {
        for (uint64_t off = 0; off < 4000; off += 4) {
            pdb_add_samples(db, 1, 0, 0, 0, 0x01000000 + off, 1);      /* unknown image */
            pdb_add_samples(db, 1, 0, 0, 0, 0x01000000 + off, 2);      /* same key: adds */
            pdb_add_samples(db, 1, 0, 3, 1, 0x01000000 + off, 5);
        }
        assert_int_equal(pdb_pending(db), 2000);
        commit_ok(db);
        assert_int_equal(pdb_pending(db), 0);
    }
    assert_int_equal(q(db, "SELECT count(*) FROM samples"), 2000);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples WHERE event = 0"), 3 * 3 * 1000);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples WHERE event = 3 AND core = 1"), 3 * 5 * 1000);
    assert_int_equal(q(db, "SELECT count FROM unknown_samples WHERE pc = 16777220 AND event = 0"), 9);

    /* KSEG addresses survive as two's complement */
    pdb_add_samples(db, 1, 0, 1, 0, 0xfffffc0000310000ULL, 7);
    pdb_set_period(db, 1, 1, 0, 60000);
    pdb_set_period(db, 1, 1, 0, 62000);     /* the last wins */
    commit_ok(db);
    assert_int_equal((uint64_t)q(db, "SELECT offset FROM samples WHERE event = 1"), 0xfffffc0000310000ULL);
    assert_int_equal(q(db, "SELECT period FROM periods WHERE event = 1"), 62000);

    /* an empty commit is fine */
    commit_ok(db);
    pdb_close(db);
}

static void test_pme_pairs_drops(void **state)
{
    struct fixture *f = *state;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    struct lk_pme_agg a;
    memset(&a, 0, sizeof a);
    a.samples = 10;
    a.retired = 8;
    a.aborted = 2;
    a.bits[0] = 3;
    a.bits[4] = 1;              /* bits 1..3 are zero: not stored */
    a.lat[0] = 100;
    a.lat[1] = 0;
    a.lat[2] = 55;
    pdb_add_pme(db, 1, 0, 2, 0x1000, &a, 6, 3);
    pdb_add_pme(db, 1, 0, 2, 0x1000, &a, 6, 3);
    commit_ok(db);
    pdb_add_pme(db, 1, 0, 2, 0x1000, &a, 6, 3);
    commit_ok(db);
    assert_int_equal(q(db, "SELECT samples FROM pme"), 30);
    assert_int_equal(q(db, "SELECT retired FROM pme"), 24);
    assert_int_equal(q(db, "SELECT aborted FROM pme"), 6);
    assert_int_equal(q(db, "SELECT count(*) FROM pme_bits"), 2);
    assert_int_equal(q(db, "SELECT count FROM pme_bits WHERE bit = 4"), 3);
    assert_int_equal(q(db, "SELECT count(*) FROM pme_latency"), 3);
    assert_int_equal(q(db, "SELECT sum FROM pme_latency WHERE field = 2"), 165);

    struct lk_pair p;
    memset(&p, 0, sizeof p);
    p.distance = 12;
    p.gap = 3;
    p.rec[0].events = 0x5;
    p.rec[0].addr = 0x08000010;
    p.rec[0].history = 0xabc;
    p.rec[0].lat[0] = 4;
    p.rec[0].lat[1] = 18446744073709551615ULL;
    p.rec[1].lat[1] = 9;
    struct pdb_pair_record where[2] = {{0, 0x1000, &p.rec[0]}, {0, 0x1010, &p.rec[1]}};
    pdb_add_pair(db, 1, 0, 3, &p, 2, where, 1);
    pdb_add_pair(db, 1, 0, 3, &p, 0, where, 1);
    assert_int_equal(pdb_pending(db), 2);
    commit_ok(db);
    assert_int_equal(q(db, "SELECT count(*) FROM pairs"), 2);
    assert_int_equal(q(db, "SELECT count(*) FROM pair_records"), 4);
    assert_int_equal(q(db, "SELECT count(*) FROM pair_records WHERE latencies = '[4,18446744073709551615]'"), 1);
    assert_int_equal(q(db, "SELECT count(*) FROM pair_records WHERE latencies = '[]'"), 2);
    assert_int_equal(q(db, "SELECT json_extract(latencies, '$[1]') FROM pair_records WHERE slot = 1"
                           " AND latencies != '[]'"), 9);
    assert_int_equal(q(db, "SELECT sum(distance) FROM pairs"), 24);

    pdb_add_drop(db, 1, 0, "overflow_full", 3);
    pdb_add_drop(db, 1, 0, "overflow_full", 4);
    pdb_add_drop(db, 1, PDB_CORE_HOST, "link_bad_frames", 1);
    pdb_add_drop(db, 1, 1, "ring_overflow", 0);     /* nothing dropped: no row */
    pdb_add_stat(db, 1, 0, "samples_taken", 1000);
    pdb_add_stat(db, 1, 0, "samples_taken", 1);
    commit_ok(db);
    assert_int_equal(q(db, "SELECT count FROM drops WHERE reason = 'overflow_full' AND core = 0"), 7);
    assert_int_equal(q(db, "SELECT count FROM drops WHERE core = -1"), 1);
    assert_int_equal(q(db, "SELECT count(*) FROM drops"), 2);
    assert_int_equal(q(db, "SELECT value FROM stats WHERE name = 'samples_taken'"), 1001);
    pdb_close(db);
}

static void test_epochs_images_sessions(void **state)
{
    struct fixture *f = *state;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    struct ap_err err;
    int64_t e, cur;
    assert_int_equal(pdb_new_epoch(db, "after warm-up", &e, &err), 0);
    assert_int_equal(e, 2);
    assert_int_equal(pdb_current_epoch(db, &cur, &err), 0);
    assert_int_equal(cur, 2);
    assert_int_equal(q(db, "SELECT count(*) FROM epochs WHERE ended IS NULL"), 1);
    assert_int_equal(q(db, "SELECT count(*) FROM epochs WHERE id = 1 AND ended IS NOT NULL"), 1);
    pdb_add_samples(db, 1, 0, 0, 0, 0x10, 1);
    pdb_add_samples(db, 2, 0, 0, 0, 0x10, 1);
    commit_ok(db);
    assert_int_equal(q(db, "SELECT count(*) FROM samples"), 2);

    uint8_t id1[20], id2[20];
    for (int i = 0; i < 20; i++) {
        id1[i] = (uint8_t)i;
        id2[i] = (uint8_t)(i + 1);
    }
    int64_t a, b, c, d;
    assert_int_equal(pdb_image(db, "chase", id1, 20, NULL, &a, &err), 0);
    assert_int_equal(pdb_image(db, "chase", id1, 20, "build/workloads/chase.elf", &b, &err), 0);
    assert_int_equal(a, b);
    assert_int_equal(pdb_image(db, "chase", id2, 20, NULL, &c, &err), 0);
    assert_true(c != a);
    assert_int_equal(pdb_image(db, "copy", id1, 8, NULL, &d, &err), 0);
    assert_true(d != a && d != c && a > 0);
    assert_int_equal(q(db, "SELECT count(*) FROM images WHERE path = 'build/workloads/chase.elf'"), 1);
    assert_int_equal(q(db, "SELECT length(build_id) FROM images WHERE name = 'copy'"), 8);
    pdb_close(db);
    /* a fresh handle finds the same ids in the file */
    db = open_ok(f->path, PDB_WRITE);
    int64_t a2;
    assert_int_equal(pdb_image(db, "chase", id1, 20, NULL, &a2, &err), 0);
    assert_int_equal(a2, a);
    assert_int_equal(q(db, "SELECT count(*) FROM images WHERE path IS NOT NULL"), 1);  /* path kept */

    struct lk_hello h = {LK_PROTO_VERSION, 4, LK_CAP_COUNTERS, 1000000000,
                         {(const uint8_t *)"clipper", 7}, {(const uint8_t *)"fw 1", 4}, 0, 1, 0, 0, 0, 0, 0, 0};
    int64_t s;
    assert_int_equal(pdb_session_begin(db, 2, &h, &s, &err), 0);
    assert_int_equal(pdb_loadmap(db, s, 2, a, 0x01000000, 0x20000, true, &err), 0);
    assert_int_equal(pdb_loadmap(db, s, 2, d, 0x01020000, 0x10000, true, &err), 0);
    assert_int_equal(pdb_loadmap(db, s, 2, d, 0x01020000, 0x10000, false, &err), 0);
    struct lk_end end = {-1, LK_END_FATAL, 5};
    assert_int_equal(pdb_session_end(db, s, &end, &err), 0);
    assert_int_equal(q(db, "SELECT count(*) FROM loadmaps WHERE unloaded_epoch IS NULL"), 1);
    assert_int_equal(q(db, "SELECT exit_status FROM sessions"), -1);
    assert_int_equal(q(db, "SELECT ncores FROM sessions WHERE board = 'clipper'"), 4);

    assert_int_equal(pdb_set_name(db, PDB_NAMES_EVENT, 0, "CYCLES", &err), 0);
    assert_int_equal(pdb_set_name(db, PDB_NAMES_EVENT, 0, "cycles", &err), 0);
    assert_int_equal(q(db, "SELECT count(*) FROM names WHERE name = 'cycles'"), 1);
    pdb_close(db);
}

static char *dump_to_string(struct pdb *db, const char *const *names, size_t n, int64_t epoch,
                            bool json, int *rc, struct ap_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    *rc = pdb_dump(db, out, names, n, epoch, json, err);
    fclose(out);
    return buf;
}

static void test_dump(void **state)
{
    struct fixture *f = *state;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    struct ap_err err;
    int64_t e;
    pdb_add_samples(db, 1, 0, 0, 0, 0x01000040, 12345);
    commit_ok(db);
    assert_int_equal(pdb_new_epoch(db, "second \"quoted\"", &e, &err), 0);
    pdb_add_samples(db, 2, 0, 0, 1, 0x01000080, 7);
    commit_ok(db);
    int rc;

    char *text = dump_to_string(db, NULL, 0, 0, false, &rc, &err);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(text, "== samples =="));
    assert_non_null(strstr(text, "0x1000040"));
    assert_non_null(strstr(text, "12345"));
    const char *pr = strstr(text, "== pair_records ==\npair  slot  image  offset");
    assert_non_null(pr);
    assert_non_null(strstr(pr, "\n(no rows)\n"));
    free(text);

    const char *only[] = {"samples", "epochs"};
    text = dump_to_string(db, only, 2, 2, true, &rc, &err);
    assert_int_equal(rc, 0);
    assert_null(strstr(text, "12345"));             /* epoch 1 filtered out */
    assert_non_null(strstr(text, "\"offset\": 16777344"));
    assert_non_null(strstr(text, "\"note\": \"second \\\"quoted\\\"\""));
    assert_null(strstr(text, "== "));
    free(text);

    const char *bad[] = {"sampels"};
    text = dump_to_string(db, bad, 1, 0, false, &rc, &err);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, "no table 'sampels'"));
    assert_non_null(strstr(err.msg, "pme_latency"));
    free(text);

    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_int_equal(pdb_list_epochs(db, out, false, &err), 0);
    fclose(out);
    assert_non_null(strstr(buf, "epoch"));
    assert_non_null(strstr(buf, "current"));
    assert_non_null(strstr(buf, "12345"));
    free(buf);
    pdb_close(db);
}

/* Readers see committed data while a writer holds pending merges. */
static void test_reader_while_writing(void **state)
{
    struct fixture *f = *state;
    struct pdb *w = open_ok(f->path, PDB_CREATE);
    pdb_add_samples(w, 1, 0, 0, 0, 4, 1);
    commit_ok(w);
    struct pdb *r = open_ok(f->path, PDB_READ);
    pdb_add_samples(w, 1, 0, 0, 0, 8, 1);
    assert_int_equal(q(r, "SELECT count(*) FROM samples"), 1);      /* pending is not visible */
    commit_ok(w);
    assert_int_equal(q(r, "SELECT count(*) FROM samples"), 2);
    pdb_close(r);
    pdb_close(w);
}

/*
 * A writer killed at any moment: the database opens, passes SQLite's
 * integrity check, and holds every commit the writer acknowledged (and at
 * most the one it was in the middle of).
 */
#define KILL_ROWS 500

static void writer(const char *path, int ack_fd)
{
    struct pdb *db;
    struct ap_err err;
    if (pdb_open(path, PDB_CREATE, &db, &err) != 0)
        _exit(3);
    for (uint32_t i = 1;; i++) {
        for (uint64_t off = 0; off < KILL_ROWS; off++)
            pdb_add_samples(db, 1, 0, 0, 0, off * 4, 1);
        pdb_add_stat(db, 1, PDB_CORE_HOST, "commits", 1);
        if (pdb_commit(db, &err) != 0)
            _exit(4);
        if (write(ack_fd, &i, sizeof i) != sizeof i)
            _exit(5);
    }
}

static void test_killed_writer(void **state)
{
    struct fixture *f = *state;
    srand(7);
    int64_t before = 0;                     /* commits of earlier trials in the file */
    for (int trial = 0; trial < 12; trial++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            writer(f->path, fds[1]);
        }
        close(fds[1]);
        /* let it commit a few times, then kill it somewhere */
        uint32_t acked = 0, a;
        int want = 1 + rand() % 5;
        for (int i = 0; i < want; i++)
            if (read(fds[0], &a, sizeof a) == sizeof a)
                acked = a;
        struct timespec ts = {0, (rand() % 3000) * 1000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFSIGNALED(status));
        while (read(fds[0], &a, sizeof a) == sizeof a)
            acked = a;                      /* acks sent before the kill */
        close(fds[0]);

        struct pdb *db = open_ok(f->path, PDB_READ);
        int64_t ok;
        struct ap_err err;
        assert_int_equal(pdb_query_int(db, "SELECT count(*) FROM pragma_integrity_check"
                                           " WHERE integrity_check = 'ok'", &ok, &err), 0);
        assert_int_equal(ok, 1);
        int64_t commits = q(db, "SELECT coalesce((SELECT value FROM stats WHERE name = 'commits'), 0)");
        int64_t total = q(db, "SELECT coalesce(sum(count), 0) FROM samples");
        pdb_close(db);
        int64_t mine = commits - before;
        if (mine < acked || mine > (int64_t)acked + 1)
            fail_msg("trial %d: %lld commits in the file, %u acknowledged", trial,
                     (long long)mine, acked);
        assert_int_equal(total, commits * KILL_ROWS);     /* whole transactions only */
        before = commits;
    }
}

/* Sessions keep the run id of the oracle recorded with them (schema 2); a
 * schema-1 file reads as it is (no run ids known) and is migrated, in
 * place and keeping its rows, when opened for writing. */
static void begin_session(struct pdb *db, int64_t *s)
{
    struct lk_hello h;
    memset(&h, 0, sizeof h);
    h.ncores = 1;
    struct ap_err err;
    assert_int_equal(pdb_session_begin(db, 1, &h, s, &err), 0);
}

static void test_oracle_run_ids_and_the_schema_1_migration(void **state)
{
    struct fixture *f = *state;
    struct ap_err err;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    int64_t s1, s2, s3, last;
    uint64_t ids[4];
    size_t n;
    char path[64];
    begin_session(db, &s1);
    assert_int_equal(pdb_last_session(db, &last, &err), 0);
    begin_session(db, &s2);
    begin_session(db, &s3);
    assert_int_equal(pdb_set_oracle(db, last, 0xfeedfacecafebeefull, "/tmp/o", &err), 0);
    assert_int_equal(q(db, "SELECT count(*) FROM sessions WHERE oracle_run_id IS NULL"), 1);
    assert_int_equal(pdb_oracle_runs(db, 0, ids, 4, &n, path, sizeof path, &err), 0);
    assert_int_equal(n, 1);
    assert_true(ids[0] == 0xfeedfacecafebeefull);      /* >= 2^63 survives the signed column */
    assert_string_equal(path, "/tmp/o");
    assert_int_equal(pdb_oracle_runs(db, 7, ids, 4, &n, NULL, 0, &err), 0);
    assert_int_equal(n, 0);                             /* no sessions in epoch 7 */
    pdb_close(db);

    /* the same file as schema 1 wrote it */
    raw_sql(f->path, "DROP TABLE sessions;"
                     "CREATE TABLE sessions (id INTEGER PRIMARY KEY, epoch INTEGER NOT NULL,"
                     " started TEXT NOT NULL, ended TEXT, board TEXT, firmware TEXT, ncores INTEGER,"
                     " caps INTEGER, timebase_hz INTEGER, exit_status INTEGER, end_how INTEGER);"
                     "INSERT INTO sessions(epoch, started) VALUES (1, 'then'), (1, 'then'), (1, 'then');"
                     "UPDATE meta SET value = '1' WHERE key = 'schema_version'");
    db = open_ok(f->path, PDB_READ);
    assert_int_equal(pdb_oracle_runs(db, 0, ids, 4, &n, path, sizeof path, &err), 0);
    assert_int_equal(n, 0);
    assert_string_equal(path, "");
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), 1);
    pdb_close(db);
    db = open_ok(f->path, PDB_WRITE);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    assert_int_equal(q(db, "SELECT count(*) FROM sessions WHERE oracle_run_id IS NULL"), 3);
    assert_int_equal(pdb_set_oracle(db, s2, 5, "/tmp/p", &err), 0);
    assert_int_equal(pdb_oracle_runs(db, -1, ids, 4, &n, NULL, 0, &err), 0);
    assert_int_equal(n, 1);
    assert_true(ids[0] == 5);
    pdb_close(db);
}

/* The board configuration record ran on (schema 7) names the core calc,
 * pme --stacks and html analyse with: the newest session's of the epoch
 * that has one; a schema-6 file reads as having none and gains the column,
 * empty, when opened for writing. */
static void test_the_board_config_is_the_newest_sessions_and_the_schema_6_migration(void **state)
{
    struct fixture *f = *state;
    struct ap_err err;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    int64_t s, last;
    char *b = pdb_board_config(db, 0);
    assert_null(b);                                     /* no sessions */
    begin_session(db, &s);                              /* a daemon's: not known */
    assert_int_equal(pdb_last_session(db, &last, &err), 0);
    begin_session(db, &s);
    assert_int_equal(pdb_set_board_config(db, last, "clipper-ev5", &err), 0);
    assert_int_equal(pdb_last_session(db, &last, &err), 0);
    begin_session(db, &s);
    assert_int_equal(pdb_set_board_config(db, last, "clipper-pm", &err), 0);
    begin_session(db, &s);                              /* newer, but not known */
    assert_int_equal(pdb_commit(db, &err), 0);
    b = pdb_board_config(db, 0);
    assert_string_equal(b, "clipper-pm");
    free(b);
    b = pdb_board_config(db, 2);                        /* an epoch with no sessions */
    assert_null(b);
    assert_int_equal(q(db, "SELECT count(*) FROM sessions WHERE board_config IS NULL"), 2);
    pdb_close(db);

    raw_sql(f->path, "CREATE TABLE old AS SELECT id, epoch, started, ended, board, firmware, ncores, caps,"
                     " timebase_hz, exit_status, end_how, oracle_run_id, oracle FROM sessions;"
                     "DROP TABLE sessions; ALTER TABLE old RENAME TO sessions;"
                     "UPDATE meta SET value = '6' WHERE key = 'schema_version'");
    db = open_ok(f->path, PDB_READ);
    assert_null(pdb_board_config(db, -1));
    pdb_close(db);
    db = open_ok(f->path, PDB_WRITE);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    assert_int_equal(q(db, "SELECT count(*) FROM sessions WHERE board_config IS NULL"), 4);
    assert_int_equal(pdb_set_board_config(db, 3, "clipper-ev5", &err), 0);
    assert_int_equal(pdb_commit(db, &err), 0);
    b = pdb_board_config(db, -1);
    assert_string_equal(b, "clipper-ev5");
    free(b);
    pdb_close(db);
}

/* The period each core achieved (schema 3): the FLUSH stats timer_ns over
 * timer_timed, per epoch and core, summed as merged; a schema-2 file gains
 * the view when opened for writing. */
/* cct_cores.metrics (v10): each core's tree says whether it has metrics
 * (instrument --cct --metrics) or counts only; a schema 9 file gains the
 * column, its trees (all with metrics) NULL, read as metrics. */
static void test_a_trees_metrics_flag_is_kept_per_core_and_the_schema_9_migration(void **state)
{
    struct fixture *f = *state;
    struct ap_err err;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    int64_t s;
    begin_session(db, &s);
    assert_int_equal(pdb_put_cct_core(db, s, 1, 0, 5, 0, 0, false, &err), 0);
    assert_int_equal(pdb_put_cct_core(db, s, 1, 1, 7, 0, 0, true, &err), 0);
    assert_int_equal(pdb_commit(db, &err), 0);
    assert_int_equal(q(db, "SELECT total FROM cct_cores WHERE metrics = 0"), 5);
    assert_int_equal(q(db, "SELECT total FROM cct_cores WHERE metrics = 1"), 7);
    pdb_close(db);
    raw_sql(f->path, "CREATE TABLE old AS SELECT session, core, epoch, total, skipped_calls, overflow_calls"
                     " FROM cct_cores; DROP TABLE cct_cores; ALTER TABLE old RENAME TO cct_cores;"
                     "UPDATE meta SET value = '9' WHERE key = 'schema_version'");
    db = open_ok(f->path, PDB_WRITE);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    assert_int_equal(q(db, "SELECT count(*) FROM cct_cores WHERE metrics IS NULL"), 2);
    pdb_close(db);
}

/* cct_path_counts (v11): paths per context are kept by (core, record,
 * path); a frame taken twice stores each once; a schema 10 file gains the
 * table, empty. */
static void test_paths_per_context_are_kept_per_record_and_the_schema_10_migration(void **state)
{
    struct fixture *f = *state;
    struct ap_err err;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    int64_t s;
    begin_session(db, &s);
    assert_int_equal(pdb_put_cct_path_count(db, s, 1, 0, 5, 3, 40, NULL, &err), 0);
    assert_int_equal(pdb_put_cct_path_count(db, s, 1, 0, 5, 3, 40, NULL, &err), 0);
    assert_int_equal(pdb_put_cct_path_count(db, s, 1, 1, 5, 3, 2, NULL, &err), 0);
    assert_int_equal(pdb_commit(db, &err), 0);
    assert_int_equal(q(db, "SELECT sum(count) FROM cct_path_counts WHERE record = 5 AND path = 3"), 42);
    pdb_close(db);
    raw_sql(f->path, "DROP TABLE cct_path_counts; UPDATE meta SET value = '10' WHERE key = 'schema_version'");
    db = open_ok(f->path, PDB_WRITE);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    assert_int_equal(q(db, "SELECT count(*) FROM cct_path_counts"), 0);
    pdb_close(db);
}

/* cct_path_counts.cycles and .event (v12, instrument --both --metrics):
 * each (core, record, path) keeps its metrics beside its count, a frame
 * taken twice (a resend, a takeover's replay) stores them once, counts-only
 * rows keep NULL; a schema 11 file gains the columns, its rows NULL, its
 * counts as they were. */
static void test_paths_per_context_keep_their_metrics_once_and_the_schema_11_migration(void **state)
{
    struct fixture *f = *state;
    struct ap_err err;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    int64_t s;
    begin_session(db, &s);
    const uint64_t m[2] = {900, 12};
    assert_int_equal(pdb_put_cct_path_count(db, s, 1, 0, 5, 3, 40, m, &err), 0);
    assert_int_equal(pdb_put_cct_path_count(db, s, 1, 0, 5, 3, 40, m, &err), 0);
    assert_int_equal(pdb_put_cct_path_count(db, s, 1, 1, 5, 3, 2, m, &err), 0);
    assert_int_equal(pdb_put_cct_path_count(db, s, 1, 0, 6, 0, 9, NULL, &err), 0);
    assert_int_equal(pdb_commit(db, &err), 0);
    assert_int_equal(q(db, "SELECT sum(count) FROM cct_path_counts WHERE record = 5 AND path = 3"), 42);
    assert_int_equal(q(db, "SELECT sum(cycles) FROM cct_path_counts WHERE record = 5 AND path = 3"), 1800);
    assert_int_equal(q(db, "SELECT sum(event) FROM cct_path_counts WHERE record = 5 AND path = 3"), 24);
    assert_int_equal(q(db, "SELECT count(*) FROM cct_path_counts WHERE record = 6 AND cycles IS NULL AND "
                           "event IS NULL"), 1);
    pdb_close(db);
    raw_sql(f->path, "CREATE TABLE old AS SELECT session, core, record, path, epoch, count FROM cct_path_counts;"
                     "DROP TABLE cct_path_counts; ALTER TABLE old RENAME TO cct_path_counts;"
                     "UPDATE meta SET value = '11' WHERE key = 'schema_version'");
    db = open_ok(f->path, PDB_WRITE);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    assert_int_equal(PDB_SCHEMA_VERSION, 12);
    assert_int_equal(q(db, "SELECT count(*) FROM cct_path_counts WHERE cycles IS NULL AND event IS NULL"), 3);
    assert_int_equal(q(db, "SELECT sum(count) FROM cct_path_counts"), 51);
    pdb_close(db);
}

static void test_achieved_periods_from_the_timer_stats_and_the_schema_2_migration(void **state)
{
    struct fixture *f = *state;
    struct ap_err err;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    pdb_add_stat(db, 1, 0, "timer_ns", 3000000);
    pdb_add_stat(db, 1, 0, "timer_timed", 1000);
    pdb_add_stat(db, 1, 0, "timer_ns", 1000000);      /* a later FLUSH's growth adds */
    pdb_add_stat(db, 1, 0, "timer_timed", 600);
    pdb_add_stat(db, 1, 1, "timer_ns", 5000);
    pdb_add_stat(db, 1, 2, "samples_taken", 9);       /* no timer stats: no achieved period */
    pdb_add_stat(db, 1, 1, "timer_timed", 0);
    assert_int_equal(pdb_commit(db, &err), 0);
    assert_int_equal(q(db, "SELECT period FROM achieved_periods WHERE epoch = 1 AND core = 0 AND event = 255"),
                     2500);
    assert_int_equal(q(db, "SELECT count(*) FROM achieved_periods"), 1);
    pdb_close(db);

    raw_sql(f->path, "DROP VIEW achieved_periods; UPDATE meta SET value = '2' WHERE key = 'schema_version'");
    db = open_ok(f->path, PDB_WRITE);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    assert_int_equal(q(db, "SELECT period FROM achieved_periods WHERE core = 0"), 2500);
    pdb_close(db);
}

/* A schema-3 file (before value sampling) gains the value tables, empty,
 * and keeps everything it had. */
static void test_the_schema_3_migration_adds_the_value_tables(void **state)
{
    struct fixture *f = *state;
    struct pdb *db = open_ok(f->path, PDB_CREATE);
    struct ap_err err;
    pdb_add_samples(db, 1, 0, 255, 0, 0x40, 7);
    assert_int_equal(pdb_commit(db, &err), 0);
    pdb_close(db);
    raw_sql(f->path, "DROP TABLE value_lists; DROP TABLE value_counts;"
                     "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
    db = open_ok(f->path, PDB_WRITE);
    assert_int_equal(q(db, "SELECT value FROM meta WHERE key = 'schema_version'"), PDB_SCHEMA_VERSION);
    assert_int_equal(q(db, "SELECT count(*) FROM value_lists"), 0);
    assert_int_equal(q(db, "SELECT sum(count) FROM samples"), 7);
    pdb_add_value_list(db, 1, 0, 0, 0x40, 0, 10);
    pdb_add_value(db, 1, 0, 0, 0x40, 0, 42, 3, 2);       /* 3 sampled at tau 2: 6 estimated */
    pdb_add_value(db, 1, 0, 0, 0x40, 0, 42, 1, 4);       /* a later hotlist: 4 more */
    assert_int_equal(pdb_commit(db, &err), 0);
    assert_int_equal(q(db, "SELECT estimate FROM value_counts WHERE value = 42"), 10);
    assert_int_equal(q(db, "SELECT variance FROM value_counts WHERE value = 42"), 3 * 2 * 1 + 1 * 4 * 3);
    assert_int_equal(q(db, "SELECT samples FROM value_counts WHERE value = 42"), 4);
    assert_int_equal(q(db, "SELECT offered FROM value_lists"), 10);
    pdb_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refuses_wrong_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_samples_add_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pme_pairs_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_epochs_images_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_while_writing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_killed_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_schema_3_migration_adds_the_value_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oracle_run_ids_and_the_schema_1_migration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_board_config_is_the_newest_sessions_and_the_schema_6_migration,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_trees_metrics_flag_is_kept_per_core_and_the_schema_9_migration,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_paths_per_context_are_kept_per_record_and_the_schema_10_migration,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_paths_per_context_keep_their_metrics_once_and_the_schema_11_migration,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_achieved_periods_from_the_timer_stats_and_the_schema_2_migration,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
