/* The fleet store on PostgreSQL (design notes: fleet-store.h). */
#include "util/fleet-store.h"

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/profile-db.h"
#include "util/strvec.h"
#include "util/symbols.h"
#include "firmware/abi/link-protocol.h"

#define FLEET_LOCK 0x616c7068   /* the advisory lock pushes take ("alph") */

bool fleet_is_uri(const char *s)
{
    return s && (!strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11));
}

/* ------------------------------------------------------------ the schema */

struct column {
    char name[64];
    char pgtype[24];
    int pk;                 /* position in the primary key, 0 if not in it */
};

struct table {
    const char *name;
    struct column col[16];
    size_t ncol;
};

/* The columns of every pdb_tables table, read from a fresh in-memory
 * SQLite database made with the one schema. */
static int read_tables(struct table **out, size_t *n, struct ap_err *err)
{
    sqlite3 *db;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
        sqlite3_exec(db, pdb_schema_sql(), NULL, NULL, NULL) != SQLITE_OK) {
        ap_err_set(err, "the profile database schema did not load: %s", sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    size_t nt = 0;
    while (pdb_tables[nt])
        nt++;
    struct table *t = xmalloc(nt * sizeof *t);
    memset(t, 0, nt * sizeof *t);
    for (size_t i = 0; i < nt; i++) {
        t[i].name = pdb_tables[i];
        char sql[128];
        snprintf(sql, sizeof sql, "PRAGMA table_info(\"%s\")", t[i].name);
        sqlite3_stmt *st;
        sqlite3_prepare_v2(db, sql, -1, &st, NULL);
        while (sqlite3_step(st) == SQLITE_ROW && t[i].ncol < 16) {
            struct column *c = &t[i].col[t[i].ncol++];
            snprintf(c->name, sizeof c->name, "%s", (const char *)sqlite3_column_text(st, 1));
            const char *type = (const char *)sqlite3_column_text(st, 2);
            snprintf(c->pgtype, sizeof c->pgtype, "%s",
                     !strcmp(type, "INTEGER") ? "bigint" : !strcmp(type, "BLOB") ? "bytea"
                     : !strcmp(type, "REAL") ? "double precision" : "text");
            c->pk = sqlite3_column_int(st, 5);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    *out = t;
    *n = nt;
    return 0;
}

int fleet_schema_sql(char **out, struct ap_err *err)
{
    struct table *t;
    size_t nt;
    if (read_tables(&t, &nt, err))
        return -1;
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    fprintf(f, "CREATE TABLE IF NOT EXISTS fleet_runs (\n"
               "    id        bigserial PRIMARY KEY,\n"
               "    key       text NOT NULL UNIQUE,   -- meta 'created' | first epoch's start\n"
               "    source    text,                   -- the file pushed\n"
               "    board     text,\n"
               "    workloads text,                   -- image names, comma-separated\n"
               "    build_ids text,                   -- their build-ids (hex), comma-separated\n"
               "    started   text,                   -- the first epoch's start (UTC)\n"
               "    samples   bigint,\n"
               "    pushed    timestamptz NOT NULL DEFAULT now()\n"
               ");\n"
               "CREATE INDEX IF NOT EXISTS fleet_runs_started ON fleet_runs (started);\n"
               "CREATE TABLE IF NOT EXISTS fleet_images (\n"
               "    name text NOT NULL, build_id bytea NOT NULL, first_run bigint,\n"
               "    PRIMARY KEY (name, build_id)\n"
               ");\n");
    for (size_t i = 0; i < nt; i++) {
        fprintf(f, "CREATE TABLE IF NOT EXISTS \"%s\" (\n    run bigint NOT NULL REFERENCES fleet_runs(id) ON DELETE CASCADE",
                t[i].name);
        for (size_t c = 0; c < t[i].ncol; c++)
            fprintf(f, ",\n    \"%s\" %s", t[i].col[c].name, t[i].col[c].pgtype);
        fprintf(f, ",\n    PRIMARY KEY (run");
        for (int k = 1; k <= 16; k++)
            for (size_t c = 0; c < t[i].ncol; c++)
                if (t[i].col[c].pk == k)
                    fprintf(f, ", \"%s\"", t[i].col[c].name);
        fprintf(f, ")\n);\n");
    }
    fprintf(f, "CREATE INDEX IF NOT EXISTS images_by_name ON images (name, run);\n");
    fclose(f);
    free(t);
    *out = buf;
    return 0;
}

/* ------------------------------------------------------------ connection */

/* "relation already exists, skipping" and the like are no news */
static void quiet(void *arg, const char *message)
{
    (void)arg, (void)message;
}

static PGconn *connect_uri(const char *uri, struct ap_err *err)
{
    char *conninfo = xstrdup(uri);
    char *hash = strchr(conninfo, '#');
    if (hash)
        *hash = '\0';
    PGconn *c = PQconnectdb(conninfo);
    free(conninfo);
    if (PQstatus(c) != CONNECTION_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", PQerrorMessage(c));
        for (char *p = msg; *p; p++)
            if (*p == '\n')
                *p = ' ';
        ap_err_set(err, "cannot reach the fleet store %s: %s", uri, msg);
        PQfinish(c);
        return NULL;
    }
    PQsetNoticeProcessor(c, quiet, NULL);
    return c;
}

/* Runs sql; 0 or -1 with err set. */
static int pg_exec(PGconn *c, const char *sql, struct ap_err *err)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType s = PQresultStatus(r);
    int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? 0 : -1;
    if (rc)
        ap_err_set(err, "fleet store: %s", PQresultErrorMessage(r));
    PQclear(r);
    return rc;
}

/* ------------------------------------------------------------ push */

/* Appends v to the COPY text line, escaped. */
static void copy_text(struct strvec *line, const char *v, size_t n)
{
    char *out = xmalloc(2 * n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = v[i];
        if (ch == '\\' || ch == '\t' || ch == '\n' || ch == '\r') {
            out[k++] = '\\';
            ch = ch == '\t' ? 't' : ch == '\n' ? 'n' : ch == '\r' ? 'r' : '\\';
        }
        out[k++] = ch;
    }
    out[k] = '\0';
    strvec_push(line, out);
    free(out);
}

static char *sqlite_text(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    char *out = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0))
        out = xstrdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out ? out : xstrdup("");
}

