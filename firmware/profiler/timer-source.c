/*
 * Timer PC sampling (the plain board's source): each core's alarm fires at
 * a random period drawn from [period_min, period_max] ns of virtual time
 * (DCPI's minimal-standard generator, one per core, seeded from seed=N and
 * the core number), and the interrupted PC goes into the core's DCPI
 * sample table as event LK_EVENT_TIMER.  Deadlines are absolute (the
 * profiler core adds the interval to the last deadline), so handler time
 * never stretches the period.  Invariant: a core's generator is used only
 * by that core's tick.
 */
#include "firmware/profiler/timer-source.h"

#include "firmware/kernel/console.h"
#include "firmware/profiler/rng.h"
#include "firmware/profiler/sample-table.h"

static const struct profiler_config *config;
static uint32_t rng[MAX_CORES] __attribute__((aligned(64)));

static void timer_init(const struct profiler_config *c, unsigned ncores)
{
    config = c;
    for (unsigned core = 0; core < ncores; core++)
        rng[core] = minstd_seed(c->seed * 7919u + core + 1);
}

static uint32_t timer_caps(void)
{
    return LK_CAP_TIMER;
}

static int timer_start(unsigned ncores)
{
    (void)ncores;
    return 1;               /* every board has an alarm */
}

static void timer_tick(unsigned core, uint64_t pc, uint64_t due_ns, int sampling)
{
    (void)due_ns;
    if (sampling)
        sample_table_record(sample_area_of(core), pc, LK_EVENT_TIMER);
}

static uint64_t timer_interval(unsigned core, int sampling)
{
    return sampling ? minstd_between(&rng[core], config->period_min, config->period_max)
                    : SOURCE_RING_TICK_NS;
}

static void timer_announce(unsigned ncores)
{
    mon_printf("monitor: profiling with the timer every %lu..%lu ns on %u cores, link on COM2%s\n",
               (unsigned long)config->period_min, (unsigned long)config->period_max, ncores,
               config->baud ? " (paced)" : "");
}

const struct sample_source timer_source = {
    .name = "timer",
    .caps = timer_caps,
    .init = timer_init,
    .start = timer_start,
    .tick = timer_tick,
    .interval = timer_interval,
    .announce = timer_announce,
};
