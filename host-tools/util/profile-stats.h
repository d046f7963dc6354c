/*
 * The estimators behind `alphaprof stats` and `alphaprof diff`, as pure
 * functions of sample counts (unit-tested on synthetic counts with known
 * answers).
 *
 * Invariants: pure functions (no I/O, no state); degenerate input (n < 2,
 * a zero total) gives defined values (sd 0, p 1, valid false), never NaN.
 */
#ifndef ALPHAPROF_UTIL_PROFILE_STATS_H
#define ALPHAPROF_UTIL_PROFILE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Variation of one procedure's sample count across n sets (epochs or
 * runs), as dcpistats shows it (DCPI SOSP'97 Figure 3):
 *   range_norm = (max - min) / sum   the "normalised range"
 *   mean = sum / n, sd = sample standard deviation (n - 1 in the
 *   denominator; 0 for n < 2), min and max over the n sets.
 */
struct variation {
    size_t n;
    double sum, mean, sd, min, max, range_norm;
};
void variation_of(const double *x, size_t n, struct variation *out);

/*
 * Did a procedure's share of the samples change between profiles A and B?
 * Each sample lands in the procedure or not, independently, with the
 * procedure's share of the time as probability, so its count given the
 * total is binomial; with a = its samples of total_a in A and b of total_b
 * in B this is the two-proportion z-test with pooled variance:
 *   p = (a + b) / (total_a + total_b)
 *   z = (b/total_b - a/total_a) / sqrt(p (1 - p) (1/total_a + 1/total_b))
 *   p_value = P(|Z| >= |z|) (two-sided).
 * ci_lo..ci_hi is the 95 % Wald interval of the change in share (unpooled).
 * small: an expected count below 5 in A or B, where the normal
 * approximation is rough.  valid is false when a total is 0 or the
 * pooled share is 0 or 1 (then z = 0, p_value = 1).
 */
struct share_test {
    double share_a, share_b, delta;
    double z, p_value;
    double ci_lo, ci_hi;
    bool small, valid;
};
void share_test(uint64_t a, uint64_t total_a, uint64_t b, uint64_t total_b, struct share_test *out);

/*
 * Holm's step-down correction for m tests at once (a diff compares every
 * procedure): adjusted[i] = max over the j smallest p-values up to p[i]
 * of min(1, (m - rank_j) p_j).  Reject when adjusted[i] <= alpha; this
 * holds the family-wise error rate at alpha.
 */
void holm_adjust(const double *p, size_t m, double *adjusted);

#endif
