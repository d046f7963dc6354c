/* Ball-Larus path counts in the model: see bl-oracle.h and oracle-format.h. */
#include "hw-model/plugin/bl-oracle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hw-model/isa/alpha-isa.h"
#include "linker/ram-map.h"
#include "hw-model/plugin/truth-file.h"

#define MAX_FRAMES (1u << 20)      /* frames followed per core (grown on demand); deeper: note 9 */
#define MAX_TABLE  (1u << 22)       /* paths per core table */

struct frame {
    const struct oracle_plan_proc *proc;
    const struct oracle_plan_edge *call_edge;   /* to the block after the pending call */
    uint64_t ret;               /* its return address (0: the bottom frame) */
    int64_t r;
    bool counting, expect_entry;
    struct bl_meter start;      /* the counters where its path began (note 6) */
};

struct entry {
    uint64_t proc, path, count;         /* count 0: free */
    uint64_t metric[PMU_EV_COUNT];
};

/* Where a call was made, by its return address (bl-oracle.h note 7). */
struct resume {
    uint64_t ret;                       /* 0: free */
    unsigned depth;                     /* the caller's frame is f[depth - 1] */
    const struct oracle_plan_proc *proc;
    const struct oracle_plan_edge *call_edge;
    int64_t r;
    bool counting;
};

/* A path's count and metrics in one calling context (note 8). */
struct centry {
    uint64_t ctx, proc, path, count;    /* count 0: free */
    uint64_t metric[PMU_EV_COUNT];
};

struct core_state {
    struct frame *f;
    unsigned depth, fcap;
    struct resume *resume;              /* open addressing by ret */
    size_t resume_cap, resume_n;
    const struct bl_insn *prev;         /* the last planned instruction, not yet followed */
    uint64_t prev_pc;
    struct bl_meter before, after;      /* the counters around prev */
    struct entry *table;
    size_t cap, n;
    uint64_t prev_ctx, now_ctx;         /* the context of prev, and of the instruction following it */
    uint64_t ctx;                       /* the one count_path counts under */
    struct centry *ctable;
    size_t ccap, cn;
};

static struct {
    struct oracle_plan_header h;
    struct oracle_plan_proc *procs;
    struct oracle_plan_edge *edges;
    int64_t *entry_add;         /* per proc */
    struct core_state *cores;
    unsigned ncores;
    uint64_t unknown, lost;
} plan;

bool bl_oracle_active(void)
{
    return plan.procs != NULL;
}

int bl_oracle_load(const char *path, unsigned ncores)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : -1;
    int rc = -1;
    if (fread(&plan.h, sizeof plan.h, 1, f) == 1 && plan.h.magic == ORACLE_PLAN_MAGIC &&
        plan.h.version == ORACLE_PLAN_VERSION && plan.h.nedges < (1ull << 28)) {
        plan.procs = calloc(plan.h.nprocs + 1, sizeof *plan.procs);
        plan.edges = calloc(plan.h.nedges + 1, sizeof *plan.edges);
        plan.entry_add = calloc(plan.h.nprocs + 1, sizeof *plan.entry_add);
        plan.cores = calloc(ncores, sizeof *plan.cores);
        if (plan.procs && plan.edges && plan.entry_add && plan.cores &&
            fread(plan.procs, sizeof *plan.procs, plan.h.nprocs, f) == plan.h.nprocs &&
            fread(plan.edges, sizeof *plan.edges, plan.h.nedges, f) == plan.h.nedges)
            rc = 1;
    }
    fclose(f);
    for (uint32_t i = 0; rc == 1 && i < plan.h.nprocs; i++) {
        const struct oracle_plan_proc *p = &plan.procs[i];
        if (p->first_edge + p->nedges > plan.h.nedges) {
            rc = -1;
            break;
        }
        for (uint32_t k = 0; k < p->nedges; k++)
            if (plan.edges[p->first_edge + k].cfg_kind == ORACLE_PLAN_EDGE_ENTRY)
                plan.entry_add[i] = plan.edges[p->first_edge + k].add;
    }
    if (rc != 1) {
        free(plan.procs);
        free(plan.edges);
        free(plan.entry_add);
        free(plan.cores);
        memset(&plan, 0, sizeof plan);
        errno = EINVAL;
        return -1;
    }
    plan.ncores = ncores;
    return 1;
}

