/*
 * Per-CPU periodic tick from the PALcode's alarm.  Deadlines are absolute
 * (start + k * period), never "now + period", so handler latency does not
 * accumulate into drift: under -icount the tick count over a run is exact.
 * A deadline already in the past when re-arming is skipped and counted
 * late, so a too-fast rate shows up as a number instead of a hang.
 */
#include "firmware/drivers/alarm.h"

#include "firmware/arch/pal.h"
#include "firmware/kernel/percpu.h"

uint64_t clock_ns(void)
{
    return pal_cserve(CSERVE_GET_VM_TIME, 0);
}

void alarm_start(unsigned hz)
{
    struct percpu *c = this_cpu();
    if (hz == 0) {
        alarm_stop();
        return;
    }
    c->alarm_period_ns = 1000000000ull / hz;
    c->alarm_ticks = 0;
    c->alarm_late = 0;
    c->alarm_start_ns = clock_ns();
    c->alarm_next_ns = c->alarm_start_ns + c->alarm_period_ns;
    pal_cserve(CSERVE_SET_ALARM_ABS, c->alarm_next_ns);
}

void alarm_stop(void)
{
    struct percpu *c = this_cpu();
    c->alarm_period_ns = 0;
    pal_cserve(CSERVE_SET_ALARM_ABS, 0);
}

void alarm_interrupt(void)
{
    struct percpu *c = this_cpu();
    if (c->alarm_period_ns == 0)
        return;
    c->alarm_ticks++;
    c->alarm_next_ns += c->alarm_period_ns;
    uint64_t now = clock_ns();
    while (c->alarm_next_ns <= now) {
        c->alarm_late++;
        c->alarm_next_ns += c->alarm_period_ns;
    }
    pal_cserve(CSERVE_SET_ALARM_ABS, c->alarm_next_ns);
}
