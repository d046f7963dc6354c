/*
 * mode=counters: the event counters without the timing model, for runs
 * that need only counts at near QEMU speed.  One callback per executed
 * translation block instead of one per instruction: each block carries its
 * instructions' static event counts, so a counter that overflows inside a
 * block still records the exact PC of the instruction whose event did it.
 *
 * Countable: cycles (one per instruction: there is no timing model),
 * retired, loads, stores, branches.  The model-only events (misses,
 * mispredicts) never count in this mode.  A block left early by a trap is
 * counted whole: the counts are exact up to such traps.  A new
 * configuration (config_gen) takes effect, and an oracle request is
 * served, within 1024 instructions, not at the next one as in the full
 * model: checking them on every block was 8 % of the run.
 */
#ifndef HW_MODEL_COUNTERS_MODE_H
#define HW_MODEL_COUNTERS_MODE_H

#include <stdbool.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"
#include "hw-model/plugin/pc-table.h"
#include "hw-model/plugin/qemu-plugin-api.h"

/* Events counters-only mode can count: PMU_COUNTERS_MODE_EVENTS. */

/* windows[c] is core c's guest window (or NULL); oracle_request(N) is
 * called when a core's window asks for oracle snapshot N (a new
 * oracle_request, read with the configuration). */
int counters_mode_install(qemu_plugin_id_t id, unsigned ncores, struct pmu_window *const *windows,
                          void (*oracle_request)(uint64_t snapshot));
/* Core's totals and per-PC truth so far, added to oc and to table. */
void counters_mode_collect(unsigned core, struct oracle_core *oc, struct pc_table *table);

#endif
