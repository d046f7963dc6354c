/*
 * The boot command line (QEMU -append, at CMDLINE_PHYS):
 *   [key=value ...] [-- image arguments]
 * Keys: run=NAME (which image, when several are loaded), tick_hz=N (per-core
 * alarm rate, 0 = off), report_ticks=1 (print each core's tick count at the
 * end).  Profiling (the profile link on COM2, see firmware/profiler/):
 * profile=timer|off, period=MIN-MAX (sampling period range, in ns of virtual
 * time for the timer), baud=N (link rate, 0 = unpaced), flush_ms=N (how
 * often the boot core sends what the cores collected), table=rr4|stf6
 * (hash-table replacement policy), seed=N; with the hardware model,
 * profile=counters and events=NAME[:MIN-MAX],... (hw-model/pmu-window.h
 * names, at most BOOT_MAX_EVENTS: more than the model's counters are
 * multiplexed; default cycles with the period range);
 * profile=profileme|paired with pme=MIN-MAX (fetched instructions between
 * ProfileMe samples, or pairs) and pair_window=W (paired: the second
 * instruction 1..W fetches after the first).
 * start=host: the profiler waits for the host's START control frame (a
 * daemon attaching to the profile link) instead of sampling from boot.
 * Everything after "--" is handed to the workload as its arguments.
 */
#ifndef FIRMWARE_KERNEL_CMDLINE_H
#define FIRMWARE_KERNEL_CMDLINE_H

#include <stdint.h>
#include "firmware/abi/link-protocol.h"
#include "linker/ram-map.h"

#define BOOT_MAX_EVENTS LK_MAX_EVENTS

struct boot_options {
    char run[32];           /* empty: the only (or first) image */
    unsigned tick_hz;
    int report_ticks;
    int profile_probe;          /* profile_probe=1: measure the sample table's cost */
    unsigned window_fuzz;       /* window_fuzz=N: N rounds of garbage in the PMU window */
    unsigned profile;           /* LK_MODE_* (firmware/abi/link-protocol.h) */
    uint64_t period_min, period_max;
    unsigned baud;
    unsigned flush_ms;
    unsigned table_policy;      /* enum table_policy */
    unsigned seed;
    unsigned nevents;
    struct { unsigned event; uint64_t period_min, period_max; } events[BOOT_MAX_EVENTS];
    uint64_t pme_min, pme_max;  /* ProfileMe: fetched instructions between samples */
    unsigned pair_window;       /* paired ProfileMe: minor interval 1..W */
    int start_host;             /* start=host: sample only after the host's START */
    char args[CMDLINE_MAX]; /* text after "--", blank-separated */
};

extern struct boot_options boot_options;

/* Parses the command line; prints a warning per unknown or bad key. */
void cmdline_parse(void);

#endif
