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

/*
 * The sample-path oracle: a section of its own, in PATH.pmepaths beside
 * the oracle file (written at exit only, with the same run_id), versioned
 * apart.  For every ProfileMe-tagged instruction that retired (good path
 * only: a bad-path sample's history is speculative), the exact control
 * flow that led to it on its core, newest first: the last
 * ORACLE_PMEPATH_DEPTH retired instructions that were conditional
 * branches, other control transfers, or whose successor was not the next
 * word (an interrupt, a trap, PALcode), each as its PC with the kind in
 * bits 0-1 (PCs are word-aligned):
 *   0 conditional branch, fall-through     1 conditional branch, taken
 *   2 br, bsr, jmp, jsr, ret (taken)       3 any other discontinuity
 * history is the sample's global branch history (pmu-window.h): bit i is
 * the direction of the i-th newest conditional branch in trans[], as long
 * as both reach.  A DB's paired sample is found here by (core, pc,
 * history) and, for the pair, fetch_cycle (pairs.distance = the second's
 * fetch_cycle minus the first's).  `lost` counts tagged retired
 * instructions not logged (a core's log full).
 *
 *   struct oracle_pmepath_header
 *   struct oracle_pmepath_sample   x nsamples, per core in fetch order
 */
#define ORACLE_PMEPATH_MAGIC   0x48544150524f7270ULL  /* "prORPATH" */
#define ORACLE_PMEPATH_VERSION 1
#define ORACLE_PMEPATH_DEPTH   32
#define ORACLE_PMEPATH_KIND(t) ((unsigned)(t) & 3u)
#define ORACLE_PMEPATH_PC(t)   ((t) & ~(uint64_t)3)
enum oracle_pmepath_kind { PMEPATH_FALL, PMEPATH_TAKEN, PMEPATH_JUMP, PMEPATH_OTHER };

struct oracle_pmepath_header {
    uint64_t magic;
    uint32_t version;
    uint32_t depth;             /* ORACLE_PMEPATH_DEPTH */
    uint64_t nsamples;
    uint64_t run_id;
    uint64_t lost;
};

struct oracle_pmepath_sample {
    uint64_t pc;
    uint64_t fetch_cycle;
    uint32_t core;
    uint32_t history;
    uint32_t ntrans;            /* valid entries of trans[] (fewer early in a run) */
    uint32_t pad;
    uint64_t trans[ORACLE_PMEPATH_DEPTH];
};

_Static_assert(sizeof(struct oracle_pmepath_header) == 40, "oracle_pmepath_header: fixed layout");
_Static_assert(sizeof(struct oracle_pmepath_sample) == 32 + 8 * ORACLE_PMEPATH_DEPTH,
               "oracle_pmepath_sample: fixed layout");

/*
 * Ball-Larus path counts (util/ball-larus.h: the one numbering).  Before a
 * run with oracle=PATH the host writes PATH.plan from each workload image
 * (util/path-plan.c): per procedure its Ball-Larus numbering as actions on
 * edges, an edge named by the PC of its source block's last instruction
 * and the first PC of its target (0: EXIT).  The plugin reads the plan at
 * load, follows every retired instruction of planned code with a shadow
 * stack of path registers per core (calls do not end a caller's path; a
 * callee's paths are its own), and writes every procedure's path counts
 * of the whole run to PATH.blpaths at exit (hw-model/plugin/bl-oracle.c).
 * Instructions outside the plan (the monitor, PALcode, interrupts) are not
 * followed and leave the workload's path registers alone.  Procedures
 * whose status is not BL_OK-or-BL_TOO_MANY (an indirect jump; numbers
 * beyond 64 bits) are not counted; `unknown` counts transitions of
 * planned code the plan has no edge for (the activation is then not
 * counted until it returns), `lost` the paths a full table could not keep
 * and those left open when calls nest deeper than the model follows (256
 * frames: it starts again from the call that went past).
 *
 * Per path, besides its count, the exact deltas of the core's counters
 * over its executions (version 2): metric[PMU_EV_CYCLES] the PMU page's
 * cycles, [PMU_EV_RETIRED] its retired, every other event its totals[]
 * (pmu-window.h), each from the path's start to its end as the model
 * follows it: a path that begins at the procedure's entry starts after
 * the last planned instruction before its first one retired (the call),
 * one after a backedge where that backedge's ended (so a loop's paths
 * tile), and every path ends when its last instruction (a return, a
 * backedge, an exit) retired.  Everything the core ran in between counts:
 * callees, interrupts, and in an instrumented image its trampolines.
 *   PATH.plan:     struct oracle_plan_header, struct oracle_plan_proc x
 *                  nprocs (by start), struct oracle_plan_edge x nedges
 *                  (each procedure's contiguous, by from then to)
 *   PATH.blpaths:  struct oracle_blpaths_header, struct oracle_blpath x n
 *                  (by proc, then path)
 */
