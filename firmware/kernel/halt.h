/*
 * Ending the run: the exit status reaches QEMU (HALT = 0, pvpanic = 1).
 * The lowest layer of the monitor's exits, so that anything (SMP start-up,
 * the loader, traps, newlib) can end a run as a failure without depending
 * on what runs the workload.  Whatever must happen on a failed run first
 * (the profiler's best-effort last flush) registers itself here: the
 * dependency points down, never back up.
 */
#ifndef FIRMWARE_KERNEL_HALT_H
#define FIRMWARE_KERNEL_HALT_H

/* The hook monitor_exit_failure runs once, on the boot core, before the
 * run ends (one hook; a later call replaces it). */
void halt_on_failure(void (*hook)(void));
/* Ends the run as a failure (after a FATAL line). */
void monitor_exit_failure(void) __attribute__((noreturn));
/* Drains the console and ends QEMU: HALT, or pvpanic when failed. */
void monitor_end_run(int failed) __attribute__((noreturn));

#endif
