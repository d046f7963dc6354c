/*
 * Double-precision matrix multiply, naive i-k-j order: FP multiply-add
 * chains plus strided loads.  The result is checked exactly against a
 * closed form (all values are small integers, so no rounding).
 */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define N 160

static double a[N][N], b[N][N], c[N][N];

static __attribute__((noinline)) void multiply(void)
{
    for (int i = 0; i < N; i++)
        for (int k = 0; k < N; k++) {
            double aik = a[i][k];
            for (int j = 0; j < N; j++)
                c[i][j] += aik * b[k][j];
        }
}

/* The workload once; non-zero if its self-check failed. */
static int run_once(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            a[i][j] = (double)(i + j);
            b[i][j] = (i == j) ? 2.0 : (j == 0 ? 1.0 : 0.0);
            c[i][j] = 0.0;
        }
    multiply();

    /* b = 2I plus ones in column 0 below the diagonal, so
     * c[i][j] = 2 a[i][j], and column 0 also gains sum_{k>0} a[i][k]. */
    double trace = 0.0;
    for (int i = 0; i < N; i++) {
        double row_sum_except_0 = 0.0;
        for (int k = 1; k < N; k++)
            row_sum_except_0 += a[i][k];
        for (int j = 0; j < N; j++) {
            double want = 2.0 * a[i][j] + (j == 0 ? row_sum_except_0 : 0.0);
            if (c[i][j] != want) {
                printf("matmul: FAILED at c[%d][%d] = %.1f, expected %.1f\n",
                       i, j, c[i][j], want);
                return 1;
            }
        }
        trace += c[i][i];
    }
    printf("matmul: ok, %dx%d, trace %.1f\n", N, N, trace);
    return 0;
}

int main(int argc, char **argv)
{
    return alphaprof_repeat(argc, argv, run_once);
}
