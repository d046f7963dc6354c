/*
 * Strings numbered in the order first seen, found again by hashing: the
 * string table of a pprof profile, callgrind's name compression.
 *
 * Invariants: numbers are dense from 0 in first-seen order and never
 * change; each distinct string has exactly one number.
 */
#ifndef ALPHAPROF_UTIL_STR_INDEX_H
#define ALPHAPROF_UTIL_STR_INDEX_H

#include <stdbool.h>
#include <stddef.h>

struct str_index {
    char **keys;            /* keys[i]: the string numbered i (owned copies) */
    size_t n, cap;
    size_t *slots;          /* open addressing: key number + 1, 0 = empty */
    size_t nslots;
};

/* The number of s, adding it if new (*added tells; may be NULL). */
size_t str_index_get(struct str_index *ix, const char *s, bool *added);
void str_index_free(struct str_index *ix);

#endif
