/*
 * calc's estimates (calc.h, steps 3-5 of DCPI's section 6.1 and 6.3):
 * frequencies per equivalence class, local propagation, confidence, then
 * per instruction its CPI, static and dynamic stalls and their culprits.
 *
 * Frequency of a class (samples per cycle; x the CYCLES period P gives
 * executions): its issue points (M_i > 0) each give S_i / M_i (the lowest,
 * up to a quarter of them, when far below the next one up, beyond sampling
 * noise, or up to half when next to nothing, are no issue points in
 * practice and are left out: stalls only add samples); an issue
 * point that waits statically for a producer j in its block uses the sums
 * over j+1..i instead (a dynamic stall between them shortens its own
 * wait).  Sorted ascending, the cluster with the most points (the
 * smallest ratios on a tie) gives F = sum S / sum M over it; a cluster
 * is grown from a point upward while each new point and the first stay
 * within Poisson noise (2.5 sigma, and 5 % for the schedule's rounding)
 * of the cluster's pooled rate.  DCPI takes the smallest ratios within
 * 1.5x of each other; that let a point stalled half a cycle in three
 * into the copy loop's cluster (16 % too many executions), and a fixed
 * spread cannot tell noise from stall on a few hundred samples.  The
 * most points, not the smallest ratios: an instruction the static
 * schedule thinks alone often pairs in practice (its ratio falls to near
 * zero), while the instructions that truly run unstalled agree with each
 * other.  A class with few samples a point (fewer than
 * CALC_FEW_SAMPLES_PER_POINT) pools sum S / sum M over its points, less
 * those a Poisson test puts far out of their share (sparse_rate).  An instruction whose M_i depends on
 * how its block was entered (m != m_alt) is no issue point when the class
 * has two sure ones; a class's estimate is floored by the executions its
 * instructions' once-per-execution events tell (event_floor).  The
 * trusted classes (three issue points or more in the cluster, medium
 * confidence or better) are reconciled with the flow constraints by
 * weighted least squares before propagation (calc-reconcile.c; each
 * estimate's variance F^2 / its samples, or event_floor's): two trusted
 * classes flow says are equal, or one at most the other, no longer
 * disagree, and each moves by its share of the variance (qsort's swap
 * block: its two stores stalled a fifth of the time made it 18 % more
 * than the branch before it, which flow caps).  Only trusted classes: a
 * class on one or two issue points may have stalled at all of them, and
 * Poisson's variance does not say so; fitted with the trusted held, they
 * dragged compress's loop 7 % off (tried).  Classes
 * left to their own estimates after propagation are set one at a time,
 * the best told first, each followed by propagation, and each capped by
 * what the flow of the classes already known leaves it (flow_cap: an
 * estimate above that rests on stalled points).  A point is left out of
 * the low end only beyond the noise of its count's difference from the
 * next one up (both are Poisson counts).
 *
 * Invariants: classes with an estimate have freq >= 0; propagation never
 * sets a negative frequency, nor does reconciliation; every instruction's stack is >= 0 in every
 * slot.
 */
#include "util/calc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"

#define CALC_FEW_SAMPLES_PER_POINT 4.0  /* below: sum S / sum M over the class */
#define CALC_CLUSTER_SLACK 1.05         /* a point 5 % above the cluster's rate still fits ... */
#define CALC_NOISE_Z 2.5                /* ... and so does sampling noise up to 2.5 sigma */
#define CALC_MIN_DIR_SAMPLES 10         /* edge samples a branch needs to split its block */
#define CALC_SPARSE_ALPHA 0.001         /* sparse_rate: a point this far out in a tail is left out */
#define CALC_SPARSE_ROUNDS 32           /* ... re-pooled at most this often (it settles in a few) */
#define CALC_SPARSE_LINE_Z 5.0         /* ... after the I-cache lines' first points, when they are */
#define CALC_SPARSE_LINE_X 1.5          /* this far beyond the others' rate and this many times it */
#define CALC_SPARSE_MIN_POINTS 16       /* ... in a class of this many points or more (in fewer, a count
                                         * far out is as likely the schedule's M as a stall) */

struct point {
    double s, m, ratio;
    uint32_t insn;
};

static int by_ratio(const void *a, const void *b)
{
    const struct point *x = a, *y = b;
    if (x->ratio != y->ratio)
        return x->ratio < y->ratio ? -1 : 1;
    return x->insn < y->insn ? -1 : x->insn > y->insn;
}

/* Does sample count s over m cycles fit a cluster of rate r (samples per
 * cycle): within Poisson noise (CALC_NOISE_Z standard deviations) of r m,
 * with a small slack for the schedule's rounding, either way? */
static bool in_cluster(double r, double s, double m)
{
    double want = r * m, noise = CALC_NOISE_Z * sqrt(want) + 1;
    return s <= CALC_CLUSTER_SLACK * want + noise && s >= want / CALC_CLUSTER_SLACK - noise;
}

/* P(X >= k) and P(X <= k) for X Poisson with mean mu, summed in logs
 * (mu is a few hundred at most here; k any count). */
static void poisson_tails(double k, double mu, double *ge, double *le)
{
    if (mu <= 0) {
        *ge = k <= 0 ? 1 : 0;
        *le = 1;
        return;
    }
    double below = 0;   /* P(X < k) */
    for (double i = 0; i < k; i++)
        below += exp(-mu + i * log(mu) - lgamma(i + 1));
    double at = exp(-mu + k * log(mu) - lgamma(k + 1));
    *ge = below >= 1 ? 0 : 1 - below;
    *le = below + at > 1 ? 1 : below + at;
}

