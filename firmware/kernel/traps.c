/*
 * Interrupts are dispatched by type; every synchronous trap (arithmetic,
 * memory management, illegal instruction, unaligned access, machine check)
 * is fatal: one FATAL line naming the trap, core, image, PC and cause, the
 * registers, and a failure exit.  Workloads are meant to run clean; a trap
 * is a bug to see at once, not to paper over.
 *
 * Stack overflows are named as such: a user stack that reaches its guard
 * pages (mmu.c) faults there; a monitor stack is checked on every
 * interrupt and trap, by the frame's place and by the pattern in its guard
 * zone (FW_STACK_GUARD), so an overflow is caught at the next interrupt on
 * its core; one that grows past the whole zone between two interrupts is
 * caught too, but may have written over the stack below (the neighbour's).
 * Why no guard page: see FW_STACK_GUARD in linker/ram-map.h.
 */
#include "firmware/kernel/traps.h"

#include <stdio.h>
#include "board.h"
#include "firmware/arch/pal.h"
#include "firmware/drivers/alarm.h"
#include "firmware/drivers/intc.h"
#include "firmware/drivers/uart.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/halt.h"
#include "firmware/kernel/mmu.h"
#include "firmware/kernel/percpu.h"
#include "firmware/kernel/run.h"
#include "firmware/profiler/profiler.h"

extern void ent_int(void), ent_int_full(void), ent_arith(void), ent_mm(void), ent_if(void),
    ent_una(void), ent_sys(void);

#define INT_IPI         0
#define INT_CLOCK       1
#define INT_MCHECK      2
#define INT_DEVICE      3
#define INT_PERF        4

#define GUARD_PATTERN   0x5354414b47554152ull     /* "RAUGKATS" */

static uint64_t *monitor_stack_guard(unsigned core)
{
    return (uint64_t *)(KSEG_BASE + FW_STACK_PHYS + (uint64_t)(core % MAX_CORES) * FW_STACK_SIZE);
}

/* Fills this core's monitor stack guard zone (its stack is far above). */
static void fill_monitor_stack_guard(void)
{
    uint64_t *g = monitor_stack_guard(this_core());
    for (unsigned i = 0; i < FW_STACK_GUARD / 8; i++)
        g[i] = GUARD_PATTERN;
}

void traps_install(void)
{
    fill_monitor_stack_guard();
    uint64_t gp;
    __asm__ volatile("mov $29, %0" : "=r"(gp));
    pal_wrkgp(gp);
    pal_wrent(ent_int, ENT_INT);
    pal_wrent(ent_arith, ENT_ARITH);
    pal_wrent(ent_mm, ENT_MM);
    pal_wrent(ent_if, ENT_IF);
    pal_wrent(ent_una, ENT_UNA);
    pal_wrent(ent_sys, ENT_SYS);
}

static int from_user(const struct trap_frame *f) { return (f->pal.ps & PS_USER) != 0; }

/* Every register as it was when the trap hit. */
static void dump_registers(const struct trap_frame *f)
{
    uint64_t r[32];
    for (int i = 0; i < 32; i++)
        r[i] = f->r[i];
    r[16] = f->pal.a0;
    r[17] = f->pal.a1;
    r[18] = f->pal.a2;
    r[29] = f->pal.gp;
    r[30] = from_user(f) ? pal_rdusp() : (uint64_t)f + sizeof *f;
    r[31] = 0;
    for (int i = 0; i < 32; i += 4)
        mon_printf("monitor:   r%-2d=%016lx r%-2d=%016lx r%-2d=%016lx r%-2d=%016lx\n",
                   i, (unsigned long)r[i], i + 1, (unsigned long)r[i + 1],
                   i + 2, (unsigned long)r[i + 2], i + 3, (unsigned long)r[i + 3]);
    mon_printf("monitor:   ps=%lx fpcr=%016lx\n", (unsigned long)f->pal.ps,
               (unsigned long)f->f[31]);
}

static void __attribute__((noreturn))
fatal(const char *trap, const struct trap_frame *f, const char *detail);

/* The monitor's stack on this core: the frame f lies on it, above its
 * guard zone, and the zone's pattern is whole.  Else a FATAL stack overflow. */
static void check_monitor_stack(const struct trap_frame *f)
{
    unsigned core = this_core();
    const uint64_t *g = monitor_stack_guard(core);
    uint64_t top = (uint64_t)g + FW_STACK_SIZE, at = (uint64_t)f;
    /* (three words of the zone: this runs on every sample's interrupt) */
    int bad = at < (uint64_t)g + FW_STACK_GUARD || at >= top || g[FW_STACK_GUARD / 8 - 1] != GUARD_PATTERN ||
              g[FW_STACK_GUARD / 16] != GUARD_PATTERN || g[0] != GUARD_PATTERN;
    if (bad) {
        char detail[160];
        sniprintf(detail, sizeof detail, "sp=0x%lx: the monitor's stack of core %u (0x%lx..0x%lx) overflowed "
                  "into its guard zone", (unsigned long)at, core, (unsigned long)g, (unsigned long)top);
        fatal("stack overflow", f, detail);
    }
}

