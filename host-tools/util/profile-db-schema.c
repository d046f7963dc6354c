/*
 * The profile database's schema (interface: profile-db.h): the SQL that
 * creates it, which is also its documentation (every table and column is
 * described where it is created), the list of tables, and the migrations
 * that bring an older file up to this version.
 *
 * Invariants:
 *   1. schema_sql always creates the current version (PDB_SCHEMA_VERSION);
 *      a file of an older version is brought to it, in one transaction, by
 *      the migrations below, which only add (columns, tables): every older
 *      file stays readable and nothing it holds changes meaning.
 *   2. pdb_tables lists every table, in the order `db dump` prints them.
 */
#include "util/profile-db-internal.h"

#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

/* Value sampling (v4): Gibbons-Matias concise samples per (PC, value kind)
 * as the board's VALUES frames carry them, summed over frames.  A value's
 * frequency is estimated by `estimate` (the sum of count * tau, unbiased),
 * with `variance` the sum of count * tau * (tau - 1) (the estimate's
 * variance, for confidence intervals); offered counts every value the
 * board offered to the hotlist, exactly. */
#define VALUE_TABLES_SQL_(if_not_exists)                                              \
    "CREATE TABLE " if_not_exists "value_lists (\n"                                                   \
    "    epoch    INTEGER NOT NULL,\n"                                               \
    "    image    INTEGER NOT NULL,\n"                                               \
    "    core     INTEGER NOT NULL,\n"                                               \
    "    offset   INTEGER NOT NULL,\n"                                               \
    "    kind     INTEGER NOT NULL,     -- firmware/abi/value-capture.h VALUE_*\n"   \
    "    offered  INTEGER NOT NULL,     -- values offered to the hotlist\n"          \
    "    hotlists INTEGER NOT NULL,     -- hotlists merged into this row\n"          \
    "    PRIMARY KEY (epoch, image, core, offset, kind)\n"                           \
    ") WITHOUT ROWID;\n"                                                             \
    "CREATE TABLE " if_not_exists "value_counts (\n"                                                  \
    "    epoch    INTEGER NOT NULL,\n"                                               \
    "    image    INTEGER NOT NULL,\n"                                               \
    "    core     INTEGER NOT NULL,\n"                                               \
    "    offset   INTEGER NOT NULL,\n"                                               \
    "    kind     INTEGER NOT NULL,\n"                                               \
    "    value    INTEGER NOT NULL,\n"                                               \
    "    samples  INTEGER NOT NULL,     -- sum of the hotlists' counts\n"            \
    "    estimate INTEGER NOT NULL,     -- sum of count * tau: occurrences\n"        \
    "    variance INTEGER NOT NULL,     -- sum of count * tau * (tau - 1)\n"         \
    "    PRIMARY KEY (epoch, image, core, offset, kind, value)\n"                    \
    ") WITHOUT ROWID;\n"

/* Calling context trees (v5) of images instrumented with `alphaprof
 * instrument --cct` (firmware/abi/cct-region.h), as the board's CCT frames
 * carry them: per session and core, one row per call record.  Record 0 is
 * the root (its own parent), record 1 the overflow record (calls that found
 * no room); callee and site are (image, offset) as samples are.  Metrics
 * are inclusive; a record's exclusive metric is its own minus its tree
 * children's (rows whose parent it is).  cct_cores says what each core
 * made and what arrived, so nothing is missing without a count. */
#define CCT_TABLES_SQL_(if_not_exists)                                                  \
    "CREATE TABLE " if_not_exists "cct_records (\n"                                   \
    "    session      INTEGER NOT NULL,\n"                                          \
    "    core         INTEGER NOT NULL,\n"                                          \
    "    id           INTEGER NOT NULL,   -- creation ordinal on the core\n"        \
    "    parent       INTEGER NOT NULL,   -- id of the tree parent\n"               \
    "    epoch        INTEGER NOT NULL,\n"                                          \
    "    callee_image INTEGER NOT NULL,   -- the procedure entered\n"               \
    "    callee       INTEGER NOT NULL,\n"                                          \
    "    site_image   INTEGER NOT NULL,   -- the call instruction\n"                \
    "    site         INTEGER NOT NULL,\n"                                          \
    "    calls        INTEGER NOT NULL,\n"                                          \
    "    cycles       INTEGER NOT NULL,   -- inclusive, modelled cycles\n"          \
    "    retired      INTEGER NOT NULL,   -- inclusive, instructions retired\n"     \
    "    PRIMARY KEY (session, core, id)\n"                                         \
    ") WITHOUT ROWID;\n"                                                            \
    "CREATE TABLE " if_not_exists "cct_cores (\n"                                     \
    "    session        INTEGER NOT NULL,\n"                                        \
    "    core           INTEGER NOT NULL,\n"                                        \
    "    epoch          INTEGER NOT NULL,\n"                                        \
    "    total          INTEGER NOT NULL, -- records the core made\n"               \
    "    skipped_calls  INTEGER NOT NULL, -- calls not recorded: shadow stack full\n" \
    "    overflow_calls INTEGER NOT NULL, -- calls on the overflow record\n"        \
    "    metrics        INTEGER,          -- v10: 1 records carry cycles and retired, 0 counts only; NULL: 1\n" \
    "    PRIMARY KEY (session, core)\n"                                             \
    ") WITHOUT ROWID;\n"

