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
 */
#ifndef ALPHAPROF_UTIL_CCT_ACCURACY_H
#define ALPHAPROF_UTIL_CCT_ACCURACY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cct-view.h"
#include "util/error.h"

#define CCT_ACC_WORST 10

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
 */
struct cct_path_mismatch {
    const struct cv_node *node;         /* the profile's record of the context, NULL if it has none */
    uint64_t proc, path, profile, truth;
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
};

int cct_path_accuracy(struct pdb *db, const struct cct_view *v, const char *oracle_path,
                      struct cct_path_accuracy *a, struct ap_err *err);

#endif
