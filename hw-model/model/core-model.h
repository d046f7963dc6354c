/*
 * Per-core timing model, close to the Alpha 21264 in its parameters.  Each
 * instruction goes through the stages of the ProfileMe latency registers
 * (seed Table 1):
 *
 *   fetch       in order, `width` slots per cycle; I-cache and ITB misses
 *               and mispredict redirects stall it
 *   map         in order, at least a cycle after fetch, once the reorder
 *               buffer (`rob` entries, freed in order at retire), the
 *               instruction's issue queue (integer `iq_int`, FP `iq_fp`
 *               entries, freed at issue) and, for stores, the store buffer
 *               (`store_buffer` entries, freed when the store has written
 *               the cache after retiring) have room; fetch backs up behind it
 *   data ready  a cycle after map, once the source registers are written
 *   issue       the first cycle from data ready with a free functional unit:
 *               `int_pipes` integer pipes per cycle, of which `mul_pipes`
 *               multiply and `mem_pipes` load or store; `fp_pipes` FP pipes;
 *               one unpipelined FP divide/square-root unit
 *   retire ready  issue + execution latency; a load is retire-ready once it
 *               has translated and accessed the L1 (the 21264 retires loads
 *               before a miss returns), its destination becomes ready when
 *               the data returns (`complete`, Load issue->Completion)
 *   retire      in order, at most `retire_width` a cycle
 *
 * With model_params.inorder (core=inorder, issue-rules.h) the same stages
 * model a 21164-like core: issue is in order by the pipe and slotting
 * rules of inorder_issue, an instruction retires the cycle after it issues
 * (a barrier or PAL call after its latency), loads do not block (their
 * consumer waits at issue), and fetch delivers aligned blocks.
 *
 * Conditional branches are predicted by the tournament predictor, returns
 * by a return-address stack, other jumps by a jump target buffer.  A
 * mispredicted branch or jump redirects fetch `mispredict_penalty` cycles
 * after it resolves; until then the model fetches the predicted
 * (wrong) path from guest memory (core_model.mem, see model_translate_pc),
 * which takes fetch slots and I-cache accesses and is reported in
 * core_model.bad[] (aborted, never retired).
 *
 * Two views of time per instruction:
 *  - insn_result.cycles, the retire gap: the cycles since the previous
 *    retirement (0 for the second and later retirer of a cycle).  It is
 *    what a cycle counter overflowing at retirement charges, so the event
 *    counters and the oracle's cycles event count it.
 *  - The cycle stack (TIP's rules, exact, cycle by cycle; cycle-causes.h
 *    for the unit): a retiring cycle is split evenly among the
 *    instructions retiring in it; a cycle with none retiring goes to the
 *    oldest unretired instruction (the next to retire) while the reorder
 *    buffer holds it, and while the buffer is empty to the instruction
 *    whose flush emptied it (a mispredicted branch or jump, a trap), else
 *    to the next instruction to enter.  Each share is booked under its
 *    cause into the stack the caller passes with the instruction (acct)
 *    and into the core's total (core_model.stack).
 *
 * Design notes (the cycle stacks):
 *  1. Cycles are numbered from 1; the core's cycle count is last_retire.
 *     Instruction j's cycles other than its retiring one lie in
 *     (previous retire cycle L, R_j); they are known when j steps, since
 *     instructions step in program order and retire in order.
 *  2. Of those, [L+1, map_j) is the empty window (everything older has
 *     retired, j has not entered); [max(L+1, map_j), R_j) has j at the
 *     head, booked by j's phase: map->data ready (base for the first
 *     cycle, then the cause of the producer it waits for), data ready->
 *     issue (fu_busy), issue->retire ready (own execution).
 *  3. A retiring cycle's group (the instructions retiring in it, at most
 *     retire_width) is charged CYCLE_UNIT/n each when a later cycle
 *     begins, so the open cycle is never charged twice or half: between
 *     steps the core's stacks sum to exactly (last_retire - 1 if a group
 *     is open, else last_retire) x CYCLE_UNIT.  core_model_settle()
 *     charges the open cycle at the end of the run; no step follows it.
 *  4. reg_cause[r] is why r's value comes when it does: a load's miss
 *     (dcache_l2, dcache_mem, dtb), else a miss its producer waited for
 *     (inherited along the chain) while that miss's data was still on its
 *     way (reg_miss_done[r], past the producer's first cycle to issue:
 *     a loop-carried chain keeps waiting on its own latency long after a
 *     miss that fed it once, and that wait is the chain's, not the
 *     miss's), else dependency (multi-cycle producer), fu_busy or base.
 *  5. The pointers passed as acct must stay valid until the next step
 *     (the open group, the pending flush owner) or, for the last ones,
 *     until core_model_settle(); NULL books into core_model.unowned.
 */
#ifndef HW_MODEL_CORE_MODEL_H
#define HW_MODEL_CORE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "hw-model/cycle-causes.h"
#include "hw-model/model/branch-predictor.h"
#include "hw-model/model/cache.h"
#include "hw-model/model/issue-rules.h"
#include "hw-model/pmu-window.h"

#define MODEL_MAX_ROB   256
#define MODEL_MAX_IQ    64
#define MODEL_MAX_SB    64
#define MODEL_FU_RING   2048        /* cycles of functional-unit reservations kept */
#define MODEL_DECODE_CACHE 1024     /* decoded bad-path instructions */
#define MODEL_RAS       16          /* return-address stack entries */
#define MODEL_BTB       512         /* jump target buffer entries */

