/*
 * profile_probe=1: what one sample costs the handler's table update on a
 * hash hit and on a miss that evicts an entry to the overflow buffer, in
 * the hardware model's cycles.  The model rewrites the window's cycle
 * register after every instruction, so reading it around a batch of
 * sample_table_record calls gives their exact modelled cost.  Runs on
 * core 0's table before profiling starts (profiler_start resets it after):
 *
 *   fill:  as many consecutive PCs as the table holds fill it (not timed);
 *   miss:  PROBE_BATCH new PCs, each evicting an entry (timed);
 *   hit:   the last PROBE_BATCH / 4 of those again, four times (the first
 *          round warms the caches, the other three are timed).
 *
 * The interrupt that delivers records is shared by a quarter ring of them
 * (ProfileMe 4.3), so it is not part of a sample's cost here.
 */
#include "firmware/profiler/cost-probe.h"

#include "firmware/kernel/console.h"
#include "firmware/profiler/sample-table.h"
#include "firmware/profiler/pmu.h"

#define PROBE_BATCH 2048
#define PROBE_PC    0x1000000ull

static uint64_t model_cycles(const struct pmu_window *w)
{
    return *(const volatile uint64_t *)&w->cycles;
}

void cost_probe_run(enum table_policy policy)
{
    const struct pmu_window *w = pmu_window_of(0);
    if (!pmu_present()) {
        mon_printf("monitor: warning: profile_probe needs the hardware model (--board clipper-pm)\n");
        return;
    }
    struct sample_area *a = sample_area_of(0);
    sample_table_init(a, policy);
    const uint64_t capacity = sample_table_capacity(a);
    for (uint64_t i = 0; i < capacity; i++)
        sample_table_record(a, PROBE_PC + 4 * i, PMU_EV_CYCLES);

    uint64_t misses = a->st.misses, evicted = a->st.evicted, t0 = model_cycles(w);
    for (uint64_t i = 0; i < PROBE_BATCH; i++)
        sample_table_record(a, PROBE_PC + 4 * (capacity + i), PMU_EV_CYCLES);
    uint64_t miss_cycles = model_cycles(w) - t0;
    misses = a->st.misses - misses;
    evicted = a->st.evicted - evicted;

    const uint64_t first = capacity + PROBE_BATCH - PROBE_BATCH / 4;
    uint64_t hits = 0, hit_cycles = 0;
    for (unsigned round = 0; round < 4; round++) {
        uint64_t h = a->st.hits, t = model_cycles(w);
        for (uint64_t i = 0; i < PROBE_BATCH / 4; i++)
            sample_table_record(a, PROBE_PC + 4 * (first + i), PMU_EV_CYCLES);
        if (round > 0) {
            hit_cycles += model_cycles(w) - t;
            hits += a->st.hits - h;
        }
    }
    mon_printf("monitor: table cost (%s): hit %lu cycles over %lu hits, miss %lu cycles over %lu misses "
               "(%lu evicted)\n", policy == POLICY_STF6 ? "stf6" : "rr4",
               (unsigned long)(hits ? hit_cycles / hits : 0), (unsigned long)hits,
               (unsigned long)(misses ? miss_cycles / misses : 0), (unsigned long)misses,
               (unsigned long)evicted);
}
