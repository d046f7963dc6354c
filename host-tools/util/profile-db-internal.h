/*
 * What the profile database's sources share (profile-db.c: connection,
 * schema checks and immediate writes; profile-db-schema.c: the SQL;
 * profile-db-merge.c: merges summed in memory, written by pdb_commit;
 * profile-db-dump.c: printing tables).  Not for use outside them.
 *
 * Invariants:
 *   1. db->db is open for the whole life of a struct pdb; db->merge exists
 *      exactly when the database is writable.
 *   2. Every helper that fails fills err with one line naming the file and
 *      returns -1.
 */
#ifndef ALPHAPROF_UTIL_PROFILE_DB_INTERNAL_H
#define ALPHAPROF_UTIL_PROFILE_DB_INTERNAL_H

#include <sqlite3.h>

#include "util/profile-db.h"

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

struct pdb_merge;
struct image_cache;

struct pdb {
    sqlite3 *db;
    char *path;
    char *temp_copy;            /* a fleet run's temporary SQLite copy, removed on close */
    bool writable;
    int64_t schema_version;     /* as on disk (after any migration) */
    struct pdb_merge *merge;    /* pending merges (writable databases) */
    struct image_cache *images; /* images already recorded, by name and build-id */
    size_t nimages;
    bool busy;                  /* the last pdb_exec failed on another process's lock */
};

/* sqlite's message for what failed, naming the file. */
int pdb_sql_err(struct pdb *db, struct ap_err *err, const char *what);
/* Runs SQL (several statements allowed). */
int pdb_exec(struct pdb *db, const char *sql, struct ap_err *err);
/* Fails unless the database was opened for writing. */
int pdb_need_write(struct pdb *db, struct ap_err *err);

/* profile-db-schema.c: creates the schema in an empty file (0; 1 when
 * another process created one first, -1 on an error); brings an older
 * schema (db->schema_version) up to PDB_SCHEMA_VERSION. */
int pdb_create_schema(struct pdb *db, struct ap_err *err);
int pdb_migrate(struct pdb *db, struct ap_err *err);

/* profile-db-merge.c: the merge state of a writable database. */
int pdb_merge_open(struct pdb *db, struct ap_err *err);
void pdb_merge_close(struct pdb *db);

#endif
