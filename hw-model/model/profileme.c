#include "hw-model/model/profileme.h"

#include <math.h>
#include <string.h>

#include "hw-model/cycle-causes.h"

_Static_assert(CYCLE_MAX_RETIRE_WIDTH <= PME_EVENTS_GROUP_MAX, "a retire group's size fits its field");

void pme_unit_init(struct pme_unit *u)
{
    memset(u, 0, sizeof *u);
    u->mode = PME_OFF;
}

static uint64_t draw(struct pme_unit *u, uint64_t lo, uint64_t hi)
{
    return lo + (uint64_t)model_minstd(&u->rng) % (hi - lo + 1);
}

/* The fetches until the next sample (or pair): uniform in min..max, or
 * geometric on 1, 2, ... with mean (min + max) / 2 (PME_DRAW_GEOMETRIC) by
 * inversion, 1 + floor(ln U / ln(1 - 1/mean)) with U = minstd / (2^31 - 1)
 * in (0, 1); at most ~21.5 times the mean. */
static uint64_t draw_interval(struct pme_unit *u)
{
    if (!u->geometric)
        return draw(u, u->interval_min, u->interval_max);
    double mean = ((double)u->interval_min + (double)u->interval_max) / 2;
    double uni = (double)model_minstd(&u->rng) / 2147483647.0;
    return 1 + (uint64_t)floor(log(uni) / log1p(-1.0 / mean));
}

/* The time draw's interval in CYCLE_UNIT-ths: uniform over the units of
 * the cycles min..max, ((min - 1) U, max U], or geometric on 1, 2, ...
 * units with mean (min + max) / 2 cycles.  Units, not whole cycles: sample
 * points on cycle boundaries would always fall on the first retirer of a
 * shared cycle. */
uint64_t pme_unit_draw_time(struct pme_unit *u)
{
    if (!u->geometric) {
        uint64_t c = draw(u, u->interval_min, u->interval_max);
        return (c - 1) * CYCLE_UNIT + 1 + (uint64_t)model_minstd(&u->rng) % CYCLE_UNIT;
    }
    double mean = ((double)u->interval_min + (double)u->interval_max) / 2 * CYCLE_UNIT;
    double uni = (double)model_minstd(&u->rng) / 2147483647.0;
    return 1 + (uint64_t)floor(log(uni) / log1p(-1.0 / mean));
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
    uint32_t mode = c.mode & PME_MODE_MASK;
    if ((c.mode & ~(PME_MODE_MASK | PME_DRAW_GEOMETRIC | PME_DRAW_TIME)) || (mode != PME_SINGLE && mode != PME_PAIRED) ||
        c.interval_min < PME_MIN_INTERVAL ||
        c.interval_max < c.interval_min || c.interval_max - c.interval_min >= (1ull << 31) ||
        (mode == PME_PAIRED && (c.pair_window < 1 || c.pair_window > PME_MAX_PAIR_WINDOW)))
        return -1;
    u->mode = mode;
    u->geometric = (c.mode & PME_DRAW_GEOMETRIC) != 0;
    u->window = c.pair_window;
    u->interval_min = c.interval_min;
    u->interval_max = c.interval_max;
    u->time = (c.mode & PME_DRAW_TIME) != 0;
    u->rng = model_minstd_seed(seed, 0x50726f66696c654dull);    /* "ProfileM" */
    /* the time draw never tags a fetch (2^64 - 1 fetches away) */
    u->countdown = u->time ? UINT64_MAX : draw_interval(u);
    u->time_left = u->time ? pme_unit_draw_time(u) : 0;
    return 0;
}

