/*
 * Hash table and overflow buffers (see sample-table.h for the layouts, the
 * two policies and the invariants).  Pure C but for barrier.h, so the unit
 * tests build the same file for the host.
 */
#include "firmware/profiler/sample-table.h"

#include <string.h>

_Static_assert(sizeof(struct sample_area) <= PROFILER_PER_CORE, "sample area fits the core's profiler RAM");
_Static_assert(sizeof(((struct sample_area *)0)->table) == TABLE_BYTES, "both layouts fill the same table");
_Static_assert(LK_EVENT_TIMER > STF6_EVENT_TIMER, "timer samples need their own stf6 code");

/* Empties the buckets marked used (invariant 4: every other one is empty)
 * and clears their marks. */
static void clear_used_buckets(struct sample_area *a)
{
    for (unsigned w = 0; w < TABLE_LINES / 64; w++) {
        for (uint64_t bits = a->used[w]; bits; bits &= bits - 1) {
            unsigned l = w * 64 + (unsigned)__builtin_ctzll(bits);
            memset(&a->table.stf6[l], 0, sizeof a->table.stf6[l]);     /* either layout: the line */
        }
        a->used[w] = 0;
    }
}

void sample_table_init(struct sample_area *a, enum table_policy policy)
{
    /* Not the whole area: 512 KiB cleared at every start cost a timer tick
     * a tenth of its cycles on a long run.  The buckets hold nothing
     * outside the used ones (invariant 5), and the overflow buffers' entries
     * are written before they are read (fill). */
    clear_used_buckets(a);
    a->st = (struct table_state){0};
    for (unsigned i = 0; i < 2; i++)
        a->ovf[i].fill = a->ovf[i].ready = 0;
    a->st.policy = policy;
    a->st.ways = policy == POLICY_STF6 ? STF6_WAYS : 4;
    a->st.nbuckets = TABLE_LINES;       /* one bucket per line, every line used */
    mb();
}

void sample_table_record(struct sample_area *a, uint64_t pc, unsigned event)
{
    sample_table_record_inline(a, pc, event);
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
            } else {
                for (unsigned i = l * 4; i < l * 4 + 4; i++) {
                    struct sample_entry *e = &a->table.rr4[i];
                    if (!e->count)
                        continue;
                    flush_entry(a, e, wait);
                    moved++;
                }
            }
            memset(&a->table.stf6[l], 0, sizeof a->table.stf6[l]);     /* invariant 5: the whole line */
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
