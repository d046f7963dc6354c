/*
 * Running QEMU for one board run: start it, connect the serial link, pump
 * guest output to our stdout and our stdin to the guest, watch the console
 * for the monitor's result, enforce the timeout, and reap QEMU.
 *
 * Invariants: qemu_launch returns only after QEMU was reaped (killed if it
 * must be); the result says why it ended (monitor exit line, FATAL,
 * timeout, signal, QEMU's own exit), and launch_outcome turns it into one
 * exit status and at most one message line.
 */
#ifndef ALPHAPROF_UTIL_QEMU_LAUNCH_H
#define ALPHAPROF_UTIL_QEMU_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util/console.h"
#include "util/error.h"
#include "util/qemu-cmdline.h"

/* What the caller does with the profile link (COM2), each with ctx. */
struct profile_hooks {
    /* Every byte read from the link goes here, to the end of the stream. */
    void (*sink)(void *ctx, const unsigned char *buf, size_t n);
    void *ctx;
    /* Stop means save: on the timeout or a stop signal, with the link
     * open, stop(ctx, fd) asks the target to stop and flush (it writes on
     * the link), and QEMU is ended only once saved says everything is in,
     * or after LAUNCH_SAVE_MS, or on a second signal.  NULL: QEMU is
     * ended at once. */
    void (*stop)(void *ctx, int fd);
    bool (*saved)(void *ctx);
    /* Two-way link (or NULL): attach(ctx, fd) once the socket is connected
     * (the sink may write acknowledgements on it), tick(ctx) at least
     * every LAUNCH_TICK_MS while it is open. */
    void (*attach)(void *ctx, int fd);
    void (*tick)(void *ctx);
    /* With a relay (launch_opts.relay_path): what the board sends goes to
     * sink and to the relay's client (dropped while none is attached),
     * what the client sends to the board and to from_host; host hears a
     * client come and go. */
    void (*from_host)(void *ctx, const unsigned char *buf, size_t n);
    void (*host)(void *ctx, bool attached);
};

struct launch_opts {
    char *const *argv;          /* argv[0]: the QEMU binary (searched in PATH) */
    enum link_kind link;
    const char *socket_path;    /* LINK_UNIX */
    unsigned timeout_s;
    int stop_fd;                /* readable when we must stop (signal), or -1 */
    int in_fd, out_fd, err_fd;  /* our stdin, stdout, stderr */
    bool show_boot;             /* also show the PALcode's boot lines */
    /* The model writes its exact truth (the oracle and its side files)
     * when QEMU exits: after the monitor has reported, QEMU may take up to
     * LAUNCH_TRUTH_LINGER_MS, not LAUNCH_LINGER_MS, to exit by itself. */
    bool truth_at_exit;
    /* The profile link (COM2), a second socket QEMU serves, or NULL. */
    const char *profile_socket_path;
    /* Serve the profile link on this unix socket (one client at a time)
     * and relay it both ways with the board's (profile.from_host,
     * profile.host), or NULL: no relay. */
    const char *relay_path;
    struct profile_hooks profile;
};

#define LAUNCH_TICK_MS 50

/* After the monitor has reported, QEMU must exit by itself this quickly
 * (wall time); with the model's truth to write, the longer one. */
#define LAUNCH_LINGER_MS 10000
#define LAUNCH_TRUTH_LINGER_MS 120000

/* The most a stop waits for the profile to be saved (wall time). */
#define LAUNCH_SAVE_MS 10000

struct launch_result {
    bool exec_failed;           /* QEMU could not be started */
    int exec_errno;
    bool timed_out;
    bool lingered;              /* QEMU kept running after the result: killed */
    int stopped_by;             /* signal that stopped us, or 0 */
    int wait_status;            /* from waitpid, if reaped */
    bool reaped;
    struct console_state console;
    bool profile_connected;
    unsigned long long profile_bytes;
    bool profile_saved;         /* a stop waited for the profile, and it came */
};

/* Runs QEMU to the end.  Returns -1 only if the run could not be set up
 * (err says why); otherwise r describes what happened. */
int qemu_launch(const struct launch_opts *o, struct launch_result *r,
                struct ap_err *err);

/* Whether the program name resolves to an executable (PATH search). */
bool program_exists(const char *prog);

/* The launcher's exit status for a finished run, with a message for the user
 * in msg (empty when the workload's own status is all there is to say). */
int launch_outcome(const struct launch_result *r, const char *qemu,
                   unsigned timeout_s, char *msg, size_t msglen);

#endif
