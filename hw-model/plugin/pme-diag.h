/*
 * ProfileMe selection diagnostic (debug only, off unless the environment
 * names a file): does the unit's choice of instructions, or what happens
 * around a tag, make the tagged executions differ from the average one in
 * the model's own truth?  Per PC, over retired executions, the stage
 * latencies summed over all of them and over the tagged ones; and, by the
 * distance in fetched instructions since the core last ran PALcode (an
 * interrupt, the monitor's way in and out), how many instructions were
 * fetched, tagged and how many cycles retired there; and fetched and
 * tagged by distance from the last change between kernel code (the
 * monitor) and user code (the workload), each side apart.
 *
 *   ALPHAPROF_PME_DIAG=PATH      writes PATH at exit (text, one row a line)
 *   ALPHAPROF_PME_DIAG_PC=0x...  also splits that PC's executions by distance
 */
#ifndef HW_PLUGIN_PME_DIAG_H
#define HW_PLUGIN_PME_DIAG_H

#include <stdbool.h>
#include <stdint.h>

extern bool pme_diag_on;

void pme_diag_init(unsigned ncores);
/* Every fetched instruction in fetch order (fetched: the unit's count after
 * it); lat NULL for one that did not retire; cycles its retire gap. */
void pme_diag_fetched(unsigned core, uint64_t pc, uint64_t fetched, bool pal, bool tagged,
                      const uint32_t *lat, uint64_t cycles, uint64_t retire);
void pme_diag_write(void);

#endif
