/* The Ball-Larus path plan: see path-plan.h and oracle-format.h. */
#include "util/path-plan.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw-model/oracle-format.h"
#include "util/ball-larus.h"
#include "util/instrument.h"
#include "util/strvec.h"
#include "util/symbols.h"

_Static_assert(BL_ACT_ADD == ORACLE_PLAN_ACT_ADD && BL_ACT_ENTRY == ORACLE_PLAN_ACT_ENTRY &&
               BL_ACT_EXIT == ORACLE_PLAN_ACT_EXIT && BL_ACT_BACKEDGE == ORACLE_PLAN_ACT_BACKEDGE,
               "the plan's actions are ball-larus.h's");
_Static_assert(EDGE_CALL_RETURN == ORACLE_PLAN_EDGE_CALL_RETURN && EDGE_ENTRY == ORACLE_PLAN_EDGE_ENTRY &&
               EDGE_FALL == ORACLE_PLAN_EDGE_FALL && EDGE_TAKEN == ORACLE_PLAN_EDGE_TAKEN,
               "the plan's edge kinds are calc.h's");
_Static_assert(BL_OK == ORACLE_PLAN_OK && BL_TOO_MANY == ORACLE_PLAN_TOO_MANY, "the plan's status is bl_status");

static int by_from_to(const void *a, const void *b)
{
    const struct oracle_plan_edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->cfg_kind < y->cfg_kind ? -1 : x->cfg_kind > y->cfg_kind;
}

