/*
 * The parts of the HWRPB (Hardware Restart Parameter Block) the monitor
 * reads: byte offsets as the Alpha SRM console layout defines them and
 * QEMU's PALcode fills them.
 */
#ifndef FIRMWARE_BOOT_HWRPB_H
#define FIRMWARE_BOOT_HWRPB_H

#include <stdint.h>
#include "linker/ram-map.h"

#define HWRPB_NR_PROCESSORS     144
#define HWRPB_PROCESSOR_SIZE    152
#define HWRPB_PROCESSOR_OFFSET  160
#define HWRPB_CYCLE_FREQ        112
#define HWRPB_CPU_RESTART       256
#define HWRPB_CPU_RESTART_DATA  264
#define HWRPB_RXRDY             296

/* In each per-CPU slot. */
#define SLOT_HWPCB              0       /* 128-byte PCB the CPU starts with */
#define SLOT_FLAGS              128
#define SLOT_IPC_BUFFER         296

static inline volatile uint64_t *hwrpb_q(unsigned offset)
{
    return (volatile uint64_t *)(KSEG_BASE + HWRPB_PHYS + offset);
}

static inline uint64_t hwrpb_slot(unsigned cpu)
{
    return KSEG_BASE + HWRPB_PHYS + *hwrpb_q(HWRPB_PROCESSOR_OFFSET) +
           cpu * *hwrpb_q(HWRPB_PROCESSOR_SIZE);
}

#endif
