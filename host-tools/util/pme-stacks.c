/*
 * Cycle stacks from ProfileMe's records (pme-stacks.h: the estimator, its
 * design notes, the check).
 */
#include "util/pme-stacks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/calc.h"
#include "util/strvec.h"
#include "util/symbols.h"

/* Note 11: a branch with fewer retired records says too little of its sides */
#define POOL_FLOW_MIN 10

void pme_stack_params_of(const struct model_params *p, struct pme_stack_params *out)
{
    out->penalty = p->mispredict_penalty;
    out->flush_bubble = p->mispredict_penalty / 2.0;
    out->retire_width = p->retire_width > CYCLE_MAX_RETIRE_WIDTH ? CYCLE_MAX_RETIRE_WIDTH : p->retire_width;
    /* halfway between the waits of an L1 hit and an L2 hit, of an L2 hit and memory */
    out->l2_wait = p->l1_latency + p->l2_latency / 2.0;
    out->mem_wait = p->l1_latency + p->l2_latency + p->memory_latency / 2.0;
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

void pme_record_stack(const struct pme_stack_params *p, const struct pme_rec_obs *r, double share,
                      double out[CAUSE_COUNT])
{
    if (!r->retired) {
        if (r->trap)
            out[CAUSE_TRAP] += p->penalty + 1;
        return;                         /* the bad path owns no cycle */
    }
    const uint32_t *l = r->lat;
    double M = l[PME_LAT_FETCH_MAP], D = M + l[PME_LAT_MAP_DATA], I = D + l[PME_LAT_DATA_ISSUE];
    double RR = I + l[PME_LAT_ISSUE_RETREADY], R = RR + l[PME_LAT_RETREADY_RETIRE];
    double gap = l[PME_LAT_RETIRE_GAP];
    out[CAUSE_BASE] += share;
    if (r->mispredict && p->penalty > l[PME_LAT_RETREADY_RETIRE])
        out[CAUSE_MISPREDICT] += p->penalty - l[PME_LAT_RETREADY_RETIRE];
    if (gap < 1)
        return;
    double lo = R - gap + 1, hi = R;
    if (M > lo) {                       /* an empty window before it entered */
        double end = M < hi ? M : hi;
        /* fetch came late ([lo, fetch + 1)) by as much as a flush's bubble
         * with no miss of its own: a flush's, its owner's (note 4) */
        double fetched = clampd(1, lo, end);
        if (r->imiss || r->itbmiss || fetched - lo < p->flush_bubble) {
            unsigned front = r->imiss ? CAUSE_ICACHE : r->itbmiss ? CAUSE_ITB : CAUSE_BASE;
            out[front] += fetched - lo;
            out[CAUSE_QUEUE_FULL] += end - fetched;     /* [fetch + 1, map): map held back */
        }
        lo = end;
    }
    double wait = D - (M + 1);
    unsigned wait_cause = wait >= p->mem_wait ? CAUSE_DCACHE_MEM
                        : wait >= p->l2_wait ? CAUSE_DCACHE_L2 : CAUSE_DEPENDENCY;
    unsigned exec_cause = r->serialising ? CAUSE_SERIALISE
                        : r->load && r->dtbmiss ? CAUSE_DTB
                        : r->load || r->store ? CAUSE_BASE
                        : l[PME_LAT_ISSUE_RETREADY] > 1 ? CAUSE_EXECUTE : CAUSE_BASE;
    double b1 = clampd(M + 1, lo, hi), b2 = clampd(D, lo, hi), b3 = clampd(I, lo, hi), b4 = clampd(RR, lo, hi);
    out[CAUSE_BASE] += b1 - lo;
    out[wait_cause] += b2 - b1;
    out[CAUSE_FU_BUSY] += b3 - b2;
    out[exec_cause] += b4 - b3;
    out[CAUSE_OTHER] += hi - b4;
}

/* A retired record's fetch came late by this much in an empty window
 * before it entered, with no miss of its own (as pme_record_stack
 * splits it); 0 if none. */
static double late_fetch(const struct pme_rec_obs *r)
{
    const uint32_t *l = r->lat;
    double R = (double)l[PME_LAT_FETCH_MAP] + l[PME_LAT_MAP_DATA] + l[PME_LAT_DATA_ISSUE] +
               l[PME_LAT_ISSUE_RETREADY] + l[PME_LAT_RETREADY_RETIRE];
    double M = l[PME_LAT_FETCH_MAP], gap = l[PME_LAT_RETIRE_GAP];
    if (!r->retired || r->imiss || r->itbmiss || gap < 1)
        return 0;
    double lo = R - gap + 1, end = M < R ? M : R;
    if (!(M > lo))
        return 0;
    return clampd(1, lo, end) - lo;
}

double pme_record_late_fetch(const struct pme_stack_params *p, const struct pme_rec_obs *r)
{
    double late = late_fetch(r);
    return late < p->flush_bubble ? late : 0;   /* (as pme_record_stack books it) */
}

/* A retired mispredict's bubble beyond its own wait to retire; 0 if none. */
static double mispredict_bubble(const struct pme_stack_params *p, const struct pme_rec_obs *r)
{
    double wait = r->lat[PME_LAT_RETREADY_RETIRE];
    if (!r->retired || !r->mispredict || !(p->penalty > wait))
        return 0;
    return p->penalty - wait;
}

double pme_record_short_bubble(const struct pme_stack_params *p, const struct pme_rec_obs *r)
{
    double b = mispredict_bubble(p, r);
    return b < p->flush_bubble ? b : 0;
}

double pme_record_long_bubble(const struct pme_stack_params *p, const struct pme_rec_obs *r)
{
    double b = mispredict_bubble(p, r);
    return b >= p->flush_bubble ? b : 0;
}

double pme_record_flush_window(const struct pme_stack_params *p, const struct pme_rec_obs *r)
{
    double late = late_fetch(r);
    return late >= p->flush_bubble ? late : 0;  /* (what pme_record_stack leaves to the branch) */
}

static double zero_share(const struct pme_seq_stats *st, size_t i)
{
    return i != SIZE_MAX && st[i].retired > 0 ? st[i].zero_gap / st[i].retired : 0;
}

/* P(O >= g) for g < width into po (po[0] = 1): O the older instructions
 * retiring in i's cycle, given that i retired with the one before it
 * (its record's retire-gap is 0), along the usual predecessors. */
static void older_tail(const struct pme_seq_stats *st, size_t i, unsigned width, double *po)
{
    po[0] = 1;
    if (width > 1)
        po[1] = 1;
    size_t cur = st[i].prev;
    for (unsigned g = 2; g < width; g++) {
        po[g] = cur == SIZE_MAX ? 0 : po[g - 1] * zero_share(st, cur);
        cur = cur == SIZE_MAX ? SIZE_MAX : st[cur].prev;
    }
}

/* P(Y >= g) for g < width into py: Y the younger instructions retiring in
 * i's cycle, each successor with the one before it, along the usual path. */
static void younger_tail(const struct pme_seq_stats *st, size_t i, unsigned width, double *py)
{
    py[0] = 1;
    size_t cur = i;
    for (unsigned g = 1; g < width; g++) {
        if (cur == SIZE_MAX) {
            py[g] = 0;
            continue;
        }
        const struct pme_seq_stats *c = &st[cur];
        double taken = c->retired > 0 ? c->taken / c->retired : 0;
        py[g] = py[g - 1] * ((1 - taken) * zero_share(st, c->next) + taken * zero_share(st, c->target));
        cur = taken > 0.5 ? c->target : c->next;
    }
}

/* E[1 / (1 + O + Y)] for O and Y independent with tails po, py (note 3). */
static double mean_share(const double *po, const double *py, unsigned width)
{
    double e = 0;
    for (unsigned o = 0; o < width; o++) {
        double pov = po[o] - (o + 1 < width ? po[o + 1] : 0);
        if (!(pov > 0))
            continue;
        for (unsigned y = 0; y < width; y++) {
            double pyv = py[y] - (y + 1 < width ? py[y + 1] : 0);
            if (pyv > 0)
                e += pov * pyv / (1 + o + y);
        }
    }
    return e;
}

void pme_share_estimates(const struct pme_seq_stats *st, size_t i, unsigned width, struct pme_share *out)
{
    double po[CYCLE_MAX_RETIRE_WIDTH] = {0}, py[CYCLE_MAX_RETIRE_WIDTH] = {0}, alone[CYCLE_MAX_RETIRE_WIDTH] = {1};
    if (width < 1)
        width = 1;
    if (width > CYCLE_MAX_RETIRE_WIDTH)
        width = CYCLE_MAX_RETIRE_WIDTH;
    older_tail(st, i, width, po);
    younger_tail(st, i, width, py);
    out->first = mean_share(alone, py, width);
    out->joined = width > 1 ? mean_share(po, py, width) : out->first;
    double z = zero_share(st, i);
    out->mean = (1 - z) * out->first + z * out->joined;
}

double pme_share_estimate(const struct pme_seq_stats *st, size_t n, size_t i, unsigned width)
{
    (void)n;
    struct pme_share s;
    pme_share_estimates(st, i, width, &s);
    return s.mean;
}

double pme_stack_total(const struct pme_stack *s)
{
    double t = 0;
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        t += s->cause[c];
    return t;
}

/* The view's bit numbers the estimator reads. */
enum { B_RETIRED, B_TRAP, B_IMISS, B_ITBMISS, B_DTBMISS, B_LOAD, B_STORE, B_MISPREDICT, B_TAKEN, B_COUNT };
static const char *const bit_wanted[B_COUNT] = {"retired", "trap", "imiss", "itbmiss", "dtbmiss", "load",
                                                "store", "mispredict", "taken"};

static void obs_of(const struct pme_pair_rec *rec, const int *bit, struct pme_rec_obs *o)
{
    bool *flag[B_COUNT - 1] = {&o->retired, &o->trap, &o->imiss, &o->itbmiss, &o->dtbmiss, &o->load, &o->store,
                               &o->mispredict};
    for (int b = 0; b < B_COUNT - 1; b++)
        *flag[b] = (rec->events >> bit[b]) & 1;
    memcpy(o->lat, rec->lat, sizeof o->lat);
}

static size_t insn_index(const struct pme_view *v, const struct pme_pair_rec *rec)
{
    const struct pme_insn *in = rec->img ? pme_view_find(v, rec->img, rec->offset) : NULL;
    return in ? (size_t)(in - v->insns) : SIZE_MAX;
}

/* One record of the view's pairs that falls on an instruction of the
 * view: the record, that instruction's index, what its bits say, and the
 * pair's weight over the mean (note 7). */
struct rec_at {
    const struct pme_pair_rec *r;
    size_t i;
    struct pme_rec_obs o;
    double w;
};

/* Steps *pos (0 at first) to the next record of v on an instruction of
 * v, the two records of each pair in turn; false after the last. */
static bool next_rec(const struct pme_view *v, const int *bit, double wnorm, size_t *pos, struct rec_at *at)
{
    for (; *pos < 2 * v->nraw; ++*pos) {
        const struct pme_pair_raw *pair = &v->raw[*pos / 2];
        at->r = &pair->rec[*pos % 2];
        if ((at->i = insn_index(v, at->r)) == SIZE_MAX)
            continue;
        obs_of(at->r, bit, &at->o);
        at->w = pair->weight * wnorm;
        ++*pos;
        return true;
    }
    return false;
}

/* Where a retired record's correct path goes on: its taken target, else
 * the next instruction (NULL: not in the view). */
static const struct pme_insn *successor(const struct pme_view *v, const struct pme_pair_rec *r, int taken_bit)
{
    if ((r->events >> taken_bit) & 1)
        return r->addr >= r->img->address ? pme_view_find(v, r->img, r->addr - r->img->address) : NULL;
    return pme_view_find(v, r->img, r->offset + 4);
}

/* Note 10: each mispredicted branch's long bubbles, booked from its own
 * records (and pooled, note 5), averaged with what the records of the
 * instructions it refetched saw of them.  stands[i]: what i's records
 * stand for; scale[i]: i's pooling factor. */
static void pool_bubbles(const struct pme_view *v, const struct pme_stack_params *p, const int *bit, double wnorm,
                         const double *stands, const double *scale, const size_t *prev, struct pme_stack *out)
{
    double *own = calloc(3 * (v->ninsns + 1), sizeof *own);
    if (!own)
        return;                         /* (an estimate without note 10) */
    double *seen = own + v->ninsns + 1, *mispredicted = seen + v->ninsns + 1;
    struct rec_at a;
    for (int pass = 0; pass < 2; pass++)
        for (size_t pos = 0; next_rec(v, bit, wnorm, &pos, &a);) {
            size_t j = a.i;
            if (!pass) {
                seen[j] += a.w * pme_record_flush_window(p, &a.o) * stands[j] * scale[j];
                mispredicted[j] += a.w * a.o.mispredict;
            }
            double b = pme_record_long_bubble(p, &a.o);
            const struct pme_insn *next = b > 0 ? successor(v, a.r, bit[B_TAKEN]) : NULL;
            if (!next)
                continue;
            size_t n = (size_t)(next - v->insns);
            double booked = a.w * b * stands[j] * scale[j];
            if (!pass)
                own[n] += booked;
            else if (own[n] > 0)
                out[j].cause[CAUSE_MISPREDICT] += booked * (seen[n] - own[n]) / (2 * own[n]);
        }
    /* a flush window seen where no record of a branch booked one: its
     * usual predecessor's, if that ever mispredicts */
    for (size_t n = 0; n < v->ninsns; n++)
        if (!(own[n] > 0) && seen[n] > 0 && prev[n] != SIZE_MAX && mispredicted[prev[n]] > 0)
            out[prev[n]].cause[CAUSE_MISPREDICT] += seen[n] / 2;
    free(own);
}

static bool read_image(const void *ctx, uint64_t addr, void *buf, size_t len)
{
    return symtab_read(ctx, addr, buf, len);
}

void pme_stacks_pool(const struct calc_proc *cfg, struct pme_stack *st, const double *rec, size_t n)
{
    double *pooled = calc_zalloc(cfg->nclasses + 1, sizeof *pooled), *len = calc_zalloc(cfg->nclasses + 1, sizeof *len);
    for (size_t b = 0; b < cfg->nblocks; b++)
        len[cfg->blocks[b].cls] += cfg->blocks[b].n;
    for (size_t k = 0; k < n; k++)
        pooled[cfg->blocks[cfg->insns[(st[k].pc - cfg->start) / 4].block].cls] += rec[k];
    for (size_t k = 0; k < n; k++) {
        uint32_t c = cfg->blocks[cfg->insns[(st[k].pc - cfg->start) / 4].block].cls;
        if (rec[k] > 0) {
            for (unsigned q = 0; q < CAUSE_COUNT; q++)
                st[k].cause[q] *= pooled[c] / len[c] / rec[k];
            st[k].executions = pooled[c] / len[c];
        }
    }
    free(pooled);
    free(len);
}

void pme_stacks_pool_flow(const struct calc_proc *cfg, struct pme_stack *st, const double *retired,
                          const double *taken, size_t n)
{
    size_t *at = xmalloc((cfg->n + 1) * sizeof *at);
    double *x = calc_zalloc(cfg->nclasses + 1, sizeof *x), *len = calc_zalloc(cfg->nclasses + 1, sizeof *len);
    double *num = calc_zalloc(cfg->nclasses + 1, sizeof *num), *den = calc_zalloc(cfg->nclasses + 1, sizeof *den);
    for (size_t i = 0; i < cfg->n; i++)
        at[i] = SIZE_MAX;
    for (size_t k = 0; k < n; k++)
        at[(st[k].pc - cfg->start) / 4] = k;
    for (size_t b = 0; b < cfg->nblocks; b++)
        len[cfg->blocks[b].cls] += cfg->blocks[b].n;
    for (size_t k = 0; k < n; k++)
        x[cfg->blocks[cfg->insns[(st[k].pc - cfg->start) / 4].block].cls] += retired[k];
    for (size_t c = 0; c < cfg->nclasses; c++)
        x[c] = len[c] > 0 ? x[c] / len[c] : 0;
    /* a block runs as often as its in-edges together: an edge from a
     * block with one way out as that block's class, an edge from a
     * conditional branch as the branch's class times that side's share */
    for (size_t b = 0; b < cfg->nblocks; b++) {
        const struct calc_block *B = &cfg->blocks[b];
        double y = 0, var = 0;
        bool known = B->nin > 0;
        for (uint32_t q = 0; q < B->nin && known; q++) {
            const struct calc_edge *e = &cfg->edges[B->in[q]];
            known = e->from != CALC_NONE && (e->kind == EDGE_TAKEN || e->kind == EDGE_FALL);
            if (!known)
                break;
            const struct calc_block *P = &cfg->blocks[e->from];
            double xp = x[P->cls];
            known = P->cls != B->cls && xp > 0 && (P->nout == 1 || P->nout == 2);
            if (!known)
                break;
            if (P->nout == 1) {
                y += xp;
                var += xp / len[P->cls];
                continue;
            }
            size_t j = at[P->first + P->n - 1];
            double kb = j == SIZE_MAX ? 0 : retired[j];
            known = kb >= POOL_FLOW_MIN;
            if (!known)
                break;
            double t = taken[j] / kb;
            if (e->kind == EDGE_FALL)
                t = 1 - t;
            y += xp * t;
            var += t * t * xp / len[P->cls] + xp * xp * t * (1 - t) / kb;
        }
        if (known && var > 0) {
            num[B->cls] += y / var;
            den[B->cls] += 1 / var;
        }
        /* and as often as its out-edges together, each to a block entered
         * only by it */
        y = var = 0;
        known = B->nout > 0;
        for (uint32_t q = 0; q < B->nout && known; q++) {
            const struct calc_edge *e = &cfg->edges[B->out[q]];
            known = e->to != CALC_EXIT && e->to != CALC_NONE && (e->kind == EDGE_TAKEN || e->kind == EDGE_FALL);
            if (!known)
                break;
            const struct calc_block *S = &cfg->blocks[e->to];
            known = S->nin == 1 && S->cls != B->cls && x[S->cls] > 0;
            y += x[S->cls];
            var += x[S->cls] / len[S->cls];
        }
        if (known && var > 0) {
            num[B->cls] += y / var;
            den[B->cls] += 1 / var;
        }
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t c = cfg->blocks[cfg->insns[(st[k].pc - cfg->start) / 4].block].cls;
        if (!(den[c] > 0) || !(x[c] > 0))
            continue;
        double vx = x[c] / len[c], f = (x[c] / vx + num[c]) / (1 / vx + den[c]) / x[c];
        for (unsigned q = 0; q < CAUSE_COUNT; q++)
            st[k].cause[q] *= f;
        st[k].executions *= f;
    }
    free(at);
    free(x);
    free(len);
    free(num);
    free(den);
}

/* Note 5 for every procedure of the view with symbols.  rec[i]: retired
 * records of v->insns[i] (sorted by image and offset, as the view keeps
 * them). */
static void pool_blocks(const struct pme_view *v, const double *rec, const double *retired, const double *taken,
                        struct pme_stack *out)
{
    struct model_params mp;
    model_params_default(&mp);          /* (the CFG does not depend on them) */
    for (size_t i = 0; i < v->ninsns;) {
        const struct pv_image *img = v->insns[i].img;
        const struct symbol *sym = img->st ? symtab_lookup(img->st, out[i].pc) : NULL;
        size_t j = i + 1;
        while (j < v->ninsns && v->insns[j].img == img && sym && symtab_lookup(img->st, out[j].pc) == sym)
            j++;
        uint64_t start = sym ? sym->start : 0, end = sym ? symtab_symbol_end(img->st, sym) : 0;
        size_t n = end > start ? (size_t)((end - start) / 4) : 0;
        if (!sym || !n || n > (1u << 20)) {
            i = j;
            continue;
        }
        uint32_t *words = xmalloc(n * sizeof *words);
        struct calc_proc cfg;
        const struct calc_image ci = {read_image, img->st, .local_entry = false};
        if (symtab_read(img->st, start, words, n * 4) && !calc_cfg_build_image(&cfg, &mp, start, words, n, &ci)) {
            calc_equivalence(&cfg);
            pme_stacks_pool(&cfg, out + i, rec + i, j - i);
            pme_stacks_pool_flow(&cfg, out + i, retired + i, taken + i, j - i);
            calc_proc_free(&cfg);
        }
        free(words);
        i = j;
    }
}

double pme_record_share(uint32_t events, uint32_t retire_gap, const struct pme_share *s)
{
    uint32_t n = PME_EVENTS_GROUP(events);
    return n ? 1.0 / n : retire_gap ? s->first : s->joined;
}

/* Which instructions serialise (barriers, PAL calls: point 5 of a record), from the image. */
static bool insn_serialises(const struct pme_insn *in)
{
    uint32_t word;
    struct insn_static is;
    uint64_t pc = pme_insn_pc(in);
    if (!in->img->st || !symtab_read(in->img->st, pc, &word, sizeof word))
        return false;
    insn_static_decode(&is, pc, word);
    return model_class_serialises(is.cls);
}

/* Note 12: time-sampled records, each standing for v->time_interval
 * cycles of its own instruction, split by its own estimated causes. */
static int estimate_time(const struct pme_view *v, const struct pme_stack_params *p, const int *bit, double wnorm,
                         struct pme_stack *out)
{
    double *shares = xmalloc(2 * (v->ninsns + 1) * sizeof *shares), *grouped = shares + v->ninsns + 1;
    for (size_t i = 0; i < v->ninsns; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].pc = pme_insn_pc(&v->insns[i]);
        out[i].in = &v->insns[i];
        shares[i] = grouped[i] = 0;
    }
    struct rec_at a;
    for (size_t pos = 0; next_rec(v, bit, wnorm, &pos, &a);) {
        size_t i = a.i;
        a.o.serialising = insn_serialises(&v->insns[i]);
        uint32_t n = PME_EVENTS_GROUP(a.r->events);
        double one[CAUSE_COUNT] = {0}, total = 0;
        /* (every retired time-sampled record says its group: pmu-window.h) */
        pme_record_stack(p, &a.o, n ? 1.0 / n : 1.0, one);
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            total += one[c];
        double stands = a.w * v->time_interval;
        if (total > 0) {
            for (unsigned c = 0; c < CAUSE_COUNT; c++)
                out[i].cause[c] += stands * one[c] / total;
        } else {
            out[i].cause[CAUSE_OTHER] += stands;        /* (owned time, no cause seen) */
        }
        out[i].records += a.w;
        if (a.o.retired) {
            if (total > 0)
                out[i].executions += stands / total;
            if (n) {
                shares[i] += a.w / n;
                grouped[i] += a.w;
            }
        }
    }
    for (size_t i = 0; i < v->ninsns; i++) {
        out[i].share = grouped[i] > 0 ? shares[i] / grouped[i] : 0;
        out[i].shares.first = out[i].shares.joined = out[i].shares.mean = out[i].share;
    }
    free(shares);
    return 0;
}

