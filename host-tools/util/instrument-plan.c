/*
 * What the instrumenter decides about a procedure before it emits any
 * code (util/instrument-emit.h note 1): its loops counted in registers or
 * by an induction variable (path-region.h notes 9, 10, 17), frame mode
 * (note 11), held registers (note 16), its path register's mode (note
 * 2), the spanning tree's weights, the numbers known on entry (note 8),
 * and jump threading over the finished trampolines.
 */
#include "util/instrument-emit.h"

#include <stdio.h>

/* Whether block b's last instruction can be patched for an edge's code
 * (as paths_check requires of every block with an acting edge). */
static bool block_patchable(const struct calc_proc *cfg, uint32_t b, uint64_t E)
{
    const struct calc_block *u = &cfg->blocks[b];
    if (!u->n)
        return false;
    const struct calc_insn *L = &cfg->insns[u->first + u->n - 1];
    enum calc_flow fl = calc_flow_of(L->s.word, L->s.cls);
    return !(L->pc == E || fl == FLOW_INDIRECT || (fl == FLOW_NONE && !relocatable(L->s.word)) ||
             (fl == FLOW_COND && (u->nout != 2 || edge_of(cfg, b, EDGE_FALL) < 0)) ||
             (fl != FLOW_COND && u->nout != 1));
}

/* Marks in[] every block that reaches one of stack[0..sp) backward
 * without passing a block already marked (a natural loop's body, its
 * header marked first); stack has room for every block. */
static void reach_back(const struct calc_proc *cfg, uint8_t *in, uint32_t *stack, size_t sp)
{
    while (sp) {
        uint32_t v = stack[--sp];
        for (uint32_t i = 0; i < cfg->blocks[v].nin; i++) {
            uint32_t u = cfg->edges[cfg->blocks[v].in[i]].from;
            if (u != CALC_NONE && !in[u]) {
                in[u] = 1;
                stack[sp++] = u;
            }
        }
    }
}

/* in[] = the blocks of h's loop: h and those reaching a backedge into h
 * without passing h (none when no backedge goes to h). */
static void loop_blocks(const struct calc_proc *cfg, const struct bl_proc *bl, uint32_t h, uint8_t *in,
                        uint32_t *stack)
{
    size_t sp = 0;
    memset(in, 0, cfg->nblocks + 1);
    for (uint32_t i = 0; i < cfg->blocks[h].nin; i++) {
        uint32_t e = cfg->blocks[h].in[i];
        in[h] |= bl->action[e].kind == BL_ACT_BACKEDGE && cfg->edges[e].from != CALC_NONE;
    }
    for (uint32_t i = 0; in[h] && i < cfg->blocks[h].nin; i++) {
        uint32_t e = cfg->blocks[h].in[i], t = cfg->edges[e].from;
        if (bl->action[e].kind == BL_ACT_BACKEDGE && t != CALC_NONE && !in[t]) {
            in[t] = 1;
            stack[sp++] = t;
        }
    }
    reach_back(cfg, in, stack, sp);
}

/* Whether a loop counted in a register may hold this instruction
 * (path-region.h notes 9 and 10): no call, indirect jump or halt, nothing
 * undecodable, no PAL or hardware instruction, so nothing but the loop's
 * own code runs between its entry and its exits. */
static bool loop_may_hold(const struct calc_insn *in)
{
    enum calc_flow f = calc_flow_of(in->s.word, in->s.cls);
    const struct alpha_insn_info *ai = alpha_decode(in->s.word);
    return f != FLOW_CALL && f != FLOW_INDIRECT && f != FLOW_HALT && ai && ai->format != ALPHA_FMT_PAL &&
           ai->format != ALPHA_FMT_HW;
}

/* Loop h counted by an induction variable (path-region.h note 10): L =
 * in[] is a chain h -> ... -> t, one backedge t -> h, no other edge in L
 * acting, no call, PAL call, indirect jump or halt, entered only at h; a
 * register v is written in L once, by v += +-2^j; a register K of no
 * caller's, not named in L and dead on every edge into h from outside,
 * is left (metered, note 17: the page's too, and four more or borrowed
 * ones).  An exit falling out beside a branch that stays in L moves to
 * its target X's first instruction (X: two instructions or more, the
 * first an ordinary one; every way into X from outside L sets K to
 * count none).  True when taken (m->nk grown). */
