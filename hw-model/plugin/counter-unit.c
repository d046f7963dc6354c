/* Event counters of one core: see counter-unit.h and pmu-window.h. */
#include "hw-model/plugin/counter-unit.h"

#include "hw-model/model/profileme.h"        /* the model's generator */
#include "hw-model/plugin/irq-delivery.h"

void counter_unit_init(struct counter_unit *u, struct pmu_window *win, unsigned core)
{
    *u = (struct counter_unit){.win = win, .core = core};
}

int64_t counter_unit_period(struct counter_unit *u, unsigned i)
{
    const struct counter_state *c = &u->c[i];
    uint64_t span = c->period_max - c->period_min + 1;
    return (int64_t)(c->period_min + (uint64_t)model_minstd(&u->rng) % span);
}

void counter_unit_reload(struct counter_unit *u)
{
    struct pmu_window *w = u->win;
    /* what the old configuration's counters still had to go (pmu-window.h:
     * multiplexing), before anything of the new one is read */
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        const struct counter_state *c = &u->c[i];
        w->counter_left[i] = c->enabled ? (uint64_t)(c->remaining > 0 ? c->remaining : 1) : 0;
    }
    __atomic_store_n(&w->counter_left_gen, u->config_gen, __ATOMIC_RELEASE);
    u->config_gen = w->config_gen;
    if (!u->seeded || w->seed != u->seed) {
        u->seed = w->seed;
        u->seeded = true;
        u->rng = model_minstd_seed(w->seed, 0);
    }
    u->nenabled = 0;
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        struct pmu_counter_config cfg = w->counters[i];
        struct counter_state *c = &u->c[i];
        c->enabled = cfg.enable == 1 && cfg.event < PMU_EV_COUNT &&
                     cfg.period_min >= PMU_MIN_PERIOD && cfg.period_max >= cfg.period_min &&
                     cfg.period_max - cfg.period_min < (1ull << 31);
        c->event = cfg.event;
        c->period_min = cfg.period_min;
        c->period_max = cfg.period_max;
        w->counts[i] = 0;
        if (c->enabled) {
            uint64_t start = w->counter_start[i];
            c->remaining = start >= 1 && start <= c->period_max ? (int64_t)start : counter_unit_period(u, i);
            u->nenabled++;
        }
    }
}

void counter_unit_overflow(struct counter_unit *u, const struct pmu_record *r)
{
    struct pmu_window *w = u->win;
    u->overflows++;
    w->overflows = u->overflows;
    uint64_t head = w->ring_head, tail = __atomic_load_n(&w->ring_tail, __ATOMIC_ACQUIRE);
    if (head - tail >= PMU_RING_ENTRIES || tail > head) {
        u->dropped++;
        w->ring_dropped = u->dropped;
        return;
    }
    w->ring[head % PMU_RING_ENTRIES] = *r;
    __atomic_store_n(&w->ring_head, head + 1, __ATOMIC_RELEASE);
    irq_delivery_check(w, u->core);
}