int pme_stacks_estimate(const struct pme_view *v, const struct pme_stack_params *p, struct pme_stack *out,
                        struct ap_err *err)
{
    if (!v->nraw)
        return ap_err_set(err, "the profile has no paired ProfileMe samples, which cycle stacks are estimated "
                          "from: record with --paired");
    if (!(v->pair_interval > 0) && !(v->time_interval > 0))
        return ap_err_set(err, "the profile does not say how many instructions were fetched per pair: give "
                          "--pair-interval S");
    int bit[B_COUNT];
    for (int b = 0; b < B_COUNT; b++)
        if ((bit[b] = pme_bit_index(v, bit_wanted[b])) < 0 || bit[b] >= 32)
            return ap_err_set(err, "the profile's ProfileMe records have no '%s' bit: record it again with "
                              "this build", bit_wanted[b]);
    /* each pair's weight (note 7): what it stands for, over the mean, so
     * that the weights only move cycles between pairs */
    double wsum = 0;
    for (size_t k = 0; k < v->nraw; k++)
        wsum += v->raw[k].weight;
    if (!(wsum > 0))
        return ap_err_set(err, "the profile's paired samples have no weights: the database is damaged");
    const double wnorm = (double)v->nraw / wsum;
    if (v->time_interval > 0)
        return estimate_time(v, p, bit, wnorm, out);
    /* pass 1: who retired in the cycle of the one before (note 3) */
    struct pme_seq_stats *seq = calloc(v->ninsns + 1, sizeof *seq);
    if (!seq)
        return ap_err_set(err, "out of memory");
    for (size_t i = 0; i < v->ninsns; i++)
        seq[i].target = SIZE_MAX;
    /* records that say their retire group (note 3): how many, sum of 1 / size */
    double *grouped = calloc(2 * (v->ninsns + 1), sizeof *grouped);
    if (!grouped) {
        free(seq);
        return ap_err_set(err, "out of memory");
    }
    double *group_share = grouped + v->ninsns + 1;
    struct rec_at a;
    for (size_t pos = 0; next_rec(v, bit, wnorm, &pos, &a);) {
        size_t i = a.i;
        if (!a.o.retired)
            continue;
        seq[i].retired += a.w;
        seq[i].zero_gap += a.w * (a.o.lat[PME_LAT_RETIRE_GAP] == 0);
        if (PME_EVENTS_GROUP(a.r->events)) {
            grouped[i] += a.w;
            group_share[i] += a.w / PME_EVENTS_GROUP(a.r->events);
        }
        if ((a.r->events >> bit[B_TAKEN]) & 1) {
            seq[i].taken += a.w;
            const struct pme_insn *t = successor(v, a.r, bit[B_TAKEN]);
            if (t)
                seq[i].target = (size_t)(t - v->insns);
        }
    }
    /* the usual predecessor: the fall-through or the most frequent taken branch to it */
    double *arrivals = calloc(v->ninsns + 1, sizeof *arrivals);
    if (!arrivals) {
        free(seq);
        free(grouped);
        return ap_err_set(err, "out of memory");
    }
    for (size_t i = 0; i < v->ninsns; i++) {
        const struct pme_insn *in = &v->insns[i];
        const struct pme_insn *pr = in->offset >= 4 ? pme_view_find(v, in->img, in->offset - 4) : NULL;
        const struct pme_insn *nx = pme_view_find(v, in->img, in->offset + 4);
        seq[i].prev = SIZE_MAX;
        seq[i].next = nx ? (size_t)(nx - v->insns) : SIZE_MAX;
        if (pr) {
            seq[i].prev = (size_t)(pr - v->insns);
            arrivals[i] = seq[seq[i].prev].retired - seq[seq[i].prev].taken;
        }
    }
    for (size_t i = 0; i < v->ninsns; i++) {
        size_t t = seq[i].target;
        if (t != SIZE_MAX && seq[i].taken > arrivals[t]) {
            seq[t].prev = i;
            arrivals[t] = seq[i].taken;
        }
    }
    free(arrivals);
    for (size_t i = 0; i < v->ninsns; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].pc = pme_insn_pc(&v->insns[i]);
        out[i].in = &v->insns[i];
        pme_share_estimates(seq, i, p->retire_width, &out[i].shares);
        if (seq[i].retired > 0 && fabs(grouped[i] - seq[i].retired) <= 1e-9 * seq[i].retired)
            out[i].shares.mean = group_share[i] / grouped[i];
        out[i].share = out[i].shares.mean;
    }
    size_t *prev = xmalloc((v->ninsns + 1) * sizeof *prev);     /* (note 10) */
    double *retired = xmalloc(2 * (v->ninsns + 1) * sizeof *retired), *taken = retired + v->ninsns + 1; /* (note 11) */
    for (size_t i = 0; i < v->ninsns; i++) {
        prev[i] = seq[i].prev;
        retired[i] = seq[i].retired;
        taken[i] = seq[i].taken;
    }
    free(seq);
    free(grouped);
    /* which instructions serialise (barriers, PAL calls: point 5 of a record), from the image */
    bool *serialising = calloc(v->ninsns + 1, sizeof *serialising);
    if (!serialising) {
        free(prev);
        free(retired);
        return ap_err_set(err, "out of memory");
    }
    for (size_t i = 0; i < v->ninsns; i++) {
        uint32_t word;
        struct insn_static is;
        const struct pv_image *img = v->insns[i].img;
        if (img->st && symtab_read(img->st, out[i].pc, &word, sizeof word)) {
            insn_static_decode(&is, out[i].pc, word);
            serialising[i] = model_class_serialises(is.cls);
        }
    }
    double *rec = calloc(3 * (v->ninsns + 1), sizeof *rec);
    if (!rec) {
        free(serialising);
        free(prev);
        free(retired);
        return ap_err_set(err, "out of memory");
    }
    double *late = rec + v->ninsns + 1, *flushed = late + v->ninsns + 1;     /* note 8 */
    /* pass 2: each record's cycles */
    for (size_t pos = 0; next_rec(v, bit, wnorm, &pos, &a);) {
        size_t i = a.i;
        a.o.serialising = serialising[i];
        double one[CAUSE_COUNT] = {0};
        pme_record_stack(p, &a.o, pme_record_share(a.r->events, a.o.lat[PME_LAT_RETIRE_GAP], &out[i].shares),
                         one);
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            out[i].cause[c] += a.w * one[c];
        out[i].records += a.w;
        rec[i] += a.w * a.o.retired;
        late[i] += a.w * pme_record_late_fetch(p, &a.o);
    }
    /* what each instruction's records stand for (note 6), before pooling
     * so that a class pools executions in one unit; the aggregates only
     * for pairs dropped that no weight stands for (note 9) */
    bool thinned = false;
    for (size_t k = 0; k < v->nraw && !thinned; k++)
        thinned = v->raw[k].weight > 1;
    bool by_aggregates = v->interval > 0 && v->pair_full > 0 && !thinned;
    for (size_t i = 0; i < v->ninsns; i++) {
        double stands = v->pair_interval / 2;
        if (by_aggregates && v->insns[i].samples > 0 && out[i].records > 0)
            stands = v->interval * (double)v->insns[i].samples / out[i].records;
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            out[i].cause[c] *= stands;
        rec[i] *= stands;
        out[i].executions = rec[i];
        late[i] *= stands;
        flushed[i] = stands;            /* (for pass 3: what i's records stand for) */
    }
    /* pass 3 (note 8): the short bubbles the mispredicted branches booked,
     * at the instructions they refetched, which saw the same cycles as a
     * late fetch of their own */
    double *bubble = calloc(v->ninsns + 1, sizeof *bubble);
    if (!bubble) {
        free(serialising);
        free(rec);
        free(prev);
        free(retired);
        return ap_err_set(err, "out of memory");
    }
    for (size_t pos = 0; next_rec(v, bit, wnorm, &pos, &a);) {
        double b = pme_record_short_bubble(p, &a.o);
        const struct pme_insn *next = b > 0 ? successor(v, a.r, bit[B_TAKEN]) : NULL;
        if (next)
            bubble[next - v->insns] += a.w * b * flushed[a.i];
    }
    for (size_t i = 0; i < v->ninsns; i++) {
        double twice = late[i] < bubble[i] ? late[i] : bubble[i];
        out[i].cause[CAUSE_BASE] -= twice;
    }
    free(bubble);
    free(serialising);
    double *before = late;              /* (reused: each one's executions before pooling) */
    for (size_t i = 0; i < v->ninsns; i++)
        before[i] = out[i].executions;
    pool_blocks(v, rec, retired, taken, out);
    for (size_t i = 0; i < v->ninsns; i++)       /* (each one's pooling factor) */
        before[i] = before[i] > 0 ? out[i].executions / before[i] : 1;
    pool_bubbles(v, p, bit, wnorm, flushed, before, prev, out);
    free(rec);
    free(prev);
    free(retired);
    return 0;
}

