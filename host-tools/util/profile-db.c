/*
 * The profile database's connection and immediate writes (interface and
 * guarantees: profile-db.h): opening a file and checking that it is ours
 * and of a schema we read (migrating an older one), epochs, sessions,
 * images, loadmaps and names.  The schema is in profile-db-schema.c, the
 * merges in profile-db-merge.c, printing in profile-db-dump.c.
 *
 * Invariants:
 *   1. pdb_open returns a database whose meta says PDB_FORMAT and a schema
 *      version this build reads (an empty file is given the schema, an
 *      older one is migrated when opened for writing, read as it is
 *      otherwise: readers ask pdb_schema_version for what is newer), or
 *      fails with one line naming the file; its tables epochs, images and
 *      samples exist and every sample count is in 0..2^40, or it is named
 *      damaged.
 *   2. Exactly one epoch is open (ended IS NULL): new_epoch ends it and
 *      starts the next in one transaction.
 *   3. The image cache mirrors rows already in images, so a (name,
 *      build-id) is looked up in SQLite once per process.
 */
#include "util/profile-db-internal.h"
#include "util/fleet-store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/strvec.h"
#include "util/regular-file.h"

struct image_cache {
    char *name;
    uint8_t build_id[LK_BUILD_ID_SIZE];
    size_t build_id_size;
    bool has_path;
    int64_t id;
};

const char *pdb_default_path(void)
{
    const char *env = getenv("ALPHAPROF_DB");
    return env && *env ? env : PDB_DEFAULT_PATH;
}

const char *pdb_path(const struct pdb *db)
{
    return db->path;
}

int pdb_sql_err(struct pdb *db, struct ap_err *err, const char *what)
{
    return ap_err_set(err, "profile database %s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

int pdb_exec(struct pdb *db, const char *sql, struct ap_err *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db->db, sql, NULL, NULL, &msg);
    db->busy = (rc & 0xff) == SQLITE_BUSY;
    if (rc != SQLITE_OK) {
        ap_err_set(err, "profile database %s: %s", db->path, msg ? msg : sqlite3_errmsg(db->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}
/* Is this file ours, and of a schema we read?  0 yes, 1 empty, -1 no. */
static int check_format(struct pdb *db, int64_t *schema_version, struct ap_err *err)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db->db, "SELECT count(*) FROM sqlite_schema", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db->db);
    int64_t objects = rc == SQLITE_OK ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_OK)
        return ap_err_set(err, "%s is not an alphaprof profile database: %s (not an SQLite file, "
                          "or damaged); point --db at a database `alphaprof record` wrote",
                          db->path, sqlite3_errmsg(db->db));
    if (objects == 0)
        return 1;
    char *format = NULL;
    int64_t version = -1;
    rc = sqlite3_prepare_v2(db->db, "SELECT key, value FROM meta WHERE key IN ('format','schema_version')",
                            -1, &st, NULL);
    if (rc != SQLITE_OK)
        return ap_err_set(err, "%s is an SQLite database but not an alphaprof profile database "
                          "(it has no meta table)", db->path);
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = (const char *)sqlite3_column_text(st, 0);
        const char *v = (const char *)sqlite3_column_text(st, 1);
        if (k && v && strcmp(k, "format") == 0) {
            free(format);
            format = xstrdup(v);
        } else if (k && v) {
            version = strtoll(v, NULL, 10);
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(format);
        return pdb_sql_err(db, err, "reading meta");
    }
    bool ours = format && strcmp(format, PDB_FORMAT) == 0;
    free(format);
    if (!ours)
        return ap_err_set(err, "%s is an SQLite database but not an alphaprof profile database "
                          "(meta has no format '%s')", db->path, PDB_FORMAT);
    if (version > PDB_SCHEMA_VERSION || version < 1)
        return ap_err_set(err, "%s has profile schema version %" PRId64 "; this alphaprof reads "
                          "versions 1 to %d: use the alphaprof that wrote it", db->path, version,
                          PDB_SCHEMA_VERSION);
    *schema_version = version;
    return 0;
}

/* Largest count one row of samples can hold: 2^40 samples is days of
 * sampling at the shortest period on every core; a larger or negative one
 * is damage, and would overflow the sums readers make. */
#define PDB_MAX_ROW_COUNT (INT64_C(1) << 40)

/* Our format, but are the tables every reader needs there, and are the
 * sample counts possible?  0 yes, else -1 naming the damage. */
static int check_contents(struct pdb *db, struct ap_err *err)
{
    static const char *const needed[] = {"epochs", "images", "samples"};
    sqlite3_stmt *st;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
        if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1", -1, &st,
                               NULL) != SQLITE_OK)
            return pdb_sql_err(db, err, "reading the schema");
        sqlite3_bind_text(st, 1, needed[i], -1, SQLITE_STATIC);
        int rc = sqlite3_step(st);
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW)
            return ap_err_set(err, "%s is damaged: its table %s is missing; record the profile again", db->path,
                              needed[i]);
    }
    if (sqlite3_prepare_v2(db->db, "SELECT count, image, offset FROM samples WHERE count < 0 OR count > ?1 LIMIT 1",
                           -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "reading samples");
    sqlite3_bind_int64(st, 1, PDB_MAX_ROW_COUNT);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        ap_err_set(err, "%s is damaged: it holds a sample count of %lld (image %lld, offset 0x%llx); "
                   "record the profile again", db->path, (long long)sqlite3_column_int64(st, 0),
                   (long long)sqlite3_column_int64(st, 1), (unsigned long long)sqlite3_column_int64(st, 2));
        sqlite3_finalize(st);
        return -1;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : pdb_sql_err(db, err, "reading samples");
}

