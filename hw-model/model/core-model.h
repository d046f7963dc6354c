/*
 * Per-core timing model, close to the Alpha 21264 in its parameters: a
 * dataflow model with in-order fetch (width per cycle, I-cache and ITB
 * misses and mispredict redirects stall it), a reorder buffer of `rob`
 * entries (fetch waits for the instruction rob places older to retire),
 * issue when the source registers are ready, class latencies (integer
 * multiply, FP divide and square root, loads through DTB, L1 D-cache, L2
 * and memory), and in-order retire.  Functional-unit contention and bad-path
 * fetch are not modelled yet.
 *
 * Time-proportional attribution (TIP): the cycles between the previous
 * retirement and this one belong to this instruction, so per-instruction
 * cycles sum to the core's total exactly.
 */
#ifndef HW_MODEL_CORE_MODEL_H
#define HW_MODEL_CORE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "hw-model/model/branch-predictor.h"
#include "hw-model/model/cache.h"
#include "hw-model/pmu-window.h"

struct model_params {
    unsigned width;             /* fetch and map per cycle */
    unsigned rob;               /* reorder buffer entries (<= MODEL_MAX_ROB) */
    unsigned l1i_kb, l1d_kb, l1_ways, line;
    unsigned l2_kb, l2_ways;
    unsigned tlb_entries;       /* ITB and DTB, 8 KiB pages */
    unsigned l1_latency, l2_latency, memory_latency, tlb_miss_latency;
    unsigned mispredict_penalty;
    unsigned imul_latency, fadd_latency, fdiv_s_latency, fdiv_t_latency,
             fsqrt_s_latency, fsqrt_t_latency;
};

#define MODEL_MAX_ROB 256
#define REG_NONE 0xff

/* What the model needs of an instruction, decoded once at translation. */
struct insn_static {
    uint64_t pc;
    uint32_t word;
    uint8_t cls;                /* enum alpha_class */
    uint8_t src[2];             /* registers read: 0-31 integer, 32-63 FP */
    uint8_t dst;                /* register written, or REG_NONE */
};

/* What happened to one instruction. */
struct insn_result {
    uint64_t cycles;            /* time-proportional cycles of this instruction */
    uint64_t fetch, issue, complete, retire;
    uint32_t latency;           /* issue to complete */
    uint16_t events[PMU_EV_COUNT];   /* count of each event this instruction caused */
};

struct core_model {
    struct model_params p;
    struct cache l1i, l1d, l2, itb, dtb;
    struct branch_predictor bp;
    uint64_t fetch_slot;        /* next free fetch slot, width per cycle */
    uint64_t last_fetch_line;
    uint64_t reg_ready[64];
    uint64_t rob_retire[MODEL_MAX_ROB];
    uint64_t seq;               /* instructions seen */
    uint64_t last_retire;
    uint64_t events[PMU_EV_COUNT];
};

void model_params_default(struct model_params *p);
int core_model_init(struct core_model *m, const struct model_params *p);
void core_model_free(struct core_model *m);
/* Decodes word at pc into what the model needs. */
void insn_static_decode(struct insn_static *s, uint64_t pc, uint32_t word);
/* Runs one instruction: addr is its effective address (loads, stores),
 * next_pc the PC that followed it (branch outcome). */
void core_model_step(struct core_model *m, const struct insn_static *s, uint64_t addr,
                     uint64_t next_pc, struct insn_result *r);

#endif
