/*
 * ProfileMe capture (see pme-capture.h).  Invariants:
 *  - a bank with ready == 0 belongs to its core (the active one is being
 *    filled, the other is clean); ready == 1 belongs to the boot core until
 *    it has sent and cleared it and written ready = 0;
 *  - an aggregate slot with samples == 0 is free; live slots hold distinct
 *    PCs; the table never holds more than PME_AGG_LIMIT of its
 *    PME_AGG_ENTRIES slots, so a linear probe always ends;
 *  - every record drained is counted in taken and then added to an
 *    aggregate (sent later) or counted in agg_full; every pair found is
 *    counted in pairs_taken and then stored or counted in pair_full;
 *  - a bank's pairs_offered counts the pairs found while it was active,
 *    npairs <= pairs_offered of them are in it, and the others are
 *    counted in pair_full: when its pair buffer is full and the other
 *    bank is not back, the bank keeps a uniform random subset of its
 *    offered pairs (reservoir sampling: the n-th replaces a random slot
 *    with chance PME_PAIR_SLOTS / n), so its pairs lost do not depend on
 *    when the link fell behind, and PAIRS says offered and kept, each
 *    kept pair standing for offered / kept (design note of pme-capture.h).
 * The drain runs in the core's tick interrupt with only the integer
 * registers saved (-mno-fp-regs): no floating point, no divisions.
 */
#include "firmware/profiler/pme-capture.h"

#include <stdlib.h>
#include <string.h>
#include "firmware/arch/pal.h"
#include "firmware/kernel/console.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/pmu.h"
#include "firmware/profiler/sample-source.h"
#include "firmware/profiler/sample-table.h"

#define PME_AGG_ENTRIES     1024        /* power of two */
#define PME_AGG_SHIFT       10          /* log2(PME_AGG_ENTRIES) */
#define PME_AGG_LIMIT       768         /* 3/4 full: hand the bank over */
#define PME_PAIR_SLOTS      768
/* Performance interrupts only from this interval up (see pme_start): the
 * drain fetches ~100-250 instructions a record. */
#define PME_IRQ_MIN_INTERVAL 4096
/* ... and, drawn in cycles (pme_draw time), from this many cycles up: a
 * record's drain takes fewer cycles than that. */
#define PME_IRQ_MIN_CYCLES  1024

/* Per-PC aggregate of one flush interval.  32-bit counts: a bank lives at
 * most flush_ms (<= 10^6 ms) of 1 ms ticks that each drain at most
 * PME_RING_ENTRIES records, so fewer than 2^32 samples reach one slot. */
struct pme_agg_entry {
    uint64_t pc;
    uint32_t samples;                   /* 0: free */
    uint32_t bits[PME_EVB_COUNT];       /* samples with each event bit */
    uint64_t lat[PME_LAT_COUNT];        /* latency sums */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct pme_agg_entry) == 128, "two cache lines per aggregate");

struct pme_bank {
    volatile uint32_t ready;            /* 1: handed to the boot core */
    uint32_t fill;                      /* aggregate slots in use */
    uint32_t npairs;
    /* the boot core's, while ready */
    uint32_t sorted;                    /* aggregates compacted and sorted */
    uint32_t agg_pos, pair_pos;         /* already sent */
    uint32_t pairs_offered;             /* pairs found while active (npairs of them kept) */
    uint32_t pad[9];
    struct pme_agg_entry agg[PME_AGG_ENTRIES];
    struct pme_record pairs[PME_PAIR_SLOTS][2];
};

struct pme_core {
    /* written by the owner core */
    uint64_t taken;                     /* records drained from the ring */
    uint64_t pairs_taken;               /* whole pairs found in the ring */
    uint64_t agg_full;                  /* records lost: aggregate tables full */
    uint64_t pair_full;                 /* pairs lost: pair buffers full */
    uint64_t half_pair;                 /* pair records without their partner */
    uint64_t resync_lost;               /* records skipped over a garbage ring index */
    uint32_t active;                    /* bank being filled */
    volatile uint32_t switch_ack;       /* last switch_req honoured */
    uint32_t done;                      /* pme_final ran: fill nothing any more */
    uint8_t pad0[4];
    /* the counts as of the last hand-over, which FLUSH reports: they
     * cover exactly the banks handed over, so an epoch's FLUSH matches the
     * data sent before its EPOCH */
    uint64_t rep_taken, rep_pairs_taken, rep_agg_full, rep_pair_full, rep_half_pair, rep_resync_lost;
    uint64_t rng;                       /* xorshift64 state of the reservoir's draws (never 0) */
    uint8_t pad0b[8];
    /* written by the boot core */
    volatile uint32_t switch_req;       /* hand the active bank over, please */
    uint32_t pad2[3];
    uint64_t sent;                      /* samples in PME_AGG frames sent */
    uint64_t pairs_sent;                /* pairs in PAIRS frames sent */
    uint64_t link_full;                 /* records given back unsent (link too slow) */
    uint64_t link_full_pairs;           /* pairs likewise */
    uint8_t pad1[16];
    struct pme_bank bank[2];
};

