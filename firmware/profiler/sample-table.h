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
#include "firmware/abi/link-protocol.h"
#include "firmware/arch/barrier.h"
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

/* ---- the update itself, inline ----------------------------------------
 * sample_table_record's body as inline functions: the timer's lean tick
 * (profiler.c, note 4) takes it without a call, so it needs no
 * callee-saved registers and no frame of its own; sample_table_record
 * wraps it for everything else. */

_Static_assert(STF6_WAYS == 6, "stf6_push_front moves at most five entries back");

static inline void overflow_append(struct sample_area *a, const struct sample_entry *e)
{
    struct overflow_buffer *b = &a->ovf[a->st.active];
    if (b->ready) {                 /* both full: the flusher is behind */
        a->st.dropped += e->count;
        return;
    }
    b->e[b->fill] = *e;
    a->st.evicted++;
    if (++b->fill == OVERFLOW_ENTRIES) {
        wmb();                      /* entries before the flag */
        b->ready = 1;
        a->st.active ^= 1;
    }
}

/* Every policy has a bucket per line (st.nbuckets == TABLE_LINES): the
 * constant, so that the bucket's address does not wait for the state's
 * line. */
static inline uint32_t bucket_of(const struct sample_area *a, uint64_t pc, unsigned event)
{
    (void)a;
    /* the event's term in 32 bits: a constant the code builds (ldah, lda)
     * rather than loads from memory, a miss a tick */
    uint64_t h = (pc >> 2) ^ (pc >> 17) ^ (uint32_t)(event * 0x9e3779b1u);
    return (uint32_t)(h & (TABLE_LINES - 1));
}

/* Loads the lines a record of (pc, event) will touch, the bucket's and
 * the state's (the interrupt handler's first data misses), early, so that
 * their misses overlap the work before the record.  Real loads: a
 * prefetch (ldl $31) is no access at all under QEMU, and the hardware
 * model never sees it. */
static inline void sample_table_touch(const struct sample_area *a, uint64_t pc, unsigned event)
{
    uint64_t sink;
    __asm__ volatile("ldq %0, 0(%1)" : "=r"(sink) : "r"(&a->table.stf6[bucket_of(a, pc, event)]));
    __asm__ volatile("ldq %0, 0(%1)" : "=r"(sink) : "r"(&a->st));
}

/* Invariant 4: set before a bucket takes its first entry. */
static inline void mark_used(struct sample_area *a, uint32_t bucket)
{
    a->used[bucket / 64] |= (uint64_t)1 << (bucket % 64);
}

/* ---- rr4: DCPI's 4-way round robin ---------------------------------- */

static inline void record_rr4(struct sample_area *a, uint64_t pc, unsigned event)
{
    uint32_t bucket = bucket_of(a, pc, event);
    struct sample_entry *bkt = &a->table.rr4[bucket * 4];
    for (unsigned i = 0; i < 4; i++) {
        struct sample_entry *e = &bkt[i];
        if (e->pc == pc && e->event == event && e->count) {
            a->st.hits++;
            if (++e->count == UINT32_MAX) {     /* saturated: hand it over */
                overflow_append(a, e);
                e->count = 0;
            }
            return;
        }
    }
    a->st.misses++;
    mark_used(a, bucket);
    struct sample_entry fresh = {.pc = pc, .count = 1, .event = (uint16_t)event};
    for (unsigned i = 0; i < 4; i++)
        if (!bkt[i].count) {
            uint16_t rr = bkt[0].aux;
            bkt[i] = fresh;
            bkt[0].aux = rr;
            return;
        }
    uint16_t victim = bkt[0].aux % 4;
    uint16_t next = (uint16_t)((victim + 1) % 4);
    overflow_append(a, &bkt[victim]);
    bkt[victim] = fresh;
    bkt[0].aux = next;
}

/* ---- stf6: six entries per line, swap-to-front ---------------------- */

