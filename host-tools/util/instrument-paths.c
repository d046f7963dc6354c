/*
 * alphaprof instrument --paths and --both (util/instrument-emit.h note 1):
 * one procedure's trampolines and the patches that reach them, the path
 * table the monitor and host read, and the two entry points.
 */
#include "util/instrument-emit.h"

#include <stdio.h>

/* Emits every trampoline of one procedure and patches its instructions. */
static void paths_emit(struct path_out *po, const struct calc_proc *cfg, const struct bl_proc *bl, uint64_t E,
                       struct pmode *m, const uint32_t *live)
{
    struct code *c = po->c;
    uint64_t t;
    uint8_t *kind = calc_zalloc(cfg->nblocks + 1, 1);
    int64_t *val = calc_zalloc(cfg->nblocks + 1, sizeof *val);
    known_numbers(cfg, bl, kind, val);
    m->rk = false;
    /* the entry */
    if (m->constant)
        goto block_ends;
    align_tramp(c);
    t = here(c);
    const struct bl_action *entry = NULL;
    for (size_t k = 0; k < cfg->nedges; k++)
        if (cfg->edges[k].kind == EDGE_ENTRY)
            entry = &bl->action[k];
    struct bl_action push = {.kind = BL_ACT_ENTRY, .add = entry ? entry->add : 0};
    size_t ei = (E - cfg->start) / 4;
    m->fbody = false;           /* (frame mode: sp is the caller's at the entry, frame_plan) */
    spill_below = m->frame ? frame_slots(m) : 8 * (int)m->nhold;
    put_held(c, m, OP_STQ);                     /* (note 16: held up to each return) */
    put_edge_code(c, m, &push, live[ei]);
    put(c, cfg->insns[ei].s.word);
    put_branch(c, OP_BR, R_ZERO, E + 4);
    put_stubs(c, m);
    thread_branches(c, (size_t)(t - c->base));
    add_patch(po, E, t, OP_BR, R_ZERO);
block_ends:
    /* the block ends */
    for (uint32_t b = 0; b < cfg->nblocks; b++) {
        const struct calc_block *x = &cfg->blocks[b];
        bool any = false;
        for (uint32_t i = 0; i < x->nout; i++)
            if (!edge_trivial(m, &bl->action[x->out[i]]))
                any = true;
        if (!x->n)
            continue;
        uint32_t li = x->first + x->n - 1;
        const struct calc_insn *L = &cfg->insns[li];
        uint32_t w = L->s.word;
        uint64_t pc = L->pc, next = pc + 4;
        bool twice = calls_twice(po, pc, w);
        if (!any && !twice)
            continue;
        m->rk = kind[b] == 1;
        m->rv = val[b];
        unsigned ra = (w >> 21) & 31, rb = (w >> 16) & 31;
        enum calc_flow f = calc_flow_of(w, L->s.cls);
        if (m->frame) {
            /* sp where the edge's code runs: after L when L falls through */
            uint32_t use, def;
            liveness_regs(w, &use, &def);
            m->fbody = m->fstate[li] ^ (f == FLOW_NONE && (def & bit(R_SP)));
            spill_below = m->fbody ? 0 : frame_slots(m);
        }
        const struct bl_action *a = &bl->action[x->out[0]];
        uint32_t after = liveness_at_edge(cfg, live, li, cfg->edges[x->out[0]].to);
        align_tramp(c);
        t = here(c);
        unsigned patch_op = OP_BR, patch_ra = R_ZERO;
        struct site *cs = f == FLOW_CALL && po->sites ? site_at(po, pc) : NULL;
        if (cs && twice) {
            /* --both (cct-region.h note 10): its CCT trampoline makes the
             * call and comes back here after either return */
            cs->resume = t;
            put_unwind_paths(c, after);
            put_edge_code(c, m, a, after);
            put_const(c, ra, next);
            put_branch(c, OP_BR, R_ZERO, next);
            put_stubs(c, m);
            continue;
        }
        if (cs) {
            /* --both: the edge's action, then the call's CCT trampoline */
            put_edge_code(c, m, a, live[li]);
            if (po->nfix == po->fixcap) {
                po->fixcap = po->fixcap ? 2 * po->fixcap : 256;
                po->fix = realloc(po->fix, po->fixcap * sizeof *po->fix);
                if (!po->fix)
                    abort();
            }
            po->fix[po->nfix++] = (struct site_fix){put_fwd(c, OP_BR, R_ZERO), (unsigned)(cs - po->sites)};
            cs->from_paths = true;
            put_stubs(c, m);
            add_patch(po, pc, t, OP_BR, R_ZERO);
            continue;
        }
        switch (f) {
        case FLOW_COND: {
            int fe = edge_of(cfg, b, EDGE_FALL), te = fe;
            for (uint32_t i = 0; i < x->nout; i++)
                if (cfg->edges[x->out[i]].kind != EDGE_FALL)
                    te = (int)x->out[i];
            const struct bl_action *fall = &bl->action[fe], *taken = &bl->action[te];
            uint32_t fall_live = liveness_at_edge(cfg, live, li, cfg->edges[fe].to);
            uint32_t taken_live = liveness_at_edge(cfg, live, li, cfg->edges[te].to);
            if (edge_trivial(m, fall)) {
                /* only the taken edge acts: the branch itself goes to the trampoline */
                patch_op = w >> 26;
                patch_ra = ra;
                put_edge_code(c, m, taken, taken_live);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            } else if (m->kback && m->kback[te]) {
                /* a loop counted in a register (path-region.h note 9): its
                 * backedge falls through the trampoline, the exit is taken
                 * (the branch inverted: op ^ 4 for every conditional one) */
                struct fixup to_fall = put_fwd(c, (w >> 26) ^ 4u, ra);
                put_edge_code(c, m, taken, taken_live);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
                land(c, to_fall);
                put_edge_code(c, m, fall, fall_live);
                put_branch(c, OP_BR, R_ZERO, next);
            } else if (edge_trivial(m, taken)) {
                put_branch(c, w >> 26, ra, alpha_branch_target(pc, w));
                put_edge_code(c, m, fall, fall_live);
                put_branch(c, OP_BR, R_ZERO, next);
            } else {
                struct fixup to_taken = put_fwd(c, w >> 26, ra);
                put_edge_code(c, m, fall, fall_live);
                put_branch(c, OP_BR, R_ZERO, next);
                land(c, to_taken);
                put_edge_code(c, m, taken, taken_live);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            }
            break;
        }
        case FLOW_BRANCH:
            put_edge_code(c, m, a, after | bit(ra));
            if (ra != R_ZERO)
                put_const(c, ra, next);
            put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            break;
        case FLOW_CALL:
            if (twice) {
                /* called from here, so that both returns come back here
                 * (path-region.h note 6); ra as the original's after */
                put_branch(c, OP_BSR, ra, alpha_branch_target(pc, w));
                put_unwind_paths(c, after);
                put_edge_code(c, m, a, after);
                put_const(c, ra, next);
                put_branch(c, OP_BR, R_ZERO, next);
                break;
            }
            put_edge_code(c, m, a, live[li]);
            if (w >> 26 == OP_BSR) {
                put_const(c, ra, next);
                put_branch(c, OP_BR, R_ZERO, alpha_branch_target(pc, w));
            } else if (rb != ra) {
                put_const(c, ra, next);
                put(c, (w & ~(31u << 21)) | (uint32_t)R_ZERO << 21);
            } else {
                put(c, w);
                put_const(c, ra, next);
                put_branch(c, OP_BR, R_ZERO, next);
            }
            break;
        case FLOW_RETURN:
            put_edge_code(c, m, a, live[li]);
            put_held(c, m, OP_LDQ);
            put(c, w);
            break;
        case FLOW_HALT:
            put_edge_code(c, m, a, live[li]);
            put(c, w);
            put_branch(c, OP_BR, R_ZERO, next);
            break;
        default:                /* FLOW_NONE: falls into a block others branch to */
            put(c, w);
            put_edge_code(c, m, a, after);
            put_branch(c, OP_BR, R_ZERO, next);
            break;
        }
        put_stubs(c, m);
        thread_branches(c, (size_t)(t - c->base));
        add_patch(po, pc, t, patch_op, patch_ra);
    }
    /* exits moved to a block's first instruction (path-region.h note 10) */
    for (unsigned i = 0; i < m->nsink; i++) {
        const struct calc_insn *F = &cfg->insns[m->sink[i].insn];
        m->rk = false;
        if (m->frame) {
            m->fbody = m->fstate[m->sink[i].insn];
            spill_below = m->fbody ? 0 : frame_slots(m);
        }
        align_tramp(c);
        t = here(c);
        put_iv_fixup(c, m, m->sink[i].k, m->sink[i].ib, live[m->sink[i].insn]);
        put(c, F->s.word);
        put_branch(c, OP_BR, R_ZERO, F->pc + 4);
        put_stubs(c, m);
        thread_branches(c, (size_t)(t - c->base));
        add_patch(po, F->pc, t, OP_BR, R_ZERO);
    }
    m->rk = false;
    spill_below = 0;
    free(kind);
    free(val);
    free(m->fstate);
    m->fstate = NULL;
    free(m->kzero);
    free(m->kflush);
    free(m->kback);
    free(m->kskip);
    free(m->kneut);
    free(m->kib);
    free(m->kxib);
    free(m->kadj);
    free(m->kread);
    m->kzero = m->kflush = m->kback = m->kskip = m->kneut = m->kib = m->kxib = m->kread = NULL;
    m->kadj = NULL;
    m->nk = m->nsink = 0;
}

