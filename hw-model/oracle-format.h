/*
 * The model's oracle file: the exact truth of a run, written by the plugin
 * at exit (atomically: temporary file, then rename) and read by the host
 * tools (`alphaprof check --oracle`).  A snapshot of the run so far is
 * written when the firmware asks (pmu_window.oracle_request = N): to
 * PATH.N, with snapshot = N; the monitor takes ORACLE_SNAPSHOT_START when
 * its profiler starts and ORACLE_SNAPSHOT_STOP when it stops, so the host
 * can subtract them for the truth of exactly the profiled interval.  All
 * files of one run carry the same run_id.  Little-endian, fixed layout:
 *
 *   struct oracle_header
 *   struct oracle_core    x ncores
 *   struct oracle_pc      x npcs, sorted by pc, all cores summed
 *
 * The core is out of order (model/core-model.c): instructions are fetched
 * and mapped in order, issue from the integer and FP queues when their
 * operands and a unit are ready, and retire in order from a reorder
 * buffer.  (With core=inorder, model/issue-rules.h, they issue in order
 * instead and retire a cycle after issue; the file is the same.)  Two views of time per PC:
 *  - cycles (and events[PMU_EV_CYCLES]): the retire gap, the cycles since
 *    the previous retirement, which is what a cycle counter overflowing at
 *    retirement charges (0 to the second and later retirer of a cycle; a
 *    mispredict's refetch to the branch's target).
 *  - stack[]: the exact time-proportional truth (TIP's rules, cycle by
 *    cycle: model/core-model.h) split by cause (cycle-causes.h), in
 *    CYCLE_UNIT-ths of a cycle.  A core's oracle_core.stack sums to
 *    exactly cycles x CYCLE_UNIT in the file written at exit; a snapshot
 *    taken while the core runs lacks at most its open retire cycle (so an
 *    interval's stacks sum to its cycles within one per core).  The
 *    per-PC stacks, summed, equal the cores' stacks.
 *
 * Paired-sample truth: useful_issued per PC counts, over its retired
 * executions, the other instructions that issued between its fetch and
 * its retire-ready cycle (both included); with the in-progress cycles
 * (lat_sum of the first four stages) it gives the exact wasted issue
 * slots and useful concurrency ProfileMe's pairs estimate.
 *
 * What counts as what: executions are retired instructions, per PC; an
 * instruction is aborted when it was fetched but did not retire (the wrong
 * path after a mispredict, or a load/store that faulted and runs again).
 * unop (ldq_u $31) is a no-op and other loads to $31/$f31 are prefetch
 * hints: neither is a load (no `loads` event, no cache access: QEMU gives
 * no address for them), neither can fault, both retire.  A load or store
 * retires with its access: QEMU's abandoned first attempt at a device
 * access (its I/O recompile) is neither retired nor aborted
 * (hw-model/plugin/alphaprof-core.c, R1-R4).
 */
#ifndef ALPHAPROF_ORACLE_FORMAT_H
#define ALPHAPROF_ORACLE_FORMAT_H

#include <stdint.h>
#include "hw-model/cycle-causes.h"
#include "hw-model/pmu-window.h"

#define ORACLE_MAGIC    0x4c43524f666f7270ULL   /* "prfORCL" + 'L' */
#define ORACLE_VERSION  6       /* 6: useful_issued; 5: lat_sum[] has retire-gap; 4: cycle stacks (stack[], ncauses, cycle_unit) */

#define ORACLE_SNAPSHOT_START 1     /* the monitor's profiler started */
#define ORACLE_SNAPSHOT_STOP  2     /* ... and stopped (before its final flush) */
#define ORACLE_SNAPSHOT_MAX   64    /* requests beyond are ignored: a runaway guest fills no disk */