static bool try_iv_loop(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live, uint64_t E,
                        struct pmode *m, uint32_t h, uint8_t *in, uint32_t *used)
{
    size_t nb = cfg->nblocks, ne = cfg->nedges;
    if (m->nk == sizeof m->K / sizeof *m->K)
        return false;
    /* blocks no path reaches (padding falling into the loop) are not its */
    for (uint32_t v = 0; v < nb; v++) {
        bool reached = false;
        for (uint32_t i = 0; in[v] && i < cfg->blocks[v].nout; i++)
            reached |= bl->action[cfg->blocks[v].out[i]].kind != BL_ACT_UNREACHABLE;
        in[v] &= reached;
    }
    /* the chain and its one backedge */
    int64_t backedge = -1;
    uint32_t nin = 0;
    for (uint32_t v = 0; v < nb; v++)
        nin += in[v];
    int32_t *pos = calc_zalloc(nb + 1, sizeof *pos);
    bool ok = true;
    uint32_t u = h, n = 0;
    for (uint32_t v = 0; v < nb; v++)
        pos[v] = -1;
    while (ok) {
        pos[u] = (int32_t)n++;
        const struct calc_block *x = &cfg->blocks[u];
        uint32_t next = CALC_NONE, nnext = 0;
        for (uint32_t i = 0; i < x->nout; i++) {
            uint32_t f = x->out[i];
            const struct calc_edge *y = &cfg->edges[f];
            if (y->to == CALC_EXIT || !in[y->to])
                continue;
            nnext++;
            if (bl->action[f].kind == BL_ACT_BACKEDGE && y->to == h) {
                if (backedge >= 0)
                    ok = false;
                backedge = f;
            } else if (!action_trivial(&bl->action[f]) || y->to == h || pos[y->to] >= 0) {
                ok = false;
            } else {
                next = y->to;
            }
        }
        if (!ok || nnext != 1)
            ok = false;
        else if (next == CALC_NONE)
            break;
        else
            u = next;
    }
    ok &= backedge >= 0 && n == nin;
    /* what L does and names; the edges into it */
    uint32_t named = 0, writes[32] = {0}, dead_on_entry = ~0u;
    for (uint32_t v = 0; v < nb && ok; v++) {
        const struct calc_block *x = &cfg->blocks[v];
        if (!in[v])
            continue;
        for (uint32_t i = x->first; i < x->first + x->n; i++) {
            uint32_t w = cfg->insns[i].s.word, use, def;
            ok &= loop_may_hold(&cfg->insns[i]);
            named |= liveness_named(w);
            liveness_regs(w, &use, &def);
            for (unsigned r = 0; r < 31; r++)
                writes[r] += (def >> r) & 1;
        }
        for (uint32_t i = 0; i < x->nin; i++) {
            const struct calc_edge *y = &cfg->edges[x->in[i]];
            if (y->from == CALC_NONE) {
                ok = false;
                continue;
            }
            if (in[y->from] || bl->action[x->in[i]].kind == BL_ACT_UNREACHABLE)
                continue;
            const struct calc_block *p = &cfg->blocks[y->from];
            if (v != h || !block_patchable(cfg, y->from, E) ||
                calc_flow_of(cfg->insns[p->first + p->n - 1].s.word, cfg->insns[p->first + p->n - 1].s.cls) ==
                    FLOW_CALL)
                ok = false;
            else
                dead_on_entry &= ~liveness_at_edge(cfg, live, p->first + p->n - 1, v);
        }
    }
    /* the induction variable: written once in L, by v += +-2^j */
    unsigned iv = R_ZERO, sh = 0;
    int64_t step = 0;
    int32_t ipos = -1;
    bool longword = false;
    for (uint32_t v = 0; v < nb && ok && iv == R_ZERO; v++) {
        const struct calc_block *x = &cfg->blocks[v];
        for (uint32_t i = x->first; in[v] && i < x->first + x->n && iv == R_ZERO; i++) {
            uint32_t w = cfg->insns[i].s.word, ra = (w >> 21) & 31, rb = (w >> 16) & 31;
            int64_t d = 0;
            unsigned fn = (w >> 5) & 0x7f;
            bool lw = w >> 26 == OP_INTA && (fn == F_ADDL || fn == F_SUBL);
            if (w >> 26 == OP_LDA && ra == rb)
                d = (int16_t)(w & 0xffff);
            else if (w >> 26 == OP_INTA && (w & 1u << 12) && (w & 31) == ra &&
                     (fn == F_ADDQ || fn == F_SUBQ || lw))
                d = fn == F_ADDQ || fn == F_ADDL ? (int64_t)((w >> 13) & 0xff) : -(int64_t)((w >> 13) & 0xff);
            else
                continue;
            uint64_t a = d < 0 ? (uint64_t)-d : (uint64_t)d;
            if (!a || (a & (a - 1)) || ra == R_SP || ra == R_ZERO || writes[ra] != 1)
                continue;
            iv = ra;
            step = d;
            sh = (unsigned)__builtin_ctzll(a);
            ipos = pos[v];
            longword = lw;
        }
    }
    ok &= iv != R_ZERO;
    /* the exits: on their edge, or moved to their target's start */
    struct iv_sink sk = {.insn = UINT32_MAX};
    uint32_t X = CALC_NONE;
    bool at_end = false;
    for (size_t f = 0; f < ne && ok; f++) {
        const struct calc_edge *x = &cfg->edges[f];
        if (x->from == CALC_NONE || !in[x->from] || (x->to != CALC_EXIT && in[x->to]))
            continue;
        ok &= block_patchable(cfg, x->from, E) && !m->kneut[f];
        const struct calc_block *p = &cfg->blocks[x->from];
        const struct calc_insn *L = &cfg->insns[p->first + p->n - 1];
        bool beside = calc_flow_of(L->s.word, L->s.cls) == FLOW_COND && x->kind == EDGE_FALL;
        if (!beside || !action_trivial(&bl->action[f]))
            continue;
        bool ib = pos[x->from] >= ipos;
        if (X != CALC_NONE && (X != x->to || sk.ib != ib)) {
            ok = false;         /* one sink per loop */
            continue;
        }
        X = x->to;
        sk.ib = ib;
    }
    if (ok && X != CALC_NONE) {
        const struct calc_block *xb = &cfg->blocks[X];
        const struct calc_insn *first = xb->n ? &cfg->insns[xb->first] : NULL;
        ok = X != CALC_EXIT && xb->n >= 1;
        at_end = ok && !(xb->n >= 2 && first->pc != E && relocatable(first->s.word) &&
                         calc_flow_of(first->s.word, first->s.cls) == FLOW_NONE);
        for (unsigned i = 0; i < m->nsink && ok && !at_end; i++)
            ok = m->sink[i].insn != xb->first;
        if (ok && at_end) {
            /* X's first instruction cannot move: the count goes to X's
             * end (its out edges), X writing neither v nor K nor calling */
            const struct calc_insn *L = &cfg->insns[xb->first + xb->n - 1];
            ok = block_patchable(cfg, X, E) && calc_flow_of(L->s.word, L->s.cls) != FLOW_CALL;
            for (uint32_t i = xb->first; i < xb->first + xb->n && ok; i++) {
                uint32_t use, def;
                liveness_regs(cfg->insns[i].s.word, &use, &def);
                ok = !(def & 1u << iv);
                named |= liveness_named(cfg->insns[i].s.word);
            }
            for (uint32_t i = 0; i < xb->nout && ok; i++)
                ok = !(m->kflush[xb->out[i]] | m->kneut[xb->out[i]]);
        }
        for (uint32_t i = 0; i < xb->nin && ok; i++) {
            const struct calc_edge *y = &cfg->edges[xb->in[i]];
            if ((y->from != CALC_NONE && in[y->from]) || bl->action[xb->in[i]].kind == BL_ACT_UNREACHABLE)
                continue;       /* (its source is patchable, as every exit's) */
            const struct calc_block *p = y->from == CALC_NONE ? NULL : &cfg->blocks[y->from];
            ok = p && block_patchable(cfg, y->from, E) &&
                 calc_flow_of(cfg->insns[p->first + p->n - 1].s.word, cfg->insns[p->first + p->n - 1].s.cls) !=
                     FLOW_CALL &&
                 !(m->kflush[xb->in[i]] | m->kneut[xb->in[i]]);
        }
        sk.insn = xb->first;
    }
    /* K (and the page, a kept leaf's W else), dead on the entry; with
     * metrics note 17's four readings too, dead or else borrowed (live
     * on the entry, kept in the region while the loop runs) */
    unsigned dead[6], ndead = 0, live_[PATH_LOOP_HELD], nlive = 0;
    unsigned need = !m->mt.on ? 1 : m->kept ? 5 : 6, own = !m->mt.on || m->kept ? 1 : 2;
    /* (metered, another loop's registers too: two such loops are never
     * both running, none inside another, each done at its ways out) */
    uint32_t taken = m->mt.on ? bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W) : *used;
    for (size_t r = 0; r < 21 && ok && ndead < need; r++) {
        unsigned x = scratch_order[r];
        if ((named | taken) & 1u << x)
            continue;
        if (dead_on_entry & 1u << x)
            dead[ndead++] = x;
        else if (m->mt.on && nlive < PATH_LOOP_HELD && (!m->kept || m->Y != R_ZERO) && !both.on)   /* (the region;
                                                                        --both: Y is the slots' base) */
            live_[nlive++] = x;
    }
    if (!ok || ndead < own || ndead + nlive < need || m->nsink == sizeof m->sink / sizeof *m->sink) {
        free(pos);
        return false;
    }
    unsigned k = m->nk++, K = dead[0];
    *used |= 1u << K;
    if (!m->mt.on) {
        m->km[k] = (struct iv_meter){.page = R_ZERO};
    } else {
        struct iv_meter *vm = &m->km[k];
        unsigned rd[4], n = 0;
        for (unsigned i = own; i < ndead && n < 4; i++)
            rd[n++] = dead[i];
        *vm = (struct iv_meter){.page = m->kept ? m->W : dead[1]};
        for (unsigned i = 0; n < 4; i++)
            rd[n++] = vm->held[vm->nheld++] = live_[i];
        vm->last_c = rd[0];
        vm->last_e = rd[1];
        vm->first_c = rd[2];
        vm->first_e = rd[3];
    }
    m->niv++;
    m->K[k] = K;
    m->ivr[k] = iv;
    m->ivsh[k] = sh;
    m->ivl[k] = longword;
    m->ivstep[k] = step;
    m->kbe[k] = (uint32_t)backedge;
    m->kv[k] = bl->action[backedge].reset;
    m->kidx[k] = bl->action[backedge].reset + bl->action[backedge].add;
    if (m->mt.on)
        m->kread[backedge] = (uint8_t)(k + 1);
    else
        m->kskip[backedge] = 1;
    for (size_t f = 0; f < ne; f++) {
        const struct calc_edge *x = &cfg->edges[f];
        bool from_in = x->from != CALC_NONE && in[x->from];
        bool to_in = x->to != CALC_EXIT && in[x->to];
        if (bl->action[f].kind == BL_ACT_UNREACHABLE)
            continue;
        if (!from_in && to_in)
            m->kzero[f] |= (uint8_t)(1u << k);
        bool ib = from_in && pos[x->from] >= ipos, to_x = X != CALC_NONE && x->to == X;
        if (from_in && to_x && action_trivial(&bl->action[f])) {
            /* X's fixup counts it: K moved by the increment when this
             * exit's differs from X's */
            m->kadj[f] = (int8_t)((int)ib - (int)sk.ib);
            if (m->kadj[f])
                m->kneut[f] |= (uint8_t)(1u << k);
        } else if (from_in && !to_in) {
            /* counted here, before its action; into X, K then counts none there */
            m->kflush[f] |= (uint8_t)(1u << k);
            m->kib[f] = ib;
        }
        if (to_x && !(from_in && action_trivial(&bl->action[f]))) {
            m->kneut[f] |= (uint8_t)(1u << k);
            m->kxib[f] = sk.ib;
        }
    }
    if (X != CALC_NONE && at_end) {
        for (uint32_t i = 0; i < cfg->blocks[X].nout; i++) {
            m->kflush[cfg->blocks[X].out[i]] |= (uint8_t)(1u << k);
            m->kib[cfg->blocks[X].out[i]] = sk.ib;
        }
    } else if (X != CALC_NONE) {
        sk.k = k;
        m->sink[m->nsink++] = sk;
    }
    free(pos);
    return true;
}

