/*
 * The timing model's step: fetch, map (ROB), issue (dataflow), complete
 * (latency), retire (in order).  Invariants: retire times never decrease;
 * the sum of insn_result.cycles equals last_retire.
 */
#include "hw-model/model/core-model.h"

#include <string.h>

#include "hw-model/isa/alpha-isa.h"

void model_params_default(struct model_params *p)
{
    *p = (struct model_params){
        .width = 4, .rob = 80,
        .l1i_kb = 64, .l1d_kb = 64, .l1_ways = 2, .line = 64,
        .l2_kb = 2048, .l2_ways = 4, .tlb_entries = 128,
        .l1_latency = 3, .l2_latency = 13, .memory_latency = 120, .tlb_miss_latency = 20,
        .mispredict_penalty = 7,
        .imul_latency = 7, .fadd_latency = 4, .fdiv_s_latency = 12, .fdiv_t_latency = 15,
        .fsqrt_s_latency = 18, .fsqrt_t_latency = 33,
    };
}

int core_model_init(struct core_model *m, const struct model_params *p)
{
    memset(m, 0, sizeof *m);
    m->p = *p;
    if (m->p.rob == 0 || m->p.rob > MODEL_MAX_ROB || m->p.width == 0)
        return -1;
    if (cache_init(&m->l1i, (uint64_t)p->l1i_kb << 10, p->l1_ways, p->line) ||
        cache_init(&m->l1d, (uint64_t)p->l1d_kb << 10, p->l1_ways, p->line) ||
        cache_init(&m->l2, (uint64_t)p->l2_kb << 10, p->l2_ways, p->line) ||
        cache_init(&m->itb, (uint64_t)p->tlb_entries << 13, p->tlb_entries, 8192) ||
        cache_init(&m->dtb, (uint64_t)p->tlb_entries << 13, p->tlb_entries, 8192)) {
        core_model_free(m);
        return -1;
    }
    bp_init(&m->bp);
    m->last_fetch_line = UINT64_MAX;
    return 0;
}

void core_model_free(struct core_model *m)
{
    cache_free(&m->l1i);
    cache_free(&m->l1d);
    cache_free(&m->l2);
    cache_free(&m->itb);
    cache_free(&m->dtb);
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
    if (!in) {
        s->cls = ALPHA_MISC;
        return;
    }
    s->cls = in->cls;
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

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* Latency of a data access through DTB, L1 D-cache, L2 and memory. */
static uint32_t data_access(struct core_model *m, uint64_t addr, struct insn_result *r)
{
    uint32_t lat = m->p.l1_latency;
    if (!cache_access(&m->dtb, addr))
        lat += m->p.tlb_miss_latency;
    if (!cache_access(&m->l1d, addr)) {
        r->events[PMU_EV_DMISS]++;
        if (cache_access(&m->l2, addr)) {
            lat += m->p.l2_latency;
        } else {
            r->events[PMU_EV_L2MISS]++;
            lat += m->p.memory_latency;
        }
    }
    return lat;
}

static uint32_t class_latency(const struct model_params *p, unsigned cls)
{
    switch (cls) {
    case ALPHA_IMUL:    return p->imul_latency;
    case ALPHA_FADD:
    case ALPHA_FMUL:    return p->fadd_latency;
    case ALPHA_FDIV:    return p->fdiv_s_latency;
    case ALPHA_FDIV_T:  return p->fdiv_t_latency;
    case ALPHA_FSQRT:   return p->fsqrt_s_latency;
    case ALPHA_FSQRT_T: return p->fsqrt_t_latency;
    case ALPHA_ISHIFT:
    case ALPHA_FMOV:    return 1;
    case ALPHA_BARRIER: return 10;
    case ALPHA_PAL:     return 20;
    default:            return 1;
    }
}

void core_model_step(struct core_model *m, const struct insn_static *s, uint64_t addr,
                     uint64_t next_pc, struct insn_result *r)
{
    memset(r, 0, sizeof *r);
    const struct model_params *p = &m->p;

    /* Fetch: a new line costs an I-cache (and ITB) lookup. */
    uint64_t line = s->pc >> 6;
    if (line != m->last_fetch_line) {
        uint64_t stall = 0;
        if (!cache_access(&m->itb, s->pc))
            stall += p->tlb_miss_latency;
        if (!cache_access(&m->l1i, s->pc)) {
            r->events[PMU_EV_IMISS]++;
            stall += cache_access(&m->l2, s->pc) ? p->l2_latency : p->memory_latency;
        }
        m->fetch_slot += stall * p->width;
        m->last_fetch_line = line;
    }
    uint64_t fetch = m->fetch_slot / p->width;
    m->fetch_slot++;

    /* Map: a ROB entry frees when the instruction rob places older retires. */
    unsigned slot = (unsigned)(m->seq % p->rob);
    uint64_t map = max64(fetch + 1, m->rob_retire[slot]);
    if (map > fetch + 1)
        m->fetch_slot = max64(m->fetch_slot, map * p->width);   /* fetch backs up */

    /* Issue when the operands are ready. */
    uint64_t issue = map + 1;
    for (int i = 0; i < 2; i++)
        if (s->src[i] != REG_NONE)
            issue = max64(issue, m->reg_ready[s->src[i]]);

    uint32_t lat;
    switch (s->cls) {
    case ALPHA_LOAD:
    case ALPHA_LOAD_LOCKED:
        r->events[PMU_EV_LOADS]++;
        lat = data_access(m, addr, r);
        break;
    case ALPHA_STORE:
    case ALPHA_STORE_COND:
        r->events[PMU_EV_STORES]++;
        data_access(m, addr, r);    /* write-allocate; the store buffer hides the latency */
        lat = 1;
        break;
    default:
        lat = class_latency(p, s->cls);
        break;
    }
    uint64_t complete = issue + lat;
    if (s->dst != REG_NONE)
        m->reg_ready[s->dst] = complete;

    /* Control flow: conditional branches are predicted; a wrong guess
     * redirects fetch when the branch resolves. */
    bool taken = next_pc != s->pc + 4;
    if (s->cls == ALPHA_BRANCH_COND) {
        r->events[PMU_EV_BRANCHES]++;
        if (!bp_update(&m->bp, s->pc, taken)) {
            r->events[PMU_EV_BRANCHMP]++;
            m->fetch_slot = max64(m->fetch_slot, (complete + p->mispredict_penalty) * p->width);
        }
    } else if (s->cls == ALPHA_JUMP || s->cls == ALPHA_BRANCH) {
        /* taken control transfers end the fetch block */
        m->fetch_slot = (m->fetch_slot + p->width - 1) / p->width * p->width;
    }
    if (taken)
        m->last_fetch_line = UINT64_MAX;

    /* Retire in order. */
    uint64_t retire = max64(m->last_retire, complete);
    r->cycles = retire - m->last_retire;
    m->last_retire = retire;
    m->rob_retire[slot] = retire;
    m->seq++;
    r->events[PMU_EV_RETIRED] = 1;
    r->fetch = fetch;
    r->issue = issue;
    r->complete = complete;
    r->retire = retire;
    r->latency = lat;
    for (unsigned e = 0; e < PMU_EV_COUNT; e++)
        m->events[e] += r->events[e];
    m->events[PMU_EV_CYCLES] += r->cycles;
}
