/*
 * The oracle's cycle stacks (hw-model/cycle-causes.h) on the host: the
 * exact time-proportional truth per PC as a distribution (what cycle and
 * timer samples are checked against), and `alphaprof check --stacks`:
 * each core's stack and whether it sums to its cycles exactly, the
 * per-PC stacks' sum against the cores', and the top instructions' stacks.
 */
#ifndef ALPHAPROF_UTIL_CYCLE_STACKS_H
#define ALPHAPROF_UTIL_CYCLE_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/accuracy.h"
#include "util/oracle-file.h"

/* The PCs' time-proportional cycles (the sum of their stacks, in cycles)
 * into out (room for o->h.npcs), sorted by pc; returns how many are > 0. */
size_t cycle_stacks_time(const struct oracle *o, struct keyed_count *out);

/* Names the procedure holding pc, for the listing (may be NULL). */
typedef const char *cycle_stacks_namer(void *ctx, uint64_t pc);

/* Prints the per-core stacks with their sums, and the top instructions'
 * stacks (text, or one JSON document).  Returns 0 if every core's stack
 * sums to its cycles (within one cycle for a snapshot or an interval,
 * whose open retire cycle is not charged yet: oracle-format.h) and the
 * per-PC stacks sum to the cores', else 1. */
int cycle_stacks_print(FILE *f, const struct oracle *o, size_t top, bool json, cycle_stacks_namer *namer,
                       void *ctx);

#endif
