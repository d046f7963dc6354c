/* Value profiles against the value oracle: see value-accuracy.h. */
#include "util/value-accuracy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int value_oracle_read(const char *oracle_path, struct value_oracle *vo, struct ap_err *err)
{
    memset(vo, 0, sizeof *vo);
    char path[4200];
    snprintf(path, sizeof path, "%s.values", oracle_path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ap_err_set(err, "%s: %s; the value oracle is written beside the oracle by a run with "
                          "--oracle on board clipper-pm", path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fread(&vo->h, sizeof vo->h, 1, f) != 1 || vo->h.magic != ORACLE_VALUES_MAGIC)
        rc = ap_err_set(err, "%s: not a value oracle file", path);
    else if (vo->h.version != ORACLE_VALUES_VERSION || vo->h.top != ORACLE_VALUES_TOP)
        rc = ap_err_set(err, "%s: value oracle version %u, this build reads version %d; rerun the record "
                        "with this build", path, vo->h.version, ORACLE_VALUES_VERSION);
    else if (fstat(fileno(f), &st) != 0 ||
             (uint64_t)st.st_size != sizeof vo->h + vo->h.npcs * sizeof(struct oracle_value_pc))
        rc = ap_err_set(err, "%s: damaged file: its size does not match its %llu loads; record it again", path,
                        (unsigned long long)vo->h.npcs);
    if (!rc) {
        vo->pcs = malloc((vo->h.npcs ? vo->h.npcs : 1) * sizeof *vo->pcs);
        if (!vo->pcs || fread(vo->pcs, sizeof *vo->pcs, vo->h.npcs, f) != vo->h.npcs)
            rc = ap_err_set(err, "%s: cannot read its %llu loads", path, (unsigned long long)vo->h.npcs);
    }
    for (uint64_t i = 1; !rc && i < vo->h.npcs; i++)
        if (vo->pcs[i].pc <= vo->pcs[i - 1].pc)
            rc = ap_err_set(err, "%s: damaged file: loads out of order", path);
    fclose(f);
    if (rc)
        value_oracle_free(vo);
    return rc;
}

void value_oracle_free(struct value_oracle *vo)
{
    free(vo->pcs);
    memset(vo, 0, sizeof *vo);
}

const struct oracle_value_pc *value_oracle_find(const struct value_oracle *vo, uint64_t pc)
{
    size_t lo = 0, hi = vo->h.npcs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (vo->pcs[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < vo->h.npcs && vo->pcs[lo].pc == pc ? &vo->pcs[lo] : NULL;
}

double value_share_difference_se(double p1, double p2, uint64_t n)
{
    double v = p1 + p2 - (p1 - p2) * (p1 - p2);
    return n && v > 0 ? sqrt(v / (double)n) : 0;
}

/* The true share of value x at this load: 0 outside the oracle's top
 * values (its lower bound). */
static double oracle_share(const struct oracle_value_pc *t, uint64_t x)
{
    for (unsigned k = 0; k < ORACLE_VALUES_TOP && t->count[k]; k++)
        if (t->value[k] == x)
            return (double)t->count[k] / (double)t->loads;
    return 0;
}

/* Header: top_value_recall_expected, the normal approximation. */
static double fair_hit_probability(const struct oracle_value_pc *t, uint64_t n)
{
    double p1 = (double)t->count[0] / (double)t->loads, prob = 1;
    for (unsigned k = 1; k < ORACLE_VALUES_TOP && t->count[k]; k++) {
        double pk = (double)t->count[k] / (double)t->loads, se = value_share_difference_se(p1, pk, n);
        prob *= se > 0 ? 0.5 * erfc(-(p1 - pk) / se / sqrt(2.0)) : (p1 > pk ? 1 : 0.5);
    }
    return prob;
}

static int worst_first(const void *a, const void *b)
{
    const struct value_check_row *x = a, *y = b;
    double ex = fabs(x->est_share - x->true_share), ey = fabs(y->est_share - y->true_share);
    return ex > ey ? -1 : ex < ey;
}

int value_accuracy(const struct value_view *v, const struct value_oracle *vo, uint64_t min_offered,
                   struct value_accuracy *out)
{
    memset(out, 0, sizeof *out);
    out->rows = calloc(v->nrows ? v->nrows : 1, sizeof *out->rows);
    if (!out->rows)
        return -1;
    double err_sum = 0, fair_sum = 0;
    for (size_t i = 0; i < v->nrows; i++) {
        const struct vv_row *r = &v->rows[i];
        uint64_t pc = (r->img ? r->img->address : 0) + r->offset;
        const struct oracle_value_pc *t = value_oracle_find(vo, pc);
        if (!t || !t->loads) {
            out->not_in_oracle++;       /* not a load (or never ran in the model) */
            continue;
        }
        if (r->offered < min_offered) {
            out->too_few++;
            continue;
        }
        double share = (double)t->count[0] / (double)t->loads;
        if (share < VALUE_TOP_MIN_SHARE) {
            out->no_top++;
            continue;
        }
        struct value_check_row *c = &out->rows[out->checked++];
        c->row = r;
        c->true_value = t->value[0];
        c->true_share = share;
        for (size_t k = 0; k < r->nvalues; k++)
            if (r->values[k].value == t->value[0])
                c->est_share = r->values[k].share;
        c->hit = r->nvalues && r->values[0].value == t->value[0];
        out->hits += (size_t)c->hit;
        err_sum += fabs(c->est_share - c->true_share);
        if (r->nvalues) {
            c->first_value = r->values[0].value;
            c->first_true_share = oracle_share(t, c->first_value);
            /* against the runner-up when the first is the top: how near a tie the load is */
            double rival = c->hit ? (t->count[1] ? (double)t->count[1] / (double)t->loads : 0) : c->first_true_share;
            c->tie_margin = VALUE_TIE_Z * value_share_difference_se(share, rival, r->offered);
            c->within_error = c->hit || share - c->first_true_share <= c->tie_margin;
        }
        out->hits_within_error += (size_t)c->within_error;
        c->fair_hit = fair_hit_probability(t, r->offered);
        fair_sum += c->fair_hit;
    }
    out->near_ties = out->hits_within_error - out->hits;
    out->recall = out->checked ? (double)out->hits / (double)out->checked : 0;
    out->recall_within_error = out->checked ? (double)out->hits_within_error / (double)out->checked : 0;
    out->recall_expected = out->checked ? fair_sum / (double)out->checked : 0;
    out->freq_error = out->checked ? 100 * err_sum / (double)out->checked : 0;
    qsort(out->rows, out->checked, sizeof *out->rows, worst_first);
    return 0;
}

void value_accuracy_free(struct value_accuracy *a)
{
    free(a->rows);
    memset(a, 0, sizeof *a);
}
