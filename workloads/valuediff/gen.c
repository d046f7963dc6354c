/* The generator (gen.h). */
#include "gen.h"

#include <stdbool.h>
#include "hw-model/isa/alpha-isa.h"

static uint16_t entries[300];
static unsigned nentries;

uint32_t gen_rand(uint32_t *s)
{
    /* xorshift32: the stream only has to be repeatable from the seed */
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

static unsigned below(uint32_t *s, unsigned n) { return n ? gen_rand(s) % n : 0; }

/* What the interpreter runs and the board runs without a trap. */
static bool generatable(const struct alpha_insn_info *in)
{
    switch ((enum alpha_format)in->format) {
    case ALPHA_FMT_PAL: case ALPHA_FMT_HW: case ALPHA_FMT_FPQ: case ALPHA_FMT_FPQ1:
        return false;
    case ALPHA_FMT_MEM:
        return in->cls != ALPHA_LOAD_LOCKED && in->cls != ALPHA_STORE_COND;
    case ALPHA_FMT_FMEM:        /* lds ldt sts stt; not the VAX ldf ldg stf stg */
        return in->opcode == 0x22 || in->opcode == 0x23 || in->opcode == 0x26 || in->opcode == 0x27;
    case ALPHA_FMT_MEMF:        /* barriers and prefetch hints; not rpcc rc rs ecb wh64 */
        return in->function <= 0x4400 || in->function == 0x8000 || in->function == 0xa000;
    case ALPHA_FMT_ITOF:
        return in->function != 0x14;                            /* not itoff (VAX) */
    case ALPHA_FMT_FPX: case ALPHA_FMT_FPX1:
        return in->function != 0x024 && in->function != 0x030 && in->function != 0x130 && in->function != 0x530;
    default:
        return true;
    }
}

unsigned gen_init(void)
{
    nentries = 0;
    for (unsigned i = 0; i < alpha_ninsns; i++)
        if (generatable(&alpha_insns[i]))
            entries[nentries++] = (uint16_t)i;
    return nentries;
}

unsigned gen_entry(unsigned k) { return entries[k]; }

/* A destination register: not sp, not the data base. */
static unsigned dest(uint32_t *s)
{
    unsigned r;
    do
        r = below(s, 32);
    while (r == 30 || r == BASE_REG);
    return r;
}

static uint32_t mem_word(unsigned op, unsigned ra, unsigned rb, int disp)
{
    return op << 26 | ra << 21 | rb << 16 | ((unsigned)disp & 0xffff);
}

static unsigned access_size(unsigned op)
{
    switch (op) {
    case 0x0a: case 0x0e: return 1;
    case 0x0c: case 0x0d: return 2;
    case 0x28: case 0x2c: case 0x22: case 0x26: return 4;
    default: return 8;
    }
}

/* CIX/MVI/BWX operations that take rb only (ra must be $31). */
static bool rb_only(unsigned op, unsigned fn)
{
    return op == 0x1c && (fn <= 0x01 || fn == 0x30 || (fn >= 0x32 && fn <= 0x37));
}

/* One instruction (or a 3-word jump group) at code[i], body ends at end. */
static unsigned gen_one(uint32_t *code, unsigned i, unsigned end, uint32_t *s)
{
    const struct alpha_insn_info *in = &alpha_insns[entries[below(s, nentries)]];
    unsigned op = in->opcode, fn = in->function;
    switch ((enum alpha_format)in->format) {
    case ALPHA_FMT_MEM:
    case ALPHA_FMT_FMEM:
        if (op == 0x08 || op == 0x09) {
            code[i] = mem_word(op, dest(s), below(s, 32), (int)(int16_t)gen_rand(s));
            return 1;
        } else {
            unsigned size = access_size(op);
            int disp = (int)(below(s, DATA_BYTES / size) * size);
            if (op == 0x0b || op == 0x0f)
                disp = (int)below(s, DATA_BYTES - 7);
            bool store = in->cls == ALPHA_STORE;
            unsigned ra = store ? below(s, 32) : below(s, 16) == 0 ? 31 : in->format == ALPHA_FMT_FMEM ? below(s, 32) : dest(s);
            code[i] = mem_word(op, ra, BASE_REG, disp);
            return 1;
        }
    case ALPHA_FMT_MEMF:
        code[i] = op << 26 | BASE_REG << 16 | fn;
        return 1;
    case ALPHA_FMT_JMP: {
        if (end - i < 3)
            return 0;
        unsigned t;
        do
            t = below(s, 32);
        while (t == 30 || t == BASE_REG || t == 31);
        unsigned target = i + 3 + below(s, end - i - 2);       /* in [i+3, end] */
        code[i] = 0x30u << 26 | t << 21;                       /* br t, .+4: t = address of i+1 */
        code[i + 1] = mem_word(0x08, t, t, (int)(target - (i + 1)) * 4 + (int)below(s, 4));
        code[i + 2] = 0x1au << 26 | dest(s) << 21 | t << 16 | fn << 14 | below(s, 0x4000);
        return 3;
    }
    case ALPHA_FMT_BRA:
    case ALPHA_FMT_FBRA: {
        unsigned target = i + 1 + below(s, end - i);            /* in [i+1, end] */
        unsigned ra = in->cls == ALPHA_BRANCH ? dest(s) : below(s, 32);
        code[i] = op << 26 | ra << 21 | ((target - i - 1) & 0x1fffff);
        return 1;
    }
    case ALPHA_FMT_OPR: {
        unsigned ra = rb_only(op, fn) || (op == 0x11 && (fn == 0x61 || fn == 0x6c)) ? 31 : below(s, 32);
        uint32_t w = op << 26 | ra << 21 | fn << 5 | dest(s);
        if (op == 0x11 && fn == 0x6c)
            w |= 1u << 13 | 1u << 12;                           /* implver: binutils' #1 */
        else if (below(s, 3) == 0 && !(op == 0x1c && fn >= 0x30 && fn <= 0x37))
            w |= (gen_rand(s) & 0xff) << 13 | 1u << 12;         /* literal */
        else
            w |= below(s, 32) << 16;
        code[i] = w;
        return 1;
    }
    case ALPHA_FMT_FTOI:
        code[i] = op << 26 | below(s, 32) << 21 | 31u << 16 | fn << 5 | dest(s);
        return 1;
    case ALPHA_FMT_ITOF:
        code[i] = op << 26 | below(s, 32) << 21 | 31u << 16 | fn << 5 | below(s, 32);
        return 1;
    case ALPHA_FMT_FPX:
    case ALPHA_FMT_FPX1: {
        unsigned fa = in->format == ALPHA_FMT_FPX1 ? 31 : below(s, 32);
        unsigned fc = below(s, 32);
        if (fn == 0x025)        /* mf_fpcr fa: all three fields name it */
            fa = fc;
        code[i] = op << 26 | fa << 21 | (fn == 0x025 ? fa : below(s, 32)) << 16 | fn << 5 | fc;
        return 1;
    }
    default:
        return 0;
    }
}

unsigned gen_sequence(uint32_t *code, unsigned body_len, uint32_t *s, unsigned *body_at)
{
    unsigned n = 0;
    code[n++] = mem_word(0x2d, 26, 30, CPU_RET);                /* stq ra, ret(sp) */
    for (unsigned r = 0; r < 30; r++)
        code[n++] = mem_word(0x29, r, 30, (int)r * 8);          /* ldq rN, N*8(sp) */
    for (unsigned f = 0; f < 31; f++)
        code[n++] = mem_word(0x23, f, 30, 256 + (int)f * 8);    /* ldt fN */
    *body_at = n;
    unsigned end = n + body_len;
    while (n < end) {
        unsigned k = gen_one(code, n, end, s);
        n += k;
    }
    for (unsigned r = 0; r < 30; r++)
        code[n++] = mem_word(0x2d, r, 30, (int)r * 8);
    for (unsigned f = 0; f < 31; f++)
        code[n++] = mem_word(0x27, f, 30, 256 + (int)f * 8);
    code[n++] = mem_word(0x29, 26, 30, CPU_RET);                /* ldq ra, ret(sp) */
    code[n++] = 0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14 | 1;  /* ret */
    return end;
}
