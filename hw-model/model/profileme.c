#include "hw-model/model/profileme.h"

#include <string.h>

void pme_unit_init(struct pme_unit *u)
{
    memset(u, 0, sizeof *u);
    u->mode = PME_OFF;
}

static uint64_t draw(struct pme_unit *u, uint64_t lo, uint64_t hi)
{
    return lo + (uint64_t)model_minstd(&u->rng) % (hi - lo + 1);
}

int pme_unit_configure(struct pme_unit *u, const struct pme_config *cfg, uint64_t seed)
{
    uint64_t fetched = u->fetched, samples = u->samples, dropped = u->dropped;
    pme_unit_init(u);
    u->fetched = fetched;
    u->samples = samples;
    u->dropped = dropped;
    struct pme_config c = *cfg;         /* one read of guest-written fields */
    if (c.mode == PME_OFF)
        return 0;
    if ((c.mode != PME_SINGLE && c.mode != PME_PAIRED) || c.interval_min < PME_MIN_INTERVAL ||
        c.interval_max < c.interval_min || c.interval_max - c.interval_min >= (1ull << 31) ||
        (c.mode == PME_PAIRED && (c.pair_window < 1 || c.pair_window > PME_MAX_PAIR_WINDOW)))
        return -1;
    u->mode = c.mode;
    u->window = c.pair_window;
    u->interval_min = c.interval_min;
    u->interval_max = c.interval_max;
    u->rng = model_minstd_seed(seed, 0x50726f66696c654dull);    /* "ProfileM" */
    u->countdown = draw(u, u->interval_min, u->interval_max);
    return 0;
}

/* Writes n (1 or 2) records to the ring together, or drops them all. */
static void put(struct pme_unit *u, const struct pme_record *recs, unsigned n, struct pmu_window *w)
{
    u->samples += n;
    if (!w)
        return;
    uint64_t head = w->pme_head, tail = __atomic_load_n(&w->pme_tail, __ATOMIC_ACQUIRE);
    if (tail > head || head - tail + n > PME_RING_ENTRIES) {
        u->dropped += n;
    } else {
        for (unsigned i = 0; i < n; i++)
            w->pme_ring[(head + i) % PME_RING_ENTRIES] = recs[i];
        __atomic_store_n(&w->pme_head, head + n, __ATOMIC_RELEASE);
    }
    w->pme_samples = u->samples;
    w->pme_dropped = u->dropped;
}

void pme_unit_done(struct pme_unit *u, const struct pme_record *rec, struct pmu_window *w)
{
    if (u->mode == PME_SINGLE) {
        struct pme_record r = *rec;
        r.slot = PME_SLOT_SINGLE;
        r.gap = 0;
        r.distance = 0;
        put(u, &r, 1, w);
        u->countdown = draw(u, u->interval_min, u->interval_max);
    } else if (u->mode == PME_PAIRED && !u->tagged_second) {
        u->first = *rec;
        u->first.slot = PME_SLOT_FIRST;
        u->first.gap = 0;
        u->first.distance = 0;
        u->first_fetched = u->fetched;
        u->pending = true;
        u->tagged_second = true;
        u->countdown = draw(u, 1, u->window);
    } else if (u->mode == PME_PAIRED) {
        struct pme_record pair[2] = {u->first, *rec};
        pair[1].slot = PME_SLOT_SECOND;
        uint64_t gap = u->fetched - u->first_fetched;
        pair[1].gap = (uint16_t)(gap > UINT16_MAX ? UINT16_MAX : gap);
        uint64_t d = rec->fetch_cycle > u->first.fetch_cycle ? rec->fetch_cycle - u->first.fetch_cycle : 0;
        pair[1].distance = (uint32_t)(d > UINT32_MAX ? UINT32_MAX : d);
        put(u, pair, 2, w);
        u->pending = false;
        u->tagged_second = false;
        u->countdown = draw(u, u->interval_min, u->interval_max);
    }
}
