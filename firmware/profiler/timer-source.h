/*
 * Timer PC sampling, the plain board's sample source
 * (timer-source.c; the interface: sample-source.h).
 */
#ifndef FIRMWARE_PROFILER_TIMER_SOURCE_H
#define FIRMWARE_PROFILER_TIMER_SOURCE_H

#include "firmware/profiler/sample-source.h"

extern const struct sample_source timer_source;

#endif
