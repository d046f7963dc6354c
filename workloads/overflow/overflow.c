/*
 * overflow: recursion without end, for the tests: each call keeps a 1 KiB
 * frame alive, so the user stack outgrows its slot within a few thousand
 * calls; the monitor must stop it with "FATAL stack overflow".
 *   overflow          recurse on the boot core
 *   overflow all      recurse on every core at once
 */
#include <stdio.h>
#include <string.h>
#include "workloads/runtime/alphaprof-runtime.h"

static int all_cores;

__attribute__((noinline)) static long recurse(long depth)
{
    volatile char frame[1024];
    if (depth < 0)      /* never: it only keeps the compiler from calling the recursion infinite */
        return 0;
    frame[depth % sizeof frame] = (char)depth;
    return recurse(depth + 1) + frame[(depth * 7) % sizeof frame];
}

int core_main(int core, int ncores)
{
    (void)core;
    (void)ncores;
    while (!all_cores)
        __asm__ volatile("" ::: "memory");
    return (int)recurse(0);
}

int main(int argc, char **argv)
{
    all_cores = argc > 1 && !strcmp(argv[1], "all");
    printf("overflow: recursing without end%s\n", all_cores ? " on every core" : "");
    return (int)recurse(0);
}
