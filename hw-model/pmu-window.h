/*
 * The hardware model's register window: the one definition the plugin,
 * the firmware and the host tools share.  One window per core at
 * PMU_WINDOW_PHYS + core * PMU_WINDOW_PER_CORE (linker/ram-map.h), in the
 * RAM file both QEMU's guest and the plugin map, so a firmware store is
 * seen by the model before the guest's next instruction and a model store
 * by the guest's next load.
 *
 * Protocol:
 *  - The plugin writes magic/version/ncounters when it loads; the firmware
 *    finds the model by the magic (absent on the plain board).
 *  - The firmware programs the counters, then bumps config_gen; the model
 *    re-reads the configuration when config_gen changes.
 *  - Each counter counts its event; after a random period drawn from
 *    [period_min, period_max] (the model's own minimal-standard generator)
 *    it overflows: the model appends a record with the exact PC of the
 *    instruction that caused the event to the ring and starts a new period.
 *    Records never depend on interrupt delivery.
 *  - The ring: the model writes entries and then head; the firmware reads
 *    entries up to head and then writes tail.  A full ring drops the record
 *    and counts it in ring_dropped.
 *  - Plain fixed-width fields only: garbage written by a buggy guest is
 *    range-checked by the model, never trusted.
 *  - The user page: the first page of each core's window is also mapped
 *    read-only for workload (user-mode) code at the same address
 *    (firmware/kernel/mmu.c), so a workload can read its core's cycles,
 *    retired, counters[N].event and counts[N] without a system call
 *    (workloads/runtime/include/alphaprof/pmu.h).  In the full model they
 *    are exact after every instruction (the one reading them excepted);
 *    in counters mode cycles and retired are brought up to date at
 *    overflows only and counts[] stay 0.
 */
#ifndef ALPHAPROF_PMU_WINDOW_H
#define ALPHAPROF_PMU_WINDOW_H

#include <stdint.h>
#include "linker/ram-map.h"

#define PMU_MAGIC           0x554d50666f727061ULL   /* "aprofPMU" */
#define PMU_VERSION         7       /* 7: ProfileMe's time draw; 6: ProfileMe's geometric draw; 5: the user page's event totals; 4: ProfileMe's retire-gap register */
#define PMU_COUNTERS        4
#define PMU_RING_ENTRIES    4096                    /* power of two */

/*
 * Events a counter can count: the one list (X-macro) the enum, the names
 * and every parser of event names (firmware/abi/event-spec.c) come from.
 * X(ENUM_SUFFIX, name, what it counts).  Append only: the numbers are in
 * the oracle file and on the profile link.
 */
#define PMU_EVENTS(X) \
    X(CYCLES,   cycles,   "modelled cycles") \
    X(RETIRED,  retired,  "instructions retired") \
    X(IMISS,    imiss,    "I-cache misses") \
    X(DMISS,    dmiss,    "D-cache misses (loads and stores)") \
    X(BRANCHMP, branchmp, "mispredicted conditional branches and jumps") \
    X(LOADS,    loads,    "loads") \
    X(STORES,   stores,   "stores") \
    X(BRANCHES, branches, "conditional branches") \
    X(L2MISS,   l2miss,   "L2 cache misses") \
    X(ITBMISS,  itbmiss,  "instruction TLB misses") \
    X(DTBMISS,  dtbmiss,  "data TLB misses (loads and stores)")

#define PMU_EVENT_ENUM_(NAME, name, what) PMU_EV_##NAME,
enum pmu_event { PMU_EVENTS(PMU_EVENT_ENUM_) PMU_EV_COUNT };
#undef PMU_EVENT_ENUM_
/* The names in event order, as initialisers of a string array. */
#define PMU_EVENT_NAME_(NAME, name, what) #name,
#define PMU_EVENT_NAMES PMU_EVENTS(PMU_EVENT_NAME_)
/* The names as one blank-separated string, for messages. */
#define PMU_EVENT_WORD_(NAME, name, what) " " #name
#define PMU_EVENT_LIST_TEXT (PMU_EVENTS(PMU_EVENT_WORD_) + 1)

/*
 * The plugin's modes (its mode= argument, a board's plugin_args or
 * alphaprof --model): the full timing model, or counters only, which
 * counts these events alone (no timing model: cycles count instructions)
 * and has no ProfileMe unit.
 */
#define PMU_MODE_FULL       "full"
#define PMU_MODE_COUNTERS   "counters"
#define PMU_COUNTERS_MODE_EVENTS \
    ((1u << PMU_EV_CYCLES) | (1u << PMU_EV_RETIRED) | (1u << PMU_EV_LOADS) | \
     (1u << PMU_EV_STORES) | (1u << PMU_EV_BRANCHES))

