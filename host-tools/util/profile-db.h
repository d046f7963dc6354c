/*
 * The profile database: one SQLite file in WAL mode (readers see committed
 * data while the daemon writes).  Its schema is documented once, beside the
 * SQL that creates it, at the top of profile-db.c.
 *
 * Writing: merges (samples, ProfileMe aggregates, drops, stats) are summed
 * in memory and written by pdb_commit() in one transaction, as UPSERTs
 * sorted by key; call it every fraction of a second for a steady stream of
 * small transactions rather than bursts.  What pdb_commit() returned for is
 * on disk for good: a process killed at any moment leaves a database that
 * opens and holds every committed transaction.  Other writes (epochs,
 * sessions, images, loadmaps, names, pairs) commit at once.
 *
 * 64-bit addresses are stored in SQLite's signed INTEGER: values >= 2^63
 * (KSEG addresses) read back negative; cast to uint64_t.
 *
 * Invariants: a database this build opened holds a schema it reads
 * (PDB_SCHEMA_VERSION or older, migrated when written); every merge is
 * either pending in memory or committed, never both; only regular files
 * are opened.  The sources: profile-db.c (connection, immediate writes),
 * profile-db-schema.c, profile-db-merge.c, profile-db-dump.c.
 */
#ifndef ALPHAPROF_UTIL_PROFILE_DB_H
#define ALPHAPROF_UTIL_PROFILE_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "firmware/abi/link-codec.h"
#include "util/error.h"

#define PDB_FORMAT          "alphaprof-profile-db"
/* The history is profile-db-schema.c's.  Older files are migrated when
 * opened for writing and read as they are otherwise. */
#define PDB_SCHEMA_VERSION  12
/* Image 0: the special profile of samples whose PC is in no image (DCPI's
 * unknown samples); its offset column holds the absolute PC. */
#define PDB_IMAGE_UNKNOWN   0
/* Core of drops and stats the host itself counts (link errors). */
#define PDB_CORE_HOST       (-1)

/* Kinds of NAMES (the index spaces of the link's NAMES frames). */
#define PDB_NAMES_EVENT     "event"
#define PDB_NAMES_PME_BIT   "pme_bit"
#define PDB_NAMES_PME_LAT   "pme_latency"

/* Rows of the periods table that describe ProfileMe rather than an event
 * counter (numbers above every hw-model event and LK_EVENT_TIMER), core -1
 * for every core: the mean number of fetched instructions per record in
 * the pme table (S of kS), per pair (the major interval, paired mode), and
 * the pair window W (the minor interval is uniform 1..W). */
#define PDB_PERIOD_PME          256
#define PDB_PERIOD_PME_PAIR     257
#define PDB_PERIOD_PME_WINDOW   258
#define PDB_PERIOD_PME_CYCLES   259     /* time-sampled records: cycles per record */

/* Where commands look without --db: $ALPHAPROF_DB, else this. */
#define PDB_DEFAULT_PATH    "alphaprof.db"
const char *pdb_default_path(void);

struct pdb;

enum pdb_mode {
    PDB_READ,           /* existing database, read only */
    PDB_WRITE,          /* existing database, read and write */
    PDB_CREATE,         /* create it if missing, then as PDB_WRITE */
};

/*
 * Opens path.  Errors name the file and the way out: no such file, not an
 * SQLite file, an SQLite file that is no profile database, a newer schema.
 */
int pdb_open(const char *path, enum pdb_mode mode, struct pdb **out, struct ap_err *err);
/* Closes; merges not yet committed are lost (commit first). */
void pdb_close(struct pdb *db);
const char *pdb_path(const struct pdb *db);
/* The SQLite handle, for the analyses' own read-only queries. */
struct sqlite3 *pdb_sqlite(struct pdb *db);

