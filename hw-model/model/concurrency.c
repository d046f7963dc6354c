/*
 * Exact useful concurrency per instruction (concurrency.h: the design
 * notes).  Invariant: the tree holds exactly the issues of the issue FIFO,
 * each at slot cycle % CONC_RING.
 */
#include "hw-model/model/concurrency.h"

#include <string.h>

void conc_init(struct concurrency *c)
{
    memset(c, 0, sizeof *c);
}

static void tree_add(struct concurrency *c, uint64_t cycle, int32_t d)
{
    for (uint32_t i = (uint32_t)(cycle & (CONC_RING - 1)) + 1; i <= CONC_RING; i += i & -i)
        c->tree[i] += (uint32_t)d;
}

/* Issues in slots [0, s]. */
static uint32_t tree_prefix(const struct concurrency *c, uint32_t s)
{
    uint32_t n = 0;
    for (uint32_t i = s + 1; i; i -= i & -i)
        n += c->tree[i];
    return n;
}

/* Issues in cycles [a, b], b - a < CONC_RING. */
static uint32_t tree_range(const struct concurrency *c, uint64_t a, uint64_t b)
{
    uint32_t sa = (uint32_t)(a & (CONC_RING - 1)), sb = (uint32_t)(b & (CONC_RING - 1));
    uint32_t below = sa ? tree_prefix(c, sa - 1) : 0;
    if (sa <= sb)
        return tree_prefix(c, sb) - below;
    return tree_prefix(c, CONC_RING - 1) - below + tree_prefix(c, sb);   /* wraps */
}

/* The oldest cycle the tree still answers for (note 2). */
static uint64_t oldest_kept(const struct concurrency *c)
{
    return c->final_end > CONC_RING / 2 ? c->final_end - CONC_RING / 2 : 0;
}

static void settle_head(struct concurrency *c)
{
    struct conc_wait *w = &c->wait[c->head & (CONC_WAIT - 1)];
    uint64_t a = w->fetch, b = w->retready, lo = oldest_kept(c);
    if (a < lo) {
        a = lo;
        c->clipped++;
    }
    uint32_t n = a <= b ? tree_range(c, a, b) : 0;
    *w->useful += n ? n - 1 : 0;        /* not itself */
    c->head++;
}

/* Issues older than the tree keeps leave it. */
static void age(struct concurrency *c)
{
    uint64_t lo = oldest_kept(c);
    while (c->ihead != c->itail && c->issue_cycle[c->ihead & (CONC_ISSUES - 1)] < lo) {
        tree_add(c, c->issue_cycle[c->ihead & (CONC_ISSUES - 1)], -1);
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
        tree_add(c, c->issue_cycle[c->ihead & (CONC_ISSUES - 1)], -1);
        c->ihead++;
    }
    c->issue_cycle[c->itail++ & (CONC_ISSUES - 1)] = issue;
    tree_add(c, issue, 1);
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
