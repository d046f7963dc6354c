#include "hw-model/plugin/pc-table.h"

#include <stdlib.h>
#include <string.h>

static struct oracle_pc *new_slots(size_t cap)
{
    struct oracle_pc *s = calloc(cap, sizeof *s);
    for (size_t i = 0; s && i < cap; i++)
        s[i].pc = PC_TABLE_FREE;
    return s;
}

int pc_table_init(struct pc_table *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->cap = cap;
    t->slots = new_slots(cap);
    return t->slots ? 0 : -1;
}

void pc_table_free(struct pc_table *t)
{
    for (size_t i = 0; i < t->nold; i++)
        free(t->old[i]);
    free(t->old);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t slot_of(uint64_t pc, size_t cap)
{
    return (size_t)((pc >> 2) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static int grow(struct pc_table *t)
{
    size_t cap = t->cap * 2;
    struct oracle_pc *slots = new_slots(cap);
    struct oracle_pc **old = realloc(t->old, (t->nold + 1) * sizeof *old);
    if (!slots || !old) {
        free(slots);
        if (old)
            t->old = old;
        return -1;
    }
    t->old = old;
    for (size_t i = 0; i < t->cap; i++) {
        const struct oracle_pc *e = &t->slots[i];
        if (e->pc == PC_TABLE_FREE)
            continue;
        size_t j = slot_of(e->pc, cap);
        while (slots[j].pc != PC_TABLE_FREE)
            j = (j + 1) & (cap - 1);
        slots[j] = *e;
    }
    t->old[t->nold++] = t->slots;
    __atomic_store_n(&t->slots, slots, __ATOMIC_RELEASE);
    __atomic_store_n(&t->cap, cap, __ATOMIC_RELEASE);
    t->gen++;
    return 0;
}

struct oracle_pc *pc_table_get(struct pc_table *t, uint64_t pc)
{
    if (pc == PC_TABLE_FREE)
        return NULL;
    if (2 * (t->used + 1) > t->cap && grow(t))
        return NULL;
    size_t i = slot_of(pc, t->cap);
    while (t->slots[i].pc != pc && t->slots[i].pc != PC_TABLE_FREE)
        i = (i + 1) & (t->cap - 1);
    struct oracle_pc *e = &t->slots[i];
    if (e->pc == PC_TABLE_FREE) {
        e->pc = pc;
        t->used++;
    }
    return e;
}
