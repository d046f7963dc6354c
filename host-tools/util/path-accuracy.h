/*
 * `check --paths`: ProfileMe path reconstruction (path-recon.h) against
 * the model's exact sample paths (oracle-format.h, PATH.pmepaths), as
 * ProfileMe's Figure 6 measures it: by history length N = 1..12, the share
 * of samples whose segment of N branches is reconstructed uniquely and
 * correctly.  Structured so instrumented path counts (path_count_error,
 * path_metric_error against the Ball-Larus truth) can be added beside.
 *
 * Design notes:
 *  1. Each paired sample of the database is found in the oracle's log
 *     exactly: the second by (core, pc, history) with a logged first at
 *     (core, its fetch cycle minus the pair's distance, the first's pc,
 *     history).  Pairs whose records did not both retire are not logged
 *     (path-oracle.h) and not checked: counted as unmatched.
 *  2. A sample whose truth does not reach N branches back in the log is
 *     left out of N's row (truth_unknown); one whose truth is polluted
 *     (an interrupt, a system call, code outside the image) is evaluated
 *     and fails, as in the paper.
 *  3. "baseline" ignores the history bits, on every checked sample: the
 *     reference a reconstructor must beat.  "history" uses the history bits alone, on every checked sample;
 *     "history_pair" adds the paired PC, on the second samples; beside it
 *     "history" on the same second samples, so the two compare.
 */
#ifndef ALPHAPROF_UTIL_PATH_ACCURACY_H
#define ALPHAPROF_UTIL_PATH_ACCURACY_H

#include "util/path-profile.h"

struct pmepath_oracle {
    struct oracle_pmepath_header h;
    struct oracle_pmepath_sample *s;
};

/* Reads ORACLE.pmepaths; 0, or -1 (err set). */
int pmepath_oracle_read(const char *oracle_path, struct pmepath_oracle *o, struct ap_err *err);
void pmepath_oracle_free(struct pmepath_oracle *o);

struct path_success {
    unsigned nbits;
    uint64_t evaluated, unique, success;        /* history bits alone */
    uint64_t polluted, truth_unknown, unresolved;
    uint64_t seconds, seconds_success;          /* history alone on the second samples */
    uint64_t pair_evaluated, pair_unique, pair_success;     /* history + paired PC */
    uint64_t baseline_success;                  /* no history bits (path-recon.h note 5) */
};

struct path_accuracy {
    uint64_t samples;           /* retired samples with code, in the selection */
    uint64_t matched, unmatched;
    uint64_t history_mismatch;  /* oracle paths whose branch directions disagree with the history */
    struct path_success rows[PR_MAX_BITS];
};

void path_accuracy(struct ps_samples *ps, const struct pmepath_oracle *o, struct path_accuracy *a);

/*
 * The model's exact Ball-Larus path counts (ORACLE.blpaths, by the plan
 * ORACLE.plan), checked against the oracle's own per-PC counts: every
 * path ends on an EXIT edge or a backedge, so a procedure's path counts
 * must sum to the executions of those edges (a taken branch's taken
 * count, a fall-through's executions minus it, a ret's executions).
 * `exact` procedures agree; the rest had activations the model could not
 * follow (entered before the plan, or by a way the plan lacks).
 */
struct bl_proc_check {
    uint64_t start;
    uint64_t npaths, paths_seen;        /* numbered, and with a count */
    uint64_t counted, edge_ends;        /* path counts summed; path-ending edge executions */
};

struct bl_truth {
    struct oracle_blpaths_header h;
    struct oracle_blpath *paths;
    struct bl_proc_check *procs;        /* procedures with counts, by start */
    size_t nprocs, exact;
    uint64_t counted;
};

/* Reads ORACLE.plan and ORACLE.blpaths and checks them with the oracle
 * file itself; 0, or -1 (err set). */
int bl_truth_read(const char *oracle_path, struct bl_truth *t, struct ap_err *err);
void bl_truth_free(struct bl_truth *t);

#endif