/* Ball-Larus path counts (v6) of images instrumented with `alphaprof
 * instrument --paths` (firmware/abi/path-region.h), as the board's PATHS
 * frames carry them: per session and core, one row per nonzero counter,
 * by its index; the image's path table (util/instrument.h) names it
 * (procedure, path number).  path_cores keeps each core's counts of paths
 * it could not count, so nothing is missing without a count.  A hashed
 * procedure's path (path-region.h note 14, PATH_HASH frames) has a
 * negative counter, path_hash_counter(its hashed ordinal, its number):
 * the same table, no column more (link protocol 9, schema unchanged). */
#define PATH_TABLES_SQL_(if_not_exists)                                                 \
    "CREATE TABLE " if_not_exists "path_counts (\n"                                   \
    "    session  INTEGER NOT NULL,\n"                                              \
    "    core     INTEGER NOT NULL,\n"                                              \
    "    counter  INTEGER NOT NULL,   -- index in the image's path table\n"         \
    "    epoch    INTEGER NOT NULL,\n"                                              \
    "    count    INTEGER NOT NULL,\n"                                              \
    "    cycles   INTEGER,            -- with --metrics (v8): summed path cycles\n"  \
    "    event    INTEGER,            -- ... and the path table's event\n"          \
    "    PRIMARY KEY (session, core, counter)\n"                                    \
    ") WITHOUT ROWID;\n"                                                            \
    "CREATE TABLE " if_not_exists "path_cores (\n"                                    \
    "    session         INTEGER NOT NULL,\n"                                       \
    "    core            INTEGER NOT NULL,\n"                                       \
    "    epoch           INTEGER NOT NULL,\n"                                       \
    "    lost_paths      INTEGER NOT NULL, -- activations past the register stack\n" \
    "    unmatched_exits INTEGER NOT NULL, -- exits with no activation\n"           \
    "    bad_paths       INTEGER NOT NULL, -- path numbers out of range\n"          \
    "    metered         INTEGER,          -- v8: 1 with per-path metrics\n"         \
    "    unmetered       INTEGER,          -- v8: paths counted without metrics\n"   \
    "    PRIMARY KEY (session, core)\n"                                             \
    ") WITHOUT ROWID;\n"

/* Paths per calling context (v11) of images instrumented with `alphaprof
 * instrument --both` (firmware/abi/cct-region.h notes 10-14), as the
 * board's CCT_PATHS frames carry them: per session, core and call record
 * (cct_records.id), one row per nonzero path count; the record's callee
 * is the procedure, path its Ball-Larus number.  Paths counted in no
 * context are path_counts rows (the context-free counters).  With
 * `--both --metrics` (v12, cct-region.h note 16; CCT_PATHS_METERED frames)
 * each row carries the path's summed cycles and event in that context,
 * as path_counts does context-free; NULL without metrics.  A procedure
 * --both counts in its hash table (path-region.h note 15) has its counts
 * per context here too, by record and number (up to 44 bits), and its
 * context-free ones in path_counts under negative counters as --paths'
 * (schema unchanged). */
#define CCT_PATHS_TABLE_SQL_(if_not_exists)                                             \
    "CREATE TABLE " if_not_exists "cct_path_counts (\n"                               \
    "    session  INTEGER NOT NULL,\n"                                              \
    "    core     INTEGER NOT NULL,\n"                                              \
    "    record   INTEGER NOT NULL,   -- cct_records.id on the core\n"              \
    "    path     INTEGER NOT NULL,   -- its callee's Ball-Larus path number\n"     \
    "    epoch    INTEGER NOT NULL,\n"                                              \
    "    count    INTEGER NOT NULL,\n"                                              \
    "    cycles   INTEGER,            -- with --metrics (v12): summed path cycles\n" \
    "    event    INTEGER,            -- ... and the path table's event\n"          \
    "    PRIMARY KEY (session, core, record, path)\n"                               \
    ") WITHOUT ROWID;\n"