/*
 * The rate of a class with a few samples a point (a long straight run,
 * each point seen a few times or never).  Pooling every point would count
 * the stalls in: in a flat run that misses the I-cache at every line, the
 * line's first instruction holds the miss (some 30 cycles) and the others
 * a cycle or less, and the pooled rate was 1.8 times the executions
 * (workload sprawl).  Stalls only add samples, so:
 *  - the points that start an I-cache line, pooled, against the rest
 *    pooled: if theirs is beyond Poisson noise (CALC_SPARSE_LINE_Z) and
 *    CALC_SPARSE_LINE_X times the rest's, they are left out.  Pooled,
 *    because at a sample or two a point no single one stands out;
 *  - then the points a Poisson test at CALC_SPARSE_ALPHA puts beyond
 *    their share of the pooled rate, either way, are left out and the
 *    rate pooled again, until the points kept stay the same.
 * Only in a class of CALC_SPARSE_MIN_POINTS or more: with a few points
 * and a few samples, one far out is as likely a schedule that thought
 * two instructions apart that pair in practice.
 * Sets *used_s and *used to the samples and points kept.
 */
static double sparse_rate(const struct calc_proc *p, const struct point *pts, size_t n, double all_s, double all_m,
                          double *used_s, uint32_t *used)
{
    *used_s = all_s;
    *used = (uint32_t)n;
    if (n < CALC_SPARSE_MIN_POINTS || all_m <= 0)
        return all_m > 0 ? all_s / all_m : 0;
    bool *out = calc_zalloc(n, sizeof *out);
    unsigned line = p->params.line ? p->params.line : 32;
    double ls = 0, lm = 0;
    for (size_t i = 0; i < n; i++)
        if (p->insns[pts[i].insn].pc % line == 0) {
            ls += pts[i].s;
            lm += pts[i].m;
        }
    if (lm > 0 && all_m - lm > 0) {
        double rest = (all_s - ls) / (all_m - lm), want = rest * lm;
        if (ls > CALC_SPARSE_LINE_X * want && ls > want + CALC_SPARSE_LINE_Z * sqrt(want + 1))
            for (size_t i = 0; i < n; i++)
                out[i] = p->insns[pts[i].insn].pc % line == 0;
    }
    double r = 0, kept_s = 0;
    uint32_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (!out[i]) {
            kept_s += pts[i].s;
            r += pts[i].m;
            kept++;
        }
    r = r > 0 ? kept_s / r : all_s / all_m;
    bool *keep = calc_zalloc(n, sizeof *keep);
    for (int round = 0; round < CALC_SPARSE_ROUNDS && r > 0; round++) {
        double s = 0, m = 0;
        uint32_t k = 0;
        bool changed = false;
        for (size_t i = 0; i < n; i++) {
            double ge, le;
            poisson_tails(pts[i].s, r * pts[i].m, &ge, &le);
            bool in = !out[i] && ge >= CALC_SPARSE_ALPHA && le >= CALC_SPARSE_ALPHA;
            changed |= round == 0 || in != keep[i];
            keep[i] = in;
            if (in) {
                s += pts[i].s;
                m += pts[i].m;
                k++;
            }
        }
        if (!k || m <= 0)
            break;
        r = s / m;
        *used_s = s;
        *used = k;
        if (!changed)
            break;
    }
    free(keep);
    free(out);
    return r;
}

/* Sets class c's frequency from its points; returns the samples it rests on. */
static double estimate_class(struct calc_proc *p, uint32_t c, struct point *pts, size_t n)
{
    struct calc_class *k = &p->classes[c];
    k->points = (uint32_t)n;
    if (!n)
        return 0;
    double all_s = 0, all_m = 0;
    for (size_t i = 0; i < n; i++) {
        all_s += pts[i].s;
        all_m += pts[i].m;
    }
    if (all_s < CALC_FEW_SAMPLES_PER_POINT * (double)n) {
        double used_s = all_s;
        k->freq = sparse_rate(p, pts, n, all_s, all_m, &used_s, &k->used);
        k->confidence = used_s >= 100 && 2 * k->used >= n ? CONF_MEDIUM : CONF_LOW;
        return used_s;
    }
    qsort(pts, n, sizeof *pts, by_ratio);
    /* A dynamic stall only adds samples: a point far below the median
     * ratio (beyond Poisson noise) is no issue point in practice (it
     * paired with the instruction before the block, say): left out.
     * The noise is the difference's, of two counts: the next point up is
     * as noisy as this one (copy's first loop, at 135 samples a point:
     * 112, 155, 155 dropped the 112 by the 155's noise alone and took a
     * stalled store into the cluster, 44 % too many executions). */
    size_t low = 0;
    while (low + 1 < n && 2 * (low + 1) <= n) {
        double want = pts[low + 1].ratio * pts[low].m;     /* at the next ratio up */
        double var = pts[low].s + want * (pts[low + 1].m > 0 ? pts[low].m / pts[low + 1].m : 1);
        if (pts[low].s + 3 * sqrt(var) + 3 >= want)
            break;
        if (4 * (low + 1) > n && pts[low].s > 0.1 * want)
            break;      /* beyond a quarter, only points next to nothing */
        low++;
    }
    pts += low;
    n -= low;
    size_t first = 0, end = n, best = 0;
    double cs = 0, cm = 0;
    for (size_t st = 0; st < n; st++) {
        /* grown from st while the next point fits the cluster's rate */
        double gs = pts[st].s, gm = pts[st].m;
        size_t e = st + 1;
        /* (sorted by ratio: the first and the newest are the extremes) */
        while (e < n && in_cluster((gs + pts[e].s) / (gm + pts[e].m), pts[e].s, pts[e].m) &&
               in_cluster((gs + pts[e].s) / (gm + pts[e].m), pts[st].s, pts[st].m)) {
            gs += pts[e].s;
            gm += pts[e].m;
            e++;
        }
        if (e - st > best) {
            best = e - st;
            first = st;
            end = e;
            cs = gs;
            cm = gm;
        }
    }
    k->freq = cm > 0 ? cs / cm : 0;
    k->used = (uint32_t)(end - first);
    k->confidence = k->used >= 3 && 2 * k->used >= n && cs >= 100 ? CONF_HIGH
                  : k->used >= 2 || cs >= 30 ? CONF_MEDIUM : CONF_LOW;
    return cs;
}

