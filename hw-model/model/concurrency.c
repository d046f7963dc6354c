/*
 * Exact useful concurrency per instruction (concurrency.h: the design
 * notes).  Invariants: the slots hold exactly the issues of the issue FIFO,
 * each at slot cycle % CONC_RING; prefix[c + 1] - prefix[c] is slot c's
 * count for every cycle c in [pf_lo, pf_hi), pf_hi - pf_lo < CONC_RING.
 */
#include "hw-model/model/concurrency.h"

#include <string.h>

void conc_init(struct concurrency *c)
{
    memset(c, 0, sizeof *c);
}

#define SLOT(cycle) ((uint32_t)((cycle) & (CONC_RING - 1)))

/* The oldest cycle the ring still answers for (note 2). */
static uint64_t oldest_kept(const struct concurrency *c)
{
    return c->final_end > CONC_RING / 2 ? c->final_end - CONC_RING / 2 : 0;
}

/* A cycle's slot changed: cut the running sums where the window holds
 * that slot, if it does (note 5). */
static void slot_add(struct concurrency *c, uint64_t cycle, int32_t d)
{
    c->slot[SLOT(cycle)] += (uint32_t)d;
    uint64_t at = c->pf_lo + SLOT(cycle - c->pf_lo);     /* the window's cycle of that slot */
    if (at >= c->pf_hi)
        return;
    if (at < oldest_kept(c))
        c->pf_lo = at + 1;
    else
        c->pf_hi = at;
}

/* Issues in the slots of cycles [a, b] one by one, around the ring as
 * far as b's slot (b - a >= CONC_RING - 1: never in a run, note 3). */
static uint32_t slots_sum(const struct concurrency *c, uint64_t a, uint64_t b)
{
    uint32_t n = 0;
    for (uint32_t s = SLOT(a);; s = SLOT(s + 1)) {
        n += c->slot[s];
        if (s == SLOT(b))
            return n;
    }
}

/* Issues in cycles [a, b], a <= b. */
static uint32_t range(struct concurrency *c, uint64_t a, uint64_t b)
{
    if (b - a >= CONC_RING - 1)
        return slots_sum(c, a, b);
    if (a < c->pf_lo || a > c->pf_hi) {
        c->pf_lo = c->pf_hi = a;
        c->prefix[SLOT(a)] = 0;
    }
    for (uint64_t h = c->pf_hi; h <= b; h++)
        c->prefix[SLOT(h + 1)] = c->prefix[SLOT(h)] + c->slot[SLOT(h)];
    if (c->pf_hi <= b)
        c->pf_hi = b + 1;
    if (c->pf_hi - c->pf_lo > CONC_RING - 1)
        c->pf_lo = c->pf_hi - (CONC_RING - 1);
    return c->prefix[SLOT(b + 1)] - c->prefix[SLOT(a)];
}

static void settle_head(struct concurrency *c)
{
    struct conc_wait *w = &c->wait[c->head & (CONC_WAIT - 1)];
    uint64_t a = w->fetch, b = w->retready, lo = oldest_kept(c);
    if (a < lo) {
        a = lo;
        c->clipped++;
    }
    uint32_t n = a <= b ? range(c, a, b) : 0;
    *w->useful += n ? n - 1 : 0;        /* not itself */
    c->head++;
}

/* Issues older than the ring keeps leave it. */
static void age(struct concurrency *c)
{
    uint64_t lo = oldest_kept(c);
    while (c->ihead != c->itail && c->issue_cycle[c->ihead & (CONC_ISSUES - 1)] < lo) {
        slot_add(c, c->issue_cycle[c->ihead & (CONC_ISSUES - 1)], -1);
        c->ihead++;
    }
}

void conc_note(struct concurrency *c, uint64_t fetch, uint64_t issue, uint64_t retready, uint64_t *useful)
{
    if (fetch > c->final_end)
        c->final_end = fetch;
    while (c->head != c->tail && c->wait[c->head & (CONC_WAIT - 1)].retready < c->final_end)
        settle_head(c);
    age(c);
    if (c->itail - c->ihead == CONC_ISSUES) {   /* (never at 4 a cycle over CONC_RING / 2 cycles) */
        slot_add(c, c->issue_cycle[c->ihead & (CONC_ISSUES - 1)], -1);
        c->ihead++;
    }
    c->issue_cycle[c->itail++ & (CONC_ISSUES - 1)] = issue;
    slot_add(c, issue, 1);
    if (c->tail - c->head == CONC_WAIT) {       /* full: the oldest with what is final so far */
        struct conc_wait *w = &c->wait[c->head & (CONC_WAIT - 1)];
        if (w->retready >= c->final_end)
            w->retready = c->final_end ? c->final_end - 1 : 0;
        c->clipped++;
        settle_head(c);
    }
    c->wait[c->tail++ & (CONC_WAIT - 1)] = (struct conc_wait){useful, fetch, retready};
}

void conc_flush(struct concurrency *c)
{
    while (c->head != c->tail)
        settle_head(c);
}
