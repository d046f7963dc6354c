/*
 * Ball-Larus path numbering and increment placement (ball-larus.h, whose
 * notes this follows): backedges by depth-first search, the DAG with its
 * pseudo edges, numpaths and vals in reverse topological order, a
 * maximum-weight spanning tree by Kruskal with union-find, the potential
 * and the chords' increments, and path regeneration.
 */
#include "util/ball-larus.h"

#include <stdlib.h>
#include <string.h>

#include "util/strvec.h"

const char *const bl_status_names[4] = {"ok", "indirect-jump", "too-many-paths", "overflow"};

/* Retreating edges of a DFS from block 0; reach[] marks reached blocks. */
static void find_backedges(const struct calc_proc *cfg, bool *back, bool *reach)
{
    size_t nb = cfg->nblocks;
    uint8_t *state = calc_zalloc(nb, 1);        /* 0 new, 1 on the stack, 2 done */
    uint32_t *stack = calc_zalloc(nb + 1, sizeof *stack), *pos = calc_zalloc(nb + 1, sizeof *pos);
    size_t sp = 0;
    stack[sp] = 0;
    pos[sp++] = 0;
    state[0] = 1;
    while (sp) {
        uint32_t b = stack[sp - 1];
        const struct calc_block *bk = &cfg->blocks[b];
        if (pos[sp - 1] == bk->nout) {
            state[b] = 2;
            sp--;
            continue;
        }
        uint32_t e = bk->out[pos[sp - 1]++];
        uint32_t t = cfg->edges[e].to;
        if (t == CALC_EXIT)
            continue;
        if (state[t] == 1)
            back[e] = true;
        else if (state[t] == 0) {
            state[t] = 1;
            stack[sp] = t;
            pos[sp++] = 0;
        }
    }
    for (size_t b = 0; b < nb; b++)
        reach[b] = state[b] != 0;
    free(state);
    free(stack);
    free(pos);
}

static uint32_t node_of(const struct bl_proc *bl, uint32_t b, bool from)
{
    if (from && b == CALC_NONE)
        return bl_entry(bl);
    if (!from && b == CALC_EXIT)
        return bl_exit(bl);
    return b;
}

static void push_edge(struct bl_proc *bl, uint32_t from, uint32_t to, uint32_t cfg_edge, uint8_t kind)
{
    bl->edges[bl->nedges++] = (struct bl_edge){.from = from, .to = to, .cfg_edge = cfg_edge, .kind = kind};
}

/* Nodes in topological order of the DAG (Kahn); returns how many. */
static size_t topo_order(const struct bl_proc *bl, uint32_t *order)
{
    uint32_t *indeg = calc_zalloc(bl->nnodes, sizeof *indeg);
    for (size_t e = 0; e < bl->nedges; e++)
        indeg[bl->edges[e].to]++;
    size_t head = 0, tail = 0;
    order[tail++] = bl_entry(bl);
    while (head < tail) {
        uint32_t v = order[head++];
        for (uint32_t k = bl->out_start[v]; k < bl->out_start[v + 1]; k++) {
            uint32_t t = bl->edges[bl->out[k]].to;
            if (--indeg[t] == 0)
                order[tail++] = t;
        }
    }
    free(indeg);
    return tail;
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

struct weighted {
    double w;
    uint32_t e;
};

static int by_weight_desc(const void *a, const void *b)
{
    const struct weighted *x = a, *y = b;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;      /* deterministic */
}

/* Spanning tree (note 4) and the chords' increments. */
static void place_increments(struct bl_proc *bl, const double *weight)
{
    size_t n = bl->nnodes, m = bl->nedges;
    struct weighted *ws = calc_zalloc(m, sizeof *ws);
    for (size_t e = 0; e < m; e++) {
        const struct bl_edge *x = &bl->edges[e];
        /* a pseudo edge runs as often as its backedge */
        ws[e] = (struct weighted){.w = weight ? weight[x->cfg_edge] : 1.0, .e = (uint32_t)e};
    }
    qsort(ws, m, sizeof *ws, by_weight_desc);
    uint32_t *parent = calc_zalloc(n, sizeof *parent);
    for (uint32_t v = 0; v < n; v++)
        parent[v] = v;
    /* EXIT -> ENTRY first: it is always in the tree */
    parent[find(parent, bl_exit(bl))] = find(parent, bl_entry(bl));
    bool *tree = calc_zalloc(m, sizeof *tree);
    /* tree adjacency, for the potential */
    uint32_t *adj_start = calc_zalloc(n + 1, sizeof *adj_start), *adj = calc_zalloc(2 * m + 1, sizeof *adj);
    for (size_t i = 0; i < m; i++) {
        uint32_t e = ws[i].e;
        uint32_t a = find(parent, bl->edges[e].from), b = find(parent, bl->edges[e].to);
        if (a != b) {
            parent[a] = b;
            tree[e] = true;
            adj_start[bl->edges[e].from + 1]++;
            adj_start[bl->edges[e].to + 1]++;
        }
    }
    for (size_t v = 0; v < n; v++)
        adj_start[v + 1] += adj_start[v];
    uint32_t *fill = calc_zalloc(n, sizeof *fill);
    for (size_t e = 0; e < m; e++)
        if (tree[e]) {
            uint32_t f = bl->edges[e].from, t = bl->edges[e].to;
            adj[adj_start[f] + fill[f]++] = (uint32_t)e;
            adj[adj_start[t] + fill[t]++] = (uint32_t)e;
        }
    /* potential by a walk over the tree from ENTRY and from EXIT (the two
     * halves the forced EXIT -> ENTRY edge joins, both at potential 0) */
    int64_t *pot = calc_zalloc(n, sizeof *pot);
    bool *seen = calc_zalloc(n, sizeof *seen);
    uint32_t *queue = calc_zalloc(n, sizeof *queue);
    size_t head = 0, tail = 0;
    queue[tail++] = bl_entry(bl);
    queue[tail++] = bl_exit(bl);
    seen[bl_entry(bl)] = seen[bl_exit(bl)] = true;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t k = adj_start[v]; k < adj_start[v + 1]; k++) {
            const struct bl_edge *x = &bl->edges[adj[k]];
            uint32_t other = x->from == v ? x->to : x->from;
            if (seen[other])
                continue;
            seen[other] = true;
            pot[other] = x->from == v ? pot[v] + (int64_t)x->val : pot[v] - (int64_t)x->val;
            queue[tail++] = other;
        }
    }
    bl->nchords = 0;
    for (size_t e = 0; e < m; e++) {
        struct bl_edge *x = &bl->edges[e];
        x->chord = !tree[e];
        x->inc = pot[x->from] + (int64_t)x->val - pot[x->to];
        bl->nchords += x->inc != 0;
    }
    free(ws);
    free(parent);
    free(tree);
    free(adj_start);
    free(adj);
    free(fill);
    free(pot);
    free(seen);
    free(queue);
}