/* --- epochs: exactly one is open (not ended): the current one ----------- */
int pdb_current_epoch(struct pdb *db, int64_t *epoch, struct ap_err *err);
/* Ends the current epoch and starts the next; note may be NULL. */
int pdb_new_epoch(struct pdb *db, const char *note, int64_t *epoch, struct ap_err *err);

/* --- sessions: one boot of the board, HELLO to END ----------------------- */
int pdb_session_begin(struct pdb *db, int64_t epoch, const struct lk_hello *hello,
                      int64_t *session, struct ap_err *err);
int pdb_session_end(struct pdb *db, int64_t session, const struct lk_end *end,
                    struct ap_err *err);

/* The hardware model's oracle of the sessions after `after` (those one
 * record made): its run id and file, so that check can refuse another
 * run's oracle. */
int pdb_set_oracle(struct pdb *db, int64_t after, uint64_t run_id, const char *path,
                   struct ap_err *err);
/* The board configuration (boards/NAME) the sessions after `after` ran
 * on, as record started them: it names the core (out-of-order or in-order)
 * that calc, pme --stacks and html need. */
int pdb_set_board_config(struct pdb *db, int64_t after, const char *name, struct ap_err *err);
/* The board configuration of the newest session of epoch (> 0; 0 the
 * current one, -1 every epoch) that has one, malloc'd; NULL when none
 * does (a daemon's sessions, a file of schema 6 or older). */
char *pdb_board_config(struct pdb *db, int64_t epoch);
/* The oracle run ids of the sessions of epoch (> 0; 0 the current one, -1
 * every epoch), distinct, at most max into ids; *n how many (0 for a file
 * of schema 1, or sessions recorded without an oracle).  path_out (may be
 * NULL) gets the oracle file of the first, "" if unknown. */
int pdb_oracle_runs(struct pdb *db, int64_t epoch, uint64_t *ids, size_t max, size_t *n,
                    char *path_out, size_t path_cap, struct ap_err *err);
/* The newest session id (0 if none). */
int pdb_last_session(struct pdb *db, int64_t *session, struct ap_err *err);

/* --- images and loadmaps -------------------------------------------------- */
/* The id of (name, build-id), added if new; path (may be NULL) is recorded
 * when known. */
int pdb_image(struct pdb *db, const char *name, const uint8_t *build_id, size_t build_id_size,
              const char *path, int64_t *image, struct ap_err *err);
int pdb_loadmap(struct pdb *db, int64_t session, int64_t epoch, int64_t image,
                uint64_t address, uint64_t size, bool loaded, struct ap_err *err);
int pdb_set_name(struct pdb *db, const char *kind, uint32_t index, const char *name,
                 struct ap_err *err);

/* --- merges, summed in memory until pdb_commit --------------------------- */
void pdb_add_samples(struct pdb *db, int64_t epoch, int64_t image, uint32_t event,
                     int32_t core, uint64_t offset, uint64_t count);
/* The mean sampling period of (epoch, event, core); the last one seen wins. */
void pdb_set_period(struct pdb *db, int64_t epoch, uint32_t event, int32_t core, uint64_t period);
/* The mean period of `event` over the cores of `epoch` (every epoch when
 * epoch < 0) as stored; 0 when none is. */
double pdb_mean_period(struct pdb *db, int64_t epoch, uint32_t event);
/* One ProfileMe aggregate (a->pc is ignored: offset is its place). */
void pdb_add_pme(struct pdb *db, int64_t epoch, int64_t image, int32_t core, uint64_t offset,
                 const struct lk_pme_agg *a, uint32_t nbits, uint32_t nlat);
void pdb_add_drop(struct pdb *db, int64_t epoch, int32_t core, const char *reason, uint64_t count);
/* Value sampling: one hotlist of a VALUES frame (offered values), and one
 * of its values (count sampled with probability 1/tau). */
void pdb_add_value_list(struct pdb *db, int64_t epoch, int64_t image, int32_t core, uint64_t offset,
                        uint32_t kind, uint64_t offered);
