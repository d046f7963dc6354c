/*
 * The core's parameters, latencies and in-order issue rules (issue-rules.h):
 * the one definition the timing model and the host's static scheduler share.
 */
#include "hw-model/model/issue-rules.h"

#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"

/* retire_width 8: the 21264's sustained retire rate (it peaks at 11), twice
 * its map width, so after a stall the reorder buffer drains twice as fast
 * as the front end can refill it. */
void model_params_default(struct model_params *p)
{
    *p = (struct model_params){
        .width = 4, .retire_width = 8, .rob = 80, .iq_int = 20, .iq_fp = 15, .store_buffer = 32,
        .int_pipes = 4, .mul_pipes = 1, .mem_pipes = 2, .fp_pipes = 2,
        .l1i_kb = 64, .l1d_kb = 64, .l1_ways = 2, .line = 64,
        .l2_kb = 2048, .l2_ways = 4, .tlb_entries = 128,
        .l1_latency = 3, .l2_latency = 13, .memory_latency = 120, .tlb_miss_latency = 20,
        .mispredict_penalty = 7,
        .imul_latency = 7, .fadd_latency = 4, .fdiv_s_latency = 12, .fdiv_t_latency = 15,
        .fsqrt_s_latency = 18, .fsqrt_t_latency = 33,
    };
}

/* The 21164's: 8 KiB direct-mapped L1 caches, a 96 KiB 3-way on-chip L2,
 * a 2-cycle load hit, a 6-entry write buffer, a 5-cycle mispredict.  The
 * reorder buffer (12, three fetch blocks) only stands for its instruction
 * buffers: it keeps fetch from running ahead of a stalled issue stage;
 * retire is issue + 1, so retire_width is the issue width. */
void model_params_inorder(struct model_params *p)
{
    *p = (struct model_params){
        .inorder = 1,
        .width = 4, .retire_width = 4, .rob = 12, .iq_int = 12, .iq_fp = 12, .store_buffer = 6,
        .int_pipes = 2, .mul_pipes = 1, .mem_pipes = 2, .fp_pipes = 2,
        .l1i_kb = 8, .l1d_kb = 8, .l1_ways = 1, .line = 64,
        .l2_kb = 96, .l2_ways = 3, .tlb_entries = 64,
        .l1_latency = 2, .l2_latency = 8, .memory_latency = 60, .tlb_miss_latency = 20,
        .mispredict_penalty = 5,
        .imul_latency = 8, .fadd_latency = 4, .fdiv_s_latency = 10, .fdiv_t_latency = 23,
        .fsqrt_s_latency = 18, .fsqrt_t_latency = 33,
    };
}

bool model_params_core(struct model_params *p, const char *core)
{
    if (!strcmp(core, "ooo"))
        model_params_default(p);
    else if (!strcmp(core, "inorder"))
        model_params_inorder(p);
    else
        return false;
    return true;
}

bool model_params_set(struct model_params *p, const char *key, const char *val)
{
    const struct { const char *name; unsigned *field; } params[] = {
        {"width", &p->width}, {"retire_width", &p->retire_width}, {"rob", &p->rob},
        {"l1d_kb", &p->l1d_kb}, {"l1i_kb", &p->l1i_kb}, {"l2_kb", &p->l2_kb},
        {"memory_latency", &p->memory_latency}, {"iq_int", &p->iq_int},
        {"iq_fp", &p->iq_fp}, {"store_buffer", &p->store_buffer},
        {"int_pipes", &p->int_pipes}, {"fp_pipes", &p->fp_pipes},
        {"mispredict_penalty", &p->mispredict_penalty},
    };
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++)
        if (!strcmp(key, params[i].name)) {
            char *end;
            unsigned long v = strtoul(val, &end, 10);
            if (!*val || *end || v == 0 || v > 1u << 20)
                return false;
            *params[i].field = (unsigned)v;
            return true;
        }
    return false;
}