/* Loops counted in registers: each loop (innermost first) by its
 * induction variable when it has one (path-region.h note 10, any
 * procedure with a path register; metered, note 17, only so), else in
 * a register of its own (note 9, a procedure whose path register is a
 * saved one, counts only): for each header
 * h, its loop L (the blocks that reach a backedge into h without passing
 * h), taken when L has no call, no PAL call and no entry but h's; then each backedge into h whose source's number, on the
 * paths from h's reset through L, is one (kv) gets a register K of its
 * own: a temporary L never names, dead on every edge into h from outside
 * L (so dead throughout L), that edge zeroing it; every edge out of L
 * (to EXIT too) adds it to the iteration path's counter. */
void choose_loop_regs(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live,
                      uint64_t E, struct pmode *m)
{
    size_t nb = cfg->nblocks, ne = cfg->nedges;
    m->nk = 0;
    m->act0 = bl->action;
    m->nact = ne;
    m->kzero = calc_zalloc(ne + 1, 1);
    m->kflush = calc_zalloc(ne + 1, 1);
    m->kback = calc_zalloc(ne + 1, 1);
    m->kskip = calc_zalloc(ne + 1, 1);
    m->kneut = calc_zalloc(ne + 1, 1);
    m->kib = calc_zalloc(ne + 1, 1);
    m->kxib = calc_zalloc(ne + 1, 1);
    m->kadj = calc_zalloc(ne + 1, 1);
    m->kread = calc_zalloc(ne + 1, 1);
    m->nsink = m->niv = 0;
    uint8_t *in = calc_zalloc(nb + 1, 1), *kind = calc_zalloc(nb + 1, 1);
    int64_t *val = calc_zalloc(nb + 1, sizeof *val);
    uint32_t *stack = calc_zalloc(nb + 1, sizeof *stack);
    uint32_t used = bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W), *sinkto = calc_zalloc(ne + 1, sizeof *sinkto);
    /* innermost loops first (fewest blocks), as they run most */
    uint32_t *order = calc_zalloc(nb + 1, sizeof *order), *size = calc_zalloc(nb + 1, sizeof *size);
    for (uint32_t h = 0; h < nb; h++) {
        order[h] = h;
        loop_blocks(cfg, bl, h, in, stack);
        for (uint32_t v = 0; v < nb; v++)
            size[h] += in[v];
    }
    for (uint32_t i = 1; i < nb; i++)
        for (uint32_t j = i; j > 0 && size[order[j - 1]] > size[order[j]]; j--) {
            uint32_t x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    for (uint32_t oi = 0; oi < nb && m->nk < sizeof m->K / sizeof *m->K; oi++) {
        uint32_t h = order[oi];
        bool any = false;
        loop_blocks(cfg, bl, h, in, stack);
        if (in[h] && try_iv_loop(cfg, bl, live, E, m, h, in, &used))
            continue;
        if (!m->saved || m->mt.on)
            continue;           /* (a leaf's count at Y is as cheap as note 9's test; metered: note 17 only) */
        memset(in, 0, nb + 1);
        in[h] = 1;
        size_t sp = 0;
        for (uint32_t i = 0; i < cfg->blocks[h].nin; i++) {
            uint32_t e = cfg->blocks[h].in[i], t = cfg->edges[e].from;
            if (bl->action[e].kind != BL_ACT_BACKEDGE || t == CALC_NONE)
                continue;
            any = true;
            if (!in[t]) {
                in[t] = 1;
                stack[sp++] = t;
            }
        }
        if (!any)
            continue;
        bool ok = true;
        while (sp) {
            uint32_t v = stack[--sp];
            for (uint32_t i = 0; i < cfg->blocks[v].nin; i++) {
                uint32_t u = cfg->edges[cfg->blocks[v].in[i]].from;
                if (u == CALC_NONE)
                    ok = false;
                else if (!in[u]) {
                    in[u] = 1;
                    stack[sp++] = u;
                }
            }
        }
        uint32_t named = 0, dead_on_entry = ~0u;
        for (uint32_t v = 0; v < nb && ok; v++) {
            const struct calc_block *x = &cfg->blocks[v];
            if (!in[v])
                continue;
            for (uint32_t i = x->first; i < x->first + x->n; i++) {
                uint32_t w = cfg->insns[i].s.word;
                ok &= loop_may_hold(&cfg->insns[i]);
                named |= liveness_named(w);
            }
            for (uint32_t i = 0; i < x->nin; i++) {
                const struct calc_edge *y = &cfg->edges[x->in[i]];
                if (y->from == CALC_NONE) {
                    ok = false;         /* the procedure's entry: no edge to zero K on */
                    continue;
                }
                if (in[y->from])
                    continue;
                const struct calc_block *u = &cfg->blocks[y->from];
                if (v != h || !u->n || calc_flow_of(cfg->insns[u->first + u->n - 1].s.word,
                                                    cfg->insns[u->first + u->n - 1].s.cls) == FLOW_CALL)
                    ok = false;
                else
                    dead_on_entry &= ~liveness_at_edge(cfg, live, u->first + u->n - 1, v);
            }
        }
        /* every edge into or out of L gets code: its source must be
         * patchable as paths_check requires of any edge that acts */
        for (size_t f = 0; f < ne; f++)
            sinkto[f] = CALC_EXIT;
        for (size_t f = 0; f < ne && ok; f++) {
            const struct calc_edge *x = &cfg->edges[f];
            bool from_in = x->from != CALC_NONE && in[x->from];
            bool to_in = x->to != CALC_EXIT && in[x->to];
            if (from_in == to_in || x->from == CALC_NONE)
                continue;
            ok &= block_patchable(cfg, x->from, E);
            if (!ok || !from_in)
                continue;
            /* an exit that falls out beside a branch staying in L would
             * put a trampoline on that branch's way: its adding goes to
             * the end of the block it falls to, when only it goes there */
            const struct calc_block *u = &cfg->blocks[x->from];
            const struct calc_insn *L = &cfg->insns[u->first + u->n - 1];
            if (calc_flow_of(L->s.word, L->s.cls) != FLOW_COND || x->kind != EDGE_FALL)
                continue;
            bool hot = false;
            for (uint32_t i = 0; i < u->nout; i++) {
                const struct calc_edge *y = &cfg->edges[u->out[i]];
                hot |= y->kind != EDGE_FALL && y->to != CALC_EXIT && in[y->to] &&
                       !(bl->action[u->out[i]].kind == BL_ACT_BACKEDGE && y->to == h);
            }
            if (!hot)
                continue;
            uint32_t X = x->to;
            if (X == CALC_EXIT || cfg->blocks[X].nin != 1 || !cfg->blocks[X].n || !block_patchable(cfg, X, E)) {
                ok = false;
                continue;
            }
            sinkto[f] = X;
            for (uint32_t i = cfg->blocks[X].first; i < cfg->blocks[X].first + cfg->blocks[X].n; i++)
                named |= liveness_named(cfg->insns[i].s.word);
        }
        if (!ok)
            continue;
        /* the numbers from h's reset through L */
        for (uint32_t i = 0; i < cfg->blocks[h].nin; i++) {
            uint32_t e = cfg->blocks[h].in[i];
            if (bl->action[e].kind != BL_ACT_BACKEDGE || cfg->edges[e].from == CALC_NONE)
                continue;
            memset(kind, 0, nb + 1);
            kind[h] = 1;
            val[h] = bl->action[e].reset;
            for (bool changed = true; changed;) {
                changed = false;
                for (size_t f = 0; f < ne; f++) {
                    const struct calc_edge *x = &cfg->edges[f];
                    const struct bl_action *a = &bl->action[f];
                    if (x->from == CALC_NONE || x->to == CALC_EXIT || !in[x->from] || !in[x->to] ||
                        x->to == h || a->kind != BL_ACT_ADD || !kind[x->from])
                        continue;
                    uint8_t k = kind[x->from];
                    int64_t v = val[x->from] + a->add;
                    uint8_t *to = &kind[x->to];
                    if (*to == 2 || (*to == 1 && k == 1 && val[x->to] == v))
                        continue;
                    if (*to == 0 && k == 1) {
                        *to = 1;
                        val[x->to] = v;
                    } else {
                        *to = 2;
                    }
                    changed = true;
                }
            }
            uint32_t t = cfg->edges[e].from;
            int64_t idx = val[t] + bl->action[e].add;
            if (kind[t] != 1 || idx < 0 || (uint64_t)idx >= m->npaths || !fits16(-val[t]) ||
                m->nk == sizeof m->K / sizeof *m->K)
                continue;
            /* a register no caller keeps: $1-$8, $22-$25, at, pv,
             * $16-$21, v0 (scratch_order's first 21) */
            unsigned K = R_ZERO;
            for (size_t r = 0; r < 21 && K == R_ZERO; r++)
                if (!((named | used) & 1u << scratch_order[r]) && (dead_on_entry & 1u << scratch_order[r]))
                    K = scratch_order[r];
            if (K == R_ZERO)
                break;
            unsigned k = m->nk++;
            used |= 1u << K;
            m->K[k] = K;
            m->km[k].page = R_ZERO;
            m->ivr[k] = R_ZERO;
            m->kidx[k] = idx;
            m->kv[k] = val[t];
            m->kback[e] = (uint8_t)(k + 1);
            for (size_t f = 0; f < ne; f++) {
                const struct calc_edge *x = &cfg->edges[f];
                bool from_in = x->from != CALC_NONE && in[x->from];
                bool to_in = x->to != CALC_EXIT && in[x->to];
                if (!from_in && to_in)
                    m->kzero[f] |= (uint8_t)(1u << k);
                if (from_in && !to_in && sinkto[f] == CALC_EXIT)
                    m->kflush[f] |= (uint8_t)(1u << k);
                else if (from_in && !to_in)
                    for (uint32_t i = 0; i < cfg->blocks[sinkto[f]].nout; i++)
                        m->kflush[cfg->blocks[sinkto[f]].out[i]] |= (uint8_t)(1u << k);
            }
        }
    }
    free(in);
    free(kind);
    free(val);
    free(stack);
    free(order);
    free(size);
    free(sinkto);
}

