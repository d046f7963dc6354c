/* Per-CPU alarm timer (the PALcode's CSERVE alarm on QEMU's virtual clock). */
#ifndef FIRMWARE_DRIVERS_ALARM_H
#define FIRMWARE_DRIVERS_ALARM_H

#include <stdint.h>

uint64_t clock_ns(void);                /* virtual time since boot */

/* The same clock in one instruction instead of a PAL call, for the
 * sampling fast path: QEMU's RPCC presents virtual time / 4 in its low 32
 * bits (a 250 MHz counter), so it gives now mod 2^34 ns in 4 ns steps;
 * near is a time known to lie within 2^33 ns (8.6 s) of now (the core's
 * last tick), which supplies the rest. */
static inline uint64_t clock_ns_near(uint64_t near)
{
    uint64_t cc;
    __asm__ volatile("rpcc %0" : "=r"(cc));
    uint64_t d = ((cc & 0xffffffffull) << 2) - near;     /* mod 2^34: */
    d &= (1ull << 34) - 1;
    return d < (1ull << 33) ? near + d : near - ((1ull << 34) - d);
}
void alarm_start(unsigned hz);          /* on the calling core; 0 = off */
void alarm_stop(void);
/* Clock interrupt on this core: count the tick, arm the next deadline. */
void alarm_interrupt(void);

#endif
