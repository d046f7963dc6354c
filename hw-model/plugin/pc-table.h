/* The oracle's per-PC truth for one core: an open-addressing hash table. */
#ifndef HW_MODEL_PC_TABLE_H
#define HW_MODEL_PC_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"

struct pc_table {
    struct oracle_pc *slots;    /* pc == 0 and executions == 0: free */
    size_t cap, used;
};

int pc_table_init(struct pc_table *t, size_t cap);
void pc_table_free(struct pc_table *t);
/* The entry of pc, created if new; NULL only when memory runs out. */
struct oracle_pc *pc_table_get(struct pc_table *t, uint64_t pc);

#endif
