/*
 * alphaprof: the command-line front end, perf style.  `alphaprof CMD ...`
 * runs the builtin CMD (builtin.h lists them).
 *
 * Invariants:
 *  1. The table is BUILTINS from builtin.h, so the command list, `help`
 *     and the dispatch cannot disagree.
 *  2. A builtin gets argv from its own name on (argv[0] = CMD), and its
 *     return value is the exit status, unchanged.
 *  3. `alphaprof help CMD` is exactly `alphaprof CMD --help`.
 *  4. No command, an unknown one or an option before it: exit 2, with the
 *     list or one line on stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"

struct builtin {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

#define BUILTIN_ENTRY(name, summary) {#name, cmd_##name, summary},
static const struct builtin builtins[] = {BUILTINS(BUILTIN_ENTRY)};
#undef BUILTIN_ENTRY
#define NBUILTINS (sizeof builtins / sizeof builtins[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: alphaprof <command> [options] [args]\n\ncommands:\n");
    for (size_t i = 0; i < NBUILTINS; i++)
        fprintf(f, "  %-10s %s\n", builtins[i].name, builtins[i].summary);
    fprintf(f, "  %-10s %s\n", "help", "this list, or `alphaprof help CMD` for one command");
    fprintf(f, "\n`alphaprof CMD --help` describes CMD.\n");
}

static const struct builtin *find(const char *name)
{
    for (size_t i = 0; i < NBUILTINS; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}

/* What a command that succeeded printed must have reached standard output
 * (a full disk, /dev/full): else one line and a failing exit. */
static int stdout_written(const char *cmd, int rc)
{
    errno = 0;
    if (rc != 0 || (fflush(stdout) == 0 && !ferror(stdout)))
        return rc;              /* (a failing command said why itself) */
    fprintf(stderr, "alphaprof %s: writing standard output failed%s%s\n", cmd, errno ? ": " : "",
            errno ? strerror(errno) : "");
    return 1;
}

static int unknown(const char *name)
{
    fprintf(stderr, "alphaprof: '%s' is not an alphaprof command; see 'alphaprof --help'\n", name);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc < 3) {
            usage(stdout);
            return 0;
        }
        const struct builtin *b = find(argv[2]);
        if (!b)
            return unknown(argv[2]);
        char *help_argv[] = {argv[2], "--help", NULL};
        return b->fn(2, help_argv);
    }
    if (cmd[0] == '-') {
        fprintf(stderr, "alphaprof: unknown option '%s' before the command; see 'alphaprof --help'\n", cmd);
        return 2;
    }
    const struct builtin *b = find(cmd);
    if (!b)
        return unknown(cmd);
    int rc = b->fn(argc - 1, argv + 1);
    return stdout_written(cmd, rc);
}
