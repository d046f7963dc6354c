/*
 * Device access on the clipper board: ISA ports and PCI config space are
 * plain byte/word loads and stores at fixed KSEG I/O addresses (BWX, so
 * every access is exactly one bus cycle), Cchip CSRs are 64-bit only.
 */
#ifndef FIRMWARE_DRIVERS_IO_H
#define FIRMWARE_DRIVERS_IO_H

#include <stdint.h>
#include "board.h"

static inline uint8_t inb(unsigned port)
{
    return *(volatile uint8_t *)(BOARD_IO_PORT_BASE + port);
}

static inline void outb(unsigned port, uint8_t v)
{
    *(volatile uint8_t *)(BOARD_IO_PORT_BASE + port) = v;
    __asm__ volatile("mb" ::: "memory");
}

static inline uint64_t csr_read(uint64_t addr)
{
    return *(volatile uint64_t *)addr;
}

static inline void csr_write(uint64_t addr, uint64_t v)
{
    *(volatile uint64_t *)addr = v;
    __asm__ volatile("mb" ::: "memory");
}

static inline uint64_t pci_config_addr(unsigned bus, unsigned devfn, unsigned reg)
{
    return BOARD_PCI_CONFIG_BASE + ((uint64_t)bus << 16 | devfn << 8 | reg);
}

static inline uint32_t pci_config_read32(unsigned bus, unsigned devfn, unsigned reg)
{
    return *(volatile uint32_t *)pci_config_addr(bus, devfn, reg);
}

static inline void pci_config_write16(unsigned bus, unsigned devfn, unsigned reg, uint16_t v)
{
    *(volatile uint16_t *)pci_config_addr(bus, devfn, reg) = v;
    __asm__ volatile("mb" ::: "memory");
}

#endif