static inline unsigned stf6_code(unsigned event)
{
    return event == LK_EVENT_TIMER ? STF6_EVENT_TIMER : event;
}

static inline unsigned stf6_event_at(const struct stf6_bucket *b, unsigned i)
{
    unsigned code = (b->events >> (STF6_EVENT_BITS * i)) & ((1u << STF6_EVENT_BITS) - 1);
    return code == STF6_EVENT_TIMER ? LK_EVENT_TIMER : code;
}

static inline struct sample_entry stf6_entry(const struct stf6_bucket *b, unsigned i)
{
    return (struct sample_entry){.pc = b->pc[i], .count = b->count[i], .event = (uint16_t)stf6_event_at(b, i)};
}

/* Entries 0..n-1 move one slot back (entry n is overwritten) and
 * (pc, count, code) goes in at the front. */
static inline void stf6_push_front(struct stf6_bucket *b, unsigned n, uint64_t pc, uint16_t count, unsigned code)
{
    /* Unrolled by hand: as a loop the compiler calls memmove, and the
     * call costs the lean tick its registers (profiler.c, note 4). */
#define STF6_MOVE_BACK(i) b->pc[i] = b->pc[(i) - 1], b->count[i] = b->count[(i) - 1]
    switch (n) {
    case 5: STF6_MOVE_BACK(5); /* fall through */
    case 4: STF6_MOVE_BACK(4); /* fall through */
    case 3: STF6_MOVE_BACK(3); /* fall through */
    case 2: STF6_MOVE_BACK(2); /* fall through */
    case 1: STF6_MOVE_BACK(1); /* fall through */
    default: break;
    }
#undef STF6_MOVE_BACK
    uint32_t moved = b->events & ((1u << (STF6_EVENT_BITS * n)) - 1);          /* codes 0..n-1 */
    uint32_t kept = b->events & ~((1u << (STF6_EVENT_BITS * (n + 1))) - 1);   /* codes n+1.. */
    b->events = kept | moved << STF6_EVENT_BITS | code;
    b->pc[0] = pc;
    b->count[0] = count;
}

static inline void record_stf6(struct sample_area *a, uint64_t pc, unsigned event)
{
    unsigned code = stf6_code(event);
    if (code >= STF6_EVENT_TIMER && event != LK_EVENT_TIMER) {
        /* (no such event today) no code for it: straight to the overflow buffer */
        struct sample_entry one = {.pc = pc, .count = 1, .event = (uint16_t)event};
        a->st.misses++;
        overflow_append(a, &one);
        return;
    }
    uint32_t bucket = bucket_of(a, pc, event);
    struct stf6_bucket *b = &a->table.stf6[bucket];
    unsigned i = 0;
    for (; i < STF6_WAYS && b->count[i]; i++) {
        if (b->pc[i] != pc || ((b->events >> (STF6_EVENT_BITS * i)) & ((1u << STF6_EVENT_BITS) - 1)) != code)
            continue;
        a->st.hits++;
        uint16_t count = b->count[i];
        if (count == UINT16_MAX) {              /* full: hand it over, this sample restarts it */
            struct sample_entry full = stf6_entry(b, i);
            overflow_append(a, &full);
            count = 0;
        }
        stf6_push_front(b, i, pc, (uint16_t)(count + 1), code);
        return;
    }
    a->st.misses++;
    mark_used(a, bucket);
    if (i == STF6_WAYS) {                       /* full bucket: the last is least recently used */
        i = STF6_WAYS - 1;
        struct sample_entry last = stf6_entry(b, i);
        overflow_append(a, &last);
    }
    stf6_push_front(b, i, pc, 1, code);
}

static inline void sample_table_record_inline(struct sample_area *a, uint64_t pc, unsigned event)
{
    a->st.samples++;
    if (a->st.policy == POLICY_STF6)
        record_stf6(a, pc, event);
    else
        record_rr4(a, pc, event);
}

#endif
