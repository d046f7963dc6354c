/*
 * window_fuzz=N: plays a buggy guest against the hardware model.  For N
 * rounds it fills this core's whole PMU window (pmu-window.h: registers,
 * counter and ProfileMe configuration, ring indices, oracle requests, the
 * rings) with random words, bumping config_gen so the model reads them,
 * and runs a little between rounds so the model acts on each state.  The
 * model must survive all of it: QEMU keeps running and its oracle stays
 * whole (tests/e2e/test_hwmodel.py).  Afterwards the window is put back
 * as the model left it (its own fields) and quiet (counters, ProfileMe
 * and interrupts off), so the run goes on normally.  Interrupts stay
 * masked meanwhile: any the garbage raised are acknowledged, not taken.
 */
#include "firmware/profiler/window-fuzz.h"

#include <stdint.h>
#include <string.h>
#include "firmware/arch/pal.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/percpu.h"
#include "firmware/profiler/pmu.h"
#include "firmware/profiler/rng.h"
#include "hw-model/oracle-format.h"

/* Work the model runs through between two states of the window. */
static void spin(unsigned n)
{
    for (volatile unsigned i = 0; i < n; i++)
        ;
}

void window_fuzz_run(unsigned rounds)
{
    struct pmu_window *w = pmu_window_of(this_core());
    if (!rounds)
        return;
    if (w->magic != PMU_MAGIC) {
        mon_printf("monitor: window_fuzz: no hardware model window; nothing to fuzz\n");
        return;
    }
    unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
    uint64_t magic = w->magic;
    uint32_t version = w->version, ncounters = w->ncounters, irq_mode = w->irq_mode;
    uint32_t rng = minstd_seed(rounds * 2654435761u);
    volatile uint64_t *words = (volatile uint64_t *)w;
    size_t nwords = sizeof *w / sizeof(uint64_t);
    for (unsigned r = 0; r < rounds; r++) {
        /* every register page word, and a stretch of the rings */
        for (size_t i = 0; i < 4096 / sizeof(uint64_t); i++)
            words[i] = (uint64_t)minstd_next(&rng) << 33 ^ minstd_next(&rng);
        for (unsigned k = 0; k < 64; k++)
            words[minstd_between(&rng, 0, nwords - 1)] = (uint64_t)minstd_next(&rng) << 31 | minstd_next(&rng);
        /* small values too: plausible configurations reach the deeper checks */
        w->counters[r % PMU_COUNTERS].enable = 1;
        w->counters[r % PMU_COUNTERS].event = r % (PMU_EV_COUNT + 2);
        w->oracle_request = minstd_between(&rng, 0, 2 * ORACLE_SNAPSHOT_MAX);
        mb();
        w->config_gen = r;
        spin(50 + r % 200);
    }
    /* quiet again: nothing counting, rings empty, no interrupts */
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        w->counters[i].enable = 0;
        w->counter_start[i] = 0;
    }
    memset((void *)&w->pme, 0, sizeof w->pme);
    w->irq_threshold = 0;
    w->oracle_request = 0;
    w->ring_tail = w->ring_head;
    w->pme_tail = w->pme_head;
    w->irq_ack = w->interrupts;
    w->magic = magic;
    w->version = version;
    w->ncounters = ncounters;
    w->irq_mode = irq_mode;
    mb();
    w->config_gen = rounds + 1;
    spin(100);
    w->irq_ack = w->interrupts;
    pal_swpipl(ipl);
    mon_printf("monitor: window_fuzz: %u rounds of garbage in core %u's PMU window, then quiet\n", rounds,
               this_core());
}
