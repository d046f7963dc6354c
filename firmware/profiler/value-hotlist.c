/* Concise-sample hotlists: see value-hotlist.h for the design notes. */
#include "firmware/profiler/value-hotlist.h"

_Static_assert(sizeof(struct hotlist_area) % 8 == 0, "cleared a quadword at a time");

#include <stddef.h>

static uint64_t next_random(struct hotlist_area *a)
{
    uint64_t x = a->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return a->rng = x;
}

void hotlist_area_init(struct hotlist_area *a, uint64_t seed)
{
    uint64_t *p = (uint64_t *)a;
    for (size_t i = 0; i < sizeof *a / 8; i++)  /* freestanding: no memset in the sampling path */
        p[i] = 0;
    a->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

/* ctpop on ev67 (CIX): thinning flips 64 coins an instruction */
static unsigned popcount64(uint64_t x)
{
    return (unsigned)__builtin_popcountll(x);
}

/* Binomial(n, 1/2): each of n points kept by its own fair coin. */
static uint32_t thin_half(struct hotlist_area *a, uint32_t n)
{
    uint32_t kept = 0;
    while (n >= 64) {
        kept += popcount64(next_random(a));
        n -= 64;
    }
    if (n)
        kept += popcount64(next_random(a) & ((1ull << n) - 1));
    return kept;
}

/* Doubles tau and thins every count (design note 2). */
static void raise_tau(struct hotlist_area *a, struct hotlist *h)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < h->entries; i++) {
        uint32_t c = thin_half(a, h->count[i]);
        if (c) {
            h->value[kept] = h->value[i];
            h->count[kept] = c;
            kept++;
        }
    }
    h->entries = kept;
    h->tau *= 2;
    a->thinnings++;
}

void hotlist_offer(struct hotlist_area *a, struct hotlist *h, uint64_t value)
{
    h->offered++;
    a->offered++;
    if (h->tau > 1 && (next_random(a) & (h->tau - 1)))
        return;                                 /* not sampled: probability 1 - 1/tau */
    for (unsigned i = 0; i < h->entries; i++)
        if (h->value[i] == value) {
            h->count[i]++;
            return;
        }
    while (h->entries == HOTLIST_VALUES) {
        raise_tau(a, h);
        if (next_random(a) >> 63)
            return;                             /* the new point lost its own coin flip */
    }
    h->value[h->entries] = value;
    h->count[h->entries] = 1;
    h->entries++;
}

static unsigned slot_hash(uint64_t pc, unsigned kind)
{
    uint64_t x = ((pc >> 2) ^ (uint64_t)kind << 59) * 0x9e3779b97f4a7c15ull;
    return (unsigned)(x >> 40) & (HOTLIST_SLOTS - 1);
}

struct hotlist *hotlist_find(struct hotlist_area *a, uint64_t pc, unsigned kind)
{
    unsigned s = slot_hash(pc, kind);
    for (unsigned i = 0; i < HOTLIST_PROBE; i++) {
        struct hotlist *h = &a->slot[(s + i) & (HOTLIST_SLOTS - 1)];
        if (h->pc == pc && h->kind == kind)
            return h;
        if (h->pc == 0) {
            h->pc = pc;
            h->kind = kind;
            h->tau = 1;
            return h;
        }
    }
    return NULL;
}

void hotlist_record(struct hotlist_area *a, uint64_t pc, unsigned kind, uint64_t value)
{
    struct hotlist *h = hotlist_find(a, pc, kind);
    if (!h) {
        a->offered++;
        a->dropped_no_slot++;
        return;
    }
    hotlist_offer(a, h, value);
}
