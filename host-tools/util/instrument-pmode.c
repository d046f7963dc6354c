/*
 * The code of each way a procedure keeps its path register (util/
 * instrument-emit.h note 1; path-region.h notes 2, 5, 9-11, 16, 17):
 * entries, exits and backedges of leaves, kept leaves, the callee-saved,
 * frame and memory modes, loop registers and metered loops, and the code
 * of one edge.
 */
#include "util/instrument-emit.h"

#include <stdio.h>

static unsigned put_slot_base(struct code *c, unsigned dst, unsigned src, int64_t *off);
static int fslot(const struct pmode *m, int k);
static void put_action_code(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live);

/* A procedure's loops in the statistics instrument prints. */
void count_loops(struct instrument_path_stats *st, const struct pmode *m)
{
    st->loop_regs += m->nk - m->niv;
    st->iv_loops += m->niv;
    for (unsigned k = 0; k < m->nk; k++)
        if (m->km[k].page != R_ZERO) {
            st->metered_iv_loops++;
            st->borrowing_loops += m->km[k].nheld > 0;
            st->borrowed_regs += m->km[k].nheld;
        }
}

static uint32_t kmask(const struct pmode *m)
{
    uint32_t x = 0;
    for (unsigned k = 0; k < m->nk; k++) {
        const struct iv_meter *v = &m->km[k];
        x |= 1u << m->K[k];
        if (v->page != R_ZERO)
            x |= 1u << v->page | 1u << v->last_c | 1u << v->last_e | 1u << v->first_c | 1u << v->first_e;
    }
    return x;
}

/* A bad number's way out (to_bad): a stub the procedure's exit code
 * places, which comes back here, or with no stub left inline: counted in
 * bad_paths, then on. */
static void put_bad_way_at(struct code *c, struct pmode *m, struct fixup to_bad, unsigned r, unsigned x,
                           bool restart, bool find_region)
{
    if (m->nstubs < sizeof m->stub / sizeof *m->stub) {
        m->stub[m->nstubs++] = (struct bad_stub){.from = to_bad, .back = here(c), .r = r, .x = x, .reads = restart};
        return;
    }
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_bad);
    if (restart) {      /* a kept leaf's: S and T read the page as the count would have */
        put_page_read(c, &m->mt, m->W, m->S, m->T);
    }
    if (find_region)
        put_region(c, r);
    put_incq(c, x, r, PATH_OFF_BAD);
    land(c, done);
}

static void put_bad_way(struct code *c, struct pmode *m, const struct tregs *t, struct fixup to_bad)
{
    put_bad_way_at(c, m, to_bad, t->R, t->C, false, true);
}

static void pick(const struct pmode *m, struct tregs *t, uint32_t live, uint32_t exclude)
{
    tregs_pick(t, live, exclude | kmask(m), m->mt.on || hashing.on ? 6 : both.on && !m->cb ? 5 : 4);   /* --both: D
                                                     * for put_ctx_count; hashed: D, E for put_hash_count */
}

/* A leaf's path count: B = P + add, counted at Y (or the region). */
/* Counts path P + add (P in a register) with t's registers; t.R is the
 * region already when region_ready. */
static void put_reg_count(struct code *c, struct pmode *m, const struct tregs *t, int64_t add, bool region_ready,
                          bool metrics)
{
    if (hashing.on) {           /* a hashed procedure's (path-region.h note 14): P + add into B, counted */
        hashing.tmp = t->C;
        if (!region_ready)
            put_region(c, t->R);
        int64_t idx = m->rv + add;
        if (m->rk && idx >= 0 && (uint64_t)idx < m->npaths) {      /* known here (note 8) */
            put_setk(c, t->B, idx, m->bad);
        } else if (add && fits16(add)) {
            put(c, mem(OP_LDA, t->B, m->P, (int)add));
        } else {
            put(c, opr(OP_INTL, F_BIS, R_ZERO, m->P, t->B));
            put_addk(c, t->B, add, m->bad);
        }
        struct fixup to_bad;
        put_hash_key_count(c, t, m->npaths, &to_bad);
        put_bad_way(c, m, t, to_bad);
        return;
    }
    if (!metrics && !m->mt.on && (!both.on || m->cb)) {
        bool own_y = m->leaf && m->Y != R_ZERO;     /* set at the entry beside P, never lost */
        int64_t idx = m->rv + add;
        /* (--both: the counters' base is Y's, not the region's: cct-region.h note 17) */
        bool y_base = own_y || (m->cb && m->fmem);  /* --both's fmem: Y is its frame's base, exact */
        if (m->rk && idx >= 0 && (uint64_t)idx < m->npaths && (!both.on || y_base)) {
            /* the number is known here (path-region.h note 8): its slot's
             * address is a constant, no P, no check */
            unsigned at = y_base ? m->Y : t->R;
            int64_t off = y_base ? 8 * idx : PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + idx);
            if (!y_base && !region_ready)
                put_region(c, t->R);
            at = put_slot_base(c, t->B, at, &off);
            put_incq(c, t->C, at, (int)off);
            return;
        }
        if (own_y && fits16(8 * add)) {
            /* P and Y were set together at the entry, nothing else writes
             * them: P is in range, and a check could not save a Y that
             * was not (path-region.h note 3) */
            put(c, opr(OP_INTA, F_S8ADDQ, m->P, m->Y, t->B));
            put_incq(c, t->C, t->B, (int)(8 * add));
            return;
        }
    }
    unsigned x = m->P;
    if (add) {
        put_addk_from(c, t->B, m->P, add, m->bad);
        x = t->B;
    }
    put_below(c, x, m->npaths, t->C, m->bad);
    struct fixup to_bad = put_fwd(c, OP_BEQ, t->C);
    struct ctx_count cc = {0};
    if (both.on && both.ctx && !m->cb) {
        if (!region_ready) {
            put_region(c, t->R);
            region_ready = true;
        }
        /* with metrics D and E hold them: A is free in every metered count's caller */
        cc = put_ctx_count(c, t->R, x, 0, t->C, metrics ? t->A : t->D, &m->mt, metrics ? t : NULL);
    }
    int64_t off = 0;
    unsigned at = m->Y;
    if (at != R_ZERO && m->mt.on) {
        off = PATH_COUNTERS_OFFSET + slot_size(&m->mt) * (int64_t)m->base;     /* Y: the region (metered) */
    } else if (at == R_ZERO) {
        if (!region_ready)
            put_region(c, t->R);
        at = t->R;
        off = PATH_COUNTERS_OFFSET + slot_size(&m->mt) * (int64_t)m->base;
    }
    put_slot_addr(c, &m->mt, x, at, t->B);
    if (!fits16(off + 16)) {
        put_addk(c, t->B, off, m->bad);
        off = 0;
    }
    put_incq(c, t->C, t->B, (int)off);
    if (metrics)
        put_meter_add(c, t, t->B, (int)off);
    ctx_done(c, &cc);
    put_bad_way(c, m, t, to_bad);
}

