/*
 * The profile regression gate's test (`alphaprof gate`): did a procedure
 * take more time in a new run than in the base runs, by more than a
 * threshold, beyond what sampling error and the base runs' own spread
 * explain?
 *
 * Time: a procedure's estimated time (or event count) in one run is
 * x = count * period, its samples times the run's mean sampling period
 * (profile-view's periods), so runs at different rates compare.  Counts
 * rather than shares: one procedure growing must not make the others look
 * faster.
 *
 * The test, per row (procedure, and the whole profile as a row of its own):
 *   base runs x_1..x_k (k >= 1), mean xm; new run y;
 *   under "no change" every run has one mean m = (k xm + y) / (k + 1);
 *   sampling variance (Poisson counts): a run at period p has
 *     var = m * p (its count m / p times p^2);
 *   spread: s^2, the sample variance of x_1..x_k (k >= 2);
 *   var(y)  = max(m * p_new, s^2)
 *   var(xm) = max(sum_i m * p_i / k^2, s^2 / k)
 *   z = (y - xm) / sqrt(var(y) + var(xm)), two-sided p-value,
 *   Holm's correction over every row tested (util/profile-stats.h).
 * A row is a regression when significant at alpha after Holm, z > 0 and
 * its change y / xm - 1 exceeds max_regress; an improvement likewise
 * below -max_regress.  A procedure with no base samples changes by its
 * time as a share of the base's whole time (so a new procedure fails only
 * when it costs more than max_regress of the run); one gone from the new
 * run changes by -100 %.
 *
 * Invariants:
 *   1. One gate row per table row plus the total, in a total order:
 *      regressions, then improvements, then the rest, each largest |z|
 *      first, ties by image and procedure.
 *   2. Pure: no I/O; degenerate rows (no samples anywhere) are "same",
 *      p = 1, never NaN.
 */
#ifndef ALPHAPROF_UTIL_PROFILE_GATE_H
#define ALPHAPROF_UTIL_PROFILE_GATE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/profile-compare.h"

enum gate_verdict { GATE_SAME, GATE_WITHIN, GATE_REGRESSION, GATE_IMPROVEMENT };

struct gate_row {
    const struct cmp_row *row;  /* NULL: the whole profile */
    double base_mean, base_sd;  /* xm and s (0 for one base run) */
    double value;               /* y */
    double change;              /* relative: y / xm - 1 (see above when xm is 0) */
    double se_change;           /* its standard error, sqrt(var(y) + var(xm)) / xm */
    double z, p, p_holm;
    enum gate_verdict verdict;  /* WITHIN: significant but inside the threshold */
};

struct gate_result {
    struct gate_row *rows;      /* t->nrows + 1 (the total among them); malloc'ed */
    size_t nrows;
    size_t regressions, improvements;
};

/*
 * Sets 0..nbase-1 of t are the base runs, set nbase the new run; period[s]
 * the mean sampling period of set s (1 for every set when unknown).
 */
void gate_evaluate(const struct cmp_table *t, const double *period, size_t nbase, double max_regress,
                   double alpha, struct gate_result *out);
void gate_free(struct gate_result *r);

const char *gate_verdict_name(enum gate_verdict v);

#endif
