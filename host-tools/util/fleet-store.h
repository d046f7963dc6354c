/*
 * The fleet store: every pushed profile database (a "run") in one
 * PostgreSQL database, so runs of many boards and CI jobs can be queried
 * together.  `alphaprof push` writes it; every command that reads a
 * profile reads a run from it when its --db is a postgresql:// URI.
 *
 * Design notes:
 *   1. One schema definition: the PostgreSQL tables are generated from the
 *      SQLite schema (profile-db-schema.c) by reading its tables' columns,
 *      types and primary keys, each table gaining a leading `run` column
 *      (fleet_runs.id) in its primary key.  A column added to the SQLite
 *      schema appears in the fleet store with no second definition.
 *   2. A run is known by its key: the database's creation time (meta
 *      'created') and its first epoch's start, both set once when the file
 *      is created.  Pushing a database again replaces that run's rows in
 *      one transaction, so pushing twice stores once (and a database that
 *      grew since is stored as it is now).  Pushes serialise on an
 *      advisory lock.
 *   3. Images are also kept fleet-wide by (name, build-id) in
 *      fleet_images, so every run of one build can be found.
 *   4. Reading: the URI's fragment selects the run (#run=N, or the newest
 *      matching board=, workload=, build_id=, since=, until=, skipping
 *      nth= newer ones); the run is copied into a temporary SQLite file
 *      that pdb_open opens read-only and removes on close, so every
 *      analysis reads a fleet run exactly as it read the pushed file.
 *   5. Trends (alphaprof trend) query across runs in the store itself:
 *      one query per table over every selected run, the procedure's
 *      offsets taken from each run's build (its ELF).
 *   6. The fragment is ours; everything before '#' is libpq's connection
 *      URI (host, port, user, dbname, and libpq's own ?parameters).
 */
#ifndef ALPHAPROF_UTIL_FLEET_STORE_H
#define ALPHAPROF_UTIL_FLEET_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

bool fleet_is_uri(const char *s);

/* Pushes the SQLite profile database at path as one run: *run its id,
 * *replaced whether an earlier push of it was replaced. */
int fleet_push(const char *path, const char *uri, int64_t *run, bool *replaced, struct ap_err *err);

/* Copies the run the URI selects into a new temporary SQLite file
 * (*tmp_path, malloc'ed; the caller removes it). */
int fleet_fetch(const char *uri, char **tmp_path, int64_t *run, struct ap_err *err);

/* A cross-run trend: per run of the URI's selection (every match, not
 * the newest; the newest `last` of them, 0 all), in time order, the
 * samples of one event in procedure proc of image `image` (found by name
 * in each run's own build, through the ELF path it was pushed with) and
 * in the whole run. */
struct fleet_trend_point {
    int64_t run;
    char started[40], board[40], build_id[48];
    uint64_t total;             /* samples of the event in the run */
    uint64_t samples;           /* ... in the procedure */
    bool has_image;             /* the run has the image */
    bool found;                 /* and its ELF, with the procedure, was at hand */
};
struct fleet_trend {
    int event;
    char event_name[32];
    struct fleet_trend_point *pts;
    size_t n;
};
/* event NULL: the lowest event number sampled in the selection. */
int fleet_trend(const char *uri, const char *image, const char *proc, const char *event, size_t last,
                struct fleet_trend *t, struct ap_err *err);
void fleet_trend_free(struct fleet_trend *t);

/* The PostgreSQL schema generated from the SQLite one (malloc'ed). */
int fleet_schema_sql(char **out, struct ap_err *err);

#endif
