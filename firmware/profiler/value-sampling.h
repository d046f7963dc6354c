/*
 * Value sampling on the board (Burrows et al., ASPLOS 2000): at every k-th
 * sampling interrupt of a core, the value-sampling interpreter
 * (value-interp.h) runs the interrupted user context's next instructions
 * on a copy of its registers and offers what they compute, load and wait
 * for to the core's value hotlists (value-hotlist.h); the boot core sends
 * them as VALUES frames and the counters as VALUE_STATS frames
 * (firmware/abi/link-protocol.h).  The design notes are in value-sampling.c.
 */
#ifndef FIRMWARE_PROFILER_VALUE_SAMPLING_H
#define FIRMWARE_PROFILER_VALUE_SAMPLING_H

#include <stdint.h>

#include "firmware/arch/trap-frame.h"
#include "firmware/kernel/cmdline.h"

/* At profiler start, from the boot line: off unless value_every > 0. */
void value_sampling_init(const struct boot_options *b, unsigned ncores, unsigned flush_ms);
/* A run every value_sampling_every-th sampling interrupt; 0: off.
 * Written by value_sampling_init only. */
extern unsigned value_sampling_every;
static inline int value_sampling_on(void) { return value_sampling_every != 0; }

/* The fast clock path (only caller-saved registers saved) asks whether
 * this tick must take the full path because a run is due; otherwise it
 * counts the tick. */
int value_sampling_fast_tick(unsigned core);
/* The full clock path: a run is due at this tick (the caller then keeps
 * the alarm off during it and moves the next deadline past the run's
 * time: value-sampling.c note 8, profiler.c note 5). */
int value_sampling_due(unsigned core);
/* The full clock path, after the tick's sample: counts the tick and runs
 * the interpreter when due.  now_ns: the tick's deadline (virtual time). */
void value_sampling_tick(unsigned core, struct trap_frame *f, uint64_t now_ns);

/* Boot core: sends the hotlist banks the cores handed over, then each
 * core's counters (VALUE_STATS), as the link has room. */
void value_sampling_send(void);
/* Boot core, end of the run, after every core stopped sampling: sends
 * everything held (bounded in time; what is left is counted link_full)
 * and the final counters. */
void value_sampling_finish(void);
/* For the monitor's end-of-run line. */
void value_sampling_summary(unsigned ncores);

#endif
