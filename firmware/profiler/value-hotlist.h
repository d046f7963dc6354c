/*
 * Value hotlists: per (PC, value kind), the most frequent values seen by
 * the value-sampling interpreter, kept as Gibbons-Matias concise samples
 * (SIGMOD 1998) in constant space.  Pure C, integers only (the sampling
 * path has no FP registers); the host unit tests build the same file.
 *
 * Design notes:
 *   1. A hotlist holds at most HOTLIST_VALUES (value, count, tau) triples
 *      and an entry threshold tau, a power of two; each pair has its own
 *      tau, a power of two no greater than the hotlist's.  An offered
 *      value is sampled with probability 1 / (its pair's tau), or 1 / (the
 *      hotlist's tau) if it is not held: counted if held, else added with
 *      the hotlist's tau.  One random word decides both: its low bits
 *      below a tau are zero with probability 1/tau.
 *   2. When a new value finds the hotlist full, the hotlist's tau doubles
 *      and every cold pair, one whose estimate count * tau is at most the
 *      new tau, is thinned to it: each of its points is kept with
 *      probability (old tau) / (new tau), the AND of that many coins
 *      (Gibbons-Matias allow any larger tau, and a point may be thinned
 *      on its own, so long as its chance to be held stays exactly 1 /
 *      its tau); pairs left at 0 go.  The new value's point, at the old
 *      entry tau, is kept with probability 1/2, and the step repeats
 *      until it is either lost or finds room.  Every decision uses only
 *      what came before, so for every value held or not the sum of count
 *      * tau over its pairs estimates its frequency without bias (each
 *      point's weight is a martingale), and `offered` counts every value
 *      offered, exactly.  Why not thin every pair (plain concise
 *      samples): a load with a few frequent values and many seen once
 *      (valuemix's skewed[]) fills its hotlist with singletons, and each
 *      doubling halved the frequent values' points too, so they ended
 *      at tau 16-32 with a standard error of 3-4 points of share; hot
 *      pairs keep the tau they had, at most the tau where they entered,
 *      and the singletons are the ones thinned.
 *   3. The hotlists of a core sit in one fixed array (struct hotlist_area),
 *      found by hashing (PC, kind), linear probing over HOTLIST_PROBE
 *      slots; a key that finds no slot is dropped and counted
 *      (dropped_no_slot), never silently.
 *   4. Values live in chunks of HOTLIST_CHUNK pairs from the area's pool,
 *      handed out as hotlists fill and returned only when the whole area
 *      is cleared.  A hotlist gets its first chunk when it is created (no
 *      chunk left: no slot, note 3) and another when it is full, up to
 *      HOTLIST_MAX_CHUNKS; only a hotlist that cannot grow raises tau.
 *      Most (PC, kind) pairs see a handful of values, so the same RAM that
 *      gave every hotlist 16 pairs lets the few with many distinct values
 *      keep HOTLIST_VALUES, at a tau that much lower.
 *   5. A value found at position i > 0 swaps with position i - 1, so the
 *      frequent values are found after a few compares.  The header keeps
 *      a one-byte tag (a hash) of every held value, eight to a quadword,
 *      so a value not held is known after reading the header alone: in
 *      the sampling path each cache line touched is likely a miss.
 *
 * Invariants: 0 < count for every held pair; entries <= nchunks *
 * HOTLIST_CHUNK <= HOTLIST_VALUES; a hotlist's tau is a power of two and
 * only grows; a pair's tau is a power of two, at most the hotlist's, and
 * only grows; sum of count * (pair's tau) estimates offered;
 * chunks_used <= HOTLIST_POOL.
 */
#ifndef FIRMWARE_PROFILER_VALUE_HOTLIST_H
#define FIRMWARE_PROFILER_VALUE_HOTLIST_H

#include <stdint.h>

#include "firmware/abi/value-capture.h"

