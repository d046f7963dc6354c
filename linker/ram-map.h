/*
 * The board's fixed RAM map: the one definition every part uses.
 *
 * Plain preprocessor constants only, so this header is included from C
 * (firmware, hw-model plugin, host tools), from assembly and from the linker
 * scripts (run through cpp).  All addresses are guest physical; the
 * firmware reaches them through KSEG (KSEG_BASE + physical), workload
 * images run in user mode where [USER_BASE, RAM_SIZE) is mapped one to one.
 *
 * The RAM is a memory-backend file (boards/clipper), so an offset in that
 * file is a physical address here: the hw-model plugin maps the same file.
 */
#ifndef ALPHAPROF_RAM_MAP_H
#define ALPHAPROF_RAM_MAP_H

#define RAM_SIZE                0x10000000      /* 256 MiB */
#define KSEG_BASE               0xfffffc0000000000
#define PAGE_SIZE_ALPHA         0x2000          /* 8 KiB pages */
#define MAX_CORES               4

/* QEMU's PALcode, the HWRPB and the PALcode's own page tables. */
#define PALCODE_PHYS            0x00000000
#define PALCODE_END             0x00300000
#define HWRPB_PHYS              0x00018000

/* -append text, written by QEMU at kernel_low - 0x6000. */
#define CMDLINE_PHYS            0x0030a000
#define CMDLINE_MAX             256

/* The resident monitor (text, data, bss), loaded by QEMU with -kernel. */
#define FIRMWARE_PHYS           0x00310000
#define FIRMWARE_END            0x00400000

/* Monitor stacks, one per core; the PALcode's interrupt frames land here. */
#define FW_STACK_PHYS           0x00400000
#define FW_STACK_SIZE           0x00010000
#define FW_STACK_END            (FW_STACK_PHYS + MAX_CORES * FW_STACK_SIZE)
/* The bottom of each monitor stack is a guard zone the monitor fills with
 * a pattern and checks on every interrupt and trap (traps.c; the test:
 * stack_probe=1).  Not a guard page, for two reasons:
 *  - KSEG has no page tables, so no page of it can be made invalid;
 *  - moving the stacks to mapped space would not help: the PALcode (QEMU's
 *    qemu-palcode for clipper) pushes the exception frame of a fault taken
 *    in kernel mode onto the current kernel stack (its STACK_FRAME), and
 *    after a store faulted in the guard page that stack pointer is in the
 *    guard page too; the push faults in PALmode, Pal_MMFault sees the PAL
 *    bit in exc_addr and goes to MchkBugCheck -> Sys_EnterConsole, a bare
 *    "halt": the machine stops with no word from the monitor. */
#define FW_STACK_GUARD          0x00002000

/* Monitor heap (newlib malloc inside the monitor). */
#define FW_HEAP_PHYS            0x00440000
#define FW_HEAP_END             0x00500000

/* Level-3 page tables that map the user region; 8 MiB of RAM per page. */
#define USER_PT_PHYS            0x00500000
#define USER_PT_END             (USER_PT_PHYS + (RAM_SIZE / 0x800000) * PAGE_SIZE_ALPHA)

/* hw-model register window and sample ring, one slot per core.  The
 * first page of each slot is also mapped read-only for user mode, at the
 * same address (the workloads' PMU page, hw-model/pmu-window.h). */
#define PMU_WINDOW_PHYS         0x00800000
#define PMU_WINDOW_PER_CORE     0x00040000
#define PMU_WINDOW_END          (PMU_WINDOW_PHYS + MAX_CORES * PMU_WINDOW_PER_CORE)

/* On-target profiler: hash table, overflow buffers, paired samples, state. */
#define PROFILER_PHYS           0x00900000
#define PROFILER_PER_CORE       0x00100000
#define PROFILER_END            (PROFILER_PHYS + MAX_CORES * PROFILER_PER_CORE)

/* Value sampling (firmware/profiler/value-sampling.c): per core, the
 * interpreter's decode cache and two banks of value hotlists. */
#define VALUES_PHYS             0x00d00000
#define VALUES_PER_CORE         0x00080000
#define VALUES_END              (VALUES_PHYS + MAX_CORES * VALUES_PER_CORE)

/* Calling context trees of instrumented images (alphaprof instrument --cct,
 * firmware/abi/cct-region.h): per core, the instrumentation's state, its
 * shadow stack and its call records.  Mapped read-write for user mode at
 * its own address; the monitor clears it before a run and drains it after.
 * Same stride as the PMU windows, so a trampoline reaches both from one
 * per-core offset. */
#define CCT_PHYS                0x00f00000
#define CCT_PER_CORE            0x00040000
#define CCT_END                 (CCT_PHYS + MAX_CORES * CCT_PER_CORE)

/* Everything from here up is mapped for user mode (workload images). */
#define USER_BASE               0x01000000

/* Workload images: QEMU's -device loader puts each ELF here. */
#define IMAGE_AREA_PHYS         0x01000000
#define IMAGE_AREA_END          0x08000000
#define IMAGE_ALIGN             0x00010000      /* images start on 64 KiB */
#define IMAGE_DEFAULT_BASE      IMAGE_AREA_PHYS

/* Heap handed out by _sbrk to the running image. */
#define USER_HEAP_PHYS          0x08000000
#define USER_HEAP_END           0x0f000000

/* User stacks, one per core, growing down from the end of each slot. */
#define USER_STACK_PHYS         0x0f000000
#define USER_STACK_SIZE         0x00400000
#define USER_STACK_END          (USER_STACK_PHYS + MAX_CORES * USER_STACK_SIZE)
/* The lowest pages of each user stack slot are left unmapped: a stack that
 * outgrows its slot faults there ("stack overflow") instead of running
 * into the next core's stack or the heap.  64 KiB, so a large frame cannot
 * jump it. */
#define USER_STACK_GUARD        0x00010000
/* A core's user sp starts this far below its slot's end, so every user
 * sp lies inside its own slot and sp >> log2(USER_STACK_SIZE) names the
 * core (firmware/abi/cct-region.h note 1: trampolines find their core's
 * region from sp in four instructions).  Keeps sp 16-byte aligned. */
#define USER_STACK_TOP_GAP      16

#endif
