/*
 * Hash table and overflow buffers (see sample-table.h for the layouts, the
 * two policies and the invariants).  Pure C but for barrier.h, so the unit
 * tests build the same file for the host.
 */
#include "firmware/profiler/sample-table.h"

#include <string.h>
#include "firmware/abi/link-protocol.h"
#include "firmware/arch/barrier.h"

_Static_assert(sizeof(struct sample_area) <= PROFILER_PER_CORE, "sample area fits the core's profiler RAM");
_Static_assert(sizeof(((struct sample_area *)0)->table) == TABLE_BYTES, "both layouts fill the same table");
_Static_assert(LK_EVENT_TIMER > STF6_EVENT_TIMER, "timer samples need their own stf6 code");

void sample_table_init(struct sample_area *a, enum table_policy policy)
{
    memset(a, 0, sizeof *a);
    a->st.policy = policy;
    a->st.ways = policy == POLICY_STF6 ? STF6_WAYS : 4;
    a->st.nbuckets = TABLE_LINES;       /* one bucket per line, every line used */
    mb();
}

static void overflow_append(struct sample_area *a, const struct sample_entry *e)
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

static inline uint32_t bucket_of(const struct sample_area *a, uint64_t pc, unsigned event)
{
    uint64_t h = (pc >> 2) ^ (pc >> 17) ^ ((uint64_t)event * 0x9e3779b1u);
    return (uint32_t)(h & (a->st.nbuckets - 1));
}

/* Invariant 4: set before a bucket takes its first entry. */
static inline void mark_used(struct sample_area *a, uint32_t bucket)
{
    a->used[bucket / 64] |= (uint64_t)1 << (bucket % 64);
}

/* ---- rr4: DCPI's 4-way round robin ---------------------------------- */

static void record_rr4(struct sample_area *a, uint64_t pc, unsigned event)
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
    for (unsigned i = n; i > 0; i--) {
        b->pc[i] = b->pc[i - 1];
        b->count[i] = b->count[i - 1];
    }
    uint32_t moved = b->events & ((1u << (STF6_EVENT_BITS * n)) - 1);          /* codes 0..n-1 */
    uint32_t kept = b->events & ~((1u << (STF6_EVENT_BITS * (n + 1))) - 1);   /* codes n+1.. */
    b->events = kept | moved << STF6_EVENT_BITS | code;
    b->pc[0] = pc;
    b->count[0] = count;
}

static void record_stf6(struct sample_area *a, uint64_t pc, unsigned event)
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

void sample_table_record(struct sample_area *a, uint64_t pc, unsigned event)
{
    a->st.samples++;
    if (a->st.policy == POLICY_STF6)
        record_stf6(a, pc, event);
    else
        record_rr4(a, pc, event);
}

uint32_t sample_table_capacity(const struct sample_area *a)
{
    return a->st.nbuckets * a->st.ways;
}

/* Hands one live entry over, waiting while both buffers are full. */
static void flush_entry(struct sample_area *a, const struct sample_entry *e, void (*wait)(void))
{
    while (a->ovf[a->st.active].ready)          /* wait for the flusher */
        wait();
    overflow_append(a, e);
}

uint32_t sample_table_flush(struct sample_area *a, void (*wait)(void))
{
    uint32_t moved = 0;
    for (unsigned w = 0; w < a->st.nbuckets / 64; w++) {
        /* invariant 4: only the buckets that took an entry since the last flush */
        uint64_t bits = a->used[w];
        a->used[w] = 0;                 /* before: a bucket used meanwhile stays marked */
        for (; bits; bits &= bits - 1) {
            unsigned l = w * 64 + (unsigned)__builtin_ctzll(bits);
            if (a->st.policy == POLICY_STF6) {
                struct stf6_bucket *b = &a->table.stf6[l];
                for (unsigned i = 0; i < STF6_WAYS && b->count[i]; i++, moved++) {
                    struct sample_entry e = stf6_entry(b, i);
                    flush_entry(a, &e, wait);
                }
                memset(b, 0, sizeof *b);
            } else {
                for (unsigned i = l * 4; i < l * 4 + 4; i++) {
                    struct sample_entry *e = &a->table.rr4[i];
                    if (!e->count)
                        continue;
                    flush_entry(a, e, wait);
                    e->count = 0;
                    moved++;
                }
            }
        }
    }
    /* Hand over the partly filled buffer too. */
    struct overflow_buffer *b = &a->ovf[a->st.active];
    if (b->fill) {
        wmb();
        b->ready = 1;
        a->st.active ^= 1;
    }
    return moved;
}