/* action: as enum bl_action_kind; cfg_kind: as enum calc_edge_kind
 * (util/path-plan.c asserts both) */
#define ORACLE_PLAN_ACT_ADD       0
#define ORACLE_PLAN_ACT_ENTRY     1
#define ORACLE_PLAN_ACT_EXIT      2
#define ORACLE_PLAN_ACT_BACKEDGE  3
#define ORACLE_PLAN_EDGE_FALL     0
#define ORACLE_PLAN_EDGE_TAKEN    1
#define ORACLE_PLAN_EDGE_CALL_RETURN 2
#define ORACLE_PLAN_EDGE_ENTRY    3
#define ORACLE_PLAN_OK            0     /* status: as enum bl_status (BL_OK, BL_INDIRECT, BL_TOO_MANY, BL_OVERFLOW) */
#define ORACLE_PLAN_TOO_MANY      2
#define ORACLE_PLAN_MAGIC      0x4e414c50524f7270ULL  /* "prORPLAN" */
#define ORACLE_PLAN_VERSION    2
/* from_flow: what the source instruction is in the image as built.  An
 * image instrumented with --paths has some replaced by branches to its
 * trampolines (path-region.h); the plan numbers the original instructions
 * (the image's patch table) and says which were calls and returns, so the
 * model follows the instrumented run along the original's paths.  An
 * image instrumented with --cct or --both patches every call, in
 * procedures the plan does not count too: a patched call or return no
 * counted edge names gets an edge of its own that does nothing but say
 * so (util/path-plan.c), so the model's frames follow every call. */
#define ORACLE_PLAN_FLOW_OTHER   0
#define ORACLE_PLAN_FLOW_CALL    1
#define ORACLE_PLAN_FLOW_RETURN  2
#define ORACLE_BLPATHS_MAGIC   0x48544150424c7270ULL  /* "prBLPATH" */
#define ORACLE_BLPATHS_VERSION 2      /* 2: per-path counter deltas */

struct oracle_plan_header {
    uint64_t magic;
    uint32_t version;
    uint32_t nprocs;
    uint64_t nedges;
};

struct oracle_plan_proc {
    uint64_t start, end;        /* [start, end) */
    uint64_t npaths;
    uint32_t status;            /* enum bl_status */
    uint32_t nedges;
    uint64_t first_edge;
};

struct oracle_plan_edge {
    uint64_t from;              /* last PC of the source block; ENTRY's edge: 0 */
    uint64_t to;                /* first PC of the target block; 0: EXIT */
    uint32_t action;            /* enum bl_action_kind */
    uint16_t cfg_kind;          /* enum calc_edge_kind */
    uint16_t from_flow;         /* the source instruction: ORACLE_PLAN_FLOW_* */
    int64_t add, reset;
};

struct oracle_blpaths_header {
    uint64_t magic;
    uint32_t version;
    uint32_t pad;
    uint64_t n;
    uint64_t run_id;
    uint64_t unknown;
    uint64_t lost;
};

struct oracle_blpath {
    uint64_t proc;              /* the procedure's start */
    uint64_t path;              /* its Ball-Larus number */
    uint64_t count;
    uint64_t metric[PMU_EV_COUNT];      /* summed deltas over its executions (above) */
};

_Static_assert(sizeof(struct oracle_plan_header) == 24, "oracle_plan_header: fixed layout");
_Static_assert(sizeof(struct oracle_plan_proc) == 40, "oracle_plan_proc: fixed layout");
_Static_assert(sizeof(struct oracle_plan_edge) == 40, "oracle_plan_edge: fixed layout");
_Static_assert(sizeof(struct oracle_blpaths_header) == 48, "oracle_blpaths_header: fixed layout");
_Static_assert(sizeof(struct oracle_blpath) == 24 + 8 * PMU_EV_COUNT, "oracle_blpath: fixed layout");

