/* The value oracle: see value-oracle.h and oracle-format.h. */
#include "hw-model/plugin/value-oracle.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/oracle-format.h"
#include "linker/ram-map.h"
#include "hw-model/plugin/truth-file.h"

#define MAX_PAIRS (1u << 22)        /* (PC, value) pairs per vCPU table */

struct pair {
    uint64_t pc, value, count;      /* count 0: free */
};

struct table {
    struct pair *slot;
    size_t cap, n;
    /* per PC: untracked executions (table full), in a small table of their own */
    struct pair *lost;
    size_t lost_cap, lost_n;
};

static struct table *tables;
static unsigned ncores_;
static const uint8_t *ram_;
static size_t ram_size_;

int value_oracle_init(unsigned ncores, const uint8_t *ram, size_t size)
{
    tables = calloc(ncores, sizeof *tables);
    if (!tables)
        return -1;
    ncores_ = ncores;
    ram_ = ram;
    ram_size_ = size;
    return 0;
}

static uint64_t mix(uint64_t pc, uint64_t v)
{
    uint64_t h = pc * 0x9e3779b97f4a7c15ull ^ (v + 0x632be59bd9b4e019ull + (pc << 6));
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

/* The slot of (pc, value) in slots (cap a power of two), found or free. */
static struct pair *find(struct pair *slots, size_t cap, uint64_t pc, uint64_t value)
{
    size_t i = mix(pc, value) & (cap - 1);
    while (slots[i].count && (slots[i].pc != pc || slots[i].value != value))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(struct pair **slots, size_t *cap, size_t n)
{
    size_t ncap = *cap ? *cap * 2 : 4096;
    struct pair *s = calloc(ncap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < *cap; i++)
        if ((*slots)[i].count)
            *find(s, ncap, (*slots)[i].pc, (*slots)[i].value) = (*slots)[i];
    free(*slots);
    *slots = s;
    *cap = ncap;
    (void)n;
    return 0;
}

/* Adds cnt to (pc, value); 0, or -1 when the table may not grow past
 * limit pairs (or memory ran out) and the pair is new: not counted. */
static int add(struct pair **slots, size_t *cap, size_t *n, uint64_t pc, uint64_t value, uint64_t cnt,
               size_t limit)
{
    if ((*n + 1) * 4 > *cap * 3 && (*cap >= limit || grow(slots, cap, *n))) {
        struct pair *p = *cap ? find(*slots, *cap, pc, value) : NULL;
        if (!p || !p->count)
            return -1;
        p->count += cnt;
        return 0;
    }
    struct pair *p = find(*slots, *cap, pc, value);
    if (!p->count) {
        p->pc = pc;
        p->value = value;
        (*n)++;
    }
    p->count += cnt;
    return 0;
}

/* The value the load wrote its register with, as value sampling sees it. */
static int loaded_value(uint32_t word, uint64_t vaddr, uint64_t *out)
{
    unsigned op = alpha_opcode(word);
    unsigned size = op == 0x0a ? 1 : op == 0x0c ? 2 : (op == 0x28 || op == 0x22) ? 4 : 8;
    uint64_t phys = vaddr >= KSEG_BASE ? vaddr - KSEG_BASE : vaddr;
    if (op == 0x0b)
        phys &= ~7ull;
    if (phys + size > ram_size_ || !ram_)
        return -1;
    uint64_t v = 0;
    memcpy(&v, ram_ + phys, size);      /* little-endian host, as the guest */
    if (op == 0x28)
        v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
    else if (op == 0x22)
        v = alpha_s_to_register((uint32_t)v);
    *out = v;
    return 0;
}

void value_oracle_load(unsigned vcpu, uint64_t pc, uint32_t word, uint64_t vaddr)
{
    if (!tables || vcpu >= ncores_)
        return;
    unsigned op = alpha_opcode(word);
    if (op == 0x20 || op == 0x21)       /* VAX formats: value sampling gives up on them */
        return;
    if (pc >= KSEG_BASE || pc < USER_BASE)
        return;                         /* value sampling interprets user code only */
    uint64_t v;
    if (loaded_value(word, vaddr, &v))
        return;
    struct table *t = &tables[vcpu];
    if (add(&t->slot, &t->cap, &t->n, pc, v, 1, MAX_PAIRS))
        add(&t->lost, &t->lost_cap, &t->lost_n, pc, 0, 1, SIZE_MAX);   /* counted, value not kept */
}

static int cmp_pc_value(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

static int cmp_pair(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->pc != y->pc)
        return x->pc < y->pc ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* Every vCPU's pairs (of the slot or the lost tables) in one list, equal
 * (pc, value) summed, sorted by PC.  By sorting, not by inserting into a
 * merged hash table: copying one linear-probing table into another in slot
 * order clusters quadratically (millions of pairs took minutes at exit). */
static struct pair *merged(bool lost_tables, size_t *out_n)
{
    size_t total = 0;
    for (unsigned c = 0; c < ncores_; c++)
        total += lost_tables ? tables[c].lost_n : tables[c].n;
    struct pair *list = malloc((total ? total : 1) * sizeof *list);
    if (!list)
        return NULL;
    size_t m = 0;
    for (unsigned c = 0; c < ncores_; c++) {
        const struct table *t = &tables[c];
        const struct pair *slots = lost_tables ? t->lost : t->slot;
        size_t cap = lost_tables ? t->lost_cap : t->cap;
        for (size_t i = 0; i < cap && m < total; i++)
            if (slots[i].count)
                list[m++] = slots[i];
    }
    qsort(list, m, sizeof *list, cmp_pc_value);
    size_t k = 0;
    for (size_t i = 0; i < m; i++) {
        if (k && list[k - 1].pc == list[i].pc && list[k - 1].value == list[i].value)
            list[k - 1].count += list[i].count;
        else
            list[k++] = list[i];
    }
    *out_n = k;
    return list;
}

int value_oracle_write(const char *path, uint64_t run_id)
{
    if (!tables)
        return 0;
    size_t m = 0, ln = 0;
    struct pair *list = merged(false, &m), *lost = merged(true, &ln);
    if (!list || !lost) {
        free(list);
        free(lost);
        errno = ENOMEM;
        return -1;
    }
    qsort(list, m, sizeof *list, cmp_pair);     /* per PC, the most frequent first */

    struct truth_file t;
    if (truth_file_open(&t, path)) {
        free(lost);
        free(list);
        return -1;
    }
    FILE *f = t.f;
    uint64_t npcs = 0;
    for (size_t i = 0; i < m; i++)
        npcs += i == 0 || list[i].pc != list[i - 1].pc;
    struct oracle_values_header h = {ORACLE_VALUES_MAGIC, ORACLE_VALUES_VERSION, ORACLE_VALUES_TOP, npcs, run_id};
    fwrite(&h, sizeof h, 1, f);
    for (size_t i = 0; i < m;) {
        struct oracle_value_pc e;
        memset(&e, 0, sizeof e);
        e.pc = list[i].pc;
        size_t j = i;
        for (; j < m && list[j].pc == e.pc; j++) {
            e.loads += list[j].count;
            e.distinct++;
            if (j - i < ORACLE_VALUES_TOP) {
                e.value[j - i] = list[j].value;
                e.count[j - i] = list[j].count;
            }
        }
        const struct pair key = {e.pc, 0, 0};
        const struct pair *p = ln ? bsearch(&key, lost, ln, sizeof *lost, cmp_pc_value) : NULL;
        if (p) {
            e.untracked = p->count;
            e.loads += p->count;
        }
        fwrite(&e, sizeof e, 1, f);
        i = j;
    }
    free(lost);
    free(list);
    return truth_file_commit(&t, path);
}
