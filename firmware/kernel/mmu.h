/*
 * Address space for workloads: [USER_BASE, RAM_SIZE) mapped one to one for
 * user and kernel but for a guard at the bottom of each core's user stack
 * slot (USER_STACK_GUARD), each core's PMU page read-only (pmu-window.h),
 * everything else below USER_BASE unmapped (a null pointer faults).  The
 * monitor itself runs in KSEG and needs no mapping.
 */
#ifndef FIRMWARE_KERNEL_MMU_H
#define FIRMWARE_KERNEL_MMU_H

#include <stdint.h>

/* Builds the page tables (boot core, once). */
void mmu_init(void);
/* Page frame number of the level-1 table, for a PCB's ptbr. */
uint64_t mmu_ptbr(void);
/* The core whose user stack guard holds va, or -1. */
int mmu_user_stack_guard(uint64_t va);
/* Switches the calling core to its own PCB using our page tables. */
void mmu_switch_to_monitor_context(unsigned core);

#endif
