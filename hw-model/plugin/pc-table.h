/*
 * The oracle's per-PC truth for one core: entries in fixed chunks, in the
 * order their PCs were first fetched (retired or only aborted), found
 * through an open-addressing index.  Entries never move, so callers may
 * keep pointers to them for the whole run, and the hot ones sit together
 * (first touched together) instead of scattered over a sparse table.
 *
 * Another thread may snapshot the table while its owner adds entries (the
 * oracle written on request): it reads `used` (acquire) and entries below
 * it; the owner fills an entry's pc before publishing used (release).
 */
#ifndef HW_MODEL_PC_TABLE_H
#define HW_MODEL_PC_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"

#define PC_TABLE_CHUNK      1024            /* entries per chunk */
#define PC_TABLE_CHUNKS     4096            /* at most 4 M distinct PCs */

struct pc_index_slot {
    uint64_t pc;
    uint32_t idx;                           /* entry number + 1; 0: free */
};

struct pc_table {
    struct pc_index_slot *index;
    size_t cap;                             /* index slots, a power of two */
    size_t used;                            /* entries */
    struct oracle_pc *chunks[PC_TABLE_CHUNKS];
};

int pc_table_init(struct pc_table *t, size_t cap);
void pc_table_free(struct pc_table *t);
/* The entry of pc, created if new; NULL only when memory runs out. */
struct oracle_pc *pc_table_get(struct pc_table *t, uint64_t pc);
/* Entry i < used (see above for reading from another thread). */
static inline struct oracle_pc *pc_table_entry(struct pc_table *t, size_t i)
{
    return &t->chunks[i / PC_TABLE_CHUNK][i % PC_TABLE_CHUNK];
}

#endif
