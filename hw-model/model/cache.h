/* A set-associative cache (or TLB) with LRU replacement: tags only. */
#ifndef HW_MODEL_CACHE_H
#define HW_MODEL_CACHE_H

#include <stdbool.h>
#include <stdint.h>

struct cache {
    unsigned sets, ways, line_shift;
    uint64_t *tags;             /* sets * ways, tag | 1 (valid), most recent first */
    uint64_t accesses, misses;
};

/* size and line in bytes (powers of two), ways >= 1. */
int cache_init(struct cache *c, uint64_t size, unsigned ways, unsigned line);
void cache_free(struct cache *c);
/* The rest of cache_access once the most recent way did not match. */
bool cache_access_rest(struct cache *c, uint64_t *set, uint64_t tag);
/* Looks addr up and fills it on a miss; true on a hit.  The common case,
 * a hit on the set's most recent tag, is inline and changes no order. */
static inline bool cache_access(struct cache *c, uint64_t addr)
{
    uint64_t line = addr >> c->line_shift;
    uint64_t *set = &c->tags[(line & (c->sets - 1)) * c->ways];
    uint64_t tag = line << 1 | 1;
    c->accesses++;
    if (__builtin_expect(set[0] == tag, 1))
        return true;
    return cache_access_rest(c, set, tag);
}

#endif