/* Events that happen at most once per execution of their instruction (a
 * load's or store's D-cache, L2 and DTB miss, a branch's mispredict; not
 * the I-side ones, which bad-path fetches also take). */
static const enum calc_event once_per_execution[] = {CALC_EV_DMISS, CALC_EV_L2MISS, CALC_EV_DTBMISS,
                                                     CALC_EV_BRANCHMP};

/*
 * A class runs at least as often as any of its instructions took such an
 * event: estimated executions E = n P_e from n samples, with sd sqrt(n)
 * P_e.  When the cycles' estimate F (sd F / sqrt(its samples)) falls
 * below E, the likeliest frequency under F >= E is their inverse-variance
 * mean (the pointer chase: every load misses, and its thousands of D-cache
 * miss samples tell the executions better than a few hundred cycle
 * samples on the loop's unstalled instructions).  Returns the estimate's
 * variance (F^2 / samples, or the mean's), INFINITY when there is none.
 */
static double event_floor(struct calc_proc *p, uint32_t c, const uint32_t *blocks, uint32_t nb, double cs,
                          const struct calc_rates *r)
{
    struct calc_class *k = &p->classes[c];
    double period = r->period[CALC_EV_CYCLES];
    if (k->freq < 0 || cs <= 0 || period <= 0)
        return INFINITY;
    double best = 0, best_var = 0;
    for (uint32_t q = 0; q < nb; q++) {
        const struct calc_block *blk = &p->blocks[blocks[q]];
        for (uint32_t i = blk->first; i < blk->first + blk->n; i++)
            for (size_t e = 0; e < sizeof once_per_execution / sizeof once_per_execution[0]; e++) {
                enum calc_event ev = once_per_execution[e];
                double n = p->insns[i].samples[ev], pe = r->period[ev];
                if (pe <= 0 || n <= 0 || n * pe / period <= best)
                    continue;
                best = n * pe / period;         /* (in the class's units: per cycles period) */
                best_var = n * (pe / period) * (pe / period);
            }
    }
    double var_f = k->freq * k->freq / cs;
    if (best <= k->freq)
        return var_f;
    k->freq = var_f > 0 ? (k->freq / var_f + best / best_var) / (1 / var_f + 1 / best_var) : best;
    return var_f > 0 ? 1 / (1 / var_f + 1 / best_var) : best_var;
}

static double class_freq(const struct calc_proc *p, uint32_t c)
{
    return p->classes[c].freq;
}

static void set_class(struct calc_proc *p, uint32_t c, double f, bool *changed)
{
    if (p->classes[c].freq >= 0)
        return;
    p->classes[c].freq = f > 0 ? f : 0;
    p->classes[c].confidence = CONF_LOW;
    p->classes[c].propagated = true;
    p->classes[c].by = BY_PROPAGATION;
    *changed = true;
}

/* Edge samples (DCPI section 7): a conditional branch whose block's
 * frequency is known splits it between its two ways by the sampled
 * share taken, for the ways flow has not told. */
static void propagate_branch(struct calc_proc *p, uint32_t b, bool *changed)
{
    const struct calc_block *blk = &p->blocks[b];
    const struct calc_insn *br = &p->insns[blk->first + blk->n - 1];
    double bf = class_freq(p, blk->cls);
    if (br->s.cls != ALPHA_BRANCH_COND || br->dir_samples < CALC_MIN_DIR_SAMPLES || bf < 0 || blk->nout != 2 ||
        p->edges[blk->out[0]].to == p->edges[blk->out[1]].to)
        return;
    double taken = br->dir_taken / br->dir_samples;
    for (uint32_t k = 0; k < 2; k++) {
        const struct calc_edge *e = &p->edges[blk->out[k]];
        struct calc_class *c = &p->classes[e->cls];
        if (c->freq >= 0)
            continue;
        c->freq = bf * (k == 1 ? taken : 1 - taken);  /* (the fall-through way is out[0]: calc-cfg.c) */
        c->confidence = br->dir_samples >= 100 ? CONF_MEDIUM : CONF_LOW;
        c->propagated = true;
        c->by = BY_BRANCH;
        *changed = true;
    }
}

/* One side of a block's flow constraint: the block's frequency equals the
 * sum over its edges on that side. */
static void propagate_side(struct calc_proc *p, uint32_t b, const uint32_t *edges, uint32_t ne, bool *changed)
{
    if (!ne)
        return;
    double known = 0;
    uint32_t unknown = 0, which = 0;
    for (uint32_t k = 0; k < ne; k++) {
        double f = class_freq(p, p->edges[edges[k]].cls);
        if (f < 0) {
            unknown++;
            which = edges[k];
        } else {
            known += f;
        }
    }
    double bf = class_freq(p, p->blocks[b].cls);
    if (bf < 0 && !unknown) {
        set_class(p, p->blocks[b].cls, known, changed);
    } else if (bf >= 0 && unknown == 1) {
        set_class(p, p->edges[which].cls, bf - known, changed);
    } else if (bf >= 0 && unknown > 1 && bf - known <= 0) {
        /* nothing left for them, and none runs a negative number of
         * times: all 0 (a loop's exits into a block of no samples) */
        for (uint32_t k = 0; k < ne; k++)
            if (class_freq(p, p->edges[edges[k]].cls) < 0)
                set_class(p, p->edges[edges[k]].cls, 0, changed);
    }
}