_Static_assert(__builtin_offsetof(struct pme_core, switch_req) == 128, "owner and flusher lines apart");

/* After the core's DCPI sample area in its profiler RAM. */
#define PME_CORE_OFFSET     ((SAMPLE_AREA_SIZE + 63) & ~(uint64_t)63)
_Static_assert(PME_CORE_OFFSET + sizeof(struct pme_core) <= PROFILER_PER_CORE,
               "ProfileMe banks fit the core's profiler RAM");

static const struct profiler_config *config;
static int pme_on;
static unsigned pme_ncores;

static struct pme_core *pme_core_of(unsigned core)
{
    return (struct pme_core *)(KSEG_BASE + PROFILER_PHYS + (uint64_t)core * PROFILER_PER_CORE +
                               PME_CORE_OFFSET);
}

static int model_has_profileme(void)
{
    const struct pmu_window *w = pmu_window_of(0);
    return w->magic == PMU_MAGIC && w->version >= 4;     /* 4: the record with retire-gap */
}

uint32_t pme_caps(void)
{
    return model_has_profileme() ? LK_CAP_PROFILEME | LK_CAP_PAIRED : 0;
}

static void pme_init(const struct profiler_config *c, unsigned ncores)
{
    (void)ncores;
    config = c;
}

static uint32_t pme_source_caps(void)
{
    return 0;               /* the board's ProfileMe bits: pme_caps */
}

static int pme_start(unsigned ncores)
{
    if (!model_has_profileme()) {
        mon_printf("monitor: warning: profile=%s needs the hardware model with ProfileMe "
                   "(--board clipper-pm); sampling with the timer instead\n",
                   config->mode == LK_MODE_PAIRED ? "paired" : "profileme");
        return 0;
    }
    /* A restart (host START after STOP) keeps the banks, the counts and
     * the records still in the rings: nothing collected is thrown away. */
    int first = !pme_ncores;
    pme_ncores = ncores;
    for (unsigned c = 0; c < ncores; c++) {
        struct pme_core *p = pme_core_of(c);
        struct pmu_window *w = pmu_window_of(c);
        if (first) {
            memset(p, 0, __builtin_offsetof(struct pme_core, bank));
            for (unsigned k = 0; k < 2; k++)
                memset(&p->bank[k], 0, __builtin_offsetof(struct pme_bank, pairs));
            p->rng = (uint64_t)config->seed * 0x9e3779b97f4a7c15ull + c + 1;
            if (!p->rng)
                p->rng = 1;
            w->pme_tail = w->pme_head;  /* the unit was off: nothing of ours there */
        }
        w->pme.mode = (config->mode == LK_MODE_PAIRED ? PME_PAIRED : PME_SINGLE) |
                      (config->pme_draw & BOOT_PME_DRAW_GEOMETRIC ? PME_DRAW_GEOMETRIC : 0) |
                      (config->pme_draw & BOOT_PME_DRAW_TIME ? PME_DRAW_TIME : 0);
        w->pme.pair_window = config->pair_window;
        w->pme.interval_min = config->pme_min;
        w->pme.interval_max = config->pme_max;
        w->seed = config->seed * 7919u + c + 1;
        /* Interrupt when a quarter of the ring is full (seed 4.3: one
         * interrupt, many records); the 1 ms tick drains the rest.  Not at
         * short intervals: the drain is sampled too, and when it fetches
         * about as many instructions per record as the interval, each
         * interrupt's drain fills the ring again (an interrupt storm that
         * starves the tick); the tick's drain is bounded by the ring. */
        w->irq_ack = w->interrupts;
        w->irq_threshold = w->irq_mode == PMU_IRQ_IPI &&
                                   config->pme_min >= (config->pme_draw & BOOT_PME_DRAW_TIME ? PME_IRQ_MIN_CYCLES
                                                                                             : PME_IRQ_MIN_INTERVAL)
                               ? PME_RING_ENTRIES / 4 : 0;
        mb();
        w->config_gen++;
    }
    mb();
    pme_on = 1;
    return 1;
}

