/*
 * pvpanic-pci (1b36:0011).  The PALcode assigned its BAR at boot; we only
 * enable memory decoding and store PANICKED (bit 0) into the register.
 */
#include "firmware/drivers/pvpanic.h"

#include <stdint.h>
#include "board.h"
#include "firmware/drivers/io.h"

#define PCI_ID          0x00
#define PCI_COMMAND     0x04
#define PCI_BAR0        0x10
#define PCI_COMMAND_MEMORY 0x2
#define PVPANIC_PANICKED 1

static uint64_t pvpanic_reg;

int pvpanic_probe(void)
{
    for (unsigned slot = 0; slot < BOARD_PCI_MAX_SLOTS; slot++) {
        unsigned devfn = slot << 3;
        uint32_t id = pci_config_read32(0, devfn, PCI_ID);
        if (id != (BOARD_PVPANIC_DEVICE << 16 | BOARD_PVPANIC_VENDOR))
            continue;
        uint32_t bar = pci_config_read32(0, devfn, PCI_BAR0) & ~0xfu;
        pci_config_write16(0, devfn, PCI_COMMAND, PCI_COMMAND_MEMORY);
        pvpanic_reg = BOARD_PCI_MEM_BASE + bar;
        return 1;
    }
    return 0;
}

void pvpanic_trigger(void)
{
    if (pvpanic_reg || pvpanic_probe()) {
        *(volatile uint8_t *)pvpanic_reg = PVPANIC_PANICKED;
        __asm__ volatile("mb" ::: "memory");
    }
}
