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

/* main of a benchmark workload: runs run_once (non-zero: its self-check
 * failed) as often as the first argument says (`alphaprof run IMAGE -- N`,
 * default 1); returns the exit status: 0, 1 on a failed check, 2 on a bad
 * argument (said on the console). */
int alphaprof_repeat(int argc, char **argv, int (*run_once)(void));

/* Optional per-core entry, see above. */
int core_main(int core, int ncores) __attribute__((weak));

#endif
