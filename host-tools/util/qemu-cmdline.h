/*
 * The QEMU command line of a run, composed from the board definition and
 * the run's options.  Pure: no file is touched, so it is unit-tested as is.
 *
 * Invariants:
 *  1. Pure: the same run_config gives the same words; nothing reads a
 *     file or the environment.
 *  2. run_config is only read, its pointers borrowed for the call.
 *  3. What is returned is the caller's to free: the boot text (free) and
 *     the words qemu_compose pushes on argv; a failing call pushes none.
 *  4. The boot line holds only keys the monitor's table accepts (unless
 *     unchecked_keys) and fits CMDLINE_MAX; otherwise it is an error.
 */
#ifndef ALPHAPROF_UTIL_QEMU_CMDLINE_H
#define ALPHAPROF_UTIL_QEMU_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/board.h"
#include "util/error.h"
#include "util/strvec.h"

enum link_kind { LINK_UNIX, LINK_STDIO };

struct run_config {
    const struct board *board;
    const char *home;               /* repository root: board paths are relative to it */
    unsigned cores;
    bool deterministic;
    enum link_kind link;
    const char *shm_path;           /* the RAM backend file */
    const char *socket_path;        /* LINK_UNIX only */
    const char *profile_socket_path; /* the profile link on COM2, or NULL */
    bool profile_socket_nowait;     /* QEMU does not wait for a client there (a
                                       daemon attaches later: alphaprof daemon) */
    const char *oracle_path;        /* where the hw-model writes its truth, or NULL */
    const char *model_mode;         /* hw-model mode= overriding the board's, or NULL */
    const char *model_errors_path;  /* the hw-model appends its errors there (errors=), or NULL */
    const char *const *images;
    size_t nimages;
    const char *const *keys;        /* KEY=VAL words for the boot command line */
    bool unchecked_keys;            /* run --no-check: send keys the monitor's table
                                       refuses (to see the monitor refuse them) */
    size_t nkeys;
    const char *const *args;        /* the image's arguments (after --) */
    size_t nargs;
};

/* Checks one boot-line word with the monitor's own table of keys
 * (firmware/abi/boot-line.h): what the monitor would refuse fails here,
 * err saying what is wrong (without the word). */
int cmdline_check_key(const char *word, struct ap_err *err);

/* The -append text: "KEY=VAL ... -- ARGS"; fails if it does not fit the
 * monitor's CMDLINE_MAX buffer.  Returns a malloc'ed string. */
int cmdline_boot_text(const struct run_config *c, char **out, struct ap_err *err);

/* The whole argv, argv[0] = the board's qemu binary. */
int qemu_compose(const struct run_config *c, struct strvec *argv, struct ap_err *err);

/* Appends s to a QEMU option value, doubling ',' as QEMU's parser needs. */
void qemu_escape_into(char *out, size_t outlen, const char *s);

#endif