int pme_stacks_noise(const struct pme_view *v, const struct pme_stack_params *p, double *stack_noise,
                     double *time_noise, struct ap_err *err)
{
    struct pme_stack *half[2];
    struct pme_view h = *v;
    struct pme_pair_raw *sub = xmalloc((v->nraw / 2 + 1) * sizeof *sub);
    int rc = 0;
    for (int k = 0; k < 2; k++) {
        half[k] = xmalloc((v->ninsns ? v->ninsns : 1) * sizeof *half[k]);
        size_t m = 0;
        for (size_t j = (size_t)k; j < v->nraw; j += 2)
            sub[m++] = v->raw[j];
        h.raw = sub;
        h.nraw = m;
        h.pair_interval = m ? v->pair_interval * (double)v->nraw / (double)m : 0;
        h.time_interval = m ? v->time_interval * (double)v->nraw / (double)m : 0;
        /* each half from its own records only: the aggregates are shared
         * by both halves, and their differences are the noise (note 6) */
        h.interval = 0;
        if (!rc && pme_stacks_estimate(&h, p, half[k], err))
            rc = -1;
    }
    free(sub);
    *stack_noise = *time_noise = 0;
    if (!rc) {
        double t[2] = {0, 0};
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < v->ninsns; i++)
                t[k] += pme_stack_total(&half[k][i]);
        for (size_t i = 0; i < v->ninsns && t[0] > 0 && t[1] > 0; i++) {
            *time_noise += fabs(pme_stack_total(&half[0][i]) / t[0] - pme_stack_total(&half[1][i]) / t[1]);
            for (unsigned c = 0; c < CAUSE_COUNT; c++)
                *stack_noise += fabs(half[0][i].cause[c] - half[1][i].cause[c]);
        }
        /* |e1 - e2| is about twice the whole estimate's own noise (each
         * half has twice its variance); the stack's over the mean total */
        *time_noise /= 2 * 2;
        *stack_noise = t[0] + t[1] > 0 ? *stack_noise / (t[0] + t[1]) / 2 : 0;
    }
    free(half[0]);
    free(half[1]);
    return rc;
}

