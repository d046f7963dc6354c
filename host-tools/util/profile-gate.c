/* The regression gate's test (definitions and reasons: profile-gate.h). */
#include "util/profile-gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/profile-stats.h"
#include "util/strvec.h"

const char *gate_verdict_name(enum gate_verdict v)
{
    switch (v) {
    case GATE_REGRESSION: return "regression";
    case GATE_IMPROVEMENT: return "improvement";
    case GATE_WITHIN: return "within";
    case GATE_SAME: break;
    }
    return "same";
}

/* One row's test from its counts per set; base_total (> 0) is the mean
 * base time of the whole profile, the yardstick of a new procedure. */
static void test_row(struct gate_row *g, const uint64_t *count, const double *period, size_t nbase,
                     double base_total)
{
    double *x = xmalloc((nbase ? nbase : 1) * sizeof *x);
    for (size_t s = 0; s < nbase; s++)
        x[s] = (double)count[s] * period[s];
    struct variation var;
    variation_of(x, nbase, &var);
    free(x);
    double y = (double)count[nbase] * period[nbase];
    double m = (var.sum + y) / (double)(nbase + 1);
    double samp_base = 0;
    for (size_t s = 0; s < nbase; s++)
        samp_base += m * period[s];
    samp_base /= (double)nbase * (double)nbase;
    double spread = var.sd * var.sd;
    double var_y = fmax(m * period[nbase], spread), var_xm = fmax(samp_base, spread / (double)nbase);
    double se = sqrt(var_y + var_xm);
    g->base_mean = var.mean;
    g->base_sd = var.sd;
    g->value = y;
    double yardstick = var.mean > 0 ? var.mean : base_total;
    g->change = yardstick > 0 ? (y - var.mean) / yardstick : 0;
    g->se_change = yardstick > 0 ? se / yardstick : 0;
    g->z = se > 0 ? (y - var.mean) / se : 0;
    g->p = se > 0 ? fmin(1, erfc(fabs(g->z) / sqrt(2.0))) : 1;
}

static int verdict_rank(enum gate_verdict v)
{
    return v == GATE_REGRESSION ? 0 : v == GATE_IMPROVEMENT ? 1 : v == GATE_WITHIN ? 2 : 3;
}

static int by_verdict(const void *a, const void *b)
{
    const struct gate_row *x = a, *y = b;
    int rx = verdict_rank(x->verdict), ry = verdict_rank(y->verdict);
    if (rx != ry)
        return rx - ry;
    if (fabs(x->z) != fabs(y->z))
        return fabs(x->z) > fabs(y->z) ? -1 : 1;
    if (!x->row || !y->row)
        return x->row ? 1 : y->row ? -1 : 0;
    int c = strcmp(x->row->image, y->row->image);
    return c ? c : strcmp(x->row->proc, y->row->proc);
}

void gate_evaluate(const struct cmp_table *t, const double *period, size_t nbase, double max_regress,
                   double alpha, struct gate_result *out)
{
    size_t n = t->nrows + 1;
    *out = (struct gate_result){.rows = xmalloc(n * sizeof *out->rows), .nrows = n};
    memset(out->rows, 0, n * sizeof *out->rows);
    double base_total = 0;
    for (size_t s = 0; s < nbase; s++)
        base_total += (double)t->total[s] * period[s];
    base_total /= (double)(nbase ? nbase : 1);
    double *p = xmalloc(n * sizeof *p), *adj = xmalloc(n * sizeof *adj);
    for (size_t i = 0; i < t->nrows; i++) {
        out->rows[i].row = &t->rows[i];
        test_row(&out->rows[i], t->rows[i].count, period, nbase, base_total);
    }
    test_row(&out->rows[n - 1], t->total, period, nbase, base_total);
    for (size_t i = 0; i < n; i++)
        p[i] = out->rows[i].p;
    holm_adjust(p, n, adj);
    for (size_t i = 0; i < n; i++) {
        struct gate_row *g = &out->rows[i];
        g->p_holm = adj[i];
        bool significant = g->p_holm <= alpha && g->z != 0;
        if (!significant)
            g->verdict = GATE_SAME;
        else if (g->z > 0 && g->change > max_regress)
            g->verdict = GATE_REGRESSION, out->regressions++;
        else if (g->z < 0 && g->change < -max_regress)
            g->verdict = GATE_IMPROVEMENT, out->improvements++;
        else
            g->verdict = GATE_WITHIN;
    }
    free(p);
    free(adj);
    qsort(out->rows, n, sizeof *out->rows, by_verdict);
}

void gate_free(struct gate_result *r)
{
    free(r->rows);
    *r = (struct gate_result){0};
}