static void propagate(struct calc_proc *p)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t b = 0; b < p->nblocks; b++) {
            if (!p->blocks[b].reached)
                continue;
            propagate_side(p, b, p->blocks[b].in, p->blocks[b].nin, &changed);
            propagate_side(p, b, p->blocks[b].out, p->blocks[b].nout, &changed);
        }
        /* flow first (it is exact where the samples are); then edge samples */
        if (!changed)
            for (uint32_t b = 0; b < p->nblocks; b++)
                if (p->blocks[b].reached)
                    propagate_branch(p, b, &changed);
    }
}

/* The most class c can run by the flow of the classes already known: an
 * edge of c runs at most as often as its source block less that block's
 * other known ways out, and as its target less its other known ways in;
 * INFINITY when no side is known.  An estimate of c's own above it rests
 * on stalled points (stalls only add samples): matmul's two-instruction
 * block under a loop's exit test, its one issue point waiting on a load,
 * took 4.4 times the executions of the only block that leads to it. */
static double flow_cap(const struct calc_proc *p, uint32_t c)
{
    double cap = INFINITY;
    for (size_t e = 0; e < p->nedges; e++) {
        const struct calc_edge *ed = &p->edges[e];
        if (ed->cls != c)
            continue;
        for (int in = 0; in < 2; in++) {
            uint32_t b = in ? ed->to : ed->from;
            if (b >= p->nblocks || p->blocks[b].cls == c || class_freq(p, p->blocks[b].cls) < 0)
                continue;
            const struct calc_block *blk = &p->blocks[b];
            const uint32_t *side = in ? blk->in : blk->out;
            uint32_t ne = in ? blk->nin : blk->nout, mine = 0;
            double rest = class_freq(p, blk->cls);
            for (uint32_t k = 0; k < ne; k++) {
                uint32_t ck = p->edges[side[k]].cls;
                if (ck == c)
                    mine++;
                else if (class_freq(p, ck) >= 0)
                    rest -= class_freq(p, ck);
            }
            if (mine)
                cap = fmin(cap, fmax(rest, 0) / mine);
        }
    }
    return cap;
}

/* Class c takes its own estimate, capped by flow_cap. */
static void keep_own(struct calc_proc *p, uint32_t c, double own)
{
    p->classes[c].freq = fmin(own, flow_cap(p, c));
    p->classes[c].propagated = false;
    p->classes[c].confidence = CONF_LOW;
    p->classes[c].by = BY_SAMPLES;
}

/*
 * The trusted classes (those with an estimate of their own at this
 * point) reconciled with the flow constraints by weighted least squares,
 * each with the variance of the samples its estimate rests on; the
 * classes without one are free, none negative (calc-reconcile.c).
 */
static void reconcile(struct calc_proc *p, const double *var)
{
    if (p->missing_edges)       /* (a jmp's targets' in-edges are missing: no flow to keep) */
        return;
    double *y = calc_zalloc(p->nclasses + 1, sizeof *y), *x = calc_zalloc(p->nclasses + 1, sizeof *x);
    bool any = false;
    for (uint32_t c = 0; c < p->nclasses; c++) {
        const struct calc_class *k = &p->classes[c];
        y[c] = k->freq >= 0 && isfinite(var[c]) && var[c] > 0 ? k->freq : -1;
        any |= y[c] >= 0;
    }
    if (any && calc_reconcile(p, y, var, x))
        for (uint32_t c = 0; c < p->nclasses; c++)
            if (y[c] >= 0)
                p->classes[c].freq = x[c];
    free(x);
    free(y);
}

