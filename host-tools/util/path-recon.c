/*
 * Path reconstruction from ProfileMe branch history and its truth
 * (path-recon.h, whose notes this follows): a depth-first walk backwards
 * over calc's CFGs, bounded in steps and candidates.
 */
#include "util/path-recon.h"

#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"
#include "util/strvec.h"

const char *const pr_outcome_names[5] = {"unique", "ambiguous", "none", "unresolved", "no-code"};

#define MAX_STEPS 50000         /* blocks visited per query: beyond, unresolved */
#define MAX_CALLER_LEVELS 4     /* callers of callers... a short path is checked in */

static const struct calc_proc *cfg_of(struct pr_program *p, size_t i);
static int proc_entered_at(struct pr_program *p, uint64_t pc, const struct calc_proc **cfg);
#define MAX_RECURSION 1024

static void mark_flag(struct pr_program *p, uint64_t word, bool *flag)
{
    size_t lo = 0, hi = p->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->syms[mid].start < word)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < p->nsyms && p->syms[lo].start == word)
        flag[lo] = true;
}

/* Function addresses the code forms from the global pointer (gcc's
 * ldah rX,hi(gp); lda rY,lo(rX), or lda rY,lo(gp)): gp itself from the
 * first ldah gp,hi(pv or ra); lda gp,lo(gp) pair, one gp per image. */
static void mark_taken_code(struct pr_program *p)
{
    uint64_t gp = 0;
    bool have_gp = false;
    for (size_t i = 0; i < p->nsyms; i++) {
        uint64_t start = p->syms[i].start, end = symtab_symbol_end(p->st, &p->syms[i]);
        size_t n = (size_t)((end - start) / 4);
        if (!n || n > (1u << 20))
            continue;
        uint32_t *w = xmalloc(n * sizeof *w);
        if (!symtab_read(p->st, start, w, n * 4)) {
            free(w);
            continue;
        }
        uint64_t hi[32];
        bool known[32] = {false};
        for (size_t k = 0; k < n; k++) {
            uint32_t op = w[k] >> 26, ra = (w[k] >> 21) & 31, rb = (w[k] >> 16) & 31;
            int64_t disp = (int16_t)(w[k] & 0xffff);
            uint64_t pc = start + 4 * k;
            if (op == 0x09 && ra == 29 && (rb == 27 || rb == 26) && k + 1 < n && (w[k + 1] >> 26) == 0x08 &&
                ((w[k + 1] >> 21) & 31) == 29 && ((w[k + 1] >> 16) & 31) == 29 && !have_gp) {
                gp = (rb == 27 ? start : pc) + (uint64_t)(disp * 65536) + (uint64_t)(int64_t)(int16_t)(w[k + 1] & 0xffff);
                have_gp = true;
            }
            if (op != 0x08 && op != 0x09)
                continue;
            uint64_t base;
            if (rb == 29 && have_gp && ra != 29)
                base = gp;
            else if (rb != 29 && known[rb] && op == 0x08)
                base = hi[rb];
            else {
                known[ra] = false;
                continue;
            }
            uint64_t v = base + (uint64_t)(op == 0x09 ? disp * 65536 : disp);
            if (op == 0x09) {
                hi[ra] = v;
                known[ra] = true;
            } else {
                mark_flag(p, v, p->address_taken);
                known[ra] = false;
            }
        }
        free(w);
    }
    p->gp = gp;
    p->have_gp = have_gp;
}

static int by_callee(const void *a, const void *b)
{
    const struct pr_caller *x = a, *y = b;
    if (x->callee != y->callee)
        return x->callee < y->callee ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->block < y->block ? -1 : x->block > y->block;
}

