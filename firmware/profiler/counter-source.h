/*
 * Sampling on the hardware model's event counters, a sample source
 * (counter-source.c; the interface: sample-source.h).
 */
#ifndef FIRMWARE_PROFILER_COUNTER_SOURCE_H
#define FIRMWARE_PROFILER_COUNTER_SOURCE_H

#include "firmware/profiler/sample-source.h"

extern const struct sample_source counter_source;

#endif