static void frequencies(struct calc_proc *p, const struct calc_rates *r)
{
    double period = r->period[CALC_EV_CYCLES];
    struct point *pts = calc_zalloc(p->n + 1, sizeof *pts);
    /* points by class: blocks are in address order, classes collect them */
    uint32_t *order = calc_zalloc(p->nblocks + 1, sizeof *order);
    uint32_t *count = calc_zalloc(p->nclasses + 1, sizeof *count);
    for (uint32_t b = 0; b < p->nblocks; b++)
        count[p->blocks[b].cls + 1]++;
    for (size_t c = 0; c < p->nclasses; c++)
        count[c + 1] += count[c];
    uint32_t *fill = calc_zalloc(p->nclasses + 1, sizeof *fill);
    double *var = calc_zalloc(p->nclasses + 1, sizeof *var);
    for (uint32_t b = 0; b < p->nblocks; b++) {
        uint32_t c = p->blocks[b].cls;
        order[count[c] + fill[c]++] = b;
    }
    for (uint32_t c = 0; c < p->nclasses; c++) {
        /* An instruction whose M_i depends on how its block was entered
         * (m_alt: after a taken branch, a mispredict, or falling through)
         * may have paired (0 cycles) or not: no issue point when the class
         * has two others or more whose M_i is sure. */
        size_t n = 0, sure = 0, points = 0;
        for (uint32_t k = count[c]; k < count[c + 1]; k++) {
            const struct calc_block *blk = &p->blocks[order[k]];
            for (uint32_t i = blk->first; i < blk->first + blk->n; i++) {
                points += p->insns[i].m > 0;
                sure += p->insns[i].m > 0 && p->insns[i].m == p->insns[i].m_alt;
            }
        }
        bool only_sure = sure >= 2 && sure < points;
        for (uint32_t k = count[c]; k < count[c + 1]; k++) {
            const struct calc_block *blk = &p->blocks[order[k]];
            for (uint32_t i = blk->first; i < blk->first + blk->n; i++) {
                const struct calc_insn *in = &p->insns[i];
                if (!in->m || (only_sure && in->m != in->m_alt))
                    continue;
                double s = in->samples[CALC_EV_CYCLES], m = in->m;
                uint32_t j = in->static_culprit;
                if (in->static_cause == CAUSE_DEPENDENCY && j != CALC_NONE && j >= blk->first && j < i) {
                    s = m = 0;
                    for (uint32_t q = j + 1; q <= i; q++) {
                        s += p->insns[q].samples[CALC_EV_CYCLES];
                        m += p->insns[q].m;
                    }
                }
                pts[n++] = (struct point){s, m, m > 0 ? s / m : 0, i};
            }
        }
        double cs = estimate_class(p, c, pts, n);
        var[c] = event_floor(p, c, &order[count[c]], count[c + 1] - count[c], cs, r);
    }
    /* Thinly sampled classes, and those resting on one or two issue points
     * (all of which may have stalled: a block of one instruction after a
     * mispredicted branch takes the whole bubble), are better told by their
     * neighbours' flow: they wait for propagation, and keep their own
     * estimate if none comes. */
    double *own = calc_zalloc(p->nclasses + 1, sizeof *own);
    uint8_t *own_conf = calc_zalloc(p->nclasses + 1, sizeof *own_conf);
    for (uint32_t c = 0; c < p->nclasses; c++) {
        own[c] = p->classes[c].freq;
        own_conf[c] = p->classes[c].confidence;
        p->classes[c].by = own[c] >= 0 ? BY_SAMPLES : BY_NONE;
        if (p->classes[c].points && (p->classes[c].confidence == CONF_LOW || p->classes[c].used < 3))
            p->classes[c].freq = -1;
    }
    /* The trusted estimates agree with each other's flow before
     * propagation goes on from them: reconciled by weighted least
     * squares, the others free (note 2 of calc-reconcile.c) */
    reconcile(p, var);
    propagate(p);
    /* Those that got none keep their own, and flow goes on from them,
     * the better sampled first (a branch's edge samples beat a class of
     * no samples): a loop's entry with next to no samples still tells its
     * back edge (the loop's frequency less the entry's). */
    /* One at a time, the best told first (two issue points or more
     * before one: a lone point's stall goes unseen; then the most samples
     * in the cluster), each followed by propagation, so that a poor
     * estimate never overrides what flow gets from a better one. */
    for (;;) {
        uint32_t best = CALC_NONE;
        for (uint32_t c = 0; c < p->nclasses; c++) {
            const struct calc_class *k = &p->classes[c];
            if (k->freq >= 0 || own[c] < 0 || own_conf[c] <= CONF_LOW)
                continue;
            if (best == CALC_NONE || (k->used >= 2) > (p->classes[best].used >= 2) ||
                ((k->used >= 2) == (p->classes[best].used >= 2) && own[c] * k->used > own[best] * p->classes[best].used))
                best = c;
        }
        if (best == CALC_NONE)
            break;
        keep_own(p, best, own[best]);
        propagate(p);
    }
    for (uint32_t c = 0; c < p->nclasses; c++)
        if (p->classes[c].freq < 0 && own[c] >= 0)
            keep_own(p, c, own[c]);
    propagate(p);
    for (uint32_t c = 0; c < p->nclasses; c++)
        if (p->classes[c].freq < 0) {
            p->classes[c].freq = 0;
            p->classes[c].propagated = false;
            p->classes[c].confidence = CONF_LOW;
            p->classes[c].by = BY_NONE;
        }
    free(own_conf);
    for (size_t e = 0; e < p->nedges; e++)
        p->edges[e].freq = p->classes[p->edges[e].cls].freq * period;
    for (size_t i = 0; i < p->n; i++)
        p->insns[i].freq = p->classes[p->blocks[p->insns[i].block].cls].freq * period;
    free(own);
    free(var);
    free(fill);
    free(count);
    free(order);
    free(pts);
}

/* Candidates for one instruction's dynamic stall. */
struct candidate {
    unsigned cause;
    double bound;               /* cycles; INFINITY: no samples to bound it */
    double cap;                 /* without samples, at most this (analysis), else INFINITY */
    uint32_t culprit;
};

struct candidates {
    struct candidate c[8];
    unsigned n;
};

static void add_candidate(struct candidates *cs, unsigned cause, double bound, uint32_t culprit)
{
    for (unsigned k = 0; k < cs->n; k++)
        if (cs->c[k].cause == cause) {
            if (isinf(bound) || isinf(cs->c[k].bound))
                cs->c[k].bound = INFINITY;
            else
                cs->c[k].bound += bound;
            cs->c[k].cap = INFINITY;
            return;
        }
    if (cs->n < 8)
        cs->c[cs->n++] = (struct candidate){cause, bound, INFINITY, culprit};
}

/* A candidate with no samples to bound it, but at most cap cycles. */
static void add_capped(struct candidates *cs, unsigned cause, double cap, uint32_t culprit)
{
    for (unsigned k = 0; k < cs->n; k++)
        if (cs->c[k].cause == cause) {
            if (isinf(cs->c[k].bound))
                cs->c[k].cap += cap;
            return;
        }
    if (cs->n < 8)
        cs->c[cs->n++] = (struct candidate){cause, INFINITY, cap, culprit};
}

/* Events (executions) behind an event's samples at instruction i. */
static double events_at(const struct calc_proc *p, const struct calc_rates *r, uint32_t i, enum calc_event e)
{
    return p->insns[i].samples[e] * r->period[e];
}

static bool is_load(unsigned cls)
{
    return cls == ALPHA_LOAD || cls == ALPHA_LOAD_LOCKED;
}

/* The last writer of register reg before instruction i of its block, or
 * CALC_NONE if the block does not write it before i. */
static uint32_t writer_in_block(const struct calc_proc *p, uint32_t i, unsigned reg)
{
    uint32_t first = p->blocks[p->insns[i].block].first;
    for (uint32_t k = i; k-- > first;)
        if (p->insns[k].s.dst == reg)
            return k;
    return CALC_NONE;
}

