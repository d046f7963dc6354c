/*
 * The timing model's step: fetch, map (ROB, issue queues, store buffer),
 * data ready (dataflow), issue (functional units), retire ready (latency),
 * retire (in order), then the bad path of a mispredicted branch.
 * Invariants: fetch, map and retire times never decrease; fetch <= map <
 * data ready <= issue < retire ready <= retire; at most retire_width
 * instructions retire in a cycle; the sum of insn_result.cycles equals
 * last_retire; the core's cycle stacks sum to its charged cycles x
 * CYCLE_UNIT (core-model.h, design notes).
 */
#include "hw-model/model/core-model.h"

#include <string.h>

#include "linker/ram-map.h"

#include "hw-model/isa/alpha-isa.h"

int core_model_init(struct core_model *m, const struct model_params *p)
{
    memset(m, 0, sizeof *m);
    m->p = *p;
    if (m->p.rob == 0 || m->p.rob > MODEL_MAX_ROB || m->p.width == 0 || m->p.width > 64 ||
        m->p.retire_width == 0 || m->p.retire_width > CYCLE_MAX_RETIRE_WIDTH ||
        m->p.iq_int == 0 || m->p.iq_int > MODEL_MAX_IQ || m->p.iq_fp == 0 || m->p.iq_fp > MODEL_MAX_IQ ||
        m->p.store_buffer == 0 || m->p.store_buffer > MODEL_MAX_SB || m->p.int_pipes == 0 ||
        m->p.int_pipes > 255 || m->p.mul_pipes == 0 || m->p.mul_pipes > m->p.int_pipes ||
        m->p.mem_pipes == 0 || m->p.mem_pipes > m->p.int_pipes || m->p.fp_pipes == 0 ||
        m->p.fp_pipes > 255)
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
    if ((p->width & (p->width - 1)) == 0)
        m->width_shift = (unsigned)__builtin_ctz(p->width) + 1;
    for (unsigned i = 0; i < MODEL_FU_RING; i++)
        m->fu[i].cycle = UINT64_MAX;
    for (unsigned i = 0; i < MODEL_DECODE_CACHE; i++)
        m->dcache[i].pc = UINT64_MAX;
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

void core_model_set_memory(struct core_model *m, const uint8_t *mem, uint64_t size)
{
    m->mem = size >= 4 ? mem : NULL;
    m->mem_size = m->mem ? size : 0;
}

bool model_translate_pc(uint64_t pc, uint64_t *phys)
{
    if (pc & 3)
        return false;
    if (pc >= KSEG_BASE) {
        *phys = pc - KSEG_BASE;
        return true;
    }
    if (pc >= USER_BASE && pc < RAM_SIZE) {
        *phys = pc;
        return true;
    }
    return false;
}

unsigned model_pc_context(uint64_t pc)
{
    /* QEMU's PALcode runs at KSEG addresses of its physical range */
    uint64_t phys = pc >= KSEG_BASE ? pc - KSEG_BASE : pc;
    if ((pc & 1) || phys < PALCODE_END)
        return PME_CTX_PAL;
    return pc >= KSEG_BASE ? PME_CTX_KERNEL : PME_CTX_USER;
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* An event of this instruction, also counted for the core. */
static inline void count(struct core_model *m, struct insn_result *r, unsigned e)
{
    r->events[e]++;
    r->event_mask |= 1u << e;
    m->events[e]++;
}

/* Latency of a data access through DTB, L1 D-cache, L2 and memory; *ready
 * gets the part before the miss is known (translation and L1). */
static uint32_t data_access(struct core_model *m, uint64_t addr, struct insn_result *r, uint32_t *ready)
{
    uint32_t lat = m->p.l1_latency;
    if (!cache_access(&m->dtb, addr)) {
        lat += m->p.tlb_miss_latency;
        count(m, r, PMU_EV_DTBMISS);
        r->pme_events |= 1u << PME_EVB_DTBMISS;
    }
    *ready = lat;
    if (!cache_access(&m->l1d, addr)) {
        count(m, r, PMU_EV_DMISS);
        r->pme_events |= 1u << PME_EVB_DMISS;
        if (cache_access(&m->l2, addr)) {
            lat += m->p.l2_latency;
        } else {
            count(m, r, PMU_EV_L2MISS);
            r->pme_events |= 1u << PME_EVB_L2MISS;
            lat += m->p.memory_latency;
        }
    }
    return lat;
}

/* Functional-unit kinds. */
enum { FU_INT, FU_MUL, FU_MEM, FU_FP };

static unsigned unit_kind(unsigned cls)
{
    switch (cls) {
    case ALPHA_IMUL:        return FU_MUL;
    case ALPHA_LOAD:
    case ALPHA_LOAD_LOCKED:
    case ALPHA_PREFETCH:
    case ALPHA_STORE:
    case ALPHA_STORE_COND:  return FU_MEM;
    case ALPHA_FADD:
    case ALPHA_FMUL:
    case ALPHA_FDIV:
    case ALPHA_FDIV_T:
    case ALPHA_FSQRT:
    case ALPHA_FSQRT_T:
    case ALPHA_FMOV:        return FU_FP;
    default:                return FU_INT;
    }
}

/* The first cycle from t with a functional unit of kind; reserves it. */
static uint64_t reserve_unit(struct core_model *m, uint64_t t, unsigned kind)
{
    const struct model_params *p = &m->p;
    for (unsigned tries = 0; tries < MODEL_FU_RING; tries++, t++) {
        struct fu_slot *f = &m->fu[t & (MODEL_FU_RING - 1)];
        if (f->cycle != t) {        /* nothing reserved in that cycle yet */
            *f = (struct fu_slot){.cycle = t, .n_int = kind != FU_FP, .n_mul = kind == FU_MUL,
                                  .n_mem = kind == FU_MEM, .n_fp = kind == FU_FP};
            return t;
        }
        if (kind == FU_FP) {
            if (f->n_fp >= p->fp_pipes)
                continue;
            f->n_fp++;
            return t;
        }
        if (f->n_int >= p->int_pipes || (kind == FU_MUL && f->n_mul >= p->mul_pipes) ||
            (kind == FU_MEM && f->n_mem >= p->mem_pipes))
            continue;
        f->n_int++;
        f->n_mul += kind == FU_MUL;
        f->n_mem += kind == FU_MEM;
        return t;
    }
    return t;
}

/* An issue-queue entry for an instruction that could map at t: one free
 * by then (any will do, later instructions map no earlier), else the one
 * that frees first.  *next rotates, so the common case looks at one entry. */
static uint64_t *iq_entry_rest(uint64_t *q, unsigned n, unsigned *next, uint64_t t);

static inline uint64_t *iq_entry(uint64_t *q, unsigned n, unsigned *next, uint64_t t)
{
    unsigned i = *next;
    if (__builtin_expect(q[i] <= t, 1)) {
        *next = i + 1 == n ? 0 : i + 1;
        return &q[i];
    }
    return iq_entry_rest(q, n, next, t);
}

/* iq_entry when the next entry in turn is still busy at t. */
static uint64_t *iq_entry_rest(uint64_t *q, unsigned n, unsigned *next, uint64_t t)
{
    unsigned i = *next;
    for (unsigned k = 0; k < n; k++) {
        if (q[i] <= t) {
            *next = i + 1 == n ? 0 : i + 1;
            return &q[i];
        }
        i = i + 1 == n ? 0 : i + 1;
    }
    /* full: the entry that frees first (branch-free: the minimum moves
     * unpredictably) */
    unsigned best = 0;
    uint64_t min = q[0];
    for (unsigned k = 1; k < n; k++) {
        uint64_t x = q[k];
        bool lt = x < min;
        min = lt ? x : min;
        best = lt ? k : best;
    }
    return &q[best];
}

/* The cycle of a fetch slot (no division for power-of-two widths). */
static inline uint64_t slot_cycle(const struct core_model *m, uint64_t slot)
{
    return m->width_shift ? slot >> (m->width_shift - 1) : slot / m->p.width;
}

/* The first slot of the next fetch block (a taken branch ends the block). */
static inline uint64_t block_end(const struct core_model *m, uint64_t slot)
{
    return slot_cycle(m, slot + m->p.width - 1) * m->p.width;
}

/* Fetch of the instruction at pc: I-cache and ITB on a new line (an I-miss
 * is counted for the core, its bits go to *pme).  Returns false (nothing
 * fetched) if a miss would take fetch to `limit` slots. */
static bool fetch_new_line(struct core_model *m, uint64_t pc, uint64_t limit, uint32_t *pme);

static inline bool fetch_insn(struct core_model *m, uint64_t pc, uint64_t limit, uint64_t *fetch,
                              uint32_t *pme)
{
    if (__builtin_expect(pc >> 6 != m->last_fetch_line, 0) && !fetch_new_line(m, pc, limit, pme))
        return false;
    *fetch = slot_cycle(m, m->fetch_slot);
    m->fetch_slot++;
    m->fetched++;
    return true;
}

/* fetch_insn's first instruction of a line: I-cache and ITB. */
static bool fetch_new_line(struct core_model *m, uint64_t pc, uint64_t limit, uint32_t *pme)
{
    const struct model_params *p = &m->p;
    uint64_t line = pc >> 6;
    uint64_t stall = 0;
    bool itbmiss = !cache_access(&m->itb, pc);
    if (itbmiss)
        stall += p->tlb_miss_latency;
    bool imiss = !cache_access(&m->l1i, pc);
    if (imiss)
        stall += cache_access(&m->l2, pc) ? p->l2_latency : p->memory_latency;
    m->last_fetch_line = line;
    if (m->fetch_slot + stall * p->width >= limit) {
        m->fetch_slot = limit;      /* redirected before the line came: not fetched */
        return false;
    }
    m->fetch_slot += stall * p->width;
    if (imiss) {
        m->events[PMU_EV_IMISS]++;
        *pme |= 1u << PME_EVB_IMISS;
    }
    if (itbmiss) {
        m->events[PMU_EV_ITBMISS]++;
        *pme |= 1u << PME_EVB_ITBMISS;
    }
    return true;
}

static const struct insn_static *decode_cached(struct core_model *m, uint64_t pc, uint32_t word)
{
    struct decoded *d = &m->dcache[(pc >> 2) & (MODEL_DECODE_CACHE - 1)];
    if (d->pc != pc || d->s.word != word) {
        insn_static_decode(&d->s, pc, word);
        d->pc = pc;
    }
    return &d->s;
}

/* Zeroes a result (without a slow rep stos). */
static void clear_result(struct insn_result *r)
{
    r->cycles = r->map = r->data_ready = r->issue = r->retire_ready = r->retire = r->complete = 0;
    r->addr = 0;
    r->latency = r->pme_events = 0;
    for (unsigned k = 0; k < PME_LAT_COUNT; k++)
        r->lat[k] = 0;
    for (unsigned e = 0; e < PMU_EV_COUNT; e++)
        r->events[e] = 0;
    r->event_mask = 0;
}

/* Fetches the predicted path from pc until fetch reaches `end` slots or
 * the reorder buffer, holding what was in flight at `since`, is full. */
static void fetch_bad_path(struct core_model *m, uint64_t pc, uint32_t history, uint64_t end,
                           uint64_t since)
{
    const struct model_params *p = &m->p;
    unsigned cap = p->rob, ras_top = m->ras_top;
    for (unsigned i = 0; i < p->rob; i++)
        cap -= m->rob_retire[i] > since;
    m->last_fetch_line = UINT64_MAX;       /* a new fetch block */
    while (m->nbad < cap && m->fetch_slot < end) {
        uint64_t phys;
        if (!m->mem || !model_translate_pc(pc, &phys) || phys > m->mem_size - 4)
            break;
        uint32_t word;
        memcpy(&word, m->mem + phys, 4);
        struct bad_fetch *b = &m->bad[m->nbad];
        b->pme_events = 0;
        b->addr = 0;
        if (!fetch_insn(m, pc, end, &b->fetch, &b->pme_events))
            break;
        m->nbad++;
        b->pc = pc;
        b->history = history;
        const struct insn_static *s = decode_cached(m, pc, word);
        unsigned cls = s->cls;
        b->pme_events |= 1u << PME_EVB_BAD_PATH;
        if (cls == ALPHA_LOAD || cls == ALPHA_LOAD_LOCKED)
            b->pme_events |= 1u << PME_EVB_LOAD;
        else if (cls == ALPHA_STORE || cls == ALPHA_STORE_COND)
            b->pme_events |= 1u << PME_EVB_STORE;
        if (cls == ALPHA_BRANCH_COND) {
            b->pme_events |= 1u << PME_EVB_BRANCH;
            bool taken = bp_predict(&m->bp, pc);
            history = (history << 1 | taken) & (BP_GLOBAL_ENTRIES - 1);
            if (taken) {
                b->pme_events |= 1u << PME_EVB_TAKEN;
                pc = alpha_branch_target(pc, s->word);
                b->addr = pc;
                m->fetch_slot = block_end(m, m->fetch_slot);
                m->last_fetch_line = UINT64_MAX;
                continue;
            }
        } else if (cls == ALPHA_BRANCH) {
            b->pme_events |= 1u << PME_EVB_JUMP | 1u << PME_EVB_TAKEN;
            pc = alpha_branch_target(pc, s->word);
            b->addr = pc;
            m->fetch_slot = block_end(m, m->fetch_slot);
            m->last_fetch_line = UINT64_MAX;
            continue;
        } else if (cls == ALPHA_JUMP) {
            /* predicted like a good-path jump, without training: returns
             * read down a private copy of the return stack's top */
            b->pme_events |= 1u << PME_EVB_JUMP | 1u << PME_EVB_TAKEN;
            if (((s->word >> 14) & 3) >= 2) {
                pc = m->ras[ras_top];
                ras_top = (ras_top + MODEL_RAS - 1) % MODEL_RAS;
            } else {
                const struct jump_target *j = &m->btb[(pc >> 2) % MODEL_BTB];
                if (j->pc != pc)
                    break;                  /* no target known: fetch waits */
                pc = j->target;
            }
            b->addr = pc;
            m->fetch_slot = block_end(m, m->fetch_slot);
            m->last_fetch_line = UINT64_MAX;
            continue;
        }
        pc += 4;
    }
    m->aborted += m->nbad;
}

static void ras_push(struct core_model *m, uint64_t ret)
{
    m->ras_top = (m->ras_top + 1) % MODEL_RAS;
    m->ras[m->ras_top] = ret;
}

static uint64_t ras_pop(struct core_model *m)
{
    uint64_t ret = m->ras[m->ras_top];
    m->ras_top = (m->ras_top + MODEL_RAS - 1) % MODEL_RAS;
    return ret;
}

/* The target fetch predicted for a jump (jmp, jsr, ret, jsr_coroutine by
 * the hint in bits 15:14); trains on the real one. */
static uint64_t predict_jump(struct core_model *m, const struct insn_static *s, uint64_t target)
{
    unsigned hint = (s->word >> 14) & 3;
    uint64_t predicted;
    if (hint >= 2) {
        predicted = ras_pop(m);
    } else {
        struct jump_target *j = &m->btb[(s->pc >> 2) % MODEL_BTB];
        predicted = j->pc == s->pc ? j->target : s->pc + 4;     /* unknown: falls through */
        j->pc = s->pc;
        j->target = target;
    }
    if (hint & 1)
        ras_push(m, s->pc + 4);
    return predicted;
}

/* Cycle stacks (core-model.h, design notes). */

/* CYCLE_UNIT / n, no division on the way. */
#define SHARE_(n) CYCLE_UNIT / (n)
static const uint32_t group_share[CYCLE_MAX_RETIRE_WIDTH + 1] = {
    0, SHARE_(1), SHARE_(2), SHARE_(3), SHARE_(4), SHARE_(5), SHARE_(6), SHARE_(7), SHARE_(8),
    SHARE_(9), SHARE_(10), SHARE_(11), SHARE_(12), SHARE_(13), SHARE_(14), SHARE_(15), SHARE_(16),
};
#undef SHARE_
_Static_assert(CYCLE_MAX_RETIRE_WIDTH == 16, "group_share covers every width");

static inline bool is_miss_cause(unsigned c)
{
    return c == CAUSE_DCACHE_L2 || c == CAUSE_DCACHE_MEM || c == CAUSE_DTB;
}

static inline void charge(struct core_model *m, uint64_t *acct, unsigned cause, uint64_t cycles)
{
    uint64_t units = cycles * CYCLE_UNIT;
    acct[cause] += units;
    m->stack[cause] += units;
}

static inline uint64_t clamp64(uint64_t x, uint64_t lo, uint64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* Books the cycles of [a, b) that fall in [lo, hi) under cause. */
static inline void charge_span(struct core_model *m, uint64_t *acct, unsigned cause, uint64_t a,
                               uint64_t b, uint64_t lo, uint64_t hi)
{
    a = max64(a, lo);
    b = b < hi ? b : hi;
    if (a < b)
        charge(m, acct, cause, b - a);
}

/* The open retire cycle, split evenly among its retirers (note 3). */
static void close_group(struct core_model *m)
{
    unsigned n = m->ngroup;
    if (!n)
        return;
    uint64_t share = group_share[n];
    for (unsigned i = 0; i < n; i++)
        m->group[i][CAUSE_BASE] += share;
    m->stack[CAUSE_BASE] += CYCLE_UNIT;
    m->ngroup = 0;
}

void core_model_settle(struct core_model *m)
{
    close_group(m);
}

/* What an instruction's stages were, and why (for charge_gap). */
struct stage_times {
    uint64_t fetch, map, ready, issue, retready;
    uint8_t front_cause;        /* why fetch was late: icache, itb or base */
    uint8_t wait_cause;         /* why data ready waited: the producer's reg_cause */
    uint8_t exec_cause;         /* what its own execution is */
};

/* The cycles [lo, hi) before the retire cycle of the instruction acct
 * (note 2): the empty window to the flush owner or by why fetch and map
 * were late, then the instruction at the head by its phase. */
static void charge_gap(struct core_model *m, uint64_t *acct, uint64_t lo, uint64_t hi,
                       const struct stage_times *t)
{
    if (t->map > lo) {
        uint64_t end = t->map < hi ? t->map : hi;
        if (m->flush_owner) {
            charge(m, m->flush_owner, m->flush_cause, end - lo);
        } else {
            charge_span(m, acct, t->front_cause, lo, t->fetch + 1, lo, end);
            /* with the window empty only the store buffer holds map back */
            charge_span(m, acct, CAUSE_QUEUE_FULL, t->fetch + 1, end, lo, end);
        }
        lo = end;
    }
    /* the phases [map, map+1), [map+1, ready), [ready, issue), [issue,
     * retready), [retready, hi) are contiguous and lo >= map: clamped to
     * [lo, hi) they split it (adding zeros costs less than branching) */
    uint64_t b1 = clamp64(t->map + 1, lo, hi), b2 = clamp64(t->ready, lo, hi),
             b3 = clamp64(t->issue, lo, hi), b4 = clamp64(t->retready, lo, hi);
    charge(m, acct, CAUSE_BASE, b1 - lo);
    charge(m, acct, t->wait_cause, b2 - b1);
    charge(m, acct, CAUSE_FU_BUSY, b3 - b2);
    charge(m, acct, t->exec_cause, b4 - b3);
    charge(m, acct, CAUSE_OTHER, hi - b4);
}

/* Retires the instruction acct, ready at retready, in order and at most
 * retire_width a cycle; books its cycles (notes 1-3).  Returns the cycle. */
static uint64_t retire_insn(struct core_model *m, uint64_t *acct, uint64_t retready,
                            const struct stage_times *t)
{
    uint64_t last = m->last_retire;
    uint64_t retire = max64(last, retready);
    /* a full cycle, or one already charged (after core_model_settle),
     * takes no more retirers */
    if (retire == last && (m->ngroup >= m->p.retire_width || (m->ngroup == 0 && last > 0)))
        retire = last + 1;
    if (retire != last) {
        close_group(m);
        if (retire > last + 1)
            charge_gap(m, acct, last + 1, retire, t);
    }
    m->group[m->ngroup++] = acct;
    m->flush_owner = NULL;          /* this one entered: the window was not empty after */
    return retire;
}

void core_model_step(struct core_model *m, const struct insn_static *s, uint64_t addr,
                     uint64_t next_pc, struct insn_result *r, uint64_t *acct)
{
    /* (no memset: a rep stos costs more than the rest of the fetch) */
    for (unsigned e = 0; e < PMU_EV_COUNT; e++)
        r->events[e] = 0;
    r->pme_events = 0;
    r->addr = 0;
    r->lat[PME_LAT_LOAD_COMPLETE] = 0;
    m->nbad = 0;
    const struct model_params *p = &m->p;
    unsigned cls = s->cls;
    r->history = m->bp.global_history;
    if (!acct)
        acct = m->unowned;

    /* Fetch. */
    fetch_insn(m, s->pc, UINT64_MAX, &r->fetch, &r->pme_events);
    r->events[PMU_EV_IMISS] = (r->pme_events >> PME_EVB_IMISS) & 1;
    r->events[PMU_EV_ITBMISS] = (r->pme_events >> PME_EVB_ITBMISS) & 1;
    r->event_mask = (uint32_t)r->events[PMU_EV_IMISS] << PMU_EV_IMISS |
                    (uint32_t)r->events[PMU_EV_ITBMISS] << PMU_EV_ITBMISS;
    uint64_t fetch = r->fetch;

    /* Map, in order: a ROB entry frees when the instruction rob places
     * older retires, an issue-queue entry when its instruction issues, a
     * store-buffer entry when its store has written the cache. */
    unsigned slot = m->rob_idx;
    m->rob_idx = slot + 1 == p->rob ? 0 : slot + 1;
    uint64_t map = max64(max64(fetch + 1, m->last_map), m->rob_retire[slot]);
    unsigned kind = unit_kind(cls);
    uint64_t *iq = kind == FU_FP ? iq_entry(m->iq_fp, p->iq_fp, &m->iq_fp_next, map)
                      : iq_entry(m->iq_int, p->iq_int, &m->iq_int_next, map);
    map = max64(map, *iq);
    bool store = cls == ALPHA_STORE || cls == ALPHA_STORE_COND;
    unsigned sb = m->sb_idx;
    if (store)
        map = max64(map, m->sb_done[sb]);
    if (map > fetch + 1)
        m->fetch_slot = max64(m->fetch_slot, map * p->width);   /* fetch backs up */
    m->last_map = map;

    /* Data ready when the operands are; waiting, for the last of them. */
    uint64_t ready = map + 1;
    unsigned wait_cause = CAUSE_BASE;
    uint64_t wait_miss_done = 0;
    for (int i = 0; i < 2; i++)
        if (s->src[i] != REG_NONE) {
            uint64_t t = m->reg_ready[s->src[i]];
            bool later = t > ready;         /* (selects: the outcome is random) */
            ready = later ? t : ready;
            wait_cause = later ? m->reg_cause[s->src[i]] : wait_cause;
            wait_miss_done = later ? m->reg_miss_done[s->src[i]] : wait_miss_done;
        }

    /* Issue on a free functional unit. */
    uint64_t issue = ready;
    uint32_t lat, retready_lat;
    unsigned exec_cause = CAUSE_BASE, value_cause;
    if (p->inorder) {
        /* in order, by the pipe and slotting rules (issue-rules.h) */
        issue = inorder_issue(&m->io, p, s, ready, NULL);
    } else {
        if (model_class_fdiv(cls))
            issue = max64(issue, m->fdiv_free);
        issue = reserve_unit(m, issue, kind);
    }
    *iq = issue;

    switch (cls) {
    case ALPHA_LOAD:
    case ALPHA_LOAD_LOCKED:
        count(m, r, PMU_EV_LOADS);
        r->pme_events |= 1u << PME_EVB_LOAD;
        r->addr = addr;
        lat = data_access(m, addr, r, &retready_lat);
        if (r->events[PMU_EV_DTBMISS])
            exec_cause = CAUSE_DTB;
        value_cause = r->events[PMU_EV_L2MISS] ? CAUSE_DCACHE_MEM
                    : r->events[PMU_EV_DMISS] ? CAUSE_DCACHE_L2
                    : r->events[PMU_EV_DTBMISS] ? CAUSE_DTB : CAUSE_DEPENDENCY;
        break;
    case ALPHA_STORE:
    case ALPHA_STORE_COND:
        count(m, r, PMU_EV_STORES);
        r->pme_events |= 1u << PME_EVB_STORE;
        r->addr = addr;
        lat = data_access(m, addr, r, &retready_lat);   /* write-allocate, written after retire */
        retready_lat = lat = 1;
        value_cause = CAUSE_BASE;
        break;
    default:
        retready_lat = lat = model_class_latency(p, cls);
        if (cls == ALPHA_BARRIER || cls == ALPHA_PAL)
            exec_cause = CAUSE_SERIALISE;
        else if (lat > 1)
            exec_cause = CAUSE_EXECUTE;
        value_cause = lat > 1 ? CAUSE_DEPENDENCY : issue > ready ? CAUSE_FU_BUSY : CAUSE_BASE;
        break;
    }
    /* a miss up the chain outweighs this instruction's own reason while
     * its data was still on its way (note 4) */
    uint64_t miss_done = is_miss_cause(value_cause) ? issue + lat : 0;
    if (ready > map + 1 && !is_miss_cause(value_cause) &&
        (is_miss_cause(wait_cause) ? wait_miss_done > map + 1 : value_cause == CAUSE_BASE)) {
        value_cause = wait_cause;
        miss_done = wait_miss_done;
    }
    if (model_class_fdiv(cls))
        m->fdiv_free = issue + lat;
    /* in order, an instruction leaves the issue stage when it issues (loads
     * do not block; their consumers wait), unless it holds issue itself */
    if (p->inorder)
        retready_lat = model_class_serialises(cls) ? lat : 1;
    uint64_t complete = issue + lat, retready = issue + retready_lat;
    if (s->dst != REG_NONE) {
        m->reg_ready[s->dst] = complete;
        m->reg_cause[s->dst] = (uint8_t)value_cause;
        m->reg_miss_done[s->dst] = miss_done;
    }

    /* Control flow: conditional branches are predicted by the tournament
     * predictor, returns by the return stack, other jumps by the jump
     * target buffer; a wrong guess redirects fetch penalty cycles after the
     * branch resolves, and until then fetch follows the predicted path. */
    bool taken = next_pc != s->pc + 4;
    uint64_t redirect = 0, bad_pc = 0;
    uint32_t bad_history = 0;
    if (cls == ALPHA_BRANCH_COND) {
        count(m, r, PMU_EV_BRANCHES);
        r->pme_events |= 1u << PME_EVB_BRANCH;
        if (taken)
            r->addr = next_pc;
        if (!bp_update(&m->bp, s->pc, taken)) {
            count(m, r, PMU_EV_BRANCHMP);
            r->pme_events |= 1u << PME_EVB_MISPREDICT;
            redirect = (complete + p->mispredict_penalty) * p->width;
            bad_pc = taken ? s->pc + 4 : alpha_branch_target(s->pc, s->word);
            bad_history = m->bp.global_history ^ 1;     /* the predicted direction */
        }
    } else if (cls == ALPHA_JUMP || cls == ALPHA_BRANCH) {
        r->pme_events |= 1u << PME_EVB_JUMP;
        r->addr = next_pc;
        uint64_t predicted = cls == ALPHA_JUMP ? predict_jump(m, s, next_pc) : next_pc;
        if (cls == ALPHA_BRANCH && alpha_opcode(s->word) == 0x34)     /* bsr */
            ras_push(m, s->pc + 4);
        if (predicted != next_pc) {
            count(m, r, PMU_EV_BRANCHMP);
            r->pme_events |= 1u << PME_EVB_MISPREDICT;
            redirect = (complete + p->mispredict_penalty) * p->width;
            bad_pc = predicted;
            bad_history = m->bp.global_history;
        }
        /* taken control transfers end the fetch block */
        m->fetch_slot = block_end(m, m->fetch_slot);
    }
    inorder_taken(&m->io, taken);      /* slotting: no group across a taken transfer */
    if (taken) {
        m->last_fetch_line = UINT64_MAX;
        if (cls == ALPHA_BRANCH_COND || cls == ALPHA_JUMP || cls == ALPHA_BRANCH)
            r->pme_events |= 1u << PME_EVB_TAKEN;
    }

    /* Retire in order, booking the cycles. */
    struct stage_times st = {
        .fetch = fetch, .map = map, .ready = ready, .issue = issue, .retready = retready,
        .front_cause = (uint8_t)(r->pme_events & 1u << PME_EVB_IMISS ? CAUSE_ICACHE
                                 : r->pme_events & 1u << PME_EVB_ITBMISS ? CAUSE_ITB : CAUSE_BASE),
        .wait_cause = (uint8_t)wait_cause, .exec_cause = (uint8_t)exec_cause};
    uint64_t retire = retire_insn(m, acct, retready, &st);
    if (redirect) {
        m->flush_owner = acct;
        m->flush_cause = CAUSE_MISPREDICT;
    }
    r->cycles = retire - m->last_retire;
    m->last_retire = retire;
    m->rob_retire[slot] = retire;
    m->seq++;

    /* Stores write the cache from the store buffer after retiring, in
     * order, one per cycle at best; a miss takes its latency. */
    if (store) {
        uint64_t cost = r->events[PMU_EV_L2MISS] ? p->memory_latency
                      : r->events[PMU_EV_DMISS] ? p->l2_latency : 1;
        m->sb_last = max64(retire + cost, m->sb_last + 1);
        m->sb_done[sb] = m->sb_last;
        m->sb_idx = sb + 1 == p->store_buffer ? 0 : sb + 1;
    }

    count(m, r, PMU_EV_RETIRED);
    r->pme_events |= 1u << PME_EVB_RETIRED;
    r->fetch = fetch;
    r->map = map;
    r->data_ready = ready;
    r->issue = issue;
    r->retire_ready = retready;
    r->complete = complete;
    r->retire = retire;
    r->latency = lat;
    r->lat[PME_LAT_FETCH_MAP] = (uint32_t)(map - fetch);
    r->lat[PME_LAT_MAP_DATA] = (uint32_t)(ready - map);
    r->lat[PME_LAT_DATA_ISSUE] = (uint32_t)(issue - ready);
    r->lat[PME_LAT_ISSUE_RETREADY] = (uint32_t)(retready - issue);
    r->lat[PME_LAT_RETREADY_RETIRE] = (uint32_t)(retire - retready);
    if (cls == ALPHA_LOAD || cls == ALPHA_LOAD_LOCKED)
        r->lat[PME_LAT_LOAD_COMPLETE] = lat;
    r->lat[PME_LAT_RETIRE_GAP] = (uint32_t)(r->cycles > UINT32_MAX ? UINT32_MAX : r->cycles);
    m->events[PMU_EV_CYCLES] += r->cycles;

    if (redirect) {
        fetch_bad_path(m, bad_pc, bad_history, redirect, fetch);
        m->fetch_slot = max64(m->fetch_slot, redirect);
        m->last_fetch_line = UINT64_MAX;
    }
    /* The in-order core fetches aligned blocks of `width` instructions
     * (the 21164's octawords): a taken transfer's target comes in the
     * next fetch cycle at its place in its block, so slotting by aligned
     * blocks (issue-rules.h) sees what fetch delivers together. */
    if (p->inorder && taken && m->width_shift)
        m->fetch_slot = block_end(m, m->fetch_slot) + ((next_pc >> 2) & (p->width - 1));
}

void core_model_trap(struct core_model *m, const struct insn_static *s, struct insn_result *r,
                     uint64_t *acct)
{
    clear_result(r);
    m->nbad = 0;
    r->history = m->bp.global_history;
    fetch_insn(m, s->pc, UINT64_MAX, &r->fetch, &r->pme_events);
    r->events[PMU_EV_IMISS] = (r->pme_events >> PME_EVB_IMISS) & 1;
    r->events[PMU_EV_ITBMISS] = (r->pme_events >> PME_EVB_ITBMISS) & 1;
    r->event_mask = (uint32_t)r->events[PMU_EV_IMISS] << PMU_EV_IMISS |
                    (uint32_t)r->events[PMU_EV_ITBMISS] << PMU_EV_ITBMISS;
    m->aborted++;
    r->pme_events |= 1u << PME_EVB_TRAP;
    if (s->cls == ALPHA_LOAD || s->cls == ALPHA_LOAD_LOCKED)
        r->pme_events |= 1u << PME_EVB_LOAD;
    else if (s->cls == ALPHA_STORE || s->cls == ALPHA_STORE_COND)
        r->pme_events |= 1u << PME_EVB_STORE;
    /* The trap is taken when the instruction reaches retirement; the
     * handler's fetch starts a penalty later. */
    uint64_t taken = max64(m->last_retire, r->fetch + 1) + m->p.mispredict_penalty;
    /* at the head, then its flush: until the handler's first one maps */
    m->flush_owner = acct ? acct : m->unowned;
    m->flush_cause = CAUSE_TRAP;
    m->fetch_slot = max64(m->fetch_slot, taken * m->p.width);
    m->last_fetch_line = UINT64_MAX;
}