/* Whether the procedure's stack frame can grow by frame_slots(m) at its top
 * (path-region.h note 11): sp written only by `lda sp, -N(sp)` (the frame
 * made, N the same everywhere, a multiple of 16) and `lda sp, N(sp)` (the
 * frame dropped), each where sp is the caller's or the frame's on every
 * way in; sp read only as the base of a load or store that stays in the
 * frame ([0, N - 8]) while it is made, or at or above sp (the caller's
 * frame, the incoming arguments) while it is not, and to take an address
 * (lda) only of a local below the frame's top 48 bytes while it is made
 * (printf's va_start takes N - 48, the a0-a5 save area that va_arg walks
 * on from into the incoming arguments, which the grown frame would move);
 * no call while it is not made; a return only while it is not.  Fills
 * m->fsize and m->fstate (per instruction: sp the frame's before it). */
bool frame_plan(const struct calc_proc *cfg, struct pmode *m)
{
    size_t nb = cfg->nblocks;
    int8_t *at = calc_zalloc(nb + 1, 1);        /* a block's sp on entry: -1 not reached */
    uint8_t *st = calc_zalloc(cfg->n + 1, 1);
    memset(at, -1, nb + 1);
    int64_t N = 0;
    bool ok = cfg->nedges > 0 && cfg->edges[0].kind == EDGE_ENTRY && cfg->edges[0].to < nb;
    if (ok)
        at[cfg->edges[0].to] = 0;
    for (bool changed = ok; changed && ok;) {
        changed = false;
        for (uint32_t b = 0; b < nb && ok; b++) {
            const struct calc_block *x = &cfg->blocks[b];
            if (at[b] < 0 || !x->n)
                continue;
            int s = at[b];
            for (uint32_t i = x->first; i < x->first + x->n && ok; i++) {
                uint32_t w = cfg->insns[i].s.word, use, def;
                st[i] = (uint8_t)s;
                const struct alpha_insn_info *in = alpha_decode(w);
                enum calc_flow f = calc_flow_of(w, cfg->insns[i].s.cls);
                if (!in || in->format == ALPHA_FMT_HW) {
                    ok = false;
                    break;
                }
                liveness_regs(w, &use, &def);
                unsigned op = w >> 26, ra = alpha_ra(w), rb = alpha_rb(w);
                int64_t d = alpha_disp16(w);
                if (def & bit(R_SP)) {
                    if (op != OP_LDA || rb != R_SP)
                        ok = false;
                    else if (!s && d < 0 && -d % 16 == 0 && (!N || N == -d))
                        N = -d, s = 1;
                    else if (s && d == N)
                        s = 0;
                    else
                        ok = false;
                    continue;
                }
                if (f == FLOW_CALL && !s)
                    ok = false;
                if (f == FLOW_RETURN && s)
                    ok = false;
                if (!(use & bit(R_SP)))
                    continue;
                if (op == 0x0b && ra == R_ZERO)
                    continue;       /* unop: ldq_u $31 */
                if ((in->format != ALPHA_FMT_MEM && in->format != ALPHA_FMT_FMEM) || rb != R_SP ||
                    (in->format == ALPHA_FMT_MEM && ra == R_SP) || op == OP_LDAH) {
                    ok = false;
                    continue;
                }
                if (op == OP_LDA)   /* an address: a local's, not one of the frame's top 48 bytes, where
                                     * a varargs procedure saves a0-a5 for va_arg to walk on into the
                                     * incoming arguments (so N - 48 is va_start's); while the frame is
                                     * made (N is known then: a later frame's size is the same one) */
                    ok &= s && d >= 0 && d < N - 48;
                else if (s)
                    ok &= d >= 0 && d + 8 <= N;
                else
                    ok &= d >= 0;
            }
            const struct calc_insn *L = &cfg->insns[x->first + x->n - 1];
            enum calc_flow lf = calc_flow_of(L->s.word, L->s.cls);
            for (uint32_t k = 0; k < x->nout && ok; k++) {
                uint32_t to = cfg->edges[x->out[k]].to;
                if (to == CALC_EXIT && s && lf != FLOW_HALT)
                    ok = false;     /* (a way out with the frame made but a halt: a tail call that keeps it) */
                if (to == CALC_EXIT)
                    continue;
                if (at[to] < 0) {
                    at[to] = (int8_t)s;
                    changed = true;
                } else if (at[to] != s) {
                    ok = false;
                }
            }
        }
    }
    ok &= N > 0 && N + frame_slots(m) <= 32752;
    free(at);
    if (!ok) {
        free(st);
        return false;
    }
    m->fsize = N;
    m->fstate = st;
    return true;
}

