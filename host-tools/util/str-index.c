/*
 * Strings numbered in the order first seen (str-index.h).
 *
 * Invariants: numbers are dense from 0 and never change; the hash table is
 * at most half full and holds every string once.
 */
#include "util/str-index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/strvec.h"

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;        /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Keeps the table at most half full, so probes stay short. */
static void grow(struct str_index *ix)
{
    size_t nslots = ix->nslots ? 2 * ix->nslots : 64;
    size_t *slots = xmalloc(nslots * sizeof *slots);
    memset(slots, 0, nslots * sizeof *slots);
    for (size_t i = 0; i < ix->n; i++) {
        size_t h = (size_t)hash(ix->keys[i]) & (nslots - 1);
        while (slots[h])
            h = (h + 1) & (nslots - 1);
        slots[h] = i + 1;
    }
    free(ix->slots);
    ix->slots = slots;
    ix->nslots = nslots;
}

size_t str_index_get(struct str_index *ix, const char *s, bool *added)
{
    if (2 * (ix->n + 1) > ix->nslots)
        grow(ix);
    size_t h = (size_t)hash(s) & (ix->nslots - 1);
    for (; ix->slots[h]; h = (h + 1) & (ix->nslots - 1))
        if (strcmp(ix->keys[ix->slots[h] - 1], s) == 0) {
            if (added)
                *added = false;
            return ix->slots[h] - 1;
        }
    if (ix->n == ix->cap) {
        ix->cap = ix->cap ? 2 * ix->cap : 64;
        ix->keys = xrealloc(ix->keys, ix->cap * sizeof *ix->keys);
    }
    ix->keys[ix->n] = xstrdup(s);
    ix->slots[h] = ++ix->n;
    if (added)
        *added = true;
    return ix->n - 1;
}

void str_index_free(struct str_index *ix)
{
    for (size_t i = 0; i < ix->n; i++)
        free(ix->keys[i]);
    free(ix->keys);
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}
