/*
 * calc's CFG of one procedure (calc.h): blocks and edges from the image's
 * words, decoded with the shared table (hw-model/isa/alpha-insn.def).
 *
 * Invariants: blocks partition the instructions in address order; every
 * block but unreachable ones has an in edge; ENTRY's edge is edges[0]
 * (into block 0), and with a local entry (calc.h) edges[1] is ENTRY's
 * too, into the block that starts after the gp prologue;
 * each edge is in its source's out list and its target's in list.
 */
#include "util/calc.h"

#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"
#include "util/strvec.h"

const char *const calc_stack_names[CALC_NSTACK] = {CYCLE_CAUSE_NAMES "unexplained"};
/* base icache itb mispredict trap dcache_l2 dcache_mem dtb dependency
 * execute fu_busy queue_full serialise other, unexplained */
const char calc_stack_letters[CALC_NSTACK + 1] = "-iIpTddDaxfwmo?";
#define CALC_EV_NAME_(N, n) #n,
const char *const calc_event_names[CALC_NEV] = {CALC_EVENTS(CALC_EV_NAME_)};
#undef CALC_EV_NAME_
const char *const calc_confidence_names[3] = {"low", "medium", "high"};
const char *const calc_by_names[4] = {"unknown", "samples", "propagation", "branch_direction"};
const char *const calc_edge_kind_names[6] = {"fall", "taken", "call_return", "entry", "out", "table"};

void *calc_zalloc(size_t n, size_t size)
{
    size_t bytes = n * size;
    void *x = xmalloc(bytes > 0 ? bytes : 1);
    memset(x, 0, bytes);
    return x;
}

_Static_assert(sizeof calc_stack_letters == CALC_NSTACK + 1, "a letter per stack slot");

enum calc_flow calc_flow_of(uint32_t w, unsigned cls)
{
    switch (cls) {
    case ALPHA_BRANCH_COND: return FLOW_COND;
    case ALPHA_BRANCH:      return alpha_opcode(w) == 0x34 ? FLOW_CALL : FLOW_BRANCH;    /* bsr, br */
    case ALPHA_JUMP:
        switch ((w >> 14) & 3) {
        case 1:  return FLOW_CALL;          /* jsr */
        case 2:  return FLOW_RETURN;        /* ret */
        default: return FLOW_INDIRECT;      /* jmp, jsr_coroutine */
        }
    case ALPHA_PAL:         return (w & 0x3ffffff) == 0 ? FLOW_HALT : FLOW_NONE;
    default:                return FLOW_NONE;
    }
}

static void add_edge(struct calc_proc *p, size_t *cap, uint32_t from, uint32_t to, uint8_t kind)
{
    if (p->nedges == *cap) {
        *cap *= 2;
        p->edges = xrealloc(p->edges, *cap * sizeof *p->edges);
    }
    p->edges[p->nedges++] = (struct calc_edge){.from = from, .to = to, .kind = kind, .freq = -1};
}

int calc_cfg_build(struct calc_proc *p, const struct model_params *params, uint64_t start,
                   const uint32_t *words, size_t n)
{
    return calc_cfg_build_image(p, params, start, words, n, NULL);
}

bool calc_has_gp_prologue(const uint32_t *w, size_t n)
{
    enum { LDA = 0x08, LDAH = 0x09, PV = 27, GP = 29 };
    return n >= 2 && alpha_opcode(w[0]) == LDAH && alpha_ra(w[0]) == GP && alpha_rb(w[0]) == PV &&
           alpha_opcode(w[1]) == LDA && alpha_ra(w[1]) == GP && alpha_rb(w[1]) == GP;
}

double calc_entry_freq(const struct calc_proc *p)
{
    double f = 0;
    for (size_t e = 0; e < p->nedges && e < 2; e++)     /* (ENTRY's edges come first) */
        if (p->edges[e].kind == EDGE_ENTRY && p->edges[e].freq > 0)
            f += p->edges[e].freq;
    return f;
}

