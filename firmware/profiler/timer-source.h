/*
 * Timer PC sampling, the plain board's sample source
 * (timer-source.c; the interface: sample-source.h).
 */
#ifndef FIRMWARE_PROFILER_TIMER_SOURCE_H
#define FIRMWARE_PROFILER_TIMER_SOURCE_H

#include "firmware/profiler/sample-source.h"

extern const struct sample_source timer_source;

/* The range the timer samples at: the configured period raised to the
 * shortest one the board can keep (HELLO tells the host both). */
void timer_sampling_range(uint64_t *min, uint64_t *max);

#endif