void pdb_add_value(struct pdb *db, int64_t epoch, int64_t image, int32_t core, uint64_t offset,
                   uint32_t kind, uint64_t value, uint64_t count, uint64_t tau);
void pdb_add_stat(struct pdb *db, int64_t epoch, int32_t core, const char *name, uint64_t delta);

/* A paired sample: each record already mapped to (image, offset). */
struct pdb_pair_record {
    int64_t image;
    uint64_t offset;
    const struct lk_pme_record *rec;
};
/* weight: the pairs it stands for (its bank's offered / kept, >= 1;
 * link-protocol.h PAIRS). */
void pdb_add_pair(struct pdb *db, int64_t epoch, int64_t session, int32_t core,
                  const struct lk_pair *p, uint32_t nlat, const struct pdb_pair_record where[2], double weight);

/* Calling context trees (profile-db-cct.c): one call record of a CCT
 * frame, its callee and call site already mapped to (image, offset). */
struct pdb_cct_record {
    uint64_t id, parent;
    int64_t callee_image, site_image;
    uint64_t callee, site;
    uint64_t calls, cycles, retired;
};
int pdb_put_cct_record(struct pdb *db, int64_t session, int64_t epoch, int32_t core,
                       const struct pdb_cct_record *r, struct ap_err *err);
/* metrics: the tree's records carry cycles and retired (instrument --cct
 * --metrics; without, they are stored as 0 and mean nothing). */
int pdb_put_cct_core(struct pdb *db, int64_t session, int64_t epoch, int32_t core, uint64_t total,
                     uint64_t skipped_calls, uint64_t overflow_calls, bool metrics, struct ap_err *err);

/* Ball-Larus path counters (profile-db-cct.c): a core's nonzero counter
 * by its index (metrics: NULL, or its summed {cycles, event}), and the
 * core's counts of paths it could not count (or not meter). */
/* One path's count in one calling context (CCT_PATHS, schema v11);
 * metrics: NULL, or its summed {cycles, event} there (CCT_PATHS_METERED,
 * v12).  Keyed by (session, core, record, path): storing one again
 * replaces it, never adds. */
int pdb_put_cct_path_count(struct pdb *db, int64_t session, int64_t epoch, int32_t core, uint64_t record,
                           uint64_t path, uint64_t count, const uint64_t *metrics, struct ap_err *err);
int pdb_put_path_count(struct pdb *db, int64_t session, int64_t epoch, int32_t core, uint64_t counter,
                       uint64_t count, const uint64_t *metrics, struct ap_err *err);
struct pdb_path_core {
    uint64_t lost_paths, unmatched_exits, bad_paths;
    bool metered;
    uint64_t unmetered;
};
int pdb_put_path_core(struct pdb *db, int64_t session, int64_t epoch, int32_t core, const struct pdb_path_core *pc,
                      struct ap_err *err);

/* Merges waiting for pdb_commit (distinct rows + pairs). */
size_t pdb_pending(const struct pdb *db);
/* Writes every pending merge in one transaction. */
int pdb_commit(struct pdb *db, struct ap_err *err);

/* --- reading --------------------------------------------------------------- */
/* The tables pdb_dump knows, in dump order (NULL-terminated). */
extern const char *const pdb_tables[];
/* Prints tables (all if names is NULL or empty) as aligned text or JSON;
 * epoch > 0 keeps only that epoch's rows of tables that have an epoch. */
int pdb_dump(struct pdb *db, FILE *out, const char *const *names, size_t nnames, int64_t epoch,
             bool json, struct ap_err *err);
/* Epochs with their totals, as aligned text or JSON. */
int pdb_list_epochs(struct pdb *db, FILE *out, bool json, struct ap_err *err);
/* The SQL schema, as created. */
const char *pdb_schema_sql(void);
/* Runs a query returning one integer (tests and checks); -1 on error. */
int pdb_query_int(struct pdb *db, const char *sql, int64_t *value, struct ap_err *err);

#endif