/* Whether cfg's numbering has a backedge (a loop). */
bool has_backedge(const struct calc_proc *cfg, const struct bl_proc *bl)
{
    for (size_t e = 0; e < cfg->nedges; e++)
        if (bl->action[e].kind == BL_ACT_BACKEDGE)
            return true;
    return false;
}

/* Registers held for the trampolines (path-region.h note 16): in a
 * procedure whose P is callee-saved although it makes no call (millicode:
 * its returns keep every register, so none is dead for a trampoline's
 * scratch and each one spills its own), with a loop, that names neither
 * sp nor anything but its own blocks and leaves only by returns, the
 * entry keeps INSTRUMENT_HOLD_REGS registers it never names below sp and
 * every return takes them back; in between they are dead (live[] says so). */
void hold_plan(const struct calc_proc *cfg, const struct bl_proc *bl, uint32_t *live, struct pmode *m)
{
    m->nhold = 0;
    if (!m->saved || m->frame || m->mt.on || !has_backedge(cfg, bl))
        return;
    uint32_t named = bit(m->P) | bit(m->Y);
    for (size_t i = 0; i < cfg->n; i++) {
        uint32_t w = cfg->insns[i].s.word;
        const struct alpha_insn_info *in = alpha_decode(w);
        enum calc_flow f = calc_flow_of(w, cfg->insns[i].s.cls);
        if (!in || in->format == ALPHA_FMT_PAL || in->format == ALPHA_FMT_HW || f == FLOW_CALL ||
            f == FLOW_INDIRECT || f == FLOW_HALT)
            return;
        if (f == FLOW_BRANCH || f == FLOW_COND) {
            uint64_t to = alpha_branch_target(cfg->insns[i].pc, w);
            if (to < cfg->start || to >= cfg->start + 4 * (uint64_t)cfg->n)
                return;
        }
        named |= liveness_named(w);
    }
    if (named & bit(R_SP))
        return;
    uint32_t held = 0;
    for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order && m->nhold < INSTRUMENT_HOLD_REGS; i++) {
        unsigned r = scratch_order[i];
        if (r != R_RA && r != R_GP && !(named & 1u << r)) {
            m->hold[m->nhold++] = r;
            held |= 1u << r;
        }
    }
    for (size_t i = 0; i < cfg->n; i++)
        live[i] &= ~held;
}

