/*
 * Event-counter sampling (profile=counters, the hardware model's counters,
 * hw-model/pmu-window.h): each counter overflows after a random number of
 * its event's occurrences and the model writes a record with the exact PC
 * into the core's ring; the core's 1 ms tick (and the model's performance
 * interrupt when a quarter of the ring is full) moves the records into its
 * DCPI sample table.
 *
 * More events than counters: the events take turns on the counters in
 * groups of PMU_COUNTERS, MUX_SLICE_NS of virtual time each (deterministic),
 * and each event's mean period is scaled by the number of groups, so
 * samples times period still estimates the event's total.  Each event keeps
 * its partial period across its turns, as an OS saves and restores a
 * counter (pmu-window.h, multiplexing): the model leaves the old group's
 * countdowns in the window when it reads the new group's configuration,
 * the next tick saves them per event (left[]), and the event's next turn
 * starts from there.  Without that, an event rarer per slice than its
 * period would never overflow.
 *
 * Invariants:
 *  - a record is moved from the ring to the table exactly once: the ring's
 *    tail advances only after its records are in the table, and the
 *    performance interrupt does not drain while the tick's drain runs on
 *    the same core (draining);
 *  - while the host has sampling stopped the ring is not drained; START
 *    reprograms the counters and discards what the ring holds;
 *  - an event's saved countdown is used for at most one turn, and only if
 *    the model saved it for the generation that counted it (prev_gen).
 */
#include "firmware/profiler/counter-source.h"

#include <string.h>
#include "firmware/arch/pal.h"
#include "firmware/kernel/console.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/pmu.h"
#include "firmware/profiler/sample-table.h"

/* Each group of events keeps the counters this long (virtual time). */
#define MUX_SLICE_NS 10000000ull

struct counter_core {
    volatile int draining;      /* inside drain_ring: an IPI (IPL 6) may
                                   interrupt the clock handler (IPL 5) */
    uint32_t mux_group;         /* the events the counters count now */
    uint64_t mux_next_ns;       /* when the next group takes over */
    /* multiplexing: the group before this one, whose countdowns the model
     * leaves in the window under generation prev_gen */
    int prev_pending;
    uint32_t prev_group;
    uint64_t prev_gen;
    uint64_t left[PROFILER_MAX_EVENTS];     /* per event: events still to go, 0: none */
} __attribute__((aligned(64)));

static const struct profiler_config *config;
static struct counter_core cores[MAX_CORES];

/* Groups of events that take turns on the counters (1: no multiplexing). */
static unsigned mux_groups(void)
{
    unsigned n = config->nevents;
    return n <= PMU_COUNTERS ? 1 : (n + PMU_COUNTERS - 1) / PMU_COUNTERS;
}

static void counter_init(const struct profiler_config *c, unsigned ncores)
{
    config = c;
    memset(cores, 0, sizeof cores[0] * ncores);
}

static uint32_t counter_caps(void)
{
    return LK_CAP_COUNTERS;
}

/* Gives w's counters to events group * PMU_COUNTERS .. + PMU_COUNTERS - 1,
 * each starting from its saved countdown if it has one; the caller bumps
 * config_gen. */
static void program_group(struct pmu_window *w, struct counter_core *k, unsigned group)
{
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        unsigned e = group * PMU_COUNTERS + i;
        int on = e < config->nevents;
        w->counters[i].enable = (uint32_t)on;
        w->counters[i].event = on ? config->events[e].event : 0;
        w->counters[i].period_min = on ? config->events[e].period_min : 0;
        w->counters[i].period_max = on ? config->events[e].period_max : 0;
        w->counter_start[i] = on ? k->left[e] : 0;
        if (on)
            k->left[e] = 0;
    }
}

/* The model has read the current group's configuration: the group before
 * it stopped where the window says; each of its events goes on from there
 * at its next turn. */
static void save_countdowns(struct pmu_window *w, struct counter_core *k)
{
    if (!k->prev_pending || w->counter_left_gen != k->prev_gen)
        return;
    mb();
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        unsigned e = k->prev_group * PMU_COUNTERS + i;
        if (e < config->nevents)
            k->left[e] = w->counter_left[i];
    }
    k->prev_pending = 0;
}

/* Programs every core's counters from the configuration. */
static int counter_start(unsigned ncores)
{
    if (!pmu_present()) {
        mon_printf("monitor: warning: profile=counters needs the hardware model (--board clipper-pm); "
                   "sampling with the timer instead\n");
        return 0;
    }
    for (unsigned c = 0; c < ncores; c++) {
        struct pmu_window *w = pmu_window_of(c);
        struct counter_core *k = &cores[c];
        memset(k->left, 0, sizeof k->left);     /* a new start: fresh periods */
        k->prev_pending = 0;
        program_group(w, k, 0);
        k->mux_group = 0;
        w->seed = config->seed * 7919u + c + 1;
        w->ring_tail = w->ring_head;
        /* Interrupt when a quarter of the ring is full: one interrupt
         * delivers many records (ProfileMe 4.3), and the 1 ms tick still
         * drains whatever is left. */
        w->irq_ack = w->interrupts;
        w->irq_threshold = w->irq_mode == PMU_IRQ_IPI ? PMU_RING_ENTRIES / 4 : 0;
        mb();
        w->config_gen++;
    }
    return 1;
}