/* The functions that return twice among syms (setjmp's kind: path-
 * region.h note 6), as many as po keeps. */
static void collect_twice(struct path_out *po, const struct symbol *syms, size_t nsyms)
{
    for (size_t k = 0; k < nsyms && po->ntwice < sizeof po->twice / sizeof *po->twice; k++)
        if (returns_twice(syms[k].name))
            po->twice[po->ntwice++] = syms[k].start;
}

/* Numbers procedure s into cfg and bl, starts its path table entry tp
 * and says in *why whether it can be instrumented (*E: paths_check's);
 * false when it has no numbering (tp says so, nothing to free). */
static bool number_proc(struct symtab *sy, const struct symbol *s, const struct proc *procs, unsigned nprocs,
                        struct path_table_proc *tp, struct calc_proc *cfg, struct bl_proc *bl, uint64_t *E,
                        enum path_skip *why)
{
    *tp = (struct path_table_proc){.start = s->start, .status = PATH_SKIP_NUMBERING};
    if (path_plan_number(sy, s, NULL, 0, cfg, bl))
        return false;
    tp->npaths = bl->npaths;
    *E = 0;
    *why = runtime_entry(procs, nprocs, s->start) ? PATH_SKIP_RUNTIME : paths_check(cfg, bl, s->start, E);
    return true;
}

