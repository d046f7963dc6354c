/*
 * Ending the run (see halt.h).  Invariant: the failure hook runs at most
 * once and only on the boot core (a secondary's FATAL, or a FATAL inside
 * the hook itself, ends the run without it).
 */
#include "firmware/kernel/halt.h"

#include "firmware/arch/pal.h"
#include "firmware/drivers/pvpanic.h"
#include "firmware/drivers/uart.h"
#include "firmware/kernel/percpu.h"

static void (*failure_hook)(void);

void halt_on_failure(void (*hook)(void))
{
    failure_hook = hook;
}

void monitor_end_run(int failed)
{
    uart_drain();
    if (failed)
        pvpanic_trigger();
    pal_halt();
}

void monitor_exit_failure(void)
{
    static volatile int failing;
    if (!failing++ && this_core() == 0 && failure_hook)
        failure_hook();
    monitor_end_run(1);
}