static int by_pc(const void *a, const void *b)
{
    const struct pme_stack *x = *(const struct pme_stack *const *)a, *y = *(const struct pme_stack *const *)b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* One instruction's differences: e (or NULL) against t (or NULL). */
static void add_diff(struct pme_stack_accuracy *a, const struct pme_stack *e, const struct oracle_pc *t)
{
    double es = 0, ts = 0;
    for (unsigned c = 0; c < CAUSE_COUNT; c++) {
        double ec = e ? e->cause[c] : 0, tc = t ? (double)t->stack[c] / CYCLE_UNIT : 0;
        a->stack_error += fabs(ec - tc);
        a->share_stack_error += fabs(ec / a->estimate_cycles - tc / a->true_cycles);
        es += ec;
        ts += tc;
    }
    a->time_error += fabs(es / a->estimate_cycles - ts / a->true_cycles);
}

int pme_stack_accuracy(const struct pme_stack *est, size_t n, const struct oracle *truth,
                       struct pme_stack_accuracy *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++) {
        double t = pme_stack_total(&est[i]);
        out->estimate_cycles += t;
        out->estimated += t > 0;
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            out->cause_estimate[c] += est[i].cause[c];
    }
    for (uint64_t i = 0; i < truth->h.npcs; i++) {
        uint64_t units = 0;
        for (unsigned c = 0; c < CAUSE_COUNT; c++) {
            units += truth->pcs[i].stack[c];
            out->cause_true[c] += (double)truth->pcs[i].stack[c] / CYCLE_UNIT;
        }
        out->true_cycles += (double)units / CYCLE_UNIT;
        out->true_pcs += units > 0;
    }
    if (!(out->estimate_cycles > 0) || !(out->true_cycles > 0))
        return -1;
    const struct pme_stack **sorted = xmalloc((n ? n : 1) * sizeof *sorted);
    for (size_t i = 0; i < n; i++)
        sorted[i] = &est[i];
    qsort(sorted, n, sizeof *sorted, by_pc);
    size_t i = 0, j = 0;
    while (i < n || j < truth->h.npcs) {       /* the truth's PCs are sorted */
        const struct oracle_pc *t = j < truth->h.npcs ? &truth->pcs[j] : NULL;
        const struct pme_stack *e = i < n ? sorted[i] : NULL;
        if (e && (!t || e->pc < t->pc)) {
            add_diff(out, e, NULL);
            i++;
        } else if (!e || t->pc < e->pc) {
            add_diff(out, NULL, t);
            j++;
        } else {
            add_diff(out, e, t);
            i++;
            j++;
        }
    }
    free(sorted);
    out->stack_error /= 2 * out->true_cycles;
    out->share_stack_error /= 2;
    out->time_error /= 2;
    return 0;
}

