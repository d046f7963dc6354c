/*
 * The boot command line (QEMU -append, at CMDLINE_PHYS):
 *   [key=value ...] [-- image arguments]
 * Keys: run=NAME (which image, when several are loaded), tick_hz=N (per-core
 * alarm rate, 0 = off), report_ticks=1 (print each core's tick count at the
 * end).  Everything after "--" is handed to the workload as its arguments.
 */
#ifndef FIRMWARE_KERNEL_CMDLINE_H
#define FIRMWARE_KERNEL_CMDLINE_H

#include "linker/ram-map.h"

struct boot_options {
    char run[32];           /* empty: the only (or first) image */
    unsigned tick_hz;
    int report_ticks;
    char args[CMDLINE_MAX]; /* text after "--", blank-separated */
};

extern struct boot_options boot_options;

/* Parses the command line; prints a warning per unknown or bad key. */
void cmdline_parse(void);

#endif
