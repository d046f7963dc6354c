/* window_fuzz=N: the hardware model against a buggy guest (see
 * window-fuzz.c). */
#ifndef FIRMWARE_PROFILER_WINDOW_FUZZ_H
#define FIRMWARE_PROFILER_WINDOW_FUZZ_H

void window_fuzz_run(unsigned rounds);

#endif
