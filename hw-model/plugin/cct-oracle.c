/*
 * The calling-context oracle (cct-oracle.h; the rules are in
 * hw-model/oracle-format.h next to the file format).
 *
 * Notes
 *  1. A call or return is resolved at the next user-mode instruction the
 *     core retires: that is its target even when an interrupt, taken in
 *     between, ran the monitor first.
 *  2. Contexts are found through one open-addressing table per core keyed
 *     by (parent, site, callee) -> record; a miss walks the parent chain
 *     for the callee (folding) before making a record, and the answer is
 *     kept in the table either way, as the runtime keeps it in a slot.
 *  3. The shadow stack grows without bound (memory, not a fixed ring): the
 *     truth must not skip what the instrumentation's bounded stack skips.
 *  4. A return to no frame's return address (longjmp, setjmp's second
 *     return) goes back to where the last call with that return address
 *     was made: its stack depth and its record, kept per return address
 *     in a second table (oracle-format.h).
 *  5. Metrics (ORACLE_CCT_VERSION 2): a call keeps the PMU page's cycles
 *     and retired as they stood after its call instruction retired (the
 *     values the caller passes with it, not those at its resolution, so
 *     an interrupt between the call and its target counts in the
 *     callee's window as in the caller's code); a return the same after
 *     its `ret`.  A frame keeps its record and those counts; the record's
 *     `active` counts its frames on the stack, and a return adds the
 *     differences to the record only when that drops to 0 (the outermost
 *     activation of a folded record), as the instrumentation does
 *     (cct-region.h note 4).  Frames a longjmp abandons (note 4 above)
 *     are popped with their activity, their time not added.
 */
#include "hw-model/plugin/cct-oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw-model/plugin/truth-file.h"
#include "hw-model/oracle-format.h"
#include "linker/ram-map.h"

#define MAX_VCPUS MAX_CORES

enum pending { NONE, CALL, RET };

struct rec {
    uint64_t parent, callee, site, calls;
    uint64_t cycles, retired;           /* inclusive, outermost activations (note 5) */
    uint64_t active;                    /* its frames on the stack */
};

struct slot {
    uint64_t parent, site, callee;      /* key; site 0: empty */
    uint64_t rec;
};

struct frame {
    uint64_t parent;                    /* record current before the call */
    uint64_t ret;                       /* site + 4 */
    uint64_t rec;                       /* the record the call entered */
    uint64_t cycles, retired;           /* the PMU counts after the call retired (note 5) */
};

struct made {
    uint64_t ret;                       /* key; 0: empty */
    uint64_t depth, cur;                /* the stack depth and record before the call */
};

struct core_tree {
    struct made *calls;                 /* open addressing by return address */
    size_t csize, cused;
    struct rec *recs;
    size_t nrecs, cap;
    struct slot *table;
    size_t tsize, tused;                /* tsize a power of two */
    struct frame *stack;
    size_t depth, scap;
    uint64_t cur;
    enum pending pending;
    uint64_t pending_site;
    uint64_t pending_cycles, pending_retired;   /* after the pending call or ret retired (note 5) */
};

static struct core_tree trees[MAX_VCPUS];
static unsigned ncores;
static const uint8_t *ram;
static size_t ram_size;

static int user_pc(uint64_t pc) { return pc >= USER_BASE && pc < RAM_SIZE; }

static uint64_t add_rec(struct core_tree *t, uint64_t parent, uint64_t callee, uint64_t site)
{
    if (t->nrecs == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->recs = realloc(t->recs, t->cap * sizeof *t->recs);
        if (!t->recs)
            abort();
    }
    t->recs[t->nrecs] = (struct rec){.parent = parent, .callee = callee, .site = site};
    return t->nrecs++;
}

static uint64_t hash(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ b * 0xc2b2ae3d27d4eb4fULL ^ c * 0x165667b19e3779f9ULL;
    return h ^ (h >> 29);
}

static void table_put(struct core_tree *t, uint64_t parent, uint64_t site, uint64_t callee, uint64_t rec);

