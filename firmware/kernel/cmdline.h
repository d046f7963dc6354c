/*
 * The boot command line (QEMU -append, at CMDLINE_PHYS):
 *   [key=value ...] [-- image arguments]
 * Keys, their defaults and limits: firmware/abi/boot-line.h and .c, the one
 * table the host checks its words with too.  Keys: run=NAME (which image,
 * when several are loaded), tick_hz=N (per-core alarm rate, 0 = off),
 * report_ticks=1 (print each core's tick count at the end).  Profiling (the
 * profile link on COM2, see firmware/profiler/): profile=timer|off,
 * period=MIN-MAX (sampling period range, in ns of virtual time for the
 * timer), baud=N (link rate, 0 = unpaced), flush_ms=N (how often the boot
 * core sends what the cores collected), table=rr4|stf6 (hash-table
 * replacement policy), seed=N; with the hardware model, profile=counters
 * and events=NAME[:MIN-MAX],... (firmware/abi/event-spec.h; at most
 * BOOT_MAX_EVENTS: more than the model's counters are multiplexed; default
 * cycles with the period range); profile=profileme|paired with pme=MIN-MAX
 * (fetched instructions between ProfileMe samples, or pairs) and
 * pair_window=W (paired: the second instruction 1..W fetches after the
 * first).  start=host: the profiler waits for the host's START control
 * frame (a daemon attaching to the profile link) instead of sampling from
 * boot.  Everything after "--" is handed to the workload as its arguments.
 */
#ifndef FIRMWARE_KERNEL_CMDLINE_H
#define FIRMWARE_KERNEL_CMDLINE_H

#include "firmware/abi/boot-line.h"

extern struct boot_options boot_options;

/* Parses the command line; prints a warning per unknown or bad key. */
void cmdline_parse(void);

#endif
