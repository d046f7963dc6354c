/*
 * A path count's building blocks (util/instrument-emit.h note 1): the
 * registers a trampoline works in, the PMU reads of per-path metrics
 * (path-region.h note 5), counting in the array, in a call record
 * (--both) and in the hash table (notes 14, 15), and one edge's
 * Ball-Larus action.
 */
#include "util/instrument-emit.h"

#include <stdio.h>

struct hashing_state hashing;    /* instrument-emit.h note 2 */
int spill_below;

/* Whether k is one ldah + lda away (put_addk's reach). */
static bool fits_ldah(int64_t k)
{
    int64_t hi = (k + 0x8000) >> 16;
    return hi >= -32768 && hi <= 32767;
}

/* r = v, any 64 bits (path-region.h note 14): v = ((d3 << 16 + d2) << 32)
 * + d1 << 16 + d0, each d a sign-extended 16-bit digit. */
static void put_wide(struct code *c, unsigned r, int64_t v)
{
    uint64_t u = (uint64_t)v;
    int16_t d[4];
    for (int i = 0; i < 4; i++) {
        d[i] = (int16_t)(u & 0xffff);
        u = (u - (uint64_t)(int64_t)d[i]) >> 16;
    }
    put(c, mem(OP_LDAH, r, R_ZERO, d[3]));
    put(c, mem(OP_LDA, r, r, d[2]));
    put(c, opl(OP_INTS, F_SLL, r, 32, r));
    put(c, mem(OP_LDAH, r, r, d[1]));
    put(c, mem(OP_LDA, r, r, d[0]));
}

/* r += k (|k| < 2^31, else *bad). */
void put_addk(struct code *c, unsigned r, int64_t k, bool *bad)
{
    if (!k)
        return;
    if (hashing.on && !fits_ldah(k) && hashing.tmp != R_ZERO) {
        put_wide(c, hashing.tmp, k);
        put(c, opr(OP_INTA, F_ADDQ, r, hashing.tmp, r));
        return;
    }
    put_addk_from(c, r, r, k, bad);
}

/* dst = src + k (not a hashed procedure's wide increments: put_addk). */
void put_addk_from(struct code *c, unsigned dst, unsigned src, int64_t k, bool *bad)
{
    int64_t hi = (k + 0x8000) >> 16, lo = k - hi * 65536;
    if (fits16(k)) {
        if (k || dst != src)
            put(c, mem(OP_LDA, dst, src, (int)k));
        return;
    }
    if (!fits16(hi)) {
        *bad = true;
        return;
    }
    put(c, mem(OP_LDAH, dst, src, (int)hi));
    if (lo)
        put(c, mem(OP_LDA, dst, dst, (int)lo));
}

void put_setk(struct code *c, unsigned r, int64_t k, bool *bad)
{
    if (hashing.on && !fits_ldah(k)) {
        put_wide(c, r, k);
        return;
    }
    if (fits16(k)) {
        put(c, mem(OP_LDA, r, R_ZERO, (int)k));
        return;
    }
    put(c, opr(OP_INTL, F_BIS, R_ZERO, R_ZERO, r));
    put_addk(c, r, k, bad);
}

const unsigned scratch_order[SCRATCH_ORDER_N] = {1, 2, 3, 4, 5, 6, 7, 8, 22, 23, 24, 25, 28, 27,
                                                  16, 17, 18, 19, 20, 21, 0, 26, 29, 9, 10, 11, 12, 13, 14, 15};

/* want (4, or 6 with metrics) registers outside live and exclude; the
 * region's the one given (R_ZERO: pick it too), which needs no picking. */
void tregs_pick_beside(struct tregs *t, uint32_t live, uint32_t exclude, unsigned want, unsigned region)
{
    unsigned got[6] = {region, R_ZERO, R_ZERO, R_ZERO, R_ZERO, R_ZERO}, n = region != R_ZERO;
    uint32_t taken = live | exclude | 1u << R_SP | 1u << R_ZERO;
    for (size_t i = 0; i < sizeof scratch_order / sizeof *scratch_order && n < want; i++)
        if (!(taken & 1u << scratch_order[i])) {
            got[n++] = scratch_order[i];
            taken |= 1u << scratch_order[i];
        }
    t->nsaved = 0;
    for (unsigned r = 1; n < want; r++)
        if (!((exclude | 1u << R_SP) & 1u << r) && !(taken & 1u << r & ~live)) {
            bool used = false;
            for (unsigned k = 0; k < n; k++)
                used |= got[k] == r;
            if (used)
                continue;
            got[n++] = r;
            t->saved[t->nsaved++] = r;
        }
    t->R = got[0];
    t->A = got[1];
    t->B = got[2];
    t->C = got[3];
    t->D = got[4];
    t->E = got[5];
}

void tregs_pick(struct tregs *t, uint32_t live, uint32_t exclude, unsigned want)
{
    tregs_pick_beside(t, live, exclude, want, R_ZERO);
}

void tregs_save(struct code *c, const struct tregs *t)
{
    for (unsigned i = 0; i < t->nsaved; i++)
        put(c, mem(OP_STQ, t->saved[i], R_SP, -8 * (int)(i + 1) - spill_below));
}

void tregs_restore(struct code *c, const struct tregs *t)
{
    for (unsigned i = 0; i < t->nsaved; i++)
        put(c, mem(OP_LDQ, t->saved[i], R_SP, -8 * (int)(i + 1) - spill_below));
}