int pdb_open(const char *path, enum pdb_mode mode, struct pdb **out, struct ap_err *err)
{
    *out = NULL;
    if (fleet_is_uri(path)) {
        /* a fleet run: copied into a temporary file, read like any other
         * (util/fleet-store.h note 4) */
        if (mode != PDB_READ)
            return ap_err_set(err, "%s is a fleet store: runs go there with `alphaprof push --db FILE --to %s`",
                              path, path);
        char *tmp;
        int64_t run;
        if (fleet_fetch(path, &tmp, &run, err))
            return -1;
        int rc = pdb_open(tmp, PDB_READ, out, err);
        if (rc) {
            unlink(tmp);
            free(tmp);
            return -1;
        }
        free((*out)->path);
        (*out)->path = xstrdup(path);
        (*out)->temp_copy = tmp;
        return 0;
    }
    struct stat sb;
    if (mode != PDB_CREATE && stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return ap_err_set(err, "no profile database at %s: record one with "
                              "`alphaprof record --db %s IMAGE.elf`, or create an empty one "
                              "with `alphaprof db --db %s init`", path, path, path);
        return ap_err_set(err, "cannot open profile database %s: %s", path, strerror(errno));
    }
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
        return ap_err_set(err, "%s is %s, not a regular file; give the profile database "
                          "`alphaprof record --db` wrote", path, file_kind(sb.st_mode));

    struct pdb *db = calloc(1, sizeof *db);
    if (!db)
        return ap_err_set(err, "out of memory");
    db->path = xstrdup(path);
    db->writable = mode != PDB_READ;
    int flags = mode == PDB_READ ? SQLITE_OPEN_READONLY
              : mode == PDB_WRITE ? SQLITE_OPEN_READWRITE
              : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path, &db->db, flags, NULL) != SQLITE_OK) {
        ap_err_set(err, "cannot open profile database %s: %s", path,
                   db->db ? sqlite3_errmsg(db->db) : "out of memory");
        pdb_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db->db, 10000);     /* another writer holds the lock briefly */
    int fmt = check_format(db, &db->schema_version, err);
    if (fmt == 0 && check_contents(db, err)) {
        pdb_close(db);
        return -1;
    }
    if (fmt < 0 || (fmt == 1 && mode != PDB_CREATE)) {
        if (fmt == 1)
            ap_err_set(err, "%s is an empty SQLite file, not a profile database: create one "
                       "with `alphaprof db --db %s init`", path, path);
        pdb_close(db);
        return -1;
    }
    /* WAL: readers go on while we write, and a killed writer loses nothing
     * committed; NORMAL sync is durable against process death.  Processes
     * opening one new file at once may find it locked while another sets
     * it up (switching to WAL is not covered by the busy timeout): they
     * look again, for up to 10 s. */
    for (unsigned tries = 0; db->writable; tries++) {
        int created = 0;
        if (pdb_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                     " PRAGMA cache_size=-65536;", err) != 0 ||
            (fmt == 1 && (created = pdb_create_schema(db, err)) < 0) ||
            /* (1: another process made it meanwhile: check what it made) */
            (created == 1 && ((fmt = check_format(db, &db->schema_version, err)) != 0 ||
                              check_contents(db, err) != 0)) ||
            (fmt == 0 && db->schema_version < PDB_SCHEMA_VERSION && pdb_migrate(db, err) != 0) ||
            pdb_merge_open(db, err) != 0) {
            if (db->busy && tries < 200) {
                pdb_merge_close(db);
                nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
                fmt = check_format(db, &db->schema_version, err);
                if (fmt >= 0 && !(fmt == 0 && check_contents(db, err)))
                    continue;
            }
            pdb_close(db);
            return -1;
        }
        break;
    }
    *out = db;
    return 0;
}

