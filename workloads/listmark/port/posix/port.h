/* listmark's port to a POSIX host (not built on the board). */
#ifndef LISTMARK_PORT_H
#define LISTMARK_PORT_H

#include <stdio.h>
#include <time.h>

typedef unsigned long long port_ticks_t;
#define port_printf printf

void port_init(void);
port_ticks_t port_ticks(void);
const char *port_tick_unit(void);

#endif
