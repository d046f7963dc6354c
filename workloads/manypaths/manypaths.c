/*
 * One procedure with more Ball-Larus paths than an array of counters can
 * hold: decide() tests 26 bits of its argument one after another, each in
 * an if-statement whose body stores (so the compiler keeps a branch, not a
 * conditional move), which makes 2^26 paths (util/ball-larus.h note 6:
 * past BL_MAX_PATHS).  `alphaprof instrument --paths` counts its paths in
 * the per-core hash table (firmware/abi/path-region.h note 14).  The
 * arguments come from an LCG restarted every ROUND calls, so each of the
 * ROUND distinct paths runs CALLS / ROUND times.  With several cores every
 * core makes the same calls (each core's own bit counts, so no two cores
 * write one word), so each core's hash table holds the same ROUND paths
 * and the host must add the cores' counts.
 */
#include <stdio.h>
#include "workloads/runtime/alphaprof-runtime.h"
#include "linker/ram-map.h"

#define CALLS 3000
#define ROUND 300

static unsigned long seen[MAX_CORES][26];
static unsigned long sums[MAX_CORES];

#define TEST(k)                         \
    if (x >> (k) & 1) {                 \
        seen[core][k]++;                \
        acc = acc * 3 + (k);            \
    }

static __attribute__((noinline)) unsigned long decide(unsigned long x, int core)
{
    unsigned long acc = x & 7;
    TEST(0) TEST(1) TEST(2) TEST(3) TEST(4) TEST(5) TEST(6) TEST(7) TEST(8) TEST(9)
    TEST(10) TEST(11) TEST(12) TEST(13) TEST(14) TEST(15) TEST(16) TEST(17) TEST(18) TEST(19)
    TEST(20) TEST(21) TEST(22) TEST(23) TEST(24) TEST(25)
    return acc;
}

/* CALLS calls of decide on this core; their results' sum. */
static unsigned long make_calls(int core)
{
    unsigned long state = 1, sum = 0;
    for (long i = 0; i < CALLS; i++) {
        if (i % ROUND == 0)
            state = 12345;
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        sum += decide(state >> 20, core);
    }
    return sum;
}

int core_main(int core, int ncores)
{
    (void)ncores;
    sums[core] = make_calls(core);
    return 1;
}

int main(void)
{
    int ncores = alphaprof_core_count();
    sums[0] = make_calls(0);
    if (alphaprof_join_cores() != ncores - 1) {
        printf("manypaths: FAILED, not every core joined\n");
        return 1;
    }
    unsigned long ones = 0;
    for (int k = 0; k < 26; k++)
        ones += seen[0][k];
    printf("manypaths: %d calls, %lu bits set, checksum %lu\n", CALLS, ones, sums[0]);
    for (int c = 1; c < ncores; c++)
        if (sums[c] != sums[0]) {
            printf("manypaths: FAILED, core %d's checksum %lu differs\n", c, sums[c]);
            return 1;
        }
    return 0;
}