static void counter_stop(unsigned ncores)
{
    for (unsigned c = 0; c < ncores; c++) {
        struct pmu_window *w = pmu_window_of(c);
        for (unsigned i = 0; i < PMU_COUNTERS; i++)
            w->counters[i].enable = 0;
        mb();
        w->config_gen++;
    }
}

static void counter_core_start(unsigned core, uint64_t now_ns)
{
    cores[core].mux_next_ns = now_ns + MUX_SLICE_NS;
}

/* Moves this core's new overflow records into its hash table. */
static void drain_ring(unsigned core)
{
    struct pmu_window *w = pmu_window_of(core);
    struct sample_area *a = sample_area_of(core);
    uint64_t head = w->ring_head, tail = w->ring_tail;
    cores[core].draining = 1;
    mb();
    if (head - tail > PMU_RING_ENTRIES)     /* garbage: resynchronise */
        tail = head - PMU_RING_ENTRIES;
    for (; tail != head; tail++) {
        const struct pmu_record *r = &w->ring[tail % PMU_RING_ENTRIES];
        sample_table_record(a, r->pc, r->event);
    }
    mb();
    w->ring_tail = tail;
    cores[core].draining = 0;
}

/* From the tick: the next group's turn on this core's counters.  Records
 * already in the ring carry their event, so nothing is drained first. */
static void multiplex(unsigned core, uint64_t due_ns)
{
    struct counter_core *k = &cores[core];
    struct pmu_window *w = pmu_window_of(core);
    save_countdowns(w, k);
    if (due_ns < k->mux_next_ns)
        return;
    k->mux_next_ns += MUX_SLICE_NS;
    k->prev_group = k->mux_group;
    k->prev_gen = w->config_gen;
    k->prev_pending = 1;
    k->mux_group = k->mux_group + 1 == mux_groups() ? 0 : k->mux_group + 1;
    program_group(w, k, k->mux_group);
    wmb();
    w->config_gen++;
}

static void counter_tick(unsigned core, uint64_t pc, uint64_t due_ns, int sampling)
{
    (void)pc;
    if (!sampling)          /* stopped: the ring is discarded at START */
        return;
    drain_ring(core);
    multiplex(core, due_ns);
}

/* A performance interrupt from the hardware model: drain the ring while
 * this core samples; after its final flush the records stay in the ring,
 * where the oracle counts them as never drained.  If the interrupt came in
 * the middle of the clock handler's drain, that drain goes on when we
 * return: draining here too would count records twice. */
static void counter_interrupt(unsigned core, int collecting)
{
    struct pmu_window *w = pmu_window_of(core);
    uint64_t raised = w->interrupts;
    if (raised == w->irq_ack)
        return;
    if (collecting && !cores[core].draining)
        drain_ring(core);
    mb();
    w->irq_ack = raised;
}

static void counter_flush(unsigned core, int final)
{
    (void)final;
    drain_ring(core);
}

/* Counted 1/groups of the time: the period scaled by the turns. */
static uint64_t counter_mean_period(unsigned event)
{
    for (unsigned i = 0; i < config->nevents; i++)
        if (config->events[i].event == event)
            return (config->events[i].period_min + config->events[i].period_max) / 2 * mux_groups();
    return (config->period_min + config->period_max) / 2;
}

/* Names of the hw-model's event numbers, so the host needs no copy. */
static void counter_send_names(uint8_t *buf, size_t cap)
{
    static const char *const names[] = {PMU_EVENT_NAMES};
    struct lk_writer w;
    lk_names_begin(&w, buf, cap, LK_NAMES_EVENT, 0);
    for (unsigned e = 0; e < sizeof names / sizeof names[0]; e++)
        lk_names_add(&w, (struct lk_bytes){(const uint8_t *)names[e], strlen(names[e])});
    link_tx_send(&w);
}

static void counter_add_counters(unsigned core, struct lk_flush *f)
{
    flush_add_counter(&f->ndrops, f->drops, LK_DROP_RING_OVERFLOW, pmu_window_of(core)->ring_dropped);
}

static void counter_announce(unsigned ncores)
{
    mon_printf("monitor: profiling %u event(s) on the hardware counters%s on %u cores, link on COM2%s\n",
               config->nevents, mux_groups() > 1 ? " (multiplexed, 10 ms each)" : "", ncores,
               config->baud ? " (paced)" : "");
}

const struct sample_source counter_source = {
    .name = "counters",
    .caps = counter_caps,
    .init = counter_init,
    .start = counter_start,
    .stop = counter_stop,
    .stop_before_final_flush = 0,   /* issue 12 item 5 changes that */
    .core_start = counter_core_start,
    .tick = counter_tick,
    .interrupt = counter_interrupt,
    .flush = counter_flush,
    .mean_period = counter_mean_period,
    .send_names = counter_send_names,
    .add_counters = counter_add_counters,
    .announce = counter_announce,
};
