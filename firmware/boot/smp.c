/*
 * Secondary start-up through the HWRPB, as the SRM console protocol does
 * it: the PALcode parks every secondary polling rxrdy; we fill its slot's
 * PCB (stack, our page tables, FP on), point CPU_restart at
 * secondary_start, post "START" in its IPC buffer and set its rxrdy bit.
 * The PALcode clears all of rxrdy when one CPU starts, so cores go one at
 * a time, each waiting for the previous one to report in.
 */
#include "firmware/boot/smp.h"

#include "firmware/arch/pal.h"
#include "firmware/boot/hwrpb.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/mmu.h"
#include "firmware/kernel/percpu.h"
#include "firmware/kernel/halt.h"

extern void secondary_start(void);

#define START_TIMEOUT_NS 2000000000ull   /* virtual time per core */

unsigned smp_core_count(void)
{
    uint64_t n = *hwrpb_q(HWRPB_NR_PROCESSORS);
    if (n < 1)
        n = 1;
    if (n > MAX_CORES) {
        mon_printf("monitor: warning: the board has %lu cores, the monitor uses %d\n",
                   (unsigned long)n, MAX_CORES);
        n = MAX_CORES;
    }
    return (unsigned)n;
}

static void start_one(unsigned cpu)
{
    uint64_t slot = hwrpb_slot(cpu);
    volatile uint64_t *pcb = (volatile uint64_t *)(slot + SLOT_HWPCB);
    pcb[0] = KSEG_BASE + FW_STACK_PHYS + (cpu + 1) * (uint64_t)FW_STACK_SIZE;  /* ksp */
    pcb[1] = 0;                                 /* usp */
    pcb[2] = mmu_ptbr();                        /* ptbr */
    pcb[3] = 0;                                 /* pcc, asn */
    pcb[4] = 0;                                 /* unique */
    pcb[5] = 1;                                 /* FEN */
    *hwrpb_q(HWRPB_CPU_RESTART) = (uint64_t)secondary_start;
    *hwrpb_q(HWRPB_CPU_RESTART_DATA) = (uint64_t)secondary_start;
    /* IPC buffer: a quadword length, then the message text. */
    static const char start_msg[] = "START\r\n";
    volatile uint64_t *ipc = (volatile uint64_t *)(slot + SLOT_IPC_BUFFER);
    ipc[0] = sizeof start_msg - 1;
    volatile char *text = (volatile char *)&ipc[1];
    for (unsigned i = 0; i < sizeof start_msg - 1; i++)
        text[i] = start_msg[i];
    mb();
    *hwrpb_q(HWRPB_RXRDY) |= 1ull << cpu;
    mb();

    uint64_t deadline = clock_ns() + START_TIMEOUT_NS;
    while (percpu[cpu].state == CORE_OFFLINE) {
        if (clock_ns() > deadline) {
            mon_printf("monitor: FATAL core %u did not come online; check -smp and the PALcode\n", cpu);
            monitor_exit_failure();
        }
        /* Halt until the new core's "online" IPI (or the alarm at the
         * deadline).  Spinning would keep it off QEMU's one host thread in
         * deterministic mode for a whole round-robin slice (100 ms). */
        unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
        if (percpu[cpu].state == CORE_OFFLINE) {
            pal_cserve(CSERVE_SET_ALARM_ABS, deadline);
            pal_wtint();
            pal_cserve(CSERVE_SET_ALARM_ABS, 0);
        }
        pal_swpipl(0);      /* take the IPI: left pending, it would end every later WTINT at once */
        pal_swpipl(ipl);
    }
}

void smp_start_secondaries(void)
{
    for (unsigned cpu = 1; cpu < ncores; cpu++)
        start_one(cpu);
}

void smp_send_ipi(unsigned core)
{
    pal_wripir(core);
}