static bool is_fp_format(unsigned f)
{
    return f == ALPHA_FMT_FPQ || f == ALPHA_FMT_FPQ1 || f == ALPHA_FMT_FPX || f == ALPHA_FMT_FPX1;
}

void insn_static_decode(struct insn_static *s, uint64_t pc, uint32_t w)
{
    memset(s, 0, sizeof *s);
    s->pc = pc;
    s->word = w;
    s->src[0] = s->src[1] = s->dst = REG_NONE;
    const struct alpha_insn_info *in = alpha_decode(w);
    s->cls = in ? alpha_exec_class(w, in) : ALPHA_MISC;
    if (!in)
        return;
    if (s->cls == ALPHA_NOP)            /* reads and writes nothing */
        return;
    if (s->cls == ALPHA_PREFETCH) {     /* waits for its base, writes nothing */
        s->src[0] = (uint8_t)alpha_rb(w);
        return;
    }
    unsigned ra = alpha_ra(w), rb = alpha_rb(w), rc = alpha_rc(w);
    switch (in->format) {
    case ALPHA_FMT_MEM:
        s->src[0] = (uint8_t)rb;
        if (in->cls == ALPHA_STORE || in->cls == ALPHA_STORE_COND)
            s->src[1] = (uint8_t)ra;
        if (in->cls != ALPHA_STORE)
            s->dst = (uint8_t)ra;
        break;
    case ALPHA_FMT_FMEM:
        s->src[0] = (uint8_t)rb;
        if (in->cls == ALPHA_STORE)
            s->src[1] = (uint8_t)(32 + ra);
        else
            s->dst = (uint8_t)(32 + ra);
        break;
    case ALPHA_FMT_MEMF:
        if (in->cls == ALPHA_IALU)      /* rpcc */
            s->dst = (uint8_t)ra;
        break;
    case ALPHA_FMT_JMP:
        s->src[0] = (uint8_t)rb;
        s->dst = (uint8_t)ra;
        break;
    case ALPHA_FMT_BRA:
        if (in->cls == ALPHA_BRANCH_COND)
            s->src[0] = (uint8_t)ra;
        else
            s->dst = (uint8_t)ra;
        break;
    case ALPHA_FMT_FBRA:
        s->src[0] = (uint8_t)(32 + ra);
        break;
    case ALPHA_FMT_OPR:
        s->src[0] = (uint8_t)ra;
        if (!alpha_is_literal(w))
            s->src[1] = (uint8_t)rb;
        s->dst = (uint8_t)rc;
        break;
    case ALPHA_FMT_FTOI:
        s->src[0] = (uint8_t)(32 + ra);
        s->dst = (uint8_t)rc;
        break;
    case ALPHA_FMT_ITOF:
        s->src[0] = (uint8_t)ra;
        s->dst = (uint8_t)(32 + rc);
        break;
    default:
        if (is_fp_format(in->format)) {
            if (in->format == ALPHA_FMT_FPQ || in->format == ALPHA_FMT_FPX)
                s->src[0] = (uint8_t)(32 + ra);
            s->src[1] = (uint8_t)(32 + rb);
            s->dst = (uint8_t)(32 + rc);
        }
        break;
    }
    /* r31 and f31 read as zero and discard writes. */
    for (int i = 0; i < 2; i++)
        if (s->src[i] == 31 || s->src[i] == 63)
            s->src[i] = REG_NONE;
    if (s->dst == 31 || s->dst == 63)
        s->dst = REG_NONE;
}

uint32_t model_class_latency(const struct model_params *p, unsigned cls)
{
    switch (cls) {
    case ALPHA_IMUL:    return p->imul_latency;
    case ALPHA_FADD:
    case ALPHA_FMUL:    return p->fadd_latency;
    case ALPHA_FDIV:    return p->fdiv_s_latency;
    case ALPHA_FDIV_T:  return p->fdiv_t_latency;
    case ALPHA_FSQRT:   return p->fsqrt_s_latency;
    case ALPHA_FSQRT_T: return p->fsqrt_t_latency;
    case ALPHA_LOAD:
    case ALPHA_LOAD_LOCKED: return p->l1_latency;
    case ALPHA_BARRIER: return 10;
    case ALPHA_PAL:     return 20;
    default:            return 1;
    }
}