int bl_number(struct bl_proc *bl, const struct calc_proc *cfg, const double *weight)
{
    memset(bl, 0, sizeof *bl);
    if (!cfg->nblocks)
        return -1;
    size_t nb = cfg->nblocks, ne = cfg->nedges;
    bl->nblocks = nb;
    bl->nnodes = nb + 2;
    bl->ncfg_edges = ne;
    bl->backedge = calc_zalloc(ne, sizeof *bl->backedge);
    bl->action = calc_zalloc(ne, sizeof *bl->action);
    bool *reach = calc_zalloc(nb, sizeof *reach);
    find_backedges(cfg, bl->backedge, reach);

    /* the DAG: real edges in CFG order, then two pseudo edges per backedge */
    size_t nback = 0;
    for (size_t e = 0; e < ne; e++)
        nback += bl->backedge[e];
    bl->edges = calc_zalloc(ne + 2 * nback, sizeof *bl->edges);
    for (size_t e = 0; e < ne; e++) {
        const struct calc_edge *x = &cfg->edges[e];
        if (x->from != CALC_NONE && !reach[x->from]) {
            bl->action[e].kind = BL_ACT_UNREACHABLE;
            continue;
        }
        if (!bl->backedge[e])
            push_edge(bl, node_of(bl, x->from, true), node_of(bl, x->to, false), (uint32_t)e, BL_EDGE_REAL);
    }
    for (size_t e = 0; e < ne; e++)
        if (bl->backedge[e]) {
            push_edge(bl, bl_entry(bl), cfg->edges[e].to, (uint32_t)e, BL_EDGE_PSEUDO_ENTRY);
            push_edge(bl, cfg->edges[e].from, bl_exit(bl), (uint32_t)e, BL_EDGE_PSEUDO_EXIT);
        }
    bl->out_start = calc_zalloc(bl->nnodes + 1, sizeof *bl->out_start);
    bl->out = calc_zalloc(bl->nedges + 1, sizeof *bl->out);
    for (size_t e = 0; e < bl->nedges; e++)
        bl->out_start[bl->edges[e].from + 1]++;
    for (size_t v = 0; v < bl->nnodes; v++)
        bl->out_start[v + 1] += bl->out_start[v];
    uint32_t *fill = calc_zalloc(bl->nnodes, sizeof *fill);
    for (size_t e = 0; e < bl->nedges; e++) {
        uint32_t f = bl->edges[e].from;
        bl->out[bl->out_start[f] + fill[f]++] = (uint32_t)e;
    }
    free(fill);

    /* numpaths and vals, in reverse topological order (note 3) */
    bl->numpaths = calc_zalloc(bl->nnodes, sizeof *bl->numpaths);
    uint32_t *order = calc_zalloc(bl->nnodes, sizeof *order);
    size_t norder = topo_order(bl, order);
    bool overflow = false;
    for (size_t i = norder; i-- > 0;) {
        uint32_t v = order[i];
        if (v == bl_exit(bl)) {
            bl->numpaths[v] = 1;
            continue;
        }
        uint64_t sum = 0;
        for (uint32_t k = bl->out_start[v]; k < bl->out_start[v + 1]; k++) {
            struct bl_edge *x = &bl->edges[bl->out[k]];
            x->val = sum;
            uint64_t np = bl->numpaths[x->to];
            if (sum > UINT64_MAX / 2 || np > UINT64_MAX / 2 - sum) {
                overflow = true;
                sum = UINT64_MAX / 2;
            } else {
                sum += np;
            }
        }
        bl->numpaths[v] = sum;
    }
    free(order);
    bl->npaths = overflow ? UINT64_MAX : bl->numpaths[bl_entry(bl)];
    bl->status = overflow ? BL_OVERFLOW : cfg->missing_edges ? BL_INDIRECT
               : bl->npaths > BL_MAX_PATHS ? BL_TOO_MANY : BL_OK;
    if (!overflow)
        place_increments(bl, weight);

    /* what runs on each CFG edge (note 5) */
    for (size_t e = 0; e < bl->nedges; e++) {
        const struct bl_edge *x = &bl->edges[e];
        struct bl_action *a = &bl->action[x->cfg_edge];
        switch (x->kind) {
        case BL_EDGE_REAL:
            a->kind = x->from == bl_entry(bl) ? BL_ACT_ENTRY : x->to == bl_exit(bl) ? BL_ACT_EXIT : BL_ACT_ADD;
            a->add = x->inc;
            break;
        case BL_EDGE_PSEUDO_ENTRY:
            a->kind = BL_ACT_BACKEDGE;
            a->reset = x->inc;
            break;
        case BL_EDGE_PSEUDO_EXIT:
            a->kind = BL_ACT_BACKEDGE;
            a->add = x->inc;
            break;
        }
    }
    free(reach);
    return 0;
}