/* r = this core's path region, from sp (cct-region.h note 1): a user sp
 * never reaches its slot's end (USER_STACK_TOP_GAP), which is the next
 * slot's first address. */
void put_region(struct code *c, unsigned r)
{
    _Static_assert(USER_STACK_TOP_GAP > 0, "sp stays inside its slot");
    _Static_assert(CCT_BOTH_PATHS_OFFSET % 0x10000 == 0, "one ldah reaches --both's path region");
    put(c, opl(OP_INTS, F_SRL, R_SP, 22, r));  /* (put_core_state: x | 60, three instructions) */
    put(c, opl(OP_INTL, F_BIS, r, CCT_REGION_NO, r));
    put(c, opl(OP_INTS, F_SLL, r, 18, r));
    if (both.on)
        put(c, mem(OP_LDAH, r, r, (int)(CCT_BOTH_PATHS_OFFSET >> 16)));
}

/* --both: counts path x (a register whose number was checked against
 * npaths; R_ZERO: the number k) in the current call record when that is
 * the procedure's own (cct-region.h note 12); R the path region, y and z
 * scratch.  Else it goes on where the caller puts the context-free count,
 * and ctx_done after that joins the two.  Nothing without `both.ctx`.
 * Metered (--both --metrics, cct-region.h note 16): the record's slots
 * are struct path_metered, and with d (not NULL) its D and E are added
 * to the slot's cycles and event; x is left as it was. */
