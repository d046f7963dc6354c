/*
 * check --calc (calc-accuracy.h).
 */
#include "util/calc-accuracy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"

struct est_row {
    uint64_t pc;
    const double *stack;
};

static int by_pc(const void *a, const void *b)
{
    const struct est_row *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void compare(const double *est, const uint64_t *truth_units, double *abs_diff, double *agree)
{
    for (unsigned c = 0; c < CALC_NSTACK; c++) {
        double e = est ? est[c] : 0;
        double t = truth_units && c < CAUSE_COUNT ? (double)truth_units[c] / CYCLE_UNIT : 0;
        *abs_diff += fabs(e - t);
        if (c != CAUSE_BASE && c < CAUSE_COUNT)
            *agree += e < t ? e : t;
    }
}

/* The oracle's executions of edge e (note in calc-accuracy.h), or -1. */
static double true_edge(const struct calc_proc *p, uint32_t e, const struct oracle *o)
{
    const struct calc_edge *x = &p->edges[e];
    if (x->from == CALC_NONE)
        return -1;
    const struct calc_block *b = &p->blocks[x->from];
    const struct calc_insn *last = &p->insns[b->first + b->n - 1];
    const struct oracle_pc *t = oracle_find(o, last->pc);
    double ex = t ? (double)t->executions : 0, taken = t ? (double)t->taken : 0;
    if (b->nout == 1)
        return ex;
    if (last->s.cls == ALPHA_BRANCH_COND && b->nout == 2 && p->edges[b->out[0]].to != p->edges[b->out[1]].to)
        return b->out[1] == e ? taken : ex - taken;     /* (out[0] falls through: calc-cfg.c) */
    return -1;
}

void calc_accuracy(const struct calc_analysed *a, const struct oracle *o, struct calc_accuracy *acc)
{
    memset(acc, 0, sizeof *acc);
    acc->procedures = a->n;
    static const double limits[3] = {0.05, 0.10, 0.15};
    size_t n = 0;
    for (size_t k = 0; k < a->n; k++)
        n += a->procs[k].n;
    struct est_row *rows = calc_zalloc(n + 1, sizeof *rows);
    n = 0;
    for (size_t k = 0; k < a->n; k++) {
        const struct calc_proc *p = &a->procs[k];
        for (size_t i = 0; i < p->n; i++) {
            const struct calc_insn *in = &p->insns[i];
            rows[n++] = (struct est_row){in->pc, in->stack};
            for (unsigned c = 0; c < CALC_NSTACK; c++) {
                acc->est_cycles += in->stack[c];
                if (c != CAUSE_BASE)
                    acc->est_stall += in->stack[c];
            }
            acc->unexplained_share += in->stack[CALC_UNEXPLAINED];
            double s = in->samples[CALC_EV_CYCLES];
            if (s <= 0)
                continue;
            acc->samples += s;
            const struct oracle_pc *t = oracle_find(o, in->pc);
            double truth = t ? (double)t->executions : 0;
            double err = truth > 0 ? fabs(in->freq - truth) / truth : in->freq > 0 ? INFINITY : 0;
            for (int l = 0; l < 3; l++)
                if (err <= limits[l])
                    acc->freq_within[l] += s;
        }
    }
    for (size_t k = 0; k < a->n; k++) {
        const struct calc_proc *p = &a->procs[k];
        for (uint32_t e = 0; e < p->nedges; e++) {
            double t = true_edge(p, e, o);
            if (t <= 0)
                continue;
            acc->edge_executions += t;
            if (fabs(p->edges[e].freq - t) <= 0.10 * t)
                acc->edge_within_10 += t;
        }
    }
    acc->edge_within_10 = acc->edge_executions > 0 ? acc->edge_within_10 / acc->edge_executions : 0;
    qsort(rows, n, sizeof *rows, by_pc);
    double abs_diff = 0, agree = 0;
    size_t i = 0, j = 0;
    for (uint64_t q = 0; q < o->h.npcs; q++)
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            acc->true_cycles += (double)o->pcs[q].stack[c] / CYCLE_UNIT;
    while (i < n || j < o->h.npcs) {
        if (j >= o->h.npcs || (i < n && rows[i].pc < o->pcs[j].pc)) {
            compare(rows[i++].stack, NULL, &abs_diff, &agree);
        } else if (i >= n || o->pcs[j].pc < rows[i].pc) {
            compare(NULL, o->pcs[j++].stack, &abs_diff, &agree);
        } else {
            compare(rows[i++].stack, o->pcs[j++].stack, &abs_diff, &agree);
        }
    }
    for (int l = 0; l < 3; l++)
        acc->freq_within[l] = acc->samples > 0 ? acc->freq_within[l] / acc->samples : 0;
    acc->unexplained_share = acc->est_stall > 0 ? acc->unexplained_share / acc->est_stall : 0;
    acc->cause_agreement = acc->est_stall > 0 ? agree / acc->est_stall : 0;
    acc->stack_error = acc->true_cycles > 0 ? 0.5 * abs_diff / acc->true_cycles : 0;
    free(rows);
}