/* COPY one table's rows of the SQLite file into run `run`. */
static int copy_table(PGconn *c, sqlite3 *db, const struct table *t, int64_t run, struct ap_err *err)
{
    char sql[1024];
    int len = snprintf(sql, sizeof sql, "COPY \"%s\" (run", t->name);
    for (size_t k = 0; k < t->ncol; k++)
        len += snprintf(sql + len, sizeof sql - (size_t)len, ", \"%s\"", t->col[k].name);
    snprintf(sql + len, sizeof sql - (size_t)len, ") FROM STDIN");
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COPY_IN) {
        ap_err_set(err, "fleet store: COPY %s: %s", t->name, PQresultErrorMessage(r));
        PQclear(r);
        return -1;
    }
    PQclear(r);
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", t->name);
    sqlite3_stmt *st;
    int rc = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        PQputCopyEnd(c, "the SQLite table could not be read");
        ap_err_set(err, "reading table %s: %s", t->name, sqlite3_errmsg(db));
        rc = -1;
    }
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        struct strvec line = {0};
        strvec_pushf(&line, "%lld", (long long)run);
        for (int k = 0; k < sqlite3_column_count(st); k++) {
            int type = sqlite3_column_type(st, k);
            if (type == SQLITE_NULL)
                strvec_push(&line, "\\N");
            else if (!strcmp(t->col[k].pgtype, "bytea")) {
                const unsigned char *b = sqlite3_column_blob(st, k);
                int n = sqlite3_column_bytes(st, k);
                char *hex = xmalloc(2 * (size_t)n + 4);
                strcpy(hex, "\\\\x");
                for (int i = 0; i < n; i++)
                    sprintf(hex + 3 + 2 * i, "%02x", b[i]);
                strvec_push(&line, hex);
                free(hex);
            } else
                copy_text(&line, (const char *)sqlite3_column_text(st, k), (size_t)sqlite3_column_bytes(st, k));
        }
        char *joined = NULL;
        size_t jn = 0;
        FILE *f = open_memstream(&joined, &jn);
        for (size_t k = 0; k < line.n; k++)
            fprintf(f, "%s%s", k ? "\t" : "", line.v[k]);
        fputc('\n', f);
        fclose(f);
        if (PQputCopyData(c, joined, (int)jn) != 1)
            rc = ap_err_set(err, "fleet store: sending %s: %s", t->name, PQerrorMessage(c));
        free(joined);
        strvec_free(&line);
    }
    sqlite3_finalize(st);
    if (PQputCopyEnd(c, rc ? "aborted" : NULL) != 1 && !rc)
        rc = ap_err_set(err, "fleet store: ending COPY %s: %s", t->name, PQerrorMessage(c));
    while ((r = PQgetResult(c))) {
        if (PQresultStatus(r) != PGRES_COMMAND_OK && !rc)
            rc = ap_err_set(err, "fleet store: COPY %s: %s", t->name, PQresultErrorMessage(r));
        PQclear(r);
    }
    return rc;
}