static void pme_stop(unsigned ncores)
{
    if (!pme_on)
        return;
    for (unsigned c = 0; c < ncores; c++) {
        struct pmu_window *w = pmu_window_of(c);
        w->pme.mode = PME_OFF;
        mb();
        w->config_gen++;
    }
    mb();
}

static void pme_send_names(uint8_t *buf, size_t cap)
{
    static const char *const bits[] = {PME_EVENT_BIT_NAMES};
    static const char *const lat[] = {PME_LATENCY_NAMES};
    _Static_assert(sizeof bits / sizeof bits[0] == PME_EVB_COUNT, "a name per event bit");
    _Static_assert(sizeof lat / sizeof lat[0] == PME_LAT_COUNT, "a name per latency field");
    struct lk_writer w;
    lk_names_begin(&w, buf, cap, LK_NAMES_PME_BIT, 0);
    for (unsigned i = 0; i < PME_EVB_COUNT; i++)
        lk_names_add(&w, (struct lk_bytes){(const uint8_t *)bits[i], strlen(bits[i])});
    link_tx_send(&w);
    lk_names_begin(&w, buf, cap, LK_NAMES_PME_LAT, 0);
    for (unsigned i = 0; i < PME_LAT_COUNT; i++)
        lk_names_add(&w, (struct lk_bytes){(const uint8_t *)lat[i], strlen(lat[i])});
    link_tx_send(&w);
}

/* ------------------------------------------------------ owner core side */

/* Hands the active bank to the boot core; false if the other bank is not
 * back yet (the flusher is behind).  An empty bank needs no handing over. */
static void snapshot(struct pme_core *p)
{
    p->rep_taken = p->taken;
    p->rep_pairs_taken = p->pairs_taken;
    p->rep_agg_full = p->agg_full;
    p->rep_pair_full = p->pair_full;
    p->rep_half_pair = p->half_pair;
    p->rep_resync_lost = p->resync_lost;
}

static int hand_over(struct pme_core *p)
{
    struct pme_bank *b = &p->bank[p->active];
    if (b->fill == 0 && b->npairs == 0) {
        snapshot(p);
        return 1;
    }
    if (p->bank[p->active ^ 1].ready)
        return 0;
    mb();                               /* the flusher's clearing before our reuse */
    snapshot(p);
    wmb();                              /* the counts before the flag */
    b->ready = 1;
    p->active ^= 1;
    return 1;
}

static inline uint32_t agg_hash(uint64_t pc)
{
    return (uint32_t)(((pc >> 2) * 0x9e3779b97f4a7c15ull) >> (64 - PME_AGG_SHIFT));
}

/* The slot of pc, claimed if new; NULL if the table is at its limit. */
static struct pme_agg_entry *agg_slot(struct pme_bank *b, uint64_t pc)
{
    for (uint32_t i = agg_hash(pc);; i = (i + 1) & (PME_AGG_ENTRIES - 1)) {
        struct pme_agg_entry *e = &b->agg[i];
        if (e->samples == 0) {
            if (b->fill >= PME_AGG_LIMIT)
                return NULL;
            b->fill++;
            e->pc = pc;
            return e;
        }
        if (e->pc == pc)
            return e;
    }
}

static void add_record(struct pme_core *p, const struct pme_record *r)
{
    struct pme_agg_entry *e = agg_slot(&p->bank[p->active], r->pc);
    if (!e && hand_over(p))
        e = agg_slot(&p->bank[p->active], r->pc);
    if (!e) {
        p->agg_full++;
        return;
    }
    e->samples++;
    /* the set bits only (a few): cttz, no loop over all of them */
    for (uint32_t ev = r->events & ((1u << PME_EVB_COUNT) - 1); ev; ev &= ev - 1)
        e->bits[__builtin_ctz(ev)]++;
    for (unsigned i = 0; i < PME_LAT_COUNT; i++)
        e->lat[i] += r->lat[i];
}

/* A uniform draw from [0, n) without a division (the drain's rule):
 * the high half of a 32-bit random number times n. */
static uint32_t draw_below(struct pme_core *p, uint32_t n)
{
    uint64_t x = p->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p->rng = x;
    return (uint32_t)(((x >> 32) * (uint64_t)n) >> 32);
}

