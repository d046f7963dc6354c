/*
 * McCalpin-style copy: b[i] = a[i] over arrays far larger than the caches,
 * unrolled by four, so the stores wait on missed loads.  The annotate
 * output of this loop is where users look for "cycles on the stores".
 */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define ELEMENTS (1L << 20)   /* 8 MiB per array: four times the L2 */
#define PASSES   8

static void copy_unrolled(double *restrict dst, const double *restrict src, long n)
{
    for (long i = 0; i < n; i += 4) {
        dst[i] = src[i];
        dst[i + 1] = src[i + 1];
        dst[i + 2] = src[i + 2];
        dst[i + 3] = src[i + 3];
    }
}

/* The workload once; non-zero if its self-check failed. */
static int run_once(void)
{
    double *a = malloc(ELEMENTS * sizeof *a);
    double *b = malloc(ELEMENTS * sizeof *b);
    if (!a || !b) {
        printf("copy: out of memory\n");
        return 1;
    }
    for (long i = 0; i < ELEMENTS; i++)
        a[i] = (double)i;
    for (int pass = 0; pass < PASSES; pass++)
        copy_unrolled(pass & 1 ? a : b, pass & 1 ? b : a, ELEMENTS);

    /* After an even number of passes both arrays hold 0, 1, 2, ... */
    for (long i = 0; i < ELEMENTS; i++) {
        if (a[i] != (double)i || b[i] != (double)i) {
            printf("copy: FAILED at element %ld\n", i);
            return 1;
        }
    }
    free(a);
    free(b);
    printf("copy: ok, %d passes over %ld doubles\n", PASSES, ELEMENTS);
    return 0;
}

int main(int argc, char **argv)
{
    return alphaprof_repeat(argc, argv, run_once);
}
