/*
 * The core's parameters and issue rules, defined once: the timing model
 * (core-model.c) runs by them and the host's static scheduler
 * (host-tools/util/calc-schedule.c, `alphaprof calc`) schedules by them,
 * so a block's minimal cycles M_i are the model's own.  Pure C, no state
 * beyond what the caller passes.
 *
 * Two cores (model_params.inorder):
 *  - out of order, close to the 21264 (model_params_default);
 *  - in order, close to the 21164 (model_params_inorder): up to `width`
 *    instructions a cycle issue in program order, an issue group takes at
 *    most one instruction per pipe (E0, E1 integer; FA, FM floating point)
 *    and never crosses an aligned block of `width` instructions nor
 *    follows a taken branch into the same cycle (slotting); an instruction
 *    waits at issue for its operands (loads do not block: their consumer
 *    waits) and holds everything behind it.
 *
 * Pipes on the in-order core (after the 21164's):
 *   E0  integer operate, shifts and byte manipulation, multiply, loads,
 *       stores, barriers and miscellany
 *   E1  integer operate, loads, branches and jumps
 *   FA  FP add, divide, square root, moves, FP branches
 *   FM  FP multiply
 * An instruction takes the first free pipe it may use in that order; so
 * two stores, or two shifts, never issue together.  Barriers and PAL calls
 * issue alone and hold issue for their latency.  The FP divider is not
 * pipelined.
 *
 * Invariants: inorder_issue returns a cycle >= ready and >= the previous
 * instruction's issue cycle; at most `width` instructions and one per pipe
 * share a cycle.
 */
#ifndef HW_MODEL_ISSUE_RULES_H
#define HW_MODEL_ISSUE_RULES_H

#include <stdbool.h>
#include <stdint.h>

struct model_params {
    unsigned inorder;           /* 0: out-of-order core; 1: in-order (21164-like) */
    unsigned width;             /* fetch and map (in order: issue) per cycle */
    unsigned retire_width;      /* retire per cycle (<= CYCLE_MAX_RETIRE_WIDTH) */
    unsigned rob;               /* reorder buffer entries (<= MODEL_MAX_ROB) */
    unsigned iq_int, iq_fp;     /* issue-queue entries (<= MODEL_MAX_IQ) */
    unsigned store_buffer;      /* store-buffer entries (<= MODEL_MAX_SB) */
    unsigned int_pipes, mul_pipes, mem_pipes, fp_pipes;
    unsigned l1i_kb, l1d_kb, l1_ways, line;
    unsigned l2_kb, l2_ways;
    unsigned tlb_entries;       /* ITB and DTB, 8 KiB pages */
    unsigned l1_latency, l2_latency, memory_latency, tlb_miss_latency;
    unsigned mispredict_penalty;
    unsigned imul_latency, fadd_latency, fdiv_s_latency, fdiv_t_latency,
             fsqrt_s_latency, fsqrt_t_latency;
};

/* What the model needs of an instruction, decoded once at translation. */
struct insn_static {
    uint64_t pc;
    uint32_t word;
    uint8_t cls;                /* enum alpha_class */
    uint8_t src[2];             /* registers read: 0-31 integer, 32-63 FP */
    uint8_t dst;                /* register written, or REG_NONE */
};

#define REG_NONE 0xff

/* Stages in front of issue (core-model.c: map = fetch + 1, ready = map +
 * 1): after a redirect (a mispredict, a trap) the right path's first
 * instruction issues this many cycles after its fetch, which starts
 * mispredict_penalty cycles after the branch completes.  So a mispredict
 * costs the target penalty + MODEL_REFILL_CYCLES cycles more than issuing
 * behind the branch: penalty of empty window (the branch's, TIP), then
 * its own map and issue cycles. */
#define MODEL_REFILL_CYCLES 2

/* The out-of-order core's parameters (21264-like). */
void model_params_default(struct model_params *p);
/* The in-order core's parameters (21164-like). */
void model_params_inorder(struct model_params *p);
/* core=ooo|inorder: replaces *p with that core's defaults; false for
 * another name. */
bool model_params_core(struct model_params *p, const char *core);
/* Sets one parameter by its name (the plugin's key=value arguments, a
 * board's plugin_args); false for an unknown name or a value that is not
 * 1..2^20.  `core` is not one of them (model_params_core). */
bool model_params_set(struct model_params *p, const char *key, const char *val);

/* Decodes word at pc into what the model needs. */
void insn_static_decode(struct insn_static *s, uint64_t pc, uint32_t word);

/* Issue to result latency of a class with no miss (a load: an L1 hit). */
uint32_t model_class_latency(const struct model_params *p, unsigned cls);
/* Does the class serialise the in-order core (barriers, PAL calls)? */
bool model_class_serialises(unsigned cls);
bool model_class_fdiv(unsigned cls);

/* In-order pipes. */
enum { PIPE_E0 = 1, PIPE_E1 = 2, PIPE_FA = 4, PIPE_FM = 8, PIPE_ALL = 15 };
unsigned inorder_pipes(const struct insn_static *s);

/* Why an instruction issued later than its operands allowed. */
enum issue_wait {
    ISSUE_READY,        /* at once */
    ISSUE_ORDER,        /* behind an older instruction (in order) */
    ISSUE_SLOT,         /* the group was full, crossed a block or followed a taken branch */
    ISSUE_PIPE,         /* its pipe was taken in the group */
    ISSUE_DIVIDER,      /* the FP divider was busy */
    ISSUE_SERIAL,       /* a barrier or PAL call held issue */
};

/* The issue stage of the in-order core. */
struct inorder_issue {
    uint64_t cycle;             /* cycle of the last issue group (0: none yet) */
    uint64_t block;             /* its aligned block of `width` instructions */
    uint64_t fdiv_free;         /* the divider is busy until then */
    uint8_t used;               /* pipes taken in it */
    uint8_t n;                  /* instructions in it */
    bool after_taken;           /* the last instruction was a taken control transfer */
};

/*
 * Issues s, whose operands are ready at `ready`, on the in-order core: the
 * cycle (see the invariants), and in *why the reason it is later than
 * ready (may be NULL).  Call inorder_taken() after a taken control
 * transfer.
 */
uint64_t inorder_issue(struct inorder_issue *st, const struct model_params *p, const struct insn_static *s,
                       uint64_t ready, enum issue_wait *why);
static inline void inorder_taken(struct inorder_issue *st, bool taken)
{
    st->after_taken = taken;
}

#endif
