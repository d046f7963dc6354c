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
/* Looks addr up and fills it on a miss; true on a hit. */
bool cache_access(struct cache *c, uint64_t addr);

#endif
