/*
 * Frequency-equivalence classes for calc (calc.h): cycle equivalence
 * (Johnson, Pearson and Pingali, PLDI 94), in linear time.
 *
 * Design notes:
 *  1. The CFG with an edge EXIT -> ENTRY is strongly connected over the
 *     blocks that ENTRY reaches and that reach EXIT; there two edges run
 *     equally often iff every cycle through one goes through the other,
 *     iff the two are cycle equivalent in the undirected graph.  Each block
 *     is an edge too (b_in -- b_out), so blocks and edges share classes.
 *  2. The undirected graph is searched depth first from ENTRY; every
 *     non-tree edge joins a node to one of its ancestors (a backedge, a
 *     "bracket" of the tree edges between its ends).  Two tree edges are
 *     equivalent iff they have the same set of brackets; a backedge is
 *     equivalent to a tree edge iff it is that edge's only bracket.
 *  3. Nodes are visited in reverse preorder, each building its bracket
 *     list from its children's (concatenated), removing the brackets that
 *     end at it and pushing those that start at it.  A set of brackets is
 *     named by its top bracket and its size (the top's recent size and
 *     recent class): sets along a path only grow and shrink at the top.
 *     Where two children's brackets both pass above the node, a capping
 *     bracket from the node to the higher of the second-highest reach is
 *     pushed, so the top always tells the set apart (the paper's hi2).
 *  4. Every operation on a bracket list (push, delete, concatenate, top,
 *     size) is O(1) on a doubly linked list: O(V + E) in all.
 *
 * Blocks that cannot reach EXIT (or are not reached), and every block and
 * edge of a CFG with missing edges, get classes of their own.
 *
 * Invariants: classes are numbered in order of their first member (blocks
 * first, then edges), so the numbering is deterministic.
 */
#include "util/calc.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Marks reachability forward from block 0 and backward from EXIT. */
static void reach(struct calc_proc *p)
{
    uint32_t *stack = calc_zalloc(p->nblocks + 1, sizeof *stack);
    size_t top = 0;
    p->blocks[0].reached = true;
    stack[top++] = 0;
    while (top) {
        struct calc_block *b = &p->blocks[stack[--top]];
        for (uint32_t k = 0; k < b->nout; k++) {
            uint32_t t = p->edges[b->out[k]].to;
            if (t != CALC_EXIT && !p->blocks[t].reached) {
                p->blocks[t].reached = true;
                stack[top++] = t;
            }
        }
    }
    for (uint32_t b = 0; b < p->nblocks; b++)
        for (uint32_t k = 0; k < p->blocks[b].nout; k++)
            if (p->edges[p->blocks[b].out[k]].to == CALC_EXIT && !p->blocks[b].reaches_exit) {
                p->blocks[b].reaches_exit = true;
                stack[top++] = b;
            }
    while (top) {
        struct calc_block *b = &p->blocks[stack[--top]];
        for (uint32_t k = 0; k < b->nin; k++) {
            uint32_t f = p->edges[b->in[k]].from;
            if (f != CALC_NONE && !p->blocks[f].reaches_exit) {
                p->blocks[f].reaches_exit = true;
                stack[top++] = f;
            }
        }
    }
    free(stack);
}

/* A bracket: a backedge of the search, or a capping bracket (note 3). */
struct bracket {
    uint32_t prev, next;        /* in its list; prev is towards the top */
    uint32_t recent_size, recent_class;
    uint32_t edge;              /* the graph's edge, NONE for a capping bracket */
    uint32_t next_at_upper;     /* the brackets ending at the same node */
};

struct blist {
    uint32_t top, bottom, size;
};

struct brackets {
    struct bracket *b;
    uint32_t n;
};

static void bl_push(struct brackets *bs, struct blist *l, uint32_t x)
{
    bs->b[x].prev = NONE;
    bs->b[x].next = l->top;
    if (l->top != NONE)
        bs->b[l->top].prev = x;
    else
        l->bottom = x;
    l->top = x;
    l->size++;
}

static void bl_delete(struct brackets *bs, struct blist *l, uint32_t x)
{
    struct bracket *k = &bs->b[x];
    if (k->prev != NONE)
        bs->b[k->prev].next = k->next;
    else
        l->top = k->next;
    if (k->next != NONE)
        bs->b[k->next].prev = k->prev;
    else
        l->bottom = k->prev;
    l->size--;
}

/* Appends list b below list a; b is left empty. */
static void bl_concat(struct brackets *bs, struct blist *a, struct blist *b)
{
    if (!b->size)
        return;
    if (!a->size) {
        *a = *b;
    } else {
        bs->b[a->bottom].next = b->top;
        bs->b[b->top].prev = a->bottom;
        a->bottom = b->bottom;
        a->size += b->size;
    }
    *b = (struct blist){NONE, NONE, 0};
}

/* Undirected graph in compressed incidence lists. */
struct ugraph {
    uint32_t nv, ne;
    const uint32_t *a, *b;      /* endpoints of each edge */
    const bool *alive;
    uint32_t *adj_start, *adj;  /* incidence lists: edge ids */
};