/* Frame mode (path-region.h note 11): the instructions that make and
 * drop the procedure's frame grow it by frame_slots(m) in cfg's copy; their
 * indices are returned (*n of them) to be patched once it is emitted. */
static uint32_t *grow_frame(struct calc_proc *cfg, const struct pmode *m, size_t *n)
{
    uint32_t *at = calc_zalloc(cfg->n + 1, sizeof *at);
    for (size_t i = 0; i < cfg->n; i++) {
        uint32_t w = cfg->insns[i].s.word;
        int64_t d = alpha_disp16(w);
        if (w >> 26 == OP_LDA && alpha_ra(w) == R_SP && alpha_rb(w) == R_SP && (d == m->fsize || d == -m->fsize)) {
            cfg->insns[i].s.word = mem(OP_LDA, R_SP, R_SP, (int)(d + (d < 0 ? -1 : 1) * frame_slots(m)));
            at[(*n)++] = (uint32_t)i;
        }
    }
    return at;
}

/* One planned procedure's trampolines and patches (its frame's grown
 * instructions among them: grow_frame), and its line in st; frees
 * frame_at and live.  `before`: the patches made before it. */
static void emit_counted(struct path_out *po, const struct calc_proc *cfg, const struct bl_proc *bl, uint64_t E,
                         struct pmode *m, uint32_t *live, bool hashed, uint32_t *frame_at, size_t nframe,
                         size_t before, struct instrument_path_stats *st)
{
    count_loops(st, m);
    hashing.on = hashed;
    hashing.id = m->base;
    paths_emit(po, cfg, bl, E, m, live);
    hashing.on = hashing.ctx = false;
    hashing.tmp = R_ZERO;
    for (size_t k = 0; k < nframe; k++)
        patch_word(po, before, cfg->insns[frame_at[k]].pc, cfg->insns[frame_at[k]].s.word);
    free(frame_at);
    free(live);
    st->frame_procs += m->frame;
    st->hashed_procs += hashed;
    st->procs++;
    st->patched += po->npatches - before;
}