struct pmu_counter_config {
    uint32_t event;         /* enum pmu_event */
    uint32_t enable;        /* 0 off, 1 counting */
    uint64_t period_min;    /* events per overflow, at least PMU_MIN_PERIOD */
    uint64_t period_max;
};
#define PMU_MIN_PERIOD      1000

/* One overflow record: 32 bytes. */
struct pmu_record {
    uint64_t pc;            /* the instruction that caused the event */
    uint64_t cycle;         /* the core's modelled cycle at that point */
    uint64_t addr;          /* effective address (loads, stores), else 0 */
    uint32_t event;         /* enum pmu_event */
    uint32_t latency;       /* cycles this instruction cost */
};

/*
 * ProfileMe (seed section 4).  The model counts fetched instructions (good
 * and bad path alike) down from a random interval drawn from
 * [interval_min, interval_max]; the instruction fetched at zero is tagged.
 * In paired mode a second instruction is tagged a minor interval later,
 * uniform in 1..pair_window fetched instructions.  When every tagged
 * instruction has retired or aborted, its Profile Registers go to the
 * per-core ProfileMe ring as one record (two adjacent records for a pair,
 * written together, so a pair is never split by the ring).
 */
enum pme_event_bit {
    PME_EVB_RETIRED = 0,    /* retired; clear: aborted */
    PME_EVB_BAD_PATH,       /* fetched down a mispredicted path (aborted) */
    PME_EVB_TRAP,           /* caused a trap or exception (aborted) */
    PME_EVB_IMISS,          /* I-cache miss on its fetch */
    PME_EVB_ITBMISS,
    PME_EVB_DMISS,          /* D-cache miss (loads and stores) */
    PME_EVB_DTBMISS,
    PME_EVB_L2MISS,
    PME_EVB_LOAD,
    PME_EVB_STORE,
    PME_EVB_BRANCH,         /* conditional branch */
    PME_EVB_JUMP,           /* unconditional branch, jump, call, return */
    PME_EVB_TAKEN,          /* control transfer taken */
    PME_EVB_MISPREDICT,     /* direction or target mispredicted */
    PME_EVB_COUNT
};
/* Above the event bits, in retired records of a core that reports them
 * (0 otherwise): how many instructions retired in its retire cycle, it
 * included (1..retire width), latched when that cycle is over, as the
 * retire unit knows it.  With it the host splits a retire cycle exactly
 * (host-tools/util/pme-stacks.h note 3); the retire-gap alone cannot say
 * who retired after it in the same cycle. */
#define PME_EVENTS_GROUP_SHIFT  16
#define PME_EVENTS_GROUP_MAX    31u
#define PME_EVENTS_GROUP(events) ((events) >> PME_EVENTS_GROUP_SHIFT & PME_EVENTS_GROUP_MAX)
#define PME_EVENT_BIT_NAMES \
    "retired", "bad-path", "trap", "imiss", "itbmiss", "dmiss", "dtbmiss", "l2miss", \
    "load", "store", "branch", "jump", "taken", "mispredict"

/* The Latency Registers (seed Table 1), in cycles. */
enum pme_latency {
    PME_LAT_FETCH_MAP = 0,      /* no free registers or issue-queue slots */
    PME_LAT_MAP_DATA,           /* waiting for operands (data dependences) */
    PME_LAT_DATA_ISSUE,         /* execution-resource contention */
    PME_LAT_ISSUE_RETREADY,     /* execution latency */
    PME_LAT_RETREADY_RETIRE,    /* waiting for older instructions to retire */
    PME_LAT_LOAD_COMPLETE,      /* loads: issue to data returned, else 0 */
    PME_LAT_RETIRE_GAP,         /* retired: cycles since the previous retirement (0: in its cycle) */
    PME_LAT_COUNT
};
/* retire-gap (version 4) is a retirement counter latched when the tagged
 * instruction retires, as a timed PEBS record's retire latency: one raw
 * number, no cause, no sharing of the cycle among its retirers, a flush's
 * refetch bubble on the instruction after it.  From it and the stage
 * latencies the host estimates the time-proportional cycle stacks
 * (host-tools/util/pme-stacks.h). */
#define PME_LATENCY_NAMES \
    "fetch-map", "map-data", "data-issue", "issue-retready", "retready-retire", "load-complete", \
    "retire-gap"