/*
 * The calling-context oracle: a section of its own, PATH.cct beside the
 * oracle file (written at exit only, same run_id), versioned apart.  The
 * exact calling context tree of every core's user-mode execution, built
 * from the instructions the core retired, independent of any
 * instrumentation's own records:
 *  - a call is a retired bsr or jsr that links through $26 (ra) whose
 *    target is not the next instruction (bsr $26, .+4 reads the PC); its
 *    site is its PC, its callee the first user-mode instruction retired
 *    after it, taken back 8 bytes when the two words before it are
 *    `ldah $29, x($27); lda $29, y($29)` (the no-gp entry of a procedure);
 *  - a return is a retired `ret`: the frames up to the newest one whose
 *    return address (site + 4) is the next user-mode PC are popped; with
 *    none matching (longjmp, setjmp's second return) the stack goes back
 *    to its depth and record when the last call with that return address
 *    was made (nothing, if that was never or is not below);
 *  - contexts: one record per (parent record, site, callee); a callee
 *    already on the record's ancestor chain (itself included) folds onto
 *    that ancestor's record (firmware/abi/cct-region.h note 3).
 * Record 0 of every core is its root (no callee, its own parent).  calls
 * counts the calls that entered the record.  An instrumented image's
 * trampolines make the calls from their own PCs: `check --cct` maps them
 * back to the original sites with the image's site table.
 *
 * Per record, besides its calls, its inclusive metrics (version 2): the
 * PMU page's cycles and retired (pmu-window.h, the counters `instrument
 * --cct --metrics` reads) summed over the record's activations, each
 * from the counts after its call instruction retired to those after the
 * `ret` that returned from it retired; only an outermost activation
 * counts (a return whose record has no other frame on the stack; folded
 * recursion is inside it), as the instrumentation counts (cct-region.h
 * note 4), and a frame a longjmp abandons adds nothing.  Everything the
 * core ran in between counts: the callee, its callees, interrupts and, in
 * an instrumented image, the trampolines of the calls under it.  The
 * instrumentation's own reads differ by where its trampoline reads the
 * page: before its call instruction (its last few instructions before
 * the call count on the board, not here) and after the return (the few
 * after the `ret` up to the read likewise), so an exact instrumentation
 * exceeds this truth by about that many instructions and their cycles a
 * metered call: `check --cct` reports it as the bias per call beside
 * cct_metric_error (util/cct-accuracy.h).  A call the board does not
 * meter (made with its shadow stack full, cct-region.h note 5) is still
 * metered here, and shows in the error.
 *
 *   struct oracle_cct_header
 *   struct oracle_cct_record x nrecords, sorted by (core, id)
 */
#define ORACLE_CCT_MAGIC      0x54434352524f7270ULL  /* "prORRCCT" */
#define ORACLE_CCT_VERSION    2      /* 2: inclusive cycles and retired per record */

struct oracle_cct_header {
    uint64_t magic;
    uint32_t version;
    uint32_t ncores;
    uint64_t nrecords;
    uint64_t run_id;
};

struct oracle_cct_record {
    uint32_t core;
    uint32_t reserved;
    uint64_t id;
    uint64_t parent;            /* id on the same core */
    uint64_t callee;            /* procedure entry; 0 for the root */
    uint64_t site;              /* call instruction's PC; 0 for the root */
    uint64_t calls;
    uint64_t cycles, retired;   /* inclusive, outermost activations (above); 0 for the root */
};

/*
 * Paths per calling context: a section of its own, PATH.cctpaths beside
 * the oracle (written at exit with PATH.blpaths, same run_id), when both
 * the path plan and the calling-context oracle run.  Every path the
 * Ball-Larus oracle counts, counted again under the calling-context
 * oracle's current record of its core where the path's last instruction
 * retired (a callee's exit path: the callee's record, before its return
 * is resolved; a caller's path that its call edge ends: the caller's, as
 * after the return), the view of `instrument --both` (firmware/abi/
 * cct-region.h notes 12-13): a procedure reached by a tail call runs
 * under the record of the one it replaced; recursion folds.  Each with
 * its metrics there (version 2): the same deltas over the path's own
 * window as PATH.blpaths' (above), summed over the executions counted in
 * that context, so a path's metrics over its contexts add up to its
 * PATH.blpaths ones (`instrument --both --metrics`' truth, cct-region.h
 * note 16).
 *   struct oracle_cctpaths_header, struct oracle_cctpath x n, sorted by
 *   (core, record, proc, path)
 */
#define ORACLE_CCTPATHS_MAGIC  0x48544150544343ULL   /* "CCTPATH\0" */
#define ORACLE_CCTPATHS_VERSION 2      /* 2: metric[] per context path */

struct oracle_cctpaths_header {
    uint64_t magic;
    uint32_t version;
    uint32_t pad;
    uint64_t n;
    uint64_t run_id;
};

struct oracle_cctpath {
    uint32_t core;
    uint32_t pad;
    uint64_t record;            /* PATH.cct's id on that core */
    uint64_t proc;              /* the procedure's start */
    uint64_t path;              /* its Ball-Larus number */
    uint64_t count;
    uint64_t metric[PMU_EV_COUNT];      /* summed deltas over its executions in this context (above) */
};

_Static_assert(sizeof(struct oracle_cctpaths_header) == 32, "oracle_cctpaths_header: fixed layout");
_Static_assert(sizeof(struct oracle_cctpath) == 40 + 8 * PMU_EV_COUNT, "oracle_cctpath: fixed layout");

_Static_assert(sizeof(struct oracle_cct_header) == 32, "oracle_cct_header: fixed layout");
_Static_assert(sizeof(struct oracle_cct_record) == 64, "oracle_cct_record: fixed layout");

#endif