static void put_leaf_count(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));
    tregs_save(c, &t);
    put_reg_count(c, m, &t, add, false, false);
    tregs_restore(c, &t);
}

/* Adds the loop registers of mask to their paths' counters (path-region.h
 * note 9): at Y in a leaf that keeps it, else from the region. */
static void put_loop_flush(struct code *c, struct pmode *m, unsigned mask, uint32_t live)
{
    struct tregs t;
    bool own_y = (m->leaf || m->cb) && m->Y != R_ZERO, far = false;     /* --both: Y is the base (note 17) */
    bool fm = m->cb && m->fmem;         /* --both: the base in the frame's second slot */
    for (unsigned k = 0; k < m->nk; k++)
        far |= (mask & 1u << k) && !fits16((own_y || fm ? 0 : PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base) +
                                           8 * m->kidx[k] + 16);
    /* the region (none at Y), the count, a slot's base when far */
    tregs_pick(&t, live, bit(m->P) | bit(m->Y) | kmask(m), own_y ? 3 : far ? 3 : 2);
    unsigned R = own_y ? m->Y : t.R, C = own_y ? t.R : t.A, B = own_y ? t.A : t.B;
    tregs_save(c, &t);
    if (fm)
        put(c, mem(OP_LDQ, t.R, R_SP, fslot(m, 1)));
    else if (!own_y)
        put_region(c, t.R);
    for (unsigned k = 0; k < m->nk; k++) {
        if (!(mask & 1u << k))
            continue;
        int64_t off = own_y || fm ? 8 * m->kidx[k] : PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + m->kidx[k]);
        unsigned at = put_slot_base(c, B, R, &off);
        put(c, mem(OP_LDQ, C, at, (int)off));
        put(c, opr(OP_INTA, F_ADDQ, C, m->K[k], C));
        put(c, mem(OP_STQ, C, at, (int)off));
    }
    tregs_restore(c, &t);
}

/* With metrics, a leaf's entry: its path starts in the core's leaf slots
 * (path-region.h note 5), Y = its counters' address when it loops. */
static void put_metered_leaf_entry(struct code *c, struct pmode *m, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));
    tregs_save(c, &t);
    put_region(c, t.R);
    put_meter_read(c, &m->mt, &t);
    if (m->Y != R_ZERO)         /* metered: Y keeps the region, each count finds its slot from it */
        put(c, opr(OP_INTL, F_BIS, R_ZERO, t.R, m->Y));
    put_meter_start(c, &t, t.R, PATH_OFF_LEAF_CYCLES, PATH_OFF_LEAF_EVENT);
    tregs_restore(c, &t);
}

/* With metrics, a leaf's exit or backedge (restart): the path's count and
 * metrics from the leaf slots. */
static void put_metered_leaf_count(struct code *c, struct pmode *m, int64_t add, uint32_t live, bool restart)
{
    struct tregs t;
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | kmask(m), m->mt.on ? 6 : 4, m->Y);
    tregs_save(c, &t);
    if (m->Y != R_ZERO)
        t.R = m->Y;             /* the region, since the entry */
    else
        put_region(c, t.R);
    put_meter_read(c, &m->mt, &t);
    put_meter_end(c, &t, t.R, PATH_OFF_LEAF_CYCLES, PATH_OFF_LEAF_EVENT, restart);
    put_reg_count(c, m, &t, add, true, true);
    tregs_restore(c, &t);
}

/* A = R + 8 x the depth: the activation's register stack slot (its
 * start's, with PATH_STACK3/4_OFFSET); to none at depth 0, to sink on the
 * sink (B scratch). */
static void put_depth_slot(struct code *c, const struct tregs *t, struct fixup *none, struct fixup *sink)
{
    put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
    *none = put_fwd(c, OP_BEQ, t->A);
    put(c, opl(OP_INTS, F_SRL, t->A, SINK_BIT, t->B));
    *sink = put_fwd(c, OP_BNE, t->B);
    put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
}

/* With metrics, a callee-saved mode's backedge: the activation's start
 * slot is its depth's; none (depth 0, or the sink): counted unmetered.
 * Four registers besides the region (millicode keeps every register live,
 * so each one more is a spill): C, a scratch, shares B's register while
 * the end is read (B is dead then) and A's while the path counts (the
 * start slot's address is dead then). */
static void put_metered_saved_backedge(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | kmask(m), both.on ? 6 : 5, m->Y);
    unsigned spare = t.E;       /* --both: the context count's scratch (put_reg_count's A) */
    t.E = t.D;
    t.D = t.C;
    t.C = t.B;
    tregs_save(c, &t);
    if (m->Y != R_ZERO)
        t.R = m->Y;             /* the region, since the entry */
    else
        put_region(c, t.R);
    struct tregs u = t;         /* counting */
    u.C = t.A;
    if (both.on)
        u.A = spare;
    put_meter_read(c, &m->mt, &t);
    struct fixup none, sink;
    put_depth_slot(c, &t, &none, &sink);
    put_meter_end(c, &t, t.A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, true);
    put_reg_count(c, m, &u, add, true, true);
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, none);
    land(c, sink);
    put_reg_count(c, m, &u, add, true, false);
    put_incq(c, u.C, u.R, PATH_OFF_UNMETERED);
    land(c, done);
    tregs_restore(c, &t);
}

/* dst = src + the high part of *off, *off left with a part that reaches
 * the slot's last word from dst in one displacement (the whole when it
 * already does: dst = src, nothing emitted); returns the base to use. */
static unsigned put_slot_base(struct code *c, unsigned dst, unsigned src, int64_t *off)
{
    if (fits16(*off + 16))
        return src;
    int64_t hi = (*off + 0x8000) >> 16, lo = *off - hi * 65536;
    put(c, mem(OP_LDAH, dst, src, (int)hi));
    if (!fits16(lo + 16)) {
        put(c, mem(OP_LDA, dst, dst, (int)lo));
        lo = 0;
    }
    *off = lo;
    return dst;
}

/* A kept leaf's entry (pmode.kept): Y = the region and W = the PMU page,
 * found once for the activation (the region in three instructions,
 * put_region, W one ldah from it; a known leaf keeps W alone, so its
 * entry is 8 instructions, two of the core's fetch groups);
 * S, T = the page's cycles and event, the path's start, read
 * last so the entry's own work stays outside the path. */