#define PME_OFF             0
#define PME_SINGLE          1
#define PME_PAIRED          2
/* Or-ed into mode: the interval between samples (between pairs) is drawn
 * geometric with mean (interval_min + interval_max) / 2 instead of uniform
 * in interval_min..interval_max.  Every fetched instruction then has the
 * same chance to be the next tagged one however far the last tag is, so
 * code that runs at a fixed distance after a tag (the drain a tag sets
 * off) is sampled like any other; a uniform draw never tags the first
 * interval_min instructions after a tag.  The pair's minor interval stays
 * uniform in 1..pair_window. */
#define PME_DRAW_GEOMETRIC  0x100u
/* Or-ed into mode (with or without PME_DRAW_GEOMETRIC): time-proportional
 * selection (TIP/TEA's hardware).  The unit counts down in CYCLE_UNIT-ths
 * of a cycle (cycle-causes.h) instead of fetched instructions: the
 * interval, uniform over the units of interval_min..interval_max cycles or
 * geometric with their mean, is laid over the run's time as the model's
 * TIP rules book it (core-model.h: a retire cycle's share, the stalled
 * cycles at the head, a flush's empty window to the branch or trap that
 * caused it), and the execution owning the unit at zero is tagged, once
 * its cycles are final.  Only retired and trapped executions own cycles:
 * bad-path instructions are never tagged.  An execution owning k sample
 * points gives k consecutive identical records.  Every record carries its
 * retire group's size (PME_EVENTS_GROUP).  In paired mode the two records
 * of a "pair" are two consecutive time samples (no minor interval: the
 * pair is the board's unit of sending records whole, pme-capture.c);
 * gap and distance are still theirs.  (profileme.h, the pme_unit_time*
 * calls.) */
#define PME_DRAW_TIME       0x200u
#define PME_MODE_MASK       0xffu
#define PME_MIN_INTERVAL    64          /* fetched instructions */
#define PME_MAX_PAIR_WINDOW 65535
#define PME_RING_ENTRIES    1024        /* power of two */

/* Pair slot of a record. */
#define PME_SLOT_SINGLE     0
#define PME_SLOT_FIRST      1           /* the next record is its partner */
#define PME_SLOT_SECOND     2

struct pme_config {
    uint32_t mode;              /* PME_OFF, PME_SINGLE, PME_PAIRED; | PME_DRAW_GEOMETRIC, PME_DRAW_TIME */
    uint32_t pair_window;       /* W: minor interval uniform in 1..W */
    uint64_t interval_min;      /* fetched instructions between samples (PME_DRAW_TIME: cycles) */
    uint64_t interval_max;      /* (between pairs, in paired mode) */
};

/* One ProfileMe sample: the Profile Registers of one tagged instruction. */
struct pme_record {
    uint64_t pc;
    uint64_t addr;              /* effective address; jump target; else 0 */
    uint64_t fetch_cycle;       /* the core's modelled cycle at fetch */
    uint32_t events;            /* 1 << enum pme_event_bit; PME_EVENTS_GROUP */
    uint32_t history;           /* global branch history at fetch, newest in bit 0 */
    uint32_t lat[PME_LAT_COUNT];
    uint8_t context;            /* PME_CTX_*: mode the instruction ran in */
    uint8_t slot;               /* PME_SLOT_* */
    uint16_t gap;               /* PME_SLOT_SECOND: fetched instructions since the first */
    uint32_t distance;          /* PME_SLOT_SECOND: cycles between the two fetches */
    uint32_t reserved;          /* 0 */
};
#define PME_CTX_USER        0
#define PME_CTX_KERNEL      1
#define PME_CTX_PAL         2
#define PME_HISTORY_BITS    12

/*
 * Interrupts.  The model reports in irq_mode how it delivers them (checked
 * when the plugin loads, see hw-model/plugin/irq-delivery.c).  PMU_IRQ_NONE:
 * the firmware must drain the rings from its own tick.  PMU_IRQ_IPI: when
 * irq_threshold is non-zero and one of the core's rings holds that many
 * records, the model raises `interrupts` by one and sends the core an
 * interprocessor interrupt; the firmware tells it from a wake-up IPI by
 * interrupts != irq_ack, drains the rings and writes irq_ack = interrupts.
 * The model raises no new interrupt until then.  Delivery is at the end of
 * the current translation block; records never depend on it.
 */
#define PMU_IRQ_NONE        0
#define PMU_IRQ_IPI         1