static void table_grow(struct core_tree *t)
{
    struct slot *old = t->table;
    size_t n = t->tsize;
    t->tsize = n ? 2 * n : 4096;
    t->table = calloc(t->tsize, sizeof *t->table);
    if (!t->table)
        abort();
    t->tused = 0;
    for (size_t i = 0; i < n; i++)
        if (old[i].site)
            table_put(t, old[i].parent, old[i].site, old[i].callee, old[i].rec);
    free(old);
}

static void table_put(struct core_tree *t, uint64_t parent, uint64_t site, uint64_t callee, uint64_t rec)
{
    if (2 * (t->tused + 1) > t->tsize)
        table_grow(t);
    size_t i = hash(parent, site, callee) & (t->tsize - 1);
    while (t->table[i].site)
        i = (i + 1) & (t->tsize - 1);
    t->table[i] = (struct slot){parent, site, callee, rec};
    t->tused++;
}

static int table_get(const struct core_tree *t, uint64_t parent, uint64_t site, uint64_t callee, uint64_t *rec)
{
    if (!t->tsize)
        return 0;
    size_t i = hash(parent, site, callee) & (t->tsize - 1);
    for (; t->table[i].site; i = (i + 1) & (t->tsize - 1))
        if (t->table[i].parent == parent && t->table[i].site == site && t->table[i].callee == callee) {
            *rec = t->table[i].rec;
            return 1;
        }
    return 0;
}

static uint32_t word_at(uint64_t pa)
{
    uint32_t w = 0;
    if (ram && pa + 4 <= ram_size)
        memcpy(&w, ram + pa, 4);
    return w;
}

/* The procedure a call entered: its no-gp entry taken back to the entry. */
static uint64_t callee_of(uint64_t target)
{
    if (target < 8)
        return target;
    uint32_t a = word_at(target - 8), b = word_at(target - 4);
    if ((a & 0xffff0000u) == (0x09u << 26 | 29u << 21 | 27u << 16) &&     /* ldah $29, x($27) */
        (b & 0xffff0000u) == (0x08u << 26 | 29u << 21 | 29u << 16))       /* lda $29, y($29) */
        return target - 8;
    return target;
}

static void made_put(struct core_tree *t, uint64_t ret, uint64_t depth, uint64_t cur);

static void made_grow(struct core_tree *t)
{
    struct made *old = t->calls;
    size_t n = t->csize;
    t->csize = n ? 2 * n : 1024;
    t->calls = calloc(t->csize, sizeof *t->calls);
    if (!t->calls)
        abort();
    t->cused = 0;
    for (size_t i = 0; i < n; i++)
        if (old[i].ret)
            made_put(t, old[i].ret, old[i].depth, old[i].cur);
    free(old);
}

static void made_put(struct core_tree *t, uint64_t ret, uint64_t depth, uint64_t cur)
{
    if (2 * (t->cused + 1) > t->csize)
        made_grow(t);
    size_t i = hash(ret, 0, 0) & (t->csize - 1);
    while (t->calls[i].ret && t->calls[i].ret != ret)
        i = (i + 1) & (t->csize - 1);
    if (!t->calls[i].ret)
        t->cused++;
    t->calls[i] = (struct made){ret, depth, cur};
}

static const struct made *made_get(const struct core_tree *t, uint64_t ret)
{
    if (!t->csize)
        return NULL;
    for (size_t i = hash(ret, 0, 0) & (t->csize - 1); t->calls[i].ret; i = (i + 1) & (t->csize - 1))
        if (t->calls[i].ret == ret)
            return &t->calls[i];
    return NULL;
}

