/*
 * Hash table and overflow buffers (see sample-table.h).  Invariants:
 *  - an entry with count 0 is free; a bucket's live entries are distinct
 *    (pc, event) keys;
 *  - an evicted entry is appended to ovf[active] exactly once, or counted
 *    in st.dropped: a sample is never lost silently;
 *  - ovf[i].ready == 1 means the owner will not touch ovf[i] until the
 *    flusher has sent it and cleared ready (and fill).
 */
#include "firmware/profiler/sample-table.h"

#include <string.h>
#include "firmware/arch/barrier.h"

_Static_assert(sizeof(struct sample_area) <= PROFILER_PER_CORE, "sample area fits the core's profiler RAM");

void sample_table_init(struct sample_area *a, enum table_policy policy)
{
    memset(a, 0, sizeof *a);
    a->st.policy = policy;
    a->st.ways = policy == POLICY_STF6 ? 6 : 4;
    a->st.nbuckets = TABLE_ENTRIES / a->st.ways;
    /* round down to a power of two for the mask */
    while (a->st.nbuckets & (a->st.nbuckets - 1))
        a->st.nbuckets &= a->st.nbuckets - 1;
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

void sample_table_record(struct sample_area *a, uint64_t pc, unsigned event)
{
    unsigned ways = a->st.ways;
    struct sample_entry *bkt = &a->table[bucket_of(a, pc, event) * ways];
    a->st.samples++;
    for (unsigned i = 0; i < ways; i++) {
        struct sample_entry *e = &bkt[i];
        if (e->pc == pc && e->event == event && e->count) {
            a->st.hits++;
            if (++e->count == UINT32_MAX) {     /* saturated: hand it over */
                overflow_append(a, e);
                e->count = 0;
            } else if (a->st.policy == POLICY_STF6 && i > 0) {
                struct sample_entry t = bkt[i - 1];
                bkt[i - 1] = *e;
                *e = t;
            }
            return;
        }
    }
    a->st.misses++;
    struct sample_entry fresh = {.pc = pc, .count = 1, .event = (uint16_t)event};
    if (a->st.policy == POLICY_STF6) {
        /* New entries enter at the back half: shift nothing, evict the last. */
        unsigned slot = ways - 1;
        for (unsigned i = 0; i < ways; i++)
            if (!bkt[i].count) {
                slot = i;
                break;
            }
        if (bkt[slot].count)
            overflow_append(a, &bkt[slot]);
        bkt[slot] = fresh;
        return;
    }
    for (unsigned i = 0; i < ways; i++)
        if (!bkt[i].count) {
            uint16_t rr = bkt[0].aux;
            bkt[i] = fresh;
            bkt[0].aux = rr;
            return;
        }
    uint16_t victim = bkt[0].aux % ways;
    overflow_append(a, &bkt[victim]);
    bkt[victim] = fresh;
    bkt[0].aux = (uint16_t)((victim + 1) % ways);
}

uint32_t sample_table_flush(struct sample_area *a, void (*wait)(void))
{
    uint32_t moved = 0;
    for (unsigned i = 0; i < a->st.nbuckets * a->st.ways; i++) {
        struct sample_entry *e = &a->table[i];
        if (!e->count)
            continue;
        while (a->ovf[a->st.active].ready)      /* wait for the flusher */
            wait();
        overflow_append(a, e);
        e->count = 0;
        moved++;
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
