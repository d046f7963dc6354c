/*
 * Calling context tree rows of the profile database (schema v5,
 * profile-db-schema.c): written by the ingest as CCT frames arrive, read by
 * `alphaprof cct`, the exports and `check --cct` (util/cct-view.c); and
 * the Ball-Larus path counters of PATHS frames (schema v6), read by
 * `check --paths` (util/path-count-accuracy.c); and the paths per
 * context of CCT_PATHS frames (schema v11, instrument --both), with their
 * metrics from CCT_PATHS_METERED ones (v12, --both --metrics).
 *
 * Invariants: rows are keyed by (session, core, id) and written with
 * INSERT OR REPLACE, so a frame taken twice (a host that takes over a
 * session) stores each record once.
 */
#include "util/profile-db-internal.h"

#include <sqlite3.h>

#include "util/profile-db.h"

static int step_once(struct pdb *db, sqlite3_stmt *st, struct ap_err *err)
{
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return ap_err_set(err, "cannot store a call record: %s", sqlite3_errmsg(db->db));
    return 0;
}

int pdb_put_cct_record(struct pdb *db, int64_t session, int64_t epoch, int32_t core,
                       const struct pdb_cct_record *r, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db,
                           "INSERT OR REPLACE INTO cct_records(session, core, id, parent, epoch, callee_image, "
                           "callee, site_image, site, calls, cycles, retired) "
                           "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return ap_err_set(err, "cannot store a call record: %s", sqlite3_errmsg(db->db));
    const int64_t v[] = {session, core, (int64_t)r->id, (int64_t)r->parent, epoch, r->callee_image,
                         (int64_t)r->callee, r->site_image, (int64_t)r->site, (int64_t)r->calls,
                         (int64_t)r->cycles, (int64_t)r->retired};
    for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    return step_once(db, st, err);
}

int pdb_put_cct_core(struct pdb *db, int64_t session, int64_t epoch, int32_t core, uint64_t total,
                     uint64_t skipped_calls, uint64_t overflow_calls, bool metrics, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db,
                           "INSERT OR REPLACE INTO cct_cores(session, core, epoch, total, skipped_calls, "
                           "overflow_calls, metrics) VALUES (?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return ap_err_set(err, "cannot store a core's calling context tree: %s", sqlite3_errmsg(db->db));
    const int64_t v[] = {session, core, epoch, (int64_t)total, (int64_t)skipped_calls, (int64_t)overflow_calls,
                         metrics};
    for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    return step_once(db, st, err);
}

int pdb_put_cct_path_count(struct pdb *db, int64_t session, int64_t epoch, int32_t core, uint64_t record,
                           uint64_t path, uint64_t count, const uint64_t *metrics, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db,
                           "INSERT OR REPLACE INTO cct_path_counts(session, core, record, path, epoch, count, cycles, "
                           "event) VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return ap_err_set(err, "cannot store a path count per context: %s", sqlite3_errmsg(db->db));
    const int64_t v[] = {session, core, (int64_t)record, (int64_t)path, epoch, (int64_t)count};
    for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    for (int i = 0; i < 2; i++) {
        if (metrics)
            sqlite3_bind_int64(st, 7 + i, (int64_t)metrics[i]);
        else
            sqlite3_bind_null(st, 7 + i);
    }
    return step_once(db, st, err);
}

int pdb_put_path_count(struct pdb *db, int64_t session, int64_t epoch, int32_t core, uint64_t counter,
                       uint64_t count, const uint64_t *metrics, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db,
                           "INSERT OR REPLACE INTO path_counts(session, core, counter, epoch, count, cycles, event) "
                           "VALUES (?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return ap_err_set(err, "cannot store a path counter: %s", sqlite3_errmsg(db->db));
    const int64_t v[] = {session, core, (int64_t)counter, epoch, (int64_t)count};
    for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    for (int i = 0; i < 2; i++) {
        if (metrics)
            sqlite3_bind_int64(st, 6 + i, (int64_t)metrics[i]);
        else
            sqlite3_bind_null(st, 6 + i);
    }
    return step_once(db, st, err);
}

int pdb_put_path_core(struct pdb *db, int64_t session, int64_t epoch, int32_t core, const struct pdb_path_core *pc,
                      struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db->db,
                           "INSERT OR REPLACE INTO path_cores(session, core, epoch, lost_paths, unmatched_exits, "
                           "bad_paths, metered, unmetered) VALUES (?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return ap_err_set(err, "cannot store a core's path counts: %s", sqlite3_errmsg(db->db));
    const int64_t v[] = {session, core, epoch, (int64_t)pc->lost_paths, (int64_t)pc->unmatched_exits,
                         (int64_t)pc->bad_paths, pc->metered, (int64_t)pc->unmetered};
    for (int i = 0; i < (int)(sizeof v / sizeof *v); i++)
        sqlite3_bind_int64(st, i + 1, v[i]);
    return step_once(db, st, err);
}
