/*
 * What else a profile holds (util/contents-hint.h).
 */
#include "util/contents-hint.h"

#include <stdio.h>

/* Each kind of data once: its count, what to call it, who shows it. */
static const struct {
    const char *sql, *what, *command;
} kinds[] = {
    {"SELECT coalesce(sum(count), 0) FROM samples", "counter samples", "alphaprof report"},
    {"SELECT coalesce(sum(samples), 0) FROM pme", "ProfileMe samples", "alphaprof pme"},
    {"SELECT count(*) FROM value_counts", "sampled load values", "alphaprof values"},
    {"SELECT count(*) FROM cct_records", "calling-context records", "alphaprof cct"},
    {"SELECT count(*) FROM path_counts", "counted paths", "alphaprof paths"},
};

void profile_contents_hint(struct pdb *db, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        int64_t n = 0;
        struct ap_err err;
        if (pdb_query_int(db, kinds[i].sql, &n, &err) || n <= 0)
            continue;
        int w = snprintf(buf + used, size - used, "%s%lld %s (%s)", used ? ", " : "it holds ", (long long)n,
                         kinds[i].what, kinds[i].command);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
}