/* writer_in_block for "after the block's last instruction". */
static uint32_t last_writer(const struct calc_proc *p, uint32_t b, unsigned reg)
{
    const struct calc_block *blk = &p->blocks[b];
    for (uint32_t k = blk->first + blk->n; k-- > blk->first;)
        if (p->insns[k].s.dst == reg)
            return k;
    return CALC_NONE;
}

/*
 * How many times the load at j can find its address on a page it did not
 * use last time, from how its base register changes in the procedure
 * (DCPI's "ruled out" by analysis, as for the I-cache): an increment
 * lda/ldah rb, d(rb) moves it |d| bytes a time, so across at most
 * F |d| / page pages; any other write to it may move it anywhere, once
 * per execution; and once per call of the procedure.  INFINITY when the
 * register is the stack pointer's or the load's own result (a pointer
 * chase).  (A page evicted from the DTB by others between two uses is
 * not counted: rare with 64 entries and a few streams.)
 */
static double page_changes(const struct calc_proc *p, uint32_t j)
{
    const double page = 8192;
    unsigned rb = p->insns[j].s.src[0];
    if (rb == REG_NONE)
        return calc_entry_freq(p);
    if (rb == 30 || p->insns[j].s.dst == rb)
        return INFINITY;
    double changes = calc_entry_freq(p) + 1;
    for (size_t k = 0; k < p->n; k++) {
        const struct calc_insn *w = &p->insns[k];
        if (w->s.dst != rb)
            continue;
        unsigned op = alpha_opcode(w->s.word);
        if ((op == 0x08 || op == 0x09) && alpha_rb(w->s.word) == rb) {
            double d = fabs((double)alpha_disp16(w->s.word) * (op == 0x09 ? 65536 : 1));
            changes += w->freq * (d >= page ? 1 : d / page);
        } else {
            changes += w->freq;
        }
    }
    return changes;
}

/* What one mispredict adds at the right path's first instruction i
 * (issue-rules.h, MODEL_REFILL_CYCLES): the empty window, then its own map
 * and issue cycles; and its retire cycle if the schedule had it pair with
 * the branch (M_i = 0). */
static double mispredict_cost(const struct model_params *mp, const struct calc_insn *in)
{
    return mp->mispredict_penalty + MODEL_REFILL_CYCLES + (in->m == 0);
}

static void find_candidates(const struct calc_proc *p, const struct calc_rates *r, uint32_t i,
                            struct candidates *cs, uint32_t *branch_culprit)
{
    const struct model_params *mp = &p->params;
    const struct calc_insn *in = &p->insns[i];
    const struct calc_block *b = &p->blocks[in->block];
    bool head = b->first == i;
    memset(cs, 0, sizeof *cs);
    *branch_culprit = CALC_NONE;

    /* I-cache and ITB: a new line (or page) may miss; a block head may
     * come from another line, after a call, or from the caller. */
    bool new_line = (in->pc & 63) == 0, new_page = (in->pc & 8191) == 0;
    if (head) {
        if (!b->nin || i == 0)
            new_line = new_page = true;
        for (uint32_t k = 0; k < b->nin; k++) {
            const struct calc_edge *e = &p->edges[b->in[k]];
            if (e->from == CALC_NONE || e->kind == EDGE_CALL_RETURN) {
                new_line = new_page = true;
                continue;
            }
            const struct calc_block *pb = &p->blocks[e->from];
            uint64_t tail = p->insns[pb->first + pb->n - 1].pc;
            new_line |= tail >> 6 != in->pc >> 6;
            new_page |= tail >> 13 != in->pc >> 13;
        }
    }
    if (new_line)
        add_candidate(cs, CAUSE_ICACHE, r->period[CALC_EV_IMISS] > 0
                      ? events_at(p, r, i, CALC_EV_IMISS) * (mp->memory_latency + mp->tlb_miss_latency)
                      : INFINITY, CALC_NONE);
    if (new_page)
        add_candidate(cs, CAUSE_ITB, r->period[CALC_EV_ITBMISS] > 0
                      ? events_at(p, r, i, CALC_EV_ITBMISS) * mp->tlb_miss_latency : INFINITY, CALC_NONE);