/* Ends the segment with the path table, the patches and the trailer
 * (path-region.h); then whether the segment can be written: -1 with err
 * set when a number did not fit (bad), a trampoline is out of a branch's
 * reach, or the segment ends past the image area. */
static int put_path_table(struct code *c, const struct path_table_proc *table, size_t nsyms,
                          const struct path_out *po, bool bad, const char *in, struct ap_err *err)
{
    for (size_t k = 0; k < nsyms; k++)
        for (size_t b = 0; b < sizeof table[k] / 4; b++)
            put(c, ((const uint32_t *)&table[k])[b]);
    for (size_t k = 0; k < po->npatches; k++) {
        put64(c, po->patches[k].pc);
        put64(c, po->patches[k].word);
    }
    put64(c, PATH_TABLE_MAGIC);
    put64(c, nsyms);
    put64(c, po->npatches);
    if (bad)
        return ap_err_set(err, "%s: a path number or counter offset does not fit 31 bits; this instrumenter "
                          "cannot count it", in);
    return segment_fits(c, in, err);
}

/* --hash-slots N out of range: err set, -1. */
static int hash_slots_bad(uint64_t hash_slots, struct ap_err *err)
{
    if (hash_slots && (hash_slots < PATH_HASH_MIN_SLOTS || hash_slots > PATH_HASH_MAX_SLOTS ||
                       (hash_slots & (hash_slots - 1))))
        return ap_err_set(err, "--hash-slots %llu: give 0 (no hash table) or a power of two from %d to %d",
                          (unsigned long long)hash_slots, PATH_HASH_MIN_SLOTS, PATH_HASH_MAX_SLOTS);
    return 0;
}

/* A hashed procedure's path register (path-region.h notes 14, 15): a
 * leaf's P, a callee-saved P, or memory; no counters' address. */
static void hashed_mode(struct pmode *m)
{
    m->constant = m->kept = m->known = m->addr = false;
    m->Y = m->S = m->T = m->W = R_ZERO;
    if (m->npaths >= PATH_POISON) {     /* (a poisoned P would be a number) */
        m->leaf = m->saved = false;
        m->P = R_ZERO;
    }
}

/* The hashing state back to off, for the next image. */
static void hashing_end(void)
{
    free(hashing.fix);
    memset(&hashing, 0, sizeof hashing);
    hashing.tmp = R_ZERO;
}

/* The metrics asked for: none (event < 0), else cycles and `event`; -1
 * with err set for an event that cannot be the second one. */
static int meter_for(int event, struct meter *mt, struct ap_err *err)
{
    *mt = (struct meter){.on = event >= 0};
    if (!mt->on)
        return 0;
    if (event == PMU_EV_CYCLES || event >= PMU_EV_COUNT)
        return ap_err_set(err, "the event beside cycles cannot be cycles itself; name another (%s)",
                          PMU_EVENT_LIST_TEXT);
    mt->ev_off = event == PMU_EV_RETIRED ? PMU_RETIRED_OFF : (int)PMU_TOTALS_OFF(event);
    return 0;
}

int instrument_paths(const char *in, const char *out, int event, uint64_t hash_slots,
                     struct instrument_path_stats *st, struct ap_err *err)
{
    struct meter mt;
    if (hash_slots_bad(hash_slots, err) || meter_for(event, &mt, err))
        return -1;
    uint64_t max_counters = mt.on ? PATH_MAX_METERED : PATH_MAX_COUNTERS;
    hashing.slots = hash_slots;
    hashing.nfix = 0;
    if (hash_slots)     /* room always left for the smallest table (path-region.h note 14) */
        max_counters -= (PATH_HASH_TABLE_SLOTS(PATH_HASH_MIN_SLOTS) * PATH_HASH_SLOT_SIZE + 128) / slot_size(&mt);
    unsigned nhashed = 0;
    struct image_header hdr;
    if (image_check_file(in, &hdr, err))
        return -1;
    struct elf_in e = {0};
    struct symtab *sy = NULL;
    struct code c = {0};
    struct path_out po = {.c = &c, .e = &e};
    struct path_table_proc *table = NULL;
    struct proc *procs = NULL;          /* for the runtime's (cct-region.h note 15) */
    unsigned nprocs = 0;
    int symtab, rc = -1;
    memset(st, 0, sizeof *st);

