/*
 * Four procedures of fixed, known work (integer mixing loops), for the
 * profile regression gate: a build with -DSLOW_PERMILLE=N makes `mix_b`
 * do N per mille more iterations than the others, a real slowdown of one
 * procedure that `alphaprof gate` must catch, while a rebuild without it
 * changes nothing.  SCALE sets the run's length (iterations of mix_a per
 * pass, in thousands); the printed result depends on every iteration, so
 * no loop can be optimised away.
 */
#include <stdint.h>
#include <stdio.h>

#ifndef SLOW_PERMILLE
#define SLOW_PERMILLE 0
#endif
#ifndef SCALE
#define SCALE 4000
#endif

#define ITER_A ((uint64_t)SCALE * 1000)
#define ITER_B (ITER_A * 2 * (1000 + SLOW_PERMILLE) / 1000)
#define ITER_C (ITER_A / 2)
#define ITER_D (ITER_A / 4)

static uint64_t step(uint64_t x, uint64_t k)
{
    return (x ^ (x >> 7)) * 0x9e3779b97f4a7c15ull + k;
}

static __attribute__((noinline)) uint64_t mix_a(uint64_t x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        x = step(x, 1);
    return x;
}

static __attribute__((noinline)) uint64_t mix_b(uint64_t x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        x = step(x, 2);
    return x;
}

static __attribute__((noinline)) uint64_t mix_c(uint64_t x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        x = step(x, 3);
    return x;
}

static __attribute__((noinline)) uint64_t mix_d(uint64_t x, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        x = step(x, 4);
    return x;
}

int main(void)
{
    /* Interleaved in short passes, so each procedure's time is spread over
     * the whole run as in a real program's steady state. */
    enum { PASSES = 40 };
    uint64_t a = 1, b = 2, c = 3, d = 4;
    for (int p = 0; p < PASSES; p++) {
        a = mix_a(a, ITER_A / PASSES);
        b = mix_b(b, ITER_B / PASSES);
        c = mix_c(c, ITER_C / PASSES);
        d = mix_d(d, ITER_D / PASSES);
    }
    printf("hotspots: slow %d permille, scale %d, result %016llx\n", SLOW_PERMILLE, SCALE,
           (unsigned long long)(a ^ b ^ c ^ d));
    return 0;
}
