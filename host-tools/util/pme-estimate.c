/* The ProfileMe estimators (formulas and conventions: pme-estimate.h). */
#include "util/pme-estimate.h"

#include <math.h>

void pme_count_estimate(uint64_t k, double interval, double z, struct pme_count_est *out)
{
    double kk = (double)k;
    out->k = k;
    out->estimate = kk * interval;
    out->cv = k ? 1.0 / sqrt(kk) : INFINITY;
    double half = z * sqrt(kk + z * z / 4);
    double lo = kk + z * z / 2 - half;
    out->lo = (k && lo > 0 ? lo : 0) * interval;
    out->hi = (kk + z * z / 2 + half) * interval;
}

bool pme_within_envelope(double estimate, double truth, uint64_t k)
{
    if (!k || !(truth > 0))
        return false;
    /* a relative 1e-12 of slack: 110 vs 100 with k = 100 is on the edge */
    return fabs(estimate / truth - 1) <= 1.0 / sqrt((double)k) * (1 + 1e-12);
}

void pme_rate_estimate(uint64_t k, uint64_t n, double z, struct pme_rate_est *out)
{
    out->k = k;
    out->n = n;
    if (!n) {
        out->rate = 0;
        out->lo = 0;
        out->hi = 1;
        return;
    }
    double nn = (double)n, p = (double)k / nn, z2 = z * z;
    double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
    double half = z * sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn)) / (1 + z2 / nn);
    out->rate = p;
    out->lo = k == 0 ? 0 : fmax(0, centre - half);
    out->hi = k == n ? 1 : fmin(1, centre + half);
}

void pme_times_from_latencies(const uint64_t *lat, size_t nlat, bool retired, struct pme_times *t)
{
    double l[PME_LAT_COUNT] = {0};
    for (size_t i = 0; i < nlat && i < PME_LAT_COUNT; i++)
        l[i] = (double)lat[i];
    t->retired = retired;
    t->issue = l[PME_LAT_FETCH_MAP] + l[PME_LAT_MAP_DATA] + l[PME_LAT_DATA_ISSUE];
    t->retready = t->issue + l[PME_LAT_ISSUE_RETREADY];
    t->retire = t->retready + l[PME_LAT_RETREADY_RETIRE];
}

void pme_pair_analyse(const struct pme_pair_obs *p, double ipc_window, struct pme_pair_effect out[2])
{
    /* Absolute times with the first fetch at 0. */
    double fetch[2] = {0, p->distance};
    for (int s = 0; s < 2; s++) {
        const struct pme_times *me = &p->rec[s], *other = &p->rec[1 - s];
        double other_issue = fetch[1 - s] + other->issue;
        out[s].retired = me->retired;
        out[s].latency = me->retready;
        out[s].useful = other->retired && other_issue >= fetch[s] && other_issue <= fetch[s] + me->retready;
        double d = (fetch[1] + p->rec[1].retire) - (fetch[0] + p->rec[0].retire);
        out[s].near = me->retired && other->retired && fabs(d) <= ipc_window / 2;
    }
}

void pme_pair_acc_add(struct pme_pair_acc *a, int slot, const struct pme_pair_effect *e)
{
    a->pairs++;
    if (e->useful) {
        if (slot == 0)
            a->useful_fwd++;
        else
            a->useful_bwd++;
    }
    a->retired += e->retired;
    a->near += e->near;
    a->latency += e->latency;
}

void pme_concurrency_estimate(const struct pme_pair_acc *a, double S, double W, double C, double T,
                              struct pme_concurrency *out)
{
    double U = (double)(a->useful_fwd + a->useful_bwd), L = a->latency;
    out->latency_total = L * S / 2;
    out->slots = L * C * S / 2;
    out->useful = U * W * S;
    out->wasted = out->slots - out->useful;
    out->concurrency = L > 0 ? 2 * U * W / L : 0;
    out->ipc_near = a->retired && T > 0 ? 2 * W * (double)a->near / ((double)a->retired * T) : 0;
    out->mean_latency = a->pairs ? L / (double)a->pairs : 0;
}

double pme_window_estimate(uint64_t max_gap, uint64_t n)
{
    if (!n)
        return 0;
    double m = (double)max_gap, w = m + m / (double)n - 1;
    return w > m ? w : m;
}
