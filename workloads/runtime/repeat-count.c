/* alphaprof_repeat_count: the repeat argument of benchmark workloads. */
#include <stdio.h>
#include <stdlib.h>
#include "workloads/runtime/alphaprof-runtime.h"

#define MAX_REPEAT 100000

long alphaprof_repeat_count(int argc, char **argv)
{
    if (argc < 2)
        return 1;
    char *end;
    long n = strtol(argv[1], &end, 10);
    if (*end || n < 1 || n > MAX_REPEAT) {
        printf("%s: '%s' is not a repeat count: give 1..%d\n", argv[0], argv[1], MAX_REPEAT);
        return 0;
    }
    return n;
}