int fleet_push(const char *path, const char *uri, int64_t *run, bool *replaced, struct ap_err *err)
{
    struct pdb *pdb;
    if (pdb_open(path, PDB_READ, &pdb, err))
        return -1;
    sqlite3 *db = pdb_sqlite(pdb);
    char *created = sqlite_text(db, "SELECT value FROM meta WHERE key = 'created'");
    char *started = sqlite_text(db, "SELECT started FROM epochs ORDER BY id LIMIT 1");
    char *board = sqlite_text(db, "SELECT board FROM sessions WHERE board IS NOT NULL ORDER BY id LIMIT 1");
    char *workloads = sqlite_text(db, "SELECT group_concat(name, ',') FROM (SELECT name FROM images WHERE id > 0 "
                                      "ORDER BY name)");
    char *builds = sqlite_text(db, "SELECT group_concat(lower(hex(build_id)), ',') FROM (SELECT build_id FROM images "
                                   "WHERE id > 0 ORDER BY name)");
    char *samples = sqlite_text(db, "SELECT coalesce(sum(count), 0) FROM samples");
    char *key = xmalloc(strlen(created) + strlen(started) + 2);
    sprintf(key, "%s|%s", created, started);
    char *schema = NULL;
    struct table *t = NULL;
    size_t nt = 0;
    PGconn *c = NULL;
    PGresult *r = NULL;
    int rc = -1;
    if (!created[0]) {
        ap_err_set(err, "%s has no creation time (meta 'created'): not a profile database alphaprof wrote", path);
        goto out;
    }
    if (fleet_schema_sql(&schema, err) || read_tables(&t, &nt, err) || !(c = connect_uri(uri, err)))
        goto out;
    char lock[96];
    snprintf(lock, sizeof lock, "BEGIN; SELECT pg_advisory_xact_lock(%d)", FLEET_LOCK);
    if (pg_exec(c, lock, err) || pg_exec(c, schema, err))
        goto rollback;
    const char *find[] = {key};
    r = PQexecParams(c, "SELECT id FROM fleet_runs WHERE key = $1", 1, NULL, find, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        ap_err_set(err, "fleet store: %s", PQresultErrorMessage(r));
        goto rollback;
    }
    *replaced = PQntuples(r) == 1;
    if (*replaced) {
        *run = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
        r = NULL;
        for (size_t i = 0; i < nt; i++) {
            char sql[128];
            snprintf(sql, sizeof sql, "DELETE FROM \"%s\" WHERE run = %lld", t[i].name, (long long)*run);
            if (pg_exec(c, sql, err))
                goto rollback;
        }
        char runs[32];
        snprintf(runs, sizeof runs, "%lld", (long long)*run);
        const char *up[] = {path, board, workloads, builds, started, samples, runs};
        r = PQexecParams(c, "UPDATE fleet_runs SET source = $1, board = $2, workloads = $3, build_ids = $4, "
                            "started = $5, samples = $6, pushed = now() WHERE id = $7", 7, NULL, up, NULL, NULL, 0);
    } else {
        PQclear(r);
        const char *in[] = {key, path, board, workloads, builds, started, samples};
        r = PQexecParams(c, "INSERT INTO fleet_runs (key, source, board, workloads, build_ids, started, samples) "
                            "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id", 7, NULL, in, NULL, NULL, 0);
        if (PQresultStatus(r) == PGRES_TUPLES_OK)
            *run = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    }
    if (PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK) {
        ap_err_set(err, "fleet store: %s", PQresultErrorMessage(r));
        goto rollback;
    }
    PQclear(r);
    r = NULL;
    for (size_t i = 0; i < nt; i++)
        if (copy_table(c, db, &t[i], *run, err))
            goto rollback;
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO fleet_images (name, build_id, first_run) SELECT name, build_id, run "
                              "FROM images WHERE run = %lld AND id > 0 ON CONFLICT DO NOTHING", (long long)*run);
    if (pg_exec(c, sql, err) || pg_exec(c, "COMMIT", err))
        goto rollback;
    rc = 0;
    goto out;
