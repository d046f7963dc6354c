/*
 * The oracle's per-PC truth for one core: an open-addressing hash table.
 * An entry exists once its PC was fetched (retired or only aborted); free
 * slots hold PC_TABLE_FREE, which no instruction address can be.
 *
 * A table that grows keeps its old arrays until pc_table_free, so another
 * thread snapshotting it (the oracle written on request) never reads freed
 * memory: it loads cap (acquire) before slots; grow stores slots before cap
 * (release).  gen changes on every grow (cached entry pointers go stale).
 */
#ifndef HW_MODEL_PC_TABLE_H
#define HW_MODEL_PC_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"

#define PC_TABLE_FREE UINT64_MAX

struct pc_table {
    struct oracle_pc *slots;
    size_t cap, used;
    uint32_t gen;
    struct oracle_pc **old;     /* arrays replaced by grow */
    size_t nold;
};

int pc_table_init(struct pc_table *t, size_t cap);
void pc_table_free(struct pc_table *t);
/* The entry of pc, created if new; NULL only when memory runs out. */
struct oracle_pc *pc_table_get(struct pc_table *t, uint64_t pc);

#endif