const char *pme_stack_procedure(const struct pme_stack *s)
{
    const struct symbol *sym = s->in->img->st ? symtab_lookup(s->in->img->st, s->pc) : NULL;
    return sym ? sym->name : "";
}

static int cmp_proc_stack(const void *a, const void *b)
{
    const struct pme_proc_stack *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return strcmp(x->name, y->name);
}

struct pme_proc_stack *pme_stacks_by_procedure(const struct pme_stack *st, size_t n, size_t *np)
{
    struct pme_proc_stack *ps = xmalloc((n ? n : 1) * sizeof *ps);
    *np = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = pme_stack_procedure(&st[i]);
        struct pme_proc_stack *p = NULL;
        for (size_t k = *np; k-- > 0 && !p;)       /* (an instruction's procedure is mostly the last one) */
            if (!strcmp(ps[k].name, name) && !strcmp(ps[k].image, st[i].in->img->name))
                p = &ps[k];
        if (!p) {
            p = &ps[(*np)++];
            memset(p, 0, sizeof *p);
            p->name = name;
            p->image = st[i].in->img->name;
        }
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            p->cause[c] += st[i].cause[c];
        p->total += pme_stack_total(&st[i]);
        p->retired += st[i].in->retired;
    }
    qsort(ps, *np, sizeof *ps, cmp_proc_stack);
    return ps;
}