rollback:
    PQclear(r);
    r = NULL;
    if (c)
        PQclear(PQexec(c, "ROLLBACK"));
out:
    PQclear(r);
    if (c)
        PQfinish(c);
    free(t);
    free(schema);
    free(key);
    free(created);
    free(started);
    free(board);
    free(workloads);
    free(builds);
    free(samples);
    pdb_close(pdb);
    return rc;
}

/* ------------------------------------------------------------ fetch */

/* The URI fragment's selection (note 4): v[] run board workload build_id
 * since until (NULL: not given), nth; -1 with err set on an unknown key. */
struct selection {
    char *copy;
    const char *v[6];
    long nth;
};

#define SELECTION_WHERE                                                                                       \
    "($1::bigint IS NULL OR id = $1::bigint) AND ($2::text IS NULL OR board = $2) "                            \
    "AND ($3::text IS NULL OR $3 = ANY (string_to_array(workloads, ','))) "                                    \
    "AND ($4::text IS NULL OR build_ids LIKE '%' || lower($4) || '%') "                                       \
    "AND ($5::text IS NULL OR started >= $5) AND ($6::text IS NULL OR started < $6) "

static int parse_selection(const char *uri, struct selection *sel, struct ap_err *err)
{
    const char *frag = strchr(uri, '#');
    static const char *const keys[] = {"run", "board", "workload", "build_id", "since", "until"};
    memset(sel, 0, sizeof *sel);
    sel->copy = xstrdup(frag ? frag + 1 : "");
    for (char *save = NULL, *kv = strtok_r(sel->copy, "&", &save); kv; kv = strtok_r(NULL, "&", &save)) {
        char *eq = strchr(kv, '=');
        bool known = false;
        if (eq) {
            *eq = '\0';
            for (size_t k = 0; k < 6; k++)
                if (!strcmp(kv, keys[k]))
                    sel->v[k] = eq + 1, known = true;
            if (!strcmp(kv, "nth"))
                sel->nth = strtol(eq + 1, NULL, 10), known = true;
        }
        if (!known) {
            ap_err_set(err, "%s: '%s' selects nothing; after '#' give run=N or board=, workload=, build_id=, "
                            "since=, until=, nth= joined by '&'", uri, kv);
            free(sel->copy);
            sel->copy = NULL;
            return -1;
        }
    }
    return 0;
}

