#ifndef FIRMWARE_KERNEL_STACK_PROBE_H
#define FIRMWARE_KERNEL_STACK_PROBE_H

/* stack_probe=1: grows this core's monitor stack, one frame per interrupt,
 * until the guard zone check ends the run with FATAL stack overflow.
 * Interrupts must be open; starts the core's tick if it has none. */
void stack_probe_run(void) __attribute__((noreturn));

#endif