#define HOTLIST_CHUNK      8    /* (value, count) pairs a chunk holds */
#define HOTLIST_MAX_CHUNKS 6    /* chunks one hotlist may take (note 4); at most 7 */
#define HOTLIST_VALUES     (HOTLIST_CHUNK * HOTLIST_MAX_CHUNKS)     /* pairs per (PC, kind), at most */
#define HOTLIST_SLOTS      1024 /* (PC, kind) hotlists per bank: a power of two */
#define HOTLIST_POOL       1536 /* chunks per bank: 1.5 a slot; a bank takes 252 KB of the core's
                                   fixed VALUES_PER_CORE (16 pairs a slot took 224 KB) */
#define HOTLIST_PROBE      8

struct hotlist_chunk {
    uint64_t value[HOTLIST_CHUNK];
    uint32_t count[HOTLIST_CHUNK];
    uint8_t shift[HOTLIST_CHUNK];       /* the pair's tau is 1 << shift (note 1) */
};

struct hotlist {
    uint64_t pc;                /* 0: free slot */
    uint32_t kind;
    uint32_t tau;               /* a power of two: new values enter with 1/tau (note 1) */
    uint32_t entries;
    uint32_t nchunks;
    uint64_t offered;           /* values offered, exactly */
    uint16_t chunk[HOTLIST_MAX_CHUNKS];     /* pool indices, nchunks of them */
    uint16_t hot;               /* pairs whose tau is below the hotlist's (note 1) */
    uint16_t pad[7 - HOTLIST_MAX_CHUNKS];
    uint64_t tag[HOTLIST_MAX_CHUNKS];       /* byte i % 8 of tag[i / 8]: pair i's tag (note 5) */
};

struct hotlist_area {
    uint64_t rng;               /* SplitMix64 state */
    uint64_t offered;           /* values offered to any hotlist */
    uint64_t dropped_no_slot;   /* values whose (PC, kind) found no slot */
    uint64_t thinnings;         /* tau doublings */
    uint64_t chunks_used;       /* pool[0 .. chunks_used) handed out */
    struct hotlist slot[HOTLIST_SLOTS];
    struct hotlist_chunk pool[HOTLIST_POOL];    /* not cleared: a chunk is set up when handed out */
};

/* Pair i of hotlist h (i < h->entries). */
static inline uint64_t *hotlist_value(struct hotlist_area *a, const struct hotlist *h, unsigned i)
{
    return &a->pool[h->chunk[i / HOTLIST_CHUNK]].value[i % HOTLIST_CHUNK];
}
static inline uint32_t *hotlist_count(struct hotlist_area *a, const struct hotlist *h, unsigned i)
{
    return &a->pool[h->chunk[i / HOTLIST_CHUNK]].count[i % HOTLIST_CHUNK];
}
static inline uint8_t *hotlist_shift(struct hotlist_area *a, const struct hotlist *h, unsigned i)
{
    return &a->pool[h->chunk[i / HOTLIST_CHUNK]].shift[i % HOTLIST_CHUNK];
}

/* Clears the slots (not the pool: note 4) and seeds the coin flips. */
void hotlist_area_init(struct hotlist_area *a, uint64_t seed);
/* The hotlist of (pc, kind), created if need be; NULL if none is free. */
struct hotlist *hotlist_find(struct hotlist_area *a, uint64_t pc, unsigned kind);
/* Offers one value (design notes 1 and 2). */
void hotlist_offer(struct hotlist_area *a, struct hotlist *h, uint64_t value);
/* Orders h's pairs by their tau, lowest first, keeping their order
 * otherwise (the sender makes one VALUES entry per run of one tau). */
void hotlist_sort_by_tau(struct hotlist_area *a, struct hotlist *h);
/* hotlist_find + hotlist_offer, counting a miss as dropped_no_slot. */
void hotlist_record(struct hotlist_area *a, uint64_t pc, unsigned kind, uint64_t value);


#endif