/* What happened to one instruction. */
struct insn_result {
    uint64_t cycles;            /* retire gap: cycles since the previous retirement */
    uint64_t fetch, map, data_ready, issue, retire_ready, retire;
    uint64_t complete;          /* result available (loads: data returned) */
    uint64_t addr;              /* ProfileMe address: effective address, or control target */
    uint32_t latency;           /* issue to complete */
    uint32_t lat[PME_LAT_COUNT];     /* stage latencies (pmu-window.h) */
    uint32_t pme_events;        /* 1 << enum pme_event_bit */
    uint32_t history;           /* global branch history at fetch */
    uint16_t events[PMU_EV_COUNT];   /* count of each event this instruction caused */
    uint32_t event_mask;        /* 1 << e for each e >= 1 with events[e] != 0 */
};

/* An instruction fetched down a mispredicted path (aborted): all it did
 * was being fetched (an I-cache miss is its only event: the IMISS bit). */
struct bad_fetch {
    uint64_t pc;
    uint64_t fetch;             /* cycle */
    uint64_t addr;              /* predicted target of a taken control transfer, else 0 */
    uint32_t pme_events;        /* BAD_PATH, class, TAKEN, IMISS, ITBMISS bits */
    uint32_t history;           /* global branch history at fetch (speculative) */
};

struct fu_slot {
    uint64_t cycle;             /* the cycle these counts are for */
    uint8_t n_int, n_mul, n_mem, n_fp;
};

struct jump_target {
    uint64_t pc, target;
};

struct decoded {
    uint64_t pc;                /* UINT64_MAX: empty */
    struct insn_static s;
};

struct core_model {
    struct model_params p;
    struct cache l1i, l1d, l2, itb, dtb;
    struct branch_predictor bp;
    const uint8_t *mem;         /* guest physical memory for bad-path fetch, or NULL */
    uint64_t mem_size;
    uint64_t fetch_slot;        /* next free fetch slot, width per cycle */
    uint64_t last_fetch_line;
    uint64_t last_map;
    uint64_t reg_ready[64];
    uint64_t rob_retire[MODEL_MAX_ROB];
    uint64_t iq_int[MODEL_MAX_IQ], iq_fp[MODEL_MAX_IQ];     /* issue cycle of each entry */
    unsigned iq_int_next, iq_fp_next;
    uint64_t sb_done[MODEL_MAX_SB];     /* cycle each store-buffer entry is written */
    uint64_t sb_last;
    unsigned rob_idx, sb_idx;   /* next ROB and store-buffer entries */
    unsigned width_shift;       /* log2(width) + 1 if width is a power of two, else 0 */
    uint64_t fdiv_free;         /* the FP divider is busy until then */
    struct inorder_issue io;    /* the in-order core's issue stage (p.inorder) */
    uint64_t ras[MODEL_RAS];    /* return-address stack, top at ras_top */
    unsigned ras_top;
    struct jump_target btb[MODEL_BTB];
    struct fu_slot fu[MODEL_FU_RING];
    uint64_t seq;               /* instructions retired */
    uint64_t fetched, aborted;  /* instructions fetched (good and bad path); of those aborted */
    uint64_t last_retire;
    uint64_t events[PMU_EV_COUNT];
    /* cycle stacks (design notes above) */
    uint64_t stack[CAUSE_COUNT];        /* the core's, in CYCLE_UNIT */
    uint64_t unowned[CAUSE_COUNT];      /* shares of instructions stepped with acct NULL */
    uint64_t *group[CYCLE_MAX_RETIRE_WIDTH];    /* retired in cycle last_retire, not charged */
    unsigned ngroup;
    uint64_t *flush_owner;      /* emptied the window: gets it until the next instruction maps */
    uint8_t flush_cause;
    uint8_t reg_cause[64];      /* enum cycle_cause: why each register's value comes when it does */
    uint64_t reg_miss_done[64]; /* a miss cause's: the cycle that miss's data came (note 4) */
    unsigned nbad;              /* bad-path instructions of the last step */
    struct bad_fetch bad[MODEL_MAX_ROB];
    struct decoded dcache[MODEL_DECODE_CACHE];
};

int core_model_init(struct core_model *m, const struct model_params *p);
void core_model_free(struct core_model *m);
/* Guest memory (physical, from 0) the model may fetch bad paths from. */
void core_model_set_memory(struct core_model *m, const uint8_t *mem, uint64_t size);
/* Physical address of the instruction at pc: KSEG (pc - KSEG_BASE) or the
 * user region mapped one to one ([USER_BASE, RAM_SIZE)); false otherwise. */
bool model_translate_pc(uint64_t pc, uint64_t *phys);
/* ProfileMe context of an instruction at pc: PME_CTX_PAL for PAL mode
 * (pc & 1) and the PALcode's range, physical or through KSEG; else
 * PME_CTX_KERNEL for KSEG, PME_CTX_USER below. */
unsigned model_pc_context(uint64_t pc);
/* Runs one instruction: addr is its effective address (loads, stores),
 * next_pc the PC that followed it (branch outcome), acct its cycle stack
 * (CAUSE_COUNT counters in CYCLE_UNIT, added to; see note 5).  Afterwards
 * m->bad[0..m->nbad) holds the instructions fetched down a mispredicted
 * path after it, in fetch order. */
void core_model_step(struct core_model *m, const struct insn_static *s, uint64_t addr,
                     uint64_t next_pc, struct insn_result *r, uint64_t *acct);
/* An instruction that trapped instead of completing (e.g. a load whose
 * access faulted into PALcode): fetched, aborted with the trap bit, fetch
 * redirected to the handler; it retires later when it runs again.  Its
 * stack acct gets the cycles until the handler's first instruction maps. */
void core_model_trap(struct core_model *m, const struct insn_static *s, struct insn_result *r,
                     uint64_t *acct);
/* The end of the run: charges the open retire cycle, so the core's stacks
 * sum to exactly last_retire x CYCLE_UNIT.  No step may follow. */
void core_model_settle(struct core_model *m);

#endif