void pr_build_callers(struct pr_program *p)
{
    if (p->callers_built)
        return;
    p->callers_built = true;
    size_t cap = 64;
    p->callers = xmalloc(cap * sizeof *p->callers);
    for (size_t i = 0; i < p->nsyms; i++) {
        const struct calc_proc *c = cfg_of(p, i);
        for (uint32_t b = 0; c && b < c->nblocks; b++) {
            const struct calc_insn *last = &c->insns[c->blocks[b].first + c->blocks[b].n - 1];
            const struct calc_proc *callee;
            int q;
            if (last->s.cls != ALPHA_BRANCH || calc_flow_of(last->s.word, last->s.cls) != FLOW_CALL ||
                (q = proc_entered_at(p, alpha_branch_target(last->pc, last->s.word), &callee)) < 0)
                continue;
            if (p->ncallers == cap) {
                cap *= 2;
                p->callers = xrealloc(p->callers, cap * sizeof *p->callers);
            }
            p->callers[p->ncallers++] = (struct pr_caller){.callee = q, .proc = (int)i, .block = b};
            c = &p->cfg[i];     /* (cfg_of of another symbol leaves this one in place) */
        }
    }
    qsort(p->callers, p->ncallers, sizeof *p->callers, by_callee);
    /* functions in the global offset table may be called by any jsr */
    for (int64_t k = -4096; p->have_gp && k < 4096; k++) {
        uint64_t v;
        if (!symtab_read(p->st, p->gp + (uint64_t)(k * 8), &v, 8))
            continue;
        mark_flag(p, v, p->unknown_callers);
    }
    for (size_t i = 0; i < p->nsyms; i++)
        p->unknown_callers[i] |= p->address_taken[i];
}

void pr_program_init(struct pr_program *p, const struct symtab *st)
{
    memset(p, 0, sizeof *p);
    p->st = st;
    p->syms = symtab_symbols(st, &p->nsyms);
    p->cfg = calc_zalloc(p->nsyms, sizeof *p->cfg);
    p->state = calc_zalloc(p->nsyms, 1);
    p->address_taken = calc_zalloc(p->nsyms, sizeof *p->address_taken);
    p->unknown_callers = calc_zalloc(p->nsyms, sizeof *p->unknown_callers);
    mark_taken_code(p);
    model_params_default(&p->mp);
}

void pr_program_free(struct pr_program *p)
{
    for (size_t i = 0; i < p->nsyms; i++)
        if (p->state[i] == 1)
            calc_proc_free(&p->cfg[i]);
    free(p->cfg);
    free(p->state);
    free(p->address_taken);
    free(p->unknown_callers);
    free(p->callers);
    memset(p, 0, sizeof *p);
}

static const struct calc_proc *cfg_of(struct pr_program *p, size_t i)
{
    if (p->state[i] == 0) {
        p->state[i] = 2;
        uint64_t start = p->syms[i].start, end = symtab_symbol_end(p->st, &p->syms[i]);
        size_t n = (size_t)((end - start) / 4);
        if (n) {
            uint32_t *words = xmalloc(n * sizeof *words);
            if (symtab_read(p->st, start, words, n * 4) && !calc_cfg_build(&p->cfg[i], &p->mp, start, words, n))
                p->state[i] = 1;
            free(words);
        }
    }
    return p->state[i] == 1 ? &p->cfg[i] : NULL;
}

int pr_proc_at(struct pr_program *p, uint64_t pc, const struct calc_proc **cfg)
{
    const struct symbol *s = symtab_lookup(p->st, pc);
    if (!s)
        return -1;
    size_t i = (size_t)(s - p->syms);
    *cfg = cfg_of(p, i);
    return *cfg && pc < (*cfg)->start + 4 * (*cfg)->n ? (int)i : -1;
}

/* The procedure a bsr to pc enters, or -1: at its start, or past its
 * global-pointer prologue (ldah gp; lda gp), where gcc's local calls go. */
static int proc_entered_at(struct pr_program *p, uint64_t pc, const struct calc_proc **cfg)
{
    int i = pr_proc_at(p, pc, cfg);
    if (i < 0)
        return -1;
    uint64_t start = p->syms[i].start;
    if (pc == start)
        return i;
    const struct calc_proc *c = *cfg;
    return pc == start + 8 && c->n >= 2 && (c->insns[0].s.word >> 26) == 0x09 &&
           ((c->insns[0].s.word >> 21) & 31) == 29 && (c->insns[1].s.word >> 26) == 0x08 ? i : -1;
}

struct frame {
    int proc;
    uint32_t block;             /* the call's block */
};

