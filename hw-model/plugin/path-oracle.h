/*
 * The sample-path oracle (hw-model/oracle-format.h, PATH.pmepaths): per
 * core, a ring of the last ORACLE_PMEPATH_DEPTH control-flow events of
 * retired instructions, and a log of it at every retired ProfileMe-tagged
 * instruction, so the host can check a path reconstructed from the
 * sample's history bits against the exact one.  Each vCPU thread writes its
 * own core's ring and log; the file is written at exit.
 *
 * Invariant: path_oracle_sample() for an instruction is called before
 * path_oracle_retired() for it, so the logged ring holds exactly what
 * retired before it (what the sample's history describes).
 */
#ifndef HW_MODEL_PLUGIN_PATH_ORACLE_H
#define HW_MODEL_PLUGIN_PATH_ORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/oracle-format.h"

struct path_ring {
    uint64_t t[ORACLE_PMEPATH_DEPTH];   /* circular; newest at head - 1 */
    uint32_t head, n;
};

extern struct path_ring *path_oracle_rings;     /* per core; NULL: off */

int path_oracle_init(unsigned ncores);

/* A retired (or trapped: next_pc its handler) instruction of class cls. */
static inline void path_oracle_retired(unsigned core, uint64_t pc, unsigned cls, uint64_t next_pc)
{
    uint64_t t;
    if (cls == ALPHA_BRANCH_COND)
        t = pc | (next_pc != pc + 4 ? PMEPATH_TAKEN : PMEPATH_FALL);
    else if (cls == ALPHA_BRANCH || cls == ALPHA_JUMP)
        t = pc | PMEPATH_JUMP;
    else if (next_pc != pc + 4)
        t = pc | PMEPATH_OTHER;
    else
        return;
    struct path_ring *r = &path_oracle_rings[core];
    r->t[r->head] = t;
    r->head = (r->head + 1) % ORACLE_PMEPATH_DEPTH;
    if (r->n < ORACLE_PMEPATH_DEPTH)
        r->n++;
}

/* A ProfileMe-tagged instruction retired. */
void path_oracle_sample(unsigned core, uint64_t pc, uint64_t fetch_cycle, uint32_t history);
/* Writes path (atomically); 0, or -1 with errno. */
int path_oracle_write(const char *path, uint64_t run_id);

#endif
