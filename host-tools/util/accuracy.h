/*
 * How far a sampled profile is from the truth: half the L1 distance
 * between the two distributions (profile share vs oracle share per key),
 * i.e. the fraction of cycles attributed to the wrong instruction (the TIP
 * paper's error metric).  0 = identical, 1 = disjoint.
 *
 * Invariants: both sides are normalised to shares before comparing, so
 * the error does not depend on how many samples either side holds; keys
 * are compared exactly (no tolerance).
 */
#ifndef ALPHAPROF_UTIL_ACCURACY_H
#define ALPHAPROF_UTIL_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

struct keyed_count {
    uint64_t key;               /* PC, or a procedure's start */
    double count;
};

/* a and b sorted by key, keys distinct within each. */
double distribution_error(const struct keyed_count *a, size_t na, const struct keyed_count *b, size_t nb);
/* Sorts by key and merges equal keys; returns the new length. */
size_t keyed_normalise(struct keyed_count *v, size_t n);

#endif
