/* Per-CPU alarm timer (the PALcode's CSERVE alarm on QEMU's virtual clock). */
#ifndef FIRMWARE_DRIVERS_ALARM_H
#define FIRMWARE_DRIVERS_ALARM_H

#include <stdint.h>

uint64_t clock_ns(void);                /* virtual time since boot */
void alarm_start(unsigned hz);          /* on the calling core; 0 = off */
void alarm_stop(void);
/* Clock interrupt on this core: count the tick, arm the next deadline. */
void alarm_interrupt(void);

#endif