static void put_kept_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    _Static_assert(PMU_WINDOW_PHYS % 0x10000 == 0, "one ldah from the core's offset");
    unsigned x = m->known ? m->W : m->Y;    /* a known leaf has no Y: its exit finds the region from W */
    if (both.on) {
        /* --both (cct-region.h note 17): W from the CCT core state, the
         * start read, then Y = the activation's slots' base (P and a
         * register dead here as scratch: inside the path, as the model's
         * window has the entry) */
        struct tregs t;
        tregs_pick(&t, live, bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W), 1);
        tregs_save(c, &t);
        put_core_state(c, m->Y);
        put(c, mem(OP_LDAH, m->W, m->Y, -(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16)));
        put_page_read(c, &m->mt, m->W, m->S, m->T);
        put_ctx_base(c, m->Y, m->Y, m->P, t.R, m->base, 0, true, m->bad);
        tregs_restore(c, &t);
        if (!m->known)
            put_setk(c, m->P, KEPT_SCALE * add, m->bad);
        return;
    }
    put_region(c, x);
    put(c, mem(OP_LDAH, m->W, x, -(int)((CCT_PHYS - PMU_WINDOW_PHYS) >> 16)));
    put_page_read(c, &m->mt, m->W, m->S, m->T);
    /* no magic: the loader sets it (path-region.h note 5) */
    if (!m->known)
        put_setk(c, m->P, KEPT_SCALE * add, m->bad);
}

/* A kept leaf's read of the page word at off into dst (or, given a
 * reading, its register g: struct meter). */
static void put_kept_read(struct code *c, const struct pmode *m, unsigned dst, int off, unsigned g)
{
    if (m->mt.given)
        put(c, opr(OP_INTL, F_BIS, R_ZERO, g, dst));
    else
        put(c, mem(OP_LDQ, dst, m->W, off));
}

/* A kept leaf's exit, or its backedge (restart: the same read starts the
 * next path): path P + add's slot (the known number's, without P) gets
 * its count, and end - start of cycles and the event, where each end is
 * read from the PMU page straight into S or T between the slot's load
 * and its add (slot - S, then S = the page, then + S), so a backedge's
 * end read is the next path's start with no move (an exit's the same
 * way: reading the page first, as before, cost qsort's comparator more).
 * A backedge's reads lie at the same place in the trampoline each time,
 * so a path between backedges is measured whole; others with their
 * count's bookkeeping (the bias check --paths reports).  P holds
 * KEPT_SCALE times the number, so one s8addq finds the slot.  P, S and T
 * are dead after an exit and set again after a backedge, so they are
 * worked in; two more registers besides. */
static void put_kept_count(struct code *c, struct pmode *m, int64_t add, uint32_t live, bool restart)
{
    _Static_assert(PATH_METERED_SIZE == 8 * KEPT_SCALE, "s8addq of the scaled number is the slot's offset");
    struct tregs t;
    tregs_pick(&t, live, bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W) | kmask(m), 2);
    unsigned base = t.R, tmp = t.A;
    tregs_save(c, &t);
    int64_t off = both.on ? 0 : PATH_COUNTERS_OFFSET + PATH_METERED_SIZE * (int64_t)m->base;    /* --both: Y's */
    unsigned at;
    struct fixup to_bad = {0};
    if (m->known && both.on) {
        /* --both: the known number's slot from the activation's base */
        off += PATH_METERED_SIZE * (m->entry_add + add);
        at = put_slot_base(c, base, m->Y, &off);
    } else if (m->known) {
        /* from W, one ldah reaches the slot; no magic: the loader set it (path-region.h note 5) */
        int64_t from_page = CCT_PHYS - PMU_WINDOW_PHYS;
        off += from_page + PATH_METERED_SIZE * (m->entry_add + add);
        int64_t lo = off;
        at = put_slot_base(c, base, m->W, &lo);
        off = lo;
    } else {
        /* (no folding the add into the bound: P may be negative before
         * the exit's add, Ball-Larus increments on chords can be) */
        put_addk(c, m->P, KEPT_SCALE * add, m->bad);
        put_below(c, m->P, KEPT_SCALE * m->npaths, tmp, m->bad);
        to_bad = put_fwd(c, OP_BEQ, tmp);
        put(c, opr(OP_INTA, F_S8ADDQ, m->P, m->Y, m->P));
        at = put_slot_base(c, m->P, m->P, &off);
    }
    put(c, mem(OP_LDQ, tmp, at, (int)off + 8));
    put(c, opr(OP_INTA, F_SUBQ, tmp, m->S, tmp));
    put_kept_read(c, m, m->S, PMU_CYCLES_OFF, m->mt.gc);
    put(c, opr(OP_INTA, F_ADDQ, tmp, m->S, tmp));
    put(c, mem(OP_STQ, tmp, at, (int)off + 8));
    put(c, mem(OP_LDQ, tmp, at, (int)off + 16));
    put(c, opr(OP_INTA, F_SUBQ, tmp, m->T, tmp));
    put_kept_read(c, m, m->T, m->mt.ev_off, m->mt.ge);
    put(c, opr(OP_INTA, F_ADDQ, tmp, m->T, tmp));
    put(c, mem(OP_STQ, tmp, at, (int)off + 16));
    put_incq(c, tmp, at, (int)off);
    if (!m->known) {
        /* a bad number: counted in the region, which Y is (found again) */
        if (both.on)            /* Y is the slots' base: the stub finds the region in base */
            put_bad_way_at(c, m, to_bad, base, tmp, restart, true);
        else
            put_bad_way_at(c, m, to_bad, m->Y, tmp, restart, false);
    }
    tregs_restore(c, &t);
}

/* The callee-saved mode's entry and exit (pmode.saved; path-region.h
 * note 2): the caller's P goes on the register stack, P = ENTRY's add; at
 * an exit the path is counted and the caller's P comes back.  Past the
 * stack the outermost activation on the sink keeps its caller's P in the
 * sink slot; a deeper one's caller gets PATH_POISON back, so its path is
 * counted as lost (the bad-number stub sees the sink). */
static void put_saved_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));     /* Y is set here: not a spill */
    tregs_save(c, &t);
    put_region(c, t.R);
    if (m->mt.on)
        put_meter_read(c, &m->mt, &t);
    put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
    put(c, opl(OP_INTA, F_ADDQ, t.A, 1, t.A));
    put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
    struct fixup to_sink = put_fwd(c, OP_BNE, t.B);
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.B));
    put(c, mem(OP_STQ, m->P, t.B, PATH_STACK_OFFSET));
    if (m->Y != R_ZERO)
        put(c, mem(OP_STQ, m->Y, t.B, PATH_STACK2_OFFSET));
    if (m->sp_tags)
        put_sp_slot(c, OP_STQ, R_SP, t.B, t.C);
    if (m->mt.on)           /* (on the sink: none; its paths count unmetered) */
        put_meter_start(c, &t, t.B, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET);
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_sink);
    put(c, mem(OP_LDQ, t.B, t.R, PATH_OFF_EXCESS));
    put(c, opl(OP_INTA, F_ADDQ, t.B, 1, t.C));
    put(c, mem(OP_STQ, t.C, t.R, PATH_OFF_EXCESS));
    struct fixup deeper = put_fwd(c, OP_BNE, t.B);
    put(c, mem(OP_STQ, m->P, t.R, PATH_SINK_SLOT));
    if (m->Y != R_ZERO)
        put(c, mem(OP_STQ, m->Y, t.R, PATH_SINK_SLOT2));
    put(c, mem(OP_LDA, t.A, R_ZERO, PATH_SINK));
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    land(c, deeper);
    land(c, done);
    put_setk(c, m->P, add, m->bad);
    if (m->cb) {
        put_ctx_base(c, m->Y, t.R, t.A, t.B, m->base, 0, false, m->bad);
    } else if (m->Y != R_ZERO) {
        put(c, opr(OP_INTL, F_BIS, R_ZERO, t.R, m->Y));
        if (!m->mt.on)          /* metered: Y keeps the region */
            put_addk(c, m->Y, PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base, m->bad);
    }
    tregs_restore(c, &t);
}

