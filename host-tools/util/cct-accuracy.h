/*
 * check --cct: an instrumented run's calling context tree (util/cct-view.h)
 * against the model's exact one (PATH.cct, hw-model/oracle-format.h).
 *
 * Both trees are laid on one trie of contexts per core, keyed by the chain
 * of (call site, callee) from the root; the oracle's calls made by a
 * trampoline are mapped back to their original sites with the image's
 * site table (util/instrument.h), and its calls made by the
 * instrumentation itself (the slow path's call of the runtime) are left
 * out and counted, and so are its calls made from code that is in no
 * function of the image (code the workload writes and runs, such as
 * valuediff's generated bodies: no instrumenter of the image can see a
 * call there), and every call under those.  count_error is the sum over contexts of
 * |profile calls - oracle calls|: exactly 0 when the instrumentation
 * counted every call in its context.
 *
 * With metrics (instrument --cct --metrics, cct-region.h notes 3a, 4),
 * per metric k (CCT_ACC_CYCLES, CCT_ACC_RETIRED: the PMU page's cycles
 * and retired), over the same contexts (roots left out, the board's
 * overflow record in with no truth):
 *   metric_error[k] = sum |instrumented inclusive - truth| / sum truth
 * (`cct_metric_error`), against the oracle's inclusive deltas from each
 * call's call instruction to its `ret` (oracle-format.h).  The board's
 * window is wider by where its trampoline reads the PMU page: the
 * trampoline's instructions between the reads at the call and the call
 * instruction, and those between the `ret` and the reads after it (4
 * instructions a leaf's fast call, 10 a leaf's the slow path found, 25
 * a framed one's: the frame's stores and activity before, the pop after;
 * none for an inner activation of folded recursion, which adds no time
 * on either side).  The trampolines of the
 * calls under a context lie inside both windows, so a context's
 * difference is its own calls' offsets alone, each call's counted once:
 *   metric_bias[k] = (sum instrumented - sum truth) / calls in the profile
 * is that offset per call, reported beside the error as path-count-
 * accuracy.h does for paths: known, not noise.  It holds the cycles and
 * instructions of whatever ran in the offset's window, interrupts too:
 * the board's timer interrupt (the profiler's sampling, a handler of
 * many instructions) lands there in proportion to the window's share of
 * the run's time, and what it costs counts on the board and not in the
 * truth, which makes most of the spread from run to run.  Calls the
 * board does not meter (its shadow stack full) add their whole truth to
 * the error.  Exclusive metrics are differences of inclusive ones on
 * both sides, so not checked apart.
 */
#ifndef ALPHAPROF_UTIL_CCT_ACCURACY_H
#define ALPHAPROF_UTIL_CCT_ACCURACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cct-view.h"
#include "util/error.h"

#define CCT_ACC_WORST 10
enum { CCT_ACC_CYCLES, CCT_ACC_RETIRED, CCT_ACC_NMETRICS };
#define CCT_ACC_METRIC_NAMES { "cycles", "retired" }

struct cct_mismatch {
    int core;
    uint64_t site, callee;              /* addresses */
    unsigned depth;
    const struct cv_node *node;         /* the profile's record, NULL if it has none */
    uint64_t profile, oracle;
};

struct cct_accuracy {
    uint64_t contexts_profile, contexts_oracle, contexts_equal;   /* roots not counted */
    uint64_t calls_profile, calls_oracle;
    uint64_t count_error;
    uint64_t instrumentation_calls;     /* oracle calls made by the instrumentation: left out */
    uint64_t outside_calls;             /* oracle calls from code in no function of the image: left out */
    uint64_t skipped_calls, overflow_calls;     /* the profile's own counts of what it could not keep */
    bool metrics;                       /* the tree measured metrics (instrument --cct --metrics) */
    uint64_t metric_profile[CCT_ACC_NMETRICS], metric_truth[CCT_ACC_NMETRICS];
    uint64_t metric_abs_diff[CCT_ACC_NMETRICS];
    double metric_error[CCT_ACC_NMETRICS];      /* cct_metric_error (above) */
    double metric_bias[CCT_ACC_NMETRICS];       /* per call (above) */
    struct cct_mismatch worst[CCT_ACC_WORST];   /* largest |difference| first */
    size_t nworst;
};

/* oracle_path: the run's oracle (its .cct file beside it is read). */
int cct_accuracy(const struct cct_view *v, const char *oracle_path, struct cct_accuracy *a, struct ap_err *err);

/*
 * Paths per context (instrument --both, firmware/abi/cct-region.h notes
 * 10-14): the run's cct_path_counts against the model's PATH.cctpaths,
 * both laid on the contexts above.  The truth's count of a path is taken
 * per context when its record's callee is the path's procedure and that
 * procedure counts per context (the path table's PATH_PER_CONTEXT), as
 * the instrumentation counts it; the others are context-free on both
 * sides (check --paths sums them with the contexts' counts per path).
 * context_path_error = sum over (context, procedure, path) of
 * |profile - truth|: exactly 0 when every path was counted in its
 * context.
 *
 * With metrics (instrument --both --metrics, cct-region.h note 16;
 * cct_path_counts.cycles and .event, schema v12), per metric k (0 cycles,
 * 1 the path table's event), over the same keys:
 *   context_path_metric_error[k] = sum |instrumented - truth| / sum truth
 * against PATH.cctpaths' per-context deltas (version 2), the same
 * windows as path_metric_error's (util/path-count-accuracy.h): so it is
 * path_metric_error's offset (metric_bias, per execution), split by
 * context, plus whatever went to the wrong context.  Rows counted without
 * metrics in a metered run (none unless the board is broken) are
 * `unmetered`; their truth is in the sums, never hidden.
 */
struct cct_path_mismatch {
    const struct cv_node *node;         /* the profile's record of the context, NULL if it has none */
    uint64_t proc, path, profile, truth;
};

struct cct_path_metric_mismatch {
    const struct cv_node *node;
    uint64_t proc, path, profile, truth, diff;
};

struct cct_path_accuracy {
    bool present;                       /* the session has paths per context */
    uint64_t paths_profile;             /* counted per context by the image */
    uint64_t paths_truth;               /* ... by the truth (its per-context share) */
    uint64_t paths_truth_all;           /* every path of the truth, context-free ones too */
    uint64_t unnamed;                   /* counts of records the tree lacks */
    uint64_t keys, keys_equal;          /* (context, procedure, path) seen, and equal */
    uint64_t context_path_error;
    struct cct_path_mismatch worst[CCT_ACC_WORST];
    size_t nworst;
    bool metered;                       /* the counts carry cycles and an event (--both --metrics) */
    int event;                          /* metric 1's (enum pmu_event), -1 none */
    uint64_t unmetered;                 /* counts per context stored without metrics */
    uint64_t metric_profile[2], metric_truth[2], metric_abs_diff[2];
    double context_path_metric_error[2];        /* (above) */
    double metric_bias[2];              /* per path execution counted in a context */
    struct cct_path_metric_mismatch metric_worst[2];    /* the largest |difference| of each */
};

int cct_path_accuracy(struct pdb *db, const struct cct_view *v, const char *oracle_path,
                      struct cct_path_accuracy *a, struct ap_err *err);

#endif
