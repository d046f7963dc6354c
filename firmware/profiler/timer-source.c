/*
 * Timer PC sampling (the plain board's source): each core's alarm fires at
 * a random period drawn from [period_min, period_max] ns of virtual time
 * (a xorshift64 generator per core, seeded from seed=N and the core
 * number: DCPI's minimal-standard generator took two dependent multiplies
 * a tick, rng.h), and the interrupted PC goes into the core's DCPI
 * sample table as event LK_EVENT_TIMER.  Deadlines are absolute (the
 * profiler core adds the interval to the last deadline), so handler time
 * never stretches the period; a late alarm catches up a few deadlines, and
 * one further behind is re-armed from now (profiler.c, note 1), so a
 * period the board cannot keep costs rate, never progress.
 *
 * The floor.  Under --deterministic every core's instructions advance one
 * shared virtual clock (-icount, 1 ns each, cores in turn), so a period P
 * gives each of N cores only P / N instructions, of which a tick takes
 * TIMER_TICK_COST_NS.  A period below N * TIMER_TICK_COST_NS * 2 would
 * leave the workload less than half of them (at N * cost, none: a
 * livelock).  The timer therefore never draws below that floor; when the
 * period asked for lies below it, the start line says so and what it
 * samples at instead (the same floor without -icount, where it is harmless:
 * cores run in parallel there).  The period really achieved is measured
 * per core either way (sampling.h) and stored by the host.
 *
 * Invariant: a core's generator is used only by that core's tick.
 */
#include "firmware/profiler/timer-source.h"

#include "firmware/kernel/console.h"
#include "firmware/profiler/sample-table.h"

/* Virtual ns (instructions under -icount) one timer tick costs the core
 * it interrupts, fast path, PAL entry and exit included: measured with
 * chase on 1 core at period=1000-1000, deterministic: 83427 ticks added
 * 29.4 M instructions to its 54.0 M (353 each); tests/bench/bench_rate.py
 * shows the periods achieved at the floor. */
#define TIMER_TICK_COST_NS 350u
#define TIMER_WORKLOAD_SHARE 2u     /* the floor leaves the workload at least 1/2 */

struct timer_draw timer_draw;
static const struct profiler_config *config;
static uint64_t floor_ns, range_hi;   /* the draw's floor and top */

static uint64_t at_least_floor(uint64_t ns)
{
    return ns < floor_ns ? floor_ns : ns;
}

void timer_configure(void)
{
    timer_draw.lo = at_least_floor(config->period_min);
    range_hi = at_least_floor(config->period_max);
    timer_draw.span = range_hi > timer_draw.lo ? range_hi - timer_draw.lo : 0;
    unsigned bits = xorshift_bits(timer_draw.span);
    timer_draw.bits = bits ? bits : 1;
}

static void timer_init(const struct profiler_config *c, unsigned ncores)
{
    config = c;
    floor_ns = (uint64_t)ncores * TIMER_TICK_COST_NS * TIMER_WORKLOAD_SHARE;
    timer_configure();
    for (unsigned core = 0; core < ncores; core++)
        timer_draw.rng[core] = xorshift64_seed(c->seed * 7919u + core + 1);
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
    return sampling ? timer_draw_interval(core) : SOURCE_RING_TICK_NS;
}

void timer_sampling_range(uint64_t *min, uint64_t *max)
{
    *min = timer_draw.lo;
    *max = range_hi;
}

static uint64_t timer_mean_period(unsigned event)
{
    (void)event;
    return (timer_draw.lo + range_hi) / 2;
}

static void timer_announce(unsigned ncores)
{
    if (config->period_min < floor_ns)
        mon_printf("monitor: warning: period=%lu-%lu is below the shortest period %u cores "
                   "sharing virtual time can keep (%lu ns: a tick costs each about %u ns); "
                   "sampling every %lu..%lu ns instead\n",
                   (unsigned long)config->period_min, (unsigned long)config->period_max, ncores,
                   (unsigned long)floor_ns, TIMER_TICK_COST_NS, (unsigned long)timer_draw.lo,
                   (unsigned long)range_hi);
    mon_printf("monitor: profiling with the timer every %lu..%lu ns on %u cores, link on COM2%s\n",
               (unsigned long)timer_draw.lo, (unsigned long)range_hi, ncores, config->baud ? " (paced)" : "");
}

const struct sample_source timer_source = {
    .name = "timer",
    .caps = timer_caps,
    .init = timer_init,
    .start = timer_start,
    .tick = timer_tick,
    .interval = timer_interval,
    .mean_period = timer_mean_period,
    .timed = 1,
    .announce = timer_announce,
};
