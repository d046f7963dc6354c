/*
 * Value hotlists: per (PC, value kind), the most frequent values seen by
 * the value-sampling interpreter, kept as Gibbons-Matias concise samples
 * (SIGMOD 1998) in constant space.  Pure C, integers only (the sampling
 * path has no FP registers); the host unit tests build the same file.
 *
 * Design notes:
 *   1. A hotlist holds at most HOTLIST_VALUES (value, count) pairs and a
 *      threshold tau, a power of two.  An offered value enters the sample
 *      with probability 1/tau: counted if present, else added.
 *   2. When a new value finds the hotlist full, tau doubles and every
 *      sample point is kept with probability 1/2 (count becomes a
 *      Binomial(count, 1/2) draw: the popcount of count random bits);
 *      pairs left at 0 go.  The new value's own point is kept with the
 *      same probability 1/2, and the step repeats until it is either lost
 *      or finds room.  So every offered value is in the sample with
 *      probability exactly 1/tau, and count * tau estimates its frequency
 *      without bias; `offered` counts every value offered, exactly.
 *   3. The hotlists of a core sit in one fixed array (struct hotlist_area),
 *      found by hashing (PC, kind), linear probing over HOTLIST_PROBE
 *      slots; a key that finds no slot is dropped and counted
 *      (dropped_no_slot), never silently.
 *
 * Invariants: 0 < count for every held pair; entries <= HOTLIST_VALUES;
 * tau is a power of two and only grows; sum of counts * tau estimates
 * offered.
 */
#ifndef FIRMWARE_PROFILER_VALUE_HOTLIST_H
#define FIRMWARE_PROFILER_VALUE_HOTLIST_H

#include <stdint.h>

#include "firmware/abi/value-capture.h"

#define HOTLIST_VALUES 16       /* pairs per (PC, kind) */
#define HOTLIST_SLOTS  1024     /* (PC, kind) hotlists per bank: a power of two */
#define HOTLIST_PROBE  8

struct hotlist {
    uint64_t pc;                /* 0: free slot */
    uint32_t kind;
    uint32_t tau;               /* a power of two */
    uint32_t entries;
    uint32_t pad;
    uint64_t offered;           /* values offered, exactly */
    uint64_t value[HOTLIST_VALUES];
    uint32_t count[HOTLIST_VALUES];
};

struct hotlist_area {
    uint64_t rng;               /* xorshift64 state, never 0 */
    uint64_t offered;           /* values offered to any hotlist */
    uint64_t dropped_no_slot;   /* values whose (PC, kind) found no slot */
    uint64_t thinnings;         /* tau doublings */
    struct hotlist slot[HOTLIST_SLOTS];
};

void hotlist_area_init(struct hotlist_area *a, uint64_t seed);
/* The hotlist of (pc, kind), created if need be; NULL if none is free. */
struct hotlist *hotlist_find(struct hotlist_area *a, uint64_t pc, unsigned kind);
/* Offers one value (design notes 1 and 2). */
void hotlist_offer(struct hotlist_area *a, struct hotlist *h, uint64_t value);
/* hotlist_find + hotlist_offer, counting a miss as dropped_no_slot. */
void hotlist_record(struct hotlist_area *a, uint64_t pc, unsigned kind, uint64_t value);


#endif