    if (read_original(in, &e, &procs, &nprocs, &symtab, err))
        goto done;
    if (symtab_open(in, &sy, err))
        goto done;
    c.base = segment_base(&e, &hdr);
    size_t nsyms;
    const struct symbol *syms = symtab_symbols(sy, &nsyms);
    table = calloc(nsyms + 1, sizeof *table);
    uint64_t counters = 0;
    bool bad = false;
    collect_twice(&po, syms, nsyms);
    bool sp_tags = false;       /* any direct call to one (path-region.h note 6) */
    for (size_t k = 0; k < nsyms && po.ntwice && !sp_tags; k++) {
        uint64_t from = syms[k].start, to = symtab_symbol_end(sy, &syms[k]);
        for (uint64_t pc = from; pc + 4 <= to && !sp_tags; pc += 4) {
            const uint8_t *w = at_addr(&e, pc, 4);
            uint32_t word;
            if (!w)
                break;
            memcpy(&word, w, 4);
            sp_tags = calls_twice(&po, pc, word);
        }
    }
    for (size_t k = 0; k < nsyms; k++) {
        struct path_table_proc *tp = &table[k];
        struct calc_proc cfg;
        struct bl_proc bl;
        uint64_t E;
        enum path_skip why;
        if (!number_proc(sy, &syms[k], procs, nprocs, tp, &cfg, &bl, &E, &why))
            continue;
        bool hashed = why == PATH_INSTRUMENTED && bl.status == BL_TOO_MANY;     /* (paths_check: hashing is on) */
        tp->metrics = mt.on && !hashed ? (uint32_t)event + 1 : 0;
        if (why == PATH_INSTRUMENTED && (hashed ? nhashed >= PATH_HASH_MAX_PROCS : counters + bl.npaths > max_counters))
            why = PATH_SKIP_NO_ROOM;
        tp->status = why;
        if (why == PATH_INSTRUMENTED) {
            tp->instrumented = hashed ? 1 | PATH_HASHED : 1;
            tp->base = hashed ? nhashed : (uint32_t)counters;
            size_t before = po.npatches;
            /* the same numbers, increments placed where they cost least */
            double *wt = tree_weights(&cfg, &bl);
            bl_free(&bl);
            bl_number(&bl, &cfg, wt);
            free(wt);
            uint32_t *live = calc_zalloc(cfg.n, sizeof *live);
            liveness_compute(&cfg, live);
            struct pmode m = {.npaths = bl.npaths, .base = tp->base, .sp_tags = sp_tags, .mt = mt, .bad = &bad};
            if (hashed)
                m.mt = (struct meter){0};       /* counts only (path-region.h note 14) */
            choose_mode(&cfg, &bl, live, &m);
            if (hashed)
                hashed_mode(&m);
            size_t nframe = 0;
            uint32_t *frame_at = NULL;  /* the instructions that make and drop the frame (note 11) */
            if (!m.constant && !m.leaf && !proc_calls_twice(&po, &cfg) && frame_plan(&cfg, &m)) {
                m.frame = true;
                m.fmem = !m.saved;
                m.addr = m.saved && !has_backedge(&cfg, &bl) && !hashed;     /* (a hashed count needs the number) */
                if (m.addr)
                    m.Y = R_ZERO;       /* P is the path's slot's address */
                frame_at = grow_frame(&cfg, &m, &nframe);
            }
            hold_plan(&cfg, &bl, live, &m);
            st->held_procs += m.nhold > 0;
            if (!m.constant && !hashed)        /* (notes 9 and 10; metered: 17) */
                choose_loop_regs(&cfg, &bl, live, E, &m);
            if (!m.constant && !m.saved && proc_calls_twice(&po, &cfg)) {
                /* its path register in memory would not come back with longjmp */
                free(live);
                *tp = (struct path_table_proc){.start = syms[k].start, .npaths = bl.npaths,
                                               .status = PATH_SKIP_SETJMP, .metrics = tp->metrics};
                st->skipped[PATH_SKIP_SETJMP]++;
                bl_free(&bl);
                calc_proc_free(&cfg);
                continue;
            }
            st->leaf_procs += m.leaf;
            st->constant_procs += m.constant;
            st->saved_procs += m.saved;
            emit_counted(&po, &cfg, &bl, E, &m, live, hashed, frame_at, nframe, before, st);
            if (hashed)
                nhashed++;
            else
                counters += bl.npaths;
        } else if (bl.npaths) {
            st->skipped[why]++;
        }
        bl_free(&bl);
        calc_proc_free(&cfg);
    }
    st->counters = counters;
    if (nhashed)
        st->hash_slots = hash_geometry(&c, counters, slot_size(&mt), PATH_STACK5_OFFSET);
    /* the path table, the patches, the trailer (path-region.h) */
    while (here(&c) % 8)
        put(&c, 0);
    if (put_path_table(&c, table, nsyms, &po, bad, in, err))
        goto done;
    st->region_addr = c.base;
    st->region_size = c.len;
    if (write_instrumented(&e, &hdr, &c, c.base, symtab, out, err))
        goto done;
    rc = 0;
done:
    hashing_end();
    if (sy)
        symtab_close(sy);
    free(e.buf);
    free(table);
    free(procs);
    free(po.patches);
    free(c.bytes);
    return rc;
}