struct oracle_header {
    uint64_t magic;
    uint32_t version;
    uint32_t ncores;
    uint64_t npcs;
    uint32_t nevents;           /* PMU_EV_COUNT */
    uint32_t snapshot;          /* 0: at exit; N: on the firmware's request N */
    uint64_t run_id;            /* the same in every file of one run */
    uint32_t ncauses;           /* CAUSE_COUNT */
    uint32_t cycle_unit;        /* CYCLE_UNIT: stack[] counts these per cycle */
};

struct oracle_core {
    uint64_t cycles;
    uint64_t instructions;
    uint64_t events[PMU_EV_COUNT];
    uint64_t overflows;         /* records produced */
    uint64_t ring_dropped;      /* of those, lost to a full ring */
    uint64_t ring_unread;       /* of those, still in the ring at exit (never drained) */
    uint64_t fetched;           /* instructions fetched, good and bad path */
    uint64_t aborted;           /* fetched but not retired (bad path, traps) */
    uint64_t pme_samples;       /* ProfileMe records produced */
    uint64_t pme_dropped;       /* of those, lost to a full ring */
    uint64_t pme_unread;        /* of those, still in the ring at exit */
    uint64_t interrupts;        /* performance interrupts raised */
    uint64_t stack[CAUSE_COUNT];        /* the core's cycle stack, in CYCLE_UNIT */
};

/* (struct oracle_core and struct oracle_pc hold only uint64_t counters,
 * apart from pc: the host subtracts snapshots field by field) */
struct oracle_pc {
    uint64_t pc;
    uint64_t executions;        /* retired */
    uint64_t cycles;            /* time-proportional cycles */
    uint64_t events[PMU_EV_COUNT];
    uint64_t aborted;           /* fetched on a bad path (or trapped) and aborted */
    uint64_t taken;             /* branch edges: taken; fall-through = executions - taken */
    uint64_t lat_sum[PME_LAT_COUNT];    /* stage latencies summed over retired executions */
    uint64_t pme_events[PME_EVB_COUNT]; /* fetches of this pc with each ProfileMe event bit */
    uint64_t stack[CAUSE_COUNT];        /* time-proportional cycles by cause, in CYCLE_UNIT */
    uint64_t useful_issued;             /* others issued while it was in progress, summed over its
                                         * retired executions (model/concurrency.h) */
};

_Static_assert(sizeof(struct oracle_header) == 48, "oracle_header: fixed layout");

/*
 * The value oracle: a section of its own, in PATH.values beside the oracle
 * file (written at exit only, with the same run_id), versioned apart from
 * the oracle above so that either can change alone.  For every load PC of
 * user code (class load, not unop or prefetch; value sampling interprets
 * user code only) of the whole run: its executions,
 * the number of distinct values it loaded, and its most frequent values
 * with exact counts, the value as the load wrote its register (ldl
 * sign-extended, lds in register format: what value sampling captures as
 * the load's result).  The plugin reads the value from guest RAM through
 * the shared memory file after the access.
 *
 *   struct oracle_values_header
 *   struct oracle_value_pc     x npcs, sorted by pc, all cores summed
 *
 * `untracked` counts executions whose value the plugin could not keep
 * (its table of (PC, value) pairs was full): then the top values are
 * exact among the rest only, and the host says so.
 */
#define ORACLE_VALUES_MAGIC   0x534c4156524f7270ULL  /* "prORVALS" */
#define ORACLE_VALUES_VERSION 1
#define ORACLE_VALUES_TOP     16

struct oracle_values_header {
    uint64_t magic;
    uint32_t version;
    uint32_t top;               /* ORACLE_VALUES_TOP */
    uint64_t npcs;
    uint64_t run_id;
};

struct oracle_value_pc {
    uint64_t pc;
    uint64_t loads;             /* executions */
    uint64_t distinct;          /* distinct values loaded (tracked ones) */
    uint64_t untracked;         /* executions whose value was not kept */
    uint64_t value[ORACLE_VALUES_TOP];  /* by count, descending; count 0: unused */
    uint64_t count[ORACLE_VALUES_TOP];
};

_Static_assert(sizeof(struct oracle_values_header) == 32, "oracle_values_header: fixed layout");

#endif
