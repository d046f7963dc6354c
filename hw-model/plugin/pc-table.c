#include "hw-model/plugin/pc-table.h"

#include <stdlib.h>
#include <string.h>

int pc_table_init(struct pc_table *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    if (cap < 16 || (cap & (cap - 1)))
        return -1;
    t->cap = cap;
    t->index = calloc(cap, sizeof *t->index);
    return t->index ? 0 : -1;
}

void pc_table_free(struct pc_table *t)
{
    for (size_t i = 0; i < PC_TABLE_CHUNKS; i++)
        free(t->chunks[i]);
    free(t->index);
    memset(t, 0, sizeof *t);
}

static size_t slot_of(uint64_t pc, size_t cap)
{
    return (size_t)((pc >> 2) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static int grow(struct pc_table *t)
{
    size_t cap = t->cap * 2;
    struct pc_index_slot *index = calloc(cap, sizeof *index);
    if (!index)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->index[i].idx)
            continue;
        size_t j = slot_of(t->index[i].pc, cap);
        while (index[j].idx)
            j = (j + 1) & (cap - 1);
        index[j] = t->index[i];
    }
    free(t->index);
    t->index = index;
    t->cap = cap;
    return 0;
}

struct oracle_pc *pc_table_get(struct pc_table *t, uint64_t pc)
{
    size_t i = slot_of(pc, t->cap);
    while (t->index[i].idx) {
        if (t->index[i].pc == pc)
            return pc_table_entry(t, t->index[i].idx - 1);
        i = (i + 1) & (t->cap - 1);
    }
    /* new PC */
    size_t n = t->used;
    if (n >= (size_t)PC_TABLE_CHUNK * PC_TABLE_CHUNKS)
        return NULL;
    if (!t->chunks[n / PC_TABLE_CHUNK] &&
        !(t->chunks[n / PC_TABLE_CHUNK] = calloc(PC_TABLE_CHUNK, sizeof(struct oracle_pc))))
        return NULL;
    if (2 * (n + 1) > t->cap) {
        if (grow(t))
            return NULL;
        i = slot_of(pc, t->cap);
        while (t->index[i].idx)
            i = (i + 1) & (t->cap - 1);
    }
    struct oracle_pc *e = pc_table_entry(t, n);
    e->pc = pc;
    t->index[i] = (struct pc_index_slot){.pc = pc, .idx = (uint32_t)(n + 1)};
    __atomic_store_n(&t->used, n + 1, __ATOMIC_RELEASE);
    return e;
}
