/* listmark's port to a POSIX host: clock_gettime (not built on the board). */
#include "port.h"

void port_init(void) {}

port_ticks_t port_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (port_ticks_t)ts.tv_sec * 1000000000ull + (port_ticks_t)ts.tv_nsec;
}

const char *port_tick_unit(void)
{
    return "ns";
}
