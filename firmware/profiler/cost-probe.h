/* profile_probe=1: the sample table's cost per hit and per miss, in the
 * hardware model's cycles (see cost-probe.c). */
#ifndef FIRMWARE_PROFILER_COST_PROBE_H
#define FIRMWARE_PROFILER_COST_PROBE_H

#include "firmware/profiler/sample-table.h"

void cost_probe_run(enum table_policy policy);

#endif
