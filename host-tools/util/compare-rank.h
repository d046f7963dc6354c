/*
 * The analyses of a comparison table (util/profile-compare): for `diff`,
 * each row's two-proportion share test with Holm's correction over every
 * row, ranked by the size of the change; for `stats`, each row's variation
 * across the sets, ranked by normalised range (or sum).  Printing is the
 * builtins'.
 *
 * Invariants:
 *   1. One ranked row per table row, pointing into the table (free the
 *      ranking before the table), in a total order: ties are broken by
 *      samples, then image and procedure or offset, so output is stable.
 *   2. Holm's correction runs over every row compared, not only those shown.
 */
#ifndef ALPHAPROF_UTIL_COMPARE_RANK_H
#define ALPHAPROF_UTIL_COMPARE_RANK_H

#include <stdbool.h>
#include <stddef.h>

#include "util/profile-compare.h"
#include "util/profile-stats.h"

struct diff_rank {
    const struct cmp_row *row;
    struct share_test test;     /* set 0 (A) against set 1 (B) */
    double p_holm;              /* p-value after Holm's correction */
};

/* The rows of a two-set table, largest |delta| (or |z| with by_z) first;
 * malloc'ed, t->nrows of them. */
struct diff_rank *rank_diff(const struct cmp_table *t, bool by_z);

struct stats_rank {
    const struct cmp_row *row;
    struct variation var;       /* of the row's counts over the sets */
    double dispersion;          /* sd / sqrt(mean): about 1 for pure Poisson noise */
};

/* The rows of a table, largest normalised range (or sum with by_sum)
 * first; malloc'ed, t->nrows of them. */
struct stats_rank *rank_stats(const struct cmp_table *t, bool by_sum);

#endif
