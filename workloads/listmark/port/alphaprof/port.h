/* listmark's port to alphaprof: printf, and ticks from the hardware
 * model's cycle counter (alphaprof/pmu.h), or virtual nanoseconds on a
 * board without it. */
#ifndef LISTMARK_PORT_H
#define LISTMARK_PORT_H

#include <stdint.h>
#include <stdio.h>

typedef uint64_t port_ticks_t;
#define port_printf printf

void port_init(void);
port_ticks_t port_ticks(void);
const char *port_tick_unit(void);

#endif
