/*
 * The monitor's start: bring up the boot core, then every secondary, find
 * the workload images, and run the chosen one.
 */
#include "firmware/arch/pal.h"
#include "firmware/boot/smp.h"
#include "firmware/drivers/alarm.h"
#include "firmware/drivers/pvpanic.h"
#include "firmware/drivers/uart.h"
#include "firmware/kernel/cmdline.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/halt.h"
#include "firmware/kernel/loader.h"
#include "firmware/kernel/mmu.h"
#include "firmware/kernel/percpu.h"
#include "firmware/kernel/run.h"
#include "firmware/kernel/stack-probe.h"
#include "firmware/kernel/traps.h"
#include "firmware/profiler/profiler.h"
#include "firmware/profiler/window-fuzz.h"

struct percpu percpu[MAX_CORES];
unsigned ncores = 1;

void monitor_main(void) __attribute__((noreturn));
void secondary_main(void) __attribute__((noreturn));

void monitor_main(void)
{
    traps_install();
    uart_init();
    mmu_init();
    mmu_switch_to_monitor_context(0);
    percpu[0].state = CORE_IDLE;
    mon_printf("\nmonitor: core 0 online\n");
    cmdline_parse();
    if (!pvpanic_probe())
        mon_printf("monitor: warning: no pvpanic-pci device: a failing run will exit QEMU with status 0 "
                   "(add -device pvpanic-pci -action panic=exit-failure)\n");
    ncores = smp_core_count();
    smp_start_secondaries();
    loader_scan();
    const struct loaded_image *img = loader_choose(boot_options.run);
    uart_enable_rx_interrupt();
    window_fuzz_run(boot_options.window_fuzz);
    halt_on_failure(profiler_abort);    /* a failed run still sends what was collected */
    profiler_start();
    if (!boot_options.profile)
        alarm_start(boot_options.tick_hz);
    if (boot_options.stack_probe && ncores == 1)
        stack_probe_run();
    run_workload(img);
}

void secondary_main(void)
{
    unsigned core = this_core();
    traps_install();
    mmu_switch_to_monitor_context(core);
    mon_printf("monitor: core %u online\n", core);
    mb();
    percpu[core].state = CORE_IDLE;
    smp_send_ipi(0);            /* the boot core sleeps until we are online */
    if (!boot_options.profile)
        alarm_start(boot_options.tick_hz);
    if (boot_options.stack_probe && core == ncores - 1)
        stack_probe_run();
    run_secondary_loop();
}