uint32_t calc_cycle_equivalence(uint32_t nv, uint32_t ne, const uint32_t *ea, const uint32_t *eb,
                                const bool *alive, uint32_t root, uint32_t *cls)
{
    struct ugraph g = {.nv = nv, .ne = ne, .a = ea, .b = eb, .alive = alive};
    g.adj_start = calc_zalloc(nv + 1, sizeof *g.adj_start);
    g.adj = calc_zalloc(2 * (size_t)ne + 1, sizeof *g.adj);
    for (uint32_t e = 0; e < ne; e++)
        if (alive[e] && ea[e] != eb[e]) {
            g.adj_start[ea[e] + 1]++;
            g.adj_start[eb[e] + 1]++;
        }
    for (uint32_t v = 0; v < nv; v++)
        g.adj_start[v + 1] += g.adj_start[v];
    uint32_t *fill = calc_zalloc(nv + 1, sizeof *fill);
    for (uint32_t e = 0; e < ne; e++)
        if (alive[e] && ea[e] != eb[e]) {
            g.adj[g.adj_start[ea[e]] + fill[ea[e]]++] = e;
            g.adj[g.adj_start[eb[e]] + fill[eb[e]]++] = e;
        }
    for (uint32_t e = 0; e < ne; e++)
        cls[e] = NONE;

    /* Depth-first search: preorder numbers, tree edges (note 2). */
    uint32_t *dfn = calc_zalloc(nv + 1, sizeof *dfn);        /* 0: unvisited, else preorder + 1 */
    uint32_t *order = calc_zalloc(nv + 1, sizeof *order);    /* node of each preorder number */
    uint32_t *via = calc_zalloc(nv + 1, sizeof *via);        /* tree edge from the parent */
    uint32_t *it = calc_zalloc(nv + 1, sizeof *it);
    uint32_t *stack = calc_zalloc(nv + 1, sizeof *stack);
    bool *tree = calc_zalloc(ne + 1, sizeof *tree);
    uint32_t visited = 0;
    size_t top = 0;
    dfn[root] = ++visited;
    order[0] = root;
    via[root] = NONE;
    it[root] = g.adj_start[root];
    stack[top++] = root;
    while (top) {
        uint32_t v = stack[top - 1];
        if (it[v] == g.adj_start[v + 1]) {
            top--;
            continue;
        }
        uint32_t e = g.adj[it[v]++];
        uint32_t w = ea[e] == v ? eb[e] : ea[e];
        if (dfn[w])
            continue;
        dfn[w] = ++visited;
        order[visited - 1] = w;
        via[w] = e;
        tree[e] = true;
        it[w] = g.adj_start[w];
        stack[top++] = w;
    }

    /* Brackets: one per backedge, at most one capping bracket per node. */
    struct brackets bs = {.b = calc_zalloc((size_t)ne + nv + 1, sizeof *bs.b)};
    uint32_t *ending = calc_zalloc(nv + 1, sizeof *ending);  /* brackets whose upper end is the node */
    uint32_t *hi = calc_zalloc(nv + 1, sizeof *hi);
    struct blist *lists = calc_zalloc(nv + 1, sizeof *lists);
    uint32_t *bracket_of = calc_zalloc(ne + 1, sizeof *bracket_of);
    for (uint32_t v = 0; v < nv; v++) {
        ending[v] = NONE;
        lists[v] = (struct blist){NONE, NONE, 0};
    }
    for (uint32_t e = 0; e < ne; e++) {
        bracket_of[e] = NONE;
        if (!alive[e] || tree[e] || !dfn[ea[e]] || ea[e] == eb[e])
            continue;
        uint32_t upper = dfn[ea[e]] < dfn[eb[e]] ? ea[e] : eb[e];
        uint32_t x = bs.n++;
        bs.b[x] = (struct bracket){NONE, NONE, NONE, NONE, e, ending[upper]};
        ending[upper] = x;
        bracket_of[e] = x;
    }
    uint32_t nclasses = 0;
    for (uint32_t k = visited; k-- > 0;) {
        uint32_t n = order[k];
        uint32_t hi0 = NONE, hi1 = NONE, hi2 = NONE, hichild = NONE;
        /* hi0: the highest node a backedge from n reaches */
        for (uint32_t q = g.adj_start[n]; q < g.adj_start[n + 1]; q++) {
            uint32_t e = g.adj[q];
            uint32_t w = ea[e] == n ? eb[e] : ea[e];
            if (!tree[e] && dfn[w] < dfn[n] && dfn[w] - 1 < hi0)
                hi0 = dfn[w] - 1;
        }
        /* hi1, hi2 over the children (note 3) */
        for (uint32_t q = g.adj_start[n]; q < g.adj_start[n + 1]; q++) {
            uint32_t e = g.adj[q];
            uint32_t c = ea[e] == n ? eb[e] : ea[e];
            if (!tree[e] || via[c] != e)
                continue;
            if (hi[c] < hi1 || hichild == NONE) {
                if (hichild != NONE && hi1 < hi2)
                    hi2 = hi1;
                hi1 = hi[c];
                hichild = c;
            } else if (hi[c] < hi2) {
                hi2 = hi[c];
            }
            bl_concat(&bs, &lists[n], &lists[c]);
        }
        hi[n] = hi0 < hi1 ? hi0 : hi1;
        /* brackets ending here close */
        for (uint32_t x = ending[n]; x != NONE; x = bs.b[x].next_at_upper) {
            bl_delete(&bs, &lists[n], x);
            if (bs.b[x].edge != NONE && cls[bs.b[x].edge] == NONE)
                cls[bs.b[x].edge] = nclasses++;
        }
        /* backedges from here open */
        for (uint32_t q = g.adj_start[n]; q < g.adj_start[n + 1]; q++) {
            uint32_t e = g.adj[q];
            uint32_t w = ea[e] == n ? eb[e] : ea[e];
            if (!tree[e] && dfn[w] < dfn[n])
                bl_push(&bs, &lists[n], bracket_of[e]);
        }
        if (hi2 < hi0 && hi2 < k) {     /* (a bracket to n itself is no cap) */
            uint32_t upper = order[hi2];
            uint32_t x = bs.n++;
            bs.b[x] = (struct bracket){NONE, NONE, NONE, NONE, NONE, ending[upper]};
            ending[upper] = x;
            bl_push(&bs, &lists[n], x);
        }
        if (via[n] == NONE)
            continue;
        uint32_t e = via[n];
        if (!lists[n].size) {           /* a bridge: nothing else runs with it */
            cls[e] = nclasses++;
            continue;
        }
        struct bracket *b = &bs.b[lists[n].top];
        if (b->recent_size != lists[n].size) {
            b->recent_size = lists[n].size;
            b->recent_class = nclasses++;
        }
        cls[e] = b->recent_class;
        if (b->recent_size == 1 && b->edge != NONE)
            cls[b->edge] = cls[e];
    }
    for (uint32_t e = 0; e < ne; e++)
        if (alive[e] && ea[e] == eb[e] && dfn[ea[e]])
            cls[e] = nclasses++;        /* a self-loop: a cycle of its own */
    free(bracket_of); free(lists); free(hi); free(ending); free(bs.b);
    free(tree); free(stack); free(it); free(via); free(order); free(dfn);
    free(fill); free(g.adj); free(g.adj_start);
    return nclasses;
}

