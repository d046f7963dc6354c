/*
 * The profile database (interface and guarantees: profile-db.h).  The
 * schema below is its documentation: every table and column is described
 * where it is created.
 */
#include "util/profile-db.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/strvec.h"

/*
 * ======================================================================
 * Schema, version 1.  DCPI's profile database (SOSP'97 section 4.3) as
 * SQLite tables: epochs, per-(image, event) sample profiles, loadmaps,
 * unknown samples, plus ProfileMe aggregates and paired samples.
 *
 * Conventions: integers are SQLite's signed 64-bit INTEGER, so addresses
 * >= 2^63 read back negative (cast to unsigned).  Times are host UTC,
 * ISO-8601 text.  `offset` is a PC minus its image's load address, the
 * stable place of an instruction across runs; image 0 ('[unknown]') holds
 * samples whose PC lay in no loaded image, with the absolute PC as offset.
 * Counts are sums: merging adds.  Event numbers, ProfileMe event bits and
 * latency fields are the hw-model's (hw-model/pmu-window.h); `names` holds
 * the names the firmware announced for them.
 * ======================================================================
 */
static const char schema_sql[] =
    /* Facts about the file: format = 'alphaprof-profile-db',
     * schema_version, created. */
    "CREATE TABLE meta (\n"
    "    key   TEXT PRIMARY KEY,\n"
    "    value TEXT NOT NULL\n"
    ");\n"
    /* Non-overlapping collection intervals.  The one not ended is the
     * current epoch; merges go there.  `alphaprof db new-epoch` or the
     * link's EPOCH frame starts the next. */
    "CREATE TABLE epochs (\n"
    "    id      INTEGER PRIMARY KEY,  -- 1, 2, ...\n"
    "    started TEXT NOT NULL,\n"
    "    ended   TEXT,                 -- NULL: the current epoch\n"
    "    note    TEXT\n"
    ");\n"
    /* One boot of the board as the link saw it, HELLO to END. */
    "CREATE TABLE sessions (\n"
    "    id          INTEGER PRIMARY KEY,\n"
    "    epoch       INTEGER NOT NULL,   -- current when it began\n"
    "    started     TEXT NOT NULL,\n"
    "    ended       TEXT,               -- when END arrived; NULL if it never did\n"
    "    board       TEXT,\n"
    "    firmware    TEXT,\n"
    "    ncores      INTEGER,\n"
    "    caps        INTEGER,            -- LK_CAP_* bits (link-protocol.h)\n"
    "    timebase_hz INTEGER,            -- units of the target's time stamps\n"
    "    exit_status INTEGER,            -- the workload's, from END\n"
    "    end_how     INTEGER             -- LK_END_*: 0 exit, 1 fatal, 2 stopped\n"
    ");\n"
    /* Executable images by name and GNU build-id; image 0 is '[unknown]'. */
    "CREATE TABLE images (\n"
    "    id       INTEGER PRIMARY KEY,\n"
    "    name     TEXT NOT NULL,\n"
    "    build_id BLOB NOT NULL,         -- 0..20 bytes\n"
    "    path     TEXT,                  -- its ELF on the host, when known\n"
    "    UNIQUE (name, build_id)\n"
    ");\n"
    /* Where images were in memory, per session (LOADMAP frames). */
    "CREATE TABLE loadmaps (\n"
    "    session        INTEGER NOT NULL,\n"
    "    address        INTEGER NOT NULL, -- load address: offset 0\n"
    "    image          INTEGER NOT NULL,\n"
    "    size           INTEGER NOT NULL,\n"
    "    epoch          INTEGER NOT NULL, -- current when loaded\n"
    "    unloaded_epoch INTEGER,          -- NULL while loaded\n"
    "    PRIMARY KEY (session, address, image)\n"
    ") WITHOUT ROWID;\n"
    /* Names of event numbers ('event': samples.event), ProfileMe event
     * bits ('pme_bit': pme_bits.bit, pair_records.events) and latency
     * fields ('pme_latency': pme_latency.field, pair_records.latencies). */
    "CREATE TABLE names (\n"
    "    kind TEXT NOT NULL,\n"
    "    idx  INTEGER NOT NULL,\n"
    "    name TEXT NOT NULL,\n"
    "    PRIMARY KEY (kind, idx)\n"
    ") WITHOUT ROWID;\n"
    /* DCPI sample profiles: samples per instruction, per (epoch, image,
     * event, core).  event 255 = alarm-timer PC samples. */
    "CREATE TABLE samples (\n"
    "    epoch  INTEGER NOT NULL,\n"
    "    image  INTEGER NOT NULL,\n"
    "    event  INTEGER NOT NULL,\n"
    "    core   INTEGER NOT NULL,\n"
    "    offset INTEGER NOT NULL,\n"
    "    count  INTEGER NOT NULL,\n"
    "    PRIMARY KEY (epoch, image, event, core, offset)\n"
    ") WITHOUT ROWID;\n"
    /* Mean sampling period of (epoch, event, core): count * period
     * estimates the number of events.  The last period reported wins.
     * Events 256-258 (PDB_PERIOD_PME*): ProfileMe's fetched instructions
     * per pme record, per pair, and the pair window W. */
    "CREATE TABLE periods (\n"
    "    epoch  INTEGER NOT NULL,\n"
    "    event  INTEGER NOT NULL,\n"
    "    core   INTEGER NOT NULL,\n"
    "    period INTEGER NOT NULL,\n"
    "    PRIMARY KEY (epoch, event, core)\n"
    ") WITHOUT ROWID;\n"
    /* ProfileMe aggregates per instruction: how many samples, retired,
     * aborted (bad path or trapped). */
    "CREATE TABLE pme (\n"
    "    epoch   INTEGER NOT NULL,\n"
    "    image   INTEGER NOT NULL,\n"
    "    core    INTEGER NOT NULL,\n"
    "    offset  INTEGER NOT NULL,\n"
    "    samples INTEGER NOT NULL,\n"
    "    retired INTEGER NOT NULL,\n"
    "    aborted INTEGER NOT NULL,\n"
    "    PRIMARY KEY (epoch, image, core, offset)\n"
    ") WITHOUT ROWID;\n"
    /* ... per event bit: samples with the bit set (zero counts omitted). */
    "CREATE TABLE pme_bits (\n"
    "    epoch  INTEGER NOT NULL,\n"
    "    image  INTEGER NOT NULL,\n"
    "    core   INTEGER NOT NULL,\n"
    "    offset INTEGER NOT NULL,\n"
    "    bit    INTEGER NOT NULL,\n"
    "    count  INTEGER NOT NULL,\n"
    "    PRIMARY KEY (epoch, image, core, offset, bit)\n"
    ") WITHOUT ROWID;\n"
    /* ... per latency field: the sum over samples (mean = sum / samples). */
    "CREATE TABLE pme_latency (\n"
    "    epoch  INTEGER NOT NULL,\n"
    "    image  INTEGER NOT NULL,\n"
    "    core   INTEGER NOT NULL,\n"
    "    offset INTEGER NOT NULL,\n"
    "    field  INTEGER NOT NULL,\n"
    "    sum    INTEGER NOT NULL,\n"
    "    PRIMARY KEY (epoch, image, core, offset, field)\n"
    ") WITHOUT ROWID;\n"
    /* Paired ProfileMe samples, kept whole: two records each. */
    "CREATE TABLE pairs (\n"
    "    id       INTEGER PRIMARY KEY,\n"
    "    epoch    INTEGER NOT NULL,\n"
    "    session  INTEGER NOT NULL,\n"
    "    core     INTEGER NOT NULL,\n"
    "    distance INTEGER NOT NULL,    -- cycles between the two fetches\n"
    "    gap      INTEGER NOT NULL     -- instructions fetched between them\n"
    ");\n"
    "CREATE TABLE pair_records (\n"
    "    pair      INTEGER NOT NULL,   -- pairs.id\n"
    "    slot      INTEGER NOT NULL,   -- 0 the first fetched, 1 the second\n"
    "    image     INTEGER NOT NULL,\n"
    "    offset    INTEGER NOT NULL,\n"
    "    events    INTEGER NOT NULL,   -- event bit-field\n"
    "    addr      INTEGER NOT NULL,   -- effective address, 0 if none\n"
    "    history   INTEGER NOT NULL,   -- global branch history at fetch\n"
    "    latencies TEXT NOT NULL,      -- JSON array, one per latency field\n"
    "    PRIMARY KEY (pair, slot)\n"
    ") WITHOUT ROWID;\n"
    /* Samples lost, per reason: the target's (link-protocol.h LK_DROP_*,
     * by name, per core) and the host's (core -1: link_bad_frames,
     * link_lost_frames, link_lost_samples, ...).  Every sample the
     * hardware delivered is in a profile or counted here. */
    "CREATE TABLE drops (\n"
    "    epoch  INTEGER NOT NULL,\n"
    "    core   INTEGER NOT NULL,\n"
    "    reason TEXT NOT NULL,\n"
    "    count  INTEGER NOT NULL,\n"
    "    PRIMARY KEY (epoch, core, reason)\n"
    ") WITHOUT ROWID;\n"
    /* Counters of the collection itself: the target's LK_STAT_* (by name,
     * per core) and the host's (core -1), summed per epoch. */
    "CREATE TABLE stats (\n"
    "    epoch INTEGER NOT NULL,\n"
    "    core  INTEGER NOT NULL,\n"
    "    name  TEXT NOT NULL,\n"
    "    value INTEGER NOT NULL,\n"
    "    PRIMARY KEY (epoch, core, name)\n"
    ") WITHOUT ROWID;\n"
    /* DCPI's special profile of samples in no image. */
    "CREATE VIEW unknown_samples AS\n"
    "    SELECT epoch, event, core, offset AS pc, count FROM samples WHERE image = 0;\n";

