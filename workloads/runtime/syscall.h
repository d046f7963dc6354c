/* callsys from a workload image: v0 = number, a0..a2 = arguments, result
 * in v0 (negative = -errno).  The monitor preserves every other register. */
#ifndef WORKLOADS_RUNTIME_SYSCALL_H
#define WORKLOADS_RUNTIME_SYSCALL_H

#include "firmware/abi/syscalls.h"

static inline long alphaprof_syscall(long nr, long a0, long a1, long a2)
{
    register long v0 __asm__("$0") = nr;
    register long r16 __asm__("$16") = a0;
    register long r17 __asm__("$17") = a1;
    register long r18 __asm__("$18") = a2;
    __asm__ volatile("call_pal 0x83" : "+r"(v0) : "r"(r16), "r"(r17), "r"(r18) : "memory");
    return v0;
}

#endif
