/*
 * Work on every core at once: each core sums squares over its own slice of
 * a shared range and publishes its partial sum; main (core 0) does its own
 * slice, joins the others and checks the total against the closed form.
 */
#include <stdio.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define RANGE   (1L << 20)   /* keeps sum of squares * REPEATS below 2^63 */
#define REPEATS 8

static volatile long partial[64];

static long sum_of_squares(long from, long to)
{
    long s = 0;
    for (int r = 0; r < REPEATS; r++)
        for (long x = from; x < to; x++)
            s += x * x;
    return s / REPEATS;
}

static void slice(int core, int ncores, long *from, long *to)
{
    long step = RANGE / ncores;
    *from = core * step;
    *to = core == ncores - 1 ? RANGE : *from + step;
}

int core_main(int core, int ncores)
{
    long from, to;
    slice(core, ncores, &from, &to);
    partial[core] = sum_of_squares(from, to);
    return 1;
}

int main(void)
{
    int ncores = alphaprof_core_count();
    long from, to;
    slice(0, ncores, &from, &to);
    partial[0] = sum_of_squares(from, to);
    int joined = alphaprof_join_cores();
    if (joined != ncores - 1) {
        printf("parallel: FAILED, %d of %d secondary cores joined\n", joined, ncores - 1);
        return 1;
    }
    long total = 0;
    for (int c = 0; c < ncores; c++) {
        printf("parallel: core %d partial %ld\n", c, partial[c]);
        total += partial[c];
    }
    long n = RANGE - 1;
    long want = n * (n + 1) * (2 * n + 1) / 6;
    if (total != want) {
        printf("parallel: FAILED, total %ld, expected %ld\n", total, want);
        return 1;
    }
    printf("parallel: ok, %d cores, sum of squares below %ld = %ld\n", ncores, RANGE, total);
    return 0;
}
