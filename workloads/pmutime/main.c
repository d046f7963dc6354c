/*
 * pmutime: a workload that times itself through the PMU page
 * (alphaprof/pmu.h).  It runs a loop of known shape REPEATS times between
 * reads of the cycle counter, the retired-instruction counter and the
 * event counter that counts loads (when the profiler set one up: alphaprof
 * record --events loads), and checks the exact numbers: the smallest
 * reading of each is one no interrupt landed in.
 *   pmutime          measure (exit 1 if a number is wrong)
 *   pmutime write    store into the page: the monitor stops the image
 */
#include <stdio.h>
#include <string.h>
#include <alphaprof/pmu.h>

#include "loop.h"

int main(int argc, char **argv)
{
    const struct alphaprof_pmu *pmu = alphaprof_pmu_open();
    if (!pmu) {
        printf("pmutime: no hardware model on this board: nothing to read\n");
        return 0;
    }
    const volatile struct pmu_window *w = (const volatile struct pmu_window *)pmu;
    if (argc > 1 && !strcmp(argv[1], "write")) {
        printf("pmutime: writing the PMU page\n");
        *(volatile uint64_t *)&w->cycles = 0;
        printf("pmutime: the write went through\n");
        return 1;
    }
    int loads = -1;
    for (unsigned n = 0; n < ALPHAPROF_PMU_COUNTERS; n++)
        if (alphaprof_pmu_counter_event(pmu, n) == PMU_EV_LOADS)
            loads = (int)n;
    static const uint64_t zero;
    const volatile uint64_t *slot = loads >= 0 ? &w->counts[loads] : &zero;

    struct loop_reading best = {~0ull, ~0ull, ~0ull};
    for (int r = 0; r < REPEATS; r++) {
        struct loop_reading x;
        loop_measure(&w->cycles, &w->retired, slot, LOOP_ITERATIONS, &x);
        if (x.cycles < best.cycles) best.cycles = x.cycles;
        if (x.retired < best.retired) best.retired = x.retired;
        if (x.count < best.count) best.count = x.count;
    }
    uint64_t want_retired = 4 + 3 * (uint64_t)LOOP_ITERATIONS, want_loads = 1 + (uint64_t)LOOP_ITERATIONS;
    int ok = best.retired == want_retired && (loads < 0 || best.count == want_loads) &&
             best.cycles * 4 >= want_retired && best.cycles < 100 * want_retired;
    printf("pmutime: retired %llu (expected %llu)\n", (unsigned long long)best.retired,
           (unsigned long long)want_retired);
    if (loads >= 0)
        printf("pmutime: loads %llu on counter %d (expected %llu)\n", (unsigned long long)best.count, loads,
               (unsigned long long)want_loads);
    else
        printf("pmutime: no counter counts loads\n");
    printf("pmutime: cycles %llu for %d iterations\n", (unsigned long long)best.cycles, LOOP_ITERATIONS);
    printf("pmutime: %s\n", ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
