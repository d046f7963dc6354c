/*
 * Timer PC sampling, the plain board's sample source
 * (timer-source.c; the interface: sample-source.h).
 */
#ifndef FIRMWARE_PROFILER_TIMER_SOURCE_H
#define FIRMWARE_PROFILER_TIMER_SOURCE_H

#include "firmware/profiler/rng.h"
#include "firmware/profiler/sample-source.h"

extern const struct sample_source timer_source;

/* The draw of a sampling interval, inline for profiler.c's lean tick (no
 * call, so no registers of its own to save), all in one cache line: the
 * range (the configured period raised to the floor, timer_sampling_range)
 * and each core's generator, used only by that core's tick.  The range is written before
 * sampling starts and again by timer_configure on CONFIG, while stopped. */
struct timer_draw {
    uint64_t lo;                /* the range: [lo, lo + span] ns */
    uint64_t span;
    uint64_t bits;              /* xorshift_bits(span), at least 1 */
    uint64_t rng[MAX_CORES];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct timer_draw) == 64, "the draw reads one cache line");
extern struct timer_draw timer_draw;

/* ns from this deadline to the core's next, uniform over the period. */
static inline uint64_t timer_draw_interval(unsigned core)
{
    return xorshift64_within(&timer_draw.rng[core], timer_draw.lo, timer_draw.span, (unsigned)timer_draw.bits);
}

/* The range again after the host's CONFIG (sampling_select). */
void timer_configure(void);

/* The range the timer samples at: the configured period raised to the
 * shortest one the board can keep (HELLO tells the host both). */
void timer_sampling_range(uint64_t *min, uint64_t *max);

#endif