/* The held registers (note 16) stored below sp (OP_STQ, the entry) or
 * loaded back from there (OP_LDQ, a return). */
void put_held(struct code *c, const struct pmode *m, unsigned op)
{
    for (unsigned i = 0; i < m->nhold; i++)
        put(c, mem(op, m->hold[i], R_SP, -8 * (int)(i + 1)));
}

/* Whether cfg can keep its path register in registers (struct pmode). */
void choose_mode(const struct calc_proc *cfg, const struct bl_proc *bl, const uint32_t *live,
                 struct pmode *m)
{
    m->leaf = m->saved = m->kept = m->known = m->addr = false;
    m->P = m->Y = m->S = m->T = m->W = R_ZERO;
    /* no increment inside and no backedge: every exit's number is known */
    m->constant = true;
    bool loops = false, calls = false, odd = false;
    for (size_t e = 0; e < cfg->nedges; e++) {
        const struct bl_action *a = &bl->action[e];
        if (a->kind == BL_ACT_ENTRY)
            m->entry_add = a->add;
        if (a->kind == BL_ACT_BACKEDGE || (a->kind == BL_ACT_ADD && a->add))
            m->constant = false;
        loops |= a->kind == BL_ACT_BACKEDGE;
    }
    bool known = m->constant;
    if (m->mt.on)
        m->constant = false;    /* a path's start must be kept (path-region.h note 5) */
    if (m->constant)
        return;
    uint32_t named = 0, needed = live[0];
    for (size_t i = 0; i < cfg->n; i++) {
        uint32_t w = cfg->insns[i].s.word;
        enum calc_flow f = calc_flow_of(w, cfg->insns[i].s.cls);
        const struct alpha_insn_info *in = alpha_decode(w);
        calls |= f == FLOW_CALL || (in && in->format == ALPHA_FMT_PAL);
        odd |= !in || in->format == ALPHA_FMT_HW;
        named |= liveness_named(w);
    }
    if (odd)
        return;
    if (!calls) {
        for (size_t e = 0; e < cfg->nedges; e++) {
            const struct calc_edge *x = &cfg->edges[e];
            if (x->to == CALC_EXIT && x->from != CALC_NONE)
                needed |= liveness_at_edge(cfg, live, cfg->blocks[x->from].first + cfg->blocks[x->from].n - 1,
                                           CALC_EXIT);
        }
        uint32_t taken = named | needed | bit(R_SP) | 1u << R_ZERO;
        unsigned spare[5], nspare = 0;
        for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order && nspare < 5; i++)
            if (!(taken & 1u << scratch_order[i]))
                spare[nspare++] = scratch_order[i];
        if (m->mt.on && nspare >= (known && !both.on ? 3u : 5u)) {     /* (cct-region.h notes 16, 17) */
            unsigned k = 0;
            if (!known || both.on) {    /* --both: Y is the activation's slots' base, P the number
                                         * (known: the entry's scratch, its exits add to Y alone) */
                m->P = spare[k++];
                m->Y = spare[k++];
            }
            m->W = spare[k++];
            m->S = spare[k++];
            m->T = spare[k++];
            m->leaf = m->kept = true;
            m->known = known;
            return;
        }
        for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order; i++) {
            unsigned r = scratch_order[i];
            if (taken & 1u << r)
                continue;
            if (m->P == R_ZERO)
                m->P = r;
            else if (loops && m->Y == R_ZERO)
                m->Y = r;
            taken |= 1u << r;
        }
        m->leaf = m->P != R_ZERO;
        /* counts only, no backedge: P the counter's address (note 11) */
        m->addr = m->leaf && !loops && !m->mt.on;     /* (--both too: cct-region.h note 17) */
        if (m->leaf)
            return;
        m->Y = R_ZERO;      /* a leaf whose exits keep every register (millicode): as one with calls */
    }
    /* callees keep a callee-saved register the procedure never names */
    for (unsigned r = 9; r <= 15; r++)
        if (!(named & 1u << r)) {
            if (m->P == R_ZERO) {
                m->P = r;
                m->saved = true;
            } else if (m->Y == R_ZERO && (loops || (both.on && !m->mt.on))) {  /* --both: note 17's base */
                m->Y = r;
            }
        }
}

