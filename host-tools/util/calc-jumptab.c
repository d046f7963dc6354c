/*
 * calc's jump tables (calc.h): the targets of an indirect `jmp` that gcc
 * compiled from a switch, so that the CFG has its edges (DCPI 6.1.1:
 * "we analyze the preceding instructions to try to determine the
 * possible targets of the jump").  gcc for Alpha (non-PIC, the board's
 * images) emits
 *
 *     cmpule  i, N, t        (or cmpult i, N + 1, t; or on zapnot i, 0xf):
 *                            the bound check
 *     beq     t, default
 *     ldah    b, hi(gp)      the table's address, gp-relative; often
 *     lda     b, lo(b)       hoisted out of a loop, above the check
 *     s4addq  i, b, x        &table[i]
 *     ldl     x, 0(x)        a 32-bit entry: target - gp
 *     addq    gp, x, x
 *     jmp     (x)
 *
 * with gp the procedure's own (its prologue's `ldah gp, X(t12); lda gp,
 * Y(gp)`, or the same pair after a call, from ra).  Each step is found
 * as the nearest instruction above that writes the register, in address
 * order (the table's base up to the procedure's start; the rest within
 * CALC_JT_WINDOW instructions).  Anything else, a target outside the
 * procedure, or an unreadable table: not a jump table (the CFG is marked
 * as missing edges, as before).
 */
#include "util/calc.h"

#include <stdlib.h>

#include "hw-model/isa/alpha-isa.h"

#define CALC_JT_WINDOW 32
#define CALC_JT_MAX 4096
#define REG_GP 29
#define REG_PV 27       /* t12: the procedure's own address at entry */
#define REG_RA 26

enum { OP_LDA = 0x08, OP_LDAH = 0x09, OP_INTA = 0x10, OP_INTS = 0x12, OP_LDL = 0x28 };
enum { F_ADDQ = 0x20, F_S4ADDQ = 0x22, F_CMPULT = 0x1d, F_CMPULE = 0x3d, F_ZAPNOT = 0x31 };

static unsigned func7(uint32_t w)
{
    return (w >> 5) & 0x7f;
}

/* The register w writes (REG_NONE for none or r31). */
static unsigned writes(uint64_t pc, uint32_t w)
{
    struct insn_static s;
    insn_static_decode(&s, pc, w);
    return s.dst;
}

/* The nearest k in [lo, i) writing reg, or -1. */
static long writer(const uint32_t *words, uint64_t start, size_t lo, size_t i, unsigned reg)
{
    for (size_t k = i; k-- > lo;)
        if (writes(start + 4 * k, words[k]) == reg)
            return (long)k;
    return -1;
}

static size_t window(size_t i)
{
    return i > CALC_JT_WINDOW ? i - CALC_JT_WINDOW : 0;
}

/* gp of the procedure: its prologue's, else the first reload after a call. */
static bool procedure_gp(const uint32_t *words, size_t n, uint64_t start, uint64_t *gp)
{
    for (size_t k = 0; k + 1 < n; k++) {
        uint32_t a = words[k], b = words[k + 1];
        if (alpha_opcode(a) != OP_LDAH || alpha_ra(a) != REG_GP || alpha_opcode(b) != OP_LDA ||
            alpha_ra(b) != REG_GP || alpha_rb(b) != REG_GP)
            continue;
        uint64_t base;
        if (k == 0 && alpha_rb(a) == REG_PV)
            base = start;
        else if (alpha_rb(a) == REG_RA && k > 0 && alpha_opcode(words[k - 1]) == 0x1a)
            base = start + 4 * k;       /* after jsr: ra is this instruction's address */
        else
            continue;
        *gp = base + (uint64_t)((int64_t)alpha_disp16(a) * 65536) + (uint64_t)(int64_t)alpha_disp16(b);
        return true;
    }
    return false;
}