struct walk {
    struct pr_program *p;
    const struct pr_query *q;
    struct pr_segment cur;
    struct frame stack[PR_MAX_DEPTH];
    unsigned depth;
    bool saw_pair;
    size_t steps;
    unsigned recursion;
    bool unresolved;
    struct pr_segment *cands;
    size_t ncands;
    unsigned verifying;         /* > 0: only whether the callers can use up the bits (note 6) */
    bool feasible;
};

static void walk_block(struct walk *w, int proc, uint32_t b, uint32_t upto);

/* Whether some caller of proc (a bsr to it) can use up the history bits
 * the path has left (note 6); true when that cannot be refuted. */
static void verify_callers(struct walk *w, int proc)
{
    struct pr_program *p = w->p;
    pr_build_callers(p);
    size_t lo = 0, hi = p->ncallers;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->callers[mid].callee < proc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (w->verifying > MAX_CALLER_LEVELS || p->unknown_callers[proc] || lo == p->ncallers ||
        p->callers[lo].callee != proc) {
        w->feasible = true;
        return;
    }
    w->verifying++;
    for (size_t k = lo; k < p->ncallers && p->callers[k].callee == proc && !w->feasible; k++) {
        const struct calc_proc *c = &p->cfg[p->callers[k].proc];
        walk_block(w, p->callers[k].proc, p->callers[k].block, c->blocks[p->callers[k].block].n);
    }
    w->verifying--;
}

static bool callers_consistent(struct walk *w, int proc)
{
    bool unresolved = w->unresolved;
    w->feasible = false;
    verify_callers(w, proc);
    bool ok = w->feasible || w->unresolved;
    w->feasible = false;
    w->unresolved = unresolved;
    return ok;
}

static void finish(struct walk *w, bool reached_entry, int proc)
{
    if (w->verifying) {
        w->feasible = true;
        return;
    }
    if (w->q->pair && w->cur.insns >= w->q->gap && !w->saw_pair)
        return;                 /* note 4 */
    if (reached_entry && w->cur.nbits < w->q->nbits && !w->q->ignore_history && !callers_consistent(w, proc))
        return;                 /* note 6 */
    w->cur.reached_entry = reached_entry;
    for (size_t i = 0; i < w->ncands && i < PR_MAX_CANDIDATES; i++)
        if (pr_same_path(&w->cands[i], &w->cur))
            return;
    if (w->ncands < PR_MAX_CANDIDATES)
        w->cands[w->ncands] = w->cur;
    w->ncands++;
}

/* A jsr's callee when the block loads it from the global offset table
 * (ldq pv, disp(gp) before it): that slot's function; else -1. */
static int jsr_callee(struct pr_program *p, const struct calc_proc *cfg, const struct calc_insn *jsr)
{
    unsigned reg = (jsr->s.word >> 16) & 31;
    const struct calc_block *b = &cfg->blocks[jsr->block];
    for (const struct calc_insn *in = jsr; in-- > &cfg->insns[b->first];) {
        uint32_t w = in->s.word;
        if (((w >> 21) & 31) != reg || in->s.dst == REG_NONE)
            continue;
        if ((w >> 26) != 0x29 || ((w >> 16) & 31) != 29 || !p->have_gp)
            return -1;          /* written otherwise: a function pointer */
        uint64_t slot = p->gp + (uint64_t)(int64_t)(int16_t)(w & 0xffff), target;
        const struct calc_proc *c;
        if (!symtab_read(p->st, slot, &target, 8))
            return -1;
        int q = pr_proc_at(p, target, &c);
        return q >= 0 && p->syms[q].start == target ? q : -1;
    }
    return -1;
}

/* Back from the block after a call in block a of proc into callee q, at
 * each of its returns. */
static void walk_callee(struct walk *w, int proc, uint32_t a, int q, const struct calc_proc *callee)
{
    w->stack[w->depth++] = (struct frame){.proc = proc, .block = a};
    for (uint32_t r = 0; r < callee->nblocks; r++) {
        const struct calc_block *rb = &callee->blocks[r];
        const struct calc_insn *ret = &callee->insns[rb->first + rb->n - 1];
        if (calc_flow_of(ret->s.word, ret->s.cls) != FLOW_RETURN)
            continue;
        w->cur.trans[w->cur.ntrans++] = ret->pc | PMEPATH_JUMP;
        walk_block(w, q, r, rb->n);
        w->cur.ntrans--;
    }
    w->depth--;
}

