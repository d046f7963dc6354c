/*
 * Which sample source runs, and whether it samples: the profiler's one
 * switch.  Written only here, on the boot core (profiler_start, and the
 * host's START, STOP and CONFIG through control.c); read everywhere,
 * interrupt handlers of every core included.
 *
 * Invariants:
 *  - the current source is the timer, the counters or ProfileMe; it is
 *    the timer whenever the board lacks the unit the mode asks for;
 *  - the source changes only while sampling is off (CONFIG) or as
 *    sampling starts (boot, START); ProfileMe never changes to or from
 *    another source after boot (its mode is chosen at boot);
 *  - sampling off: the source's unit produces nothing new (stopped), and
 *    ticks come every SOURCE_RING_TICK_NS.
 */
#ifndef FIRMWARE_PROFILER_SAMPLING_H
#define FIRMWARE_PROFILER_SAMPLING_H

#include "firmware/profiler/profiler-config.h"
#include "firmware/profiler/sample-source.h"
#include "linker/ram-map.h"

/* A core's tick: its schedule (profiler.c, notes 1-4) and how its
 * samples were really spaced (issue 12, rate honesty), in one cache line
 * (the tick's only per-core state besides its table).  Written by the
 * owner core's tick only, read by the boot core for its FLUSH frames
 * (aligned 64-bit words: whole on Alpha).  Only ticks of a source whose
 * samples the alarm spaces (sample_source.timed) are timed; the first
 * sample after a (re)start is not (its interval began before sampling
 * did), so achieved mean period = timer_ns / timed. */
struct sampling_core {
    uint64_t next_ns;           /* absolute deadline of the next tick */
    uint64_t last_ns;           /* virtual time of the last tick */
    volatile int active;        /* between core start and its final flush */
    int timing;                 /* the interval to next_ns was armed sampling a timed source */
    uint64_t timer_ns;          /* virtual ns from each timed sample's previous tick to it */
    uint64_t timed;             /* samples with a measured interval */
    uint64_t missed;            /* deadlines given up (too far behind): re-armed from now */
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct sampling_core) == 64, "a core's tick state is one cache line");

extern struct sampling_core sampling_cores[MAX_CORES];

/* Read through the inline functions below; written by sampling.c only. */
extern const struct sample_source *sampling_current;
extern volatile int sampling_enabled;

static inline const struct sample_source *sampling_source(void) { return sampling_current; }
/* The host has not stopped sampling (start=host: not started yet). */
static inline int sampling_on(void) { return sampling_enabled; }
/* Sampling is on, with the timer, and nothing else rides on its ticks (no
 * value sampling): profiler.c's lean tick (its note 4) may run.  One load
 * for the three conditions; written by sampling.c beside every change of
 * the two above. */
extern volatile int sampling_lean_timer;
static inline int sampling_lean(void) { return sampling_lean_timer; }

/* profiler_start: every source's per-core state; the counters are
 * programmed now when the mode asks for them (a board without the model
 * falls back to the timer, with a warning). */
void sampling_init(const struct profiler_config *c, unsigned ncores);
/* profiler_start, later: on = sample from now (ProfileMe starts), else
 * wait for the host's START with the units quiet. */
void sampling_boot(int on);
/* CONFIG, while stopped: the source for the configured mode (started at
 * the next START). */
void sampling_select(void);
/* STOP: sampling off, the source's unit stops producing. */
void sampling_pause(void);
/* START while stopped: the source programmed again, sampling on (each
 * core's sampling period returns at its next tick). */
void sampling_resume(void);

#endif
