/*
 * What a run stopped before its workload exited leaves out: an
 * instrumented image's path counters and calling context tree live in
 * per-core RAM regions that the monitor sends once every core has stopped
 * (firmware/profiler/cct-drain.c note 1: a region still changing cannot
 * be sent whole), so a run stopped early (record --timeout, a signal, the
 * daemon's stop) stores its samples but none of them.  record and run say
 * so in one line and fail, rather than "everything it took is stored".
 */
#ifndef ALPHAPROF_UTIL_STOP_NOTE_H
#define ALPHAPROF_UTIL_STOP_NOTE_H

#include <stdbool.h>
#include <stdio.h>

#include "util/strvec.h"

/* When one of images is instrumented, prints "CMD: IMAGE is
 * instrumented: ..." to out and returns true. */
bool stop_note_instrumented(const char *cmd, const struct strvec *images, FILE *out);

#endif
