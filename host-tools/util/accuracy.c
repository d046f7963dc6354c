/*
 * The distribution error of a profile against the truth (definition:
 * accuracy.h).
 *
 * Invariants: keyed_normalise leaves keys sorted and distinct with every
 * count kept (equal keys summed); distribution_error reads both sides in
 * one merge pass and is symmetric, 0 for equal shares, 1 for disjoint keys.
 */
#include "util/accuracy.h"

#include <math.h>
#include <stdlib.h>

static int cmp_key(const void *x, const void *y)
{
    const struct keyed_count *a = x, *b = y;
    return a->key < b->key ? -1 : a->key > b->key;
}

size_t keyed_normalise(struct keyed_count *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_key);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && v[out - 1].key == v[i].key)
            v[out - 1].count += v[i].count;
        else
            v[out++] = v[i];
    }
    return out;
}

double distribution_error(const struct keyed_count *a, size_t na, const struct keyed_count *b, size_t nb)
{
    double ta = 0, tb = 0;
    for (size_t i = 0; i < na; i++)
        ta += a[i].count;
    for (size_t i = 0; i < nb; i++)
        tb += b[i].count;
    if (ta <= 0 || tb <= 0)
        return ta == tb ? 0.0 : 1.0;
    double sum = 0;
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i].key < b[j].key)) {
            sum += a[i++].count / ta;
        } else if (i == na || b[j].key < a[i].key) {
            sum += b[j++].count / tb;
        } else {
            sum += fabs(a[i].count / ta - b[j].count / tb);
            i++;
            j++;
        }
    }
    return sum / 2;
}