    /* D-cache and DTB: an operand a load produces (in the block or the
     * blocks before); a multi-cycle producer in a block before. */
    for (int k = 0; k < 2; k++) {
        unsigned reg = in->s.src[k];
        if (reg == REG_NONE || (k == 1 && reg == in->s.src[0]))
            continue;       /* (addq r1,r1: one operand, one culprit) */
        uint32_t prod[8];
        unsigned np = 0;
        bool unknown = false;
        uint32_t w = writer_in_block(p, i, reg);
        if (w != CALC_NONE) {
            prod[np++] = w;
        } else {
            if (!b->nin)
                unknown = true;
            for (uint32_t q = 0; q < b->nin; q++) {
                const struct calc_edge *e = &p->edges[b->in[q]];
                uint32_t pw = e->from == CALC_NONE || e->kind == EDGE_CALL_RETURN ? CALC_NONE
                                                                                   : last_writer(p, e->from, reg);
                if (pw == CALC_NONE)
                    unknown = true;
                else if (np < 8)
                    prod[np++] = pw;
            }
        }
        for (unsigned q = 0; q < np; q++) {
            const struct calc_insn *pi = &p->insns[prod[q]];
            if (is_load(pi->s.cls)) {
                double dm = events_at(p, r, prod[q], CALC_EV_DMISS), l2 = events_at(p, r, prod[q], CALC_EV_L2MISS);
                /* pessimistic: a miss to memory also missed the DTB (the
                 * model books that wait as the miss's) */
                double extra = mp->l1_latency + mp->tlb_miss_latency;
                if (r->period[CALC_EV_DMISS] <= 0) {
                    add_candidate(cs, CAUSE_DCACHE_MEM, INFINITY, prod[q]);
                } else {
                    double mem = r->period[CALC_EV_L2MISS] > 0 ? l2 : dm;
                    double b_mem = mem * (mp->memory_latency + extra);
                    double b_l2 = r->period[CALC_EV_L2MISS] > 0 ? (dm > l2 ? dm - l2 : 0) * mp->l2_latency : 0;
                    /* A miss's latency overlaps what the block did between
                     * the load and i: the schedule's cycles on every miss,
                     * and the stalls of the instructions in between (the
                     * copy loop's second store waits little for a line
                     * the first store already waited for) */
                    if (prod[q] < i && pi->block == in->block && b_mem + b_l2 > 0) {
                        double overlap = 0;
                        for (uint32_t k = prod[q] + 1; k < i; k++)
                            overlap += p->insns[k].dynamic + dm * p->insns[k].m;
                        double keep = b_mem + b_l2 > overlap ? (b_mem + b_l2 - overlap) / (b_mem + b_l2) : 0;
                        b_mem *= keep;
                        b_l2 *= keep;
                    }
                    add_candidate(cs, CAUSE_DCACHE_MEM, b_mem, prod[q]);
                    if (r->period[CALC_EV_L2MISS] > 0)
                        add_candidate(cs, CAUSE_DCACHE_L2, b_l2, prod[q]);
                }
                double pages = page_changes(p, prod[q]);
                if (r->period[CALC_EV_DTBMISS] > 0) {
                    double dtb = events_at(p, r, prod[q], CALC_EV_DTBMISS);
                    add_candidate(cs, CAUSE_DTB, (dtb < pages ? dtb : pages) * mp->tlb_miss_latency, prod[q]);
                } else {
                    add_capped(cs, CAUSE_DTB, pages * mp->tlb_miss_latency, prod[q]);
                }
            } else if (pi->block != in->block) {
                uint32_t lat = model_class_latency(mp, pi->s.cls);
                if (lat > 1)
                    add_candidate(cs, CAUSE_DEPENDENCY, in->freq * (lat - 1), prod[q]);
            }
        }
        if (unknown && r->period[CALC_EV_DMISS] <= 0)
            add_candidate(cs, CAUSE_DCACHE_MEM, INFINITY, CALC_NONE);
    }

    /* Mispredict: a block head after a conditional branch or a jump. */
    if (head) {
        double most = -1;
        for (uint32_t k = 0; k < b->nin; k++) {
            const struct calc_edge *e = &p->edges[b->in[k]];
            if (e->from == CALC_NONE)
                continue;
            if (e->kind == EDGE_CALL_RETURN) {      /* the callee's return */
                if (r->period[CALC_EV_BRANCHMP] <= 0)
                    add_candidate(cs, CAUSE_MISPREDICT, INFINITY, CALC_NONE);
                continue;
            }
            const struct calc_block *pb = &p->blocks[e->from];
            uint32_t last = pb->first + pb->n - 1;
            unsigned cls = p->insns[last].s.cls;
            if (cls != ALPHA_BRANCH_COND && cls != ALPHA_JUMP)
                continue;
            double mp_events = events_at(p, r, last, CALC_EV_BRANCHMP);
            add_candidate(cs, CAUSE_MISPREDICT, r->period[CALC_EV_BRANCHMP] > 0
                          ? mp_events * mispredict_cost(mp, in) : INFINITY, last);
            if (mp_events > most) {
                most = mp_events;
                *branch_culprit = last;
            }
        }
    }

    /* The write buffer: a store waits for a free entry. */
    if (in->s.cls == ALPHA_STORE || in->s.cls == ALPHA_STORE_COND)
        add_candidate(cs, CAUSE_QUEUE_FULL, INFINITY, CALC_NONE);
    /* Contention for the unpipelined divider. */
    if (model_class_fdiv(in->s.cls))
        add_candidate(cs, CAUSE_FU_BUSY, INFINITY, CALC_NONE);
}

/* The cycles one event of cause c typically costs (for how many
 * executions a stall of c cycles is). */
static double typical_cost(const struct model_params *mp, unsigned c)
{
    switch (c) {
    case CAUSE_ICACHE:
    case CAUSE_DCACHE_L2:
    case CAUSE_QUEUE_FULL:  return mp->l2_latency;
    case CAUSE_DCACHE_MEM:  return mp->memory_latency;
    case CAUSE_ITB:
    case CAUSE_DTB:         return mp->tlb_miss_latency;
    case CAUSE_MISPREDICT:  return mp->mispredict_penalty + MODEL_REFILL_CYCLES;
    default:                return 4;
    }
}

