/* listmark's port to alphaprof (see port.h). */
#include <alphaprof/pmu.h>
#include "port.h"

static const struct alphaprof_pmu *pmu;

void port_init(void)
{
    pmu = alphaprof_pmu_open();
}

port_ticks_t port_ticks(void)
{
    return pmu ? alphaprof_pmu_cycles(pmu) : alphaprof_clock_ns();
}

const char *port_tick_unit(void)
{
    return pmu ? "cycles" : "ns";
}