/*
 * ======================================================================
 * Schema, version 12 (version 11 lacked cct_path_counts.cycles and .event:
 * paths per context without metrics); version 11 (version 10 lacked
 * cct_path_counts: paths per context); version 10 (version 9 lacked cct_cores.metrics: every tree had
 * metrics); version 9 (version 8 lacked pairs.weight: every pair stood for
 * one); version 8 (version 7 lacked the per-path metrics: path_counts.cycles
 * and .event, path_cores.metered and .unmetered); version 7 (version 6 lacked sessions.board_config); version 6
 * (version 5 lacked the path tables path_counts and path_cores); version 5 (version 4 lacked the calling context tables
 * cct_records and cct_cores); version 4 (version 1 lacked sessions.oracle_run_id and
 * sessions.oracle, version 2 the view achieved_periods, version 3 the value
 * tables value_lists and value_counts; see the migrations at the end).
 * DCPI's profile database (SOSP'97 section 4.3) as
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
/* Schema 3's view, in the schema and in its migration alike (a file
 * taken back to an older version by hand may still have it). */
#define ACHIEVED_PERIODS_VIEW \
    "CREATE VIEW IF NOT EXISTS achieved_periods AS\n" \
    "    SELECT epoch, 255 AS event, core,\n" \
    "           CAST(round(1.0 * sum(CASE name WHEN 'timer_ns' THEN value END)\n" \
    "                / sum(CASE name WHEN 'timer_timed' THEN value END)) AS INTEGER) AS period\n" \
    "    FROM stats WHERE core >= 0 AND name IN ('timer_ns', 'timer_timed')\n" \
    "    GROUP BY epoch, core HAVING sum(CASE name WHEN 'timer_timed' THEN value END) > 0;\n"

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
    "    end_how     INTEGER,            -- LK_END_*: 0 exit, 1 fatal, 2 stopped\n"
    "    oracle_run_id INTEGER,          -- (v2) run id of the hw-model's oracle of this\n"
    "                                    -- boot (oracle-format.h), NULL if none was written\n"
    "    oracle      TEXT,               -- (v2) that oracle file, as record was given it\n"
    "    board_config TEXT               -- (v7) the board configuration (boards/NAME) record ran\n"
    "                                    -- it on, which names the core; NULL if not known\n"
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
     * per pme record, per pair, and the pair window W; 259
     * (PDB_PERIOD_PME_CYCLES) cycles per record of time-sampled records
     * (pmu-window.h PME_DRAW_TIME), whose profiles have no 256-258. */
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
    "    gap      INTEGER NOT NULL,    -- instructions fetched between them\n"
    "    weight   REAL NOT NULL DEFAULT 1 -- pairs it stands for: its bank's offered / kept (v9)\n"
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
    /* (v3) The period each core's timer samples really had, per epoch:
     * the virtual time their intervals spanned over how many there were
     * (the FLUSH stats timer_ns and timer_timed, link-protocol.h), where
     * periods.period is the one the board set out to keep.  Every time
     * estimate uses this one where it exists (profile-view.c). */
    ACHIEVED_PERIODS_VIEW
    VALUE_TABLES_SQL_("")
    CCT_TABLES_SQL_("")
    PATH_TABLES_SQL_("")
    CCT_PATHS_TABLE_SQL_("")
    /* DCPI's special profile of samples in no image. */
    "CREATE VIEW unknown_samples AS\n"
    "    SELECT epoch, event, core, offset AS pc, count FROM samples WHERE image = 0;\n";

const char *pdb_schema_sql(void)
{
    return schema_sql;
}

const char *const pdb_tables[] = {
    "meta", "epochs", "sessions", "images", "loadmaps", "names", "samples", "periods",
    "pme", "pme_bits", "pme_latency", "pairs", "pair_records", "drops", "stats",
    "value_lists", "value_counts", "cct_records", "cct_cores", "path_counts", "path_cores", "cct_path_counts", NULL,
};

