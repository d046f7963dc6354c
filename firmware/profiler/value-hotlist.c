/* Concise-sample hotlists: see value-hotlist.h for the design notes. */
#include "firmware/profiler/value-hotlist.h"

#include <stddef.h>

_Static_assert(offsetof(struct hotlist_area, slot) % 8 == 0 && offsetof(struct hotlist_area, pool) % 8 == 0,
               "cleared a quadword at a time");
_Static_assert(HOTLIST_MAX_CHUNKS <= 7 && HOTLIST_POOL < 65536, "chunk indices and hot fit the hotlist's u16 array");

/* SplitMix64's finaliser: spreads a 64-bit number over all 64 bits. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* SplitMix64: a Weyl sequence through the finaliser.  Not xorshift64: its
 * next output is a linear function of the state, so after a draw whose
 * bits below tau were zero (a value sampled) the next output's low bits
 * were zero too once tau >= 256 (one more per doubling), and the first
 * pair a raise thinned (often the most frequent value, at the front) lost
 * its first points every time; a value hot and then cold kept an eighth of
 * its expected estimate in the unit test. */
static uint64_t next_random(struct hotlist_area *a)
{
    a->rng += 0x9e3779b97f4a7c15ull;
    return mix64(a->rng);
}

/* Seeds are small numbers (1, core * 2 + bank + 1, ...): the state starts
 * from their finaliser, so areas seeded 1 and 2 do not walk the same
 * sequence one step apart. */
static uint64_t spread_seed(uint64_t z)
{
    return mix64(z + 0x9e3779b97f4a7c15ull);
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

/* Binomial(n, 2^-k): each of n points kept by its own k fair coins. */
static uint32_t thin(struct hotlist_area *a, uint32_t n, unsigned k)
{
    uint32_t kept = 0;
    while (n) {
        unsigned m = n < 64 ? n : 64;
        uint64_t keep = m == 64 ? ~0ull : (1ull << m) - 1;
        for (unsigned j = 0; j < k && keep; j++)
            keep &= next_random(a);
        kept += popcount64(keep);
        n -= m;
    }
    return kept;
}

static unsigned log2_of(uint32_t tau)
{
    return (unsigned)__builtin_ctz(tau);
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

/* Doubles the hotlist's tau and thins every cold pair to it (design note
 * 2); the chunks stay. */
static void raise_tau(struct hotlist_area *a, struct hotlist *h)
{
    uint32_t tau = h->tau * 2;
    unsigned to = log2_of(tau), kept = 0, hot = 0;
    for (unsigned i = 0; i < h->entries; i++) {
        uint32_t c = *hotlist_count(a, h, i);
        unsigned s = *hotlist_shift(a, h, i);
        if (((uint64_t)c << s) <= tau) {        /* cold: thinned to the new tau */
            c = thin(a, c, to - s);
            s = to;
        } else {
            hot++;
        }
        if (c) {
            *hotlist_value(a, h, kept) = *hotlist_value(a, h, i);
            *hotlist_count(a, h, kept) = c;
            *hotlist_shift(a, h, kept) = (uint8_t)s;
            set_tag(h, kept, get_tag(h, i));
            kept++;
        }
    }
    h->entries = kept;
    h->hot = (uint16_t)hot;
    h->tau = tau;
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
    /* note 1: sampled at tau iff r's bits below tau are all zero */
    uint64_t r = h->tau > 1 ? next_random(a) : 0;
    if ((r & (h->tau - 1)) && !h->hot)
        return;                                 /* not sampled at any tau held: probability 1 - 1/tau */
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
            uint8_t *ps = hotlist_shift(a, h, i);
            unsigned s = *ps;
            if (r & ((1ull << s) - 1))
                return;                         /* held, not sampled at its own tau */
            uint32_t *pc = hotlist_count(a, h, i);
            uint32_t n = *pc + 1;
            if (i) {                            /* note 5: one step towards the front */
                uint64_t *qv = hotlist_value(a, h, i - 1);
                uint32_t *qc = hotlist_count(a, h, i - 1);
                uint8_t *qs = hotlist_shift(a, h, i - 1);
                *pv = *qv;
                *pc = *qc;
                *ps = *qs;
                set_tag(h, i, get_tag(h, i - 1));
                *qv = value;
                *qc = n;
                *qs = (uint8_t)s;
                set_tag(h, i - 1, t);
            } else {
                *pc = n;
            }
            return;
        }
    }
    if (r & (h->tau - 1))
        return;                                 /* not held, not sampled at the hotlist's tau */
    while (h->entries == h->nchunks * HOTLIST_CHUNK && !grow(a, h)) {
        raise_tau(a, h);
        if (next_random(a) >> 63)
            return;                             /* the new point lost its own coin flip */
    }
    *hotlist_value(a, h, h->entries) = value;
    *hotlist_count(a, h, h->entries) = 1;
    *hotlist_shift(a, h, h->entries) = (uint8_t)log2_of(h->tau);
    set_tag(h, h->entries, t);
    h->entries++;
}

void hotlist_sort_by_tau(struct hotlist_area *a, struct hotlist *h)
{
    for (unsigned i = 1; i < h->entries; i++) {     /* insertion sort, stable: at most HOTLIST_VALUES */
        uint64_t v = *hotlist_value(a, h, i);
        uint32_t c = *hotlist_count(a, h, i);
        uint8_t s = *hotlist_shift(a, h, i);
        unsigned t = get_tag(h, i), j = i;
        for (; j > 0 && *hotlist_shift(a, h, j - 1) > s; j--) {
            *hotlist_value(a, h, j) = *hotlist_value(a, h, j - 1);
            *hotlist_count(a, h, j) = *hotlist_count(a, h, j - 1);
            *hotlist_shift(a, h, j) = *hotlist_shift(a, h, j - 1);
            set_tag(h, j, get_tag(h, j - 1));
        }
        *hotlist_value(a, h, j) = v;
        *hotlist_count(a, h, j) = c;
        *hotlist_shift(a, h, j) = s;
        set_tag(h, j, t);
    }
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
