/*
 * The current sample source and the sampling switch (see sampling.h).
 */
#include "firmware/profiler/sampling.h"

#include "firmware/arch/barrier.h"
#include "firmware/profiler/counter-source.h"
#include "firmware/profiler/pme-capture.h"
#include "firmware/profiler/timer-source.h"
#include "firmware/profiler/value-sampling.h"

const struct sample_source *sampling_current = &timer_source;
volatile int sampling_enabled;
volatile int sampling_lean_timer;
struct sampling_core sampling_cores[MAX_CORES];

static const struct profiler_config *config;
static unsigned ncores;

/* After the source or the switch changed (value sampling is set once,
 * before sampling_boot). */
static void update_lean(void)
{
    mb();
    sampling_lean_timer = sampling_enabled && sampling_current == &timer_source && !value_sampling_on();
    mb();
}

void sampling_init(const struct profiler_config *c, unsigned n)
{
    static const struct sample_source *const all[] = {&timer_source, &counter_source, &pme_source};
    config = c;
    ncores = n;
    sampling_enabled = 0;
    update_lean();
    for (unsigned c = 0; c < MAX_CORES; c++)
        sampling_cores[c] = (struct sampling_core){0};
    for (unsigned i = 0; i < sizeof all / sizeof all[0]; i++)
        all[i]->init(c, n);
    sampling_current = c->mode == LK_MODE_COUNTERS && counter_source.start(n) ? &counter_source
                                                                              : &timer_source;
}

void sampling_boot(int on)
{
    /* ProfileMe starts with sampling (else at START): records from before
     * the session would reach no database */
    if (profiler_config_is_pme(config->mode)) {
        if (on)
            sampling_current = pme_source.start(ncores) ? &pme_source : &timer_source;
        else
            sampling_current = pme_caps() ? &pme_source : &timer_source;
    }
    sampling_enabled = on;
    update_lean();
    if (!on && sampling_current->stop)
        sampling_current->stop(ncores);
}

void sampling_select(void)
{
    timer_configure();          /* CONFIG may have changed the period */
    if (config->mode == LK_MODE_TIMER)
        sampling_current = &timer_source;
    else if (config->mode == LK_MODE_COUNTERS)
        sampling_current = &counter_source;
    update_lean();
}

void sampling_pause(void)
{
    sampling_enabled = 0;
    update_lean();
    if (sampling_current->stop)
        sampling_current->stop(ncores);
}

void sampling_resume(void)
{
    if (sampling_current == &counter_source && !counter_source.start(ncores))
        sampling_current = &timer_source;
    if (profiler_config_is_pme(config->mode) && pme_source.start(ncores))
        sampling_current = &pme_source;
    mb();
    sampling_enabled = 1;
    update_lean();
}
