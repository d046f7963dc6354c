/*
 * clipper (AlphaServer DS10/DP264-like, Tsunami/Typhoon chipset, CPU ev67)
 * as QEMU 7.2 models it: device addresses the firmware drives.  The
 * firmware includes this file as "board.h" (firmware/build.mk puts
 * boards/$(BOARD) on the include path); plain constants, so host code may
 * read it too.  Addresses are KSEG virtual unless named _PHYS; QEMU maps
 * virtual bit 40 to physical bit 43, so I/O space starts at 0xfffffd....
 *
 * The hardware model (board clipper-pm) raises performance interrupts the
 * way the PALcode's WRIPIR does: it writes 1 << (BOARD_IPI_SHIFT + n) to
 * the Cchip's MISC register at BOARD_CCHIP_MISC_PHYS.  It gets both from
 * boards/clipper-pm/board.conf (plugin_args ipi_reg, ipi_shift), which
 * tests/e2e/test_boards.py checks against this file.
 */
#ifndef BOARD_CLIPPER_H
#define BOARD_CLIPPER_H

#define BOARD_NAME              "clipper"

/* ISA/PCI I/O ports, PCI config and PCI memory spaces. */
#define BOARD_IO_PORT_BASE      0xfffffd01fc000000UL
#define BOARD_PCI_CONFIG_BASE   0xfffffd01fe000000UL   /* + (bus<<16 | devfn<<8 | reg) */
#define BOARD_PCI_MEM_BASE      0xfffffd0000000000UL   /* + BAR */

/* KSEG virtual address of an I/O-space physical address. */
#define BOARD_IO_KSEG(phys)     (0xfffffc0000000000UL + (((phys) & ~(1UL << 43)) | (1UL << 40)))

/* Tsunami Cchip CSRs (64-bit ldq/stq only). */
#define BOARD_CCHIP_PHYS        0x801a0000000UL
#define BOARD_CCHIP_BASE        BOARD_IO_KSEG(BOARD_CCHIP_PHYS)
#define BOARD_CCHIP_MISC_PHYS   (BOARD_CCHIP_PHYS + 0x080)
#define BOARD_CCHIP_MISC        (BOARD_CCHIP_BASE + 0x080)
#define BOARD_IPI_SHIFT         12      /* MISC bit 12 + n: interrupt core n */
#define BOARD_CCHIP_DIM0        (BOARD_CCHIP_BASE + 0x200)
#define BOARD_CCHIP_DIM1        (BOARD_CCHIP_BASE + 0x240)
#define BOARD_CCHIP_DIM2        (BOARD_CCHIP_BASE + 0x600)
#define BOARD_CCHIP_DIM3        (BOARD_CCHIP_BASE + 0x640)
#define BOARD_CCHIP_ISA_BIT     55      /* the 8259 cascade's bit in DIMn */

/* 16550 UARTs and the 8259 pair (ISA ports). */
#define BOARD_COM1_PORT         0x3f8
#define BOARD_COM2_PORT         0x2f8
#define BOARD_COM1_IRQ          4
#define BOARD_COM2_IRQ          3
#define BOARD_PIC1_CMD          0x20
#define BOARD_PIC1_DATA         0x21
#define BOARD_PIC2_CMD          0xa0
#define BOARD_PIC2_DATA         0xa1
#define BOARD_ISA_VECTOR(irq)   (0x800 + 16 * (irq))   /* entInt a1 for device irqs */

/* pvpanic-pci: a byte 1 stored at BAR0 makes QEMU exit with status 1. */
#define BOARD_PVPANIC_VENDOR    0x1b36
#define BOARD_PVPANIC_DEVICE    0x0011
#define BOARD_PCI_MAX_SLOTS     32

/* RAM reads zero at reset: QEMU's guest RAM is, and so is the launcher's
 * RAM file (memory-backend-file, made anew for each run).  The profiler
 * relies on it for its tables (firmware/profiler/sample-table.h,
 * invariant 5) instead of clearing them at every start. */
#define BOARD_RAM_ZERO_AT_RESET 1

/* Time: the alarm (CSERVE) counts virtual ns; rpcc's low 32 bits are ns/4. */
#define BOARD_CYCLE_HZ          250000000UL

#endif
