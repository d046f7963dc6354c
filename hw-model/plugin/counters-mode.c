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

static struct {
    unsigned ncores;
    struct counter_unit units[MAX_CORES];
    uint64_t instructions[MAX_CORES];
    struct block *blocks;               /* every block, for the oracle */
} cm;

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
            struct pmu_record r = {.pc = b->insn[k].pc, .cycle = cm.instructions[u->core] + k,
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

static void on_block(unsigned int vcpu_index, void *userdata)
{
    if (vcpu_index >= cm.ncores)
        return;
    struct block *b = userdata;
    struct counter_unit *u = &cm.units[vcpu_index];
    b->exec[vcpu_index]++;
    counter_unit_sync(u);
    for (unsigned i = 0; u->nenabled && i < PMU_COUNTERS; i++) {
        struct counter_state *c = &u->c[i];
        if (!c->enabled)
            continue;
        int64_t n = b->total[c->event];
        if (c->remaining > n)
            c->remaining -= n;
        else if (n)
            overflow_in_block(u, i, b, c->remaining);
    }
    cm.instructions[vcpu_index] += b->n;
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

int counters_mode_install(qemu_plugin_id_t id, unsigned ncores, struct pmu_window *const *windows)
{
    cm.ncores = ncores;
    for (unsigned c = 0; c < ncores; c++)
        counter_unit_init(&cm.units[c], windows[c], c);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    return 0;
}

void counters_mode_collect(unsigned core, struct oracle_core *oc, struct pc_table *table)
{
    struct counter_unit *u = &cm.units[core];
    oc->cycles = oc->instructions = oc->fetched = cm.instructions[core];
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
            for (unsigned e = 0; e < PMU_EV_COUNT; e++)
                if (b->insn[k].events & (1u << e)) {
                    o->events[e] += x;
                    oc->events[e] += x;
                }
        }
    }
}
