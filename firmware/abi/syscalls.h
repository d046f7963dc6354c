/*
 * The monitor's system-call interface for workload images: one definition
 * for the monitor's entSys dispatcher and the images' syscall library.
 *
 * Images run in user mode and enter the monitor with `callsys`
 * (call_pal 0x83): v0 = number, a0..a5 = arguments; the result comes back
 * in v0, negative values are -errno.  Every other register is preserved.
 */
#ifndef ALPHAPROF_SYSCALLS_H
#define ALPHAPROF_SYSCALLS_H

#define SYS_EXIT            1   /* (status): ends the run; never returns */
#define SYS_READ            3   /* (fd, buf, len): console input, blocks for >= 1 byte */
#define SYS_WRITE           4   /* (fd, buf, len): console output, fd 1 or 2 */
#define SYS_SBRK            17  /* (increment): old break, or -ENOMEM */
#define SYS_CORE_ID         100 /* (): this core's number, 0 = boot core */
#define SYS_CORE_COUNT      101 /* (): cores running the image */
#define SYS_CLOCK_NS        102 /* (): virtual time in ns since boot */
#define SYS_JOIN_CORES      103 /* (): wait for every core_entry to return; sum of their results */
#define SYS_GET_ARGS        104 /* (buf, len): copy the image's argument string; its length */

#endif
