/*
 * Frequency-equivalence classes for calc (calc.h): cycle equivalence.
 * The CFG with an edge EXIT -> ENTRY is strongly connected over the blocks
 * that ENTRY reaches and that reach EXIT; there two edges run equally often
 * iff every cycle through one goes through the other, iff (Johnson, Pearson
 * and Pingali) the two form a two-edge cut of the undirected graph.  Each
 * block is an edge too (b_in -- b_out), so blocks and edges share classes.
 * For each edge e the bridges of the graph without e are e's class: O(E)
 * bridge searches of O(V + E) each, fine for procedures of a few thousand
 * edges; a larger procedure, a CFG with missing edges, and blocks outside
 * the strongly connected part get one class per block and edge.
 *
 * Invariants: classes are numbered in order of their first member (blocks
 * first, then edges), so the numbering is deterministic.
 */
#include "util/calc.h"

#include <stdlib.h>
#include <string.h>

#define EQUIV_MAX_EDGES 6000

/* Undirected graph: vertex 0 ENTRY, 1 EXIT, 2 + 2b b_in, 3 + 2b b_out.
 * Edges: 0..nblocks-1 the blocks, nblocks + e the CFG's edge e, and last
 * EXIT -- ENTRY. */
struct ugraph {
    size_t nv, ne;
    uint32_t *a, *b;            /* endpoints of each edge */
    uint32_t *adj_start, *adj;  /* incidence lists: edge ids */
    bool *alive;                /* edges taking part */
};

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

static void unite(uint32_t *parent, uint32_t x, uint32_t y)
{
    x = find(parent, x);
    y = find(parent, y);
    if (x != y)
        parent[x > y ? x : y] = x < y ? x : y;
}

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

/* Bridges of g's alive edges (iterative Tarjan low-link), each united with
 * `with` in parent. */
static void bridges_into(const struct ugraph *g, uint32_t with, uint32_t *parent, uint32_t *disc,
                         uint32_t *low, uint32_t *via, uint32_t *it, uint32_t *stack)
{
    memset(disc, 0, g->nv * sizeof *disc);
    uint32_t time = 0;
    for (uint32_t root = 0; root < g->nv; root++) {
        if (disc[root])
            continue;
        size_t top = 0;
        stack[top++] = root;
        disc[root] = low[root] = ++time;
        via[root] = UINT32_MAX;
        it[root] = g->adj_start[root];
        while (top) {
            uint32_t v = stack[top - 1];
            if (it[v] < g->adj_start[v + 1]) {
                uint32_t e = g->adj[it[v]++];
                if (!g->alive[e] || e == via[v])
                    continue;
                uint32_t w = g->a[e] == v ? g->b[e] : g->a[e];
                if (!disc[w]) {
                    disc[w] = low[w] = ++time;
                    via[w] = e;
                    it[w] = g->adj_start[w];
                    stack[top++] = w;
                } else if (disc[w] < low[v]) {
                    low[v] = disc[w];
                }
            } else {
                top--;
                if (via[v] != UINT32_MAX) {
                    uint32_t e = via[v];
                    uint32_t u = g->a[e] == v ? g->b[e] : g->a[e];
                    if (low[v] < low[u])
                        low[u] = low[v];
                    if (low[v] > disc[u])
                        unite(parent, with, e);
                }
            }
        }
    }
}

void calc_equivalence(struct calc_proc *p)
{
    size_t nb = p->nblocks, ne = nb + p->nedges + 1;
    reach(p);
    uint32_t *parent = calc_zalloc(ne, sizeof *parent);
    for (uint32_t i = 0; i < ne; i++)
        parent[i] = i;
    bool cyclic = !p->missing_edges && ne <= EQUIV_MAX_EDGES;
    if (cyclic) {
        struct ugraph g = {.nv = 2 + 2 * nb, .ne = ne};
        g.a = calc_zalloc(ne, sizeof *g.a);
        g.b = calc_zalloc(ne, sizeof *g.b);
        g.alive = calc_zalloc(ne, sizeof *g.alive);
        for (uint32_t b = 0; b < nb; b++) {
            g.a[b] = 2 + 2 * b;
            g.b[b] = 3 + 2 * b;
            g.alive[b] = p->blocks[b].reached && p->blocks[b].reaches_exit;
        }
        for (uint32_t e = 0; e < p->nedges; e++) {
            const struct calc_edge *x = &p->edges[e];
            g.a[nb + e] = x->from == CALC_NONE ? 0 : 3 + 2 * x->from;
            g.b[nb + e] = x->to == CALC_EXIT ? 1 : 2 + 2 * x->to;
            bool from_ok = x->from == CALC_NONE || (p->blocks[x->from].reached && p->blocks[x->from].reaches_exit);
            bool to_ok = x->to == CALC_EXIT || (p->blocks[x->to].reached && p->blocks[x->to].reaches_exit);
            g.alive[nb + e] = from_ok && to_ok;
        }
        g.a[ne - 1] = 1;
        g.b[ne - 1] = 0;
        g.alive[ne - 1] = true;
        g.adj_start = calc_zalloc(g.nv + 1, sizeof *g.adj_start);
        g.adj = calc_zalloc(2 * ne, sizeof *g.adj);
        for (uint32_t e = 0; e < ne; e++) {
            g.adj_start[g.a[e] + 1]++;
            g.adj_start[g.b[e] + 1]++;
        }
        for (size_t v = 0; v < g.nv; v++)
            g.adj_start[v + 1] += g.adj_start[v];
        uint32_t *fill = calc_zalloc(g.nv, sizeof *fill);
        for (uint32_t e = 0; e < ne; e++) {
            g.adj[g.adj_start[g.a[e]] + fill[g.a[e]]++] = e;
            g.adj[g.adj_start[g.b[e]] + fill[g.b[e]]++] = e;
        }
        uint32_t *disc = calc_zalloc(g.nv, sizeof *disc), *low = calc_zalloc(g.nv, sizeof *low),
                 *via = calc_zalloc(g.nv, sizeof *via), *it = calc_zalloc(g.nv, sizeof *it),
                 *stack = calc_zalloc(g.nv + 1, sizeof *stack);
        for (uint32_t e = 0; e < ne; e++) {
            if (!g.alive[e] || find(parent, e) != e)
                continue;       /* already in an earlier edge's class: the same bridges */
            g.alive[e] = false;
            bridges_into(&g, e, parent, disc, low, via, it, stack);
            g.alive[e] = true;
        }
        free(disc); free(low); free(via); free(it); free(stack); free(fill);
        free(g.a); free(g.b); free(g.alive); free(g.adj_start); free(g.adj);
    }
    /* number the classes by first member */
    uint32_t *number = calc_zalloc(ne, sizeof *number);
    for (uint32_t i = 0; i < ne; i++)
        number[i] = CALC_NONE;
    p->nclasses = 0;
    for (uint32_t i = 0; i + 1 < ne; i++) {
        uint32_t r = find(parent, i);
        if (number[r] == CALC_NONE)
            number[r] = (uint32_t)p->nclasses++;
        if (i < nb)
            p->blocks[i].cls = number[r];
        else
            p->edges[i - nb].cls = number[r];
    }
    p->classes = calc_zalloc(p->nclasses ? p->nclasses : 1, sizeof *p->classes);
    for (size_t c = 0; c < p->nclasses; c++)
        p->classes[c].freq = -1;
    free(number);
    free(parent);
}
