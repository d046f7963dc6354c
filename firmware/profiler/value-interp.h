/*
 * The value-sampling interpreter (Burrows et al., ASPLOS 2000): at a
 * sampling interrupt, runs the next instructions of the interrupted context
 * on a copy of its registers and reports what each one computed, loaded,
 * stored or waited for.  Pure freestanding C, integer registers only (the
 * sampling path is built with -mno-fp-regs): the monitor, the host unit
 * tests and the board's differential-test workload build the same file.
 *
 * Design notes:
 *   1. Decoding is by the one instruction table (hw-model/isa/alpha-insn.def,
 *      through alpha_decode): a word the table does not know stops the run
 *      (VI_STOP_UNKNOWN).  An optional direct-mapped cache of decoded words
 *      (struct vi_decode_cache) keeps the table's linear search off the
 *      per-instruction path.
 *   2. Nothing real is written.  Registers live in struct vi_state (a copy);
 *      stores go to a small write buffer of quadwords with byte masks, and
 *      later loads read the buffer's bytes over memory's.  A full buffer
 *      stops the run.
 *   3. Memory is reached only through the caller's regions (struct
 *      vi_region): an address in no region, or in a region marked
 *      VI_REGION_DEVICE, stops the run before anything is read.  So the
 *      interpreter never touches device space and never faults.
 *   4. The run stops cleanly, with one reason (VI_STOPS below), before an
 *      instruction it cannot run without side effects or a trap: PAL calls
 *      (incl. every IPL change), PALmode instructions, integer overflow
 *      traps (/v), unaligned accesses, FP arithmetic (IEEE operations need
 *      the FPU: not in the sampling path; cvtql too, which sets the FPCR's
 *      status bits), VAX formats, locked loads and
 *      conditional stores, rc/rs/wh64/mt_fpcr, rpcc without a cycle
 *      counter, a stack pointer moved outside the stack region.
 *      The stopping instruction is neither executed nor reported.
 *   5. Every executed instruction (after the first `skip`) is reported to
 *      the caller's observer with its operands, result, effective address
 *      and load latency, in program order.
 *
 * Invariants: the state passed in is changed only by instructions that
 * completed; a stop leaves pc at the instruction that stopped the run.
 */
#ifndef FIRMWARE_PROFILER_VALUE_INTERP_H
#define FIRMWARE_PROFILER_VALUE_INTERP_H

#include <stdint.h>

#include "hw-model/isa/alpha-isa.h"

/* Why a run ended: VI_STOP(ID, "name").  DONE and END_PC are normal ends. */
#define VI_STOPS \
    VI_STOP(DONE,          "done")           /* the instruction budget ran out */ \
    VI_STOP(END_PC,        "end_pc")         /* reached the caller's end PC */ \
    VI_STOP(UNKNOWN,       "unknown_insn")   /* not in alpha-insn.def */ \
    VI_STOP(PAL,           "pal_call")       /* call_pal: system calls, IPL changes */ \
    VI_STOP(PRIVILEGED,    "privileged")     /* PALmode-only instructions */ \
    VI_STOP(OVERFLOW_TRAP, "overflow_trap")  /* a /v operation that overflows */ \
    VI_STOP(UNALIGNED,     "unaligned")      /* would take an unaligned-access trap */ \
    VI_STOP(BAD_ADDRESS,   "bad_address")    /* outside the image, heap and stack */ \
    VI_STOP(DEVICE,        "device_access")  /* device space (the PMU page) */ \
    VI_STOP(BAD_PC,        "bad_pc")         /* instruction fetch outside the regions */ \
    VI_STOP(STACK_SWITCH,  "stack_switch")   /* sp moved outside the stack region */ \
    VI_STOP(FP_ARITH,      "fp_arith")       /* IEEE/VAX arithmetic, conversions */ \
    VI_STOP(LOCKED,        "locked")         /* ldx_l / stx_c */ \
    VI_STOP(UNSUPPORTED,   "unsupported")    /* rc, rs, wh64, mt_fpcr, rpcc with no clock */ \
    VI_STOP(WRITE_BUFFER,  "write_buffer_full")

enum vi_stop {
#define VI_STOP(id, name) VI_STOP_##id,
    VI_STOPS
#undef VI_STOP
    VI_STOP_COUNT
};

const char *vi_stop_name(enum vi_stop s);

/* The interrupted context's registers: a copy the interpreter runs on. */
struct vi_state {
    uint64_t r[32];         /* r[31] is ignored (reads 0) */
    uint64_t f[32];         /* raw register bits; f[31] is ignored */
    uint64_t fpcr;
    uint64_t pc;
};

enum {
    VI_REGION_READ   = 1,   /* loads and instruction fetch */
    VI_REGION_WRITE  = 2,   /* stores (into the write buffer) */
    VI_REGION_STACK  = 4,   /* the stack: sp must stay inside it */
    VI_REGION_DEVICE = 8,   /* device space: any access stops the run */
};

/* [lo, hi) of the interpreted context's address space, at host + (va - lo). */
struct vi_region {
    uint64_t lo, hi;
    uintptr_t host;
    unsigned flags;
};

#define VI_MAX_REGIONS 6
#define VI_WRITE_BUFFER 16      /* quadwords */

struct vi_write_buffer {
    unsigned n;
    uint64_t addr[VI_WRITE_BUFFER];     /* quadword aligned */
    uint64_t data[VI_WRITE_BUFFER];
    uint8_t mask[VI_WRITE_BUFFER];      /* bytes written */
};

/* Decoded words, direct mapped: optional, owned by the caller (per core). */
#define VI_DECODE_CACHE 256
/* A hit reads one 24-byte entry (the word and a copy of its table entry):
 * in the sampling path every line touched is likely a miss. */
struct vi_decode_entry {
    struct alpha_insn_info info;        /* info.name NULL: empty */
    uint32_t word;
};
struct vi_decode_cache {
    struct vi_decode_entry e[VI_DECODE_CACHE];
};

/* What one executed instruction did (design note 5). */
struct vi_event {
    uint64_t pc;
    uint32_t word;
    uint8_t cls;            /* enum alpha_class, as executed (alpha_exec_class) */
    uint8_t has_result;     /* a register was written */
    uint8_t has_ea;         /* a memory access */
    uint8_t fp_result;      /* the result went to an FP register */
    uint64_t a, b;          /* operand values (ra/fa and rb/fb or literal) */
    uint64_t result;        /* value written (loads: the value loaded) */
    uint64_t ea;            /* effective address */
    uint64_t load_cycles;   /* the clock around a load's memory read (0 without a clock) */
};

struct vi_env {
    struct vi_region region[VI_MAX_REGIONS];
    unsigned nregions;
    uint64_t end_pc;                    /* stop when pc reaches it (0: never) */
    struct vi_decode_cache *cache;      /* or NULL */
    /* cycle counter (rpcc's value, load latencies), or NULL */
    uint64_t (*clock)(void *ctx);
    void (*observe)(void *ctx, const struct vi_event *e, const struct vi_state *s);
    void *ctx;
};

struct vi_result {
    enum vi_stop stop;
    unsigned executed;      /* instructions completed */
};

/*
 * Runs at most max_insns instructions of s from s->pc; reports those after
 * the first skip to env->observe.  wb must start empty (vi_wb_reset) and
 * holds the run's stores afterwards.
 */
struct vi_result vi_run(struct vi_state *s, const struct vi_env *env, struct vi_write_buffer *wb,
                        unsigned max_insns, unsigned skip);

static inline void vi_wb_reset(struct vi_write_buffer *wb) { wb->n = 0; }

#endif