static void put_saved_exit(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));     /* Y is loaded here: not a spill */
    tregs_save(c, &t);
    put_region(c, t.R);
    if (m->mt.on)
        put_meter_read(c, &m->mt, &t);
    put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
    struct fixup to_unmatched = put_fwd(c, OP_BEQ, t.A);
    if (m->mt.on) {
        put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
        struct fixup sink = put_fwd(c, OP_BNE, t.B);
        put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.A));
        put_meter_end(c, &t, t.A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, false);
        put_reg_count(c, m, &t, add, true, true);
        put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
        struct fixup counted = put_fwd(c, OP_BR, R_ZERO);
        land(c, sink);
        put_reg_count(c, m, &t, add, true, false);
        put_incq(c, t.C, t.R, PATH_OFF_UNMETERED);
        land(c, counted);
    } else {
        put_reg_count(c, m, &t, add, true, false);
    }
    put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
    struct fixup to_sink = put_fwd(c, OP_BNE, t.B);
    put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.B));
    put(c, mem(OP_LDQ, m->P, t.B, PATH_STACK_OFFSET));
    if (m->Y != R_ZERO)
        put(c, mem(OP_LDQ, m->Y, t.B, PATH_STACK2_OFFSET));
    put(c, opl(OP_INTA, F_SUBQ, t.A, 1, t.A));
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    struct fixup done1 = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_sink);
    put(c, mem(OP_LDQ, t.B, t.R, PATH_OFF_EXCESS));
    put(c, opl(OP_INTA, F_SUBQ, t.B, 1, t.B));
    put(c, mem(OP_STQ, t.B, t.R, PATH_OFF_EXCESS));
    struct fixup to_poison = put_fwd(c, OP_BNE, t.B);
    put(c, mem(OP_LDQ, m->P, t.R, PATH_SINK_SLOT));
    if (m->Y != R_ZERO)
        put(c, mem(OP_LDQ, m->Y, t.R, PATH_SINK_SLOT2));
    put(c, mem(OP_LDA, t.A, R_ZERO, PATH_SINK - 1));
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    struct fixup done2 = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_poison);
    put(c, mem(OP_LDAH, m->P, R_ZERO, PATH_POISON >> 16));
    if (m->Y != R_ZERO) {
        /* the caller's counters' address is lost too: one that keeps any
         * number below PATH_MAX_COUNTERS inside the region */
        put(c, mem(OP_LDA, m->Y, t.R, m->mt.on ? 0 : PATH_COUNTERS_OFFSET));
    }
    struct fixup done3 = put_fwd(c, OP_BR, R_ZERO);
    land(c, to_unmatched);
    put_incq(c, t.B, t.R, PATH_OFF_UNMATCHED);
    land(c, done1);
    land(c, done2);
    land(c, done3);
    tregs_restore(c, &t);
}

/* Frame mode (path-region.h note 11): the offset from sp of the frame's
 * k-th slot where the edge being emitted runs. */
static int fslot(const struct pmode *m, int k)
{
    return (int)((m->fbody ? m->fsize : -frame_slots(m)) + 8 * k);
}

/* With metrics, the callee-saved mode's entry in frame mode: the page
 * read first, then the caller's P (and Y) to the frame's first slots and
 * the path's start to its third and fourth; P = the path's slot's address
 * (addr) or ENTRY's add, Y = the region. */
static void put_metered_frame_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, bit(m->P) | bit(m->Y));
    tregs_save(c, &t);
    put_region(c, t.R);
    if (m->addr) {              /* the page in the second slot (no Y): the exit reads it from there */
        put(c, mem(OP_LDAH, t.A, t.R, PMU_FROM_REGION));
        put_page_read(c, &m->mt, t.A, t.D, t.E);
        put(c, mem(OP_STQ, t.A, R_SP, fslot(m, 1)));
    } else {
        put_meter_read(c, &m->mt, &t);
    }
    put(c, mem(OP_STQ, m->P, R_SP, fslot(m, 0)));
    if (m->Y != R_ZERO) {
        put(c, mem(OP_STQ, m->Y, R_SP, fslot(m, 1)));
        put(c, opr(OP_INTL, F_BIS, R_ZERO, t.R, m->Y));
    }
    put_meter_start(c, &t, R_SP, fslot(m, 2), fslot(m, 3));
    if (m->addr) {
        put_addk_from(c, m->P, t.R, PATH_COUNTERS_OFFSET + PATH_METERED_SIZE * ((int64_t)m->base + add), m->bad);
    } else {
        put_setk(c, m->P, add, m->bad);
    }
    tregs_restore(c, &t);
}

/* The callee-saved mode's entry in frame mode: the caller's P (and Y) go
 * to the frame's slots (sp is the caller's at the entry), P = ENTRY's add,
 * Y = the counters' address. */
static void put_frame_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    if (m->mt.on) {
        put_metered_frame_entry(c, m, add, live);
        return;
    }
    put(c, mem(OP_STQ, m->P, R_SP, fslot(m, 0)));
    if (m->addr) {
        put_region(c, m->P);
        put_addk(c, m->P, PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + add), m->bad);
        return;
    }
    if (m->Y != R_ZERO) {
        put(c, mem(OP_STQ, m->Y, R_SP, fslot(m, 1)));
        put_region(c, m->Y);
        put_addk(c, m->Y, PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base, m->bad);
    }
    put_setk(c, m->P, add, m->bad);
}

/* ... and its exit: the path counted, the caller's P (and Y) back.  With
 * metrics (restart: a backedge, whose reading starts the next path) the
 * page is read first and the path's start taken from the frame. */
