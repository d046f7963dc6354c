/*
 * On-target profiler: collects samples on every core while the workload
 * runs and streams them over the profile link (COM2, link-protocol.h).
 * Sources: the per-core alarm (timer PC sampling, works on the plain
 * board), the hw-model's event counters and ProfileMe (sample-source.h).
 * These are the monitor's only ways in; profiler.c lists the files below.
 */
#ifndef FIRMWARE_PROFILER_PROFILER_H
#define FIRMWARE_PROFILER_PROFILER_H

#include <stdint.h>
#include "firmware/arch/trap-frame.h"

/* Boot core, before any core runs the workload: link, HELLO, loadmap, tables. */
void profiler_start(void);
/* Each core as it enters the workload: arms its own sampling. */
void profiler_core_start(unsigned core);
/* Clock interrupt while profiling; false if the profiler does not own the
 * alarm (the plain tick handles it). */
int profiler_clock_interrupt(struct trap_frame *f);
/* Fast path of the clock interrupt (arch/trap-entry.S), with only the
 * caller-saved integer registers saved: records the sample and re-arms.
 * Returns 0 to send the tick down the full path instead (not profiling on
 * this core, or the boot core's drain is due). */
long profiler_fast_clock(uint64_t pc, uint64_t ps);
/* IPI on a secondary: empties its table when the flusher asks. */
void profiler_ipi(void);
/* Boot core at the end of the run: stop, flush every core, send END. */
void profiler_finish(long status, unsigned how);
/* A failed run (kernel/halt.h's hook): profiler_finish, best effort. */
void profiler_abort(void);

#endif