static void enter(struct core_tree *t, uint64_t site, uint64_t target)
{
    made_put(t, site + 4, t->depth, t->cur);
    uint64_t callee = callee_of(target), rec;
    if (!table_get(t, t->cur, site, callee, &rec)) {
        uint64_t a = t->cur;
        for (;;) {
            if (a != 0 && t->recs[a].callee == callee) {
                rec = a;
                break;
            }
            if (a == 0) {
                rec = add_rec(t, t->cur, callee, site);
                break;
            }
            a = t->recs[a].parent;
        }
        table_put(t, t->cur, site, callee, rec);
    }
    if (t->depth == t->scap) {
        t->scap = t->scap ? 2 * t->scap : 256;
        t->stack = realloc(t->stack, t->scap * sizeof *t->stack);
        if (!t->stack)
            abort();
    }
    t->stack[t->depth++] = (struct frame){t->cur, site + 4, rec, t->pending_cycles, t->pending_retired};
    t->recs[rec].calls++;
    t->recs[rec].active++;
    t->cur = rec;
}

/* Frames [depth, t->depth) abandoned: popped, their time not added (note 5). */
static void abandon(struct core_tree *t, size_t depth)
{
    while (t->depth > depth)
        t->recs[t->stack[--t->depth].rec].active--;
}

static void leave(struct core_tree *t, uint64_t target)
{
    for (size_t d = t->depth; d-- > 0;)
        if (t->stack[d].ret == target) {
            abandon(t, d + 1);
            const struct frame *f = &t->stack[d];
            struct rec *r = &t->recs[f->rec];
            if (--r->active == 0) {
                r->cycles += t->pending_cycles - f->cycles;
                r->retired += t->pending_retired - f->retired;
            }
            t->cur = f->parent;
            t->depth = d;
            return;
        }
    const struct made *m = made_get(t, target);     /* note 4 */
    if (m && m->depth <= t->depth) {
        abandon(t, m->depth);
        t->cur = m->cur;
    }
}

int cct_oracle_init(unsigned n, const uint8_t *r, size_t size)
{
    ncores = n < MAX_VCPUS ? n : MAX_VCPUS;
    ram = r;
    ram_size = size;
    for (unsigned c = 0; c < ncores; c++)
        add_rec(&trees[c], 0, 0, 0);    /* the root */
    return 0;
}

void cct_oracle_retire(unsigned vcpu, uint64_t pc, uint32_t word, uint64_t cycles, uint64_t retired)
{
    if (vcpu >= ncores || !user_pc(pc))
        return;
    struct core_tree *t = &trees[vcpu];
    if (t->pending == CALL)
        enter(t, t->pending_site, pc);
    else if (t->pending == RET)
        leave(t, pc);
    t->pending = NONE;
    unsigned op = word >> 26, ra = (word >> 21) & 31;
    if (op == 0x34 && ra == 26) {                       /* bsr $26 */
        int64_t d = (int32_t)(word << 11) >> 11;
        if (d != 0) {
            t->pending = CALL;
            t->pending_site = pc;
        }
    } else if (op == 0x1a) {
        unsigned func = (word >> 14) & 3;
        if (func == 1 && ra == 26) {                    /* jsr $26 */
            t->pending = CALL;
            t->pending_site = pc;
        } else if (func == 2) {                         /* ret */
            t->pending = RET;
        }
    }
    t->pending_cycles = cycles;
    t->pending_retired = retired;
}

uint64_t cct_oracle_current(unsigned vcpu)
{
    return vcpu < ncores ? trees[vcpu].cur : 0;
}

int cct_oracle_write(const char *path, uint64_t run_id)
{
    struct truth_file t;
    if (truth_file_open(&t, path))
        return -1;
    FILE *f = t.f;
    struct oracle_cct_header h = {.magic = ORACLE_CCT_MAGIC, .version = ORACLE_CCT_VERSION,
                                  .ncores = ncores, .run_id = run_id};
    for (unsigned c = 0; c < ncores; c++)
        h.nrecords += trees[c].nrecs;
    fwrite(&h, sizeof h, 1, f);
    for (unsigned c = 0; c < ncores; c++)
        for (size_t i = 0; i < trees[c].nrecs; i++) {
            const struct rec *r = &trees[c].recs[i];
            struct oracle_cct_record o = {.core = c, .id = i, .parent = r->parent, .callee = r->callee,
                                          .site = r->site, .calls = r->calls, .cycles = r->cycles,
                                          .retired = r->retired};
            fwrite(&o, sizeof o, 1, f);
        }
    return truth_file_commit(&t, path);
}
