/* Estimators for stats and diff (definitions and reasons: profile-stats.h). */
#include "util/profile-stats.h"

#include <math.h>
#include <stdlib.h>

#include "util/strvec.h"

void variation_of(const double *x, size_t n, struct variation *out)
{
    *out = (struct variation){.n = n};
    if (n == 0)
        return;
    out->min = out->max = x[0];
    for (size_t i = 0; i < n; i++) {
        out->sum += x[i];
        if (x[i] < out->min)
            out->min = x[i];
        if (x[i] > out->max)
            out->max = x[i];
    }
    out->mean = out->sum / (double)n;
    if (n > 1) {
        double ss = 0;      /* two passes: no cancellation for large counts */
        for (size_t i = 0; i < n; i++)
            ss += (x[i] - out->mean) * (x[i] - out->mean);
        out->sd = sqrt(ss / (double)(n - 1));
    }
    out->range_norm = out->sum > 0 ? (out->max - out->min) / out->sum : 0;
}

void share_test(uint64_t a, uint64_t total_a, uint64_t b, uint64_t total_b, struct share_test *out)
{
    *out = (struct share_test){.z = 0, .p_value = 1};
    if (total_a == 0 || total_b == 0)
        return;
    double na = (double)total_a, nb = (double)total_b;
    out->share_a = (double)a / na;
    out->share_b = (double)b / nb;
    out->delta = out->share_b - out->share_a;
    double pooled = ((double)a + (double)b) / (na + nb);
    out->small = pooled * na < 5 || pooled * nb < 5 || (1 - pooled) * na < 5 || (1 - pooled) * nb < 5;
    double se_unpooled = sqrt(out->share_a * (1 - out->share_a) / na + out->share_b * (1 - out->share_b) / nb);
    out->ci_lo = out->delta - 1.959963984540054 * se_unpooled;
    out->ci_hi = out->delta + 1.959963984540054 * se_unpooled;
    double se = sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb));
    if (!(se > 0))
        return;
    out->valid = true;
    out->z = out->delta / se;
    /* Two-sided: P(|Z| >= |z|) = erfc(|z| / sqrt 2). */
    out->p_value = erfc(fabs(out->z) / sqrt(2.0));
    if (out->p_value > 1)
        out->p_value = 1;
}

struct ranked {
    double p;
    size_t index;
};

static int cmp_by_p(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

void holm_adjust(const double *p, size_t m, double *adjusted)
{
    if (m == 0)
        return;
    struct ranked *order = xmalloc(m * sizeof *order);
    for (size_t i = 0; i < m; i++)
        order[i] = (struct ranked){p[i], i};
    qsort(order, m, sizeof *order, cmp_by_p);
    double running = 0;     /* adjusted p-values never decrease along the order */
    for (size_t r = 0; r < m; r++) {
        double v = (double)(m - r) * order[r].p;
        if (v > 1)
            v = 1;
        if (v > running)
            running = v;
        adjusted[order[r].index] = running;
    }
    free(order);
}
