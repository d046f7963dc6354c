/* alphaprof_repeat: main of the benchmark workloads. */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define MAX_REPEAT 100000

int alphaprof_repeat(int argc, char **argv, int (*run_once)(void))
{
    long repeat = 1;
    if (argc >= 2) {
        char *end;
        repeat = strtol(argv[1], &end, 10);
        if (*end || repeat < 1 || repeat > MAX_REPEAT) {
            printf("%s: '%s' is not a repeat count: give 1..%d\n", argv[0], argv[1], MAX_REPEAT);
            return 2;
        }
    }
    for (long r = 0; r < repeat; r++)
        if (run_once())
            return 1;
    return 0;
}