static const struct oracle_plan_proc *proc_at(uint64_t pc)
{
    size_t lo = 0, hi = plan.h.nprocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (plan.procs[mid].start <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || pc >= plan.procs[lo - 1].end)
        return NULL;
    return &plan.procs[lo - 1];
}

bool bl_oracle_insn(uint64_t pc, uint32_t word, unsigned cls, struct bl_insn *out)
{
    memset(out, 0, sizeof *out);
    const struct oracle_plan_proc *p = plan.procs ? proc_at(pc) : NULL;
    if (!p)
        return false;
    out->proc = p;
    const struct oracle_plan_edge *e = &plan.edges[p->first_edge];
    size_t lo = 0, hi = p->nedges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e[mid].from < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < p->nedges && e[k].from == pc)
        k++;
    if (k > lo) {
        out->edges = &e[lo];
        out->nedges = (uint32_t)(k - lo);
    }
    unsigned jkind = (word >> 14) & 3;
    if ((cls == ALPHA_BRANCH && alpha_opcode(word) == 0x34) || (cls == ALPHA_JUMP && jkind == 1))
        out->flow = 1;
    else if (cls == ALPHA_JUMP && jkind == 2)
        out->flow = 2;
    for (uint32_t i = 0; i < out->nedges; i++)      /* an instrumented image's replaced instruction */
        if (out->edges[i].from_flow != ORACLE_PLAN_FLOW_OTHER)
            out->flow = (uint8_t)out->edges[i].from_flow;
    return true;
}

static uint64_t mix(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6));
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

static struct entry *slot(struct entry *t, size_t cap, uint64_t proc, uint64_t path)
{
    size_t i = mix(proc, path) & (cap - 1);
    while (t[i].count && (t[i].proc != proc || t[i].path != path))
        i = (i + 1) & (cap - 1);
    return &t[i];
}

static void add_metrics(uint64_t *metric, const struct bl_meter *from, const struct bl_meter *to)
{
    for (unsigned k = 0; k < PMU_EV_COUNT; k++)
        metric[k] += to->v[k] - from->v[k];
}