/* Writes n (1 or 2) records to the ring together, or drops them all. */
static void write_ring(struct pme_unit *u, const struct pme_record *recs, unsigned n, struct pmu_window *w)
{
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

static bool any_open(const struct pme_unit *u)
{
    for (unsigned i = 0; i < u->nheld; i++)
        if (u->held_open[i])
            return true;
    return false;
}

/* Held records whose groups are closed go to the ring, in order, each
 * batch (a pair) whole; true if any went. */
static bool release(struct pme_unit *u, struct pmu_window *w)
{
    if (!u->nheld || any_open(u))
        return false;
    for (unsigned i = 0; i < u->nheld;) {
        unsigned n = 1;
        while (i + n < u->nheld && u->held_batch[i + n] == u->held_batch[i])
            n++;
        write_ring(u, &u->held[i], n, w);
        i += n;
    }
    u->nheld = 0;
    return true;
}

/* A retired record in an open group waits for the group's size. */
static bool opens(const struct pme_unit *u, const struct pme_record *r)
{
    return u->grouping && (r->events >> PME_EVB_RETIRED & 1);
}

/* n (1 or 2) records produced together: counted, then held or written. */
static void put(struct pme_unit *u, const struct pme_record *recs, const bool *open, unsigned n,
                struct pmu_window *w)
{
    u->samples += n;
    if (!u->nheld && !open[0] && (n < 2 || !open[1])) {
        write_ring(u, recs, n, w);
        return;
    }
    if (u->nheld + n > PME_HELD_MAX)        /* (not reached: see pme_unit_close's callers) */
        pme_unit_close(u, w);
    unsigned batch = u->nheld ? u->held_batch[u->nheld - 1] + 1 : 0;
    for (unsigned i = 0; i < n; i++) {
        u->held[u->nheld] = recs[i];
        u->held_open[u->nheld] = open[i];
        u->held_batch[u->nheld++] = batch;
    }
    if (w && !any_open(u))
        release(u, w);
}

static void set_group(struct pme_record *r, uint32_t n)
{
    if (n > PME_EVENTS_GROUP_MAX)
        n = PME_EVENTS_GROUP_MAX;
    r->events = (r->events & ~(PME_EVENTS_GROUP_MAX << PME_EVENTS_GROUP_SHIFT)) | n << PME_EVENTS_GROUP_SHIFT;
}

bool pme_unit_close(struct pme_unit *u, struct pmu_window *w)
{
    if (u->first_open) {
        set_group(&u->first, u->group_n);
        u->first_open = false;
    }
    for (unsigned i = 0; i < u->nheld; i++)
        if (u->held_open[i]) {
            set_group(&u->held[i], u->group_n);
            u->held_open[i] = false;
        }
    u->group_n = 0;
    return release(u, w);
}

bool pme_unit_retired(struct pme_unit *u, uint64_t retire, struct pmu_window *w)
{
    bool wrote = false;
    u->grouping = true;
    if (retire != u->group_cycle || !u->group_n)
        wrote = pme_unit_close(u, w);
    u->group_cycle = retire;
    u->group_n++;
    return wrote;
}

/* rec as a record of its own in a slot (a single, or the first of a pair):
 * no partner, so no gap or distance. */
static struct pme_record in_slot(const struct pme_record *rec, uint8_t slot)
{
    struct pme_record r = *rec;
    r.slot = slot;
    r.gap = 0;
    r.distance = 0;
    return r;
}

/* The pending first and rec as a pair: the second's gap (fetched
 * instructions) and distance (fetch cycles) from the first. */
static void make_pair(const struct pme_unit *u, const struct pme_record *rec, struct pme_record pair[2])
{
    pair[0] = u->first;
    pair[1] = *rec;
    pair[1].slot = PME_SLOT_SECOND;
    uint64_t gap = u->fetched - u->first_fetched;
    pair[1].gap = (uint16_t)(gap > UINT16_MAX ? UINT16_MAX : gap);
    uint64_t d = rec->fetch_cycle > u->first.fetch_cycle ? rec->fetch_cycle - u->first.fetch_cycle : 0;
    pair[1].distance = (uint32_t)(d > UINT32_MAX ? UINT32_MAX : d);
}

void pme_unit_done(struct pme_unit *u, const struct pme_record *rec, struct pmu_window *w)
{
    bool open[2] = {opens(u, rec), false};
    if (u->mode == PME_SINGLE) {
        struct pme_record r = in_slot(rec, PME_SLOT_SINGLE);
        put(u, &r, open, 1, w);
        u->countdown = draw_interval(u);
    } else if (u->mode == PME_PAIRED && !u->tagged_second) {
        u->first = in_slot(rec, PME_SLOT_FIRST);
        u->first_open = open[0];
        u->first_fetched = u->fetched;
        u->pending = true;
        u->tagged_second = true;
        u->countdown = draw(u, 1, u->window);
    } else if (u->mode == PME_PAIRED) {
        struct pme_record pair[2];
        make_pair(u, rec, pair);
        bool pair_open[2] = {u->first_open, open[0]};
        u->first_open = false;
        put(u, pair, pair_open, 2, w);
        u->pending = false;
        u->tagged_second = false;
        u->countdown = draw_interval(u);
    }
}

void pme_unit_time_done(struct pme_unit *u, const struct pme_record *rec, unsigned k, struct pmu_window *w)
{
    const bool open[2] = {false, false};
    for (unsigned i = 0; i < k; i++) {
        if (u->mode == PME_SINGLE) {
            struct pme_record r = in_slot(rec, PME_SLOT_SINGLE);
            put(u, &r, open, 1, w);
        } else if (!u->pending) {
            u->first = in_slot(rec, PME_SLOT_FIRST);
            u->first_fetched = u->fetched;
            u->pending = true;
        } else {
            struct pme_record pair[2];
            make_pair(u, rec, pair);
            put(u, pair, open, 2, w);
            u->pending = false;
        }
    }
}
