/*
 * Tag-only set-associative cache with true LRU: each set keeps its tags
 * most recent first, so a hit moves its tag to the front and a miss
 * evicts the last.  Invariant: a valid tag appears at most once per set.
 */
#include "hw-model/model/cache.h"

#include <stdlib.h>
#include <string.h>

static unsigned log2u(uint64_t v)
{
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        n++;
    }
    return n;
}

int cache_init(struct cache *c, uint64_t size, unsigned ways, unsigned line)
{
    memset(c, 0, sizeof *c);
    if (!ways || !line || size < (uint64_t)ways * line || (line & (line - 1)))
        return -1;
    c->ways = ways;
    c->line_shift = log2u(line);
    c->sets = (unsigned)(size / line / ways);
    if (c->sets & (c->sets - 1))
        return -1;
    c->tags = calloc((size_t)c->sets * ways, sizeof *c->tags);
    return c->tags ? 0 : -1;
}

void cache_free(struct cache *c)
{
    free(c->tags);
    c->tags = NULL;
}

bool cache_access(struct cache *c, uint64_t addr)
{
    uint64_t line = addr >> c->line_shift;
    uint64_t *set = &c->tags[(line & (c->sets - 1)) * c->ways];
    uint64_t tag = line << 1 | 1;
    c->accesses++;
    for (unsigned i = 0; i < c->ways; i++) {
        if (set[i] == tag) {
            memmove(&set[1], &set[0], i * sizeof *set);
            set[0] = tag;
            return true;
        }
    }
    c->misses++;
    memmove(&set[1], &set[0], (c->ways - 1) * sizeof *set);
    set[0] = tag;
    return false;
}
