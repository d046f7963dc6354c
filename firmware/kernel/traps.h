/* Trap and interrupt handlers called from arch/trap-entry.S (system calls:
 * kernel/syscall.h). */
#ifndef FIRMWARE_KERNEL_TRAPS_H
#define FIRMWARE_KERNEL_TRAPS_H

#include <stdint.h>
#include "firmware/arch/trap-frame.h"

/* Registers the entry points with the PALcode on the calling core. */
void traps_install(void);

void trap_interrupt(uint64_t type, uint64_t vector, uint64_t a2, struct trap_frame *f);
void trap_arith(uint64_t summary, uint64_t regmask, uint64_t a2, struct trap_frame *f);
void trap_mm(uint64_t va, uint64_t mmcsr, uint64_t cause, struct trap_frame *f);
void trap_if(uint64_t type, uint64_t a1, uint64_t a2, struct trap_frame *f);
void trap_una(uint64_t va, uint64_t opcode, uint64_t reg, struct trap_frame *f);

#endif
