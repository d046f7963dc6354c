/* mode=counters: event counters per translation block; see counters-mode.h. */
#include "hw-model/plugin/counters-mode.h"

#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/model/core-model.h"
#include "hw-model/plugin/counter-unit.h"

/* One translated block: its instructions and their events, and how often
 * each core ran it (each slot written by its own vCPU thread only). */
struct block {
    struct block *next;
    uint32_t n;
    uint32_t total[PMU_EV_COUNT];       /* events of one execution */
    uint64_t exec[MAX_CORES];
    struct {
        uint64_t pc;
        uint16_t events;                /* 1 << event it counts once */
    } insn[];
};

/* What one core has counted, kept on its own cache line (MTTCG threads).
 * Invariant: no enabled counter can overflow before the core's instruction
 * count reaches `horizon` (each countable event happens at most once an
 * instruction), so a block that ends before it only takes its length off
 * `left`, the instructions to go; the counters are brought up to date
 * (from `base`, the event totals when they last were) only in a block
 * that may cross the horizon.  The instruction count is horizon - left. */
struct core_counts {
    _Alignas(64) int64_t left;
    uint64_t horizon;
    bool by_class;                      /* a counter counts loads, stores or branches */
    uint64_t loads, stores, branches;   /* (kept while by_class only) */
    uint64_t base[PMU_COUNTERS];
};

/* The guest's configuration is read at the horizon, which is never further
 * than this: comparing config_gen on every block cost 8 % of the run. */
#define CONFIG_CHECK_INSTRUCTIONS 1024

static struct {
    unsigned ncores;
    struct counter_unit units[MAX_CORES];
    struct core_counts counts[MAX_CORES];
    struct block *blocks;               /* every block, for the oracle */
    uint64_t oracle_request[MAX_CORES]; /* the last request served */
    void (*serve_oracle_request)(uint64_t snapshot);
} cm;

static uint64_t instructions(const struct core_counts *k)
{
    return k->horizon - (uint64_t)k->left;
}

static uint16_t events_of(const struct insn_static *s)
{
    uint16_t e = 1u << PMU_EV_CYCLES | 1u << PMU_EV_RETIRED;
    switch (s->cls) {
    case ALPHA_LOAD:
    case ALPHA_LOAD_LOCKED:
        return e | 1u << PMU_EV_LOADS;
    case ALPHA_STORE:
    case ALPHA_STORE_COND:
        return e | 1u << PMU_EV_STORES;
    case ALPHA_BRANCH_COND:
        return e | 1u << PMU_EV_BRANCHES;
    default:
        return e;
    }
}

/* The core's running total of event e (0 for events this mode never counts). */
static uint64_t event_total(const struct core_counts *k, unsigned e)
{
    switch (e) {
    case PMU_EV_CYCLES:
    case PMU_EV_RETIRED:  return instructions(k);
    case PMU_EV_LOADS:    return k->loads;
    case PMU_EV_STORES:   return k->stores;
    case PMU_EV_BRANCHES: return k->branches;
    default:              return 0;
    }
}

/* Counter i overflows inside block b: find the instruction of each
 * overflow by walking the block's events in order. */
static void overflow_in_block(struct counter_unit *u, unsigned i, const struct block *b, int64_t left)
{
    struct counter_state *c = &u->c[i];
    uint64_t seen = 0;
    for (uint32_t k = 0; k < b->n; k++) {
        if (!(b->insn[k].events & (1u << c->event)))
            continue;
        seen++;
        while ((int64_t)seen >= left) {
            struct pmu_record r = {.pc = b->insn[k].pc, .cycle = instructions(&cm.counts[u->core]) + k,
                                   .event = c->event};
            /* the window's clock is lazy: brought up to date at overflows
             * only, since a store per block costs more than the rest */
            u->win->cycles = u->win->retired = r.cycle;
            counter_unit_overflow(u, &r);
            left += counter_unit_period(u, i);
        }
    }
    c->remaining = left - (int64_t)seen;
}

static void add_class_events(struct core_counts *k, const struct block *b)
{
    k->loads += b->total[PMU_EV_LOADS];
    k->stores += b->total[PMU_EV_STORES];
    k->branches += b->total[PMU_EV_BRANCHES];
}

/* Block b may cross the horizon: serve an oracle request, read the
 * guest's configuration if it changed, bring the counters up to date, run
 * b through them exactly, and set the next horizon.  (Not inlined:
 * on_block's common case then saves no registers, which measurably costs
 * more than all its work.) */
