#include "hw-model/plugin/pc-table.h"

#include <stdlib.h>
#include <string.h>

int pc_table_init(struct pc_table *t, size_t cap)
{
    t->cap = cap;
    t->used = 0;
    t->slots = calloc(cap, sizeof *t->slots);
    return t->slots ? 0 : -1;
}

void pc_table_free(struct pc_table *t)
{
    free(t->slots);
    t->slots = NULL;
}

static size_t slot_of(uint64_t pc, size_t cap)
{
    return (size_t)((pc >> 2) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static int grow(struct pc_table *t)
{
    struct pc_table bigger;
    if (pc_table_init(&bigger, t->cap * 2))
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        struct oracle_pc *e = &t->slots[i];
        if (!e->executions)
            continue;
        size_t j = slot_of(e->pc, bigger.cap);
        while (bigger.slots[j].executions)
            j = (j + 1) & (bigger.cap - 1);
        bigger.slots[j] = *e;
        bigger.used++;
    }
    free(t->slots);
    *t = bigger;
    return 0;
}

struct oracle_pc *pc_table_get(struct pc_table *t, uint64_t pc)
{
    if (2 * (t->used + 1) > t->cap && grow(t))
        return NULL;
    size_t i = slot_of(pc, t->cap);
    while (t->slots[i].executions && t->slots[i].pc != pc)
        i = (i + 1) & (t->cap - 1);
    struct oracle_pc *e = &t->slots[i];
    if (!e->executions) {
        e->pc = pc;
        t->used++;
    }
    return e;
}
