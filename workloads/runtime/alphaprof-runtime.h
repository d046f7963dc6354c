/*
 * What a workload image may use beyond newlib: the cores it runs on.
 *
 * main() runs on the boot core (core 0).  An image that defines
 *     int core_main(int core, int ncores);
 * also runs it on every other core, in parallel with main; main waits for
 * those with alphaprof_join_cores().  Everything else is plain C + newlib.
 */
#ifndef ALPHAPROF_RUNTIME_H
#define ALPHAPROF_RUNTIME_H

#include <stdint.h>

/* This core's number, 0 = the boot core. */
int alphaprof_core_id(void);
/* Number of cores running the image (alphaprof run --cores N). */
int alphaprof_core_count(void);
/* Waits until core_main has returned on every other core; returns the sum
 * of their return values.  Boot core only. */
long alphaprof_join_cores(void);
/* Virtual time since boot in ns (exactly one per instruction in the
 * board's deterministic mode). */
uint64_t alphaprof_clock_ns(void);

/* How often a benchmark workload repeats its work: the first argument
 * (`alphaprof run IMAGE -- N`), 1 when absent; a bad argument prints why
 * and gives 0, which the caller treats as an error. */
long alphaprof_repeat_count(int argc, char **argv);

/* Optional per-core entry, see above. */
int core_main(int core, int ncores) __attribute__((weak));

#endif
