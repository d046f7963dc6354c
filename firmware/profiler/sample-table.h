/*
 * DCPI's per-core sample aggregation (DCPI paper, section 4.2): a hash table
 * of (PC, event) -> count with 16-byte entries, a bucket per 64-byte cache
 * line, and a pair of overflow buffers that receive evicted entries.  The
 * interrupt handler of a core touches only that core's area: no locks, no
 * memory barriers on the hit path.  The flusher (boot core) drains full
 * overflow buffers; a core empties its own hash table when asked.
 *
 * Two replacement policies, chosen at start: DCPI's 4-way bucket with
 * round-robin eviction, and its proposed 6-way bucket with swap-to-front
 * (a hit moves one step toward the front, a miss evicts the last entry).
 * The benchmark measures both (hit rate and handler cycles).
 */
#ifndef FIRMWARE_PROFILER_SAMPLE_TABLE_H
#define FIRMWARE_PROFILER_SAMPLE_TABLE_H

#include <stdint.h>
#include "linker/ram-map.h"

struct sample_entry {
    uint64_t pc;
    uint32_t count;             /* 0: free */
    uint16_t event;
    uint16_t aux;               /* entry 0 of a round-robin bucket: next victim */
};

_Static_assert(sizeof(struct sample_entry) == 16, "DCPI's 16-byte entries");

enum table_policy { POLICY_RR4 = 0, POLICY_STF6 = 1 };

#define TABLE_ENTRIES       16384
#define OVERFLOW_ENTRIES    8192

struct overflow_buffer {
    volatile uint32_t fill;     /* entries written (owner core only) */
    volatile uint32_t ready;    /* 1: full or flushed, waiting for the flusher */
    uint32_t pad[14];
    struct sample_entry e[OVERFLOW_ENTRIES];
};

/* The 64-byte per-core state block (DCPI's per-CPU state). */
struct table_state {
    uint64_t samples;           /* samples recorded */
    uint64_t hits, misses;
    uint64_t dropped;           /* both overflow buffers full: entries lost */
    uint32_t active;            /* overflow buffer being filled */
    uint32_t policy;
    uint32_t ways;
    uint32_t nbuckets;
    volatile uint32_t flush_request;   /* set by the flusher: empty the table */
    volatile uint32_t flush_done;      /* generation of the last finished flush */
    uint64_t evicted;           /* entries moved to overflow buffers */
};

_Static_assert(sizeof(struct table_state) == 64, "one cache line of state");

struct sample_area {
    struct table_state st;
    uint8_t pad[64];
    struct sample_entry table[TABLE_ENTRIES] __attribute__((aligned(64)));
    struct overflow_buffer ovf[2] __attribute__((aligned(64)));
};

/* The per-core area lives in the profiler's fixed RAM (linker/ram-map.h);
 * the rest of each core's 1 MiB holds ProfileMe aggregates and pairs. */
#define SAMPLE_AREA_SIZE    (sizeof(struct sample_area))

static inline struct sample_area *sample_area_of(unsigned core)
{
    return (struct sample_area *)(KSEG_BASE + PROFILER_PHYS + (uint64_t)core * PROFILER_PER_CORE);
}

/* Empties the area and sets its replacement policy. */
void sample_table_init(struct sample_area *a, enum table_policy policy);
/* Interrupt context on `core`: count one sample of (pc, event). */
void sample_table_record(struct sample_area *a, uint64_t pc, unsigned event);
/* Moves every entry of the table to the overflow buffers (owner core);
 * calls wait() while both are full (the boot core drains there, the others
 * just spin).  Returns entries moved. */
uint32_t sample_table_flush(struct sample_area *a, void (*wait)(void));

#endif
