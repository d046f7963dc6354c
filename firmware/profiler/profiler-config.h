/*
 * What the profiler is asked to do: mode, sampling periods, events,
 * ProfileMe intervals, flush interval, link rate.  One struct, copied from
 * the boot line once (profiler_config_from_boot, at profiler_start) and
 * changed afterwards only by the host's CONFIG control frame
 * (profiler_config_apply, called by control.c while sampling is stopped);
 * everything else reads it.  Pure code: no hardware, built for the host's
 * unit tests too.
 *
 * Invariants of a profiler_config:
 *  - 1 <= nevents <= PROFILER_MAX_EVENTS, and every event has a period
 *    range (min <= max): an event given without one gets the default
 *    (cycles: the timer's period range; other events
 *    BOOT_DEFAULT_EVENT_PERIOD_MIN..MAX, firmware/abi/boot-line.h);
 *  - CONFIG is held to the boot line's limits (boot-line.h, event-spec.h):
 *    host and monitor share one set.
 *  - mode is the mode asked for; the source that actually samples may be
 *    the timer when the board lacks the hardware model (sampling.h).
 */
#ifndef FIRMWARE_PROFILER_PROFILER_CONFIG_H
#define FIRMWARE_PROFILER_PROFILER_CONFIG_H

#include <stdint.h>
#include "firmware/abi/link-codec.h"
#include "firmware/kernel/cmdline.h"

#define PROFILER_MAX_EVENTS     BOOT_MAX_EVENTS

struct profiler_event {
    unsigned event;             /* hw-model event number (pmu-window.h) */
    uint64_t period_min, period_max;
};

struct profiler_config {
    unsigned mode;              /* LK_MODE_* asked for */
    uint64_t period_min, period_max;    /* timer, ns of virtual time */
    unsigned nevents;           /* counters mode */
    struct profiler_event events[PROFILER_MAX_EVENTS];
    uint64_t pme_min, pme_max;  /* ProfileMe: fetched instructions between samples */
    unsigned pme_draw;          /* BOOT_PME_DRAW_* (boot-line.h): geometric with their mean; in cycles */
    unsigned pair_window;
    unsigned flush_ms;          /* periodic drain of every core */
    unsigned baud;              /* profile link rate, 0: unpaced */
    unsigned seed;
    unsigned table_policy;      /* enum table_policy (sample-table.h) */
    int start_host;             /* sampling waits for the host's START */
    uint64_t link_nonce;        /* the boot session's nonce from a host that acknowledges, or 0 */
    int probe;                  /* profile_probe=1: time the sample table first */
};

/* The boot line's profiling keys (kernel/cmdline.h), defaults filled in. */
void profiler_config_from_boot(struct profiler_config *c, const struct boot_options *b);

/* ProfileMe modes (profileme, paired). */
int profiler_config_is_pme(unsigned mode);

/* The host's CONFIG applied to cur, checked whole before anything changes:
 * LK_ACK_OK with *next the new configuration, or an LK_ACK_* status with
 * *why saying what is wrong (and *next untouched).  has_model: the board
 * has the hardware model (counters mode needs it). */
uint32_t profiler_config_apply(const struct profiler_config *cur, const struct lk_config *req,
                               int has_model, struct profiler_config *next, const char **why);

#endif