bool model_class_serialises(unsigned cls)
{
    return cls == ALPHA_BARRIER || cls == ALPHA_PAL;
}

bool model_class_fdiv(unsigned cls)
{
    return cls >= ALPHA_FDIV && cls <= ALPHA_FSQRT_T;
}

unsigned inorder_pipes(const struct insn_static *s)
{
    switch (s->cls) {
    case ALPHA_IALU:
    case ALPHA_NOP:         return PIPE_E0 | PIPE_E1;
    case ALPHA_LOAD:
    case ALPHA_LOAD_LOCKED:
    case ALPHA_PREFETCH:    return PIPE_E0 | PIPE_E1;
    case ALPHA_ISHIFT:
    case ALPHA_IMUL:
    case ALPHA_STORE:
    case ALPHA_STORE_COND:
    case ALPHA_BARRIER:
    case ALPHA_MISC:
    case ALPHA_PAL:         return PIPE_E0;
    case ALPHA_BRANCH_COND: /* FP branches (fbeq...) go to FA */
        return alpha_opcode(s->word) >= 0x31 && alpha_opcode(s->word) <= 0x37 ? PIPE_FA : PIPE_E1;
    case ALPHA_BRANCH:
    case ALPHA_JUMP:        return PIPE_E1;
    case ALPHA_FMUL:        return PIPE_FM;
    default:                return PIPE_FA;     /* FP add, divide, square root, moves */
    }
}

uint64_t inorder_issue(struct inorder_issue *st, const struct model_params *p, const struct insn_static *s,
                       uint64_t ready, enum issue_wait *why)
{
    enum issue_wait w = ISSUE_READY;
    uint64_t t = ready;
    bool fdiv = model_class_fdiv(s->cls), serial = model_class_serialises(s->cls);
    if (fdiv && t < st->fdiv_free) {
        t = st->fdiv_free;
        w = ISSUE_DIVIDER;
    }
    if (t < st->cycle) {
        t = st->cycle;
        w = st->used == PIPE_ALL && st->n == 1 ? ISSUE_SERIAL : ISSUE_ORDER;
    }
    unsigned pipes = inorder_pipes(s);
    uint64_t slot = s->pc >> 2;     /* (a 64-bit divide was 9 % of the model's step) */
    uint64_t block = (p->width & (p->width - 1)) ? slot / p->width : slot >> __builtin_ctz(p->width);
    if (st->n && t == st->cycle) {
        /* joins the last group, if slotting and the pipes allow */
        bool slot_ok = st->n < p->width && block == st->block && !st->after_taken && !serial;
        bool pipe_ok = (pipes & ~st->used) != 0;
        if (!slot_ok || !pipe_ok) {
            t++;
            if (w != ISSUE_SERIAL)
                w = !slot_ok ? ISSUE_SLOT : ISSUE_PIPE;
        }
    }
    if (!st->n || t != st->cycle) {
        st->cycle = t;
        st->used = 0;
        st->n = 0;
        st->block = block;
    }
    unsigned free_pipes = pipes & ~st->used;
    st->used |= (uint8_t)(free_pipes & -free_pipes);
    st->n++;
    uint32_t lat = model_class_latency(p, s->cls);
    if (fdiv)
        st->fdiv_free = t + lat;
    if (serial) {
        /* alone, and nothing issues behind it until it is done */
        st->cycle = t + (lat ? lat - 1 : 0);
        st->used = PIPE_ALL;
        st->n = 1;
    }
    st->after_taken = false;
    if (why)
        *why = w;
    return t;
}
