/*
 * Natural loops of a procedure's CFG (calc.h, calc_loops_find): the
 * loops estimates are aggregated over (pme --stacks, check --pme).
 *
 * Definitions (the textbook ones):
 *  1. Dominators from ENTRY (block 0) by the iterative algorithm over
 *     reverse postorder (Cooper, Harvey, Kennedy: "A simple, fast
 *     dominance algorithm"); unreachable blocks dominate nothing and are
 *     in no loop.
 *  2. A back edge is an edge b -> h whose target h dominates its source b
 *     (a block branching to itself included).  Its natural loop is h and
 *     every block that reaches b without passing through h.  Back edges to
 *     one header make one loop (their bodies united).
 *  3. Natural loops with different headers are nested or disjoint: a
 *     loop's parent is the smallest other loop whose body holds its
 *     header; depth 1 is outermost.
 *  4. A retreating edge whose target does not dominate its source (an
 *     irreducible cycle, which gcc does not emit for C loops) makes no
 *     loop: its blocks count in no loop rather than in a made-up one.
 * Loops come in the order of their headers' addresses (deterministic).
 */
#include "util/calc.h"

#include <stdlib.h>
#include <string.h>

#include "util/strvec.h"

/* Reverse postorder of the blocks reachable from block 0: rpo[0..*nr),
 * and order[b] the position of b (UINT32_MAX unreachable). */
static void reverse_postorder(const struct calc_proc *p, uint32_t *rpo, size_t *nr, uint32_t *order)
{
    size_t nb = p->nblocks;
    uint32_t *stack = calc_zalloc(nb + 1, sizeof *stack), *next = calc_zalloc(nb + 1, sizeof *next);
    bool *seen = calc_zalloc(nb + 1, sizeof *seen);
    uint32_t *post = calc_zalloc(nb + 1, sizeof *post);
    size_t sp = 0, np = 0;
    stack[sp++] = 0;
    seen[0] = true;
    while (sp) {
        uint32_t b = stack[sp - 1];
        const struct calc_block *blk = &p->blocks[b];
        if (next[b] < blk->nout) {
            uint32_t to = p->edges[blk->out[next[b]++]].to;
            if (to != CALC_EXIT && !seen[to]) {
                seen[to] = true;
                stack[sp++] = to;
            }
        } else {
            post[np++] = b;
            sp--;
        }
    }
    for (size_t b = 0; b < nb; b++)
        order[b] = UINT32_MAX;
    for (size_t k = 0; k < np; k++) {
        rpo[k] = post[np - 1 - k];
        order[rpo[k]] = (uint32_t)k;
    }
    *nr = np;
    free(stack);
    free(next);
    free(seen);
    free(post);
}

static uint32_t intersect(const uint32_t *idom, const uint32_t *order, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (order[a] > order[b])
            a = idom[a];
        while (order[b] > order[a])
            b = idom[b];
    }
    return a;
}

/* idom[b] of every reachable block (idom[0] = 0), UINT32_MAX for the rest (note 1). */
static void dominators(const struct calc_proc *p, const uint32_t *rpo, size_t nr, const uint32_t *order,
                       uint32_t *idom)
{
    for (size_t b = 0; b < p->nblocks; b++)
        idom[b] = UINT32_MAX;
    if (!nr)
        return;
    idom[0] = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t k = 1; k < nr; k++) {
            uint32_t b = rpo[k], d = UINT32_MAX;
            const struct calc_block *blk = &p->blocks[b];
            for (uint32_t i = 0; i < blk->nin; i++) {
                uint32_t from = p->edges[blk->in[i]].from;
                if (from == CALC_NONE || idom[from] == UINT32_MAX)
                    continue;
                d = d == UINT32_MAX ? from : intersect(idom, order, from, d);
            }
            if (d != idom[b]) {
                idom[b] = d;
                changed = true;
            }
        }
    }
}