/* The dynamic stall split among the candidates (calc.h, note 3). */
static void blame(struct calc_proc *p, uint32_t i, const struct candidates *cs, uint32_t branch, double period)
{
    struct calc_insn *in = &p->insns[i];
    double left = in->dynamic, bounded = 0;
    unsigned unbounded = 0;
    for (unsigned k = 0; k < cs->n; k++) {
        in->culprits |= 1u << cs->c[k].cause;
        if (isinf(cs->c[k].bound))
            unbounded++;
        else
            bounded += cs->c[k].bound;
        if (in->culprit_insn == CALC_NONE && cs->c[k].culprit != CALC_NONE)
            in->culprit_insn = cs->c[k].culprit;
    }
    if (left <= 0)
        return;
    double give[8] = {0};
    double scale = bounded > left ? left / bounded : 1;
    for (unsigned k = 0; k < cs->n; k++)
        if (!isinf(cs->c[k].bound)) {
            give[k] = cs->c[k].bound * scale;
            left -= give[k];
        }
    if (left < 0)
        left = 0;
    /* the rest in equal parts to the candidates without samples, each up
     * to its cap (what one capped cannot take goes to the others) */
    for (unsigned open = unbounded, pass = 0; open && left > 1e-9 && pass <= 8; pass++) {
        double part = left / open;
        open = 0;
        for (unsigned k = 0; k < cs->n; k++) {
            if (!isinf(cs->c[k].bound) || give[k] >= cs->c[k].cap)
                continue;
            double take = cs->c[k].cap - give[k] < part ? cs->c[k].cap - give[k] : part;
            give[k] += take;
            left -= take;
            open += give[k] < cs->c[k].cap;
        }
    }
    if (left < 0)
        left = 0;
    /* Each stalled execution also spends its issue cycle at the head
     * (calc.h note 5): about give / cost executions stalled for cause c.
     * After a mispredict the head also maps and issues anew: of each
     * mispredict's cost only the penalty is the empty window, the rest
     * is the head's own (base) time (mispredict_cost). */
    const struct model_params *mp = &p->params;
    double stalled = 0, given = 0, refill = 0;
    for (unsigned k = 0; k < cs->n; k++) {
        if (cs->c[k].cause == CAUSE_MISPREDICT) {
            double cost = mispredict_cost(mp, in);
            refill += give[k] * (cost - mp->mispredict_penalty) / cost;
            give[k] -= give[k] * (cost - mp->mispredict_penalty) / cost;
            continue;
        }
        stalled += give[k] / typical_cost(mp, cs->c[k].cause);
        given += give[k];
    }
    double avail = in->m >= 2 ? 0 : in->freq;   /* (a static stall already counted it) */
    double issue_cycles = stalled < avail ? stalled : avail;
    if (issue_cycles > given)
        issue_cycles = given;
    double keep = given > 0 ? (given - issue_cycles) / given : 0;
    in->stack[CAUSE_BASE] += issue_cycles + refill;
    for (unsigned k = 0; k < cs->n; k++) {
        if (cs->c[k].cause != CAUSE_MISPREDICT)
            give[k] *= keep;
        if (give[k] <= 0)
            continue;
        unsigned c = cs->c[k].cause;
        /* a mispredict's bubble is the branch's (TIP, calc.h note 2) */
        uint32_t to = c == CAUSE_MISPREDICT && branch != CALC_NONE ? branch : i;
        p->insns[to].stack[c] += give[k];
    }
    /* What no culprit took is unexplained only if the samples exceed the
     * schedule's cycles beyond sampling noise (calc.h note 6); within it,
     * nothing shows a stall: base. */
    double s = in->samples[CALC_EV_CYCLES], want = s - in->dynamic / period;
    if (s <= want + CALC_NOISE_Z * sqrt(want > 0 ? want : 0)) {
        in->stack[CAUSE_BASE] += left;
        left = 0;
    }
    in->stack[CALC_UNEXPLAINED] += left;
}

void calc_estimate(struct calc_proc *p, const struct calc_rates *r)
{
    double period = r->period[CALC_EV_CYCLES];
    frequencies(p, r);
    for (uint32_t i = 0; i < p->n; i++) {
        struct calc_insn *in = &p->insns[i];
        double f = in->freq, s = in->samples[CALC_EV_CYCLES] * period;
        in->stack[CAUSE_BASE] += f * in->share;
        if (in->m > 1) {    /* its issue cycle, then the wait (calc.h note 5) */
            in->stack[CAUSE_BASE] += f;
            in->stack[in->static_cause] += f * (in->m - 2);
        }
        /* a block entered both ways: the other way's executions take its
         * other schedule (one instruction may pair on one way, not on
         * the other); what that adds is issue time, base */
        double expect = f * in->m;
        const struct calc_block *blk = &p->blocks[in->block];
        if (blk->alt_entry && in->m_alt != in->m && f > 0) {
            double fall = 0;
            for (uint32_t k = 0; k < blk->nin; k++) {
                const struct calc_edge *e = &p->edges[blk->in[k]];
                if (e->from == in->block - 1 && e->kind == EDGE_FALL)
                    fall += e->freq;
            }
            double other = f - fall;
            other = other < 0 ? 0 : other > f ? f : other;
            double alt = blk->fall_dominant ? other : f - other;
            double extra = alt * ((double)in->m_alt - (double)in->m);
            if (extra > 0)
                in->stack[CAUSE_BASE] += extra;
            expect += extra;
        }
        in->dynamic = s > expect ? s - expect : 0;
        struct candidates cs;
        uint32_t branch;
        find_candidates(p, r, i, &cs, &branch);
        blame(p, i, &cs, branch, period);
    }
}

void calc_refine(struct calc_proc *p, const struct calc_rates *r)
{
    bool any = false;
    for (uint32_t b = 1; b < p->nblocks; b++) {
        struct calc_block *blk = &p->blocks[b];
        if (blk->nin < 2 || blk->fall_dominant)
            continue;
        bool fall = false;
        for (uint32_t k = 0; k < blk->nin; k++)
            fall |= p->edges[blk->in[k]].from == b - 1 && p->edges[blk->in[k]].kind == EDGE_FALL;
        double f = p->insns[blk->first].freq, before = p->insns[p->blocks[b - 1].first].freq;
        if (fall && f > 0 && before >= 0.5 * f) {
            blk->fall_dominant = true;
            any = true;
        }
    }
    if (!any)
        return;
    for (size_t i = 0; i < p->n; i++) {
        struct calc_insn *in = &p->insns[i];
        in->m = 0;
        in->share = 0;
        in->static_cause = 0;
        in->static_culprit = in->culprit_insn = CALC_NONE;
        in->freq = in->dynamic = 0;
        in->culprits = 0;
        memset(in->stack, 0, sizeof in->stack);
    }
    for (size_t c = 0; c < p->nclasses; c++)
        p->classes[c] = (struct calc_class){.freq = -1};
    calc_schedule(p);
    calc_estimate(p, r);
}
