/* ProfileMe estimates against the oracle (definitions: pme-accuracy.h). */
#include "util/pme-accuracy.h"

#include <math.h>
#include <string.h>

#include "util/json-out.h"

static void count_add(struct pme_acc_count *c, uint64_t k, double S, double truth)
{
    if (!k || !(truth > 0))
        return;
    double est = (double)k * S;
    bool in = pme_within_envelope(est, truth, k);
    c->sampled++;
    c->within += in;
    if (k >= PME_ACC_MIN_SAMPLES) {
        c->sampled_k10++;
        c->within_k10 += in;
    }
    struct pme_count_est ci;
    pme_count_estimate(k, S, PME_Z95, &ci);
    bool cov = ci.lo <= truth && truth <= ci.hi;
    c->covered += cov;
    if (k >= PME_ACC_MIN_SAMPLES)
        c->covered_k10 += cov;
    c->estimate_total += est;
    c->true_sampled += truth;
    c->weighted_rel_error += (double)k * fabs(est / truth - 1);
}

int pme_accuracy(const struct pme_view *v, const struct oracle *o, struct pme_accuracy *a, struct ap_err *err)
{
    static const char *const bit_names[] = {PME_EVENT_BIT_NAMES};
    static const char *const lat_names[] = {PME_LATENCY_NAMES};
    memset(a, 0, sizeof *a);
    uint64_t fetched = 0, records = 0;
    for (unsigned c = 0; c < o->h.ncores; c++) {
        fetched += o->cores[c].fetched;
        records += o->cores[c].pme_samples;
    }
    a->oracle_interval = records ? (double)fetched / (double)records : 0;
    a->interval = v->interval;
    if (!a->interval) {
        a->interval = a->oracle_interval;
        a->interval_from_oracle = true;
    }
    if (!a->interval)
        return ap_err_set(err, "neither the database nor the oracle gives the ProfileMe sampling interval: "
                          "record with alphaprof record --profileme");
    double S = a->interval;
    a->retired.name = "retired";
    a->nbits = PME_EVB_COUNT;
    for (size_t b = 0; b < a->nbits; b++)
        a->bits[b].name = bit_names[b];
    a->nlat = PME_LAT_COUNT;
    for (size_t f = 0; f < a->nlat; f++)
        a->lat[f].name = lat_names[f];
    double executions = 0;
    for (uint64_t i = 0; i < o->h.npcs; i++) {
        const struct oracle_pc *p = &o->pcs[i];
        executions += (double)p->executions;
        a->retired.true_total += (double)p->executions;
        for (size_t b = 0; b < a->nbits; b++)
            a->bits[b].true_total += (double)p->pme_events[b];
    }
    double lat_weight[PME_LAT_COUNT] = {0};
    /* The bit names of the database must be this build's to compare bit b with pme_events[b]. */
    int bit_map[PME_EVB_COUNT];
    for (size_t b = 0; b < a->nbits; b++)
        bit_map[b] = pme_bit_index(v, bit_names[b]);
    size_t sampled_pcs = 0;
    double sampled_exec = 0;
    for (size_t i = 0; i < v->ninsns; i++) {
        const struct pme_insn *in = &v->insns[i];
        if (!in->samples)
            continue;
        a->retired.estimate_all += (double)in->retired * S;
        for (size_t b = 0; b < a->nbits; b++)
            if (bit_map[b] >= 0)
                a->bits[b].estimate_all += (double)in->bits[bit_map[b]] * S;
        const struct oracle_pc *p = oracle_find(o, pme_insn_pc(in));
        if (!p)
            continue;
        sampled_pcs++;
        sampled_exec += (double)p->executions;
        count_add(&a->retired, in->retired, S, (double)p->executions);
        for (size_t b = 0; b < a->nbits; b++)
            if (bit_map[b] >= 0)
                count_add(&a->bits[b], in->bits[bit_map[b]], S, (double)p->pme_events[b]);
        if (in->samples >= PME_ACC_MIN_SAMPLES && p->executions)
            for (size_t f = 0; f < a->nlat && f < v->nlat; f++) {
                double est = (double)in->lat[f] / (double)in->samples;
                double truth = (double)p->lat_sum[f] / (double)p->executions;
                a->lat[f].instructions++;
                a->lat[f].mean_abs_error += (double)in->samples * fabs(est - truth);
                a->lat[f].mean_true += (double)in->samples * truth;
                lat_weight[f] += (double)in->samples;
            }
    }
    for (size_t f = 0; f < a->nlat; f++)
        if (lat_weight[f] > 0) {
            a->lat[f].mean_abs_error /= lat_weight[f];
            a->lat[f].mean_true /= lat_weight[f];
        }
    struct pme_acc_count *all[1 + PME_EVB_COUNT];
    all[0] = &a->retired;
    for (size_t b = 0; b < a->nbits; b++)
        all[1 + b] = &a->bits[b];
    for (size_t c = 0; c < 1 + a->nbits; c++) {
        double k = all[c]->estimate_total / S;
        if (k > 0)
            all[c]->weighted_rel_error /= k;
        all[c]->total_error = all[c]->true_total > 0 ? all[c]->estimate_all / all[c]->true_total - 1 : NAN;
    }
    for (uint64_t i = 0; i < o->h.npcs; i++)
        if (o->pcs[i].executions)
            a->oracle_pcs_missed++;
    a->oracle_pcs_missed = a->oracle_pcs_missed > sampled_pcs ? a->oracle_pcs_missed - sampled_pcs : 0;
    a->missed_executions = executions > 0 ? 1 - sampled_exec / executions : 0;
    return 0;
}

