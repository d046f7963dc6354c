/*
 * The table's update, sample_table_record's body (sample-table.h has the
 * layouts and the invariants), as inline functions: the timer's lean tick
 * (profiler.c) takes it without a call, so it needs no callee-saved
 * registers and no frame of its own; sample-table.c wraps it for
 * everything else.
 */
#ifndef FIRMWARE_PROFILER_SAMPLE_TABLE_RECORD_H
#define FIRMWARE_PROFILER_SAMPLE_TABLE_RECORD_H

#include "firmware/abi/link-protocol.h"
#include "firmware/arch/barrier.h"
#include "firmware/profiler/sample-table.h"

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
