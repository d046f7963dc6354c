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
 */
#ifndef ALPHAPROF_PMU_WINDOW_H
#define ALPHAPROF_PMU_WINDOW_H

#include <stdint.h>
#include "linker/ram-map.h"

#define PMU_MAGIC           0x554d50666f727061ULL   /* "aprofPMU" */
#define PMU_VERSION         1
#define PMU_COUNTERS        4
#define PMU_RING_ENTRIES    4096                    /* power of two */

/* Events a counter can count.  PMU_EVENT_NAMES gives their names, in order. */
enum pmu_event {
    PMU_EV_CYCLES = 0,      /* modelled cycles */
    PMU_EV_RETIRED,         /* instructions retired */
    PMU_EV_IMISS,           /* I-cache misses */
    PMU_EV_DMISS,           /* D-cache misses (loads and stores) */
    PMU_EV_BRANCHMP,        /* mispredicted conditional branches and jumps */
    PMU_EV_LOADS,
    PMU_EV_STORES,
    PMU_EV_BRANCHES,        /* conditional branches */
    PMU_EV_L2MISS,
    PMU_EV_COUNT
};
#define PMU_EVENT_NAMES \
    "cycles", "retired", "imiss", "dmiss", "branchmp", "loads", "stores", "branches", "l2miss"

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
    uint8_t pad[4096 - 8 * 4 - 8 * 2 - PMU_COUNTERS * 24 - 8 * 5];
    struct pmu_record ring[PMU_RING_ENTRIES];
};

_Static_assert(sizeof(struct pmu_record) == 32, "record layout");
_Static_assert(__builtin_offsetof(struct pmu_window, ring) == 4096, "ring starts on the second page");
_Static_assert(sizeof(struct pmu_window) <= PMU_WINDOW_PER_CORE, "window fits its RAM slot");

#endif