static void put_frame_count(struct code *c, struct pmode *m, int64_t add, uint32_t live, bool restart)
{
    struct tregs t;
    if (m->mt.on) {
        tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | kmask(m), 6, m->Y);   /* Y: the region */
        tregs_save(c, &t);
        if (m->addr) {          /* the page from the frame's second slot (the entry's) */
            put(c, mem(OP_LDQ, t.E, R_SP, fslot(m, 1)));
            put_page_read(c, &m->mt, t.E, t.D, t.E);
        } else {
            if (m->Y == R_ZERO)
                put_region(c, t.R);
            put_meter_read(c, &m->mt, &t);
        }
        put_meter_end(c, &t, R_SP, fslot(m, 2), fslot(m, 3), restart);
    } else {
        pick(m, &t, live, bit(m->P) | bit(m->Y));
        tregs_save(c, &t);
    }
    if (m->addr) {
        /* P is never out of range but when a callee on the sink handed
         * back PATH_POISON (note 3): no address in RAM, so one test keeps
         * it from being counted; its stub counts it as lost */
        _Static_assert(RAM_SIZE <= 1u << 28 && PATH_POISON - 8 * PATH_MAX_COUNTERS >= 1u << 28 &&
                       PATH_POISON - PATH_METERED_SIZE * (uint64_t)PATH_MAX_METERED >= 1u << 28,
                       "a poisoned address is at or above 2^28, every counter's below");
        put(c, opl(OP_INTS, F_SRL, m->P, 28, t.C));
        struct fixup poisoned = put_fwd(c, OP_BNE, t.C);
        int64_t off = slot_size(&m->mt) * add;
        unsigned at = put_slot_base(c, t.B, m->P, &off);
        put_incq(c, t.C, at, (int)off);
        if (m->mt.on)
            put_meter_add(c, &t, at, (int)off);
        if (m->nstubs < sizeof m->stub / sizeof *m->stub) {
            m->stub[m->nstubs++] = (struct bad_stub){.from = poisoned, .back = here(c), .r = t.R, .x = t.C};
        } else {
            struct fixup done = put_fwd(c, OP_BR, R_ZERO);
            land(c, poisoned);
            put_region(c, t.R);
            put_incq(c, t.C, t.R, PATH_OFF_LOST);
            land(c, done);
        }
    } else {
        put_reg_count(c, m, &t, add, m->mt.on, m->mt.on);
    }
    tregs_restore(c, &t);
    if (restart)
        return;
    put(c, mem(OP_LDQ, m->P, R_SP, fslot(m, 0)));
    if (m->Y != R_ZERO)
        put(c, mem(OP_LDQ, m->Y, R_SP, fslot(m, 1)));
}

/* An action with P kept in the frame's slot (pmode.fmem): as the memory
 * mode's, in the procedure's own frame rather than on the register stack. */
static void put_fmem_action(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live)
{
    struct tregs t;
    pick(m, &t, live, 0);
    tregs_save(c, &t);
    hashing.tmp = t.C;          /* (a hashed procedure's wide increments: path-region.h note 14) */
    int slot = fslot(m, 0);
    bool reads = m->mt.on && a->kind != BL_ACT_ADD;
    if (reads) {                /* the page first (path-region.h note 5); the path's start in the frame */
        put_region(c, t.R);
        put_meter_read(c, &m->mt, &t);
        if (a->kind == BL_ACT_ENTRY)
            put_meter_start(c, &t, R_SP, fslot(m, 2), fslot(m, 3));
        else
            put_meter_end(c, &t, R_SP, fslot(m, 2), fslot(m, 3), a->kind == BL_ACT_BACKEDGE);
    }
    switch (a->kind) {
    case BL_ACT_ENTRY:
        if (m->cb) {            /* --both: the counters' base in the second slot (cct-region.h note 17) */
            put_core_state(c, t.R);
            put_ctx_base(c, t.R, t.R, t.A, t.B, m->base, 0, true, m->bad);
            put(c, mem(OP_STQ, t.R, R_SP, fslot(m, 1)));
        } else if (both.on && hashing.ctx) {    /* --both, hashed: its context there (path-region.h note 15) */
            put_core_state(c, t.R);
            put_hash_ctx(c, t.A, t.R, t.B, true);
            put(c, mem(OP_STQ, t.A, R_SP, fslot(m, 1)));
        }
        put_setk(c, t.A, a->add, m->bad);
        put(c, mem(OP_STQ, t.A, R_SP, slot));
        break;
    case BL_ACT_ADD:
        if (m->rk) {
            put_setk(c, t.A, m->rv + a->add, m->bad);
        } else {
            put(c, mem(OP_LDQ, t.A, R_SP, slot));
            put_addk(c, t.A, a->add, m->bad);
        }
        put(c, mem(OP_STQ, t.A, R_SP, slot));
        break;
    case BL_ACT_EXIT:
    case BL_ACT_BACKEDGE: {
        int64_t idx = m->rv + a->add;
        if (!(m->rk && idx >= 0 && (uint64_t)idx < m->npaths) || m->mt.on)  /* (put_reg_count's known slot) */
            put(c, mem(OP_LDQ, t.A, R_SP, slot));
        unsigned P = m->P;
        m->P = t.A;
        if (m->cb) {            /* --both: Y the base from the frame (the region is not needed) */
            put(c, mem(OP_LDQ, t.R, R_SP, fslot(m, 1)));
            m->Y = t.R;
        }
        hashing.ctx_at = both.on && hashing.ctx ? fslot(m, 1) : 0;    /* (kept there at the entry) */
        put_reg_count(c, m, &t, a->add, reads, reads);
        hashing.ctx_at = 0;
        m->P = P;
        if (m->cb)
            m->Y = R_ZERO;
        if (a->kind == BL_ACT_BACKEDGE) {
            put_setk(c, t.A, a->reset, m->bad);
            put(c, mem(OP_STQ, t.A, R_SP, slot));
        }
        break;
    }
    default:
        break;
    }
    tregs_restore(c, &t);
}

