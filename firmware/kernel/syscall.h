/* entSys: the workload's system calls (firmware/abi/syscalls.h), called
 * from arch/trap-entry.S. */
#ifndef FIRMWARE_KERNEL_SYSCALL_H
#define FIRMWARE_KERNEL_SYSCALL_H

#include <stdint.h>
#include "firmware/arch/trap-frame.h"

void trap_syscall(uint64_t a0, uint64_t a1, uint64_t a2, struct trap_frame *f);

#endif
