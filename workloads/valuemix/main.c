/*
 * valuemix: loads with known value distributions, for value sampling's
 * tests (alphaprof values, check --values).  A loop of ITERATIONS rounds
 * loads, through volatile pointers so every load happens:
 *   skewed[]    50 % 7, 20 % 1000, 10 % 0xdeadbeef, 20 % distinct values
 *   mode        always 3 (a semi-invariant)
 *   spread[]    64 values equally often (no value covers 10 %)
 *   bytes[]     ldbu: 70 % 0x41, 30 % 0x42
 * picked by the top bits of a 64-bit linear congruential generator, and prints the exact shares of
 * its own data.  valuemix [ITERATIONS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static uint64_t skewed[N];
static uint64_t spread[N];
static uint8_t bytes[N];
static volatile uint64_t mode = 3;

static uint64_t fill(void)
{
    uint64_t x = 12345;
    for (unsigned i = 0; i < N; i++) {
        unsigned r = i % 10;
        skewed[i] = r < 5 ? 7 : r < 7 ? 1000 : r < 8 ? 0xdeadbeef : 0x100000 + i;
        spread[i] = 0x5000 + (i % 64);
        bytes[i] = (i % 10) < 7 ? 0x41 : 0x42;
        x = x * 6364136223846793005ull + 1;
    }
    return x;
}

__attribute__((noinline)) static uint64_t mix_loop(unsigned iterations)
{
    const volatile uint64_t *s = skewed, *p = spread;
    const volatile uint8_t *b = bytes;
    uint64_t sum = 0, idx = 1;
    for (unsigned it = 0; it < iterations; it++) {
        /* the top bits of a 64-bit LCG: the low ones have short periods,
         * which a nearly periodic sampler can alias with */
        idx = idx * 6364136223846793005ull + 1442695040888963407ull;
        unsigned i = (unsigned)(idx >> 52);
        sum += s[i];
        sum ^= mode;
        sum += p[(i * 7) & (N - 1)];
        sum += b[(i * 13) & (N - 1)];
    }
    return sum;
}

int main(int argc, char **argv)
{
    unsigned iterations = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 2000000;
    fill();
    uint64_t sum = mix_loop(iterations);
    printf("valuemix: ok %u iterations, sum %llx; truth: skewed 7 50%%, 1000 20%%, 0xdeadbeef 10%%; "
           "mode 3 100%%; spread 64 values 1.6%% each; bytes 0x41 70%%, 0x42 30%%\n",
           iterations, (unsigned long long)sum);
    return 0;
}