/* The bad-number stubs of the trampoline just ended. */
void put_stubs(struct code *c, struct pmode *m)
{
    for (unsigned i = 0; i < both.ncold; i++) {         /* --both's (struct both_cold) */
        struct both_cold *cd = &both.cold[i];
        for (unsigned j = 0; j < cd->nfrom; j++)
            land(c, cd->from[j]);
        int64_t off = cd->off;
        if (!fits16(off)) {
            put_addk(c, cd->r, off, m->bad);
            off = 0;
        }
        put_incq(c, cd->x, cd->r, (int)off);
        put_branch(c, OP_BR, R_ZERO, cd->back);
    }
    both.ncold = 0;
    for (unsigned i = 0; i < m->nstubs; i++) {
        unsigned r = m->stub[i].r, x = m->stub[i].x;
        land(c, m->stub[i].from);
        if (m->stub[i].first) {
            const struct iv_meter *v = &m->km[r];
            put(c, opr(OP_INTL, F_BIS, R_ZERO, v->last_c, v->first_c));
            put(c, opr(OP_INTL, F_BIS, R_ZERO, v->last_e, v->first_e));
            put_branch(c, OP_BR, R_ZERO, m->stub[i].back);
            continue;
        }
        if (m->stub[i].reads) {
            put_page_read(c, &m->mt, m->W, m->S, m->T);
        }
        put_region(c, r);
        if (m->saved) {
            /* on the sink: a caller whose P was lost (PATH_POISON) */
            put(c, mem(OP_LDQ, x, r, PATH_OFF_DEPTH));
            put(c, opl(OP_INTS, F_SRL, x, SINK_BIT, x));
            struct fixup not_sink = put_fwd(c, OP_BEQ, x);
            put_incq(c, x, r, PATH_OFF_LOST);
            put_branch(c, OP_BR, R_ZERO, m->stub[i].back);
            land(c, not_sink);
        }
        put_incq(c, x, r, PATH_OFF_BAD);
        put_branch(c, OP_BR, R_ZERO, m->stub[i].back);
    }
    m->nstubs = 0;
}

/* The edge of action a in the procedure's actions, or -1 (a made-up one). */
static ptrdiff_t edge_index(const struct pmode *m, const struct bl_action *a)
{
    return m->act0 && a >= m->act0 && a < m->act0 + m->nact ? a - m->act0 : -1;
}

/* Whether an edge carries no code: a trivial action, no loop register. */
bool edge_trivial(const struct pmode *m, const struct bl_action *a)
{
    ptrdiff_t e = edge_index(m, a);
    if (e < 0 || !m->kzero)
        return action_trivial(a);
    return (action_trivial(a) || m->kskip[e]) && !(m->kzero[e] | m->kflush[e] | m->kback[e] | m->kneut[e]);
}

/* A metered loop's entry (path-region.h note 17): no first reading yet,
 * and the PMU page (a kept leaf's W, else found from sp). */
static void put_iv_meter_entry(struct code *c, const struct pmode *m, unsigned k)
{
    const struct iv_meter *v = &m->km[k];
    unsigned R = m->kept ? m->Y : v->page;      /* the region: a kept leaf's Y */
    if (!m->kept)
        put_region(c, R);
    for (unsigned i = 0; i < v->nheld; i++)
        put(c, mem(OP_STQ, v->held[i], R, PATH_OFF_LOOP_HELD + 8 * (int)i));
    if (!m->kept)
        put(c, mem(OP_LDAH, v->page, v->page, PMU_FROM_REGION));
    put(c, opr(OP_INTL, F_BIS, R_ZERO, R_ZERO, v->first_c));
}

/* A metered loop's borrowed registers back (note 17), at every way out;
 * the page (dead after) becomes the region. */
static void put_iv_meter_unhold(struct code *c, const struct pmode *m, unsigned k)
{
    const struct iv_meter *v = &m->km[k];
    unsigned R = m->kept ? m->Y : v->page;
    if (!v->nheld)
        return;
    if (!m->kept)
        put(c, mem(OP_LDAH, v->page, v->page, -PMU_FROM_REGION));
    for (unsigned i = 0; i < v->nheld; i++)
        put(c, mem(OP_LDQ, v->held[i], R, PATH_OFF_LOOP_HELD + 8 * (int)i));
}

/* A metered loop's backedge (note 17): the page read into the last
 * reading; the first backedge's kept too (a cycle count is never 0), out
 * of line after the trampoline (put_stubs), so an iteration runs two
 * loads and a branch not taken before its branch back: one of the core's
 * fetch groups (two conditional moves made it two). */
static void put_iv_meter_read(struct code *c, struct pmode *m, unsigned k)
{
    const struct iv_meter *v = &m->km[k];
    put_page_read(c, &m->mt, v->page, v->last_c, v->last_e);
    if (m->nstubs < sizeof m->stub / sizeof *m->stub) {
        struct fixup first = put_fwd(c, OP_BEQ, v->first_c);
        m->stub[m->nstubs++] = (struct bad_stub){.from = first, .back = here(c), .r = k, .first = true};
        return;
    }
    put(c, opr(OP_INTL, F_CMOVEQ, v->first_c, v->last_e, v->first_e));
    put(c, opr(OP_INTL, F_CMOVEQ, v->first_c, v->last_c, v->first_c));
}

/* The iterations after the first of a metered loop (note 17), K of them:
 * the iteration path's slot gets K, and the last reading less the first
 * as their metrics (the loop's registers are dead after). */
static void put_iv_meter_flush(struct code *c, struct pmode *m, unsigned k, uint32_t live)
{
    const struct iv_meter *v = &m->km[k];
    struct tregs t;
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | bit(m->S) | bit(m->T) | bit(m->W) | kmask(m), 4, m->Y);
    tregs_save(c, &t);
    if (m->Y == R_ZERO)         /* metered: Y keeps the region (--both: the activation's slots' base) */
        put_region(c, t.R);
    int64_t off = (both.on ? 0 : PATH_COUNTERS_OFFSET + PATH_METERED_SIZE * (int64_t)m->base) +
                  PATH_METERED_SIZE * m->kidx[k];
    unsigned at = put_slot_base(c, t.B, t.R, &off);
    put(c, mem(OP_LDQ, t.C, at, (int)off));
    put(c, opr(OP_INTA, F_ADDQ, t.C, m->K[k], t.C));
    put(c, mem(OP_STQ, t.C, at, (int)off));
    put(c, opr(OP_INTA, F_SUBQ, v->last_c, v->first_c, v->last_c));
    put(c, opr(OP_INTA, F_SUBQ, v->last_e, v->first_e, v->last_e));
    t.D = v->last_c;
    t.E = v->last_e;
    put_meter_add(c, &t, at, (int)off);
    tregs_restore(c, &t);
}

/* The path going on after a metered loop (note 17) starts at its last
 * backedge's reading (the model's window has the fixup inside it, as any
 * trampoline between a path's reads), kept where the activation keeps
 * its start (note 5). */
static void put_iv_meter_restart(struct code *c, struct pmode *m, unsigned k, uint32_t live)
{
    const struct iv_meter *v = &m->km[k];
    if (m->kept) {
        put(c, opr(OP_INTL, F_BIS, R_ZERO, v->last_c, m->S));
        put(c, opr(OP_INTL, F_BIS, R_ZERO, v->last_e, m->T));
        return;
    }
    struct tregs t = {.D = v->last_c, .E = v->last_e};
    if (m->frame) {             /* in the frame's slots (path-region.h note 11) */
        put_meter_start(c, &t, R_SP, fslot(m, 2), fslot(m, 3));
        return;
    }
    tregs_pick_beside(&t, live, bit(m->P) | bit(m->Y) | kmask(m), 3, m->Y);
    t.D = v->last_c;
    t.E = v->last_e;
    tregs_save(c, &t);
    if (m->Y == R_ZERO)
        put_region(c, t.R);
    if (m->leaf) {
        put_meter_start(c, &t, t.R, PATH_OFF_LEAF_CYCLES, PATH_OFF_LEAF_EVENT);
    } else {
        /* the depth's slot; none (depth 0, the sink): its path counts unmetered */
        struct fixup none, sink;
        put_depth_slot(c, &t, &none, &sink);
        put_meter_start(c, &t, t.A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET);
        land(c, none);
        land(c, sink);
    }
    tregs_restore(c, &t);
}