/* The spanning tree's weights (ball-larus.h note 4): what an increment on
 * each edge would cost.  Edges whose action is there anyway (ENTRY's, the
 * edges to EXIT, a backedge's pseudo edges) cost nothing more, so they are
 * the cheapest chords; an edge inside a loop runs about 8 times as often
 * per loop around it; a fall-through edge of a conditional branch costs
 * its taken edge a trampoline too. */
double *tree_weights(const struct calc_proc *cfg, const struct bl_proc *bl)
{
    size_t nb = cfg->nblocks;
    double *w = calc_zalloc(cfg->nedges, sizeof *w);
    unsigned *depth = calc_zalloc(nb, sizeof *depth);
    uint8_t *in = calc_zalloc(nb, sizeof *in);
    uint32_t *stack = calc_zalloc(nb + 1, sizeof *stack);
    for (size_t e = 0; e < cfg->nedges; e++) {
        if (!bl->backedge[e])
            continue;
        /* the natural loop of backedge t -> h: h and what reaches t without h */
        uint32_t t = cfg->edges[e].from, h = cfg->edges[e].to;
        memset(in, 0, nb * sizeof *in);
        in[h] = 1;
        size_t sp = 0;
        if (!in[t]) {
            in[t] = 1;
            stack[sp++] = t;
        }
        reach_back(cfg, in, stack, sp);
        for (size_t b = 0; b < nb; b++)
            depth[b] += in[b];
    }
    for (size_t e = 0; e < cfg->nedges; e++) {
        const struct calc_edge *x = &cfg->edges[e];
        if (x->from == CALC_NONE || x->to == CALC_EXIT || bl->backedge[e])
            continue;
        unsigned d = depth[x->from] < depth[x->to] ? depth[x->from] : depth[x->to];
        double f = 1;
        for (unsigned k = 0; k < d && k < 30; k++)
            f *= 8;
        w[e] = f * (x->kind == EDGE_FALL ? 3 : 2);
    }
    free(depth);
    free(in);
    free(stack);
    return w;
}