const char *pdb_schema_sql(void)
{
    return schema_sql;
}

const char *const pdb_tables[] = {
    "meta", "epochs", "sessions", "images", "loadmaps", "names", "samples", "periods",
    "pme", "pme_bits", "pme_latency", "pairs", "pair_records", "drops", "stats", NULL,
};

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

/* ------------------------------------------------------------ merge map */

/* What a pending merge row goes to. */
enum mtab { M_SAMPLES, M_PERIOD, M_PME, M_PME_BIT, M_PME_LAT, M_DROP, M_STAT, M_NTAB };

struct mrow {
    int64_t k[5];               /* the table's key columns, in order */
    int64_t v[3];
    uint8_t tab;
    bool used;
};

struct mmap {
    struct mrow *slots;
    size_t cap, n;
};

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

static uint64_t mrow_hash(uint8_t tab, const int64_t k[5])
{
    uint64_t h = tab;
    for (int i = 0; i < 5; i++)
        h = mix(h, (uint64_t)k[i]);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static bool mrow_is(const struct mrow *r, uint8_t tab, const int64_t k[5])
{
    return r->tab == tab && r->k[0] == k[0] && r->k[1] == k[1] && r->k[2] == k[2] &&
           r->k[3] == k[3] && r->k[4] == k[4];
}

static void mmap_grow(struct mmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 4096;
    struct mrow *slots = calloc(cap, sizeof *slots);
    if (!slots) {
        fprintf(stderr, "alphaprof: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < m->cap; i++) {
        struct mrow *r = &m->slots[i];
        if (!r->used)
            continue;
        size_t j = mrow_hash(r->tab, r->k) & (cap - 1);
        while (slots[j].used)
            j = (j + 1) & (cap - 1);
        slots[j] = *r;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
}

/* The row for (tab, k), created zeroed if new. */
static struct mrow *mmap_get(struct mmap *m, uint8_t tab, const int64_t k[5])
{
    if ((m->n + 1) * 2 > m->cap)
        mmap_grow(m);
    size_t j = mrow_hash(tab, k) & (m->cap - 1);
    while (m->slots[j].used) {
        if (mrow_is(&m->slots[j], tab, k))
            return &m->slots[j];
        j = (j + 1) & (m->cap - 1);
    }
    struct mrow *r = &m->slots[j];
    memset(r, 0, sizeof *r);
    r->used = true;
    r->tab = tab;
    memcpy(r->k, k, sizeof r->k);
    m->n++;
    return r;
}

static void mmap_clear(struct mmap *m)
{
    if (m->n)
        memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->n = 0;
}

/* ------------------------------------------------------------- database */

struct pending_pair {
    int64_t epoch, session;
    int32_t core;
    uint64_t distance, gap;
    struct {
        int64_t image;
        uint64_t offset, events, addr, history;
        char lat[LK_MAX_LAT * 21 + 3];  /* JSON array */
    } rec[2];
};

struct image_cache {
    char *name;
    uint8_t build_id[LK_BUILD_ID_SIZE];
    size_t build_id_size;
    bool has_path;
    int64_t id;
};

struct pdb {
    sqlite3 *db;
    char *path;
    bool writable;
    sqlite3_stmt *upsert[M_NTAB];
    sqlite3_stmt *ins_pair, *ins_pair_rec;
    struct mmap map;
    struct pending_pair *pairs;
    size_t npairs, cap_pairs;
    char **strs;                /* interned drop reasons and stat names */
    size_t nstrs;
    struct image_cache *images;
    size_t nimages;
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

static int sql_err(struct pdb *db, struct ap_err *err, const char *what)
{
    return ap_err_set(err, "profile database %s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

static int exec(struct pdb *db, const char *sql, struct ap_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        ap_err_set(err, "profile database %s: %s", db->path, msg ? msg : sqlite3_errmsg(db->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static int prepare(struct pdb *db, const char *sql, sqlite3_stmt **st, struct ap_err *err)
{
    if (sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
        return sql_err(db, err, "preparing a statement");
    return 0;
}

static const char *const upsert_sql[M_NTAB] = {
    [M_SAMPLES] = "INSERT INTO samples(epoch,image,event,core,offset,count) VALUES(?1,?2,?3,?4,?5,?6)"
                  " ON CONFLICT DO UPDATE SET count = count + excluded.count",
    [M_PERIOD] = "INSERT INTO periods(epoch,event,core,period) VALUES(?1,?2,?3,?6)"
                 " ON CONFLICT DO UPDATE SET period = excluded.period",
    [M_PME] = "INSERT INTO pme(epoch,image,core,offset,samples,retired,aborted)"
              " VALUES(?1,?2,?3,?4,?6,?7,?8) ON CONFLICT DO UPDATE SET"
              " samples = samples + excluded.samples, retired = retired + excluded.retired,"
              " aborted = aborted + excluded.aborted",
    [M_PME_BIT] = "INSERT INTO pme_bits(epoch,image,core,offset,bit,count) VALUES(?1,?2,?3,?4,?5,?6)"
                  " ON CONFLICT DO UPDATE SET count = count + excluded.count",
    [M_PME_LAT] = "INSERT INTO pme_latency(epoch,image,core,offset,field,sum) VALUES(?1,?2,?3,?4,?5,?6)"
                  " ON CONFLICT DO UPDATE SET sum = sum + excluded.sum",
    [M_DROP] = "INSERT INTO drops(epoch,core,reason,count) VALUES(?1,?2,?3,?6)"
               " ON CONFLICT DO UPDATE SET count = count + excluded.count",
    [M_STAT] = "INSERT INTO stats(epoch,core,name,value) VALUES(?1,?2,?3,?6)"
               " ON CONFLICT DO UPDATE SET value = value + excluded.value",
};

static int prepare_writes(struct pdb *db, struct ap_err *err)
{
    for (int t = 0; t < M_NTAB; t++)
        if (prepare(db, upsert_sql[t], &db->upsert[t], err) != 0)
            return -1;
    if (prepare(db, "INSERT INTO pairs(epoch,session,core,distance,gap) VALUES(?,?,?,?,?)",
                &db->ins_pair, err) != 0)
        return -1;
    return prepare(db, "INSERT INTO pair_records(pair,slot,image,offset,events,addr,history,latencies)"
                       " VALUES(?,?,?,?,?,?,?,?)", &db->ins_pair_rec, err);
}

static int create_schema(struct pdb *db, struct ap_err *err)
{
    if (exec(db, "BEGIN IMMEDIATE", err) != 0)
        return -1;
    char *sql = NULL;
    int rc = exec(db, schema_sql, err);
    if (rc == 0) {
        sql = sqlite3_mprintf("INSERT INTO meta VALUES ('format', '%q'), ('schema_version', '%d')",
                              PDB_FORMAT, PDB_SCHEMA_VERSION);
        rc = exec(db, sql, err);
        sqlite3_free(sql);
    }
    if (rc == 0)
        rc = exec(db, "INSERT INTO meta VALUES ('created', " NOW_SQL ");"
                      "INSERT INTO epochs(id, started, note) VALUES (1, " NOW_SQL ", 'first epoch');"
                      "INSERT INTO images(id, name, build_id) VALUES (0, '[unknown]', x'');", err);
    if (rc == 0)
        return exec(db, "COMMIT", err);
    sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* Is this file ours, and of a schema we read?  0 yes, 1 empty, -1 no. */
static int check_format(struct pdb *db, struct ap_err *err)
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
        return sql_err(db, err, "reading meta");
    }
    bool ours = format && strcmp(format, PDB_FORMAT) == 0;
    free(format);
    if (!ours)
        return ap_err_set(err, "%s is an SQLite database but not an alphaprof profile database "
                          "(meta has no format '%s')", db->path, PDB_FORMAT);
    if (version > PDB_SCHEMA_VERSION || version < 1)
        return ap_err_set(err, "%s has profile schema version %" PRId64 "; this alphaprof reads "
                          "version %d: use the alphaprof that wrote it", db->path, version,
                          PDB_SCHEMA_VERSION);
    return 0;
}

int pdb_open(const char *path, enum pdb_mode mode, struct pdb **out, struct ap_err *err)
{
    *out = NULL;
    struct stat sb;
    if (mode != PDB_CREATE && stat(path, &sb) != 0) {
        if (errno == ENOENT)
            return ap_err_set(err, "no profile database at %s: record one with "
                              "`alphaprof record --db %s IMAGE.elf`, or create an empty one "
                              "with `alphaprof db --db %s init`", path, path, path);
        return ap_err_set(err, "cannot open profile database %s: %s", path, strerror(errno));
    }
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return ap_err_set(err, "%s is a directory, not a profile database file", path);

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
    int fmt = check_format(db, err);
    if (fmt < 0 || (fmt == 1 && mode != PDB_CREATE)) {
        if (fmt == 1)
            ap_err_set(err, "%s is an empty SQLite file, not a profile database: create one "
                       "with `alphaprof db --db %s init`", path, path);
        pdb_close(db);
        return -1;
    }
    if (db->writable) {
        /* WAL: readers go on while we write, and a killed writer loses
         * nothing committed; NORMAL sync is durable against process death. */
        if (exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                     " PRAGMA cache_size=-65536;", err) != 0 ||
            (fmt == 1 && create_schema(db, err) != 0) || prepare_writes(db, err) != 0) {
            pdb_close(db);
            return -1;
        }
    }
    *out = db;
    return 0;
}

void pdb_close(struct pdb *db)
{
    if (!db)
        return;
    for (int t = 0; t < M_NTAB; t++)
        sqlite3_finalize(db->upsert[t]);
    sqlite3_finalize(db->ins_pair);
    sqlite3_finalize(db->ins_pair_rec);
    sqlite3_close(db->db);
    free(db->map.slots);
    free(db->pairs);
    for (size_t i = 0; i < db->nstrs; i++)
        free(db->strs[i]);
    free(db->strs);
    for (size_t i = 0; i < db->nimages; i++)
        free(db->images[i].name);
    free(db->images);
    free(db->path);
    free(db);
}

static int need_write(struct pdb *db, struct ap_err *err)
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
        return sql_err(db, err, what);
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
        return sql_err(db, err, "query");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *value = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return 0;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return ap_err_set(err, "profile database %s: query returned no row", db->path);
    return sql_err(db, err, "query");
}

/* ---------------------------------------------------------------- epochs */

int pdb_current_epoch(struct pdb *db, int64_t *epoch, struct ap_err *err)
{
    return pdb_query_int(db, "SELECT coalesce(max(id), 0) FROM epochs WHERE ended IS NULL",
                         epoch, err);
}

int pdb_new_epoch(struct pdb *db, const char *note, int64_t *epoch, struct ap_err *err)
{
    if (need_write(db, err) != 0 || exec(db, "BEGIN IMMEDIATE", err) != 0)
        return -1;
    sqlite3_stmt *st;
    int rc = exec(db, "UPDATE epochs SET ended = " NOW_SQL " WHERE ended IS NULL", err);
    if (rc == 0 && sqlite3_prepare_v2(db->db, "INSERT INTO epochs(started, note) VALUES (" NOW_SQL ", ?)",
                                      -1, &st, NULL) != SQLITE_OK)
        rc = sql_err(db, err, "starting an epoch");
    if (rc == 0) {
        sqlite3_bind_text(st, 1, note, -1, SQLITE_TRANSIENT);
        rc = step_done(db, st, "starting an epoch", err);
    }
    if (rc == 0) {
        *epoch = sqlite3_last_insert_rowid(db->db);
        return exec(db, "COMMIT", err);
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
    if (need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO sessions(epoch, started, board, firmware, ncores,"
                                   " caps, timebase_hz) VALUES (?, " NOW_SQL ", ?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "recording a session");
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
    if (need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "UPDATE sessions SET ended = " NOW_SQL ", exit_status = ?,"
                                   " end_how = ? WHERE id = ?", -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "ending a session");
    sqlite3_bind_int64(st, 1, e->status);
    sqlite3_bind_int64(st, 2, e->how);
    sqlite3_bind_int64(st, 3, session);
    return step_done(db, st, "ending a session", err);
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
    if (need_write(db, err) != 0)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO images(name, build_id, path) VALUES (?1, ?2, ?3)"
                                   " ON CONFLICT DO UPDATE SET path = coalesce(?3, path)"
                                   " RETURNING id", -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "recording an image");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_blob(st, 2, build_id_size ? (const void *)build_id : "", (int)build_id_size,
                      SQLITE_TRANSIENT);
    if (path)
        sqlite3_bind_text(st, 3, path, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return sql_err(db, err, "recording an image");
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
    if (need_write(db, err) != 0)
        return -1;
    const char *sql = loaded
        ? "INSERT INTO loadmaps(session, address, image, size, epoch) VALUES (?1, ?2, ?3, ?4, ?5)"
          " ON CONFLICT DO UPDATE SET size = ?4, unloaded_epoch = NULL"
        : "UPDATE loadmaps SET unloaded_epoch = ?5 WHERE session = ?1 AND address = ?2"
          " AND image = ?3 AND unloaded_epoch IS NULL";
    if (sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "recording a loadmap entry");
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
    if (need_write(db, err) != 0)
        return -1;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO names(kind, idx, name) VALUES (?, ?, ?)"
                                   " ON CONFLICT DO UPDATE SET name = excluded.name",
                           -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "recording a name");
    sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, index);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
    return step_done(db, st, "recording a name", err);
}

/* ----------------------------------------------------------------- merges */

static int64_t intern(struct pdb *db, const char *s)
{
    for (size_t i = 0; i < db->nstrs; i++)
        if (strcmp(db->strs[i], s) == 0)
            return (int64_t)i;
    db->strs = xrealloc(db->strs, (db->nstrs + 1) * sizeof *db->strs);
    db->strs[db->nstrs] = xstrdup(s);
    return (int64_t)db->nstrs++;
}

static struct mrow *row(struct pdb *db, enum mtab tab, int64_t a, int64_t b, int64_t c, int64_t d,
                        int64_t e)
{
    int64_t k[5] = {a, b, c, d, e};
    return mmap_get(&db->map, (uint8_t)tab, k);
}

void pdb_add_samples(struct pdb *db, int64_t epoch, int64_t image, uint32_t event, int32_t core,
                     uint64_t offset, uint64_t count)
{
    row(db, M_SAMPLES, epoch, image, event, core, (int64_t)offset)->v[0] += (int64_t)count;
}

void pdb_set_period(struct pdb *db, int64_t epoch, uint32_t event, int32_t core, uint64_t period)
{
    row(db, M_PERIOD, epoch, event, core, 0, 0)->v[0] = (int64_t)period;
}

void pdb_add_pme(struct pdb *db, int64_t epoch, int64_t image, int32_t core, uint64_t offset,
                 const struct lk_pme_agg *a, uint32_t nbits, uint32_t nlat)
{
    struct mrow *r = row(db, M_PME, epoch, image, core, (int64_t)offset, 0);
    r->v[0] += (int64_t)a->samples;
    r->v[1] += (int64_t)a->retired;
    r->v[2] += (int64_t)a->aborted;
    for (uint32_t i = 0; i < nbits && i < LK_MAX_BITS; i++)
        if (a->bits[i])
            row(db, M_PME_BIT, epoch, image, core, (int64_t)offset, i)->v[0] += (int64_t)a->bits[i];
    for (uint32_t i = 0; i < nlat && i < LK_MAX_LAT; i++)
        row(db, M_PME_LAT, epoch, image, core, (int64_t)offset, i)->v[0] += (int64_t)a->lat[i];
}

void pdb_add_drop(struct pdb *db, int64_t epoch, int32_t core, const char *reason, uint64_t count)
{
    if (count)
        row(db, M_DROP, epoch, core, intern(db, reason), 0, 0)->v[0] += (int64_t)count;
}

void pdb_add_stat(struct pdb *db, int64_t epoch, int32_t core, const char *name, uint64_t delta)
{
    row(db, M_STAT, epoch, core, intern(db, name), 0, 0)->v[0] += (int64_t)delta;
}

static void latency_json(char *out, size_t cap, const uint64_t *lat, uint32_t n)
{
    size_t o = (size_t)snprintf(out, cap, "[");
    for (uint32_t i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%" PRIu64, i ? "," : "", lat[i]);
    if (o < cap)
        snprintf(out + o, cap - o, "]");
}

void pdb_add_pair(struct pdb *db, int64_t epoch, int64_t session, int32_t core,
                  const struct lk_pair *p, uint32_t nlat, const struct pdb_pair_record where[2])
{
    if (db->npairs == db->cap_pairs) {
        db->cap_pairs = db->cap_pairs ? db->cap_pairs * 2 : 256;
        db->pairs = xrealloc(db->pairs, db->cap_pairs * sizeof *db->pairs);
    }
    struct pending_pair *q = &db->pairs[db->npairs++];
    q->epoch = epoch;
    q->session = session;
    q->core = core;
    q->distance = p->distance;
    q->gap = p->gap;
    if (nlat > LK_MAX_LAT)
        nlat = LK_MAX_LAT;
    for (int k = 0; k < 2; k++) {
        q->rec[k].image = where[k].image;
        q->rec[k].offset = where[k].offset;
        q->rec[k].events = where[k].rec->events;
        q->rec[k].addr = where[k].rec->addr;
        q->rec[k].history = where[k].rec->history;
        latency_json(q->rec[k].lat, sizeof q->rec[k].lat, where[k].rec->lat, nlat);
    }
}

size_t pdb_pending(const struct pdb *db)
{
    return db->map.n + db->npairs;
}

/* Rows in key order, so the B-tree is walked forward, not at random. */
static int cmp_rows(const void *a, const void *b)
{
    const struct mrow *x = *(const struct mrow *const *)a, *y = *(const struct mrow *const *)b;
    if (x->tab != y->tab)
        return x->tab < y->tab ? -1 : 1;
    for (int i = 0; i < 5; i++)
        if (x->k[i] != y->k[i])
            return x->k[i] < y->k[i] ? -1 : 1;
    return 0;
}

static int write_row(struct pdb *db, const struct mrow *r)
{
    sqlite3_stmt *st = db->upsert[r->tab];
    for (int i = 0; i < 5; i++)
        sqlite3_bind_int64(st, i + 1, r->k[i]);
    if (r->tab == M_DROP || r->tab == M_STAT)     /* the name, not its interned number */
        sqlite3_bind_text(st, 3, db->strs[r->k[2]], -1, SQLITE_STATIC);
    for (int i = 0; i < 3; i++)
        sqlite3_bind_int64(st, i + 6, r->v[i]);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int write_pairs(struct pdb *db)
{
    for (size_t i = 0; i < db->npairs; i++) {
        const struct pending_pair *q = &db->pairs[i];
        sqlite3_stmt *st = db->ins_pair;
        sqlite3_bind_int64(st, 1, q->epoch);
        sqlite3_bind_int64(st, 2, q->session);
        sqlite3_bind_int64(st, 3, q->core);
        sqlite3_bind_int64(st, 4, (int64_t)q->distance);
        sqlite3_bind_int64(st, 5, (int64_t)q->gap);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return -1;
        int64_t id = sqlite3_last_insert_rowid(db->db);
        for (int k = 0; k < 2; k++) {
            st = db->ins_pair_rec;
            sqlite3_bind_int64(st, 1, id);
            sqlite3_bind_int64(st, 2, k);
            sqlite3_bind_int64(st, 3, q->rec[k].image);
            sqlite3_bind_int64(st, 4, (int64_t)q->rec[k].offset);
            sqlite3_bind_int64(st, 5, (int64_t)q->rec[k].events);
            sqlite3_bind_int64(st, 6, (int64_t)q->rec[k].addr);
            sqlite3_bind_int64(st, 7, (int64_t)q->rec[k].history);
            sqlite3_bind_text(st, 8, q->rec[k].lat, -1, SQLITE_STATIC);
            rc = sqlite3_step(st);
            sqlite3_reset(st);
            if (rc != SQLITE_DONE)
                return -1;
        }
    }
    return 0;
}

int pdb_commit(struct pdb *db, struct ap_err *err)
{
    if (need_write(db, err) != 0)
        return -1;
    if (pdb_pending(db) == 0)
        return 0;
    struct mrow **rows = malloc((db->map.n ? db->map.n : 1) * sizeof *rows);
    if (!rows)
        return ap_err_set(err, "out of memory committing %zu rows", db->map.n);
    size_t n = 0;
    for (size_t i = 0; i < db->map.cap; i++)
        if (db->map.slots[i].used)
            rows[n++] = &db->map.slots[i];
    qsort(rows, n, sizeof *rows, cmp_rows);

    int rc = exec(db, "BEGIN IMMEDIATE", err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (write_row(db, rows[i]) != 0)
            rc = sql_err(db, err, "merging samples");
    if (rc == 0 && write_pairs(db) != 0)
        rc = sql_err(db, err, "adding paired samples");
    if (rc == 0)
        rc = exec(db, "COMMIT", err);
    free(rows);
    if (rc != 0) {
        /* nothing of this batch is on disk; the merges stay pending */
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    mmap_clear(&db->map);
    db->npairs = 0;
    return 0;
}

/* ---------------------------------------------------------------- reading */

/* Columns shown in hex in text output (addresses and bit-fields). */
static bool hex_column(const char *name)
{
    static const char *const hex[] = {"address", "offset", "addr", "pc", "events", "history", NULL};
    for (int i = 0; hex[i]; i++)
        if (strcmp(name, hex[i]) == 0)
            return true;
    return false;
}

static void json_string(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* One cell as text (for tables) into buf. */
static const char *cell_text(sqlite3_stmt *st, int i, char *buf, size_t cap)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        return "-";
    case SQLITE_INTEGER: {
        int64_t v = sqlite3_column_int64(st, i);
        if (hex_column(sqlite3_column_name(st, i)))
            snprintf(buf, cap, "0x%" PRIx64, (uint64_t)v);
        else
            snprintf(buf, cap, "%" PRId64, v);
        return buf;
    }
    case SQLITE_BLOB: {
        const unsigned char *b = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        size_t o = 0;
        for (int j = 0; j < n && o + 3 < cap; j++)
            o += (size_t)snprintf(buf + o, cap - o, "%02x", b[j]);
        buf[o] = 0;
        return n ? buf : "-";
    }
    default: {
        const char *t = (const char *)sqlite3_column_text(st, i);
        return t ? t : "";
    }
    }
}

static void json_cell(FILE *out, sqlite3_stmt *st, int i)
{
    char buf[128];
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL:
        fputs("null", out);
        break;
    case SQLITE_INTEGER: {
        int64_t v = sqlite3_column_int64(st, i);
        if (hex_column(sqlite3_column_name(st, i)))
            fprintf(out, "%" PRIu64, (uint64_t)v);  /* addresses are unsigned */
        else
            fprintf(out, "%" PRId64, v);
        break;
    }
    case SQLITE_FLOAT:
        fprintf(out, "%.17g", sqlite3_column_double(st, i));
        break;
    case SQLITE_BLOB: {
        const char *t = cell_text(st, i, buf, sizeof buf);
        json_string(out, strcmp(t, "-") ? t : "", strcmp(t, "-") ? strlen(t) : 0);
        break;
    }
    default:
        json_string(out, (const char *)sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
    }
}

/* Prints the rows of a statement: aligned columns (two passes) or JSON
 * objects.  The statement is reset and stepped again for the second pass. */
static int print_rows(struct pdb *db, sqlite3_stmt *st, FILE *out, bool json, struct ap_err *err)
{
    int ncol = sqlite3_column_count(st);
    int rc;
    if (json) {
        fputc('[', out);
        bool first = true;
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            fputs(first ? "\n    {" : ",\n    {", out);
            first = false;
            for (int i = 0; i < ncol; i++) {
                if (i)
                    fputs(", ", out);
                const char *name = sqlite3_column_name(st, i);
                json_string(out, name, strlen(name));
                fputs(": ", out);
                json_cell(out, st, i);
            }
            fputc('}', out);
        }
        fputs(first ? "]" : "\n  ]", out);
        return rc == SQLITE_DONE ? 0 : sql_err(db, err, "reading");
    }
    size_t *width = calloc((size_t)ncol, sizeof *width);
    bool *right = calloc((size_t)ncol, sizeof *right);
    if (!width || !right) {
        free(width);
        free(right);
        return ap_err_set(err, "out of memory");
    }
    char buf[128];
    for (int i = 0; i < ncol; i++)
        width[i] = strlen(sqlite3_column_name(st, i));
    size_t rows = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        for (int i = 0; i < ncol; i++) {
            size_t w = strlen(cell_text(st, i, buf, sizeof buf));
            if (w > width[i])
                width[i] = w;
            if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
                right[i] = true;
        }
    }
    if (rc == SQLITE_DONE) {
        for (int i = 0; i < ncol; i++)
            fprintf(out, "%s%*s", i ? "  " : "",
                    right[i] ? (int)width[i] : (i == ncol - 1 ? 0 : -(int)width[i]),
                    sqlite3_column_name(st, i));
        fputc('\n', out);
        sqlite3_reset(st);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW)
            for (int i = 0; i < ncol; i++) {
                bool last = i == ncol - 1;
                fprintf(out, "%s%*s%s", i ? "  " : "",
                        right[i] ? (int)width[i] : (last ? 0 : -(int)width[i]),
                        cell_text(st, i, buf, sizeof buf), last ? "\n" : "");
            }
        if (rows == 0)
            fputs("(no rows)\n", out);
    }
    free(width);
    free(right);
    return rc == SQLITE_DONE ? 0 : sql_err(db, err, "reading");
}

static bool table_has_column(struct pdb *db, const char *table, const char *column)
{
    sqlite3_stmt *st;
    char *sql = sqlite3_mprintf("SELECT 1 FROM pragma_table_info(%Q) WHERE name = %Q", table, column);
    bool has = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL) == SQLITE_OK &&
               sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    sqlite3_free(sql);
    return has;
}

int pdb_dump(struct pdb *db, FILE *out, const char *const *names, size_t nnames, int64_t epoch,
             bool json, struct ap_err *err)
{
    const char *const *list = nnames ? names : pdb_tables;
    size_t n = 0;
    if (!nnames)
        while (pdb_tables[n])
            n++;
    else
        n = nnames;
    for (size_t i = 0; i < n; i++) {
        bool known = false;
        for (int j = 0; pdb_tables[j]; j++)
            known |= strcmp(list[i], pdb_tables[j]) == 0;
        if (!known) {
            struct strvec sv = {0};
            for (int j = 0; pdb_tables[j]; j++)
                strvec_push(&sv, pdb_tables[j]);
            char *all = strvec_join(&sv, ", ");
            ap_err_set(err, "no table '%s' in a profile database; the tables are: %s", list[i], all);
            free(all);
            strvec_free(&sv);
            return -1;
        }
    }
    if (json)
        fputs("{", out);
    for (size_t i = 0; i < n; i++) {
        const char *t = list[i];
        char *sql;
        if (epoch > 0 && strcmp(t, "epochs") == 0)
            sql = sqlite3_mprintf("SELECT * FROM epochs WHERE id = %lld", (long long)epoch);
        else if (epoch > 0 && strcmp(t, "pair_records") == 0)
            sql = sqlite3_mprintf("SELECT * FROM pair_records WHERE pair IN"
                                  " (SELECT id FROM pairs WHERE epoch = %lld)", (long long)epoch);
        else if (epoch > 0 && table_has_column(db, t, "epoch"))
            sql = sqlite3_mprintf("SELECT * FROM \"%w\" WHERE epoch = %lld", t, (long long)epoch);
        else
            sql = sqlite3_mprintf("SELECT * FROM \"%w\"", t);
        sqlite3_stmt *st;
        int rc = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL);
        sqlite3_free(sql);
        if (rc != SQLITE_OK)
            return sql_err(db, err, "reading");
        if (json) {
            fprintf(out, "%s\n  ", i ? "," : "");
            json_string(out, t, strlen(t));
            fputs(": ", out);
        } else {
            fprintf(out, "%s== %s ==\n", i ? "\n" : "", t);
        }
        rc = print_rows(db, st, out, json, err);
        sqlite3_finalize(st);
        if (rc != 0)
            return -1;
    }
    if (json)
        fputs("\n}\n", out);
    return 0;
}

int pdb_list_epochs(struct pdb *db, FILE *out, bool json, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(
            db->db,
            "SELECT e.id AS epoch, e.started, coalesce(e.ended, 'current') AS ended,"
            " (SELECT count(*) FROM sessions s WHERE s.epoch = e.id) AS sessions,"
            " (SELECT coalesce(sum(count), 0) FROM samples s WHERE s.epoch = e.id) AS samples,"
            " (SELECT coalesce(sum(samples), 0) FROM pme p WHERE p.epoch = e.id) AS pme_samples,"
            " (SELECT count(*) FROM pairs p WHERE p.epoch = e.id) AS pairs,"
            " (SELECT coalesce(sum(count), 0) FROM drops d WHERE d.epoch = e.id) AS dropped,"
            " coalesce(e.note, '') AS note"
            " FROM epochs e ORDER BY e.id",
            -1, &st, NULL) != SQLITE_OK)
        return sql_err(db, err, "listing epochs");
    if (json)
        fputs("{\n  \"epochs\": ", out);
    int rc = print_rows(db, st, out, json, err);
    if (json && rc == 0)
        fputs("\n}\n", out);
    sqlite3_finalize(st);
    return rc;
}