int pdb_create_schema(struct pdb *db, struct ap_err *err)
{
    if (pdb_exec(db, "BEGIN IMMEDIATE", err) != 0)
        return -1;
    /* another process may have created it since the caller looked (two
     * records starting on one new file): under the write lock, look again */
    int64_t objects = 0;
    if (pdb_query_int(db, "SELECT count(*) FROM sqlite_schema", &objects, err) != 0 || objects > 0) {
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
        return objects > 0 ? 1 : -1;
    }
    char *sql = NULL;
    int rc = pdb_exec(db, schema_sql, err);
    if (rc == 0) {
        sql = sqlite3_mprintf("INSERT INTO meta VALUES ('format', '%q'), ('schema_version', '%d')",
                              PDB_FORMAT, PDB_SCHEMA_VERSION);
        rc = pdb_exec(db, sql, err);
        sqlite3_free(sql);
    }
    if (rc == 0)
        rc = pdb_exec(db, "INSERT INTO meta VALUES ('created', " NOW_SQL ");"
                      "INSERT INTO epochs(id, started, note) VALUES (1, " NOW_SQL ", 'first epoch');"
                      "INSERT INTO images(id, name, build_id) VALUES (0, '[unknown]', x'');", err);
    if (rc == 0 && pdb_exec(db, "COMMIT", err) == 0) {
        db->schema_version = PDB_SCHEMA_VERSION;
        return 0;
    }
    sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/*
 * Migrations, oldest first: each brings version N-1 to N, only adding.
 * All run in one transaction with the new schema_version, so a file is
 * either wholly migrated or untouched.  A migration that adds a column
 * names it, and is skipped where the column is there already (SQLite has
 * no ADD COLUMN IF NOT EXISTS; a file taken back to an older version by
 * hand keeps its columns), as the tables' IF NOT EXISTS does for tables.
 */
static const struct migration {
    const char *sql;
    const char *table, *column;     /* not NULL: skipped if table has column */
} migrations[] = {
    [2] = {"ALTER TABLE sessions ADD COLUMN oracle_run_id INTEGER;"
           "ALTER TABLE sessions ADD COLUMN oracle TEXT;", "sessions", "oracle_run_id"},
    [3] = {ACHIEVED_PERIODS_VIEW, NULL, NULL},
    [4] = {VALUE_TABLES_SQL_("IF NOT EXISTS "), NULL, NULL},
    [5] = {CCT_TABLES_SQL_("IF NOT EXISTS "), NULL, NULL},
    [6] = {PATH_TABLES_SQL_("IF NOT EXISTS "), NULL, NULL},
    [7] = {"ALTER TABLE sessions ADD COLUMN board_config TEXT;", "sessions", "board_config"},
    [8] = {"ALTER TABLE path_counts ADD COLUMN cycles INTEGER;"
           "ALTER TABLE path_counts ADD COLUMN event INTEGER;"
           "ALTER TABLE path_cores ADD COLUMN metered INTEGER;"
           "ALTER TABLE path_cores ADD COLUMN unmetered INTEGER;", "path_counts", "cycles"},
    /* a full bank keeps a uniform subset of its pairs (pme-capture.h); older pairs stand for one */
    [9] = {"ALTER TABLE pairs ADD COLUMN weight REAL NOT NULL DEFAULT 1;", "pairs", "weight"},
    /* counts-only calling context trees (cct-region.h note 9); older trees have metrics */
    [10] = {"ALTER TABLE cct_cores ADD COLUMN metrics INTEGER;", "cct_cores", "metrics"},
    /* paths per calling context (instrument --both) */
    [11] = {CCT_PATHS_TABLE_SQL_("IF NOT EXISTS "), NULL, NULL},
    /* paths per calling context with metrics (instrument --both --metrics); older rows count only */
    [12] = {"ALTER TABLE cct_path_counts ADD COLUMN cycles INTEGER;"
            "ALTER TABLE cct_path_counts ADD COLUMN event INTEGER;", "cct_path_counts", "cycles"},
};
_Static_assert(sizeof migrations / sizeof migrations[0] == PDB_SCHEMA_VERSION + 1,
               "a migration to every schema version");

static bool has_column(struct pdb *db, const char *table, const char *column)
{
    return sqlite3_table_column_metadata(db->db, NULL, table, column, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK;
}

int pdb_migrate(struct pdb *db, struct ap_err *err)
{
    if (pdb_exec(db, "BEGIN IMMEDIATE", err) != 0)
        return -1;
    int rc = 0;
    for (int64_t v = db->schema_version + 1; rc == 0 && v <= PDB_SCHEMA_VERSION; v++) {
        const struct migration *m = &migrations[v];
        if (!m->column || !has_column(db, m->table, m->column))
            rc = pdb_exec(db, m->sql, err);
    }
    if (rc == 0) {
        char *sql = sqlite3_mprintf("UPDATE meta SET value = '%d' WHERE key = 'schema_version'",
                                    PDB_SCHEMA_VERSION);
        rc = pdb_exec(db, sql, err);
        sqlite3_free(sql);
    }
    if (rc == 0 && pdb_exec(db, "COMMIT", err) == 0) {
        db->schema_version = PDB_SCHEMA_VERSION;
        return 0;
    }
    sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}