struct ctx_count put_ctx_count(struct code *c, unsigned R, unsigned x, int64_t k, unsigned y, unsigned z,
                               const struct meter *mt, const struct tregs *d)
{
    struct ctx_count cc = {.on = both.on && both.ctx};
    if (!cc.on)
        return cc;
    put(c, mem(OP_LDAH, z, R, -(int)(CCT_BOTH_PATHS_OFFSET >> 16)));
    put(c, mem(OP_LDQ, y, z, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
    if (both.leaf && both.exit)         /* cct-region.h note 12: a leaf's record is its call's only */
        put(c, mem(OP_STQ, R_ZERO, z, CCT_OFF_LEAF_REC));
    struct fixup none = put_fwd(c, OP_BEQ, y);
    put(c, mem(OP_LDL, z, y, CCT_REC_FLAGS));
    put(c, mem(OP_LDA, z, z, -both.ctx_flags));
    struct fixup other = put_fwd(c, OP_BNE, z);
    int off = both.ctx_off;
    int64_t size = slot_size(mt);
    if (x == R_ZERO) {
        off += (int)(size * k);
    } else if (size == 8) {
        put(c, opr(OP_INTA, F_S8ADDQ, x, y, y));
    } else {
        _Static_assert(CCT_PATH_METERED_SIZE == 32, "a shift by 5");
        put(c, opl(OP_INTS, F_SLL, x, 5, z));
        put(c, opr(OP_INTA, F_ADDQ, z, y, y));
    }
    put(c, mem(OP_LDQ, z, y, off));
    put(c, opl(OP_INTA, F_ADDQ, z, 1, z));
    put(c, mem(OP_STQ, z, y, off));
    if (d) {
        struct tregs u = *d;
        u.C = z;
        put_meter_add(c, &u, y, off);
    }
    cc.done = put_fwd(c, OP_BR, R_ZERO);
    land(c, none);
    land(c, other);
    return cc;
}

void ctx_done(struct code *c, const struct ctx_count *cc)
{
    if (cc->on)
        land(c, cc->done);
}

/* dst = r + k (|k| < 2^31, else *bad): one lda, or ldah and lda. */
static void put_base_plus(struct code *c, unsigned dst, unsigned r, int64_t k, bool *bad)
{
    if (fits16(k)) {
        put(c, mem(OP_LDA, dst, r, (int)k));
        return;
    }
    int64_t hi = (k + 0x8000) >> 16, lo = k - hi * 65536;
    if (!fits16(hi))
        *bad = true;
    put(c, mem(OP_LDAH, dst, r, (int)hi));
    if (lo)
        put(c, mem(OP_LDA, dst, dst, (int)lo));
}

/* --both (cct-region.h note 17): dst = the activation's counters' base
 * + `extra` slots (both.slot bytes each: 8, or 32 metered), found once at
 * the procedure's entry: its call
 * record's path counters (record + ctx_off) when the record the CCT
 * trampolines left (cur, a leaf's leaf_rec) is the procedure's own, else
 * the context-free counters from `base` (path-region.h note 4).  R the
 * path region, or with `core` the CCT core state (dst may be R: R is
 * read first, but by the cmoveq of a leaf's none); y, z scratch.  No branch:
 * the free base is built and the record's taken over it by cmoveq.  A
 * leaf's leaf_rec is cleared here (its call's only, note 12); one of 0
 * (none) reads the core as a record, whose flags are 0 (note 6). */
void put_ctx_base(struct code *c, unsigned dst, unsigned R, unsigned y, unsigned z, uint32_t base,
                  int64_t extra, bool core, bool *bad)
{
    int64_t free_off = PATH_COUNTERS_OFFSET + both.slot * ((int64_t)base + extra) + (core ? CCT_BOTH_PATHS_OFFSET : 0);
    if (!both.ctx) {
        put_base_plus(c, dst, R, free_off, bad);
        return;
    }
    _Static_assert(__builtin_offsetof(struct cct_core, procs) + 4 == CCT_REC_FLAGS && CCT_END <= 1ull << 32,
                   "the core read as a record: its flags are the high half of `procs`, 0");
    unsigned cs = core ? R : z;         /* the CCT core state */
    if (!core)
        put(c, mem(OP_LDAH, z, R, -(int)(CCT_BOTH_PATHS_OFFSET >> 16)));
    put(c, mem(OP_LDQ, y, cs, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
    if (both.leaf) {
        put(c, mem(OP_STQ, R_ZERO, cs, CCT_OFF_LEAF_REC));
        put(c, opr(OP_INTL, F_CMOVEQ, y, cs, y));
    }
    put_base_plus(c, dst, R, free_off, bad);
    put(c, mem(OP_LDL, z, y, CCT_REC_FLAGS));
    if (!fits16(both.ctx_off + both.slot * extra))
        *bad = true;
    put(c, mem(OP_LDA, y, y, (int)(both.ctx_off + both.slot * extra)));
    put(c, mem(OP_LDA, z, z, -both.ctx_flags));
    put(c, opr(OP_INTL, F_CMOVEQ, z, y, dst));
}

/* k = (x < n): n a literal when it fits 8 bits, else built in k. */
void put_below(struct code *c, unsigned x, uint64_t n, unsigned k, bool *bad)
{
    if (n < 256) {
        put(c, opl(OP_INTA, F_CMPULT, x, (unsigned)n, k));
        return;
    }
    put_setk(c, k, (int64_t)n, bad);
    put(c, opr(OP_INTA, F_CMPULT, x, k, k));
}

/* dst = at + the slot size * x. */
void put_slot_addr(struct code *c, const struct meter *mt, unsigned x, unsigned at, unsigned dst)
{
    _Static_assert(PATH_METERED_SIZE == 32, "a shift by 5");
    if (mt->on) {
        put(c, opl(OP_INTS, F_SLL, x, 5, dst));
        put(c, opr(OP_INTA, F_ADDQ, dst, at, dst));
    } else {
        put(c, opr(OP_INTA, F_S8ADDQ, x, at, dst));
    }
}

/* D = cycles, E = the event, from this core's PMU page (R the region;
 * --both's lies CCT_BOTH_PATHS_OFFSET into the core's, one ldah still).
 * Each trampoline reads the page as soon as it has found the region,
 * before its bookkeeping, so what that bookkeeping costs (a register
 * stack slot that misses after an interrupt evicted it, say) falls where
 * the model's path window has it: an entry's inside the path, as the
 * model's start is before the procedure's first instruction; an exit's
 * or a backedge's after it (path-region.h note 5). */
void put_meter_read(struct code *c, const struct meter *mt, const struct tregs *t)
{
    if (mt->given) {
        put(c, opr(OP_INTL, F_BIS, R_ZERO, mt->gc, t->D));
        put(c, opr(OP_INTL, F_BIS, R_ZERO, mt->ge, t->E));
        return;
    }
    put(c, mem(OP_LDAH, t->E, t->R, PMU_FROM_REGION - (both.on ? (int)(CCT_BOTH_PATHS_OFFSET >> 16) : 0)));
    put_page_read(c, mt, t->E, t->D, t->E);
}

/* A path starts: the counters read (D, E) go to its start slots at S. */
void put_meter_start(struct code *c, const struct tregs *t, unsigned S, int off_cycles, int off_event)
{
    put(c, mem(OP_STQ, t->D, S, off_cycles));
    put(c, mem(OP_STQ, t->E, S, off_event));
}

/* A path ends: D, E (the counters read) minus its start at S (restart:
 * the next path starts at that read, a backedge); clobbers C. */
void put_meter_end(struct code *c, const struct tregs *t, unsigned S, int off_cycles, int off_event,
                   bool restart)
{
    put(c, mem(OP_LDQ, t->C, S, off_cycles));
    if (restart)
        put(c, mem(OP_STQ, t->D, S, off_cycles));
    put(c, opr(OP_INTA, F_SUBQ, t->D, t->C, t->D));
    put(c, mem(OP_LDQ, t->C, S, off_event));
    if (restart)
        put(c, mem(OP_STQ, t->E, S, off_event));
    put(c, opr(OP_INTA, F_SUBQ, t->E, t->C, t->E));
}

/* The slot at K + off gets D and E added (struct path_metered); clobbers C. */
void put_meter_add(struct code *c, const struct tregs *t, unsigned K, int off)
{
    put(c, mem(OP_LDQ, t->C, K, off + 8));
    put(c, opr(OP_INTA, F_ADDQ, t->C, t->D, t->C));
    put(c, mem(OP_STQ, t->C, K, off + 8));
    put(c, mem(OP_LDQ, t->C, K, off + 16));
    put(c, opr(OP_INTA, F_ADDQ, t->C, t->E, t->C));
    put(c, mem(OP_STQ, t->C, K, off + 16));
}

/* Counts path t->B of a procedure with npaths paths whose counters start at
 * base (path-region.h note 4), with D and E added when metered; clobbers
 * B, C. */
/* cold (may be NULL): where a bad number branches, for the caller to land
 * out of the hot path (put_cold_bad), so a good count takes no branch. */
static void put_count(struct code *c, const struct tregs *t, const struct meter *mt, uint64_t npaths, uint32_t base,
                      bool *bad, struct fixup *cold)
{
    put_below(c, t->B, npaths, t->C, bad);
    struct fixup ok = {0}, done = {0};
    if (cold) {
        *cold = put_fwd(c, OP_BEQ, t->C);
    } else {
        ok = put_fwd(c, OP_BNE, t->C);
        put_incq(c, t->C, t->R, PATH_OFF_BAD);
        done = put_fwd(c, OP_BR, R_ZERO);
        land(c, ok);
    }
    /* metered: D and E hold the path's metrics, A is free here (put_action) */
    struct ctx_count cc = put_ctx_count(c, t->R, t->B, 0, t->C, mt->on ? t->A : t->D, mt, mt->on ? t : NULL);
    put_slot_addr(c, mt, t->B, t->R, t->B);
    int64_t off = PATH_COUNTERS_OFFSET + slot_size(mt) * (int64_t)base;
    if (!fits16(off + 16)) {
        put_addk(c, t->B, off, bad);
        off = 0;
    }
    put_incq(c, t->C, t->B, (int)off);
    if (mt->on)
        put_meter_add(c, t, t->B, (int)off);
    ctx_done(c, &cc);
    if (!cold)
        land(c, done);
}

/* put_count's bad number, out of line: counted, then on to `to`. */
static struct fixup put_cold_bad(struct code *c, const struct tregs *t, struct fixup from)
{
    land(c, from);
    put_incq(c, t->C, t->R, PATH_OFF_BAD);
    return put_fwd(c, OP_BR, R_ZERO);
}

/* A word whose value hash_geometry fills in (path-region.h note 14). */
static void put_hash_fix(struct code *c, unsigned kind, unsigned r)
{
    if (hashing.nfix == hashing.fixcap) {
        hashing.fixcap = hashing.fixcap ? 2 * hashing.fixcap : 64;
        hashing.fix = realloc(hashing.fix, hashing.fixcap * sizeof *hashing.fix);
        if (!hashing.fix)
            abort();
    }
    hashing.fix[hashing.nfix++] = (struct hash_fix){c->len, kind, r};
    put(c, UNOP);
}

/* --both's key (path-region.h note 15): B = B << PATH_HASH_CTX_BITS |
 * ctx (R_ZERO: none, context-free). */
static void put_key_ctx(struct code *c, unsigned B, unsigned ctx)
{
    put(c, opl(OP_INTS, F_SLL, B, PATH_HASH_CTX_BITS, B));
    if (ctx != R_ZERO)
        put(c, opr(OP_INTA, F_ADDQ, B, ctx, B));
}

/* Counts path t->B of a hashed procedure (path-region.h note 14) in the
 * core's hash table: checked against npaths (a bad number branches to
 * *cold), keyed, hashed to its home slot, then of the PATH_HASH_PROBE
 * slots from there the one holding the key counts, or the first empty one
 * is claimed, or (all taken by others) the path counts as lost.  R the
 * region; clobbers B, C, D, E.  --both (note 15): the key carries ctx
 * (a register, E or R_ZERO for none) between the path and the ordinal;
 * the home slot is the path's alone. */
static void put_hash_count(struct code *c, const struct tregs *t, uint64_t npaths, struct fixup *cold, unsigned ctx)
{
    unsigned B = t->B, C = t->C, D = t->D, E = t->E;
    if (npaths < 256) {
        put(c, opl(OP_INTA, F_CMPULT, B, (unsigned)npaths, C));
    } else {
        if (npaths < 0x7fff8000u)
            put_const(c, C, npaths);
        else
            put_wide(c, C, (int64_t)npaths);
        put(c, opr(OP_INTA, F_CMPULT, B, C, C));
    }
    *cold = put_fwd(c, OP_BEQ, C);
    /* the home slot: the number (its halves xored when it has high bits)
     * times the procedure's multiplier, PATH_HASH_MULT + 2 x its ordinal
     * (odd; only its low 32 bits count), the low 32 bits' top ones */
    unsigned x = B;
    if (npaths > 1ull << 32) {
        put(c, opl(OP_INTS, F_SRL, B, 32, C));
        put(c, opr(OP_INTL, F_XOR, B, C, C));
        x = C;
    }
    int64_t mul = (int32_t)(PATH_HASH_MULT + 2 * hashing.id), mhi = (mul + 0x8000) >> 16;
    put(c, mem(OP_LDAH, D, R_ZERO, (int)mhi));
    put(c, mem(OP_LDA, D, D, (int)(mul - mhi * 65536)));
    put(c, opr(OP_INTM, F_MULQ, x, D, C));
    if (both.on)
        put_key_ctx(c, B, ctx);
    put(c, opl(OP_INTS, F_SLL, B, 8, B));
    put(c, mem(OP_LDA, B, B, (int)hashing.id + 1));                /* the key */
    put(c, opl(OP_INTS, F_SLL, C, 32, C));
    put_hash_fix(c, HF_SHIFT, C);                                   /* srl C, 64 - log2(slots), C */
    put(c, opl(OP_INTS, F_SLL, C, 4, C));
    put(c, opr(OP_INTA, F_ADDQ, C, t->R, C));
    put_hash_fix(c, HF_AT, C);                                      /* ldah C, hi(C) */
    put_hash_fix(c, HF_AT, C);                                      /* lda C, lo(C) */
    /* the home slot, then up to PATH_HASH_PROBE - 1 after it */
    put(c, mem(OP_LDQ, D, C, 0));
    struct fixup claim = put_fwd(c, OP_BEQ, D);
    put(c, opr(OP_INTA, F_SUBQ, D, B, D));
    struct fixup hit = put_fwd(c, OP_BEQ, D);
    _Static_assert(PATH_HASH_SLOT_SIZE == 16 && PATH_HASH_SLOT_SIZE * PATH_HASH_PROBE < 32768, "one lda");
    put(c, mem(OP_LDA, E, C, PATH_HASH_SLOT_SIZE * PATH_HASH_PROBE));
    uint64_t probe = here(c);
    put(c, mem(OP_LDA, C, C, PATH_HASH_SLOT_SIZE));
    put(c, opr(OP_INTA, F_CMPULT, C, E, D));
    struct fixup full = put_fwd(c, OP_BEQ, D);
    put(c, mem(OP_LDQ, D, C, 0));
    struct fixup claim2 = put_fwd(c, OP_BEQ, D);
    put(c, opr(OP_INTA, F_SUBQ, D, B, D));
    put_branch(c, OP_BNE, D, probe);
    struct fixup hit2 = put_fwd(c, OP_BR, R_ZERO);
    land(c, full);
    put_incq(c, D, t->R, PATH_OFF_LOST);                            /* the probe found no room */
    struct fixup done = put_fwd(c, OP_BR, R_ZERO);
    land(c, claim);
    land(c, claim2);
    put(c, mem(OP_STQ, B, C, 0));
    put_hash_fix(c, HF_AT_CONST, D);                                /* ldah D, hi(zero) */
    put_hash_fix(c, HF_AT_CONST, D);                                /* lda D, lo(D) */
    put(c, mem(OP_STQ, D, t->R, PATH_OFF_HASH_AT));
    put_hash_fix(c, HF_SLOTS, D);                                   /* lda D, slots(zero) */
    put(c, mem(OP_STQ, D, t->R, PATH_OFF_HASH_SLOTS));
    land(c, hit);               /* (the home slot's: the hot path falls out below) */
    land(c, hit2);
    put_incq(c, D, C, 8);
    land(c, done);
}

/* dst = a hashed procedure's context (path-region.h note 15): the current
 * call record's id + 1 when that record is the procedure's (the record
 * test of put_ctx_count: cur, or a leaf's leaf_rec, cleared with `clear`;
 * one of 0 reads the core as a record, whose flags are 0), else 0.  cs
 * the CCT core state; tmp scratch.  The record's id and flags are one
 * quadword. */
void put_hash_ctx(struct code *c, unsigned dst, unsigned cs, unsigned tmp, bool clear)
{
    _Static_assert(__builtin_offsetof(struct cct_record, id) + 4 == CCT_REC_FLAGS, "id and flags: one ldq");
    put(c, mem(OP_LDQ, dst, cs, both.leaf ? CCT_OFF_LEAF_REC : CCT_OFF_CUR));
    if (both.leaf) {
        if (clear)      /* (cct-region.h note 12: a leaf's record is its call's only) */
            put(c, mem(OP_STQ, R_ZERO, cs, CCT_OFF_LEAF_REC));
        put(c, opr(OP_INTL, F_CMOVEQ, dst, cs, dst));
    }
    put(c, mem(OP_LDQ, dst, dst, (int)__builtin_offsetof(struct cct_record, id)));
    put(c, opl(OP_INTS, F_SRL, dst, 32, tmp));                   /* flags */
    put(c, opl(OP_INTS, F_ZAPNOT, dst, 15, dst));                /* id */
    put(c, mem(OP_LDA, tmp, tmp, -both.ctx_flags));
    put(c, mem(OP_LDA, dst, dst, 1));
    put(c, opr(OP_INTL, F_CMOVNE, tmp, R_ZERO, dst));            /* not the procedure's: context-free */
}

/* put_hash_count, under --both (path-region.h note 15) with the path's
 * context in its key: in E put_hash_ctx's (a leaf's leaf_rec cleared at
 * its exits), or the one its entry kept in its frame (hashing.ctx_at),
 * or none when the procedure has no record (hashing.ctx false).  Without
 * --both, put_hash_count itself. */
void put_hash_key_count(struct code *c, const struct tregs *t, uint64_t npaths, struct fixup *cold)
{
    unsigned ctx = R_ZERO;
    if (both.on && hashing.ctx) {
        ctx = t->E;
        if (hashing.ctx_at) {
            put(c, mem(OP_LDQ, ctx, R_SP, hashing.ctx_at));
        } else {
            put(c, mem(OP_LDAH, t->D, t->R, -(int)(CCT_BOTH_PATHS_OFFSET >> 16)));
            put_hash_ctx(c, ctx, t->D, t->C, both.exit);
        }
    }
    put_hash_count(c, t, npaths, cold, ctx);
}

/* The hash table's geometry into every hashed trampoline (path-region.h
 * note 14): the table after the array counters (used of them, each size
 * bytes), the largest power of two of home slots that fits with the
 * probe's tail after them before `end`, at most hashing.slots. */
uint64_t hash_geometry(struct code *c, uint64_t used, int64_t size, uint64_t end)
{
    uint64_t at = PATH_COUNTERS_OFFSET + used * (uint64_t)size;
    at = (at + 127) & ~(uint64_t)127;     /* (on a cache line pair of its own) */
    uint64_t slots = hashing.slots;
    while (slots > PATH_HASH_MIN_SLOTS && at + PATH_HASH_TABLE_SLOTS(slots) * PATH_HASH_SLOT_SIZE > end)
        slots /= 2;
    unsigned bits = 0;          /* log2(slots) */
    while (1ull << bits < slots)
        bits++;
    int64_t hi = ((int64_t)at + 0x8000) >> 16, lo = (int64_t)at - hi * 65536;
    for (size_t i = 0; i < hashing.nfix; i++) {
        const struct hash_fix *f = &hashing.fix[i];
        bool second = i > 0 && hashing.fix[i - 1].kind == f->kind && hashing.fix[i - 1].at + 4 == f->at;
        uint32_t w = 0;
        switch (f->kind) {
        case HF_SHIFT:
            w = bits ? opl(OP_INTS, F_SRL, f->r, 64 - bits, f->r) : opr(OP_INTL, F_BIS, R_ZERO, R_ZERO, f->r);
            break;
        case HF_AT:
            w = second ? mem(OP_LDA, f->r, f->r, (int)lo) : mem(OP_LDAH, f->r, f->r, (int)hi);
            break;
        case HF_AT_CONST:
            w = second ? mem(OP_LDA, f->r, f->r, (int)lo) : mem(OP_LDAH, f->r, R_ZERO, (int)hi);
            break;
        case HF_SLOTS:
            w = mem(OP_LDA, f->r, R_ZERO, (int)slots);
            break;
        }
        memcpy(c->bytes + f->at, &w, 4);
    }
    return slots;
}

/* What a CFG edge's Ball-Larus action does with the path register in
 * memory (ball-larus.h note 5, the register stack of path-region.h notes
 * 2-3); R = region, A, B, C free. */

/* An exit or a backedge: A = the activation's depth, B = its path
 * register plus this edge's increment; branches
 * out when there is no activation (depth 0) or it is the sink's (lost
 * past the stack). */
static void put_path_ending(struct code *c, const struct tregs *t, int64_t add, bool *bad,
                            struct fixup *to_unmatched, struct fixup *to_sink)
{
    _Static_assert(PATH_SINK == 1 << SINK_BIT, "the sink is the depth with bit SINK_BIT set");
    put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
    *to_unmatched = put_fwd(c, OP_BEQ, t->A);
    put(c, opl(OP_INTS, F_SRL, t->A, SINK_BIT, t->B));
    *to_sink = put_fwd(c, OP_BNE, t->B);
    put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->B));
    put(c, mem(OP_LDQ, t->B, t->B, PATH_STACK_OFFSET));
    put_addk(c, t->B, add, bad);
}

/* op (a load or store) of r at the sp slot of the slot whose address
 * in the first stack's terms is at (path-region.h note 6): the sp stack
 * lies at the region's end, one ldah into tmp away. */
void put_sp_slot(struct code *c, unsigned op, unsigned r, unsigned at, unsigned tmp)
{
    int64_t s5 = both.on ? PATH_BOTH_STACK5_OFFSET : PATH_STACK5_OFFSET;
    int64_t hi = (s5 + 0x8000) >> 16, lo = s5 - hi * 65536;
    put(c, mem(OP_LDAH, tmp, at, (int)hi));
    put(c, mem(op, r, tmp, (int)lo));
}

void put_action(struct code *c, const struct tregs *t, const struct meter *mt, const struct bl_action *a,
                uint64_t npaths, uint32_t base, bool sp_tags, bool *bad)
{
    bool reads = mt->on && (a->kind == BL_ACT_ENTRY || a->kind == BL_ACT_EXIT || a->kind == BL_ACT_BACKEDGE);
    if (reads)
        put_meter_read(c, mt, t);
    hashing.tmp = t->C;         /* (path-region.h note 14: C is free beside each increment of B) */
    switch (a->kind) {
    case BL_ACT_ENTRY: {
        put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        put(c, opl(OP_INTA, F_ADDQ, t->A, 1, t->A));
        put(c, opl(OP_INTS, F_SRL, t->A, SINK_BIT, t->B));     /* depth + 1 reaches the sink */
        struct fixup to_sink = put_fwd(c, OP_BNE, t->B);
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        struct fixup to_set = put_fwd(c, OP_BR, R_ZERO);
        land(c, to_sink);
        put_incq(c, t->B, t->R, PATH_OFF_EXCESS);
        put(c, mem(OP_LDA, t->A, R_ZERO, PATH_SINK));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        land(c, to_set);
        put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
        put_setk(c, t->B, a->add, bad);
        put(c, mem(OP_STQ, t->B, t->A, PATH_STACK_OFFSET));
        if (sp_tags)    /* (on the sink too: never unwound there) */
            put_sp_slot(c, OP_STQ, R_SP, t->A, t->C);
        if (mt->on)     /* on the sink too: its paths are lost anyway */
            put_meter_start(c, t, t->A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET);
        break;
    }
    case BL_ACT_ADD:
        if (!a->add)
            break;
        put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
        put(c, mem(OP_LDQ, t->B, t->A, PATH_STACK_OFFSET));
        put_addk(c, t->B, a->add, bad);
        put(c, mem(OP_STQ, t->B, t->A, PATH_STACK_OFFSET));
        break;
    case BL_ACT_EXIT: {
        struct fixup to_unmatched, to_sink;
        put_path_ending(c, t, a->add, bad, &to_unmatched, &to_sink);
        if (mt->on) {
            put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
            put_meter_end(c, t, t->A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, false);
            put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        }
        put(c, opl(OP_INTA, F_SUBQ, t->A, 1, t->A));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        struct fixup cold = {0};
        bool out = (!both.on || hashing.on) && !mt->on;     /* (--both and metered: as they were) */
        if (hashing.on)
            put_hash_key_count(c, t, npaths, &cold);
        else
            put_count(c, t, mt, npaths, base, bad, out ? &cold : NULL);
        struct fixup done1 = put_fwd(c, OP_BR, R_ZERO);
        struct fixup done0 = out ? put_cold_bad(c, t, cold) : done1;
        land(c, to_unmatched);
        put_incq(c, t->B, t->R, PATH_OFF_UNMATCHED);
        struct fixup done2 = put_fwd(c, OP_BR, R_ZERO);
        land(c, to_sink);
        put_incq(c, t->B, t->R, PATH_OFF_LOST);
        put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_EXCESS));
        put(c, opl(OP_INTA, F_SUBQ, t->A, 1, t->A));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_EXCESS));
        struct fixup done3 = put_fwd(c, OP_BNE, t->A);
        put(c, mem(OP_LDA, t->A, R_ZERO, PATH_SINK - 1));
        put(c, mem(OP_STQ, t->A, t->R, PATH_OFF_DEPTH));
        land(c, done1);
        if (out)
            land(c, done0);
        land(c, done2);
        land(c, done3);
        break;
    }
    case BL_ACT_BACKEDGE: {
        struct fixup to_unmatched, to_sink;
        put_path_ending(c, t, a->add, bad, &to_unmatched, &to_sink);
        if (mt->on) {
            put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
            put_meter_end(c, t, t->A, PATH_STACK3_OFFSET, PATH_STACK4_OFFSET, true);
            put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        }
        struct fixup cold = {0};
        bool out = (!both.on || hashing.on) && !mt->on;     /* (--both and metered: as they were) */
        if (hashing.on)
            put_hash_key_count(c, t, npaths, &cold);
        else
            put_count(c, t, mt, npaths, base, bad, out ? &cold : NULL);
        if (both.on && mt->on)              /* put_count's context count took A */
            put(c, mem(OP_LDQ, t->A, t->R, PATH_OFF_DEPTH));
        uint64_t reset = here(c);
        put(c, opr(OP_INTA, F_S8ADDQ, t->A, t->R, t->A));
        put_setk(c, t->B, a->reset, bad);
        put(c, mem(OP_STQ, t->B, t->A, PATH_STACK_OFFSET));
        struct fixup done = put_fwd(c, OP_BR, R_ZERO);
        if (out) {
            land(c, cold);
            put_incq(c, t->C, t->R, PATH_OFF_BAD);
            put_branch(c, OP_BR, R_ZERO, reset);
        }
        land(c, to_sink);
        put_incq(c, t->B, t->R, PATH_OFF_LOST);
        struct fixup done2 = put_fwd(c, OP_BR, R_ZERO);
        land(c, to_unmatched);
        put_incq(c, t->B, t->R, PATH_OFF_UNMATCHED);
        land(c, done);
        land(c, done2);
        break;
    }
    default:
        break;
    }
}

