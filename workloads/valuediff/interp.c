/* The interpreter the monitor runs, built into this image unchanged. */
#include "firmware/profiler/value-interp.c"
