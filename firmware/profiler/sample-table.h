/*
 * DCPI's per-core sample aggregation (DCPI paper, section 4.2): a hash table
 * of (PC, event) -> count, a bucket per 64-byte cache line, and a pair of
 * overflow buffers that receive evicted entries (16-byte entries).  The
 * interrupt handler of a core touches only that core's area: no locks, no
 * memory barriers on the hit path.  The flusher (boot core) drains full
 * overflow buffers; a core empties its own hash table when asked.
 *
 * Two replacement policies over the same 256 KiB of table, chosen at start:
 *  rr4  DCPI's own: 4 entries of 16 bytes per line, round-robin eviction
 *       (16384 entries);
 *  stf6 what the paper's section 5.4 proposes: 6 entries packed into each
 *       line (PCs, 16-bit counts, 5-bit event codes; no bucket straddles a
 *       line, every line is used: 24576 entries), swap-to-front (a hit
 *       moves its entry to the front, a new entry goes in at the front and
 *       the last one, the least recently used, is evicted).
 * The benchmark (tests/bench/bench_profiler.py) measures both.
 *
 * Invariants:
 *  1. An entry with count 0 is free; a bucket's live entries are distinct
 *     (pc, event) keys; in an stf6 bucket the live entries come first.
 *  2. Every sample is in exactly one place: a live entry's count, an
 *     overflow buffer entry, or st.dropped (both buffers full).  A full
 *     count is handed over whole (rr4: when it reaches UINT32_MAX; stf6:
 *     when the next sample would pass 65535, which then counts 1).
 *  3. ovf[i].ready == 1 means the owner will not touch ovf[i] until the
 *     flusher has sent it and cleared ready (and fill).
 *  4. A bucket holding a live entry has its bit set in `used` (set when
 *     an entry goes in); a bucket whose bit is clear holds none.  A flush
 *     visits only the buckets whose bits are set and clears them:
 *     sweeping the whole 256 KiB every drain cost a timer sample about a
 *     tenth of its cycles, half of it in the workload's evicted lines.
 *  5. Outside the used buckets the table is all zero (either layout reads
 *     that as free entries), so init clears only the used ones: clearing
 *     the whole area at start cost a long run's timer tick another tenth.
 *     It holds of zeroed memory (the board's RAM at reset,
 *     BOARD_RAM_ZERO_AT_RESET; the unit tests' zeroed allocations), and
 *     every flush and init keeps it.  Never give init other memory.
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

#define STF6_WAYS           6
#define STF6_EVENT_BITS     5   /* per entry, in stf6_bucket.events */
#define STF6_EVENT_TIMER    31  /* the code of LK_EVENT_TIMER; hw-model events are 0..30 */

/* Six entries in one cache line: entry i is (pc[i], count[i], event code
 * bits 5i..5i+4 of events). */
struct stf6_bucket {
    uint64_t pc[STF6_WAYS];
    uint16_t count[STF6_WAYS];  /* 0: free */
    uint32_t events;
};

_Static_assert(sizeof(struct stf6_bucket) == 64, "an stf6 bucket is one 64-byte cache line");
_Static_assert(STF6_WAYS * STF6_EVENT_BITS <= 32, "the event codes fit their word");

enum table_policy { POLICY_RR4 = 0, POLICY_STF6 = 1 };

#define TABLE_BYTES         (256 * 1024)
#define TABLE_LINES         (TABLE_BYTES / 64)
#define TABLE_ENTRIES       (TABLE_BYTES / (int)sizeof(struct sample_entry))   /* rr4 */
#define OVERFLOW_ENTRIES    8192

_Static_assert((TABLE_LINES & (TABLE_LINES - 1)) == 0, "a power of two of buckets: the hash masks");

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
    uint64_t dropped;           /* both overflow buffers full: samples lost (counted) */
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
    uint64_t used[TABLE_LINES / 64];    /* invariant 4: a bit per bucket */
    union {                     /* one 256 KiB table, laid out by the policy */
        struct sample_entry rr4[TABLE_ENTRIES];
        struct stf6_bucket stf6[TABLE_LINES];
    } table __attribute__((aligned(64)));
    struct overflow_buffer ovf[2] __attribute__((aligned(64)));
};

/* The per-core area lives in the profiler's fixed RAM (linker/ram-map.h);
 * the rest of each core's 1 MiB holds ProfileMe aggregates and pairs. */
#define SAMPLE_AREA_SIZE    (sizeof(struct sample_area))

static inline struct sample_area *sample_area_of(unsigned core)
{
    return (struct sample_area *)(KSEG_BASE + PROFILER_PHYS + (uint64_t)core * PROFILER_PER_CORE);
}

/* Empties the area and sets its replacement policy (the unit tests use
 * the host's memory: zeroed, invariant 5). */
void sample_table_init(struct sample_area *a, enum table_policy policy);
/* Interrupt context on `core`: count one sample of (pc, event). */
void sample_table_record(struct sample_area *a, uint64_t pc, unsigned event);
/* Entries the table holds under its policy (rr4 16384, stf6 24576). */
uint32_t sample_table_capacity(const struct sample_area *a);
/* Moves every entry of the table to the overflow buffers (owner core);
 * calls wait() while both are full (the boot core drains there, the others
 * just spin).  Returns entries moved. */
uint32_t sample_table_flush(struct sample_area *a, void (*wait)(void));

#endif
