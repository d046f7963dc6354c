/*
 * Sending the DCPI overflow buffers (see table-send.h).  Boot core only:
 * no locks; the owner core and the boot core meet only at a buffer's
 * ready flag (sample-table.c's invariants).
 */
#include "firmware/profiler/table-send.h"

#include <stdlib.h>
#include <string.h>
#include "firmware/arch/barrier.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/sample-table.h"
#include "firmware/profiler/sampling.h"

struct table_send {
    uint32_t drain_pos[2];      /* entries of each ready buffer already sent */
    int sorted[2];
    struct table_send_stats st;
} __attribute__((aligned(64)));

static struct table_send cores[MAX_CORES];
static const struct profiler_config *config;
static uint8_t frame_buf[LK_MAX_RAW];

void table_send_init(const struct profiler_config *c, unsigned ncores)
{
    config = c;
    memset(cores, 0, sizeof cores[0] * ncores);
}

const struct table_send_stats *table_send_stats(unsigned core)
{
    return &cores[core].st;
}

static int compare_entries(const void *a, const void *b)
{
    const struct sample_entry *x = a, *y = b;
    if (x->event != y->event)
        return x->event < y->event ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The buffer is done with: the owner may fill it again. */
static void hand_back(struct overflow_buffer *b, struct table_send *s, unsigned bi)
{
    s->drain_pos[bi] = 0;
    s->sorted[bi] = 0;
    b->fill = 0;
    wmb();
    b->ready = 0;
}

int table_send_buffer(unsigned core, unsigned bi)
{
    struct overflow_buffer *b = &sample_area_of(core)->ovf[bi];
    struct table_send *s = &cores[core];
    mb();
    if (!s->sorted[bi]) {
        qsort(b->e, b->fill, sizeof b->e[0], compare_entries);
        s->sorted[bi] = 1;
    }
    while (s->drain_pos[bi] < b->fill) {
        if (!link_tx_has_room())
            return 0;
        struct lk_writer w;
        uint32_t i = s->drain_pos[bi];
        unsigned event = b->e[i].event;
        lk_samples_begin(&w, frame_buf, link_tx_data_frame(), core, event,
                         source_mean_period(sampling_source(), config, event));
        uint64_t samples = 0;
        while (i < b->fill && b->e[i].event == event &&
               lk_samples_add(&w, b->e[i].pc, b->e[i].count) == LK_OK) {
            samples += b->e[i].count;
            i++;
        }
        if (!link_tx_send(&w))
            return 0;
        s->st.entries_sent += i - s->drain_pos[bi];
        s->st.samples_sent += samples;
        s->drain_pos[bi] = i;
    }
    hand_back(b, s, bi);
    return 1;
}

void table_discard_buffer(unsigned core, unsigned bi)
{
    struct overflow_buffer *b = &sample_area_of(core)->ovf[bi];
    struct table_send *s = &cores[core];
    mb();
    for (uint32_t i = s->drain_pos[bi]; i < b->fill; i++)
        s->st.link_full += b->e[i].count;
    hand_back(b, s, bi);
}

void table_relieve_link(unsigned core)
{
    struct sample_area *a = sample_area_of(core);
    if (!a->ovf[0].ready || !a->ovf[1].ready || link_tx_has_room())
        return;
    table_discard_buffer(core, a->st.active & 1);
}