static double pct(size_t a, size_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static void count_line(FILE *f, const struct pme_acc_count *c)
{
    fprintf(f, "  %-12s %7zu %7zu %7.1f%% %7zu %7.1f%% %14.0f %14.0f %+8.2f%% %8.2f%%\n", c->name, c->sampled,
            c->within, pct(c->within, c->sampled), c->sampled_k10, pct(c->within_k10, c->sampled_k10),
            c->estimate_all, c->true_total, c->true_total > 0 ? 100 * c->total_error : 0.0,
            100 * c->weighted_rel_error);
}

void pme_accuracy_print(FILE *f, const struct pme_accuracy *a)
{
    fprintf(f, "ProfileMe estimates against the oracle: S = %.1f fetched instructions per sample%s",
            a->interval, a->interval_from_oracle ? " (the oracle's: the database lacks it)" : "");
    if (a->oracle_interval && !a->interval_from_oracle)
        fprintf(f, " (the oracle's fetched/records, boot included: %.1f)", a->oracle_interval);
    fprintf(f, "\n");
    const struct pme_acc_count *r = &a->retired;
    fprintf(f, "  retire counts: %.1f%% of %zu sampled instructions within the 1/sqrt(k) envelope, "
               "%.1f%% of the %zu with k >= %d (theory: about 68%%)\n", pct(r->within, r->sampled), r->sampled,
            pct(r->within_k10, r->sampled_k10), r->sampled_k10, PME_ACC_MIN_SAMPLES);
    fprintf(f, "  %.1f%% of them have the true count inside their 95%% interval, %.1f%% of those with k >= %d\n",
            pct(r->covered, r->sampled), pct(r->covered_k10, r->sampled_k10), PME_ACC_MIN_SAMPLES);
    fprintf(f, "  %zu executed PCs never sampled, %.3f%% of the executions\n", a->oracle_pcs_missed,
            100 * a->missed_executions);
    fprintf(f, "  %-12s %7s %7s %8s %7s %8s %14s %14s %9s %9s\n", "count", "insns", "within", "%", "k>=10",
            "within%", "estimate", "true", "total", "|err|");
    fprintf(f, "  (estimate and true: the whole run's, every sample's kS against every PC's count;\n"
               "  total: their difference; |err|: the sample-weighted mean per-instruction error)\n");
    count_line(f, r);
    for (size_t b = 0; b < a->nbits; b++)
        if (a->bits[b].sampled && b != PME_EVB_RETIRED)     /* the retire counts, above */
            count_line(f, &a->bits[b]);
    fprintf(f, "  stage latency (mean cycles per sample vs the oracle's per execution, instructions with >= %d samples):\n",
            PME_ACC_MIN_SAMPLES);
    fprintf(f, "  %-16s %7s %12s %12s\n", "field", "insns", "mean |err|", "mean true");
    for (size_t l = 0; l < a->nlat; l++)
        fprintf(f, "  %-16s %7zu %12.2f %12.2f\n", a->lat[l].name, a->lat[l].instructions, a->lat[l].mean_abs_error,
                a->lat[l].mean_true);
}

static void count_json(FILE *f, const struct pme_acc_count *c)
{
    fprintf(f, "{\"name\": ");
    json_str(f, c->name);
    fprintf(f, ", \"sampled\": %zu, \"within\": %zu, \"within_fraction\": ", c->sampled, c->within);
    json_num(f, c->sampled ? (double)c->within / (double)c->sampled : NAN);
    fprintf(f, ", \"sampled_k10\": %zu, \"within_k10\": %zu, \"covered95\": %zu, \"covered95_k10\": %zu, \"estimate_total\": ",
            c->sampled_k10, c->within_k10, c->covered, c->covered_k10);
    json_num(f, c->estimate_total);
    fprintf(f, ", \"true_sampled\": ");
    json_num(f, c->true_sampled);
    fprintf(f, ", \"true_total\": ");
    json_num(f, c->true_total);
    fprintf(f, ", \"estimate_all\": ");
    json_num(f, c->estimate_all);
    fprintf(f, ", \"total_error\": ");
    json_num(f, c->total_error);
    fprintf(f, ", \"weighted_rel_error\": ");
    json_num(f, c->weighted_rel_error);
    fprintf(f, "}");
}

void pme_accuracy_json(FILE *f, const struct pme_accuracy *a)
{
    fprintf(f, "{\"interval\": ");
    json_num(f, a->interval);
    fprintf(f, ", \"interval_from_oracle\": %s, \"oracle_interval\": ", a->interval_from_oracle ? "true" : "false");
    json_num(f, a->oracle_interval);
    fprintf(f, ", \"oracle_pcs_missed\": %zu, \"missed_executions\": ", a->oracle_pcs_missed);
    json_num(f, a->missed_executions);
    fprintf(f, ", \"retired\": ");
    count_json(f, &a->retired);
    fprintf(f, ", \"bits\": [");
    for (size_t b = 0; b < a->nbits; b++) {
        fprintf(f, "%s", b ? ", " : "");
        count_json(f, &a->bits[b]);
    }
    fprintf(f, "], \"latency\": [");
    for (size_t l = 0; l < a->nlat; l++) {
        fprintf(f, "%s{\"name\": ", l ? ", " : "");
        json_str(f, a->lat[l].name);
        fprintf(f, ", \"instructions\": %zu, \"mean_abs_error\": ", a->lat[l].instructions);
        json_num(f, a->lat[l].mean_abs_error);
        fprintf(f, ", \"mean_true\": ");
        json_num(f, a->lat[l].mean_true);
        fprintf(f, "}");
    }
    fprintf(f, "]}");
}

int pme_pair_accuracy(const struct pme_view *v, const struct oracle *o, double C, struct pme_pair_accuracy *a)
{
    memset(a, 0, sizeof *a);
    if (!(v->pair_interval > 0) || !(v->window > 0))
        return -1;
    double lat_abs = 0, lat_true = 0, conc_abs = 0, weight = 0, top_e = -INFINITY, top_t = -INFINITY;
    for (size_t i = 0; i < v->ninsns; i++) {
        const struct pme_insn *in = &v->insns[i];
        if (in->pair.pairs < PME_PAIR_ACC_MIN)
            continue;
        const struct oracle_pc *t = oracle_find(o, pme_insn_pc(in));
        if (!t || !t->executions)
            continue;
        double cycles = (double)(t->lat_sum[PME_LAT_FETCH_MAP] + t->lat_sum[PME_LAT_MAP_DATA] +
                                 t->lat_sum[PME_LAT_DATA_ISSUE] + t->lat_sum[PME_LAT_ISSUE_RETREADY]);
        double useful = (double)t->useful_issued, wasted = C * cycles - useful;
        struct pme_concurrency e;
        pme_concurrency_estimate(&in->pair, v->pair_interval, v->window, C, 30, &e);
        a->instructions++;
        a->useful_estimate += e.useful;
        a->useful_true += useful;
        a->useful_error += fabs(e.useful - useful);
        lat_abs += fabs(e.latency_total - cycles);
        lat_true += cycles;
        a->wasted_estimate += e.wasted;
        a->wasted_true += wasted;
        a->wasted_error += fabs(e.wasted - wasted);
        double w = (double)in->pair.pairs;
        conc_abs += w * fabs(e.concurrency - (cycles > 0 ? useful / cycles : 0));
        weight += w;
        if (e.wasted > top_e) {
            top_e = e.wasted;
            a->top_estimate_pc = pme_insn_pc(in);
        }
        if (wasted > top_t) {
            top_t = wasted;
            a->top_true_pc = pme_insn_pc(in);
        }
    }
    if (!a->instructions)
        return -1;
    double wasted_abs = a->wasted_error, wasted_norm = 0;
    for (size_t i = 0; i < v->ninsns; i++) {    /* sum |C cycles - useful| over the same instructions */
        const struct pme_insn *in = &v->insns[i];
        const struct oracle_pc *t = in->pair.pairs >= PME_PAIR_ACC_MIN ? oracle_find(o, pme_insn_pc(in)) : NULL;
        if (t && t->executions)
            wasted_norm += fabs(C * (double)(t->lat_sum[PME_LAT_FETCH_MAP] + t->lat_sum[PME_LAT_MAP_DATA] +
                                             t->lat_sum[PME_LAT_DATA_ISSUE] + t->lat_sum[PME_LAT_ISSUE_RETREADY]) -
                                (double)t->useful_issued);
    }
    a->useful_error = a->useful_true > 0 ? a->useful_error / a->useful_true : 0;
    a->latency_error = lat_true > 0 ? lat_abs / lat_true : 0;
    a->wasted_error = wasted_norm > 0 ? wasted_abs / wasted_norm : 0;
    a->concurrency_error = weight > 0 ? conc_abs / weight : 0;
    a->top_wasted_agrees = a->top_estimate_pc == a->top_true_pc;
    return 0;
}