static int by_start(const void *a, const void *b)
{
    const struct oracle_plan_proc *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The original word at pc of an instrumented image (patches by pc). */
static void unpatch(uint32_t *words, uint64_t start, size_t n, const struct path_patch *patches, size_t npatches)
{
    size_t lo = 0, hi = npatches;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (patches[mid].pc < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < npatches && patches[lo].pc < start + 4 * n; lo++)
        words[(patches[lo].pc - start) / 4] = (uint32_t)patches[lo].word;
}

int path_plan_number(const struct symtab *st, const struct symbol *sym, const struct path_patch *patches,
                     size_t npatches, struct calc_proc *cfg, struct bl_proc *bl)
{
    uint64_t start = sym->start, end = symtab_symbol_end(st, sym);
    size_t n = (size_t)((end - start) / 4);
    if (!n)
        return -1;
    uint32_t *words = xmalloc(n * sizeof *words);
    struct model_params mp;
    model_params_default(&mp);
    if (!symtab_read(st, start, words, n * 4)) {
        free(words);
        return -1;
    }
    unpatch(words, start, n, patches, npatches);
    if (calc_cfg_build(cfg, &mp, start, words, n)) {
        free(words);
        return -1;
    }
    free(words);
    bl_number(bl, cfg, NULL);
    return 0;
}

/* A patched call or return of [start, end) that no edge names yet gets a
 * do-nothing edge saying what it was (from_flow), so the model follows
 * the calls of procedures it does not count too: an image instrumented
 * --cct or --both patches every call, in every procedure (oracle-format.h
 * from_flow). */
static void add_flow_edges(uint64_t start, uint64_t end, const struct path_patch *patches, size_t npatches,
                           struct oracle_plan_edge **edges, size_t first, size_t *nedges, size_t *cap)
{
    for (size_t k = 0; k < npatches; k++) {
        uint64_t pc = patches[k].pc;
        uint32_t w = (uint32_t)patches[k].word;
        unsigned op = w >> 26, func = (w >> 14) & 3;
        unsigned flow = op == 0x34 || (op == 0x1a && func == 1) ? ORACLE_PLAN_FLOW_CALL
                        : op == 0x1a && func == 2 ? ORACLE_PLAN_FLOW_RETURN : ORACLE_PLAN_FLOW_OTHER;
        if (pc < start || pc >= end || flow == ORACLE_PLAN_FLOW_OTHER)
            continue;
        bool named = false;
        for (size_t e = first; e < *nedges && !named; e++)
            named = (*edges)[e].from == pc;
        if (named)
            continue;
        if (*nedges == *cap) {
            *cap *= 2;
            *edges = xrealloc(*edges, *cap * sizeof **edges);
        }
        (*edges)[(*nedges)++] = (struct oracle_plan_edge){
            .from = pc, .to = flow == ORACLE_PLAN_FLOW_CALL ? pc + 4 : 0, .action = BL_ACT_ADD,
            .cfg_kind = flow == ORACLE_PLAN_FLOW_CALL ? EDGE_CALL_RETURN : EDGE_FALL, .from_flow = (uint16_t)flow};
    }
}

/* One procedure's edges appended to *edges; fills *pp. */
static void plan_proc(const struct symtab *st, const struct symbol *sym, const struct path_patch *patches,
                      size_t npatches, struct oracle_plan_proc *pp, struct oracle_plan_edge **edges,
                      size_t *nedges, size_t *cap)
{
    uint64_t start = sym->start, end = symtab_symbol_end(st, sym);
    *pp = (struct oracle_plan_proc){.start = start, .end = end, .status = BL_OVERFLOW, .first_edge = *nedges};
    struct calc_proc cfg;
    struct bl_proc bl;
    if (path_plan_number(st, sym, patches, npatches, &cfg, &bl)) {
        add_flow_edges(start, end, patches, npatches, edges, pp->first_edge, nedges, cap);
        pp->nedges = (uint32_t)(*nedges - pp->first_edge);
        qsort(*edges + pp->first_edge, pp->nedges, sizeof **edges, by_from_to);
        return;
    }
    pp->npaths = bl.npaths;
    pp->status = bl.status;
    for (size_t e = 0; e < cfg.nedges; e++) {
        const struct calc_edge *x = &cfg.edges[e];
        const struct bl_action *a = &bl.action[e];
        if (a->kind == BL_ACT_UNREACHABLE)
            continue;
        if (*nedges == *cap) {
            *cap *= 2;
            *edges = xrealloc(*edges, *cap * sizeof **edges);
        }
        const struct calc_block *src = x->from == CALC_NONE ? NULL : &cfg.blocks[x->from];
        const struct calc_insn *last = src ? &cfg.insns[src->first + src->n - 1] : NULL;
        enum calc_flow flow = last ? calc_flow_of(last->s.word, last->s.cls) : FLOW_NONE;
        (*edges)[(*nedges)++] = (struct oracle_plan_edge){
            .from = last ? last->pc : 0,
            .from_flow = flow == FLOW_CALL ? ORACLE_PLAN_FLOW_CALL
                         : flow == FLOW_RETURN ? ORACLE_PLAN_FLOW_RETURN : ORACLE_PLAN_FLOW_OTHER,
            .to = x->to == CALC_EXIT ? 0 : cfg.insns[cfg.blocks[x->to].first].pc,
            .action = a->kind, .cfg_kind = x->kind, .add = a->add, .reset = a->reset};
    }
    add_flow_edges(start, end, patches, npatches, edges, pp->first_edge, nedges, cap);
    pp->nedges = (uint32_t)(*nedges - pp->first_edge);
    qsort(*edges + pp->first_edge, pp->nedges, sizeof **edges, by_from_to);
    bl_free(&bl);
    calc_proc_free(&cfg);
}

int path_plan_write(const char *path, const char *const *images, size_t nimages, struct ap_err *err)
{
    size_t nprocs = 0, pcap = 64, nedges = 0, ecap = 1024;
    struct oracle_plan_proc *procs = xmalloc(pcap * sizeof *procs);
    struct oracle_plan_edge *edges = xmalloc(ecap * sizeof *edges);
    for (size_t i = 0; i < nimages; i++) {
        struct symtab *st;
        if (symtab_open(images[i], &st, err))
            continue;           /* (the run itself names a bad image) */
        struct path_patch *patches = NULL;
        size_t npatches = 0;
        struct ap_err e2;
        if (instrument_path_patches(images[i], &patches, &npatches, &e2))
            npatches = 0;
        uint64_t *runtime = NULL;
        size_t nruntime = 0, r = 0;
        if (instrument_runtime_entries(images[i], &runtime, &nruntime, &e2))
            nruntime = 0;
        size_t nsyms;
        const struct symbol *syms = symtab_symbols(st, &nsyms);
        for (size_t k = 0; k < nsyms; k++) {
            if (!strcmp(syms[k].name, INSTRUMENT_SYMBOL))
                continue;       /* the trampolines: the original has no such code */
            while (r < nruntime && runtime[r] < syms[k].start)
                r++;
            if (r < nruntime && runtime[r] == syms[k].start)
                continue;       /* the CCT slow path and its helpers (cct-region.h note 15): only trampolines
                                 * call it (--cct, --both), never the original; planned, it would look like
                                 * the callee of the call it serves */
            if (nprocs == pcap) {
                pcap *= 2;
                procs = xrealloc(procs, pcap * sizeof *procs);
            }
            plan_proc(st, &syms[k], patches, npatches, &procs[nprocs++], &edges, &nedges, &ecap);
        }
        free(patches);
        free(runtime);
        symtab_close(st);
    }
    qsort(procs, nprocs, sizeof *procs, by_start);
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int rc = 0;
    if (!f) {
        rc = ap_err_set(err, "cannot write the path plan %s: %s", tmp, strerror(errno));
    } else {
        struct oracle_plan_header h = {.magic = ORACLE_PLAN_MAGIC, .version = ORACLE_PLAN_VERSION,
                                       .nprocs = (uint32_t)nprocs, .nedges = nedges};
        fwrite(&h, sizeof h, 1, f);
        fwrite(procs, sizeof *procs, nprocs, f);
        fwrite(edges, sizeof *edges, nedges, f);
        int werr = ferror(f) ? EIO : 0;
        if (fclose(f) != 0 || werr || rename(tmp, path) != 0) {
            rc = ap_err_set(err, "cannot write the path plan %s: %s", path, strerror(werr ? werr : errno));
            unlink(tmp);
        }
    }
    free(procs);
    free(edges);
    return rc;
}
