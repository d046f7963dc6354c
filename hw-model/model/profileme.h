/*
 * The ProfileMe sampling unit of one core (pmu-window.h, seed section 4),
 * independent of QEMU so its statistics can be tested on synthetic streams.
 *
 * The caller reports every fetched instruction, good and bad path, in
 * fetch order (pme_unit_fetch); when that returns true the instruction is
 * tagged and, once it is done (retired or aborted), the caller fills its
 * Profile Registers and hands them over (pme_unit_done).  Single mode
 * writes one record per tag; paired mode keeps the first of a pair until
 * its partner, a minor interval uniform in 1..pair_window fetched
 * instructions later, is done, then writes both adjacent or, if the ring
 * lacks room for two, drops both.  Every record produced is counted in
 * pme_samples and, if dropped, in pme_dropped.
 *
 * Retire groups: a caller that reports every retirement's cycle
 * (pme_unit_retired, before that instruction's pme_unit_fetch) gets in
 * each retired record the number of instructions that retired in its
 * cycle (pmu-window.h, PME_EVENTS_GROUP).  That number is known only when
 * the cycle is over, at the next retirement in a later cycle (or
 * pme_unit_close: a flush or trap ends it too), so records wait in the
 * unit until then, in order; the ring sees them a few instructions later,
 * never a different sample.  Without pme_unit_retired records go out at
 * once with the field 0.
 *
 * Time draw (pmu-window.h PME_DRAW_TIME): pme_unit_fetch never tags; the
 * caller hands every execution that owns cycles (retired or trapped, in
 * program order), once its TIP cycles are final, to pme_unit_time with
 * those cycles in CYCLE_UNIT-ths, and if that returns k > 0, its record
 * (group size set by the caller: the group is over) to pme_unit_time_done,
 * which writes k consecutive copies (single) or pairs them up (paired: two
 * consecutive samples are a pair).  The unit's countdown is then in
 * CYCLE_UNIT-ths: the sample point is the unit at zero.  When cycles are
 * final is the caller's business (alphaprof-core.c: after its retire group
 * closes and, for a flush's owner, after the next instruction enters).
 */
#ifndef HW_MODEL_PROFILEME_H
#define HW_MODEL_PROFILEME_H

#include <stdbool.h>
#include <stdint.h>

#include "hw-model/pmu-window.h"

/* The model's minimal-standard generator (Park-Miller): state in 1..2^31-2. */
static inline uint32_t model_minstd(uint32_t *s)
{
    uint64_t x = (uint64_t)*s * 16807u % 2147483647u;
    *s = (uint32_t)(x ? x : 1);
    return *s;
}

/* A generator state from a window seed; salt separates the streams. */
static inline uint32_t model_minstd_seed(uint64_t seed, uint64_t salt)
{
    return (uint32_t)((seed ^ salt) % 2147483646u) + 1;
}

#define PME_HELD_MAX 4          /* records waiting for their retire group (a pair and more) */

struct pme_unit {
    uint32_t mode;              /* PME_OFF: the unit is off */
    uint32_t window;
    uint64_t interval_min, interval_max;
    bool geometric;             /* PME_DRAW_GEOMETRIC: the interval's draw */
    bool time;                  /* PME_DRAW_TIME: countdown in CYCLE_UNIT-ths, pme_unit_time */
    uint32_t rng;
    uint64_t countdown;         /* fetches until the next tag: the one at zero is tagged
                                 * (time draw: 2^64 - 1, fetches never tag) */
    uint64_t time_left;         /* time draw: CYCLE_UNIT-ths until the next sample point */
    uint64_t fetched;           /* instructions fetched so far */
    bool pending;               /* holding the first of a pair */
    bool tagged_second;         /* the next tag is the second of a pair */
    uint64_t first_fetched;     /* fetched index of the pending first */
    struct pme_record first;
    uint64_t samples, dropped;  /* records produced; of those dropped */
    /* retire groups (above) */
    bool grouping;              /* the caller reports retirements */
    uint64_t group_cycle;       /* the open group's retire cycle */
    uint32_t group_n;           /* instructions retired in it so far */
    bool first_open;            /* first waits for its group's size */
    unsigned nheld;             /* records produced, not yet in the ring */
    unsigned held_batch[PME_HELD_MAX];  /* held[i] goes to the ring with those of its batch */
    bool held_open[PME_HELD_MAX];
    struct pme_record held[PME_HELD_MAX];
};

void pme_unit_init(struct pme_unit *u);
/* Reads a configuration (range-checked: anything wrong turns the unit off
 * and returns -1) and restarts sampling from the seed. */
int pme_unit_configure(struct pme_unit *u, const struct pme_config *cfg, uint64_t seed);

/* The next time interval, in CYCLE_UNIT-ths (>= 1). */
uint64_t pme_unit_draw_time(struct pme_unit *u);

/* One instruction fetched; true if it is tagged. */
static inline bool pme_unit_fetch(struct pme_unit *u)
{
    u->fetched++;
    return u->mode != PME_OFF && --u->countdown == 0;
}

/* The instruction tagged by the last pme_unit_fetch that returned true is
 * done: rec holds its registers (slot, gap and distance are set here).
 * Call it before the next pme_unit_fetch.  Records go to w's ProfileMe
 * ring (w may be NULL: counted as produced, not written). */
void pme_unit_done(struct pme_unit *u, const struct pme_record *rec, struct pmu_window *w);

/* Time draw: an execution owning `units` CYCLE_UNIT-ths of the run's
 * time (final) passes; returns how many sample points fall in it (0 when
 * the unit is off or not in the time draw). */
static inline unsigned pme_unit_time(struct pme_unit *u, uint64_t units)
{
    if (!u->time)
        return 0;
    unsigned k = 0;
    while (units >= u->time_left) {
        units -= u->time_left;
        k++;
        u->time_left = pme_unit_draw_time(u);
    }
    u->time_left -= units;
    return k;
}
/* Time draw: the execution pme_unit_time returned k > 0 for: k records of
 * rec (its registers, group size included) to w's ring. */
void pme_unit_time_done(struct pme_unit *u, const struct pme_record *rec, unsigned k, struct pmu_window *w);

/* An instruction retires in cycle `retire` (call it before its
 * pme_unit_fetch, for every retired instruction in order): a later cycle
 * closes the group before it.  True if records went to w's ring. */
bool pme_unit_retired(struct pme_unit *u, uint64_t retire, struct pmu_window *w);
/* The open retire group is over (a flush, a trap, the end of the run, a
 * new configuration): its records get their group's size and go to the
 * ring.  True if records went to w's ring. */
bool pme_unit_close(struct pme_unit *u, struct pmu_window *w);

#endif
