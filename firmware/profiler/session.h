/*
 * The frames that open and close a profile session on the link: HELLO
 * (board, cores, capabilities), NAMES (what the current source's numbers
 * mean), LOADMAP (the monitor and every loaded image, with build-ids), and
 * END.  A session opens at boot (sampling from boot) or at each host
 * START; the host files everything that follows under it.
 */
#ifndef FIRMWARE_PROFILER_SESSION_H
#define FIRMWARE_PROFILER_SESSION_H

#include <stdint.h>
#include "firmware/profiler/profiler-config.h"

void session_init(const struct profiler_config *c, unsigned ncores);
/* HELLO, NAMES, LOADMAP in the current sequence. */
void session_open(void);
/* After the old session's bytes are out: the sequence restarts at 0,
 * then session_open. */
void session_restart(void);
/* END: how the run ended (LK_END_*) and its status. */
void session_end(long status, unsigned how);

#endif