static void add_pair(struct pme_core *p, const struct pme_record *first, const struct pme_record *second)
{
    struct pme_bank *b = &p->bank[p->active];
    if (b->npairs == PME_PAIR_SLOTS && hand_over(p))
        b = &p->bank[p->active];
    uint32_t slot = b->npairs;
    b->pairs_offered++;
    if (slot == PME_PAIR_SLOTS) {
        /* full, the other bank not back: the n-th pair offered takes a
         * random slot with chance SLOTS / n (reservoir sampling), so the
         * bank keeps a uniform subset of its pairs; one pair is lost
         * either way, this one or the one it replaces */
        p->pair_full++;
        slot = draw_below(p, b->pairs_offered);
        if (slot >= PME_PAIR_SLOTS)
            return;
    } else {
        b->npairs++;
    }
    b->pairs[slot][0] = *first;
    b->pairs[slot][1] = *second;
}

static void pme_drain(unsigned core)
{
    if (!pme_on)
        return;
    struct pme_core *p = pme_core_of(core);
    struct pmu_window *w = pmu_window_of(core);
    if (p->done)
        return;
    /* An IPI (a flush's or the model's) must not run a second drain inside
     * this one. */
    unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
    uint32_t req = p->switch_req;       /* asked before the ring is read: */
    mb();                               /* what it holds goes with the bank */
    uint64_t head = w->pme_head, tail = w->pme_tail;
    mb();
    if (head - tail > PME_RING_ENTRIES) {     /* garbage index: resynchronise */
        p->resync_lost += head - tail - PME_RING_ENTRIES;
        tail = head - PME_RING_ENTRIES;
    }
    while (tail != head) {
        const struct pme_record *r = &w->pme_ring[tail & (PME_RING_ENTRIES - 1)];
        tail++;
        p->taken++;
        if (r->slot == PME_SLOT_FIRST && tail != head &&
            w->pme_ring[tail & (PME_RING_ENTRIES - 1)].slot == PME_SLOT_SECOND) {
            const struct pme_record *r2 = &w->pme_ring[tail & (PME_RING_ENTRIES - 1)];
            tail++;
            p->taken++;
            p->pairs_taken++;
            add_record(p, r);
            add_record(p, r2);
            add_pair(p, r, r2);
            continue;
        }
        if (r->slot != PME_SLOT_SINGLE)
            p->half_pair++;
        add_record(p, r);
    }
    mb();
    w->pme_tail = tail;
    if (req != p->switch_ack && hand_over(p))
        p->switch_ack = req;
    pal_swpipl(ipl);
}

static void pme_final(unsigned core)
{
    if (!pme_on)
        return;
    struct pme_core *p = pme_core_of(core);
    pme_drain(core);
    /* The last hand-over waits for nothing (a slow link must not hold the
     * end of the run): the core fills no bank any more, so both may be
     * ready at once. */
    struct pme_bank *b = &p->bank[p->active];
    snapshot(p);
    if (b->fill || b->npairs) {
        wmb();
        b->ready = 1;
    }
    p->done = 1;
    p->switch_ack = p->switch_req;
}

static void pme_interrupt(unsigned core)
{
    if (!pme_on)
        return;
    struct pmu_window *w = pmu_window_of(core);
    uint64_t raised = w->interrupts;
    if (raised == w->irq_ack)
        return;
    pme_drain(core);
    mb();
    w->irq_ack = raised;
}

/* ------------------------------------------------------- boot core side */

static void pme_request_flush(unsigned ncores, int all)
{
    if (!pme_on)
        return;
    /* Without an IPI to follow (all = 0), a core whose active bank is
     * empty (idle, or not sampled) is not asked: it might not drain again
     * for a long time.  (A core that has just begun filling it hands that
     * over at the next flush.) */
    for (unsigned c = 0; c < ncores; c++) {
        struct pme_core *p = pme_core_of(c);
        const struct pme_bank *b = &p->bank[p->active & 1];
        if (c == 0 || all || b->fill || b->npairs)
            p->switch_req++;
    }
    mb();
    pme_drain(0);                       /* core 0 is the caller: at once */
}

static int pme_pending(unsigned core)
{
    if (!pme_on)
        return 0;
    struct pme_core *p = pme_core_of(core);
    return p->bank[0].ready || p->bank[1].ready || p->switch_req != p->switch_ack;
}

