/*
 * A large, flat code footprint: 32768 blocks of an add and a branch to
 * the next instruction, run over and over.  Each branch ends QEMU's
 * translation block, and interrupts (so timer samples) land on block
 * boundaries: samples spread over far more distinct PCs than the
 * on-target hash table holds (16384 entries).  The table evicts on nearly every
 * sample: the load that shows what a slow profile link does (link_full
 * drops) and what the table's replacement policy costs.
 *   sprawl MS      run for MS ms of virtual time (default 1000)
 */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define FLAT 32768

static long run_flat(long x)
{
    __asm__ volatile(".rept 32768\n\taddq %0, 1, %0\n\tbr $31, .+4\n\t.endr" : "+r"(x));
    return x;
}

int main(int argc, char **argv)
{
    long ms = argc >= 2 ? atol(argv[1]) : 1000;
    if (ms <= 0) {
        printf("sprawl: give a run time in ms\n");
        return 2;
    }
    uint64_t until = alphaprof_clock_ns() + (uint64_t)ms * 1000000u;
    long x = 0, rounds = 0;
    while (alphaprof_clock_ns() < until) {
        x = run_flat(x);
        rounds++;
    }
    printf("sprawl: ok, %ld rounds of %d blocks\n", rounds, FLAT);
    return x == rounds * FLAT ? 0 : 1;
}
