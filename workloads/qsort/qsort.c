/*
 * newlib's qsort over a large random array: a library-heavy profile
 * (comparison callbacks, indirect calls, unpredictable branches).
 */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define ELEMENTS 200000

static unsigned long lcg_state = 7;

static unsigned long lcg_next(void)
{
    lcg_state = lcg_state * 6364136223846793005UL + 1442695040888963407UL;
    return lcg_state >> 33;
}

static int compare_longs(const void *x, const void *y)
{
    long a = *(const long *)x, b = *(const long *)y;
    return (a > b) - (a < b);
}

/* The workload once; non-zero if its self-check failed. */
static int run_once(void)
{
    long *v = malloc(ELEMENTS * sizeof *v);
    if (!v) {
        printf("qsort: out of memory\n");
        return 1;
    }
    unsigned long sum_before = 0;
    for (long i = 0; i < ELEMENTS; i++) {
        v[i] = (long)(lcg_next() % 1000000);
        sum_before += (unsigned long)v[i];
    }
    qsort(v, ELEMENTS, sizeof *v, compare_longs);

    unsigned long sum_after = 0;
    for (long i = 0; i < ELEMENTS; i++) {
        sum_after += (unsigned long)v[i];
        if (i > 0 && v[i - 1] > v[i]) {
            printf("qsort: FAILED, out of order at %ld\n", i);
            return 1;
        }
    }
    if (sum_after != sum_before) {
        printf("qsort: FAILED, elements changed\n");
        return 1;
    }
    printf("qsort: ok, %d elements, min %ld max %ld median %ld\n",
           ELEMENTS, v[0], v[ELEMENTS - 1], v[ELEMENTS / 2]);
    free(v);
    return 0;
}

int main(int argc, char **argv)
{
    return alphaprof_repeat(argc, argv, run_once);
}
