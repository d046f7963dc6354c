/*
 * The hardware model's per-core register window (hw-model/pmu-window.h)
 * as the firmware reaches it: through KSEG, one window per core.  A board
 * without the model leaves the window's RAM as it is (no magic).
 */
#ifndef FIRMWARE_PROFILER_PMU_H
#define FIRMWARE_PROFILER_PMU_H

#include "hw-model/pmu-window.h"
#include "linker/ram-map.h"

static inline struct pmu_window *pmu_window_of(unsigned core)
{
    return (struct pmu_window *)(KSEG_BASE + PMU_WINDOW_PHYS + (uint64_t)core * PMU_WINDOW_PER_CORE);
}

/* The board has the hardware model (its window carries the magic). */
static inline int pmu_present(void)
{
    return pmu_window_of(0)->magic == PMU_MAGIC;
}

#endif