/* An exit of loop k counted by its induction variable (path-region.h note
 * 10): n = the backedges taken since the loop was entered, from ivr - K
 * (less the increment when it ran before this exit, ib); with any, the
 * first counts as the backedge's action does (P + add, the number it was
 * entered with; P = reset) and the n - 1 others add to the iteration
 * path's counter.  K is dead afterwards.  Metered (note 17): the first
 * backedge's action ends at the first reading, the path going on starts
 * at the last, and the others' metrics are the last less the first. */
void put_iv_fixup(struct code *c, struct pmode *m, unsigned k, bool ib, uint32_t live)
{
    unsigned K = m->K[k];
    const struct iv_meter *v = &m->km[k];
    bool metered = v->page != R_ZERO;
    put(c, opr(OP_INTA, F_SUBQ, m->ivr[k], K, K));
    if (ib)
        put(c, mem(OP_LDA, K, K, (int)-m->ivstep[k]));
    if (m->ivstep[k] < 0)
        put(c, opr(OP_INTA, F_SUBQ, R_ZERO, K, K));
    if (m->ivl[k])          /* (the longword's wraps: mod 2^32) */
        put(c, opl(OP_INTS, F_ZAPNOT, K, 0x0f, K));
    if (m->ivsh[k])
        put(c, opl(OP_INTS, F_SRA, K, m->ivsh[k], K));
    struct fixup none = put_fwd(c, OP_BEQ, K);
    put(c, opl(OP_INTA, F_SUBQ, K, 1, K));
    bool rk = m->rk;
    m->rk = false;
    m->mt.given = metered;
    m->mt.gc = v->first_c;
    m->mt.ge = v->first_e;
    put_action_code(c, m, &m->act0[m->kbe[k]], live);
    m->mt.given = false;
    m->rk = rk;
    if (metered) {
        put_iv_meter_restart(c, m, k, live);
        put_iv_meter_flush(c, m, k, live);
    } else {
        put_loop_flush(c, m, 1u << k, live);
    }
    land(c, none);
    if (metered)
        put_iv_meter_unhold(c, m, k);
}

/* The code of an edge: its loop registers' (path-region.h note 9), then
 * its action's. */
void put_edge_code(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live)
{
    ptrdiff_t e = edge_index(m, a);
    if (e < 0 || !m->kzero) {
        put_action_code(c, m, a, live);
        return;
    }
    unsigned counted = 0;       /* loops counted in K itself (note 9), not by an induction variable */
    for (unsigned k = 0; k < m->nk; k++)
        if (m->ivr[k] == R_ZERO)
            counted |= 1u << k;
    for (unsigned k = 0; k < m->nk; k++)
        if ((m->kflush[e] & 1u << k) && m->ivr[k] != R_ZERO)
            put_iv_fixup(c, m, k, m->kib[e], live);
    if (m->kflush[e] & counted)
        put_loop_flush(c, m, m->kflush[e] & counted, live);
    for (unsigned k = 0; k < m->nk; k++) {
        if (m->kzero[e] & 1u << k) {
            put(c, opr(OP_INTL, F_BIS, R_ZERO, m->ivr[k], m->K[k]));   /* ivr = R_ZERO: K = 0 */
            if (m->km[k].page != R_ZERO)
                put_iv_meter_entry(c, m, k);
        }
        if ((m->kneut[e] & 1u << k) && m->kadj[e])     /* from the loop into its sink: X's fixup counts it */
            put(c, mem(OP_LDA, m->K[k], m->K[k], (int)(m->kadj[e] * m->ivstep[k])));
        else if (m->kneut[e] & 1u << k) {       /* no iteration: ivr - K = the increment when it ran before */
            put(c, mem(OP_LDA, m->K[k], m->ivr[k], (int)-(m->kxib[e] ? m->ivstep[k] : 0)));
            if (m->km[k].nheld)         /* the fixup there gives the borrowed registers back (note 17) */
                put_iv_meter_entry(c, m, k);
        }
    }
    if (m->kskip[e])
        return;
    if (m->kread[e]) {
        put_iv_meter_read(c, m, m->kread[e] - 1u);
        return;
    }
    if (!m->kback[e]) {
        put_action_code(c, m, a, live);
        return;
    }
    /* the iteration path (P == kv) counts in K; another (the first
     * iteration's, entered from outside) as any backedge's */
    unsigned k = m->kback[e] - 1u;
    /* compared in P itself (reset after either way), so the hot path
     * needs no scratch register */
    if (m->kv[k])
        put(c, mem(OP_LDA, m->P, m->P, (int)-m->kv[k]));
    struct fixup other = put_fwd(c, OP_BNE, m->P);
    put(c, opl(OP_INTA, F_ADDQ, m->K[k], 1, m->K[k]));
    put_setk(c, m->P, a->reset, m->bad);
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, other);
    if (m->kv[k])
        put(c, mem(OP_LDA, m->P, m->P, (int)m->kv[k]));
    put_action_code(c, m, a, live);
    land(c, done);
}

/* --both, counts only: an entry, x the CCT core state: x = the
 * activation's counters' base + 8 extra (put_ctx_base, cct-region.h note
 * 17) with two registers dead here (else kept below sp). */
static void put_both_entry_base(struct code *c, struct pmode *m, unsigned x, int64_t extra, uint32_t live)
{
    struct tregs t;
    tregs_pick(&t, live, bit(m->P) | bit(m->Y) | kmask(m), 2);
    tregs_save(c, &t);
    put_ctx_base(c, x, x, t.R, t.A, m->base, extra, true, m->bad);
    tregs_restore(c, &t);
}

/* --both, counts only, frame mode (path-region.h note 11): the caller's
 * P (and Y) to the frame's slots, then P = the activation's counters'
 * base + 8 ENTRY's add (no backedge: addr), else Y = that base and P =
 * the add. */
static void put_both_frame_entry(struct code *c, struct pmode *m, int64_t add, uint32_t live)
{
    put(c, mem(OP_STQ, m->P, R_SP, fslot(m, 0)));
    if (m->addr) {
        put_core_state(c, m->P);
        put_both_entry_base(c, m, m->P, add, live);
        return;
    }
    put(c, mem(OP_STQ, m->Y, R_SP, fslot(m, 1)));
    put_core_state(c, m->Y);
    put_both_entry_base(c, m, m->Y, 0, live);
    put_setk(c, m->P, add, m->bad);
}

