/*
 * calc's reconciliation (calc.h): the frequency-equivalence classes
 * whose own estimates are trusted, made to agree with the flow
 * constraints by weighted least squares, each moved in proportion to its
 * variance.
 *
 * Design notes:
 *  1. Unknowns: one frequency x_c per class.  Constraints: a reached
 *     block's class equals the sum of its in-edges' classes, and the sum
 *     of its out-edges' (the very sides calc-estimate.c's propagation
 *     reads); a row whose terms cancel (a block and its one edge in the
 *     same class) says nothing and is dropped.
 *  2. Objective: the sum over the classes with an estimate y_c of
 *     (x_c - y_c)^2 / var_c.  While the classes to hold at 0 are sought
 *     (note 4) a vanishing ridge on the others makes a direction no
 *     estimate tells (a loop whose classes have no samples) take the
 *     smallest values; the last solve has none (a pivot that falls to
 *     rounding is such a direction: its unknown is 0), so the estimates
 *     move only where flow compares them: with one estimate per
 *     constraint nothing moves.  The caller uses only the estimated
 *     classes' x (propagation sets the rest from them).
 *  3. Solved through the null space: Gauss-Jordan elimination (partial
 *     pivoting) writes the dependent classes in terms of the free ones,
 *     x = Z t; then Z^T W Z t = Z^T W y by Cholesky.  Cubic in the
 *     classes, but the rows are sparse (a few terms each) and the
 *     elimination skips zeros; a procedure with more than
 *     CALC_RECONCILE_MAX classes is left as it is (returns false): qsort's
 *     208 classes cost about 0.03 s in all, and the cube of 300 / 208 is
 *     three times that (a bound on calc's time, not a choice of accuracy).
 *  4. No class runs a negative number of times: every class the
 *     solution makes negative is held at 0 (one more row each) and the
 *     problem solved again, until none is (held once and for good, not
 *     released as an exact active-set method would: the fit may be a
 *     little worse than the best non-negative one, never negative).  At
 *     most CALC_RECONCILE_ROUNDS solves: beyond, the procedure is left as
 *     it is (each round holds one class or more; typically one or two).
 *  5. Deterministic: classes, rows and pivots in index order; ties in the
 *     pivot search go to the first row.
 *
 * Invariants: on success every x_c >= 0 and every row of note 1 holds to
 * rounding; on failure x is y where y >= 0, else 0.
 */
#include "util/calc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CALC_RECONCILE_MAX 300          /* classes; beyond, no reconciliation (note 3) */
#define CALC_RECONCILE_ROUNDS 16       /* solves while seeking the classes held at 0 (note 4) */
#define RIDGE 1e-9                      /* the free classes' weight, relative to the estimates' (note 2) */

/* Appends the row "class of block b minus its edges' classes on one side"
 * to rows (n columns each); returns whether it says anything. */
static bool side_row(const struct calc_proc *p, uint32_t b, const uint32_t *edges, uint32_t ne, double *row)
{
    memset(row, 0, p->nclasses * sizeof *row);
    row[p->blocks[b].cls] += 1;
    for (uint32_t k = 0; k < ne; k++)
        row[p->edges[edges[k]].cls] -= 1;
    for (size_t c = 0; c < p->nclasses; c++)
        if (row[c] != 0)
            return true;
    return false;
}

/* Cholesky of the positive semidefinite k x k matrix h in place (lower
 * triangle): a pivot that falls to rounding (a direction no estimate
 * tells) gets a zero column, and the solves set its unknown to 0; false
 * if h is not semidefinite. */