__attribute__((noinline)) static void block_near_overflow(struct counter_unit *u, struct core_counts *k,
                                                          const struct block *b)
{
    uint64_t before = instructions(k);      /* b not counted yet */
    k->horizon = before;
    k->left = 0;
    if (u->win && u->win->oracle_request != cm.oracle_request[u->core]) {
        cm.oracle_request[u->core] = u->win->oracle_request;
        cm.serve_oracle_request(cm.oracle_request[u->core]);
    }
    if (u->win && u->win->config_gen != u->config_gen) {
        /* the old counters' countdowns up to date: the reload leaves them
         * in the window for the firmware's multiplexing */
        for (unsigned i = 0; i < PMU_COUNTERS; i++)
            if (u->c[i].enabled) {
                uint64_t total = event_total(k, u->c[i].event);
                u->c[i].remaining -= (int64_t)(total - k->base[i]);
                k->base[i] = total;
            }
        counter_unit_reload(u);
        k->by_class = false;
        for (unsigned i = 0; i < PMU_COUNTERS; i++) {
            k->base[i] = event_total(k, u->c[i].event);
            k->by_class |= u->c[i].enabled && u->c[i].event != PMU_EV_CYCLES &&
                           u->c[i].event != PMU_EV_RETIRED;
        }
    }
    int64_t nearest = CONFIG_CHECK_INSTRUCTIONS;
    for (unsigned i = 0; u->nenabled && i < PMU_COUNTERS; i++) {
        struct counter_state *c = &u->c[i];
        if (!c->enabled)
            continue;
        uint64_t total = event_total(k, c->event);
        c->remaining -= (int64_t)(total - k->base[i]);
        int64_t n = b->total[c->event];
        if (c->remaining > n)
            c->remaining -= n;
        else if (n)
            overflow_in_block(u, i, b, c->remaining);
        k->base[i] = total + (uint64_t)n;
        if (c->remaining < nearest)
            nearest = c->remaining;
    }
    if (k->by_class)
        add_class_events(k, b);
    k->horizon = before + b->n + (uint64_t)nearest;
    k->left = nearest;
}

static void on_block(unsigned int vcpu_index, void *userdata)
{
    if (vcpu_index >= cm.ncores)
        return;
    struct block *b = userdata;
    struct core_counts *k = &cm.counts[vcpu_index];
    b->exec[vcpu_index]++;
    int64_t left = k->left - (int64_t)b->n;
    if (__builtin_expect(left <= 0, 0)) {
        block_near_overflow(&cm.units[vcpu_index], k, b);
        return;
    }
    k->left = left;
    if (k->by_class)
        add_class_events(k, b);
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct block *b = calloc(1, sizeof *b + n * sizeof b->insn[0]);
    if (!b)
        return;
    b->n = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint32_t word = 0;
        size_t size = qemu_plugin_insn_size(insn);
        memcpy(&word, qemu_plugin_insn_data(insn), size < 4 ? size : 4);
        struct insn_static s;
        insn_static_decode(&s, qemu_plugin_insn_vaddr(insn), word);
        b->insn[i].pc = s.pc;
        b->insn[i].events = events_of(&s);
        for (unsigned e = 0; e < PMU_EV_COUNT; e++)
            b->total[e] += (b->insn[i].events >> e) & 1;
    }
    /* Translation is serialised by QEMU: a plain list push is safe. */
    b->next = cm.blocks;
    cm.blocks = b;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS, b);
}

int counters_mode_install(qemu_plugin_id_t id, unsigned ncores, struct pmu_window *const *windows,
                          void (*oracle_request)(uint64_t snapshot))
{
    cm.ncores = ncores;
    cm.serve_oracle_request = oracle_request;
    for (unsigned c = 0; c < ncores; c++) {
        counter_unit_init(&cm.units[c], windows[c], c);
        cm.counts[c].horizon = CONFIG_CHECK_INSTRUCTIONS;
        cm.counts[c].left = CONFIG_CHECK_INSTRUCTIONS;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    return 0;
}

void counters_mode_collect(unsigned core, struct oracle_core *oc, struct pc_table *table)
{
    struct counter_unit *u = &cm.units[core];
    oc->cycles = oc->instructions = oc->fetched = instructions(&cm.counts[core]);
    /* one instruction a cycle: each cycle is its retirer's, all base */
    oc->stack[CAUSE_BASE] = oc->cycles * CYCLE_UNIT;
    oc->overflows = u->overflows;
    oc->ring_dropped = u->dropped;
    for (struct block *b = cm.blocks; b; b = b->next) {
        uint64_t x = b->exec[core];
        if (!x)
            continue;
        for (uint32_t k = 0; k < b->n; k++) {
            struct oracle_pc *o = pc_table_get(table, b->insn[k].pc);
            if (!o)
                continue;
            o->executions += x;
            o->cycles += x;
            o->stack[CAUSE_BASE] += x * CYCLE_UNIT;
            for (unsigned e = 0; e < PMU_EV_COUNT; e++)
                if (b->insn[k].events & (1u << e)) {
                    o->events[e] += x;
                    oc->events[e] += x;
                }
        }
    }
}
