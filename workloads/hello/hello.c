/*
 * The smallest workload, used by the launcher and monitor tests:
 *   hello                 greet and exit 0
 *   hello exit N          exit with status N
 *   hello echo            read one line from the console and print it back
 *   hello spin MS         busy-wait MS ms of virtual time, then exit 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "workloads/runtime/alphaprof-runtime.h"

int main(int argc, char **argv)
{
    printf("hello: ok, image %s on %d cores\n", argc > 0 ? argv[0] : "?", alphaprof_core_count());
    if (argc >= 3 && !strcmp(argv[1], "exit"))
        return atoi(argv[2]);
    if (argc >= 2 && !strcmp(argv[1], "echo")) {
        char line[256];
        if (!fgets(line, sizeof line, stdin)) {
            printf("hello: no input\n");
            return 1;
        }
        line[strcspn(line, "\r\n")] = '\0';
        printf("hello: echo %s\n", line);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "spin")) {
        uint64_t start = alphaprof_clock_ns();
        uint64_t until = start + (uint64_t)atol(argv[2]) * 1000000u;
        while (alphaprof_clock_ns() < until)
            ;
        printf("hello: spun %lu ns\n", (unsigned long)(alphaprof_clock_ns() - start));
        return 0;
    }
    return 0;
}
