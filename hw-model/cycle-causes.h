/*
 * The causes of a cycle stack: the one list (X-macro) the timing model
 * (model/core-model.c) books cycles under, the oracle file stores per PC
 * and per core (oracle-format.h), and the host tools name
 * (`alphaprof check --stacks`).
 *
 * Time is time-proportional (TIP, MICRO 2021): every modelled cycle goes
 * to exactly one instruction, or is split evenly among the instructions
 * retiring in it.  A cycle stack splits an instruction's share by why the
 * core spent it there.  Shares are integers in CYCLE_UNIT-ths of a cycle:
 * CYCLE_UNIT is divisible by every retire width up to
 * CYCLE_MAX_RETIRE_WIDTH, so a cycle split among n retirers is n equal
 * integers and nothing is lost to rounding: per core the stacks sum to
 * exactly cycles x CYCLE_UNIT.
 *
 * X(ENUM_SUFFIX, name, what).  Append only: the numbers are in the oracle.
 */
#ifndef ALPHAPROF_CYCLE_CAUSES_H
#define ALPHAPROF_CYCLE_CAUSES_H

#define CYCLE_CAUSES(X) \
    X(BASE,       base,       "retiring, and pipeline latency with no event") \
    X(ICACHE,     icache,     "empty window: fetch waited for an I-cache miss") \
    X(ITB,        itb,        "empty window: fetch waited for an ITB miss") \
    X(MISPREDICT, mispredict, "empty window after a mispredicted branch or jump (to the branch)") \
    X(TRAP,       trap,       "a trapping instruction at the head and the empty window after it") \
    X(DCACHE_L2,  dcache_l2,  "waiting for data a D-cache miss brought from the L2") \
    X(DCACHE_MEM, dcache_mem, "waiting for data a D-cache miss brought from memory") \
    X(DTB,        dtb,        "waiting for a DTB miss (own or a producer's)") \
    X(DEPENDENCY, dependency, "waiting for a producer's result (no miss on the way)") \
    X(EXECUTE,    execute,    "own multi-cycle execution (multiply, FP, divide)") \
    X(FU_BUSY,    fu_busy,    "ready, waiting for a functional unit") \
    X(QUEUE_FULL, queue_full, "empty window: map waited for the store buffer or a queue") \
    X(SERIALISE,  serialise,  "memory barriers and PAL calls") \
    X(OTHER,      other,      "none of the above")

#define CYCLE_CAUSE_ENUM_(NAME, name, what) CAUSE_##NAME,
enum cycle_cause { CYCLE_CAUSES(CYCLE_CAUSE_ENUM_) CAUSE_COUNT };
#undef CYCLE_CAUSE_ENUM_
/* The names in cause order, as initialisers of a string array. */
#define CYCLE_CAUSE_NAME_(NAME, name, what) #name,
#define CYCLE_CAUSE_NAMES CYCLE_CAUSES(CYCLE_CAUSE_NAME_)

#define CYCLE_MAX_RETIRE_WIDTH 16
#define CYCLE_UNIT 720720u      /* lcm(1..16): one cycle */

_Static_assert(CYCLE_UNIT % 11 == 0 && CYCLE_UNIT % 13 == 0 && CYCLE_UNIT % 16 == 0 &&
               CYCLE_UNIT % 9 == 0 && CYCLE_UNIT % 5 == 0 && CYCLE_UNIT % 7 == 0,
               "CYCLE_UNIT divisible by every width 1..CYCLE_MAX_RETIRE_WIDTH");
_Static_assert(CAUSE_COUNT <= 32, "causes fit a bit mask");

#endif
