/*
 * The event counters of one core (pmu-window.h): configuration read from
 * the guest's window when config_gen changes, random periods from the
 * model's minimal-standard generator, overflow records into the ring.
 * Used by both plugin modes: the full model counts per instruction, the
 * counters-only mode per translation block.
 */
#ifndef HW_MODEL_COUNTER_UNIT_H
#define HW_MODEL_COUNTER_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "hw-model/pmu-window.h"

struct counter_state {
    uint32_t event;
    bool enabled;
    int64_t remaining;          /* events until the next overflow */
    uint64_t period_min, period_max;
};

struct counter_unit {
    struct pmu_window *win;     /* NULL: no guest window, nothing counts */
    unsigned core;
    uint64_t config_gen;
    uint64_t seed;              /* the seed rng was last seeded from */
    bool seeded;
    uint32_t rng;
    unsigned nenabled;
    struct counter_state c[PMU_COUNTERS];
    uint64_t overflows, dropped;
};

void counter_unit_init(struct counter_unit *u, struct pmu_window *win, unsigned core);
/* Reads the guest's configuration (checked, never trusted), after leaving
 * the old counters' partial periods in the window (pmu-window.h:
 * multiplexing); c[i].remaining must be up to date. */
void counter_unit_reload(struct counter_unit *u);
/* ... if it changed since the last read. */
static inline void counter_unit_sync(struct counter_unit *u)
{
    if (u->win && u->win->config_gen != u->config_gen)
        counter_unit_reload(u);
}
/* A new random period for counter i. */
int64_t counter_unit_period(struct counter_unit *u, unsigned i);
/* Appends an overflow record (or counts it dropped) and may interrupt. */
void counter_unit_overflow(struct counter_unit *u, const struct pmu_record *r);

#endif
