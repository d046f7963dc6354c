/*
 * A workload that traps on purpose, so tests can check the monitor's
 * report (FATAL line with the trap, core, image and PC) and failure exit:
 *   trap [null]       load from an unmapped address (entMM)
 *   trap divzero      integer division by zero (gentrap through __divq, entIF)
 *   trap illegal      an undefined opcode (entIF)
 *
 * No unaligned case: QEMU 7.2's Alpha performs misaligned loads without
 * raising entUna, so there is nothing to test there.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static volatile long sink;
/* Below USER_BASE nothing is mapped; volatile so the compiler keeps the load. */
static volatile uintptr_t unmapped_address = 16;

int main(int argc, char **argv)
{
    const char *kind = argc >= 2 ? argv[1] : "null";
    printf("trap: about to trap (%s)\n", kind);
    fflush(stdout);
    if (!strcmp(kind, "divzero")) {
        volatile long zero = 0;
        sink = 42 / zero;
    } else if (!strcmp(kind, "illegal")) {
        __asm__ volatile(".long 0x04000000");   /* opcode 0x01: reserved */
    } else {
        sink = *(volatile long *)unmapped_address;
    }
    printf("trap: FAILED, no trap happened\n");
    return 0;
}