void calc_equivalence(struct calc_proc *p)
{
    size_t nb = p->nblocks, ne = nb + p->nedges + 1;
    reach(p);
    uint32_t *cls = calc_zalloc(ne, sizeof *cls);
    for (size_t i = 0; i < ne; i++)
        cls[i] = NONE;
    if (!p->missing_edges) {
        /* vertex 0 ENTRY, 1 EXIT, 2 + 2b b_in, 3 + 2b b_out; edges: the
         * blocks, then the CFG's edges, then EXIT -- ENTRY */
        uint32_t *a = calc_zalloc(ne, sizeof *a), *b = calc_zalloc(ne, sizeof *b);
        bool *alive = calc_zalloc(ne, sizeof *alive);
        for (uint32_t k = 0; k < nb; k++) {
            a[k] = 2 + 2 * k;
            b[k] = 3 + 2 * k;
            alive[k] = p->blocks[k].reached && p->blocks[k].reaches_exit;
        }
        for (uint32_t e = 0; e < p->nedges; e++) {
            const struct calc_edge *x = &p->edges[e];
            a[nb + e] = x->from == CALC_NONE ? 0 : 3 + 2 * x->from;
            b[nb + e] = x->to == CALC_EXIT ? 1 : 2 + 2 * x->to;
            bool from_ok = x->from == CALC_NONE || (p->blocks[x->from].reached && p->blocks[x->from].reaches_exit);
            bool to_ok = x->to == CALC_EXIT || (p->blocks[x->to].reached && p->blocks[x->to].reaches_exit);
            alive[nb + e] = from_ok && to_ok;
        }
        a[ne - 1] = 1;
        b[ne - 1] = 0;
        alive[ne - 1] = true;
        calc_cycle_equivalence((uint32_t)(2 + 2 * nb), (uint32_t)ne, a, b, alive, 0, cls);
        free(a);
        free(b);
        free(alive);
    }
    /* number the classes by first member; the rest one each */
    uint32_t *number = calc_zalloc(ne, sizeof *number);
    for (uint32_t i = 0; i < ne; i++)
        number[i] = CALC_NONE;
    p->nclasses = 0;
    for (uint32_t i = 0; i + 1 < ne; i++) {
        uint32_t c;
        if (cls[i] == NONE) {
            c = (uint32_t)p->nclasses++;
        } else {
            if (number[cls[i]] == CALC_NONE)
                number[cls[i]] = (uint32_t)p->nclasses++;
            c = number[cls[i]];
        }
        if (i < nb)
            p->blocks[i].cls = c;
        else
            p->edges[i - nb].cls = c;
    }
    p->classes = calc_zalloc(p->nclasses ? p->nclasses : 1, sizeof *p->classes);
    for (size_t c = 0; c < p->nclasses; c++)
        p->classes[c].freq = -1;
    free(number);
    free(cls);
}
