/*
 * ProfileMe's cycle stacks per loop (pme-loops.h: the design notes and
 * the check).
 */
#include "util/pme-loops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/calc.h"
#include "util/strvec.h"
#include "util/symbols.h"

/* Procedures larger than this are not analysed for loops (no code of the
 * board comes near; a symbol this large is not a procedure). */
#define MAX_PROC_INSNS (1u << 20)

static bool read_image(const void *ctx, uint64_t addr, void *buf, size_t len)
{
    return symtab_read(ctx, addr, buf, len);
}

static int by_image_pc(const void *a, const void *b)
{
    const struct pme_stack *x = *(const struct pme_stack *const *)a, *y = *(const struct pme_stack *const *)b;
    if (x->in->img != y->in->img)
        return strcmp(x->in->img->name, y->in->img->name) < 0 ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The loops of one procedure (sym of img), over its stacks g[0..ng). */
static void proc_loops(const struct pme_stack *const *g, size_t ng, const struct symbol *sym,
                       const struct model_params *mp, struct pme_loop **out, size_t *nout, size_t *cap)
{
    const struct pv_image *img = g[0]->in->img;
    uint64_t start = sym->start, end = symtab_symbol_end(img->st, sym);
    size_t n = end > start ? (size_t)((end - start) / 4) : 0;
    if (!n || n > MAX_PROC_INSNS)
        return;
    uint32_t *words = xmalloc(n * sizeof *words);
    struct calc_proc p;
    const struct calc_image ci = {read_image, img->st, .local_entry = false};
    if (!symtab_read(img->st, start, words, n * 4) || calc_cfg_build_image(&p, mp, start, words, n, &ci)) {
        free(words);
        return;
    }
    free(words);
    calc_equivalence(&p);
    /* retired records and instructions per frequency-equivalence class (note 2) */
    uint64_t *class_records = calc_zalloc(p.nclasses + 1, sizeof *class_records);
    unsigned *class_len = calc_zalloc(p.nclasses + 1, sizeof *class_len);
    for (size_t b = 0; b < p.nblocks; b++)
        class_len[p.blocks[b].cls] += p.blocks[b].n;
    for (size_t i = 0; i < ng; i++)
        class_records[p.blocks[p.insns[(g[i]->pc - start) / 4].block].cls] += g[i]->in->retired;
    struct calc_loop *cl;
    size_t nl = calc_loops_find(&p, &cl);
    for (size_t k = 0; k < nl; k++) {
        if (*nout == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            *out = xrealloc(*out, *cap * sizeof **out);
        }
        struct pme_loop *l = &(*out)[(*nout)++];
        memset(l, 0, sizeof *l);
        l->proc = sym->name;
        l->image = img->name;
        const struct calc_block *hb = &p.blocks[cl[k].header];
        l->header = start + 4 * (uint64_t)hb->first;
        l->header_len = class_len[hb->cls];
        l->header_block = hb->n;
        l->header_retired = class_records[hb->cls];
        l->depth = cl[k].depth;
        l->nblocks = cl[k].nblocks;
        if (cl[k].parent != CALC_NONE)
            l->parent = start + 4 * (uint64_t)p.blocks[cl[cl[k].parent].header].first;
        const struct source_line *sl = symtab_line(img->st, l->header);
        if (sl) {
            l->file = sl->file;
            l->line = sl->line;
        }
        l->spans = xmalloc(cl[k].nblocks * sizeof *l->spans);
        for (uint32_t j = 0; j < cl[k].nblocks; j++) {
            const struct calc_block *b = &p.blocks[cl[k].blocks[j]];
            uint64_t lo = start + 4 * (uint64_t)b->first, hi = lo + 4 * (uint64_t)b->n;
            if (l->nspans && l->spans[l->nspans - 1].hi == lo)
                l->spans[l->nspans - 1].hi = hi;        /* blocks in address order: runs join */
            else
                l->spans[l->nspans++] = (struct pme_span){lo, hi};
        }
        for (size_t i = 0; i < ng; i++) {
            uint32_t block = p.insns[(g[i]->pc - start) / 4].block;
            if (!calc_loop_holds(&cl[k], block))
                continue;
            for (unsigned c = 0; c < CAUSE_COUNT; c++)
                l->cause[c] += g[i]->cause[c];
            l->total += pme_stack_total(g[i]);
        }
    }
    calc_loops_free(cl, nl);
    free(class_records);
    free(class_len);
    calc_proc_free(&p);
}

static int cmp_loop(const void *a, const void *b)
{
    const struct pme_loop *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    int c = strcmp(x->image, y->image);
    if (c)
        return c;
    return x->header < y->header ? -1 : x->header > y->header;
}

struct pme_loop *pme_stacks_by_loop(const struct pme_stack *st, size_t n, const struct model_params *mp,
                                    size_t *nl)
{
    const struct pme_stack **sorted = xmalloc((n ? n : 1) * sizeof *sorted);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        if (st[i].in && st[i].in->img->st)
            sorted[ns++] = &st[i];
    qsort(sorted, ns, sizeof *sorted, by_image_pc);
    struct pme_loop *out = NULL;
    size_t nout = 0, cap = 0;
    for (size_t i = 0; i < ns;) {
        const struct symtab *tab = sorted[i]->in->img->st;
        const struct symbol *sym = symtab_lookup(tab, sorted[i]->pc);
        size_t j = i + 1;
        while (j < ns && sorted[j]->in->img == sorted[i]->in->img && symtab_lookup(tab, sorted[j]->pc) == sym)
            j++;
        if (sym)
            proc_loops(sorted + i, j - i, sym, mp, &out, &nout, &cap);
        i = j;
    }
    free(sorted);
    if (nout)
        qsort(out, nout, sizeof *out, cmp_loop);
    *nl = nout;
    return out;
}

void pme_loops_free(struct pme_loop *loops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(loops[i].spans);
    free(loops);
}

void pme_loop_executions(const struct pme_loop *l, double interval, struct pme_count_est *out)
{
    pme_count_estimate(l->header_retired, interval, PME_Z95, out);
    double len = l->header_len ? l->header_len : 1;
    out->estimate /= len;
    out->lo /= len;
    out->hi /= len;
}

/* The first of the oracle's PCs (sorted) at or above pc. */
static uint64_t first_pc_at(const struct oracle *o, uint64_t pc)
{
    uint64_t lo = 0, hi = o->h.npcs;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (o->pcs[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void pme_loop_truth(const struct pme_loop *l, const struct oracle *o, double *cycles, double *executions)
{
    uint64_t units = 0, runs = 0;
    for (size_t s = 0; s < l->nspans; s++)
        for (uint64_t i = first_pc_at(o, l->spans[s].lo); i < o->h.npcs && o->pcs[i].pc < l->spans[s].hi; i++)
            for (unsigned c = 0; c < CAUSE_COUNT; c++)
                units += o->pcs[i].stack[c];
    uint64_t hend = l->header + 4 * (uint64_t)l->header_block;
    for (uint64_t i = first_pc_at(o, l->header); i < o->h.npcs && o->pcs[i].pc < hend; i++)
        runs += o->pcs[i].executions;
    *cycles = (double)units / CYCLE_UNIT;
    *executions = l->header_block ? (double)runs / l->header_block : 0;
}

int pme_loop_accuracy(const struct pme_loop *l, size_t n, double interval, double estimate_cycles,
                      const struct oracle *o, double true_cycles, struct pme_loop_accuracy *out)
{
    memset(out, 0, sizeof *out);
    if (!n || !(estimate_cycles > 0) || !(true_cycles > 0))
        return -1;
    double weight = 0, exec_weight = 0, top_true = -1;
    for (size_t i = 0; i < n; i++) {
        double tc, te;
        pme_loop_truth(&l[i], o, &tc, &te);
        double err = fabs(l[i].total / estimate_cycles - tc / true_cycles);
        out->loops++;
        if (err > out->share_error_max)
            out->share_error_max = err;
        out->share_error_mean += err * tc;
        weight += tc;
        /* (no fetch interval: time-sampled records, pme-stacks.h note 12, say no executions here) */
        if (interval > 0 && l[i].header_retired >= PME_LOOP_MIN_RECORDS && te > 0) {
            struct pme_count_est e;
            pme_loop_executions(&l[i], interval, &e);
            out->executions_error += fabs(e.estimate / te - 1) * tc;
            exec_weight += tc;
            out->executions_checked++;
        }
        if (tc > top_true) {
            top_true = tc;
            out->top_oracle = l[i].header;
        }
    }
    out->top_estimate = l[0].header;            /* most cycles first */
    out->share_error_mean = weight > 0 ? out->share_error_mean / weight : 0;
    out->executions_error = exec_weight > 0 ? out->executions_error / exec_weight : 0;
    return 0;
}