void pdb_close(struct pdb *db)
{
    if (!db)
        return;
    pdb_merge_close(db);
    sqlite3_close(db->db);
    if (db->temp_copy)
        unlink(db->temp_copy);
    free(db->temp_copy);
    for (size_t i = 0; i < db->nimages; i++)
        free(db->images[i].name);
    free(db->images);
    free(db->path);
    free(db);
}

int pdb_need_write(struct pdb *db, struct ap_err *err)
{
    if (!db->writable)
        return ap_err_set(err, "profile database %s is open read-only", db->path);
    return 0;
}

/* Runs a prepared one-shot statement to completion and finalizes it. */
static int step_done(struct pdb *db, sqlite3_stmt *st, const char *what, struct ap_err *err)
{
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return pdb_sql_err(db, err, what);
    return 0;
}

struct sqlite3 *pdb_sqlite(struct pdb *db)
{
    return db->db;
}

int pdb_query_int(struct pdb *db, const char *sql, int64_t *value, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "query");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *value = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return ap_err_set(err, "profile database %s: query returned no row", db->path);
    return pdb_sql_err(db, err, "query");
}

/* ---------------------------------------------------------------- epochs */

double pdb_mean_period(struct pdb *db, int64_t epoch, uint32_t event)
{
    sqlite3_stmt *st;
    double p = 0;
    if (sqlite3_prepare_v2(pdb_sqlite(db),
                           "SELECT avg(period) FROM periods WHERE event = ?2 AND (?1 < 0 OR epoch = ?1)", -1, &st,
                           NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, epoch);
    sqlite3_bind_int64(st, 2, event);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        p = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return p > 0 ? p : 0;
}

int pdb_current_epoch(struct pdb *db, int64_t *epoch, struct ap_err *err)
{
    return pdb_query_int(db, "SELECT coalesce(max(id), 0) FROM epochs WHERE ended IS NULL",
                         epoch, err);
}

int pdb_new_epoch(struct pdb *db, const char *note, int64_t *epoch, struct ap_err *err)
{
    if (pdb_need_write(db, err) != 0 || pdb_exec(db, "BEGIN IMMEDIATE", err) != 0)
        return -1;
    sqlite3_stmt *st;
    int rc = pdb_exec(db, "UPDATE epochs SET ended = " NOW_SQL " WHERE ended IS NULL", err);
    if (rc == 0 && sqlite3_prepare_v2(db->db, "INSERT INTO epochs(started, note) VALUES (" NOW_SQL ", ?)",
                                      -1, &st, NULL) != SQLITE_OK)
        rc = pdb_sql_err(db, err, "starting an epoch");
    if (rc == 0) {
        sqlite3_bind_text(st, 1, note, -1, SQLITE_TRANSIENT);
        rc = step_done(db, st, "starting an epoch", err);
    }
    if (rc == 0) {
        *epoch = sqlite3_last_insert_rowid(db->db);
        return pdb_exec(db, "COMMIT", err);
    }
    sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* -------------------------------------------------------------- sessions */

static void bind_bytes_text(sqlite3_stmt *st, int i, struct lk_bytes b)
{
    sqlite3_bind_text(st, i, (const char *)b.p, (int)b.n, SQLITE_TRANSIENT);
}

int pdb_session_begin(struct pdb *db, int64_t epoch, const struct lk_hello *h, int64_t *session,
                      struct ap_err *err)
{
    sqlite3_stmt *st;
    if (pdb_need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO sessions(epoch, started, board, firmware, ncores,"
                                   " caps, timebase_hz) VALUES (?, " NOW_SQL ", ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "recording a session");
    sqlite3_bind_int64(st, 1, epoch);
    bind_bytes_text(st, 2, h->board);
    bind_bytes_text(st, 3, h->firmware);
    sqlite3_bind_int64(st, 4, h->ncores);
    sqlite3_bind_int64(st, 5, h->caps);
    sqlite3_bind_int64(st, 6, (int64_t)h->timebase_hz);
    if (step_done(db, st, "recording a session", err) != 0)
        return -1;
    *session = sqlite3_last_insert_rowid(db->db);
    return 0;
}

int pdb_session_end(struct pdb *db, int64_t session, const struct lk_end *e, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (pdb_need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "UPDATE sessions SET ended = " NOW_SQL ", exit_status = ?,"
                                   " end_how = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "ending a session");
    sqlite3_bind_int64(st, 1, e->status);
    sqlite3_bind_int64(st, 2, e->how);
    sqlite3_bind_int64(st, 3, session);
    return step_done(db, st, "ending a session", err);
}

int pdb_last_session(struct pdb *db, int64_t *session, struct ap_err *err)
{
    return pdb_query_int(db, "SELECT coalesce(max(id), 0) FROM sessions", session, err);
}

int pdb_set_oracle(struct pdb *db, int64_t after, uint64_t run_id, const char *path,
                   struct ap_err *err)
{
    sqlite3_stmt *st;
    if (pdb_need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "UPDATE sessions SET oracle_run_id = ?, oracle = ? WHERE id > ?",
                           -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "recording the oracle's run id");
    sqlite3_bind_int64(st, 1, (int64_t)run_id);
    sqlite3_bind_text(st, 2, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, after);
    return step_done(db, st, "recording the oracle's run id", err);
}

int pdb_set_board_config(struct pdb *db, int64_t after, const char *name, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (pdb_need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "UPDATE sessions SET board_config = ? WHERE id > ?", -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "recording the board configuration");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 2, after);
    return step_done(db, st, "recording the board configuration", err);
}

char *pdb_board_config(struct pdb *db, int64_t epoch)
{
    struct ap_err ignored;
    sqlite3_stmt *st;
    char *out = NULL;
    if (db->schema_version < 7 || (epoch == 0 && pdb_current_epoch(db, &epoch, &ignored) != 0))
        return NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT board_config FROM sessions WHERE board_config IS NOT NULL"
                                   " AND (?1 < 0 OR epoch = ?1) ORDER BY id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_int64(st, 1, epoch);
    if (sqlite3_step(st) == SQLITE_ROW)
        out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return out;
}

int pdb_oracle_runs(struct pdb *db, int64_t epoch, uint64_t *ids, size_t max, size_t *n,
                    char *path_out, size_t path_cap, struct ap_err *err)
{
    *n = 0;
    if (path_out && path_cap)
        path_out[0] = 0;
    if (db->schema_version < 2)
        return 0;
    if (epoch == 0 && pdb_current_epoch(db, &epoch, err) != 0)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "SELECT oracle_run_id, min(coalesce(oracle, '')) FROM sessions"
                                   " WHERE oracle_run_id IS NOT NULL AND (?1 < 0 OR epoch = ?1)"
                                   " GROUP BY oracle_run_id ORDER BY min(id)", -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "reading the oracles' run ids");
    sqlite3_bind_int64(st, 1, epoch);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == 0 && path_out && path_cap)
            snprintf(path_out, path_cap, "%s", (const char *)sqlite3_column_text(st, 1));
        if (*n < max)
            ids[(*n)++] = (uint64_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : pdb_sql_err(db, err, "reading the oracles' run ids");
}

/* ---------------------------------------------------- images and loadmaps */

int pdb_image(struct pdb *db, const char *name, const uint8_t *build_id, size_t build_id_size,
              const char *path, int64_t *image, struct ap_err *err)
{
    if (build_id_size > LK_BUILD_ID_SIZE)
        return ap_err_set(err, "image %s: build-id of %zu bytes (at most %d)", name,
                          build_id_size, LK_BUILD_ID_SIZE);
    for (size_t i = 0; i < db->nimages; i++) {
        struct image_cache *c = &db->images[i];
        if (strcmp(c->name, name) == 0 && c->build_id_size == build_id_size &&
            memcmp(c->build_id, build_id, build_id_size) == 0 && (c->has_path || !path)) {
            *image = c->id;
            return 0;
        }
    }
    if (pdb_need_write(db, err) != 0)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO images(name, build_id, path) VALUES (?1, ?2, ?3)"
                                   " ON CONFLICT DO UPDATE SET path = coalesce(?3, path)"
                                   " RETURNING id", -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "recording an image");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(st, 2, build_id_size ? (const void *)build_id : "", (int)build_id_size,
                      SQLITE_TRANSIENT);
    if (path)
        sqlite3_bind_text(st, 3, path, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return pdb_sql_err(db, err, "recording an image");
    }
    *image = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);

    db->images = xrealloc(db->images, (db->nimages + 1) * sizeof *db->images);
    struct image_cache *c = &db->images[db->nimages++];
    memset(c, 0, sizeof *c);
    c->name = xstrdup(name);
    memcpy(c->build_id, build_id, build_id_size);
    c->build_id_size = build_id_size;
    c->has_path = path != NULL;
    c->id = *image;
    return 0;
}

int pdb_loadmap(struct pdb *db, int64_t session, int64_t epoch, int64_t image, uint64_t address,
                uint64_t size, bool loaded, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (pdb_need_write(db, err) != 0)
        return -1;
    const char *sql = loaded
        ? "INSERT INTO loadmaps(session, address, image, size, epoch) VALUES (?1, ?2, ?3, ?4, ?5)"
          " ON CONFLICT DO UPDATE SET size = ?4, unloaded_epoch = NULL"
        : "UPDATE loadmaps SET unloaded_epoch = ?5 WHERE session = ?1 AND address = ?2"
          " AND image = ?3 AND unloaded_epoch IS NULL";
    if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "recording a loadmap entry");
    sqlite3_bind_int64(st, 1, session);
    sqlite3_bind_int64(st, 2, (int64_t)address);
    sqlite3_bind_int64(st, 3, image);
    sqlite3_bind_int64(st, 4, (int64_t)size);
    sqlite3_bind_int64(st, 5, epoch);
    return step_done(db, st, "recording a loadmap entry", err);
}

int pdb_set_name(struct pdb *db, const char *kind, uint32_t index, const char *name,
                 struct ap_err *err)
{
    sqlite3_stmt *st;
    if (pdb_need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO names(kind, idx, name) VALUES (?, ?, ?)"
                                   " ON CONFLICT DO UPDATE SET name = excluded.name",
                           -1, &st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "recording a name");
    sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, index);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
    return step_done(db, st, "recording a name", err);
}