/* ---- --both: paths per calling context (cct-region.h notes 10-14) ---- */

/* The CCT procedure (index in procs) whose entry is start, or -1. */
static int proc_at_entry(const struct proc *procs, unsigned nprocs, uint64_t start)
{
    int i = proc_of(procs, nprocs, start);
    return i >= 0 && procs[i].entry == start ? i : -1;
}

int instrument_both(const char *in, const char *out, int event, uint64_t hash_slots, uint64_t ctx_paths,
                    struct instrument_stats *st, struct instrument_path_stats *ps, struct ap_err *err)
{
    struct meter mt;            /* --both --metrics (cct-region.h note 16) */
    if (hash_slots_bad(hash_slots, err) || meter_for(event, &mt, err))
        return -1;
    if (!ctx_paths)
        ctx_paths = mt.on ? CCT_BOTH_MAX_CTX_METERED : CCT_BOTH_MAX_CTX_PATHS;
    uint64_t max_counters = mt.on ? PATH_BOTH_MAX_METERED : PATH_BOTH_MAX_COUNTERS;
    /* hashed per context, counts only (path-region.h note 15) */
    hashing.slots = mt.on ? 0 : hash_slots;
    hashing.nfix = 0;
    if (hashing.slots)  /* room always left for the smallest table */
        max_counters -= (PATH_HASH_TABLE_SLOTS(PATH_HASH_MIN_SLOTS) * PATH_HASH_SLOT_SIZE + 128) / 8;
    unsigned nhashed = 0;
    struct image_header hdr;
    if (image_check_file(in, &hdr, err))
        return -1;
    struct elf_in e = {0};
    struct proc *procs = NULL;
    struct site *sites = NULL;
    struct symtab *sy = NULL;
    struct code c = {0};
    struct path_out po = {.c = &c, .e = &e};
    struct path_table_proc *table = NULL;
    uint64_t *tramp = NULL;
    unsigned nprocs = 0, nsites = 0;
    int symtab, rc = -1;
    bool bad = false;
    memset(st, 0, sizeof *st);
    memset(ps, 0, sizeof *ps);

    if (read_original(in, &e, &procs, &nprocs, &symtab, err))
        goto done;
    uint64_t lookup = cct_lookup_entry(in, procs, nprocs, err);
    if (!lookup)
        goto done;
    collect_sites(&e, procs, nprocs, &sites, &nsites, &st->skipped_sites);
    for (unsigned i = 1; i < nsites; i++)
        if (sites[i].pc <= sites[i - 1].pc) {
            ap_err_set(err, "%s: executable sections out of address order; this instrumenter cannot do --both", in);
            goto done;
        }
    if (symtab_open(in, &sy, err))
        goto done;
    c.base = segment_base(&e, &hdr);

    /* the procedure table (npaths filled in below), the CCT stub and unwinder */
    put64(&c, CCT_PROCS_MAGIC);
    put64(&c, nprocs);
    put64(&c, CCT_BOTH | (mt.on ? CCT_BOTH_METERED : 0));
    size_t table_at = c.len;
    for (unsigned i = 0; i < nprocs; i++) {
        put64(&c, procs[i].entry);
        put64(&c, procs[i].alt_entry);
        put(&c, procs[i].nsites);
        put(&c, (procs[i].leaf ? CCT_PROC_LEAF : 0) | (i + 1) << CCT_REC_PROC_SHIFT);
        put64(&c, 0);
    }
    while (here(&c) % 16)
        put(&c, 0);
    uint64_t stub = here(&c);
    put_stub(&c, c.base, lookup, false);
    uint64_t unwind = here(&c);
    put_unwind(&c, false);