static bool cholesky(double *h, size_t k)
{
    double top = 0;
    for (size_t j = 0; j < k; j++)
        top = h[j * k + j] > top ? h[j * k + j] : top;
    for (size_t j = 0; j < k; j++) {
        double d = h[j * k + j];
        for (size_t q = 0; q < j; q++)
            d -= h[j * k + q] * h[j * k + q];
        if (d < -1e-9 * top)
            return false;
        if (d <= 1e-12 * top) {
            for (size_t i = j; i < k; i++)
                h[i * k + j] = 0;
            continue;
        }
        d = sqrt(d);
        h[j * k + j] = d;
        for (size_t i = j + 1; i < k; i++) {
            double s = h[i * k + j];
            for (size_t q = 0; q < j; q++)
                s -= h[i * k + q] * h[j * k + q];
            h[i * k + j] = s / d;
        }
    }
    return true;
}

/* One weighted least-squares solve under the rows (note 3); false if the
 * normal equations are singular. */
static bool solve(size_t n, double *rows, size_t nrows, const double *w, const double *y, double *x)
{
    /* Gauss-Jordan on the rows: pivot[c] the row whose pivot is column c */
    size_t *pivot = calc_zalloc(n + 1, sizeof *pivot);
    for (size_t c = 0; c < n; c++)
        pivot[c] = SIZE_MAX;
    size_t rank = 0;
    for (size_t c = 0; c < n && rank < nrows; c++) {
        size_t best = SIZE_MAX;
        double big = 1e-9;
        for (size_t r = rank; r < nrows; r++)
            if (fabs(rows[r * n + c]) > big) {
                big = fabs(rows[r * n + c]);
                best = r;
            }
        if (best == SIZE_MAX)
            continue;
        if (best != rank)
            for (size_t j = 0; j < n; j++) {
                double t = rows[rank * n + j];
                rows[rank * n + j] = rows[best * n + j];
                rows[best * n + j] = t;
            }
        double *pr = &rows[rank * n];
        double d = pr[c];
        for (size_t j = 0; j < n; j++)
            pr[j] /= d;
        for (size_t r = 0; r < nrows; r++) {
            double f = rows[r * n + c];
            if (r == rank || f == 0)
                continue;
            for (size_t j = 0; j < n; j++)
                if (pr[j] != 0)
                    rows[r * n + j] -= f * pr[j];
        }
        pivot[c] = rank++;
    }
    /* the free columns, and Z: x_c = t_c for a free c, - sum R[c][j] t_j
     * for a pivot c */
    size_t *free_col = calc_zalloc(n + 1, sizeof *free_col), k = 0;
    for (size_t c = 0; c < n; c++)
        if (pivot[c] == SIZE_MAX)
            free_col[k++] = c;
    double *z = calc_zalloc(n * k + 1, sizeof *z);
    for (size_t q = 0; q < k; q++)
        for (size_t c = 0; c < n; c++)
            z[c * k + q] = c == free_col[q] ? 1 : pivot[c] != SIZE_MAX ? -rows[pivot[c] * n + free_col[q]] : 0;
    double *h = calc_zalloc(k * k + 1, sizeof *h), *g = calc_zalloc(k + 1, sizeof *g);
    for (size_t c = 0; c < n; c++) {
        const double *zc = &z[c * k];
        for (size_t a = 0; a < k; a++) {
            if (zc[a] == 0)
                continue;
            g[a] += zc[a] * w[c] * y[c];
            for (size_t b = 0; b <= a; b++)
                h[a * k + b] += zc[a] * w[c] * zc[b];
        }
    }
    bool ok = cholesky(h, k);
    if (ok) {
        for (size_t a = 0; a < k; a++) {        /* L u = g, then L^T t = u */
            for (size_t b = 0; b < a; b++)
                g[a] -= h[a * k + b] * g[b];
            g[a] = h[a * k + a] > 0 ? g[a] / h[a * k + a] : 0;
        }
        for (size_t a = k; a-- > 0;) {
            for (size_t b = a + 1; b < k; b++)
                g[a] -= h[b * k + a] * g[b];
            g[a] = h[a * k + a] > 0 ? g[a] / h[a * k + a] : 0;
        }
        for (size_t c = 0; c < n; c++) {
            double s = 0;
            for (size_t q = 0; q < k; q++)
                s += z[c * k + q] * g[q];
            x[c] = s;
        }
    }
    free(g);
    free(h);
    free(z);
    free(free_col);
    free(pivot);
    return ok;
}

