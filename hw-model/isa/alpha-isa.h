/*
 * Decoding Alpha instructions with the one table (alpha-insn.def): used by
 * the hardware model and the host tools alike.  Pure C, no allocation.
 */
#ifndef ALPHAPROF_ALPHA_ISA_H
#define ALPHAPROF_ALPHA_ISA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum alpha_format {
    ALPHA_FMT_PAL,      /* call_pal: function in 25:0 */
    ALPHA_FMT_MEM,      /* ra, disp16(rb) */
    ALPHA_FMT_FMEM,     /* fa, disp16(rb) */
    ALPHA_FMT_MEMF,     /* memory format with function in 15:0 (mb, rpcc ra) */
    ALPHA_FMT_JMP,      /* ra, (rb), hint */
    ALPHA_FMT_BRA,      /* ra, disp21 */
    ALPHA_FMT_FBRA,     /* fa, disp21 */
    ALPHA_FMT_OPR,      /* ra, rb|#lit, rc */
    ALPHA_FMT_FTOI,     /* fa -> rc */
    ALPHA_FMT_ITOF,     /* ra -> fc */
    ALPHA_FMT_FPQ,      /* fa, fb, fc with IEEE qualifiers */
    ALPHA_FMT_FPQ1,     /* fb -> fc with IEEE qualifiers */
    ALPHA_FMT_FPX,      /* fa, fb, fc, exact function */
    ALPHA_FMT_FPX1,     /* fb -> fc, exact function */
    ALPHA_FMT_HW,       /* PALmode-only */
};

enum alpha_class {
    ALPHA_IALU, ALPHA_ISHIFT, ALPHA_IMUL,
    ALPHA_LOAD, ALPHA_STORE, ALPHA_LOAD_LOCKED, ALPHA_STORE_COND,
    ALPHA_BRANCH,           /* unconditional, PC-relative (br, bsr) */
    ALPHA_BRANCH_COND,
    ALPHA_JUMP,             /* register-indirect (jmp, jsr, ret) */
    ALPHA_FADD, ALPHA_FMUL, ALPHA_FDIV, ALPHA_FDIV_T, ALPHA_FSQRT, ALPHA_FSQRT_T,
    ALPHA_FMOV,
    ALPHA_BARRIER, ALPHA_MISC, ALPHA_PAL,
    ALPHA_NOP,              /* unop (ldq_u $31): touches no memory */
    ALPHA_PREFETCH,         /* other loads to $31/$f31: a hint, never waited for */
    ALPHA_CLASS_COUNT
};

struct alpha_insn_info {
    const char *name;
    uint8_t opcode;
    uint16_t function;
    uint8_t format;         /* enum alpha_format */
    uint8_t cls;            /* enum alpha_class */
};

extern const struct alpha_insn_info alpha_insns[];
extern const size_t alpha_ninsns;

/* The table entry of an instruction word, or NULL if it is not one. */
const struct alpha_insn_info *alpha_decode(uint32_t word);
const char *alpha_class_name(enum alpha_class c);
/*
 * The class an instruction word executes as: its table class, except that
 * a load whose destination is $31 or $f31 writes nothing, so on Alpha it is
 * a no-op (ldq_u: unop) or a prefetch hint (the others).  QEMU performs no
 * memory access for either, and neither can fault.
 */
enum alpha_class alpha_exec_class(uint32_t word, const struct alpha_insn_info *in);

/* Fields. */
static inline unsigned alpha_opcode(uint32_t w) { return w >> 26; }
static inline unsigned alpha_ra(uint32_t w) { return (w >> 21) & 31; }
static inline unsigned alpha_rb(uint32_t w) { return (w >> 16) & 31; }
static inline unsigned alpha_rc(uint32_t w) { return w & 31; }
static inline bool alpha_is_literal(uint32_t w) { return (w >> 12) & 1; }
static inline unsigned alpha_literal(uint32_t w) { return (w >> 13) & 0xff; }
static inline int32_t alpha_disp16(uint32_t w) { return (int16_t)(w & 0xffff); }
static inline int32_t alpha_disp21(uint32_t w) { return ((int32_t)(w << 11)) >> 11; }
/* An S_floating memory word as lds puts it in a register (T_floating
 * layout: the 8-bit exponent widened to 11 bits), and back as sts stores
 * it.  The interpreter and the value oracle both need it. */
static inline uint64_t alpha_s_to_register(uint32_t m)
{
    uint64_t sign = m >> 31, msb = (m >> 30) & 1, low = (m >> 23) & 0x7f, frac = m & 0x7fffff;
    uint64_t exp = msb << 10 | low;
    if (msb) {
        if (low == 0x7f)
            exp = 0x7ff;
    } else if (low != 0) {
        exp |= 0x380;
    }
    return sign << 63 | exp << 52 | frac << 29;
}
static inline uint32_t alpha_register_to_s(uint64_t r)
{
    return (uint32_t)(((r >> 32) & 0xc0000000u) | ((r >> 29) & 0x3fffffffu));
}
/* Target of a PC-relative branch at pc. */
static inline uint64_t alpha_branch_target(uint64_t pc, uint32_t w)
{
    return pc + 4 + (uint64_t)((int64_t)alpha_disp21(w) * 4);
}

/*
 * objdump-style text ("ldq t0,8(sp)", "bne v0,1000120"), with binutils'
 * aliases (mov, clr, nop, unop, fmov...).  Returns the length written.
 */
size_t alpha_disassemble(uint32_t word, uint64_t pc, char *buf, size_t len);

#endif
