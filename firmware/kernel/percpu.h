/*
 * Per-core monitor state.  Each core writes only its own slot (one cache
 * line apart so cores never share a line); the boot core reads the others'
 * when it starts, joins or reports them.
 */
#ifndef FIRMWARE_KERNEL_PERCPU_H
#define FIRMWARE_KERNEL_PERCPU_H

#include <stdint.h>
#include "firmware/arch/pal.h"
#include "linker/ram-map.h"

enum core_state {
    CORE_OFFLINE = 0,
    CORE_IDLE,          /* online, waiting for work */
    CORE_RUNNING,       /* in the workload's core_entry */
    CORE_DONE,          /* core_entry returned */
};

struct percpu {
    volatile int state;             /* enum core_state */
    volatile int go;                /* set by the boot core: run core_entry */
    volatile long result;           /* core_entry's return value */
    uint64_t alarm_period_ns;       /* 0: alarm off */
    uint64_t alarm_next_ns;         /* absolute deadline of the next tick */
    uint64_t alarm_start_ns;
    volatile uint64_t alarm_ticks;  /* ticks taken */
    volatile uint64_t alarm_late;   /* deadlines already past when re-armed */
    uint64_t interrupts;            /* every entInt on this core */
    uint64_t ipis;
} __attribute__((aligned(64)));

extern struct percpu percpu[MAX_CORES];
extern unsigned ncores;             /* cores the board has (HWRPB) */

static inline unsigned this_core(void) { return pal_whami(); }
static inline struct percpu *this_cpu(void) { return &percpu[pal_whami() % MAX_CORES]; }

#endif