    /* the paths: as instrument_paths, counting per context where it can */
    both.on = true;
    both.slot = (int)slot_size(&mt);
    po.sites = sites;
    po.nsites = nsites;
    size_t nsyms;
    const struct symbol *syms = symtab_symbols(sy, &nsyms);
    table = calloc(nsyms + 1, sizeof *table);
    uint64_t counters = 0;
    collect_twice(&po, syms, nsyms);
    bool sp_tags = false;
    for (unsigned i = 0; i < nsites && !sp_tags; i++)
        sp_tags = calls_twice(&po, sites[i].pc, sites[i].insn);
    for (size_t k = 0; k < nsyms; k++) {
        struct path_table_proc *tp = &table[k];
        struct calc_proc cfg;
        struct bl_proc bl;
        uint64_t E;
        enum path_skip why;
        if (!number_proc(sy, &syms[k], procs, nprocs, tp, &cfg, &bl, &E, &why))
            continue;
        tp->metrics = mt.on ? (uint32_t)event + 1 : 0;
        bool hashed = why == PATH_INSTRUMENTED && bl.status == BL_TOO_MANY;     /* (note 15: hashing on) */
        if (hashed && bl.npaths >= PATH_BOTH_HASH_MAX_NPATHS)
            why = PATH_SKIP_TOO_MANY;   /* (its number and a context do not fit a key) */
        else if (why == PATH_INSTRUMENTED &&
                 (hashed ? nhashed >= PATH_HASH_MAX_PROCS : counters + bl.npaths > max_counters))
            why = PATH_SKIP_NO_ROOM;
        tp->status = why;
        if (why != PATH_INSTRUMENTED) {
            if (bl.npaths)
                ps->skipped[why]++;
            bl_free(&bl);
            calc_proc_free(&cfg);
            continue;
        }
        double *wt = tree_weights(&cfg, &bl);
        bl_free(&bl);
        bl_number(&bl, &cfg, wt);
        free(wt);
        uint32_t *live = calc_zalloc(cfg.n, sizeof *live);
        liveness_compute(&cfg, live);
        struct pmode m = {.npaths = bl.npaths, .base = hashed ? nhashed : (uint32_t)counters, .sp_tags = sp_tags,
                          .mt = mt, .bad = &bad};
        choose_mode(&cfg, &bl, live, &m);
        if (hashed)
            hashed_mode(&m);
        /* frame mode (path-region.h note 11), as instrument_paths plans it; a hashed procedure's in
         * memory only (P in its frame, no counters' base: note 15); metered, a callee-saved P's
         * only, a number (its count is per context: cct-region.h note 16) */
        size_t nframe = 0;
        uint32_t *frame_at = NULL;
        bool frame_mode = m.mt.on ? m.saved : !m.saved || (m.Y != R_ZERO && !hashed);
        if (!m.constant && !m.leaf && frame_mode && !proc_calls_twice(&po, &cfg) && frame_plan(&cfg, &m)) {
            m.frame = true;
            m.fmem = !m.saved;  /* P in the frame's first slot, the counters' base in its second */
            m.addr = m.saved && !has_backedge(&cfg, &bl) && !m.mt.on;
            if (m.addr)
                m.Y = R_ZERO;   /* P is the counter's address */
            frame_at = grow_frame(&cfg, &m, &nframe);
        }
        /* counts only: the counters' base found once an activation (cct-region.h note 17) */
        m.cb = !mt.on && !m.constant && !hashed &&
               ((m.leaf && (m.addr || m.Y != R_ZERO)) || (m.saved && (m.addr || m.Y != R_ZERO)) || m.fmem);
        if (!m.constant && !m.saved && proc_calls_twice(&po, &cfg)) {
            free(live);
            tp->status = PATH_SKIP_SETJMP;
            ps->skipped[PATH_SKIP_SETJMP]++;
            bl_free(&bl);
            calc_proc_free(&cfg);
            continue;
        }
        /* per context when its records can hold its counters within one
         * lda of the record (note 12) */
        int ci = proc_at_entry(procs, nprocs, syms[k].start);
        int64_t off = ci >= 0 ? (int64_t)cct_record_size(procs[ci].nsites) : 0;
        bool flags_fit = ci >= 0 && ((int64_t)ci + 1) << CCT_REC_PROC_SHIFT <= 0x7fff;
        both.ctx = flags_fit && !hashed &&
                   bl.npaths <= ctx_paths &&
                   off + slot_size(&mt) * (int64_t)bl.npaths <= 0x7fff;
        hashing.ctx = flags_fit && hashed;     /* in the hash table keyed by its record (note 15) */
        both.ctx_off = (int)off;
        both.leaf = ci >= 0 && procs[ci].leaf;
        both.ctx_flags = (both.leaf ? CCT_REC_LEAF : 0) | (ci + 1) << CCT_REC_PROC_SHIFT;
        if (both.ctx) {
            /* in 8-byte words: a metered slot is 4 (cct-region.h note 16) */
            uint32_t np = (uint32_t)(bl.npaths * (uint64_t)slot_size(&mt) / 8);
            memcpy(c.bytes + table_at + (size_t)ci * sizeof(struct cct_proc) + 24, &np, 4);
            ps->context_procs++;
        }
        tp->instrumented = 1 | (both.ctx || hashing.ctx ? PATH_PER_CONTEXT : 0) | (hashed ? PATH_HASHED : 0);
        tp->base = m.base;
        ps->context_procs += hashing.ctx;
        size_t before = po.npatches;
        ps->leaf_procs += m.leaf;
        ps->constant_procs += m.constant;
        ps->saved_procs += m.saved;
        hold_plan(&cfg, &bl, live, &m);
        ps->held_procs += m.nhold > 0;
        /* loops in registers count at Y (path-region.h notes 9, 10); a
         * metered kept leaf's by an induction variable meter at their
         * ways out (note 17) */
        if (m.cb || (m.mt.on && m.kept && !m.constant && !hashed))
            choose_loop_regs(&cfg, &bl, live, E, &m);
        emit_counted(&po, &cfg, &bl, E, &m, live, hashed, frame_at, nframe, before, ps);
        if (hashed)
            nhashed++;
        else
            counters += bl.npaths;
        bl_free(&bl);
        calc_proc_free(&cfg);
    }
    if (nhashed)                /* up to the sp stack, or past it when no setjmp call uses it (note 15) */
        ps->hash_slots = hash_geometry(&c, counters, slot_size(&mt), sp_tags ? PATH_BOTH_STACK5_OFFSET
                                                                             : CCT_BOTH_PATHS_SIZE);
    both.on = both.ctx = both.leaf = false;
    ps->counters = counters;