/* Arrives at the end of block a of proc through CFG edge e into the
 * block after it on the path (backwards). */
static void walk_pred(struct walk *w, int proc, const struct calc_proc *cfg, const struct calc_edge *e)
{
    if (e->from == CALC_NONE) {             /* the procedure's entry */
        if (!w->depth) {
            if (w->verifying)
                verify_callers(w, proc);
            else
                finish(w, true, proc);
            return;
        }
        struct frame f = w->stack[--w->depth];
        const struct calc_proc *caller = &w->p->cfg[f.proc];
        const struct calc_block *cb = &caller->blocks[f.block];
        if (w->cur.ntrans < PR_MAX_TRANS) {
            w->cur.trans[w->cur.ntrans++] = caller->insns[cb->first + cb->n - 1].pc | PMEPATH_JUMP;
            walk_block(w, f.proc, f.block, cb->n);
            w->cur.ntrans--;
        } else {
            w->unresolved = true;
        }
        w->stack[w->depth++] = f;
        return;
    }
    const struct calc_block *ab = &cfg->blocks[e->from];
    const struct calc_insn *last = &cfg->insns[ab->first + ab->n - 1];
    enum calc_flow fl = calc_flow_of(last->s.word, last->s.cls);
    size_t nt = w->cur.ntrans;
    if (nt >= PR_MAX_TRANS && fl != FLOW_NONE) {
        w->unresolved = true;
        return;
    }
    switch (fl) {
    case FLOW_COND: {
        bool taken = e->kind == EDGE_TAKEN;
        if (!w->q->ignore_history && ((w->q->history >> w->cur.nbits) & 1) != taken)
            return;
        w->cur.trans[w->cur.ntrans++] = last->pc | (taken ? PMEPATH_TAKEN : PMEPATH_FALL);
        w->cur.nbits++;
        if (w->cur.nbits == w->q->nbits) {
            w->cur.insns++;
            bool saw = w->saw_pair;
            w->saw_pair |= w->q->pair && last->pc == w->q->pair_pc;
            finish(w, false, proc);
            w->saw_pair = saw;
            w->cur.insns--;
        } else {
            walk_block(w, proc, e->from, ab->n);
        }
        w->cur.nbits--;
        break;
    }
    case FLOW_BRANCH:
        w->cur.trans[w->cur.ntrans++] = last->pc | PMEPATH_JUMP;
        walk_block(w, proc, e->from, ab->n);
        break;
    case FLOW_NONE:
        walk_block(w, proc, e->from, ab->n);
        break;
    case FLOW_CALL: {
        /* back into the callee, at its returns (note 1) */
        if (w->depth == PR_MAX_DEPTH) {
            w->unresolved = true;
            return;
        }
        const struct calc_proc *callee;
        if (last->s.cls == ALPHA_BRANCH) {
            int q = proc_entered_at(w->p, alpha_branch_target(last->pc, last->s.word), &callee);
            if (q < 0) {
                w->unresolved = true;
                return;
            }
            walk_callee(w, proc, e->from, q, callee);
            break;
        }
        int q = jsr_callee(w->p, cfg, last);
        if (q >= 0 && (callee = cfg_of(w->p, (size_t)q))) {
            walk_callee(w, proc, e->from, q, callee);
            break;
        }
        bool any = false;
        for (size_t q = 0; q < w->p->nsyms; q++)
            if (w->p->address_taken[q] && (callee = cfg_of(w->p, q))) {
                any = true;
                walk_callee(w, proc, e->from, (int)q, callee);
            }
        if (!any)
            w->unresolved = true;
        break;
    }
    default:                /* a return, jump or halt does not lead into a block of its procedure */
        break;
    }
    w->cur.ntrans = nt;
}

/* Takes the first upto instructions of block b onto the path, then its
 * ways in. */