/* The code of an edge's action where the registers of live are live. */
static void put_action_code(struct code *c, struct pmode *m, const struct bl_action *a, uint32_t live)
{
    if (action_trivial(a))
        return;
    both.exit = a->kind == BL_ACT_EXIT;
    if (m->constant) {
        if (a->kind == BL_ACT_EXIT) {
            struct tregs t;
            pick(m, &t, live, 0);
            tregs_save(c, &t);
            int64_t k = m->entry_add + a->add;
            if (both.on && both.ctx && both.ncold < sizeof both.cold / sizeof *both.cold && fits16(both.ctx_off + 8 * k)) {
                /* the activation's one count: in its record, straight
                 * on; context-free out of line (cct-region.h note 17),
                 * the path region not needed on the way */
                struct both_cold *cd = &both.cold[both.ncold++];
                put_core_state(c, t.R);
                put(c, mem(OP_LDQ, t.B, t.R, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
                cd->nfrom = 1;
                if (both.leaf) {
                    put(c, mem(OP_STQ, R_ZERO, t.R, CCT_OFF_LEAF_REC));
                    cd->from[cd->nfrom++] = put_fwd(c, OP_BEQ, t.B);
                }
                put(c, mem(OP_LDL, t.C, t.B, CCT_REC_FLAGS));
                put(c, mem(OP_LDA, t.C, t.C, -both.ctx_flags));
                cd->from[0] = put_fwd(c, OP_BNE, t.C);   /* (from[1] set first: a leaf's) */
                put_incq(c, t.A, t.B, (int)(both.ctx_off + 8 * k));
                cd->back = here(c);
                cd->r = t.R;
                cd->x = t.A;
                cd->off = CCT_BOTH_PATHS_OFFSET + PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + k);
                tregs_restore(c, &t);
                return;
            }
            put_region(c, t.R);
            struct ctx_count cc = put_ctx_count(c, t.R, R_ZERO, m->entry_add + a->add, t.B, t.C, &m->mt, NULL);
            int64_t off = PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + m->entry_add + a->add);
            if (!fits16(off)) {
                put_addk(c, t.R, off, m->bad);
                off = 0;
            }
            put_incq(c, t.A, t.R, (int)off);
            ctx_done(c, &cc);
            tregs_restore(c, &t);
        }
        return;
    }
    if (m->fmem) {
        put_fmem_action(c, m, a, live);
        return;
    }
    if (m->saved) {
        switch (a->kind) {
        case BL_ACT_ENTRY:
            if (m->frame && m->cb)
                put_both_frame_entry(c, m, a->add, live);
            else if (m->frame)
                put_frame_entry(c, m, a->add, live);
            else
                put_saved_entry(c, m, a->add, live);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, (m->addr ? slot_size(&m->mt) : 1) * a->add, m->bad);
            break;
        case BL_ACT_EXIT:
            if (m->frame)
                put_frame_count(c, m, a->add, live, false);
            else
                put_saved_exit(c, m, a->add, live);
            break;
        case BL_ACT_BACKEDGE:
            if (m->mt.on && m->frame)
                put_frame_count(c, m, a->add, live, true);
            else if (m->mt.on)
                put_metered_saved_backedge(c, m, a->add, live);
            else
                put_leaf_count(c, m, a->add, live);
            put_setk(c, m->P, a->reset, m->bad);
            break;
        default:
            break;
        }
        return;
    }
    if (!m->leaf) {
        struct tregs t;
        pick(m, &t, live, 0);
        tregs_save(c, &t);
        put_region(c, t.R);
        put_action(c, &t, &m->mt, a, m->npaths, m->base, m->sp_tags, m->bad);
        tregs_restore(c, &t);
        return;
    }
    if (m->kept) {
        switch (a->kind) {
        case BL_ACT_ENTRY:
            put_kept_entry(c, m, a->add, live);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, KEPT_SCALE * a->add, m->bad);
            break;
        case BL_ACT_EXIT:
            put_kept_count(c, m, a->add, live, false);
            break;
        case BL_ACT_BACKEDGE:
            put_kept_count(c, m, a->add, live, true);
            put_setk(c, m->P, KEPT_SCALE * a->reset, m->bad);
            break;
        default:
            break;
        }
        return;
    }
    if (m->mt.on) {
        switch (a->kind) {
        case BL_ACT_ENTRY:
            put_metered_leaf_entry(c, m, live);
            put_setk(c, m->P, a->add, m->bad);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, a->add, m->bad);
            break;
        case BL_ACT_EXIT:
            put_metered_leaf_count(c, m, a->add, live, false);
            break;
        case BL_ACT_BACKEDGE:
            put_metered_leaf_count(c, m, a->add, live, true);
            put_setk(c, m->P, a->reset, m->bad);
            break;
        default:
            break;
        }
        return;
    }
    if (m->addr) {
        /* a leaf with no backedge, counts only: P holds its path's
         * counter's address (path-region.h note 11) */
        switch (a->kind) {
        case BL_ACT_ENTRY:
            if (m->cb) {
                put_core_state(c, m->P);
                put_both_entry_base(c, m, m->P, a->add, live);
                break;
            }
            put_region(c, m->P);
            put_addk(c, m->P, PATH_COUNTERS_OFFSET + 8 * ((int64_t)m->base + a->add), m->bad);
            break;
        case BL_ACT_ADD:
            put_addk(c, m->P, 8 * a->add, m->bad);
            break;
        case BL_ACT_EXIT: {
            struct tregs t;
            pick(m, &t, live, bit(m->P));
            tregs_save(c, &t);
            int64_t off = 8 * a->add;
            unsigned at = put_slot_base(c, t.B, m->P, &off);
            put_incq(c, t.C, at, (int)off);
            tregs_restore(c, &t);
            break;
        }
        default:
            break;
        }
        return;
    }
    switch (a->kind) {
    case BL_ACT_ENTRY:
        if (m->Y != R_ZERO) {
            if (m->cb) {
                put_core_state(c, m->Y);
                put_both_entry_base(c, m, m->Y, 0, live);
            } else {
                put_region(c, m->Y);
                put_addk(c, m->Y, PATH_COUNTERS_OFFSET + 8 * (int64_t)m->base, m->bad);
            }
        }
        put_setk(c, m->P, a->add, m->bad);
        break;
    case BL_ACT_ADD:
        put_addk(c, m->P, a->add, m->bad);
        break;
    case BL_ACT_EXIT:
        put_leaf_count(c, m, a->add, live);
        break;
    case BL_ACT_BACKEDGE:
        put_leaf_count(c, m, a->add, live);
        put_setk(c, m->P, a->reset, m->bad);
        break;
    default:
        break;
    }
}