/*
 * Multiplexing (version 3).  A counter that is given another event and
 * later its old one back should go on counting down where it stopped, as
 * an OS saves and restores a real PMU's counters: else an event rarer per
 * slice than its period never overflows.  When the model reads a new
 * configuration (config_gen changed) it first leaves, for each counter of
 * the old one, the events still to go before its overflow in
 * counter_left[i] (0: the counter was off) and then the old generation in
 * counter_left_gen.  For each enabled counter of the new configuration,
 * counter_start[i] in 1..period_max is its first countdown instead of a
 * fresh random period (0 or out of range: a fresh one).  The period
 * generator is reseeded only when seed changes, so a group that comes
 * back does not replay the same periods.
 */

struct pmu_window {
    /* written by the model */
    uint64_t magic;
    uint32_t version;
    uint32_t ncounters;
    uint64_t cycles;        /* modelled cycles of this core, updated lazily */
    uint64_t retired;
    /* written by the firmware */
    uint64_t config_gen;    /* bump after changing counters[] */
    uint64_t seed;          /* seeds the period generator at config time */
    struct pmu_counter_config counters[PMU_COUNTERS];
    /* ring: head by the model, tail by the firmware */
    volatile uint64_t ring_head;
    volatile uint64_t ring_tail;
    volatile uint64_t ring_dropped;     /* records lost to a full ring */
    uint64_t last_load_latency;         /* for a value sampler */
    uint64_t overflows;                 /* records produced (incl. dropped) */
    /* ProfileMe: pme by the firmware (bump config_gen after changing it),
     * pme_head by the model, pme_tail by the firmware */
    struct pme_config pme;
    volatile uint64_t pme_head;
    volatile uint64_t pme_tail;
    volatile uint64_t pme_dropped;      /* records lost to a full ring */
    uint64_t pme_samples;               /* records produced (incl. dropped) */
    /* interrupts */
    uint32_t irq_mode;                  /* by the model: PMU_IRQ_* */
    uint32_t irq_threshold;             /* by the firmware: 0 no interrupts */
    volatile uint64_t irq_ack;          /* by the firmware: interrupts handled */
    volatile uint64_t interrupts;       /* by the model: interrupts raised */
    /* firmware: set to a new N in 1..ORACLE_SNAPSHOT_MAX to have the model
     * write the run's oracle so far now, to the oracle path + ".N"
     * (oracle-format.h); other values are ignored */
    volatile uint64_t oracle_request;
    /* multiplexing: counter_start by the firmware, the rest by the model */
    uint64_t counter_start[PMU_COUNTERS];
    volatile uint64_t counter_left[PMU_COUNTERS];
    volatile uint64_t counter_left_gen;
    /* by the model: events counter N counted since the firmware last
     * configured the counters (0 while N is off); with cycles and retired
     * the workload-readable part (see the user page above) */
    uint64_t counts[PMU_COUNTERS];
    /* by the model (full mode; 0 in counters mode): every event this core
     * had since boot, whatever the counters count, exact after every
     * instruction like cycles (user page): what `instrument --paths
     * --metrics` reads at path boundaries.  [CYCLES] and [RETIRED] stay 0:
     * read cycles and retired. */
    uint64_t totals[PMU_EV_COUNT];
    uint8_t pad[4096 - 8 * 4 - 8 * 2 - PMU_COUNTERS * 24 - 8 * 5 - 24 - 8 * 4 - 8 * 3 - 8 -
                PMU_COUNTERS * 16 - 8 - PMU_COUNTERS * 8 - PMU_EV_COUNT * 8];
    struct pmu_record ring[PMU_RING_ENTRIES];
    struct pme_record pme_ring[PME_RING_ENTRIES];
};

_Static_assert(sizeof(struct pmu_record) == 32, "record layout");
#define PMU_TOTALS_OFF(e)   (__builtin_offsetof(struct pmu_window, totals) + 8 * (e))
_Static_assert(__builtin_offsetof(struct pmu_window, totals) + 8 * PMU_EV_COUNT <= 4096, "totals on the user page");
_Static_assert(__builtin_offsetof(struct pmu_window, ring) == 4096, "ring starts on the second page");
_Static_assert(sizeof(struct pme_record) == 72, "ProfileMe record layout");
_Static_assert(PME_EVB_COUNT <= 32 && PME_LAT_COUNT <= 16, "fit the link protocol's limits");
_Static_assert(PME_EVB_COUNT <= PME_EVENTS_GROUP_SHIFT, "the retire group sits above the event bits");
_Static_assert(sizeof(struct pmu_window) <= PMU_WINDOW_PER_CORE, "window fits its RAM slot");

#endif
