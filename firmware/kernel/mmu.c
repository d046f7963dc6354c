/*
 * Three-level Alpha page tables (8 KiB pages, 1024 entries per table).
 * QEMU walks them itself from the PCB's ptbr; the PALcode only reports
 * faults.  Level 1 and level 2 live in the monitor's bss; the level-3
 * tables live at USER_PT_PHYS (linker/ram-map.h), one per 8 MiB of RAM.
 *
 * User mode sees [USER_BASE, RAM_SIZE) one to one, read-write, except
 * the guard pages at the bottom of each core's user stack slot, and the
 * first page of each core's PMU window, read-only at its own address (the
 * workloads' PMU page), and the calling-context-tree region, read-write at
 * its own address (firmware/abi/cct-region.h); every other user address is
 * invalid.
 */
#include "firmware/kernel/mmu.h"

#include <string.h>
#include "firmware/arch/pal.h"
#include "linker/ram-map.h"

#define PTE_VALID   0x0001
#define PTE_KRE     0x0100
#define PTE_URE     0x0200
#define PTE_KWE     0x1000
#define PTE_UWE     0x2000
#define PAGE_SHIFT  13
#define PT_ENTRIES  1024
#define L3_SPAN     ((uint64_t)PT_ENTRIES << PAGE_SHIFT)   /* 8 MiB */

_Static_assert(USER_PT_END - USER_PT_PHYS == (RAM_SIZE / L3_SPAN) * PAGE_SIZE_ALPHA,
               "ram-map.h reserves one level-3 table per 8 MiB");
_Static_assert(CCT_PHYS / L3_SPAN == PMU_WINDOW_PHYS / L3_SPAN && (CCT_END - 1) / L3_SPAN == CCT_PHYS / L3_SPAN,
               "the CCT region shares the PMU windows' level-3 table");
_Static_assert(USER_BASE % L3_SPAN == 0, "user region starts on a level-3 table");

/* The PCB layout the PALcode's SWPCTX reads (physical address). */
struct pcb {
    uint64_t ksp, usp, ptbr;
    uint32_t pcc, asn;
    uint64_t unique, flags, reserved[2];
};

static uint64_t l1[PT_ENTRIES] __attribute__((aligned(PAGE_SIZE_ALPHA)));
static uint64_t l2[PT_ENTRIES] __attribute__((aligned(PAGE_SIZE_ALPHA)));
static struct pcb pcbs[MAX_CORES] __attribute__((aligned(128)));

static uint64_t to_phys(const void *kseg) { return (uint64_t)kseg - KSEG_BASE; }

static uint64_t pte(uint64_t phys, uint64_t prot)
{
    return (phys >> PAGE_SHIFT) << 32 | prot | PTE_VALID;
}

_Static_assert(PMU_WINDOW_PHYS / L3_SPAN == (PMU_WINDOW_END - 1) / L3_SPAN &&
               PMU_WINDOW_PHYS / L3_SPAN < USER_BASE / L3_SPAN, "the PMU windows share one level-3 table of their own");
_Static_assert(PMU_WINDOW_PER_CORE % PAGE_SIZE_ALPHA == 0, "each window starts on a page");

/* The first page of every core's PMU window, user-readable at its own
 * address: the rest of that 8 MiB stays invalid. */
static void map_pmu_pages(uint64_t table_prot)
{
    uint64_t l3_phys = USER_PT_PHYS + (PMU_WINDOW_PHYS / L3_SPAN) * PAGE_SIZE_ALPHA;
    uint64_t *l3 = (uint64_t *)(KSEG_BASE + l3_phys);
    memset(l3, 0, PAGE_SIZE_ALPHA);
    for (unsigned core = 0; core < MAX_CORES; core++) {
        uint64_t pa = PMU_WINDOW_PHYS + (uint64_t)core * PMU_WINDOW_PER_CORE;
        l3[(pa % L3_SPAN) >> PAGE_SHIFT] = pte(pa, PTE_KRE | PTE_URE);
    }
    for (uint64_t pa = CCT_PHYS; pa < CCT_END; pa += PAGE_SIZE_ALPHA)
        l3[(pa % L3_SPAN) >> PAGE_SHIFT] = pte(pa, PTE_KRE | PTE_KWE | PTE_URE | PTE_UWE);
    l2[PMU_WINDOW_PHYS / L3_SPAN] = pte(l3_phys, table_prot);
}

_Static_assert(USER_STACK_GUARD % PAGE_SIZE_ALPHA == 0 && USER_STACK_GUARD < USER_STACK_SIZE,
               "the user stack guard is whole pages inside the slot");

/* The lowest USER_STACK_GUARD bytes of each core's user stack slot: invalid. */
static void unmap_stack_guards(void)
{
    for (unsigned core = 0; core < MAX_CORES; core++) {
        uint64_t base = USER_STACK_PHYS + (uint64_t)core * USER_STACK_SIZE;
        for (uint64_t va = base; va < base + USER_STACK_GUARD; va += PAGE_SIZE_ALPHA) {
            uint64_t *l3 = (uint64_t *)(KSEG_BASE + USER_PT_PHYS + (va / L3_SPAN) * PAGE_SIZE_ALPHA);
            l3[(va % L3_SPAN) >> PAGE_SHIFT] = 0;
        }
    }
}

int mmu_user_stack_guard(uint64_t va)
{
    if (va < USER_STACK_PHYS || va >= USER_STACK_END)
        return -1;
    unsigned core = (unsigned)((va - USER_STACK_PHYS) / USER_STACK_SIZE);
    return va - USER_STACK_PHYS - (uint64_t)core * USER_STACK_SIZE < USER_STACK_GUARD ? (int)core : -1;
}

void mmu_init(void)
{
    const uint64_t table_prot = PTE_KRE | PTE_KWE;
    const uint64_t user_prot = PTE_KRE | PTE_KWE | PTE_URE | PTE_UWE;
    memset(l1, 0, sizeof l1);
    memset(l2, 0, sizeof l2);
    l1[0] = pte(to_phys(l2), table_prot);
    for (uint64_t va = USER_BASE; va < RAM_SIZE; va += L3_SPAN) {
        uint64_t l3_phys = USER_PT_PHYS + (va / L3_SPAN) * PAGE_SIZE_ALPHA;
        uint64_t *l3 = (uint64_t *)(KSEG_BASE + l3_phys);
        for (unsigned i = 0; i < PT_ENTRIES; i++)
            l3[i] = pte(va + ((uint64_t)i << PAGE_SHIFT), user_prot);
        l2[va / L3_SPAN] = pte(l3_phys, table_prot);
    }
    map_pmu_pages(table_prot);
    unmap_stack_guards();
    mb();
}

uint64_t mmu_ptbr(void)
{
    return to_phys(l1) >> PAGE_SHIFT;
}

void mmu_switch_to_monitor_context(unsigned core)
{
    struct pcb *p = &pcbs[core % MAX_CORES];
    memset(p, 0, sizeof *p);
    p->ptbr = mmu_ptbr();
    p->flags = 1;   /* FEN: floating point enabled */
    /* SWPCTX loads sp from the new PCB: give it the one we run on now. */
    uint64_t sp;
    __asm__ volatile("mov $30, %0" : "=r"(sp));
    p->ksp = sp;
    mb();
    pal_swpctx(to_phys(p));
}