/* The run the fragment selects; -1 with err set if none. */
static int64_t select_run(PGconn *c, const char *uri, struct ap_err *err)
{
    struct selection sel;
    if (parse_selection(uri, &sel, err))
        return -1;
    const char *frag = strchr(uri, '#');
    int64_t id = -1;
    char off[32];
    snprintf(off, sizeof off, "%ld", sel.nth < 0 ? 0 : sel.nth);
    const char *p[7] = {sel.v[0], sel.v[1], sel.v[2], sel.v[3], sel.v[4], sel.v[5], off};
    PGresult *r = PQexecParams(c,
        "SELECT id FROM fleet_runs WHERE " SELECTION_WHERE
        "ORDER BY started DESC, id DESC OFFSET $7::bigint LIMIT 1", 7, NULL, p, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        ap_err_set(err, "fleet store %s: %s", uri, PQresultErrorMessage(r));
    else if (PQntuples(r) == 0)
        ap_err_set(err, "the fleet store %s holds no run matching '%s'; alphaprof push stores runs", uri,
                   frag ? frag + 1 : "");
    else
        id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    free(sel.copy);
    return id;
}

static int hexval(char h)
{
    return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : 0;
}

int fleet_fetch(const char *uri, char **tmp_path, int64_t *run, struct ap_err *err)
{
    *tmp_path = NULL;
    struct table *t;
    size_t nt;
    if (read_tables(&t, &nt, err))
        return -1;
    PGconn *c = connect_uri(uri, err);
    if (!c) {
        free(t);
        return -1;
    }
    int rc = -1;
    sqlite3 *db = NULL;
    char path[] = "/tmp/alphaprof-fleet-XXXXXX";
    *run = select_run(c, uri, err);
    if (*run < 0)
        goto out;
    int fd = mkstemp(path);
    if (fd < 0) {
        ap_err_set(err, "cannot make a temporary file for the fleet run");
        goto out;
    }
    close(fd);
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, pdb_schema_sql(), NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        ap_err_set(err, "writing the fleet run to %s: %s", path, sqlite3_errmsg(db));
        goto out;
    }
    for (size_t i = 0; i < nt; i++) {
        char sql[1024], ins[1024];
        int a = snprintf(sql, sizeof sql, "SELECT "), b = snprintf(ins, sizeof ins, "INSERT INTO \"%s\" VALUES (", t[i].name);
        for (size_t k = 0; k < t[i].ncol; k++) {
            a += snprintf(sql + a, sizeof sql - (size_t)a, "%s\"%s\"", k ? ", " : "", t[i].col[k].name);
            b += snprintf(ins + b, sizeof ins - (size_t)b, "%s?", k ? ", " : "");
        }
        snprintf(sql + a, sizeof sql - (size_t)a, " FROM \"%s\" WHERE run = %lld", t[i].name, (long long)*run);
        snprintf(ins + b, sizeof ins - (size_t)b, ")");
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            ap_err_set(err, "fleet store: reading %s: %s", t[i].name, PQresultErrorMessage(r));
            PQclear(r);
            goto out;
        }
        sqlite3_stmt *st;
        sqlite3_prepare_v2(db, ins, -1, &st, NULL);
        for (int row = 0; row < PQntuples(r); row++) {
            sqlite3_reset(st);
            for (size_t k = 0; k < t[i].ncol; k++) {
                int col = (int)k + 1;
                if (PQgetisnull(r, row, (int)k))
                    sqlite3_bind_null(st, col);
                else if (!strcmp(t[i].col[k].pgtype, "bigint"))
                    sqlite3_bind_int64(st, col, strtoll(PQgetvalue(r, row, (int)k), NULL, 10));
                else if (!strcmp(t[i].col[k].pgtype, "bytea")) {
                    const char *h = PQgetvalue(r, row, (int)k);       /* "\x..." */
                    size_t n = strlen(h) > 2 ? (strlen(h) - 2) / 2 : 0;
                    unsigned char *bytes = xmalloc(n + 1);
                    for (size_t j = 0; j < n; j++)
                        bytes[j] = (unsigned char)(hexval(h[2 + 2 * j]) << 4 | hexval(h[3 + 2 * j]));
                    sqlite3_bind_blob(st, col, bytes, (int)n, free);
                } else
                    sqlite3_bind_text(st, col, PQgetvalue(r, row, (int)k), -1, SQLITE_TRANSIENT);
            }
            if (sqlite3_step(st) != SQLITE_DONE) {
                ap_err_set(err, "writing the fleet run's %s: %s", t[i].name, sqlite3_errmsg(db));
                sqlite3_finalize(st);
                PQclear(r);
                goto out;
            }
        }
        sqlite3_finalize(st);
        PQclear(r);
    }
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        ap_err_set(err, "writing the fleet run to %s: %s", path, sqlite3_errmsg(db));
        goto out;
    }
    rc = 0;
out:
    if (db)
        sqlite3_close(db);
    if (rc == 0)
        *tmp_path = xstrdup(path);
    else if (strcmp(path, "/tmp/alphaprof-fleet-XXXXXX"))
        unlink(path);
    PQfinish(c);
    free(t);
    return rc;
}

/* ------------------------------------------------------------ trend */

struct trend_build {
    char *path;
    struct symtab *st;          /* NULL: could not be opened */
};

static struct symtab *build_symtab(struct trend_build **b, size_t *n, const char *path)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*b)[i].path, path))
            return (*b)[i].st;
    *b = xrealloc(*b, (*n + 1) * sizeof **b);
    struct trend_build *x = &(*b)[(*n)++];
    x->path = xstrdup(path);
    x->st = NULL;
    struct ap_err e;
    if (path[0] && symtab_open(path, &x->st, &e))
        x->st = NULL;
    return x->st;
}

