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

bool cache_access_rest(struct cache *c, uint64_t *set, uint64_t tag)
{
    /* set[0] != tag: find it in ways 1.., shifting the more recent ones
     * down a place as we go (an inline loop, cheaper than memmove calls
     * for these few ways); a miss drops the last, least recent, tag */
    uint64_t prev = set[0];
    unsigned i;
    for (i = 1; i < c->ways; i++) {
        uint64_t cur = set[i];
        set[i] = prev;
        if (cur == tag)
            break;
        prev = cur;
    }
    set[0] = tag;
    if (i < c->ways)
        return true;
    c->misses++;
    return false;
}