/* The value of reg before instruction i if lda/ldah from gp make it. */
static bool gp_relative(const uint32_t *words, uint64_t start, size_t i, unsigned reg, uint64_t gp, int depth,
                        uint64_t *value)
{
    if (reg == REG_GP) {
        *value = gp;
        return true;
    }
    long k = writer(words, start, 0, i, reg);
    if (k < 0 || depth > 3)
        return false;
    uint32_t w = words[k];
    unsigned op = alpha_opcode(w);
    if (op != OP_LDA && op != OP_LDAH)
        return false;
    uint64_t base;
    if (!gp_relative(words, start, (size_t)k, alpha_rb(w), gp, depth + 1, &base))
        return false;
    int64_t disp = alpha_disp16(w);
    *value = base + (uint64_t)(op == OP_LDAH ? disp * 65536 : disp);
    return true;
}

size_t calc_jump_table(const uint32_t *words, size_t n, uint64_t start, size_t j, const struct calc_image *img,
                       uint64_t **targets)
{
    *targets = NULL;
    if (!img || !img->read || j >= n || alpha_opcode(words[j]) != 0x1a || ((words[j] >> 14) & 3) != 0)
        return 0;
    uint64_t gp;
    if (!procedure_gp(words, n, start, &gp))
        return 0;
    /* addq gp, x, x */
    unsigned x = alpha_rb(words[j]);
    long k = writer(words, start, window(j), j, x);
    if (k < 0)
        return 0;
    uint32_t w = words[k];
    if (alpha_opcode(w) != OP_INTA || func7(w) != F_ADDQ || alpha_is_literal(w))
        return 0;
    unsigned entry = alpha_ra(w) == REG_GP ? alpha_rb(w) : alpha_rb(w) == REG_GP ? alpha_ra(w) : 32;
    if (entry == 32)
        return 0;
    /* ldl entry, d(addr) */
    long l = writer(words, start, window((size_t)k), (size_t)k, entry);
    if (l < 0 || alpha_opcode(words[l]) != OP_LDL)
        return 0;
    int64_t disp = alpha_disp16(words[l]);
    unsigned addr = alpha_rb(words[l]);
    /* s4addq i, base, addr */
    long s = writer(words, start, window((size_t)l), (size_t)l, addr);
    if (s < 0 || alpha_opcode(words[s]) != OP_INTA || func7(words[s]) != F_S4ADDQ || alpha_is_literal(words[s]))
        return 0;
    unsigned index = alpha_ra(words[s]), basereg = alpha_rb(words[s]);
    uint64_t base;
    if (!gp_relative(words, start, (size_t)s, basereg, gp, 0, &base))
        return 0;
    /* the bound: cmpule index, N (or cmpult index, N), or on its low
     * longword (zapnot index, 0xf), with index unchanged since */
    size_t entries = 0;
    for (size_t q = (size_t)s; q-- > window((size_t)s);) {
        uint32_t c = words[q];
        bool on_index = alpha_ra(c) == index;
        if (!on_index && alpha_opcode(c) == OP_INTA) {
            long z = writer(words, start, window(q), q, alpha_ra(c));
            on_index = z >= 0 && alpha_opcode(words[z]) == OP_INTS && func7(words[z]) == F_ZAPNOT &&
                       alpha_is_literal(words[z]) && alpha_literal(words[z]) == 0xf && alpha_ra(words[z]) == index;
        }
        if (alpha_opcode(c) == OP_INTA && alpha_is_literal(c) && on_index &&
            (func7(c) == F_CMPULE || func7(c) == F_CMPULT)) {
            entries = alpha_literal(c) + (func7(c) == F_CMPULE);
            break;
        }
        if (writes(start + 4 * q, c) == index)
            return 0;
    }
    if (!entries || entries > CALC_JT_MAX)
        return 0;
    int32_t *table = calc_zalloc(entries, sizeof *table);
    if (!img->read(img->ctx, base + (uint64_t)disp, table, entries * sizeof *table)) {
        free(table);
        return 0;
    }
    uint64_t *t = calc_zalloc(entries, sizeof *t);
    for (size_t e = 0; e < entries; e++) {
        t[e] = gp + (uint64_t)(int64_t)table[e];
        if ((t[e] & 3) || t[e] < start || t[e] >= start + 4 * n) {
            free(table);
            free(t);
            return 0;
        }
    }
    free(table);
    *targets = t;
    return entries;
}