/* proc by name, or GCC's clone of it (proc.constprop.0, proc.isra.0...):
 * builds may clone a procedure differently. */
static const struct symbol *find_procedure(const struct symtab *st, const char *proc)
{
    const struct symbol *s = symtab_find(st, proc);
    if (s)
        return s;
    size_t n, len = strlen(proc);
    const struct symbol *all = symtab_symbols(st, &n);
    for (size_t i = 0; i < n; i++)
        if (!strncmp(all[i].name, proc, len) && all[i].name[len] == '.')
            return &all[i];
    return NULL;
}

/* One query's rows as (run -> value) into the points. */
static int trend_sums(PGconn *c, const char *sql, int np, const char *const *p, struct fleet_trend *t, bool total,
                      struct ap_err *err)
{
    PGresult *r = PQexecParams(c, sql, np, NULL, p, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        ap_err_set(err, "fleet store: %s", PQresultErrorMessage(r));
        PQclear(r);
        return -1;
    }
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t run = strtoll(PQgetvalue(r, i, 0), NULL, 10);
        uint64_t v = strtoull(PQgetvalue(r, i, 1), NULL, 10);
        for (size_t k = 0; k < t->n; k++)
            if (t->pts[k].run == run) {
                if (total)
                    t->pts[k].total = v;
                else
                    t->pts[k].samples = v;
            }
    }
    PQclear(r);
    return 0;
}

int fleet_trend(const char *uri, const char *image, const char *proc, const char *event, size_t last,
                struct fleet_trend *t, struct ap_err *err)
{
    memset(t, 0, sizeof *t);
    struct selection sel;
    if (parse_selection(uri, &sel, err))
        return -1;
    PGconn *c = connect_uri(uri, err);
    if (!c) {
        free(sel.copy);
        return -1;
    }
    int rc = -1;
    PGresult *r = NULL;
    struct trend_build *builds = NULL;
    size_t nbuilds = 0;
    char *ids = NULL, *values = NULL;
    size_t ids_len = 0, values_len = 0;
    FILE *f;

    /* the runs, newest `last`, then in time order */
    char lim[32];
    snprintf(lim, sizeof lim, "%zu", last ? last : (size_t)1 << 40);
    const char *p[7] = {sel.v[0], sel.v[1], sel.v[2], sel.v[3], sel.v[4], sel.v[5], lim};
    r = PQexecParams(c, "SELECT id, coalesce(started, ''), coalesce(board, '') FROM fleet_runs WHERE " SELECTION_WHERE
                        "ORDER BY started DESC, id DESC LIMIT $7::bigint", 7, NULL, p, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        ap_err_set(err, "fleet store %s: %s", uri, PQresultErrorMessage(r));
        goto out;
    }
    if (PQntuples(r) == 0) {
        const char *frag = strchr(uri, '#');
        ap_err_set(err, "the fleet store %s holds no run matching '%s'; alphaprof push stores runs", uri,
                   frag ? frag + 1 : "");
        goto out;
    }
    t->n = (size_t)PQntuples(r);
    t->pts = xmalloc(t->n * sizeof *t->pts);
    f = open_memstream(&ids, &ids_len);
    fputc('{', f);
    for (size_t i = 0; i < t->n; i++) {
        int row = (int)(t->n - 1 - i);
        struct fleet_trend_point *x = &t->pts[i];
        memset(x, 0, sizeof *x);
        x->run = strtoll(PQgetvalue(r, row, 0), NULL, 10);
        snprintf(x->started, sizeof x->started, "%s", PQgetvalue(r, row, 1));
        snprintf(x->board, sizeof x->board, "%s", PQgetvalue(r, row, 2));
        fprintf(f, "%s%lld", i ? "," : "", (long long)x->run);
    }
    fputc('}', f);
    fclose(f);
    PQclear(r);

