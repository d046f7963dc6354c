/*
 * Table-driven decoding and disassembly.  The table is searched linearly
 * within an opcode: decoding happens at translation time in the model and
 * once per instruction shown in the tools, never per executed instruction.
 */
#include "hw-model/isa/alpha-isa.h"

#include <stdio.h>
#include <string.h>

const struct alpha_insn_info alpha_insns[] = {
#define INSN(name, opcode, function, format, cls) \
    {#name, opcode, function, ALPHA_FMT_##format, ALPHA_##cls},
#include "hw-model/isa/alpha-insn.def"
#undef INSN
};
const size_t alpha_ninsns = sizeof alpha_insns / sizeof alpha_insns[0];

/* The function field of word in the format its opcode uses. */
static unsigned function_of(uint32_t w, enum alpha_format f)
{
    switch (f) {
    case ALPHA_FMT_PAL:  return w & 0x3ffffff;
    case ALPHA_FMT_MEMF: return w & 0xffff;
    case ALPHA_FMT_JMP:  return (w >> 14) & 3;
    case ALPHA_FMT_OPR:
    case ALPHA_FMT_FTOI: return (w >> 5) & 0x7f;
    case ALPHA_FMT_ITOF:
    case ALPHA_FMT_FPQ:
    case ALPHA_FMT_FPQ1: return (w >> 5) & 0x3f;
    case ALPHA_FMT_FPX:
    case ALPHA_FMT_FPX1: return (w >> 5) & 0x7ff;
    default:             return 0;
    }
}

const struct alpha_insn_info *alpha_decode(uint32_t w)
{
    unsigned op = alpha_opcode(w);
    for (size_t i = 0; i < alpha_ninsns; i++) {
        const struct alpha_insn_info *in = &alpha_insns[i];
        if (in->opcode != op)
            continue;
        if (function_of(w, (enum alpha_format)in->format) == in->function)
            return in;
    }
    return NULL;
}

const char *alpha_class_name(enum alpha_class c)
{
    static const char *const names[ALPHA_CLASS_COUNT] = {
        "ialu", "ishift", "imul", "load", "store", "load_locked", "store_cond",
        "branch", "branch_cond", "jump", "fadd", "fmul", "fdiv", "fdiv_t", "fsqrt", "fsqrt_t",
        "fmov", "barrier", "misc", "pal", "nop", "prefetch",
    };
    return c < ALPHA_CLASS_COUNT ? names[c] : "unknown";
}

enum alpha_class alpha_exec_class(uint32_t word, const struct alpha_insn_info *in)
{
    if (!in)
        return ALPHA_MISC;
    bool load = in->cls == ALPHA_LOAD || in->cls == ALPHA_LOAD_LOCKED;
    if (!load || alpha_ra(word) != 31)
        return (enum alpha_class)in->cls;
    return alpha_opcode(word) == 0x0b ? ALPHA_NOP : ALPHA_PREFETCH;
}

static const char *ireg(unsigned r)
{
    static const char *const names[32] = {
        "v0", "t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "s0", "s1", "s2", "s3", "s4", "s5", "fp",
        "a0", "a1", "a2", "a3", "a4", "a5", "t8", "t9", "t10", "t11", "ra", "t12", "at", "gp", "sp", "zero",
    };
    return names[r & 31];
}

static const char *freg(unsigned r)
{
    static const char *const names[32] = {
        "$f0", "$f1", "$f2", "$f3", "$f4", "$f5", "$f6", "$f7", "$f8", "$f9", "$f10", "$f11",
        "$f12", "$f13", "$f14", "$f15", "$f16", "$f17", "$f18", "$f19", "$f20", "$f21", "$f22",
        "$f23", "$f24", "$f25", "$f26", "$f27", "$f28", "$f29", "$f30", "$f31",
    };
    return names[r & 31];
}

/* IEEE qualifiers of bits 15:11 (trap mode) and 12:11 (rounding), as
 * binutils spells them: "/su", "/svc", "/d", ... */
static void ieee_suffix(uint32_t w, bool to_int, char *out, size_t n)
{
    unsigned fn = (w >> 5) & 0x7ff;
    unsigned trap = fn >> 8, round = (fn >> 6) & 3;
    const char *t = "";
    switch (trap) {
    case 1: t = to_int ? "v" : "u"; break;
    case 5: t = to_int ? "sv" : "su"; break;
    case 7: t = to_int ? "svi" : "sui"; break;
    default: break;
    }
    const char *r = round == 0 ? "c" : round == 1 ? "m" : round == 3 ? "d" : "";
    if (*t || *r)
        snprintf(out, n, "/%s%s", t, r);
    else
        out[0] = '\0';
}

static size_t operands(const struct alpha_insn_info *in, uint32_t w, uint64_t pc, char *buf, size_t len)
{
    unsigned ra = alpha_ra(w), rb = alpha_rb(w), rc = alpha_rc(w);
    char b[32];
    if (alpha_is_literal(w))
        snprintf(b, sizeof b, "%u", alpha_literal(w));
    else
        snprintf(b, sizeof b, "%s", ireg(rb));
    switch ((enum alpha_format)in->format) {
    case ALPHA_FMT_PAL:
        return in->function <= 0xbf ? (size_t)snprintf(buf, len, "%s", "") : 0;
    case ALPHA_FMT_MEM:
    case ALPHA_FMT_FMEM: {
        const char *r = in->format == ALPHA_FMT_FMEM ? freg(ra) : ireg(ra);
        if (rb == 31)
            return (size_t)snprintf(buf, len, "%s,%d", r, alpha_disp16(w));
        return (size_t)snprintf(buf, len, "%s,%d(%s)", r, alpha_disp16(w), ireg(rb));
    }
    case ALPHA_FMT_MEMF:
        if (in->function == 0xc000 || in->function == 0xe000 || in->function == 0xf000)
            return (size_t)snprintf(buf, len, "%s", ireg(ra));
        if (in->function >= 0x8000)
            return (size_t)snprintf(buf, len, "0(%s)", ireg(rb));
        return 0;
    case ALPHA_FMT_JMP:
        return (size_t)snprintf(buf, len, "%s,(%s)", ireg(ra), ireg(rb));
    case ALPHA_FMT_BRA:
    case ALPHA_FMT_FBRA:
        return (size_t)snprintf(buf, len, "%s,%llx",
                                in->format == ALPHA_FMT_FBRA ? freg(ra) : ireg(ra),
                                (unsigned long long)alpha_branch_target(pc, w));
    case ALPHA_FMT_OPR:
        return (size_t)snprintf(buf, len, "%s,%s,%s", ireg(ra), b, ireg(rc));
    case ALPHA_FMT_FTOI:
        return (size_t)snprintf(buf, len, "%s,%s", freg(ra), ireg(rc));
    case ALPHA_FMT_ITOF:
        return (size_t)snprintf(buf, len, "%s,%s", ireg(ra), freg(rc));
    case ALPHA_FMT_FPQ:
    case ALPHA_FMT_FPX:
        return (size_t)snprintf(buf, len, "%s,%s,%s", freg(ra), freg(rb), freg(rc));
    case ALPHA_FMT_FPQ1:
    case ALPHA_FMT_FPX1:
        return (size_t)snprintf(buf, len, "%s,%s", freg(rb), freg(rc));
    case ALPHA_FMT_HW:
        return (size_t)snprintf(buf, len, "0x%07x", w & 0x3ffffff);
    }
    return 0;
}

/* binutils' pseudo-instructions for common idioms. */
static bool alias(const struct alpha_insn_info *in, uint32_t w, uint64_t pc, char *buf, size_t len,
                  size_t *n)
{
    unsigned ra = alpha_ra(w), rb = alpha_rb(w), rc = alpha_rc(w);
    bool lit = alpha_is_literal(w);
    const char *name = in->name;
#define OUT(...) (*n = (size_t)snprintf(buf, len, __VA_ARGS__), true)
    if (!strcmp(name, "or") && ra == 31) {
        if (rc == 31 && !lit && rb == 31)
            return OUT("nop");
        if (!lit && rb == 31)
            return OUT("clr\t%s", ireg(rc));
        if (lit)
            return OUT("mov\t%u,%s", alpha_literal(w), ireg(rc));
        return OUT("mov\t%s,%s", ireg(rb), ireg(rc));
    }
    if (!strcmp(name, "or") && !lit && ra == rb)
        return OUT("mov\t%s,%s", ireg(ra), ireg(rc));
    if (!strcmp(name, "ldq_u") && ra == 31)
        return OUT("unop");
    if (ra == 31 && !lit) {
        if (!strcmp(name, "addl"))
            return OUT("sextl\t%s,%s", ireg(rb), ireg(rc));
        if (!strcmp(name, "subq"))
            return OUT("negq\t%s,%s", ireg(rb), ireg(rc));
        if (!strcmp(name, "subl"))
            return OUT("negl\t%s,%s", ireg(rb), ireg(rc));
        if (!strcmp(name, "ornot"))
            return OUT("not\t%s,%s", ireg(rb), ireg(rc));
    }
    if (!strcmp(name, "cpys")) {
        if (ra == 31 && rb == 31 && rc == 31)
            return OUT("fnop");
        if (ra == 31 && rb == 31)
            return OUT("fclr\t%s", freg(rc));
        if (ra == 31)
            return OUT("fabs\t%s,%s", freg(rb), freg(rc));
        if (ra == rb)
            return OUT("fmov\t%s,%s", freg(ra), freg(rc));
    }
    if (!strcmp(name, "cpysn") && ra == rb)
        return OUT("fneg\t%s,%s", freg(ra), freg(rc));
    if (!strcmp(name, "br") && ra == 31)
        return OUT("br\t%llx", (unsigned long long)alpha_branch_target(pc, w));
    if (!strcmp(name, "ret") && ra == 31 && rb == 26)
        return OUT("ret");
    if (!strcmp(name, "sextb") || !strcmp(name, "sextw") || !strcmp(name, "ctlz") ||
        !strcmp(name, "cttz") || !strcmp(name, "ctpop")) {
        if (lit)
            return OUT("%s\t%u,%s", name, alpha_literal(w), ireg(rc));
        return OUT("%s\t%s,%s", name, ireg(rb), ireg(rc));
    }
#undef OUT
    return false;
}

size_t alpha_disassemble(uint32_t w, uint64_t pc, char *buf, size_t len)
{
    if (len == 0)
        return 0;
    const struct alpha_insn_info *in = alpha_decode(w);
    if (!in) {
        if (alpha_opcode(w) == 0)
            return (size_t)snprintf(buf, len, "call_pal\t0x%x", w & 0x3ffffff);
        return (size_t)snprintf(buf, len, ".long\t0x%08x", w);
    }
    size_t n;
    if (alias(in, w, pc, buf, len, &n))
        return n < len ? n : len - 1;
    char suffix[8] = "";
    if (in->format == ALPHA_FMT_FPQ || in->format == ALPHA_FMT_FPQ1 || in->format == ALPHA_FMT_ITOF) {
        ieee_suffix(w, !strcmp(in->name, "cvttq"), suffix, sizeof suffix);
        /* cvtst is cvtts with the source-format bit: binutils names it. */
        unsigned fn = (w >> 5) & 0x7ff;
        if (alpha_opcode(w) == 0x16 && (fn == 0x2ac || fn == 0x6ac)) {
            n = (size_t)snprintf(buf, len, "cvtst%s\t%s,%s", fn == 0x6ac ? "/s" : "", freg(alpha_rb(w)),
                                 freg(alpha_rc(w)));
            return n < len ? n : len - 1;
        }
        if (in->format == ALPHA_FMT_ITOF)
            suffix[0] = '\0';
    }
    n = (size_t)snprintf(buf, len, "%s%s", in->name, suffix);
    if (n < len) {
        char ops[64];
        size_t m = operands(in, w, pc, ops, sizeof ops);
        if (m)
            n += (size_t)snprintf(buf + n, len - n, "\t%s", ops);
    }
    return n < len ? n : len - 1;
}
