/*
 * One board run, as `alphaprof run` and `alphaprof record` both need it:
 * check the images, find the board's monitor, plugin and QEMU, compose the
 * command line, launch, forward the console, clean up, and turn what
 * happened into an exit status and a message.
 *
 * Invariants: nothing is launched unless every image passed its checks; the
 * returned status is the workload's exit status, or non-zero with one
 * message line when the run failed; QEMU never outlives board_run.
 */
#ifndef ALPHAPROF_UTIL_BOARD_RUN_H
#define ALPHAPROF_UTIL_BOARD_RUN_H

#include <limits.h>
#include <stdbool.h>

#include "util/board.h"
#include "util/qemu-cmdline.h"
#include "util/qemu-launch.h"
#include "util/strvec.h"

struct board_run {
    const char *cmd;                /* message prefix, e.g. "alphaprof run" */
    const char *board_name;
    unsigned cores;
    unsigned timeout_s;             /* 0: the board's */
    bool deterministic, verbose, check;
    bool say_time_limit;            /* say the run's time limit before it starts */
    enum link_kind link;
    const struct strvec *images, *keys, *args;
    /* The profile link (COM2), qemu-launch.h: bytes go to profile.sink;
     * NULL sink for none.  Or: serve the link on profile_socket for a
     * daemon to attach to (alphaprof daemon --link unix:PATH), relayed:
     * profile.from_host hears what the daemon sends, profile.host hears
     * it come and go. */
    struct profile_hooks profile;
    const char *profile_socket;
    /* The hw-model's oracle file (boards with a plugin), or NULL. */
    const char *oracle_path;
    /* The hw-model's mode (MODEL_MODE_*) instead of the board's, or NULL. */
    const char *model_mode;

    /* Filled in by board_run. */
    char home[PATH_MAX];
    struct board board;
    char firmware[PATH_MAX];        /* the monitor's ELF */
    struct launch_result result;
    bool launched;
};

/* Runs the board; returns the launcher's exit status (see alphaprof run
 * --help).  Problems before the launch are reported on stderr (status 2,
 * or 127 when QEMU is missing). */
int board_run(struct board_run *br);

#endif