    /* the event: named, or the lowest number sampled */
    const char *pe[2] = {ids, event};
    r = PQexecParams(c, event ? "SELECT idx, name FROM names WHERE kind = 'event' AND name = $2 AND run = ANY ($1::bigint[]) "
                                "LIMIT 1"
                              : "SELECT s.event, (SELECT name FROM names n WHERE n.run = ANY ($1::bigint[]) AND "
                                "n.kind = 'event' AND n.idx = s.event LIMIT 1) FROM (SELECT min(event) AS event FROM "
                                "samples WHERE run = ANY ($1::bigint[])) s WHERE s.event IS NOT NULL",
                     event ? 2 : 1, NULL, pe, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        ap_err_set(err, "fleet store: %s", PQresultErrorMessage(r));
        goto out;
    }
    if (PQntuples(r) == 0) {
        ap_err_set(err, event ? "no run of the selection has samples of event '%s'" : "no run of the selection has "
                   "samples%s", event ? event : "");
        goto out;
    }
    t->event = atoi(PQgetvalue(r, 0, 0));
    if (!PQgetisnull(r, 0, 1))
        snprintf(t->event_name, sizeof t->event_name, "%s", PQgetvalue(r, 0, 1));
    else if (t->event == LK_EVENT_TIMER)
        snprintf(t->event_name, sizeof t->event_name, "timer");
    else
        snprintf(t->event_name, sizeof t->event_name, "event %d", t->event);
    PQclear(r);
    char ev[16];
    snprintf(ev, sizeof ev, "%d", t->event);
    const char *pt[2] = {ids, ev};
    if (trend_sums(c, "SELECT run, sum(count) FROM samples WHERE run = ANY ($1::bigint[]) AND event = $2::int "
                      "GROUP BY run", 2, pt, t, true, err))
        goto out;

    /* the procedure's offsets in each run's build of the image */
    const char *pi[2] = {ids, image};
    r = PQexecParams(c, "SELECT i.run, i.id, encode(i.build_id, 'hex'), coalesce(i.path, ''), "
                        "(SELECT min(address) FROM loadmaps l WHERE l.run = i.run AND l.image = i.id) "
                        "FROM images i WHERE i.run = ANY ($1::bigint[]) AND i.name = $2", 2, NULL, pi, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        ap_err_set(err, "fleet store: %s", PQresultErrorMessage(r));
        goto out;
    }
    f = open_memstream(&values, &values_len);
    size_t nvalues = 0;
    for (int i = 0; i < PQntuples(r); i++) {
        int64_t run = strtoll(PQgetvalue(r, i, 0), NULL, 10);
        struct fleet_trend_point *x = NULL;
        for (size_t k = 0; k < t->n; k++)
            if (t->pts[k].run == run)
                x = &t->pts[k];
        if (!x || PQgetisnull(r, i, 4))
            continue;
        snprintf(x->build_id, sizeof x->build_id, "%s", PQgetvalue(r, i, 2));
        x->has_image = true;
        struct symtab *st = build_symtab(&builds, &nbuilds, PQgetvalue(r, i, 3));
        const struct symbol *sym = st ? find_procedure(st, proc) : NULL;
        if (!sym)
            continue;
        uint64_t base = strtoull(PQgetvalue(r, i, 4), NULL, 10);
        x->found = true;
        fprintf(f, "%s(%lld,%s,%lld,%lld)", nvalues++ ? "," : "", (long long)run, PQgetvalue(r, i, 1),
                (long long)(sym->start - base), (long long)(symtab_symbol_end(st, sym) - base));
    }
    fclose(f);
    PQclear(r);
    r = NULL;
    if (nvalues) {
        char *sql = xmalloc(values_len + 256);
        sprintf(sql, "SELECT v.r, sum(s.count) FROM samples s JOIN (VALUES %s) AS v(r, img, lo, hi) "
                     "ON s.run = v.r AND s.image = v.img AND s.\"offset\" >= v.lo AND s.\"offset\" < v.hi "
                     "WHERE s.event = $1::int GROUP BY v.r", values);
        const char *ps[1] = {ev};
        int bad = trend_sums(c, sql, 1, ps, t, false, err);
        free(sql);
        if (bad)
            goto out;
    }
    rc = 0;
out:
    PQclear(r);
    PQfinish(c);
    for (size_t i = 0; i < nbuilds; i++) {
        free(builds[i].path);
        if (builds[i].st)
            symtab_close(builds[i].st);
    }
    free(builds);
    free(ids);
    free(values);
    free(sel.copy);
    if (rc)
        fleet_trend_free(t);
    return rc;
}

void fleet_trend_free(struct fleet_trend *t)
{
    free(t->pts);
    memset(t, 0, sizeof *t);
}
