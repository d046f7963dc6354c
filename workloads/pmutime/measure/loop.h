/* The measured kernel of pmutime: one implementation per machine. */
#ifndef PMUTIME_LOOP_H
#define PMUTIME_LOOP_H

#include <stdint.h>

struct loop_reading {
    uint64_t cycles, retired, count;     /* deltas over the kernel */
};

/* Runs `iterations` rounds of (load, subtract, branch) between two reads
 * of the PMU page: cycles, retired, and counter `counter_slot` (an address
 * in the page).  Exactly 4 + 3 * iterations instructions lie between the
 * two reads of retired, and 1 + iterations loads between those of the
 * counter. */
void loop_measure(const volatile uint64_t *cycles, const volatile uint64_t *retired,
                  const volatile uint64_t *counter_slot, long iterations, struct loop_reading *out);

#endif