static void walk_block(struct walk *w, int proc, uint32_t b, uint32_t upto)
{
    if (w->ncands > PR_MAX_CANDIDATES || w->unresolved || (w->verifying && w->feasible))
        return;
    if (++w->steps > MAX_STEPS || w->recursion >= MAX_RECURSION) {
        w->unresolved = true;
        return;
    }
    const struct calc_proc *cfg = &w->p->cfg[proc];
    const struct calc_block *bk = &cfg->blocks[b];
    uint64_t start = cfg->insns[bk->first].pc;
    bool saw = w->saw_pair;
    if (w->q->pair && w->q->pair_pc >= start && w->q->pair_pc < start + 4 * upto)
        w->saw_pair = true;
    w->cur.insns += upto;
    size_t nb = w->cur.nblocks;
    if (nb < PR_MAX_BLOCKS) {
        w->cur.block[nb] = start;
        w->cur.depth[nb] = (uint8_t)w->depth;
        w->cur.nblocks++;
    }
    w->recursion++;
    for (uint32_t k = 0; k < bk->nin; k++)
        walk_pred(w, proc, cfg, &cfg->edges[bk->in[k]]);
    w->recursion--;
    w->cur.nblocks = nb;
    w->cur.insns -= upto;
    w->saw_pair = saw;
}

void pr_reconstruct(struct pr_program *p, const struct pr_query *q, struct pr_result *res)
{
    memset(res, 0, sizeof *res);
    const struct calc_proc *cfg;
    int proc = pr_proc_at(p, q->pc, &cfg);
    if (proc < 0) {
        res->outcome = PR_NO_CODE;
        return;
    }
    struct walk *w = calc_zalloc(1, sizeof *w);
    w->p = p;
    w->q = q;
    w->cands = calc_zalloc(PR_MAX_CANDIDATES, sizeof *w->cands);
    const struct calc_insn *in = &cfg->insns[(q->pc - cfg->start) / 4];
    walk_block(w, proc, in->block, (uint32_t)(in - &cfg->insns[cfg->blocks[in->block].first]));
    res->ncandidates = w->ncands;
    if (w->unresolved)
        res->outcome = PR_UNRESOLVED;
    else if (w->ncands == 0)
        res->outcome = PR_NONE;
    else if (w->ncands > 1)
        res->outcome = PR_AMBIGUOUS;
    else {
        res->outcome = PR_UNIQUE;
        res->seg = w->cands[0];
    }
    free(w->cands);
    free(w);
}

bool pr_same_path(const struct pr_segment *a, const struct pr_segment *b)
{
    return a->ntrans == b->ntrans && a->reached_entry == b->reached_entry &&
           !memcmp(a->trans, b->trans, a->ntrans * sizeof a->trans[0]);
}

enum pr_truth pr_truth(struct pr_program *p, const struct oracle_pmepath_sample *s, unsigned nbits,
                       struct pr_segment *out, bool *history_ok)
{
    memset(out, 0, sizeof *out);
    *history_ok = true;
    unsigned depth = 0;
    uint32_t n = s->ntrans < ORACLE_PMEPATH_DEPTH ? s->ntrans : ORACLE_PMEPATH_DEPTH;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t t = s->trans[i], pc = ORACLE_PMEPATH_PC(t);
        unsigned kind = ORACLE_PMEPATH_KIND(t);
        const struct calc_proc *cfg;
        if (kind == PMEPATH_OTHER || pr_proc_at(p, pc, &cfg) < 0)
            return PR_TRUTH_POLLUTED;
        if (kind == PMEPATH_JUMP) {
            const struct calc_insn *in = &cfg->insns[(pc - cfg->start) / 4];
            enum calc_flow fl = calc_flow_of(in->s.word, in->s.cls);
            if (fl == FLOW_CALL) {
                if (!depth) {
                    out->reached_entry = true;
                    return PR_TRUTH_OK;
                }
                depth--;
            } else if (fl == FLOW_RETURN) {
                depth++;
            }
        }
        out->trans[out->ntrans++] = t;
        if (kind == PMEPATH_FALL || kind == PMEPATH_TAKEN) {
            if (out->nbits < PME_HISTORY_BITS && ((s->history >> out->nbits) & 1) != (kind == PMEPATH_TAKEN))
                *history_ok = false;
            if (++out->nbits == nbits)
                return PR_TRUTH_OK;
        }
    }
    return PR_TRUTH_UNKNOWN;
}
