/*
 * Hot Ball-Larus paths of an image instrumented with `alphaprof
 * instrument --paths [--metrics]` (path_counts, schema v6/v8): each path
 * counted on the board, named (procedure, number) by the image's path
 * table, with its count and, when metered (path-region.h note 5), its
 * summed cycles and event, inclusive of callees (the seed's flow-sensitive
 * metrics); ranked by any of them, with each one's share of the total and
 * the share the top k paths hold (the seed's finding: a few paths hold
 * most D-cache misses).  Used by `alphaprof paths`.
 *
 * Invariants: every nonzero counter of the session is in paths[] or in
 * unnamed; totals are sums over paths[] (so shares add up to 1); a --both
 * session's counts per context are in them too, summed per path or one
 * entry per context, and under --both --metrics (schema v12) their cycles
 * and event with them, so a context's path has its own metric shares.
 */
#ifndef ALPHAPROF_UTIL_PATH_METRICS_H
#define ALPHAPROF_UTIL_PATH_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/profile-db.h"

enum pm_key { PM_COUNT, PM_CYCLES, PM_EVENT, PM_NKEYS };

struct hot_path {
    uint64_t proc;              /* the procedure's start */
    uint64_t path;              /* its Ball-Larus number */
    uint64_t v[PM_NKEYS];       /* executions, cycles, event (0 unmetered) */
    int core;                   /* by context (--both): the call record (core, id) it ran in; */
    int64_t record;             /* -1: context-free, or every context summed */
};

struct path_metrics {
    bool present;               /* the session has instrumented path counts */
    int64_t session;
    bool metered;
    int event;                  /* enum pmu_event of v[PM_EVENT], -1 none */
    char *image;                /* the instrumented image's file */
    struct hot_path *paths;
    size_t n;
    uint64_t total[PM_NKEYS];
    uint64_t unnamed, unmetered, lost_paths, unmatched_exits, bad_paths;
    bool contexts;              /* the session counted paths per context too (instrument --both) */
    uint32_t proc_status;       /* with proc: why the instrumenter left it alone (enum path_skip), or
                                 * PATH_INSTRUMENTED */
    char *too_many;             /* the procedures left alone with too many paths for an array and not
                                 * hashed (PATH_SKIP_TOO_MANY: the user can count them), ", "-separated */
    size_t ntoo_many;
};

/* session 0: the newest with path counts; proc: only that procedure's
 * paths (NULL: all).  No path counts: 0 with pm->present false. */
int path_metrics_load(struct pdb *db, int64_t session, const char *proc, struct path_metrics *pm,
                      struct ap_err *err);
/* The same, for a session of an image instrumented --both (cct-region.h
 * notes 10-14): by_context, one hot path per (context, path) and one per
 * path for its context-free count; else each path's contexts and
 * context-free count summed.  (path_metrics_load: summed.) */
int path_metrics_load_contexts(struct pdb *db, int64_t session, const char *proc, bool by_context,
                               struct path_metrics *pm, struct ap_err *err);
/* Sorts paths by key, largest first (ties: by count, then proc, path). */
void path_metrics_sort(struct path_metrics *pm, enum pm_key key);
/* The share of total[key] the k paths with the most of it hold. */
double path_metrics_top_share(const struct path_metrics *pm, enum pm_key key, size_t k);
/* Path i's procedure name and its blocks as source lines, oldest first
 * ("file:line > file:line ..."), into buf. */
void path_metrics_describe(const struct path_metrics *pm, size_t i, char *name, size_t nlen, char *buf,
                           size_t len);
void path_metrics_free(struct path_metrics *pm);

#endif