static struct centry *cslot(struct centry *t, size_t cap, uint64_t ctx, uint64_t proc, uint64_t path)
{
    size_t i = mix(mix(proc, path), ctx) & (cap - 1);
    while (t[i].count && (t[i].ctx != ctx || t[i].proc != proc || t[i].path != path))
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* The path's count and metrics under c->ctx (note 8); a table that
 * cannot grow loses it (counted in lost, as the main table's). */
static void count_context(struct core_state *c, uint64_t proc, uint64_t path, const struct bl_meter *from,
                          const struct bl_meter *to)
{
    if (c->cn * 2 >= c->ccap) {
        size_t cap = c->ccap ? 2 * c->ccap : 1u << 12;
        struct centry *t = cap <= MAX_TABLE ? calloc(cap, sizeof *t) : NULL;
        if (!t) {
            struct centry *e = c->ctable ? cslot(c->ctable, c->ccap, c->ctx, proc, path) : NULL;
            if (e && e->count) {
                e->count++;
                add_metrics(e->metric, from, to);
            } else
                __atomic_fetch_add(&plan.lost, 1, __ATOMIC_RELAXED);
            return;
        }
        for (size_t i = 0; i < c->ccap; i++)
            if (c->ctable[i].count)
                *cslot(t, cap, c->ctable[i].ctx, c->ctable[i].proc, c->ctable[i].path) = c->ctable[i];
        free(c->ctable);
        c->ctable = t;
        c->ccap = cap;
    }
    struct centry *e = cslot(c->ctable, c->ccap, c->ctx, proc, path);
    if (!e->count) {
        *e = (struct centry){.ctx = c->ctx, .proc = proc, .path = path};
        c->cn++;
    }
    e->count++;
    add_metrics(e->metric, from, to);
}

static void count_path(struct core_state *c, const struct oracle_plan_proc *p, int64_t r, const struct bl_meter *from,
                       const struct bl_meter *to)
{
    if (r < 0 || (uint64_t)r >= p->npaths) {    /* cannot happen with a right plan */
        __atomic_fetch_add(&plan.unknown, 1, __ATOMIC_RELAXED);
        return;
    }
    count_context(c, p->start, (uint64_t)r, from, to);
    if (c->n * 2 >= c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1u << 12;
        struct entry *t = cap <= MAX_TABLE ? calloc(cap, sizeof *t) : NULL;
        if (!t) {
            struct entry *e = c->table ? slot(c->table, c->cap, p->start, (uint64_t)r) : NULL;
            if (e && e->count) {
                e->count++;
                add_metrics(e->metric, from, to);
            } else
                __atomic_fetch_add(&plan.lost, 1, __ATOMIC_RELAXED);
            return;
        }
        for (size_t i = 0; i < c->cap; i++)
            if (c->table[i].count)
                *slot(t, cap, c->table[i].proc, c->table[i].path) = c->table[i];
        free(c->table);
        c->table = t;
        c->cap = cap;
    }
    struct entry *e = slot(c->table, c->cap, p->start, (uint64_t)r);
    if (!e->count) {
        e->proc = p->start;
        e->path = (uint64_t)r;
        c->n++;
    }
    e->count++;
    add_metrics(e->metric, from, to);
}

/* Applies edge e's action to frame f (a path may end), the counters
 * after its source instruction at. */
static void step(struct core_state *c, struct frame *f, const struct oracle_plan_edge *e, const struct bl_meter *at)
{
    switch (e->action) {
    case ORACLE_PLAN_ACT_ADD:
        f->r += e->add;
        break;
    case ORACLE_PLAN_ACT_EXIT:
        count_path(c, f->proc, f->r + e->add, &f->start, at);
        break;
    case ORACLE_PLAN_ACT_BACKEDGE:
        count_path(c, f->proc, f->r + e->add, &f->start, at);
        f->r = e->reset;
        f->start = *at;
        break;
    default:
        break;
    }
}

static bool countable(const struct oracle_plan_proc *p)
{
    return p->status == ORACLE_PLAN_OK || p->status == ORACLE_PLAN_TOO_MANY;
}

/* The frame begins in p at pc (an entry, or not: then it is not counted). */
static void enter(struct frame *f, const struct oracle_plan_proc *p, uint64_t pc, const struct bl_meter *before)
{
    f->proc = p;
    f->start = *before;
    f->expect_entry = false;
    f->counting = countable(p) && (pc == p->start || pc == p->start + 8);
    f->r = f->counting ? plan.entry_add[p - plan.procs] : 0;
}

static struct resume *resume_slot(struct resume *t, size_t cap, uint64_t ret)
{
    size_t i = mix(ret, 0) & (cap - 1);
    while (t[i].ret && t[i].ret != ret)
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* Keeps where the call at ret - 4 was made from (note 7).  The table
 * holds one row per call site of the image, so it never nears MAX_TABLE. */
static void remember_call(struct core_state *c, const struct frame *caller, uint64_t ret)
{
    if (c->resume_n * 2 >= c->resume_cap) {
        if (c->resume_cap >= MAX_TABLE)
            return;                     /* never fills: resume_slot always finds a free row */
        size_t cap = c->resume_cap ? 2 * c->resume_cap : 1u << 10;
        struct resume *t = calloc(cap, sizeof *t);
        if (!t)
            return;                     /* kept what it has: a jump there is not resumed */
        for (size_t i = 0; i < c->resume_cap; i++)
            if (c->resume[i].ret)
                *resume_slot(t, cap, c->resume[i].ret) = c->resume[i];
        free(c->resume);
        c->resume = t;
        c->resume_cap = cap;
    }
    struct resume *x = resume_slot(c->resume, c->resume_cap, ret);
    if (!x->ret)
        c->resume_n++;
    *x = (struct resume){.ret = ret, .depth = c->depth, .proc = caller->proc, .call_edge = caller->call_edge,
                         .r = caller->r, .counting = caller->counting};
}

/* Room for one more frame on c's stack, grown as the recursion deepens
 * (note 9); false past MAX_FRAMES or out of memory. */
static bool frame_room(struct core_state *c)
{
    if (c->depth < c->fcap)
        return true;
    unsigned cap = c->fcap ? 2 * c->fcap : 256;
    struct frame *t = cap <= MAX_FRAMES ? realloc(c->f, cap * sizeof *t) : NULL;
    if (!t)
        return false;
    c->f = t;
    c->fcap = cap;
    return true;
}

/* A return to no frame's return address: back to the frame that made the
 * last call returning there, if it is still on the stack (note 7). */
static bool resume_call(struct core_state *c, uint64_t next_pc)
{
    const struct resume *x = c->resume ? resume_slot(c->resume, c->resume_cap, next_pc) : NULL;
    if (!x || !x->ret || !x->depth || x->depth > c->depth || c->f[x->depth - 1].proc != x->proc)
        return false;
    c->depth = x->depth;
    struct frame *caller = &c->f[c->depth - 1];
    caller->r = x->r;
    caller->call_edge = x->call_edge;
    caller->counting = x->counting;
    return true;
}

/* Planned instruction pc (in) took the way to next_pc (note 5). */
static void follow(struct core_state *c, uint64_t pc, const struct bl_insn *in, uint64_t next_pc)
{
    const struct bl_meter *after = &c->after, *before = &c->before;
    if (!c->depth) {
        if (!frame_room(c))
            return;
        c->f[c->depth++] = (struct frame){.expect_entry = true};
    }
    struct frame *top = &c->f[c->depth - 1];
    c->ctx = c->prev_ctx;
    if (top->expect_entry && top->ret && pc == top->ret && c->depth > 1) {
        c->depth--;             /* note 2: the callee was outside the plan */
        top = &c->f[c->depth - 1];
        if (top->counting && top->call_edge)
            step(c, top, top->call_edge, before);
    }
    if (top->expect_entry || top->proc != in->proc)
        enter(top, in->proc, pc, before);
    if (in->flow == 1) {                        /* a call (note 1) */
        top->call_edge = NULL;
        for (uint32_t k = 0; k < in->nedges; k++)
            if (in->edges[k].cfg_kind == ORACLE_PLAN_EDGE_CALL_RETURN || in->edges[k].to == 0)
                top->call_edge = &in->edges[k];
        if (top->counting && !top->call_edge) {
            __atomic_fetch_add(&plan.unknown, 1, __ATOMIC_RELAXED);
            top->counting = false;
        }
        if (!frame_room(c)) {                   /* deeper than we follow: start again, */
            for (unsigned d = 0; d < c->depth; d++)     /* the paths left open counted as lost */
                if (c->f[d].counting)
                    __atomic_fetch_add(&plan.lost, 1, __ATOMIC_RELAXED);
            c->depth = 0;
            return;
        }
        top = &c->f[c->depth - 1];              /* (the stack may have moved) */
        remember_call(c, top, pc + 4);
        c->f[c->depth++] = (struct frame){.ret = pc + 4, .expect_entry = true};
        return;
    }
    if (in->flow == 2) {                        /* a return */
        if (top->counting) {
            const struct oracle_plan_edge *e = NULL;
            for (uint32_t k = 0; k < in->nedges; k++)
                if (in->edges[k].to == 0)
                    e = &in->edges[k];
            if (e)
                step(c, top, e, after);
            else
                __atomic_fetch_add(&plan.unknown, 1, __ATOMIC_RELAXED);
        }
        unsigned d = c->depth;
        while (d > 0 && c->f[d - 1].ret != next_pc)
            d--;
        if (d)
            c->depth = d - 1;
        else if (!resume_call(c, next_pc)) {
            c->depth = 0;
            return;
        }
        if (c->depth) {
            struct frame *caller = &c->f[c->depth - 1];
            c->ctx = c->now_ctx;        /* the caller's path: its context, the return resolved (note 8) */
            if (caller->counting && caller->call_edge)
                step(c, caller, caller->call_edge, after);
        }
        return;
    }
    if (!in->nedges || !top->counting)
        return;
    const struct oracle_plan_edge *e = NULL, *exit = NULL;
    for (uint32_t k = 0; k < in->nedges && !e; k++) {
        if (in->edges[k].cfg_kind == ORACLE_PLAN_EDGE_ENTRY)
            continue;
        if (in->edges[k].to == next_pc)
            e = &in->edges[k];
        else if (in->edges[k].to == 0)
            exit = &in->edges[k];
    }
    if (!e)
        e = exit;
    if (!e) {
        __atomic_fetch_add(&plan.unknown, 1, __ATOMIC_RELAXED);
        top->counting = false;
        return;
    }
    step(c, top, e, after);
}

void bl_oracle_retired(unsigned core, uint64_t pc, const struct bl_insn *in, const struct bl_meter *before,
                       const struct bl_meter *after, uint64_t ctx)
{
    struct core_state *c = &plan.cores[core];
    c->now_ctx = ctx;
    if (c->prev)
        follow(c, c->prev_pc, c->prev, pc);
    c->prev_ctx = ctx;
    c->prev = in;
    c->prev_pc = pc;
    c->before = *before;
    c->after = *after;
}

static int by_proc_path(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

static int by_context(const void *a, const void *b)
{
    const struct oracle_cctpath *x = a, *y = b;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    if (x->record != y->record)
        return x->record < y->record ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

int bl_oracle_write_contexts(const char *path, uint64_t run_id)
{
    size_t total = 0, n = 0;
    for (unsigned i = 0; i < plan.ncores; i++)
        total += plan.cores[i].cn;
    struct oracle_cctpath *all = calloc(total + 1, sizeof *all);
    if (!all)
        return -1;
    for (unsigned i = 0; i < plan.ncores; i++)
        for (size_t k = 0; k < plan.cores[i].ccap; k++) {
            const struct centry *e = &plan.cores[i].ctable[k];
            if (e->count) {
                all[n] = (struct oracle_cctpath){.core = i, .record = e->ctx, .proc = e->proc, .path = e->path,
                                                 .count = e->count};
                memcpy(all[n++].metric, e->metric, sizeof e->metric);
            }
        }
    qsort(all, n, sizeof *all, by_context);
    struct truth_file t;
    if (truth_file_open(&t, path)) {
        free(all);
        return -1;
    }
    struct oracle_cctpaths_header h = {.magic = ORACLE_CCTPATHS_MAGIC, .version = ORACLE_CCTPATHS_VERSION, .n = n,
                                       .run_id = run_id};
    fwrite(&h, sizeof h, 1, t.f);
    fwrite(all, sizeof *all, n, t.f);
    free(all);
    return truth_file_commit(&t, path);
}

int bl_oracle_write(const char *path, uint64_t run_id)
{
    size_t total = 0;
    for (unsigned i = 0; i < plan.ncores; i++)
        total += plan.cores[i].n;
    struct entry *all = calloc(total + 1, sizeof *all);
    if (!all)
        return -1;
    size_t n = 0;
    for (unsigned i = 0; i < plan.ncores; i++)
        for (size_t k = 0; k < plan.cores[i].cap; k++)
            if (plan.cores[i].table[k].count)
                all[n++] = plan.cores[i].table[k];
    qsort(all, n, sizeof *all, by_proc_path);
    size_t m = 0;                               /* the cores' counts of one path, summed */
    for (size_t k = 0; k < n; k++) {
        if (m && all[m - 1].proc == all[k].proc && all[m - 1].path == all[k].path) {
            all[m - 1].count += all[k].count;
            for (unsigned x = 0; x < PMU_EV_COUNT; x++)
                all[m - 1].metric[x] += all[k].metric[x];
        } else
            all[m++] = all[k];
    }
    struct truth_file t;
    if (truth_file_open(&t, path)) {
        free(all);
        return -1;
    }
    FILE *f = t.f;
    struct oracle_blpaths_header h = {.magic = ORACLE_BLPATHS_MAGIC, .version = ORACLE_BLPATHS_VERSION, .n = m,
                                      .run_id = run_id, .unknown = plan.unknown, .lost = plan.lost};
    fwrite(&h, sizeof h, 1, f);
    for (size_t k = 0; k < m; k++) {
        struct oracle_blpath b = {.proc = all[k].proc, .path = all[k].path, .count = all[k].count};
        memcpy(b.metric, all[k].metric, sizeof b.metric);
        fwrite(&b, sizeof b, 1, f);
    }
    free(all);
    return truth_file_commit(&t, path);
}