static bool dominates(const uint32_t *idom, uint32_t h, uint32_t b)
{
    for (;;) {
        if (b == h)
            return true;
        if (b == 0 || idom[b] == UINT32_MAX)
            return false;
        b = idom[b];
    }
}

size_t calc_loops_find(const struct calc_proc *p, struct calc_loop **out)
{
    *out = NULL;
    size_t nb = p->nblocks;
    if (!nb)
        return 0;
    uint32_t *rpo = calc_zalloc(nb, sizeof *rpo), *order = calc_zalloc(nb, sizeof *order);
    uint32_t *idom = calc_zalloc(nb, sizeof *idom);
    size_t nr;
    reverse_postorder(p, rpo, &nr, order);
    dominators(p, rpo, nr, order, idom);
    /* the headers (note 2), in address order */
    uint32_t *backedges = calc_zalloc(nb, sizeof *backedges);
    size_t nloops = 0;
    for (size_t e = 0; e < p->nedges; e++) {
        const struct calc_edge *x = &p->edges[e];
        if (x->from == CALC_NONE || x->to == CALC_EXIT || idom[x->from] == UINT32_MAX)
            continue;
        if (dominates(idom, x->to, x->from))
            nloops += !backedges[x->to]++;
    }
    struct calc_loop *loops = calc_zalloc(nloops, sizeof *loops);
    bool *in = calc_zalloc(nb, sizeof *in);
    uint32_t *work = calc_zalloc(nb, sizeof *work);
    size_t k = 0;
    for (uint32_t h = 0; h < nb; h++) {
        if (!backedges[h])
            continue;
        struct calc_loop *l = &loops[k++];
        l->header = h;
        l->backedges = backedges[h];
        l->parent = CALC_NONE;
        memset(in, 0, nb * sizeof *in);
        in[h] = true;
        size_t nw = 0;
        const struct calc_block *hb = &p->blocks[h];
        for (uint32_t i = 0; i < hb->nin; i++) {
            uint32_t from = p->edges[hb->in[i]].from;
            if (from != CALC_NONE && idom[from] != UINT32_MAX && dominates(idom, h, from) && !in[from]) {
                in[from] = true;
                work[nw++] = from;
            }
        }
        while (nw) {                    /* backwards from the back edges' sources, stopping at h */
            const struct calc_block *b = &p->blocks[work[--nw]];
            for (uint32_t i = 0; i < b->nin; i++) {
                uint32_t from = p->edges[b->in[i]].from;
                if (from != CALC_NONE && idom[from] != UINT32_MAX && !in[from]) {
                    in[from] = true;
                    work[nw++] = from;
                }
            }
        }
        for (size_t b = 0; b < nb; b++)
            l->nblocks += in[b];
        l->blocks = calc_zalloc(l->nblocks, sizeof *l->blocks);
        for (size_t b = 0, j = 0; b < nb; b++)
            if (in[b])
                l->blocks[j++] = (uint32_t)b;
    }
    /* nesting (note 3) */
    for (size_t i = 0; i < nloops; i++)
        for (size_t j = 0; j < nloops; j++)
            if (i != j && calc_loop_holds(&loops[j], loops[i].header)
                && (loops[i].parent == CALC_NONE || loops[j].nblocks < loops[loops[i].parent].nblocks))
                loops[i].parent = (uint32_t)j;
    for (size_t i = 0; i < nloops; i++) {
        loops[i].depth = 1;
        for (uint32_t q = loops[i].parent; q != CALC_NONE; q = loops[q].parent)
            loops[i].depth++;
    }
    free(rpo);
    free(order);
    free(idom);
    free(backedges);
    free(in);
    free(work);
    if (!nloops) {
        free(loops);
        loops = NULL;
    }
    *out = loops;
    return nloops;
}

bool calc_loop_holds(const struct calc_loop *l, uint32_t block)
{
    size_t lo = 0, hi = l->nblocks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l->blocks[mid] < block)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->nblocks && l->blocks[lo] == block;
}

void calc_loops_free(struct calc_loop *loops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(loops[i].blocks);
    free(loops);
}