bool action_trivial(const struct bl_action *a)
{
    return a->kind == BL_ACT_UNREACHABLE || (a->kind == BL_ACT_ADD && a->add == 0);
}

/* An instruction that runs the same at another address. */
bool relocatable(uint32_t w)
{
    unsigned op = w >> 26;
    return op != 0 && op != OP_JMP && op < 0x30;
}

/* --both: the CCT call site at pc, or NULL (sites are in pc order). */
struct site *site_at(const struct path_out *po, uint64_t pc)
{
    unsigned lo = 0, hi = po->nsites;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (po->sites[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < po->nsites && po->sites[lo].pc == pc ? &po->sites[lo] : NULL;
}

/* Whether w at pc calls a function that returns twice (a bsr to it: GCC
 * calls setjmp directly; one reached through a pointer is not seen). */
bool calls_twice(const struct path_out *po, uint64_t pc, uint32_t w)
{
    if (w >> 26 != OP_BSR)
        return false;
    uint64_t to = alpha_branch_target(pc, w);
    for (unsigned i = 0; i < po->ntwice; i++)
        if (po->twice[i] == to)
            return true;
    return false;
}

bool proc_calls_twice(const struct path_out *po, const struct calc_proc *cfg)
{
    for (size_t i = 0; i < cfg->n; i++)
        if (calls_twice(po, cfg->insns[i].pc, cfg->insns[i].s.word))
            return true;
    return false;
}

/* After a return from a function that returns twice: pops the register
 * stack's slots that activations a longjmp abandoned left, those whose
 * sp is at or below this one's (path-region.h note 6); not on the sink. */
void put_unwind_paths(struct code *c, uint32_t live)
{
    struct tregs t;
    tregs_pick(&t, live, 0, 3);
    tregs_save(c, &t);
    put_region(c, t.R);
    put(c, mem(OP_LDQ, t.A, t.R, PATH_OFF_DEPTH));
    put(c, opl(OP_INTS, F_SRL, t.A, SINK_BIT, t.B));
    struct fixup on_sink = put_fwd(c, OP_BNE, t.B);
    uint64_t loop = here(c);
    struct fixup empty = put_fwd(c, OP_BEQ, t.A);
    put(c, opr(OP_INTA, F_S8ADDQ, t.A, t.R, t.B));
    put_sp_slot(c, OP_LDQ, t.B, t.B, t.B);
    put(c, opr(OP_INTA, F_CMPULT, R_SP, t.B, t.B));        /* sp below the slot's: an activation still live */
    struct fixup kept = put_fwd(c, OP_BNE, t.B);
    put(c, opl(OP_INTA, F_SUBQ, t.A, 1, t.A));
    put_branch(c, OP_BR, R_ZERO, loop);
    land(c, empty);
    land(c, kept);
    put(c, mem(OP_STQ, t.A, t.R, PATH_OFF_DEPTH));
    land(c, on_sink);
    tregs_restore(c, &t);
}

/* pc's instruction replaced by w, its original word kept in the patch
 * table (the plan numbers the original). */
static void replace_word(struct path_out *po, uint64_t pc, uint32_t w)
{
    if (po->npatches == po->cap) {
        po->cap = po->cap ? 2 * po->cap : 1024;
        po->patches = realloc(po->patches, po->cap * sizeof *po->patches);
        if (!po->patches)
            abort();
    }
    uint8_t *at = at_addr(po->e, pc, 4);
    uint32_t old;
    memcpy(&old, at, 4);    /* (the instruction was read from here: it is there) */
    po->patches[po->npatches++] = (struct path_patch){pc, old};
    memcpy(at, &w, 4);
}

void add_patch(struct path_out *po, uint64_t pc, uint64_t tramp, unsigned op, unsigned ra)
{
    replace_word(po, pc, branch_word(op, ra, pc, tramp, &po->c->out_of_reach));
}

/* pc's instruction replaced by w in place (a frame's size, path-region.h
 * note 11), unless a trampoline moved it (patched since patch `from`: the
 * trampoline holds w already). */
void patch_word(struct path_out *po, size_t from, uint64_t pc, uint32_t w)
{
    for (size_t k = from; k < po->npatches; k++)
        if (po->patches[k].pc == pc)
            return;
    replace_word(po, pc, w);
}

void align_tramp(struct code *c)
{
    while (here(c) % 16)
        put(c, UNOP);
}

/* The out edge of block b of that kind, or -1. */
int edge_of(const struct calc_proc *cfg, uint32_t b, int kind)
{
    const struct calc_block *bl = &cfg->blocks[b];
    for (uint32_t i = 0; i < bl->nout; i++)
        if (cfg->edges[bl->out[i]].kind == kind)
            return (int)bl->out[i];
    return -1;
}

/* Whether one procedure can be instrumented (enum path_skip), and E, the
 * instruction its entry action goes on. */
enum path_skip paths_check(const struct calc_proc *cfg, const struct bl_proc *bl, uint64_t start,
                           uint64_t *entry_pc)
{
    /* too many paths for an array: the hash table's (path-region.h note 14) */
    bool hashed = bl->status == BL_TOO_MANY && hashing.slots && bl->npaths < PATH_HASH_MAX_NPATHS;
    if (!hashed && bl->status == BL_TOO_MANY)
        return PATH_SKIP_TOO_MANY;
    if (!hashed && (!bl_countable(bl) || bl->npaths >= (1u << 31)))
        return PATH_SKIP_NUMBERING;
    uint64_t E = start;
    if (cfg->n > 3 && calc_has_gp_prologue((const uint32_t[]){cfg->insns[0].s.word, cfg->insns[1].s.word}, 2))
        E = start + 8;
    *entry_pc = E;
    const struct calc_insn *ei = &cfg->insns[(E - start) / 4];
    if (!relocatable(ei->s.word) || calc_flow_of(ei->s.word, ei->s.cls) != FLOW_NONE)
        return PATH_SKIP_ENTRY;
    const struct calc_block *eb = &cfg->blocks[ei->block];
    if (cfg->insns[eb->first].pc == E && (eb->nin != 1 || cfg->edges[eb->in[0]].kind != EDGE_ENTRY))
        return PATH_SKIP_ENTRY;         /* a branch to E would run the entry action again */
    for (uint32_t b = 0; b < cfg->nblocks; b++) {
        const struct calc_block *x = &cfg->blocks[b];
        bool any = false;
        for (uint32_t i = 0; i < x->nout; i++)
            if (!action_trivial(&bl->action[x->out[i]]))
                any = true;
        if (!any || !x->n)
            continue;
        const struct calc_insn *L = &cfg->insns[x->first + x->n - 1];
        enum calc_flow f = calc_flow_of(L->s.word, L->s.cls);
        if (L->pc == E || f == FLOW_INDIRECT || (f == FLOW_NONE && !relocatable(L->s.word)))
            return PATH_SKIP_EDGE;
        if (f == FLOW_COND && (x->nout != 2 || edge_of(cfg, b, EDGE_FALL) < 0))
            return PATH_SKIP_EDGE;
        if (f != FLOW_COND && x->nout != 1)
            return PATH_SKIP_EDGE;
    }
    return PATH_INSTRUMENTED;
}

