/*
 * Running one workload image on every core, and ending the run: the exit
 * status reaches QEMU (kernel/halt.h) and the launcher (the
 * "monitor: NAME exited with status N" line carries the full value).
 */
#ifndef FIRMWARE_KERNEL_RUN_H
#define FIRMWARE_KERNEL_RUN_H

#include <stdint.h>
#include "firmware/kernel/loader.h"

/* Boot core: runs the image's main in user mode; never returns. */
void run_workload(const struct loaded_image *img) __attribute__((noreturn));
/* Secondary cores: wait for work, run core_entry, park; never returns. */
void run_secondary_loop(void) __attribute__((noreturn));

/* SYS_EXIT from core `core`. */
void run_exit(unsigned core, long status) __attribute__((noreturn));
/* SYS_JOIN_CORES: waits for every secondary's core_entry to return. */
long run_join_cores(void);
/* SYS_SBRK on the image's heap. */
long run_sbrk(long increment);
/* Name of the running image, or "the monitor" before one runs. */
const char *run_image_name(void);
/* Copies "NAME args" for SYS_GET_ARGS; returns the full length. */
long run_get_args(char *buf, unsigned long len);

#endif