bool calc_reconcile(const struct calc_proc *p, const double *y, const double *var, double *x)
{
    size_t n = p->nclasses;
    for (size_t c = 0; c < n; c++)
        x[c] = y[c] > 0 ? y[c] : 0;
    if (!n || n > CALC_RECONCILE_MAX)
        return false;
    /* weights (note 2) */
    double *w = calc_zalloc(n, sizeof *w), top = 0;
    for (size_t c = 0; c < n; c++)
        if (y[c] >= 0 && var[c] > 0 && isfinite(var[c]) && 1 / var[c] > top)
            top = 1 / var[c];
    if (top <= 0) {
        free(w);
        return false;
    }
    double *target = calc_zalloc(n, sizeof *target);
    for (size_t c = 0; c < n; c++) {
        bool est = y[c] >= 0 && var[c] > 0 && isfinite(var[c]);
        w[c] = est ? 1 / var[c] : RIDGE * top;
        target[c] = est ? y[c] : 0;
    }
    /* the rows (note 1), room for one more per class held at 0 (note 4) */
    size_t cap = 2 * p->nblocks + n, nbase = 0;
    double *base = calc_zalloc(cap * n + 1, sizeof *base);
    for (uint32_t b = 0; b < p->nblocks; b++) {
        const struct calc_block *blk = &p->blocks[b];
        if (!blk->reached)
            continue;
        if (blk->nin && side_row(p, b, blk->in, blk->nin, &base[nbase * n]))
            nbase++;
        if (blk->nout && side_row(p, b, blk->out, blk->nout, &base[nbase * n]))
            nbase++;
    }
    bool *zero = calc_zalloc(n, sizeof *zero);
    double *rows = calc_zalloc(cap * n + 1, sizeof *rows);
    bool ok = false;
    for (size_t round = 0; round < CALC_RECONCILE_ROUNDS; round++) {
        size_t nrows = nbase;
        memcpy(rows, base, nbase * n * sizeof *rows);
        for (size_t c = 0; c < n; c++)
            if (zero[c]) {
                memset(&rows[nrows * n], 0, n * sizeof *rows);
                rows[nrows++ * n + c] = 1;
            }
        if (!solve(n, rows, nrows, w, target, x))
            break;
        /* every class negative beyond rounding is held at 0 (note 4) */
        bool again = false;
        for (size_t c = 0; c < n; c++)
            if (x[c] < -1e-9 * (1 + fabs(target[c])) && !zero[c]) {
                zero[c] = true;
                again = true;
            }
        if (!again) {
            ok = true;
            break;
        }
    }
    if (ok) {
        /* the estimates' values without the ridge's pull (note 2): the
         * same rows, the free classes weightless */
        size_t nrows = nbase;
        memcpy(rows, base, nbase * n * sizeof *rows);
        for (size_t c = 0; c < n; c++) {
            if (zero[c]) {
                memset(&rows[nrows * n], 0, n * sizeof *rows);
                rows[nrows++ * n + c] = 1;
            }
            if (!(y[c] >= 0 && var[c] > 0 && isfinite(var[c])))
                w[c] = 0;
        }
        double *exact = calc_zalloc(n, sizeof *exact);
        if (solve(n, rows, nrows, w, target, exact))
            for (size_t c = 0; c < n; c++)
                if (w[c] > 0)
                    x[c] = exact[c];
        free(exact);
        for (size_t c = 0; c < n; c++)
            if (x[c] < 0 || zero[c])
                x[c] = 0;
    } else {
        for (size_t c = 0; c < n; c++)
            x[c] = y[c] > 0 ? y[c] : 0;
    }
    free(rows);
    free(zero);
    free(base);
    free(target);
    free(w);
    return ok;
}