static void __attribute__((noreturn))
fatal(const char *trap, const struct trap_frame *f, const char *detail)
{
    mon_printf("monitor: FATAL %s on core %u in %s: pc=0x%lx %s\n", trap, this_core(),
               from_user(f) ? run_image_name() : "the monitor", (unsigned long)f->pal.pc, detail);
    dump_registers(f);
    monitor_exit_failure();
}

void trap_interrupt(uint64_t type, uint64_t vector, uint64_t a2, struct trap_frame *f)
{
    (void)a2;
    struct percpu *me = this_cpu();
    me->interrupts++;
    check_monitor_stack(f);
    switch (type) {
    case INT_IPI:
        me->ipis++;     /* a wake-up: the woken loop re-checks its flag */
        profiler_ipi();
        return;
    case INT_CLOCK:
        if (!profiler_clock_interrupt(f))
            alarm_interrupt();
        return;
    case INT_DEVICE:
        if (vector == BOARD_ISA_VECTOR(BOARD_COM1_IRQ)) {
            uart_rx_interrupt();
            intc_eoi(BOARD_COM1_IRQ);
            return;
        }
        if (vector >= BOARD_ISA_VECTOR(0) && vector < BOARD_ISA_VECTOR(16))
            intc_eoi((unsigned)(vector - BOARD_ISA_VECTOR(0)) / 16);
        mon_printf("monitor: warning: unexpected device interrupt, vector 0x%lx on core %u\n",
                   (unsigned long)vector, this_core());
        return;
    case INT_MCHECK: {
        char detail[64];
        sniprintf(detail, sizeof detail, "machine check, vector 0x%lx", (unsigned long)vector);
        fatal("machine check", f, detail);
    }
    default:
        mon_printf("monitor: warning: unexpected interrupt type %lu on core %u\n",
                   (unsigned long)type, this_core());
        return;
    }
}

void trap_arith(uint64_t summary, uint64_t regmask, uint64_t a2, struct trap_frame *f)
{
    (void)a2;
    char detail[128];
    sniprintf(detail, sizeof detail,
              "arithmetic trap: summary=0x%lx (bit 0 software completion, 1 invalid, 2 divide by zero, "
              "3 overflow, 4 underflow, 5 inexact, 6 integer overflow) regmask=0x%lx",
              (unsigned long)summary, (unsigned long)regmask);
    fatal("entArith", f, detail);
}

void trap_mm(uint64_t va, uint64_t mmcsr, uint64_t cause, struct trap_frame *f)
{
    static const char *const mmcsr_names[] = {
        "translation not valid", "access violation", "fault on read",
        "fault on execute", "fault on write",
    };
    const char *what = mmcsr < 5 ? mmcsr_names[mmcsr] : "unknown";
    const char *access = (int64_t)cause < 0 ? "instruction fetch" : cause ? "write" : "read";
    char detail[200];
    int guard = mmu_user_stack_guard(va);
    if (guard >= 0) {
        sniprintf(detail, sizeof detail, "va=0x%lx sp=0x%lx: the user stack of core %d outgrew its %lu KiB "
                  "(it reached the guard pages below it)", (unsigned long)va, (unsigned long)pal_rdusp(), guard,
                  (unsigned long)(USER_STACK_SIZE - USER_STACK_GUARD) / 1024);
        fatal("stack overflow", f, detail);
    }
    check_monitor_stack(f);
    sniprintf(detail, sizeof detail, "va=0x%lx mmcsr=%lu (%s) cause=%ld (%s)", (unsigned long)va,
              (unsigned long)mmcsr, what, (long)cause, access);
    fatal("entMM", f, detail);
}

void trap_if(uint64_t type, uint64_t a1, uint64_t a2, struct trap_frame *f)
{
    (void)a1;
    (void)a2;
    static const char *const names[] = {
        "breakpoint", "bugcheck", "gentrap", "FP disabled", "illegal instruction",
    };
    char detail[128];
    if (type == 2 && (int64_t)f->pal.a0 == -2)
        sniprintf(detail, sizeof detail, "cause=%lu (gentrap: integer divide by zero)",
                  (unsigned long)type);
    else
        sniprintf(detail, sizeof detail, "cause=%lu (%s)", (unsigned long)type,
                  type < 5 ? names[type] : "unknown");
    fatal("entIF", f, detail);
}

void trap_una(uint64_t va, uint64_t opcode, uint64_t reg, struct trap_frame *f)
{
    char detail[128];
    sniprintf(detail, sizeof detail, "unaligned access: va=0x%lx opcode=0x%lx register=%lu",
              (unsigned long)va, (unsigned long)opcode, (unsigned long)reg);
    fatal("entUna", f, detail);
}
