/* Concise-sample hotlists: see value-hotlist.h for the design notes. */
#include "firmware/profiler/value-hotlist.h"

#include <stddef.h>

_Static_assert(offsetof(struct hotlist_area, slot) % 8 == 0 && offsetof(struct hotlist_area, pool) % 8 == 0,
               "cleared a quadword at a time");
_Static_assert(HOTLIST_MAX_CHUNKS <= 8 && HOTLIST_POOL < 65536, "chunk indices fit the hotlist's u16 array");

static uint64_t next_random(struct hotlist_area *a)
{
    uint64_t x = a->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return a->rng = x;
}

/* Seeds are small numbers (1, core * 2 + bank + 1, ...): xorshift's first
 * outputs from a seed with few bits set have few bits set, and the first
 * thinning (popcounts of them) would keep far fewer than half the points.
 * SplitMix64's finaliser spreads the seed over all 64 bits first. */
static uint64_t spread_seed(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z ? z : 0x9e3779b97f4a7c15ull;
}

void hotlist_area_init(struct hotlist_area *a, uint64_t seed)
{
    uint64_t *p = (uint64_t *)a;
    for (size_t i = 0; i < offsetof(struct hotlist_area, pool) / 8; i++)  /* freestanding: no memset here */
        p[i] = 0;
    a->rng = spread_seed(seed);
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

#define BYTES_01 0x0101010101010101ull

static unsigned tag_of(uint64_t value)
{
    return (unsigned)((value * 0x9e3779b97f4a7c15ull) >> 56);
}

static void set_tag(struct hotlist *h, unsigned i, unsigned t)
{
    unsigned sh = 8 * (i % HOTLIST_CHUNK);
    h->tag[i / HOTLIST_CHUNK] = (h->tag[i / HOTLIST_CHUNK] & ~(0xffull << sh)) | (uint64_t)t << sh;
}

static unsigned get_tag(const struct hotlist *h, unsigned i)
{
    return (unsigned)(h->tag[i / HOTLIST_CHUNK] >> 8 * (i % HOTLIST_CHUNK)) & 0xff;
}

/* Doubles tau and thins every count (design note 2); the chunks stay. */
static void raise_tau(struct hotlist_area *a, struct hotlist *h)
{
    unsigned kept = 0;
    for (unsigned i = 0; i < h->entries; i++) {
        uint32_t c = thin_half(a, *hotlist_count(a, h, i));
        if (c) {
            *hotlist_value(a, h, kept) = *hotlist_value(a, h, i);
            *hotlist_count(a, h, kept) = c;
            set_tag(h, kept, get_tag(h, i));
            kept++;
        }
    }
    h->entries = kept;
    h->tau *= 2;
    a->thinnings++;
}

/* One more chunk for h (note 4); 0 if it may not grow or none is left. */
static int grow(struct hotlist_area *a, struct hotlist *h)
{
    if (h->nchunks == HOTLIST_MAX_CHUNKS || a->chunks_used == HOTLIST_POOL)
        return 0;
    h->chunk[h->nchunks++] = (uint16_t)a->chunks_used++;
    return 1;
}

void hotlist_offer(struct hotlist_area *a, struct hotlist *h, uint64_t value)
{
    h->offered++;
    a->offered++;
    if (h->tau > 1 && (next_random(a) & (h->tau - 1)))
        return;                                 /* not sampled: probability 1 - 1/tau */
    unsigned t = tag_of(value);
    for (unsigned c = 0; c * HOTLIST_CHUNK < h->entries; c++) {
        uint64_t x = h->tag[c] ^ (t * BYTES_01);
        uint64_t zero = (x - BYTES_01) & ~x & (0x80 * BYTES_01);  /* a zero byte's top bit (and maybe false ones) */
        unsigned held = h->entries - c * HOTLIST_CHUNK;
        if (held < HOTLIST_CHUNK)
            zero &= (1ull << 8 * held) - 1;
        for (; zero; zero &= zero - 1) {
            unsigned i = c * HOTLIST_CHUNK + (unsigned)__builtin_ctzll(zero) / 8;
            uint64_t *pv = hotlist_value(a, h, i);
            if (*pv != value)
                continue;
            uint32_t *pc = hotlist_count(a, h, i);
            uint32_t n = *pc + 1;
            if (i) {                            /* note 5: one step towards the front */
                uint64_t *qv = hotlist_value(a, h, i - 1);
                uint32_t *qc = hotlist_count(a, h, i - 1);
                *pv = *qv;
                *pc = *qc;
                set_tag(h, i, get_tag(h, i - 1));
                *qv = value;
                *qc = n;
                set_tag(h, i - 1, t);
            } else {
                *pc = n;
            }
            return;
        }
    }
    while (h->entries == h->nchunks * HOTLIST_CHUNK && !grow(a, h)) {
        raise_tau(a, h);
        if (next_random(a) >> 63)
            return;                             /* the new point lost its own coin flip */
    }
    *hotlist_value(a, h, h->entries) = value;
    *hotlist_count(a, h, h->entries) = 1;
    set_tag(h, h->entries, t);
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
            if (!grow(a, h))
                return NULL;                    /* the pool is spent: no slot (note 4) */
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