    /* the calls: a CCT trampoline each (counts only); a leaf's keeps its
     * record in leaf_rec for the leaf's paths */
    both.calls = true;
    tramp = calloc(nsites + 1, sizeof *tramp);
    for (unsigned i = 0; i < nsites; i++) {
        while (here(&c) % 16)
            put(&c, UNOP);
        tramp[i] = here(&c);
        struct tramp_calls tc;
        put_trampoline(&c, &sites[i], procs, nprocs, stub, unwind, false, &tc);
        sites[i].call = tc.pushed;
        sites[i].call_unpushed = tc.unpushed;
        sites[i].call_leaf = tc.leaf;
        sites[i].call_leaf_slow = tc.leaf_slow;
        sites[i].call_counted = tc.counted;
        if (!sites[i].from_paths)
            add_patch(&po, sites[i].pc, tramp[i], OP_BR, R_ZERO);
    }
    both.calls = false;
    for (size_t k = 0; k < po.nfix; k++) {
        uint32_t w = branch_word(po.fix[k].f.op, po.fix[k].f.ra, c.base + po.fix[k].f.at, tramp[po.fix[k].site],
                                 &c.out_of_reach);
        memcpy(c.bytes + po.fix[k].f.at, &w, 4);
    }
    /* the site table and its trailer, then the path table, the patches and
     * theirs (instrument_site_table finds the first before the second) */
    put_site_table(&c, sites, nsites);
    if (put_path_table(&c, table, nsyms, &po, bad, in, err))
        goto done;
    st->procs = nprocs;
    st->sites = nsites;
    st->region_addr = ps->region_addr = c.base;
    st->region_size = ps->region_size = c.len;
    if (write_instrumented(&e, &hdr, &c, c.base, symtab, out, err))
        goto done;
    rc = 0;
done:
    memset(&both, 0, sizeof both);
    hashing_end();
    if (sy)
        symtab_close(sy);
    free(e.buf);
    free(procs);
    free(sites);
    free(table);
    free(tramp);
    free(po.patches);
    free(po.fix);
    free(c.bytes);
    return rc;
}