static void pme_discard(unsigned core)
{
    if (!pme_on)
        return;
    struct pme_core *p = pme_core_of(core);
    for (unsigned k = 0; k < 2; k++) {
        struct pme_bank *b = &p->bank[k];
        if (!b->ready)
            continue;
        mb();
        /* sorted: [agg_pos, fill) not sent yet; unsorted: nothing sent */
        uint32_t from = b->sorted ? b->agg_pos : 0, to = b->sorted ? b->fill : PME_AGG_ENTRIES;
        for (uint32_t i = from; i < to; i++)
            p->link_full += b->agg[i].samples;
        p->link_full_pairs += b->npairs - b->pair_pos;
        memset(b->agg, 0, sizeof b->agg);
        b->fill = 0;
        b->npairs = 0;
        b->pairs_offered = 0;
        b->agg_pos = b->pair_pos = 0;
        b->sorted = 0;
        wmb();
        b->ready = 0;
    }
    p->switch_ack = p->switch_req;      /* no use asking any more */
}

static int compare_pc(const void *a, const void *b)
{
    const struct pme_agg_entry *x = a, *y = b;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Live slots to the front (the vacated ones zeroed), sorted by PC. */
static void compact_and_sort(struct pme_bank *b)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < PME_AGG_ENTRIES && n < b->fill; i++) {
        if (!b->agg[i].samples)
            continue;
        if (i != n) {
            b->agg[n] = b->agg[i];
            memset(&b->agg[i], 0, sizeof b->agg[i]);
        }
        n++;
    }
    b->fill = n;
    qsort(b->agg, n, sizeof b->agg[0], compare_pc);
}

static void to_lk_record(struct lk_pme_record *o, const struct pme_record *r)
{
    o->pc = r->pc;
    o->events = r->events;
    o->addr = r->addr;
    o->history = r->history;
    for (unsigned i = 0; i < PME_LAT_COUNT; i++)
        o->lat[i] = r->lat[i];
}

static int send_bank(unsigned core, struct pme_core *p, struct pme_bank *b, uint8_t *buf, size_t cap)
{
    if (!b->sorted) {
        compact_and_sort(b);
        b->sorted = 1;
    }
    while (b->agg_pos < b->fill) {
        if (!link_tx_has_room())
            return 0;
        struct lk_writer w;
        struct lk_pme_agg a;
        uint32_t i = b->agg_pos;
        uint64_t samples = 0;
        lk_pme_begin(&w, buf, cap, core, PME_EVB_COUNT, PME_LAT_COUNT);
        for (; i < b->fill; i++) {
            const struct pme_agg_entry *e = &b->agg[i];
            a.pc = e->pc;
            a.samples = e->samples;
            a.retired = e->bits[PME_EVB_RETIRED];
            a.aborted = e->samples - e->bits[PME_EVB_RETIRED];
            for (unsigned k = 0; k < PME_EVB_COUNT; k++)
                a.bits[k] = e->bits[k];
            for (unsigned k = 0; k < PME_LAT_COUNT; k++)
                a.lat[k] = e->lat[k];
            if (lk_pme_add(&w, &a) != LK_OK)
                break;
            samples += e->samples;
        }
        if (!link_tx_send(&w))
            return 0;
        p->sent += samples;
        b->agg_pos = i;
    }
    while (b->pair_pos < b->npairs) {
        if (!link_tx_has_room())
            return 0;
        struct lk_writer w;
        struct lk_pair lp;
        uint32_t i = b->pair_pos;
        lk_pairs_begin(&w, buf, cap, core, PME_LAT_COUNT, b->pairs_offered, b->npairs);
        for (; i < b->npairs; i++) {
            const struct pme_record *r = b->pairs[i];
            lp.distance = r[1].distance;
            lp.gap = r[1].gap;
            to_lk_record(&lp.rec[0], &r[0]);
            to_lk_record(&lp.rec[1], &r[1]);
            if (lk_pairs_add(&w, &lp) != LK_OK)
                break;
        }
        if (!link_tx_send(&w))
            return 0;
        p->pairs_sent += i - b->pair_pos;
        b->pair_pos = i;
    }
    memset(b->agg, 0, b->fill * sizeof b->agg[0]);
    b->fill = 0;
    b->npairs = 0;
    b->pairs_offered = 0;
    b->agg_pos = b->pair_pos = 0;
    b->sorted = 0;
    wmb();
    b->ready = 0;
    return 1;
}

