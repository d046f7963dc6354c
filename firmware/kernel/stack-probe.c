/*
 * stack_probe=1: the last core grows its monitor stack until the guard
 * zone check (traps.c) stops it with "FATAL stack overflow"; the tests
 * use it to show that every core's monitor stack is guarded.
 *
 * Why a checked zone and not a guard page: see FW_STACK_GUARD in
 * linker/ram-map.h.  The probe grows by one frame per interrupt on its
 * core (a frame is far smaller than the zone), the growth the zone is
 * made to catch: a frame that jumps past the whole zone between two
 * interrupts is caught too (the frame's place is checked) but may already
 * have written over the stack below, the neighbouring core's.
 */
#include "firmware/kernel/stack-probe.h"

#include "firmware/arch/pal.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/halt.h"
#include "linker/ram-map.h"
#include "firmware/kernel/percpu.h"

#define PROBE_FRAME     512
/* far past any monitor stack: reaching it means the guard failed */
#define PROBE_DEPTH_MAX (8 * FW_STACK_SIZE / PROBE_FRAME)
#define PROBE_TICK_HZ   10000   /* a tick of its own, whatever tick_hz says */

static unsigned grow(volatile struct percpu *me, unsigned depth)
{
    volatile unsigned char frame[PROBE_FRAME];
    for (unsigned i = 0; i < sizeof frame; i++)
        frame[i] = (unsigned char)(depth + i);      /* the zone's pattern goes */
    uint64_t seen = me->interrupts;
    while (me->interrupts == seen)
        ;
    if (depth == PROBE_DEPTH_MAX)
        return depth;
    return grow(me, depth + 1) + frame[depth % sizeof frame];     /* (no tail call) */
}

void stack_probe_run(void)
{
    struct percpu *me = this_cpu();
    alarm_start(PROBE_TICK_HZ);
    pal_swpipl(IPL_ALL_OPEN);
    mon_printf("monitor: stack_probe: core %u grows its monitor stack until the guard stops it\n", this_core());
    grow(me, 0);
    mon_printf("monitor: stack_probe: core %u grew %u KiB and nothing stopped it\n", this_core(),
               PROBE_DEPTH_MAX * PROBE_FRAME / 1024);
    monitor_exit_failure();
}
