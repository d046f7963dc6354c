/*
 * Board definitions: boards/<name>/board.conf, "key = value" lines with
 * '#' comment lines, read by the launcher to compose the QEMU command line.
 * Every key is known here; unknown, repeated or missing keys and bad numbers
 * are errors naming file:line.
 *
 * Invariants: a struct board is only ever filled completely (every key
 * present once, numbers in range) or not at all.
 */
#ifndef ALPHAPROF_UTIL_BOARD_H
#define ALPHAPROF_UTIL_BOARD_H

#include <limits.h>
#include <stddef.h>

#include "util/error.h"

#define BOARD_STR_MAX 1024

struct board {
    char name[64];
    char conf_path[PATH_MAX];
    char description[BOARD_STR_MAX];
    char qemu[BOARD_STR_MAX];               /* binary name or path */
    char machine[BOARD_STR_MAX];
    char cpu[BOARD_STR_MAX];
    unsigned ram_mb;                        /* must equal RAM_SIZE */
    unsigned max_cores;
    char firmware[BOARD_STR_MAX];           /* relative to the repository root */
    char qemu_args[BOARD_STR_MAX];          /* whitespace-separated words */
    char deterministic_args[BOARD_STR_MAX];
    char fast_args[BOARD_STR_MAX];
    char plugin[BOARD_STR_MAX];             /* empty: no plugin */
    char plugin_args[BOARD_STR_MAX];        /* extra key=val,... for the plugin */
    unsigned timeout_s;
};

/* Parses one board.conf file. */
int board_parse(const char *path, struct board *b, struct ap_err *err);

/* Loads boards/<name>/board.conf under the repository root home. */
int board_load(const char *home, const char *name, struct board *b,
               struct ap_err *err);

/* The repository root: $ALPHAPROF_HOME, else two levels above the directory
 * of the running binary (build/host/alphaprof -> .).  It must hold boards/. */
int alphaprof_home(char *out, size_t outlen, struct ap_err *err);

/* home/rel unless rel is absolute. */
void board_resolve(const char *home, const char *rel, char *out, size_t outlen);

#endif