void bl_free(struct bl_proc *bl)
{
    free(bl->numpaths);
    free(bl->edges);
    free(bl->out);
    free(bl->out_start);
    free(bl->backedge);
    free(bl->action);
    memset(bl, 0, sizeof *bl);
}

bool bl_step(const struct bl_proc *bl, uint32_t e, int64_t *r, uint64_t *done)
{
    const struct bl_action *a = &bl->action[e];
    switch (a->kind) {
    case BL_ACT_ENTRY:
        *r = a->add;
        return false;
    case BL_ACT_ADD:
        *r += a->add;
        return false;
    case BL_ACT_EXIT:
        *done = (uint64_t)(*r + a->add);
        return true;
    case BL_ACT_BACKEDGE:
        *done = (uint64_t)(*r + a->add);
        *r = a->reset;
        return true;
    default:
        return false;
    }
}

int bl_regenerate(const struct bl_proc *bl, uint64_t r, struct bl_path *path)
{
    memset(path, 0, sizeof *path);
    if (bl->status == BL_OVERFLOW || r >= bl->npaths)
        return -1;
    size_t cap = 16;
    path->blocks = xmalloc(cap * sizeof *path->blocks);
    path->dag_edges = xmalloc((cap + 1) * sizeof *path->dag_edges);     /* (one more than blocks) */
    uint32_t v = bl_entry(bl);
    bool first = true;
    while (v != bl_exit(bl)) {
        /* the out edge with the largest val <= r (vals rise along out[]) */
        uint32_t pick = UINT32_MAX;
        for (uint32_t k = bl->out_start[v]; k < bl->out_start[v + 1]; k++) {
            const struct bl_edge *x = &bl->edges[bl->out[k]];
            if (x->val <= r && bl->numpaths[x->to] > r - x->val)
                pick = bl->out[k];
        }
        if (pick == UINT32_MAX) {       /* cannot happen for r < npaths */
            bl_path_free(path);
            return -1;
        }
        const struct bl_edge *x = &bl->edges[pick];
        r -= x->val;
        path->dag_edges[path->ndag++] = pick;
        if (first) {
            path->from_backedge = x->kind == BL_EDGE_PSEUDO_ENTRY;
            path->first_cfg_edge = x->cfg_edge;
            first = false;
        }
        if (x->to == bl_exit(bl)) {
            path->to_backedge = x->kind == BL_EDGE_PSEUDO_EXIT;
            path->last_cfg_edge = x->cfg_edge;
        } else {
            if (path->n == cap) {
                cap *= 2;
                path->blocks = xrealloc(path->blocks, cap * sizeof *path->blocks);
                path->dag_edges = xrealloc(path->dag_edges, (cap + 1) * sizeof *path->dag_edges);
            }
            path->blocks[path->n++] = x->to;
        }
        v = x->to;
    }
    return 0;
}

void bl_path_free(struct bl_path *path)
{
    free(path->blocks);
    free(path->dag_edges);
    memset(path, 0, sizeof *path);
}