static int pme_send(unsigned core, uint8_t *buf, size_t cap)
{
    if (!pme_on)
        return 1;
    struct pme_core *p = pme_core_of(core);
    for (unsigned k = 0; k < 2; k++) {
        struct pme_bank *b = &p->bank[k];
        if (!b->ready)
            continue;
        mb();                           /* the owner's records before its flag */
        if (!send_bank(core, p, b, buf, cap))
            return 0;
    }
    return 1;
}

static void pme_flush_counters(unsigned core, struct lk_flush *f)
{
    if (!pme_ncores)                    /* never started */
        return;
    const struct pme_core *p = pme_core_of(core);
    flush_add_counter(&f->nstats, f->stats, LK_STAT_PME_TAKEN, p->rep_taken);
    flush_add_counter(&f->nstats, f->stats, LK_STAT_PME_SENT, p->sent);
    flush_add_counter(&f->nstats, f->stats, LK_STAT_PAIRS_TAKEN, p->rep_pairs_taken);
    flush_add_counter(&f->nstats, f->stats, LK_STAT_PAIRS_SENT, p->pairs_sent);
    flush_add_counter(&f->ndrops, f->drops, LK_DROP_RING_OVERFLOW, pmu_window_of(core)->pme_dropped + p->rep_resync_lost);
    flush_add_counter(&f->ndrops, f->drops, LK_DROP_AGG_FULL, p->rep_agg_full);
    flush_add_counter(&f->ndrops, f->drops, LK_DROP_PAIR_FULL, p->rep_pair_full + p->link_full_pairs);
    flush_add_counter(&f->ndrops, f->drops, LK_DROP_LINK_FULL, p->link_full);
    flush_add_counter(&f->ndrops, f->drops, LK_DROP_HALF_PAIR, p->rep_half_pair);
}

static void pme_summary(unsigned ncores)
{
    if (!pme_ncores)
        return;
    uint64_t t = 0, sent = 0, pt = 0, ps = 0, lost = 0, ring = 0, plost = 0;
    for (unsigned c = 0; c < ncores; c++) {
        const struct pme_core *p = pme_core_of(c);
        t += p->taken;
        sent += p->sent;
        pt += p->pairs_taken;
        ps += p->pairs_sent;
        lost += p->agg_full + p->link_full;
        plost += p->pair_full + p->link_full_pairs + p->half_pair;
        ring += pmu_window_of(c)->pme_dropped + p->resync_lost;
    }
    mon_printf("monitor: ProfileMe: %lu records taken, %lu sent, %lu dropped, %lu lost in full rings; "
               "%lu pairs taken, %lu sent, %lu dropped\n", (unsigned long)t, (unsigned long)sent,
               (unsigned long)lost, (unsigned long)ring, (unsigned long)pt, (unsigned long)ps,
               (unsigned long)plost);
}

static void pme_tick(unsigned core, uint64_t pc, uint64_t due_ns, int sampling)
{
    (void)pc;
    (void)due_ns;
    (void)sampling;         /* after STOP: what the ring still holds */
    pme_drain(core);
}

static void pme_interrupt_hook(unsigned core, int collecting)
{
    (void)collecting;
    pme_interrupt(core);
}

/* Owner core: hand the active bank over (final: without waiting, and
 * collect nothing after). */
static void pme_flush(unsigned core, int final)
{
    if (final)
        pme_final(core);
    else
        pme_drain(core);    /* hands the bank over if asked */
}

static void pme_announce(unsigned ncores)
{
    mon_printf("monitor: profiling with %s every %lu..%lu %s%s on %u cores, link on COM2%s\n",
               config->mode == LK_MODE_PAIRED ? "ProfileMe pairs" : "ProfileMe",
               (unsigned long)config->pme_min, (unsigned long)config->pme_max,
               config->pme_draw & BOOT_PME_DRAW_TIME ? "cycles (time-proportional)" : "fetched instructions",
               config->pme_draw & BOOT_PME_DRAW_GEOMETRIC ? " (geometric, their mean)" : "", ncores,
               config->baud ? " (paced)" : "");
}

const struct sample_source pme_source = {
    .name = "profileme",
    .caps = pme_source_caps,
    .init = pme_init,
    .start = pme_start,
    .stop = pme_stop,
    .stop_before_final_flush = 1,
    .tick = pme_tick,
    .interrupt = pme_interrupt_hook,
    .flush = pme_flush,
    .send = pme_send,
    .discard = pme_discard,
    .pending = pme_pending,
    .request_flush = pme_request_flush,
    .send_names = pme_send_names,
    .add_counters = pme_flush_counters,
    .announce = pme_announce,
    .summary = pme_summary,
};
