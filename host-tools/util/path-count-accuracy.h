/*
 * check --paths, instrumented half: the Ball-Larus path counts an image
 * instrumented with `alphaprof instrument --paths` counted at run time
 * (path_counts, schema v6) against the model's exact counts of the same
 * run (PATH.blpaths, hw-model/oracle-format.h).  Both number paths by
 * util/path-plan.c (the plan numbers an instrumented image as its
 * original), so a path is (procedure start, number) on both sides and the
 * image's path table (util/instrument.h) turns a counter index into one.
 *
 * path_count_error is the sum over the paths of instrumented procedures
 * of |instrumented - truth|: exactly 0 when every path was counted.  An
 * image instrumented --both (cct-region.h notes 10-14) counts a path in
 * its calling context's record or context-free: the instrumented count of
 * a path is their sum (context_paths says how many were per context;
 * cct_path_accuracy in util/cct-accuracy.h checks them context by
 * context).
 * Procedures left alone (path-region.h note 1) are not in it; their
 * executions by the truth are reported beside it, never hidden.
 *
 * With metrics (instrument --paths --metrics, path-region.h note 5), per
 * metric k (0 cycles, 1 the image's event), over the same paths:
 *   path_metric_error[k] = sum |instrumented - truth| / sum truth
 * against the oracle's deltas over each path's own window (oracle-
 * format.h).  The two windows differ by where the trampolines read the
 * PMU page: after the entry's ldgp, branch and bookkeeping, and after an
 * exit's or backedge's branch to its trampoline and its bookkeeping
 * (loop paths tile on both sides, so only the entry's part is not
 * shifted in step).  That difference is reported beside the error as
 * metric_bias[k] = (sum instrumented - sum truth) / executions: the
 * known per-execution cost, not noise.  Instrumented paths counted
 * without metrics (`unmetered`: activations past the register stack)
 * are reported beside it; their truth is in the sums (they add to the
 * error: never hidden).  Under --both --metrics (cct-region.h note 16) a
 * path's instrumented metrics are, as its count, the sum of its contexts'
 * (cct_path_counts, schema v12) and its context-free counter's; the
 * metrics of each context alone are util/cct-accuracy.h's
 * context_path_metric_error.
 */
#ifndef ALPHAPROF_UTIL_PATH_COUNT_ACCURACY_H
#define ALPHAPROF_UTIL_PATH_COUNT_ACCURACY_H

#include <stdbool.h>
#include <stdint.h>

#include <sqlite3.h>

#include "util/error.h"
#include "util/profile-db.h"

#define PCA_WORST 10

struct path_count_mismatch {
    uint64_t proc, path, profile, truth;
    char name[64];                      /* proc's symbol, "" when the image's symbols are gone */
};

struct path_count_accuracy {
    int64_t session;
    bool present;                       /* the session has instrumented path counts */
    uint64_t path_count_error;
    uint64_t paths_profile, paths_truth;                /* executions, instrumented procedures */
    uint64_t distinct_profile, distinct_truth, distinct_equal;
    uint64_t procs_instrumented, procs_left_alone_run;  /* ... the latter: ran, by the truth */
    uint64_t procs_hashed;              /* of the instrumented, counted in the hash table (path-region.h
                                         * note 14): their paths are in the sums, compared path by path */
    uint64_t paths_left_alone;                          /* truth executions of those */
    uint64_t lost_paths, unmatched_exits, bad_paths;    /* the board's own counts */
    uint64_t unnamed;                   /* counters the path table does not name */
    uint64_t context_paths;             /* --both: of paths_profile, those counted in a calling context
                                         * (the rest context-free); in the sums per path */
    uint64_t truth_unknown, truth_lost; /* the oracle's own counts */
    bool metered;                       /* the image counts metrics (path_cores.metered) */
    int event;                          /* metric 1's event (enum pmu_event), -1 none */
    uint64_t unmetered;                 /* the board's paths counted without metrics */
    uint64_t metric_profile[2], metric_truth[2], metric_abs_diff[2];
    double path_metric_error[2];        /* (above) */
    double metric_bias[2];              /* per path execution */
    struct path_count_mismatch worst[PCA_WORST];
    unsigned nworst;
    struct {                            /* procedures left alone that ran, first ones by address */
        uint64_t start, executions;
        uint32_t why;                   /* enum path_skip (path-region.h) */
        char name[64];                  /* its symbol, as worst[].name */
    } left_alone[PCA_WORST];
    unsigned nleft_alone;
};

/* session 0: the newest with path counts.  No path counts: 0 with
 * a->present false. */
int path_count_accuracy(struct pdb *db, int64_t session, const char *oracle_path, struct path_count_accuracy *a,
                        struct ap_err *err);

/* The instrumented image of a session with path counts: its path table
 * (*table, *ntable, to free) and, if image is not NULL, its file
 * (*image, to free).  An image whose ELF is not the recorded build (a
 * rebuilt or re-instrumented image numbers its paths differently) is an
 * error, as is none.  -1 with err. */
struct path_table_proc;
int path_session_image(sqlite3 *s, int64_t session, char **image, struct path_table_proc **table, size_t *ntable,
                       struct ap_err *err);

/* The session whose counted paths to read: *session as given, or the
 * newest with counted paths when it is 0; 0 when the database has none
 * (no path_cores table, or no rows).  -1 with err on a database error. */
int path_counts_session(sqlite3 *s, int64_t *session, struct ap_err *err);

#endif
