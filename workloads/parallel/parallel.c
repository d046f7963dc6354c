/*
 * Work on every core at once: each core sums squares over its own slice of
 * a shared range and publishes its partial sum; main (core 0) does its own
 * slice, joins the others and checks the total against the closed form.
 * `parallel [ROUNDS]`: how often each core sums its slice, 1..8 (8 by
 * default); the total does not depend on it.  Every core reads it from
 * the boot command line itself, so no core waits for another to start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "linker/image-header.h"
#include "linker/ram-map.h"
#include "workloads/runtime/alphaprof-runtime.h"
#include "workloads/runtime/syscall.h"

#define RANGE      (1L << 20)   /* keeps sum of squares * MAX_ROUNDS below 2^63 */
#define MAX_ROUNDS 8

static volatile long partial[64];

/* The first argument after the image's name, or MAX_ROUNDS; 0 when it is
 * not a count in 1..MAX_ROUNDS. */
static int rounds_asked(void)
{
    char text[CMDLINE_MAX + IMAGE_NAME_MAX + 2];
    if (alphaprof_syscall(SYS_GET_ARGS, (long)text, sizeof text, 0) < 0)
        return MAX_ROUNDS;
    text[sizeof text - 1] = '\0';
    char *arg = strchr(text, ' ');
    while (arg && *arg == ' ')
        arg++;
    if (!arg || !*arg)
        return MAX_ROUNDS;
    char *end;
    long n = strtol(arg, &end, 10);
    return (*end == '\0' || *end == ' ') && n >= 1 && n <= MAX_ROUNDS ? (int)n : 0;
}

static long sum_of_squares(long from, long to)
{
    int rounds = rounds_asked();
    long s = 0;
    for (int r = 0; r < rounds; r++)
        for (long x = from; x < to; x++)
            s += x * x;
    return rounds ? s / rounds : 0;
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

int main(int argc, char **argv)
{
    if (argc > 1 && rounds_asked() == 0) {
        printf("parallel: '%s' is not a number of rounds: give 1..%d\n", argv[1], MAX_ROUNDS);
        return 2;
    }
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
