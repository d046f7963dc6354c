/* drystone's port to alphaprof: time from the PMU page's cycle counter
 * under the hardware model, else virtual nanoseconds. */
#include <alphaprof/pmu.h>
#include "drystone.h"

unsigned long port_ticks(void)
{
    const struct alphaprof_pmu *pmu = alphaprof_pmu_open();
    return pmu ? alphaprof_pmu_cycles(pmu) : alphaprof_clock_ns();
}

const char *port_unit(void)
{
    return alphaprof_pmu_open() ? "cycles" : "ns";
}
