/* The sample-path oracle: see path-oracle.h and oracle-format.h. */
#include "hw-model/plugin/path-oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw-model/plugin/truth-file.h"

#define MAX_LOG (1u << 18)          /* samples logged per core (72 MiB at most) */

struct sample_log {
    struct oracle_pmepath_sample *s;
    size_t n, cap;
    uint64_t lost;
};

struct path_ring *path_oracle_rings;
static struct sample_log *logs;
static unsigned ncores_;

int path_oracle_init(unsigned ncores)
{
    path_oracle_rings = calloc(ncores, sizeof *path_oracle_rings);
    logs = calloc(ncores, sizeof *logs);
    if (!path_oracle_rings || !logs)
        return -1;
    ncores_ = ncores;
    return 0;
}

void path_oracle_sample(unsigned core, uint64_t pc, uint64_t fetch_cycle, uint32_t history)
{
    struct sample_log *l = &logs[core];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        void *p = cap <= MAX_LOG ? realloc(l->s, cap * sizeof *l->s) : NULL;
        if (!p) {
            l->lost++;
            return;
        }
        l->s = p;
        l->cap = cap;
    }
    struct oracle_pmepath_sample *s = &l->s[l->n++];
    const struct path_ring *r = &path_oracle_rings[core];
    *s = (struct oracle_pmepath_sample){.pc = pc, .fetch_cycle = fetch_cycle, .core = core,
                                        .history = history, .ntrans = r->n};
    for (uint32_t i = 0; i < r->n; i++)
        s->trans[i] = r->t[(r->head + ORACLE_PMEPATH_DEPTH - 1 - i) % ORACLE_PMEPATH_DEPTH];
}

int path_oracle_write(const char *path, uint64_t run_id)
{
    struct truth_file t;
    if (truth_file_open(&t, path))
        return -1;
    FILE *f = t.f;
    struct oracle_pmepath_header h = {.magic = ORACLE_PMEPATH_MAGIC, .version = ORACLE_PMEPATH_VERSION,
                                      .depth = ORACLE_PMEPATH_DEPTH, .run_id = run_id};
    for (unsigned c = 0; c < ncores_; c++) {
        h.nsamples += logs[c].n;
        h.lost += logs[c].lost;
    }
    fwrite(&h, sizeof h, 1, f);
    for (unsigned c = 0; c < ncores_; c++)
        fwrite(logs[c].s, sizeof *logs[c].s, logs[c].n, f);
    return truth_file_commit(&t, path);
}
