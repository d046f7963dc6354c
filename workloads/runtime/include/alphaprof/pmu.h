/*
 * alphaprof/pmu.h: a workload reads the hardware model's cycle counter and
 * event counters itself, without a system call (board clipper-pm).
 *
 *     const struct alphaprof_pmu *pmu = alphaprof_pmu_open();   (NULL: no model)
 *     uint64_t c0 = alphaprof_pmu_cycles(pmu);
 *     ... the code to time ...
 *     uint64_t cycles = alphaprof_pmu_cycles(pmu) - c0;
 *
 * The monitor maps the first page of each core's PMU window read-only for
 * user mode at its own address (hw-model/pmu-window.h, "the user page");
 * alphaprof_pmu_open() returns the calling core's, so open it on the core
 * that reads it (in core_main for the other cores).  Values are exact in
 * the full model: a read sees every instruction before it.  The event
 * counters count what the profiler configured them to (alphaprof record
 * --events): counter N's event is alphaprof_pmu_counter_event(pmu, N),
 * ALPHAPROF_PMU_OFF when N is off; its count restarts at 0 whenever the
 * profiler reconfigures (multiplexed events switch every 10 ms).
 * Writing the page faults: it is the model's.
 */
#ifndef ALPHAPROF_PMU_H
#define ALPHAPROF_PMU_H

#include <stdint.h>
#include "hw-model/pmu-window.h"
#include "workloads/runtime/alphaprof-runtime.h"

struct alphaprof_pmu;       /* this core's window: read through the functions below */

#define ALPHAPROF_PMU_COUNTERS  PMU_COUNTERS
#define ALPHAPROF_PMU_OFF       (-1)

static inline const volatile struct pmu_window *alphaprof_pmu_window_(const struct alphaprof_pmu *p)
{
    return (const volatile struct pmu_window *)p;
}

/* The calling core's PMU page, or NULL on a board without the model. */
static inline const struct alphaprof_pmu *alphaprof_pmu_open(void)
{
    uint64_t core = (uint64_t)alphaprof_core_id();
    const volatile struct pmu_window *w =
        (const volatile struct pmu_window *)(PMU_WINDOW_PHYS + core * PMU_WINDOW_PER_CORE);
    return w->magic == PMU_MAGIC ? (const struct alphaprof_pmu *)w : 0;
}

/* The core's modelled cycles since boot. */
static inline uint64_t alphaprof_pmu_cycles(const struct alphaprof_pmu *p)
{
    return alphaprof_pmu_window_(p)->cycles;
}

/* Instructions the core retired since boot. */
static inline uint64_t alphaprof_pmu_retired(const struct alphaprof_pmu *p)
{
    return alphaprof_pmu_window_(p)->retired;
}

/* Counter n's event (enum pmu_event; PMU_EVENT_NAMES names them), or
 * ALPHAPROF_PMU_OFF. */
static inline int alphaprof_pmu_counter_event(const struct alphaprof_pmu *p, unsigned n)
{
    const volatile struct pmu_window *w = alphaprof_pmu_window_(p);
    if (n >= PMU_COUNTERS || w->counters[n].enable != 1 || w->counters[n].event >= PMU_EV_COUNT)
        return ALPHAPROF_PMU_OFF;
    return (int)w->counters[n].event;
}

/* Events counter n counted since the profiler configured it. */
static inline uint64_t alphaprof_pmu_counter(const struct alphaprof_pmu *p, unsigned n)
{
    return n < PMU_COUNTERS ? alphaprof_pmu_window_(p)->counts[n] : 0;
}

#endif