/* Jump threading over one trampoline's words [from, c->len) (path-region.h
 * note 8): a branch to an unconditional `br` inside it goes straight to
 * that br's target, and an unconditional br to a return (a jump that
 * writes no register) becomes that return; so a trampoline's hot path
 * ends in one taken branch where its cold paths join before it. */
void thread_branches(struct code *c, size_t from)
{
    uint64_t lo = c->base + from, hi = c->base + c->len;
    for (size_t at = from; at + 4 <= c->len; at += 4) {
        uint32_t w;
        memcpy(&w, c->bytes + at, 4);
        unsigned op = w >> 26;
        if (op < OP_BR || op == OP_BSR)
            continue;
        uint64_t pc = c->base + at;
        for (int hop = 0; hop < 8; hop++) {
            uint64_t to = alpha_branch_target(pc, w);
            if (to < lo || to >= hi || to == pc)
                break;
            uint32_t x;
            memcpy(&x, c->bytes + (to - c->base), 4);
            if (op == OP_BR && ((w >> 21) & 31) == R_ZERO && x >> 26 == OP_JMP && ((x >> 21) & 31) == R_ZERO) {
                w = x;
                break;
            }
            if (x >> 26 != OP_BR || ((x >> 21) & 31) != R_ZERO || alpha_branch_target(to, x) == to)
                break;
            w = branch_word(op, (w >> 21) & 31, pc, alpha_branch_target(to, x), &c->out_of_reach);
        }
        memcpy(c->bytes + at, &w, 4);
    }
}

/* Which blocks' path register is known on entry (path-region.h note 8):
 * forward over the CFG from ENTRY's r = add, a backedge's r = reset, an
 * add moving a known number; where known numbers meet unequal, or an
 * unknown one, not known.  kind[b]: 0 not reached, 1 known (val[b]),
 * 2 not known. */
void known_numbers(const struct calc_proc *cfg, const struct bl_proc *bl, uint8_t *kind, int64_t *val)
{
    memset(kind, 0, cfg->nblocks);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t e = 0; e < cfg->nedges; e++) {
            const struct calc_edge *x = &cfg->edges[e];
            const struct bl_action *a = &bl->action[e];
            if (x->to == CALC_EXIT || a->kind == BL_ACT_UNREACHABLE || a->kind == BL_ACT_EXIT)
                continue;
            uint8_t k;
            int64_t v = 0;
            if (a->kind == BL_ACT_ENTRY) {
                k = 1;
                v = a->add;
            } else if (a->kind == BL_ACT_BACKEDGE) {
                k = 1;
                v = a->reset;
            } else if (x->from == CALC_NONE) {
                continue;
            } else {
                k = kind[x->from];
                v = val[x->from] + a->add;
            }
            uint8_t *to = &kind[x->to];
            if (!k || *to == 2 || (*to == 1 && k == 1 && val[x->to] == v))
                continue;
            if (*to == 0 && k == 1) {
                *to = 1;
                val[x->to] = v;
            } else {
                *to = 2;
            }
            changed = true;
        }
    }
}

