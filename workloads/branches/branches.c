/*
 * Data-dependent, unpredictable branches: each element of a random array
 * takes one of two paths with probability one half, so the mispredict
 * samples belong on the branch in classify().
 */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define ELEMENTS (1L << 20)
#define PASSES   4

static unsigned long lcg_state = 42;

static unsigned long lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005UL + 1442695040888963407UL;
    return lcg_state >> 33;
}

static __attribute__((noinline)) long classify(const unsigned char *v, long n,
                                               long *small_sum, long *large_sum)
{
    long small = 0;
    for (long i = 0; i < n; i++) {
        if (v[i] < 128) {           /* taken half the time, at random */
            small++;
            *small_sum += v[i];
        } else {
            *large_sum += v[i] >> 1;
        }
    }
    return small;
}

/* The workload once; non-zero if its self-check failed. */
static int run_once(void)
{
    unsigned char *v = malloc(ELEMENTS);
    if (!v) {
        printf("branches: out of memory\n");
        return 1;
    }
    long expected_small = 0;
    for (long i = 0; i < ELEMENTS; i++) {
        v[i] = (unsigned char)lcg_next();
        expected_small += v[i] < 128;
    }
    long small = 0, small_sum = 0, large_sum = 0;
    for (int pass = 0; pass < PASSES; pass++)
        small += classify(v, ELEMENTS, &small_sum, &large_sum);
    if (small != PASSES * expected_small) {
        printf("branches: FAILED, %ld small values, expected %ld\n",
               small, PASSES * expected_small);
        return 1;
    }
    free(v);
    printf("branches: ok, %ld of %ld below 128 (sums %ld %ld)\n",
           expected_small, ELEMENTS, small_sum, large_sum);
    return 0;
}

int main(int argc, char **argv)
{
    return alphaprof_repeat(argc, argv, run_once);
}
