/*
 * How accurate are the value profiles?  The value oracle (the model's
 * exact loaded values per load PC, hw-model/oracle-format.h PATH.values)
 * against the database's value profiles of loads (kind result):
 *
 *   top_value_recall      of the loads whose true top value covers at
 *                         least 10 % of their executions (and with at
 *                         least min_offered values sampled), the share
 *                         whose profile ranks that value first;
 *   top_value_freq_error  the mean over the same loads of |estimated share
 *                         - true share| of the true top value, in points.
 *
 * Near-ties.  A load sampled n times whose two top values have true
 * shares p1 and p2 is ranked right by a fair sampler only with the
 * probability that the sampled difference keeps its sign; its standard
 * error is sqrt((p1 + p2 - (p1 - p2)^2) / n) (two shares of one
 * multinomial sample).  qsort's __divqu restores a register that is -1 on
 * 50.3 % and 1 on 48.8 % of its 592,300 executions: at the ~190 samples
 * of a run a fair sampler ranks -1 first 58 % of the time, and a strict
 * recall of 95 % needs ~12,000.  So beside the strict number:
 *
 *   top_value_recall_within_error   the same loads; a load counts when
 *                         the profile's first value is the true top, or
 *                         its true share is within VALUE_TIE_Z standard
 *                         errors of that difference (at its p1, pk, n) of
 *                         the true top's: statistically tied with it at
 *                         the load's sample count.  A first value outside
 *                         the oracle's top ORACLE_VALUES_TOP is taken as
 *                         share 0, its lower bound.  near_ties counts
 *                         the loads this rule adds to the strict hits.
 *   top_value_recall_expected       the mean over the same loads of the
 *                         probability that a fair sampler of n values
 *                         ranks the true top first (normal approximation:
 *                         the product over the oracle's other top values
 *                         of Phi(gap / standard error)): what the strict
 *                         number should be near if nothing is biased.
 *
 * Invariants: loads the profile has but the oracle lacks are counted
 * (not_in_oracle), never silently skipped; so are loads with too few
 * samples (too_few) and those without a dominant value (no_top).
 */
#ifndef ALPHAPROF_UTIL_VALUE_ACCURACY_H
#define ALPHAPROF_UTIL_VALUE_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"
#include "util/error.h"
#include "util/value-view.h"

struct value_oracle {
    struct oracle_values_header h;
    struct oracle_value_pc *pcs;        /* sorted by pc */
};

/* Reads oracle_path + ".values"; 0, or -1 with err (one line). */
int value_oracle_read(const char *oracle_path, struct value_oracle *vo, struct ap_err *err);
void value_oracle_free(struct value_oracle *vo);
const struct oracle_value_pc *value_oracle_find(const struct value_oracle *vo, uint64_t pc);

#define VALUE_TOP_MIN_SHARE 0.10
#define VALUE_TIE_Z 1.96            /* a 95 % interval of the sampled difference */

struct value_check_row {
    const struct vv_row *row;
    uint64_t true_value;
    double true_share, est_share;
    int hit;                            /* ranked first */
    uint64_t first_value;               /* the profile's first value */
    double first_true_share;            /* its true share (0 if outside the oracle's top) */
    double tie_margin;                  /* VALUE_TIE_Z standard errors of the difference from the
                                           first value (from the true runner-up on a hit) */
    int within_error;                   /* hit, or true_share - first_true_share <= tie_margin */
    double fair_hit;                    /* P(a fair sampler of offered values ranks it first) */
};

struct value_accuracy {
    size_t checked, hits, too_few, no_top, not_in_oracle;
    size_t hits_within_error, near_ties; /* near_ties = hits_within_error - hits */
    double recall, freq_error;          /* freq_error in points (0..100) */
    double recall_within_error, recall_expected;
    struct value_check_row *rows;       /* the checked loads, worst error first */
};

/* The standard error of the sampled difference of two shares p1, p2 of
 * one n-value multinomial sample. */
double value_share_difference_se(double p1, double p2, uint64_t n);

int value_accuracy(const struct value_view *v, const struct value_oracle *vo, uint64_t min_offered,
                   struct value_accuracy *out);
void value_accuracy_free(struct value_accuracy *a);

#endif
