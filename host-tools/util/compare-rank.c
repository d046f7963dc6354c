/*
 * Ranking the rows of a comparison table (definitions and invariants:
 * compare-rank.h).
 */
#include "util/compare-rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/strvec.h"

/* Ties: image, then offset (instructions), then procedure. */
static int by_place(const struct cmp_row *x, const struct cmp_row *y)
{
    int c = strcmp(x->image, y->image);
    if (c)
        return c;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return strcmp(x->proc, y->proc);
}

static int diff_by_z;       /* qsort has no context argument */

static int by_change(const void *a, const void *b)
{
    const struct diff_rank *x = a, *y = b;
    double dx = fabs(diff_by_z ? x->test.z : x->test.delta), dy = fabs(diff_by_z ? y->test.z : y->test.delta);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    uint64_t sx = x->row->count[0] + x->row->count[1], sy = y->row->count[0] + y->row->count[1];
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return by_place(x->row, y->row);
}

struct diff_rank *rank_diff(const struct cmp_table *t, bool by_z)
{
    size_t n = t->nrows;
    struct diff_rank *rows = xmalloc((n ? n : 1) * sizeof *rows);
    double *p = xmalloc((n ? n : 1) * sizeof *p), *adj = xmalloc((n ? n : 1) * sizeof *adj);
    for (size_t i = 0; i < n; i++) {
        rows[i].row = &t->rows[i];
        share_test(t->rows[i].count[0], t->total[0], t->rows[i].count[1], t->total[1], &rows[i].test);
        p[i] = rows[i].test.p_value;
    }
    holm_adjust(p, n, adj);
    for (size_t i = 0; i < n; i++)
        rows[i].p_holm = adj[i];
    free(p);
    free(adj);
    diff_by_z = by_z;
    if (n > 1)
        qsort(rows, n, sizeof *rows, by_change);
    return rows;
}

static int by_range(const void *a, const void *b)
{
    const struct stats_rank *x = a, *y = b;
    if (x->var.range_norm != y->var.range_norm)
        return x->var.range_norm > y->var.range_norm ? -1 : 1;
    if (x->var.sum != y->var.sum)
        return x->var.sum > y->var.sum ? -1 : 1;
    int c = strcmp(x->row->proc, y->row->proc);
    return c ? c : by_place(x->row, y->row);
}

static int by_sum(const void *a, const void *b)
{
    const struct stats_rank *x = a, *y = b;
    if (x->var.sum != y->var.sum)
        return x->var.sum > y->var.sum ? -1 : 1;
    return by_range(a, b);
}

struct stats_rank *rank_stats(const struct cmp_table *t, bool sum_first)
{
    size_t n = t->nrows;
    struct stats_rank *rows = xmalloc((n ? n : 1) * sizeof *rows);
    double *x = xmalloc((t->nsets ? t->nsets : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        for (size_t s = 0; s < t->nsets; s++)
            x[s] = (double)t->rows[i].count[s];
        rows[i].row = &t->rows[i];
        variation_of(x, t->nsets, &rows[i].var);
        rows[i].dispersion = rows[i].var.mean > 0 ? rows[i].var.sd / sqrt(rows[i].var.mean) : 0;
    }
    free(x);
    if (n > 1)
        qsort(rows, n, sizeof *rows, sum_first ? by_sum : by_range);
    return rows;
}