static int by_value(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int calc_cfg_build_image(struct calc_proc *p, const struct model_params *params, uint64_t start,
                         const uint32_t *words, size_t n, const struct calc_image *img)
{
    memset(p, 0, sizeof *p);
    if (!n)
        return -1;
    p->params = *params;
    p->start = start;
    p->n = n;
    p->insns = calc_zalloc(n, sizeof *p->insns);
    bool *leader = calc_zalloc(n + 1, sizeof *leader);
    uint64_t **table = calc_zalloc(n, sizeof *table);      /* each jmp's jump-table targets */
    size_t *ntable = calc_zalloc(n, sizeof *ntable);
    leader[0] = true;
    bool local_entry = img && img->local_entry && n > 2 && calc_has_gp_prologue(words, n);
    if (local_entry)
        leader[2] = true;
    for (size_t i = 0; i < n; i++) {
        struct calc_insn *in = &p->insns[i];
        in->pc = start + 4 * i;
        insn_static_decode(&in->s, in->pc, words[i]);
        in->static_culprit = in->culprit_insn = CALC_NONE;
        enum calc_flow f = calc_flow_of(words[i], in->s.cls);
        if (f == FLOW_NONE)
            continue;
        leader[i + 1] = true;
        if (f == FLOW_COND || f == FLOW_BRANCH) {
            uint64_t t = alpha_branch_target(in->pc, words[i]);
            if (t >= start && t < start + 4 * n)
                leader[(t - start) / 4] = true;
        }
        if (f == FLOW_INDIRECT) {
            ntable[i] = calc_jump_table(words, n, start, i, img, &table[i]);
            in->jump = ntable[i] ? JUMP_TABLE : JUMP_UNKNOWN;
            for (size_t k = 0; k < ntable[i]; k++)
                leader[(table[i][k] - start) / 4] = true;
        }
    }
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
        nb += leader[i];
    p->blocks = calc_zalloc(nb, sizeof *p->blocks);
    uint32_t *block_of = calc_zalloc(n, sizeof *block_of);
    for (size_t i = 0, b = (size_t)-1; i < n; i++) {
        if (leader[i]) {
            b++;
            p->blocks[b].first = (uint32_t)i;
        }
        p->blocks[b].n++;
        p->insns[i].block = block_of[i] = (uint32_t)b;
    }
    p->nblocks = nb;
    size_t cap = 2 * nb + 4;
    p->edges = xmalloc(cap * sizeof *p->edges);
    add_edge(p, &cap, CALC_NONE, 0, EDGE_ENTRY);
    if (local_entry)
        add_edge(p, &cap, CALC_NONE, block_of[2], EDGE_ENTRY);
    for (uint32_t b = 0; b < nb; b++) {
        size_t last = p->blocks[b].first + p->blocks[b].n - 1;
        uint32_t w = words[last];
        enum calc_flow f = calc_flow_of(w, p->insns[last].s.cls);
        uint32_t next = last + 1 < n ? block_of[last + 1] : CALC_EXIT;
        uint64_t t = alpha_branch_target(p->insns[last].pc, w);
        uint32_t target = t >= start && t < start + 4 * n ? block_of[(t - start) / 4] : CALC_EXIT;
        switch (f) {
        case FLOW_NONE:
            add_edge(p, &cap, b, next, next == CALC_EXIT ? EDGE_OUT : EDGE_FALL);
            break;
        case FLOW_COND:
            add_edge(p, &cap, b, next, next == CALC_EXIT ? EDGE_OUT : EDGE_FALL);
            add_edge(p, &cap, b, target, target == CALC_EXIT ? EDGE_OUT : EDGE_TAKEN);
            break;
        case FLOW_BRANCH:       /* br: a jump, or a tail call out of the procedure */
            add_edge(p, &cap, b, target, target == CALC_EXIT ? EDGE_OUT : EDGE_TAKEN);
            break;
        case FLOW_CALL:         /* the callee returns to the next instruction */
            add_edge(p, &cap, b, next, next == CALC_EXIT ? EDGE_OUT : EDGE_CALL_RETURN);
            break;
        case FLOW_INDIRECT:
            if (ntable[last]) {     /* a jump table: an edge to each distinct target block */
                uint32_t *to = calc_zalloc(ntable[last], sizeof *to);
                for (size_t k = 0; k < ntable[last]; k++)
                    to[k] = block_of[(table[last][k] - start) / 4];
                qsort(to, ntable[last], sizeof *to, by_value);
                for (size_t k = 0; k < ntable[last]; k++)
                    if (!k || to[k] != to[k - 1])
                        add_edge(p, &cap, b, to[k], EDGE_TABLE);
                free(to);
            } else {            /* targets unknown: marked */
                p->missing_edges = true;
                add_edge(p, &cap, b, CALC_EXIT, EDGE_OUT);
            }
            break;
        case FLOW_RETURN:
        case FLOW_HALT:
            add_edge(p, &cap, b, CALC_EXIT, EDGE_OUT);
            break;
        }
    }
    /* adjacency lists */
    for (size_t e = 0; e < p->nedges; e++) {
        if (p->edges[e].from != CALC_NONE)
            p->blocks[p->edges[e].from].nout++;
        if (p->edges[e].to != CALC_EXIT)
            p->blocks[p->edges[e].to].nin++;
    }
    for (size_t b = 0; b < nb; b++) {
        p->blocks[b].in = calc_zalloc(p->blocks[b].nin + 1, sizeof(uint32_t));
        p->blocks[b].out = calc_zalloc(p->blocks[b].nout + 1, sizeof(uint32_t));
        p->blocks[b].nin = p->blocks[b].nout = 0;
    }
    for (size_t e = 0; e < p->nedges; e++) {
        struct calc_edge *x = &p->edges[e];
        if (x->from != CALC_NONE)
            p->blocks[x->from].out[p->blocks[x->from].nout++] = (uint32_t)e;
        if (x->to != CALC_EXIT)
            p->blocks[x->to].in[p->blocks[x->to].nin++] = (uint32_t)e;
    }
    for (size_t i = 0; i < n; i++)
        free(table[i]);
    free(table);
    free(ntable);
    free(leader);
    free(block_of);
    return 0;
}

void calc_proc_free(struct calc_proc *p)
{
    for (size_t b = 0; b < p->nblocks; b++) {
        free(p->blocks[b].in);
        free(p->blocks[b].out);
    }
    free(p->blocks);
    free(p->edges);
    free(p->insns);
    free(p->classes);
    memset(p, 0, sizeof *p);
}

int calc_analyse(struct calc_proc *p, const struct model_params *params, uint64_t start,
                 const uint32_t *words, size_t n, const struct calc_rates *r)
{
    if (calc_cfg_build(p, params, start, words, n))
        return -1;
    calc_equivalence(p);
    calc_schedule(p);
    calc_estimate(p, r);
    calc_refine(p, r);
    return 0;
}
