/*
 * The value-sampling interpreter: see value-interp.h for the design notes
 * and invariants.  Semantics follow the Alpha Architecture Reference
 * Manual; the board's differential test (workloads/valuediff) checks them
 * against QEMU's execution, the unit tests against hand-computed values.
 */
#include "firmware/profiler/value-interp.h"

#include <stdbool.h>
#include <stddef.h>

/* What ev67 reports (QEMU's clipper CPU): amask's feature bits (BWX, FIX,
 * CIX, MVI, precise traps, prefetch with modify) and implver. */
#define EV67_AMASK_FEATURES 0x1307ull
#define EV67_IMPLVER 2

const char *vi_stop_name(enum vi_stop s)
{
    static const char *const names[VI_STOP_COUNT] = {
#define VI_STOP(id, name) name,
        VI_STOPS
#undef VI_STOP
    };
    return (unsigned)s < VI_STOP_COUNT ? names[s] : "unknown";
}

static inline uint64_t sext32(uint64_t x) { return (uint64_t)(int64_t)(int32_t)(uint32_t)x; }

static uint64_t zapnot(uint64_t x, unsigned keep)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < 8; i++)
        if (keep & (1u << i))
            m |= 0xffull << (i * 8);
    return x & m;
}

static uint64_t umulh(uint64_t a, uint64_t b)
{
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* -0.0 compares as 0 in FP branches and moves (fold it, then compare as
 * a signed integer). */
static inline int64_t fp_fold(uint64_t v) { return v == 0x8000000000000000ull ? 0 : (int64_t)v; }

/* ---- memory (design notes 2 and 3) ---- */

static const struct vi_region *region_of(const struct vi_env *env, uint64_t va, unsigned size)
{
    for (unsigned i = 0; i < env->nregions; i++) {
        const struct vi_region *r = &env->region[i];
        if (va >= r->lo && va < r->hi && size <= r->hi - va)
            return r;
    }
    return NULL;
}

static enum vi_stop check_access(const struct vi_env *env, uint64_t va, unsigned size, unsigned need,
                                 const struct vi_region **out)
{
    if (va & (size - 1))
        return VI_STOP_UNALIGNED;
    const struct vi_region *r = region_of(env, va, size);
    if (!r)
        return VI_STOP_BAD_ADDRESS;
    if (r->flags & VI_REGION_DEVICE)
        return VI_STOP_DEVICE;
    if (!(r->flags & need))
        return VI_STOP_BAD_ADDRESS;
    *out = r;
    return VI_STOP_DONE;
}

/* Reads size bytes (aligned) of memory, under the write buffer's bytes. */
static uint64_t read_mem(const struct vi_region *r, const struct vi_write_buffer *wb, uint64_t va, unsigned size)
{
    const volatile uint8_t *p = (const volatile uint8_t *)(r->host + (uintptr_t)(va - r->lo));
    uint64_t v;
    switch (size) {
    case 1: v = *p; break;
    case 2: v = *(const volatile uint16_t *)p; break;
    case 4: v = *(const volatile uint32_t *)p; break;
    default: v = *(const volatile uint64_t *)p; break;
    }
    uint64_t q = va & ~7ull;
    for (unsigned i = 0; i < wb->n; i++) {
        if (wb->addr[i] != q)
            continue;
        for (unsigned b = 0; b < size; b++) {
            unsigned byte = (unsigned)(va & 7) + b;
            if (wb->mask[i] & (1u << byte)) {
                uint64_t bv = (wb->data[i] >> (byte * 8)) & 0xff;
                v = (v & ~(0xffull << (b * 8))) | bv << (b * 8);
            }
        }
    }
    return v;
}

static bool write_buffered(struct vi_write_buffer *wb, uint64_t va, unsigned size, uint64_t v)
{
    uint64_t q = va & ~7ull;
    unsigned first = (unsigned)(va & 7);
    unsigned i;
    for (i = 0; i < wb->n && wb->addr[i] != q; i++)
        ;
    if (i == wb->n) {
        if (wb->n == VI_WRITE_BUFFER)
            return false;
        wb->n++;
        wb->addr[i] = q;
        wb->data[i] = 0;
        wb->mask[i] = 0;
    }
    /* aligned accesses never cross their quadword */
    uint64_t bits = (size == 8 ? ~0ull : (1ull << (size * 8)) - 1) << (first * 8);
    wb->data[i] = (wb->data[i] & ~bits) | ((v << (first * 8)) & bits);
    wb->mask[i] |= (uint8_t)(((1u << size) - 1) << first);
    return true;
}

/* ---- decoding (design note 1) ---- */

static const struct alpha_insn_info *decode(const struct vi_env *env, uint32_t w)
{
    struct vi_decode_cache *c = env->cache;
    if (!c)
        return alpha_decode(w);
    struct vi_decode_entry *e = &c->e[(w ^ (w >> 8) ^ (w >> 16) ^ (w >> 26)) & (VI_DECODE_CACHE - 1)];
    if (e->info.name && e->word == w)
        return &e->info;
    const struct alpha_insn_info *in = alpha_decode(w);
    if (in) {
        e->word = w;
        e->info = *in;
    }
    return in;
}

/* ---- integer operate ---- */

static bool cmov_taken(unsigned fn, uint64_t a)
{
    switch (fn) {
    case 0x14: return a & 1;                /* cmovlbs */
    case 0x16: return !(a & 1);             /* cmovlbc */
    case 0x24: return a == 0;               /* cmoveq */
    case 0x26: return a != 0;               /* cmovne */
    case 0x44: return (int64_t)a < 0;       /* cmovlt */
    case 0x46: return (int64_t)a >= 0;      /* cmovge */
    case 0x64: return (int64_t)a <= 0;      /* cmovle */
    default:   return (int64_t)a > 0;       /* cmovgt (0x66) */
    }
}

/* Byte-wise MVI operations: min/max of 8 bytes or 4 words. */
static uint64_t mvi_minmax(uint64_t a, uint64_t b, unsigned width, bool is_signed, bool is_max)
{
    uint64_t r = 0, mask = width == 8 ? 0xff : 0xffff;
    for (unsigned sh = 0; sh < 64; sh += width) {
        uint64_t x = (a >> sh) & mask, y = (b >> sh) & mask;
        bool x_less;
        if (is_signed) {
            int64_t sx = (int64_t)(x << (64 - width)) >> (64 - width);
            int64_t sy = (int64_t)(y << (64 - width)) >> (64 - width);
            x_less = sx < sy;
        } else {
            x_less = x < y;
        }
        uint64_t pick = (x_less != is_max) ? x : y;
        r |= pick << sh;
    }
    return r;
}

/* Opcodes 0x10-0x13 and 0x1c (integer part).  Returns false to stop with *why. */
static bool operate(unsigned op, unsigned fn, uint64_t a, uint64_t b, uint64_t old_c, uint64_t *out,
                    enum vi_stop *why)
{
    uint64_t r = 0;
    unsigned sh = (unsigned)(b & 7) * 8;
    switch (op << 8 | fn) {
    /* 0x10: arithmetic */
    case 0x1000: r = sext32(a + b); break;
    case 0x1002: r = sext32((a << 2) + b); break;
    case 0x1009: r = sext32(a - b); break;
    case 0x100b: r = sext32((a << 2) - b); break;
    case 0x100f:
        for (unsigned i = 0; i < 8; i++)
            if (((a >> (i * 8)) & 0xff) >= ((b >> (i * 8)) & 0xff))
                r |= 1u << i;
        break;
    case 0x1012: r = sext32((a << 3) + b); break;
    case 0x101b: r = sext32((a << 3) - b); break;
    case 0x101d: r = a < b; break;
    case 0x1020: r = a + b; break;
    case 0x1022: r = (a << 2) + b; break;
    case 0x1029: r = a - b; break;
    case 0x102b: r = (a << 2) - b; break;
    case 0x102d: r = a == b; break;
    case 0x1032: r = (a << 3) + b; break;
    case 0x103b: r = (a << 3) - b; break;
    case 0x103d: r = a <= b; break;
    case 0x1040:
    case 0x1049: {
        int64_t t = fn == 0x40 ? (int64_t)sext32(a) + (int64_t)sext32(b) : (int64_t)sext32(a) - (int64_t)sext32(b);
        if (t != (int64_t)sext32((uint64_t)t)) {
            *why = VI_STOP_OVERFLOW_TRAP;
            return false;
        }
        r = (uint64_t)t;
        break;
    }
    case 0x104d: r = (int64_t)a < (int64_t)b; break;
    case 0x1060:
    case 0x1069: {
        r = fn == 0x60 ? a + b : a - b;
        bool ovf = fn == 0x60 ? (~(a ^ b) & (a ^ r)) >> 63 : ((a ^ b) & (a ^ r)) >> 63;
        if (ovf) {
            *why = VI_STOP_OVERFLOW_TRAP;
            return false;
        }
        break;
    }
    case 0x106d: r = (int64_t)a <= (int64_t)b; break;
    /* 0x11: logical, conditional moves */
    case 0x1100: r = a & b; break;
    case 0x1108: r = a & ~b; break;
    case 0x1120: r = a | b; break;
    case 0x1128: r = a | ~b; break;
    case 0x1140: r = a ^ b; break;
    case 0x1148: r = a ^ ~b; break;
    case 0x1161: r = b & ~EV67_AMASK_FEATURES; break;
    case 0x116c: r = EV67_IMPLVER; break;
    case 0x1114: case 0x1116: case 0x1124: case 0x1126:
    case 0x1144: case 0x1146: case 0x1164: case 0x1166:
        r = cmov_taken(fn, a) ? b : old_c;
        break;
    /* 0x12: shifts and byte manipulation */
    case 0x1202: r = zapnot(a, ~(0x01u << (b & 7)) & 0xff); break;
    case 0x1212: r = zapnot(a, ~(0x03u << (b & 7)) & 0xff); break;
    case 0x1222: r = zapnot(a, ~(0x0fu << (b & 7)) & 0xff); break;
    case 0x1232: r = zapnot(a, ~(0xffu << (b & 7)) & 0xff); break;
    case 0x1252: r = zapnot(a, ~((0x03u << (b & 7)) >> 8) & 0xff); break;
    case 0x1262: r = zapnot(a, ~((0x0fu << (b & 7)) >> 8) & 0xff); break;
    case 0x1272: r = zapnot(a, ~((0xffu << (b & 7)) >> 8) & 0xff); break;
    case 0x1206: r = (a >> sh) & 0xff; break;
    case 0x1216: r = (a >> sh) & 0xffff; break;
    case 0x1226: r = (a >> sh) & 0xffffffffu; break;
    case 0x1236: r = a >> sh; break;
    case 0x125a: r = (a << ((64 - sh) & 63)) & 0xffff; break;
    case 0x126a: r = (a << ((64 - sh) & 63)) & 0xffffffffu; break;
    case 0x127a: r = a << ((64 - sh) & 63); break;
    case 0x120b: r = (a & 0xff) << sh; break;
    case 0x121b: r = (a & 0xffff) << sh; break;
    case 0x122b: r = (a & 0xffffffffu) << sh; break;
    case 0x123b: r = a << sh; break;
    case 0x1257: r = sh ? zapnot(a >> (64 - sh), (0x03u << (b & 7)) >> 8) : 0; break;
    case 0x1267: r = sh ? zapnot(a >> (64 - sh), (0x0fu << (b & 7)) >> 8) : 0; break;
    case 0x1277: r = sh ? zapnot(a >> (64 - sh), (0xffu << (b & 7)) >> 8) : 0; break;
    case 0x1230: r = zapnot(a, ~b & 0xff); break;
    case 0x1231: r = zapnot(a, b & 0xff); break;
    case 0x1234: r = a >> (b & 63); break;
    case 0x1239: r = a << (b & 63); break;
    case 0x123c: r = (uint64_t)((int64_t)a >> (b & 63)); break;
    /* 0x13: multiplies */
    case 0x1300: r = sext32(a * b); break;
    case 0x1320: r = a * b; break;
    case 0x1330: r = umulh(a, b); break;
    case 0x1340: {
        int64_t t = (int64_t)sext32(a) * (int64_t)sext32(b);
        if (t != (int64_t)sext32((uint64_t)t)) {
            *why = VI_STOP_OVERFLOW_TRAP;
            return false;
        }
        r = (uint64_t)t;
        break;
    }
    case 0x1360: {
        r = a * b;
        uint64_t hi = umulh(a, b) - ((int64_t)a < 0 ? b : 0) - ((int64_t)b < 0 ? a : 0);
        if (hi != (uint64_t)((int64_t)r >> 63)) {
            *why = VI_STOP_OVERFLOW_TRAP;
            return false;
        }
        break;
    }
    /* 0x1c: BWX, CIX, MVI (rb only but perr and min/max) */
    case 0x1c00: r = (uint64_t)(int64_t)(int8_t)(uint8_t)b; break;
    case 0x1c01: r = (uint64_t)(int64_t)(int16_t)(uint16_t)b; break;
    case 0x1c30: for (uint64_t x = b; x; x &= x - 1) r++; break;
    case 0x1c31:
        for (unsigned i = 0; i < 64; i += 8) {
            uint64_t x = (a >> i) & 0xff, y = (b >> i) & 0xff;
            r += x > y ? x - y : y - x;
        }
        break;
    case 0x1c32: r = 64; for (unsigned i = 0; i < 64; i++) if (b >> (63 - i) & 1) { r = i; break; } break;
    case 0x1c33: r = 64; for (unsigned i = 0; i < 64; i++) if (b >> i & 1) { r = i; break; } break;
    case 0x1c34: r = (b & 0xff) | (b >> 8 & 0xff) << 16 | (b >> 16 & 0xff) << 32 | (b >> 24 & 0xff) << 48; break;
    case 0x1c35: r = (b & 0xff) | (b >> 8 & 0xff) << 32; break;
    case 0x1c36: r = (b & 0xff) | (b >> 16 & 0xff) << 8 | (b >> 32 & 0xff) << 16 | (b >> 48 & 0xff) << 24; break;
    case 0x1c37: r = (b & 0xff) | (b >> 32 & 0xff) << 8; break;
    case 0x1c38: r = mvi_minmax(a, b, 8, true, false); break;
    case 0x1c39: r = mvi_minmax(a, b, 16, true, false); break;
    case 0x1c3a: r = mvi_minmax(a, b, 8, false, false); break;
    case 0x1c3b: r = mvi_minmax(a, b, 16, false, false); break;
    case 0x1c3c: r = mvi_minmax(a, b, 8, false, true); break;
    case 0x1c3d: r = mvi_minmax(a, b, 16, false, true); break;
    case 0x1c3e: r = mvi_minmax(a, b, 8, true, true); break;
    case 0x1c3f: r = mvi_minmax(a, b, 16, true, true); break;
    default:
        *why = VI_STOP_UNKNOWN;
        return false;
    }
    *out = r;
    return true;
}

/* Encodings the board rejects as illegal (an OPCDEC trap): the operations
 * of only rb need ra = $31, the CIX/MVI ones a register rb too. */
static bool canonical_operate(unsigned op, unsigned fn, unsigned ra, bool literal)
{
    if (op == 0x11 && (fn == 0x61 || fn == 0x6c))
        return ra == 31;                            /* amask, implver */
    if (op != 0x1c)
        return true;
    if (fn >= 0x30 && fn <= 0x37 && literal)
        return false;
    if (fn <= 0x01 || (fn >= 0x30 && fn <= 0x37 && fn != 0x31))
        return ra == 31;
    return true;
}

/* ---- FP-register operations the integer side can do exactly ---- */

static bool fp_cond(unsigned op, uint64_t v)
{
    int64_t x = fp_fold(v);
    switch (op & 7) {       /* fbxx opcodes 0x31-0x37, fcmov functions 0x2a-0x2f map below */
    case 1: return x == 0;  /* eq */
    case 2: return x < 0;   /* lt */
    case 3: return x <= 0;  /* le */
    case 5: return x != 0;  /* ne */
    case 6: return x >= 0;  /* ge */
    default: return x > 0;  /* gt (7) */
    }
}

/* fcmovxx function (0x2a..0x2f) -> the fbxx opcode's low bits. */
static unsigned fcmov_cond(unsigned fn)
{
    static const uint8_t map[6] = {1, 5, 2, 6, 3, 7};  /* eq ne lt ge le gt */
    return map[fn - 0x2a];
}

/* ---- the run ---- */

#define STOP(reason) do { res.stop = (reason); return res; } while (0)

struct vi_result vi_run(struct vi_state *s, const struct vi_env *env, struct vi_write_buffer *wb,
                        unsigned max_insns, unsigned skip)
{
    struct vi_result res = {VI_STOP_DONE, 0};
    const struct vi_region *code = NULL;     /* where the last fetch was */
    s->r[31] = 0;
    s->f[31] = 0;
    while (res.executed < max_insns) {
        uint64_t pc = s->pc;
        if (env->end_pc && pc == env->end_pc)
            STOP(VI_STOP_END_PC);
        const struct vi_region *rg;
        if (code && pc >= code->lo && pc < code->hi - 3 && !(pc & 3))
            rg = code;
        else if (check_access(env, pc, 4, VI_REGION_READ, &rg) != VI_STOP_DONE)
            STOP(VI_STOP_BAD_PC);
        code = rg;
        /* instructions come from memory: a buffered store to code is not
         * fetched (the board needs an imb before it would be either) */
        uint32_t w = *(const volatile uint32_t *)(rg->host + (uintptr_t)(pc - rg->lo));
        const struct alpha_insn_info *in = decode(env, w);
        if (!in)
            STOP(VI_STOP_UNKNOWN);
        enum alpha_class cls = alpha_exec_class(w, in);
        unsigned op = alpha_opcode(w), ra = alpha_ra(w), rb = alpha_rb(w), rc = alpha_rc(w);
        struct vi_event e = {.pc = pc, .word = w, .cls = (uint8_t)cls};
        uint64_t next = pc + 4;
        int dest = -1;          /* integer register written */
        int fdest = -1;         /* FP register written */
        uint64_t value = 0;
        enum vi_stop why = VI_STOP_DONE;

        switch ((enum alpha_format)in->format) {
        case ALPHA_FMT_PAL:
            STOP(VI_STOP_PAL);
        case ALPHA_FMT_HW:
            STOP(VI_STOP_PRIVILEGED);
        case ALPHA_FMT_MEM:
        case ALPHA_FMT_FMEM: {
            uint64_t base = s->r[rb];
            uint64_t ea = base + (uint64_t)(int64_t)alpha_disp16(w);
            e.b = base;
            if (op == 0x08 || op == 0x09) {     /* lda, ldah */
                value = op == 0x08 ? ea : base + (uint64_t)((int64_t)alpha_disp16(w) * 65536);
                dest = (int)ra;
                break;
            }
            if (cls == ALPHA_NOP || cls == ALPHA_PREFETCH)
                break;                          /* no access, no fault */
            if (cls == ALPHA_LOAD_LOCKED || cls == ALPHA_STORE_COND)
                STOP(VI_STOP_LOCKED);
            if (op == 0x20 || op == 0x21 || op == 0x24 || op == 0x25)
                STOP(VI_STOP_FP_ARITH);         /* VAX F/G formats */
            unsigned size;
            switch (op) {
            case 0x0a: case 0x0e: size = 1; break;
            case 0x0c: case 0x0d: size = 2; break;
            case 0x28: case 0x2c: case 0x22: case 0x26: size = 4; break;
            default: size = 8; break;
            }
            if (op == 0x0b || op == 0x0f)       /* ldq_u, stq_u */
                ea &= ~7ull;
            e.has_ea = 1;
            e.ea = ea;
            bool store = cls == ALPHA_STORE;
            if ((why = check_access(env, ea, size, store ? VI_REGION_WRITE : VI_REGION_READ, &rg)) != VI_STOP_DONE)
                STOP(why);
            if (store) {
                uint64_t v = in->format == ALPHA_FMT_FMEM ? s->f[ra] : s->r[ra];
                if (op == 0x26)
                    v = alpha_register_to_s(v);
                e.a = v;
                if (!write_buffered(wb, ea, size, v))
                    STOP(VI_STOP_WRITE_BUFFER);
                break;
            }
            uint64_t t0 = env->clock ? env->clock(env->ctx) : 0;
            uint64_t v = read_mem(rg, wb, ea, size);
            e.load_cycles = env->clock ? env->clock(env->ctx) - t0 : 0;
            if (op == 0x28)
                v = sext32(v);
            else if (op == 0x22)
                v = alpha_s_to_register((uint32_t)v);
            value = v;
            if (in->format == ALPHA_FMT_FMEM)
                fdest = (int)ra;
            else
                dest = (int)ra;
            break;
        }
        case ALPHA_FMT_MEMF:
            switch (in->function) {
            case 0x0000: case 0x0400: case 0x4000: case 0x4400:   /* barriers */
            case 0x8000: case 0xa000: case 0xe800:                /* fetch, fetch_m, ecb: hints */
                break;
            case 0xc000:                                          /* rpcc */
                if (!env->clock)
                    STOP(VI_STOP_UNSUPPORTED);
                value = env->clock(env->ctx);
                dest = (int)ra;
                break;
            default:                                              /* rc, rs, wh64, wh64en */
                STOP(VI_STOP_UNSUPPORTED);
            }
            break;
        case ALPHA_FMT_JMP:
            e.b = s->r[rb];
            next = s->r[rb] & ~3ull;
            value = pc + 4;
            dest = (int)ra;
            break;
        case ALPHA_FMT_BRA:
            e.a = s->r[ra];
            if (in->cls == ALPHA_BRANCH) {
                value = pc + 4;
                dest = (int)ra;
                next = alpha_branch_target(pc, w);
                break;
            }
            {
                uint64_t a = s->r[ra];
                bool taken;
                switch (op) {
                case 0x38: taken = !(a & 1); break;
                case 0x39: taken = a == 0; break;
                case 0x3a: taken = (int64_t)a < 0; break;
                case 0x3b: taken = (int64_t)a <= 0; break;
                case 0x3c: taken = a & 1; break;
                case 0x3d: taken = a != 0; break;
                case 0x3e: taken = (int64_t)a >= 0; break;
                default:   taken = (int64_t)a > 0; break;
                }
                if (taken)
                    next = alpha_branch_target(pc, w);
            }
            break;
        case ALPHA_FMT_FBRA:
            e.a = s->f[ra];
            if (fp_cond(op, s->f[ra]))
                next = alpha_branch_target(pc, w);
            break;
        case ALPHA_FMT_OPR: {
            if (!canonical_operate(op, in->function, ra, alpha_is_literal(w)))
                STOP(VI_STOP_UNKNOWN);
            uint64_t a = s->r[ra];
            uint64_t b = alpha_is_literal(w) ? alpha_literal(w) : s->r[rb];
            e.a = a;
            e.b = b;
            if (!operate(op, in->function, a, b, s->r[rc], &value, &why))
                STOP(why);
            dest = (int)rc;
            break;
        }
        case ALPHA_FMT_FTOI:            /* ftoit, ftois */
            if (rb != 31)
                STOP(VI_STOP_UNKNOWN);
            e.a = s->f[ra];
            value = in->function == 0x70 ? s->f[ra] : sext32(alpha_register_to_s(s->f[ra]));
            dest = (int)rc;
            break;
        case ALPHA_FMT_ITOF:            /* itofs, itoft; itoff is VAX */
            e.a = s->r[ra];
            if (rb != 31)
                STOP(VI_STOP_UNKNOWN);
            if (in->function == 0x14)
                STOP(VI_STOP_FP_ARITH);
            value = in->function == 0x24 ? s->r[ra] : alpha_s_to_register((uint32_t)s->r[ra]);
            fdest = (int)rc;
            break;
        case ALPHA_FMT_FPX:
        case ALPHA_FMT_FPX1: {
            uint64_t fa = s->f[ra], fb = s->f[rb];
            const uint64_t sign = 1ull << 63;
            if (in->format == ALPHA_FMT_FPX1 && ra != 31)
                STOP(VI_STOP_UNKNOWN);
            e.a = fa;
            e.b = fb;
            switch (in->function) {
            case 0x020: value = (fa & sign) | (fb & ~sign); break;
            case 0x021: value = (~fa & sign) | (fb & ~sign); break;
            case 0x022: value = (fa & 0xfff0000000000000ull) | (fb & 0x000fffffffffffffull); break;
            case 0x025: value = s->fpcr; fdest = (int)ra; break;      /* mf_fpcr writes fa */
            case 0x02a: case 0x02b: case 0x02c: case 0x02d: case 0x02e: case 0x02f:
                value = fp_cond(fcmov_cond(in->function), fa) ? fb : s->f[rc];
                break;
            case 0x010:                 /* cvtlq */
                value = (uint64_t)(int64_t)(int32_t)alpha_register_to_s(fb);
                break;
            case 0x024:                 /* mt_fpcr: the FP environment */
                STOP(VI_STOP_UNSUPPORTED);
            default:                    /* cvtql: sets the FPCR's status bits; /v, /sv trap */
                STOP(VI_STOP_FP_ARITH);
            }
            if (fdest < 0)
                fdest = (int)rc;
            break;
        }
        case ALPHA_FMT_FPQ:
        case ALPHA_FMT_FPQ1:
            STOP(VI_STOP_FP_ARITH);
        }

        /* Commit (design note 4: only completed instructions change s). */
        if (dest == 30 && dest != 31) {
            const struct vi_region *stack = NULL;
            for (unsigned i = 0; i < env->nregions; i++)
                if (env->region[i].flags & VI_REGION_STACK)
                    stack = &env->region[i];
            if (stack && (value < stack->lo || value > stack->hi))
                STOP(VI_STOP_STACK_SWITCH);
        }
        if (dest >= 0 && dest != 31) {
            s->r[dest] = value;
            e.has_result = 1;
        } else if (fdest >= 0 && fdest != 31) {
            s->f[fdest] = value;
            e.has_result = 1;
            e.fp_result = 1;
        }
        e.result = value;
        s->pc = next;
        if (res.executed++ >= skip && env->observe)
            env->observe(env->ctx, &e, s);
    }
    return res;
}
