/*
 * alphaprof run: boots the board with the monitor and the given workload
 * images, forwards the serial console, and exits with the workload's status.
 *
 * Invariants:
 *  1. No board starts on a bad command line: options, --profile-socket's
 *     path and (unless --no-check) the --append keys are checked first,
 *     exit 2.
 *  2. The boot keys are --append's first, then --profile-socket's
 *     (profile=timer unless --append names a profile, then start=host),
 *     then baud: the monitor takes the last of a key.
 *  3. The exit status is board_run's: the workload's 0..255, or 1, 124,
 *     125, 127 and 2 as the epilog lists.
 *  4. With --profile-socket, run serves the socket itself and relays it
 *     (util/profile-relay.h): --timeout, SIGINT and SIGTERM stop the
 *     board's sampling and end QEMU only once the attached daemon stored
 *     everything up to the stop (at most LAUNCH_SAVE_MS).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/un.h>
#include <unistd.h>

#include "builtin.h"
#include "util/board-run.h"
#include "util/option-groups.h"
#include "util/profile-relay.h"
#include "util/strvec.h"
#include "util/stop-note.h"

static const char *const link_names[] = {"unix", "stdio", NULL};   /* enum link_kind */

/* --profile-socket PATH: QEMU must be able to create a socket there, so
 * a path it would fail on is refused before it starts. */
static int socket_path(void *value, const char *arg, char *why, size_t n)
{
    struct sockaddr_un sun;
    if (!*arg || strlen(arg) >= sizeof sun.sun_path) {
        snprintf(why, n, "give a socket path of 1..%zu characters", sizeof sun.sun_path - 1);
        return -1;
    }
    char dir[PATH_MAX];
    const char *slash = strrchr(arg, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - arg) + (slash == arg) : 1, slash ? arg : ".");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) != 0) {
        snprintf(why, n, "%s is not a directory this user may create the socket in", dir);
        return -1;
    }
    if (lstat(arg, &st) == 0 && !S_ISSOCK(st.st_mode)) {
        snprintf(why, n, "%s exists and is not a socket", arg);
        return -1;
    }
    *(const char **)value = arg;
    return 0;
}

static const struct opt_command run_command = {
    .name = "run",
    .synopsis = "[options] IMAGE.elf [IMAGE2.elf ...] [-- ARGS]",
    .about = "Boots the board with the monitor and the workload images, shows the\n"
             "serial console, sends standard input to the guest and exits with the\n"
             "workload's status.  ARGS: the image's argument string (after --).",
    .epilog = "With --profile-socket, --timeout, ^C and SIGTERM stop the board's sampling\n"
              "first, and QEMU ends once the attached daemon has stored what the board\n"
              "held (at most 10 s more; a second signal ends it at once).\n"
              "Exit status: the workload's (0..255), 1 after a monitor FATAL, 124 on\n"
              "timeout, 130 after ^C, 143 after SIGTERM, 125 if QEMU ended without a\n"
              "result, 127 if QEMU is missing, 2 for bad options or images.",
};

struct run_options {
    struct board_opts bo;
    int link;
    const char *profile_socket;
    bool check;
    struct strvec images, args;
};

/* The boot keys a served profile link needs: the profiler on, waiting for
 * the daemon's START. */
static void profile_socket_keys(struct strvec *keys, const struct strvec *appended)
{
    bool has_profile = false;
    for (size_t k = 0; k < appended->n; k++)
        if (strncmp(appended->v[k], "profile=", 8) == 0)
            has_profile = true;
    if (!has_profile)
        strvec_push(keys, "profile=timer");
    strvec_push(keys, "start=host");
}

/* Stop means save over the relayed profile link (invariant 4). */
struct run_relay {
    struct profile_relay watch;
    bool waiting;
};

static void relay_board(void *ctx, const unsigned char *buf, size_t n)
{
    profile_relay_from_board(&((struct run_relay *)ctx)->watch, buf, n);
}

static void relay_host_bytes(void *ctx, const unsigned char *buf, size_t n)
{
    profile_relay_from_host(&((struct run_relay *)ctx)->watch, buf, n);
}

static void relay_host(void *ctx, bool attached)
{
    profile_relay_host(&((struct run_relay *)ctx)->watch, attached);
}

static void relay_stop(void *ctx, int fd)
{
    struct run_relay *rr = ctx;
    rr->waiting = profile_relay_stop(&rr->watch, fd);
    if (rr->waiting)
        fprintf(stderr, "alphaprof run: stopping: the board stops sampling and the daemon stores what it "
                "holds (at most %d s; a second signal ends it at once)\n", LAUNCH_SAVE_MS / 1000);
    else
        fprintf(stderr, "alphaprof run: stopping: %s\n", rr->watch.host_attached
                ? "the board has no profile session (no daemon started it): nothing to save"
                : "no daemon is attached to the profile socket: what the board holds is not saved");
}

static bool relay_saved(void *ctx)
{
    struct run_relay *rr = ctx;
    return !rr->waiting || profile_relay_saved(&rr->watch);
}

static void relay_tick(void *ctx)
{
    profile_relay_tick(&((struct run_relay *)ctx)->watch);
}

int cmd_run(int argc, char **argv)
{
    struct run_options o = {.bo = BOARD_OPTS_INIT, .link = LINK_UNIX, .check = true};
    const struct option options[] = {
        OPT_CHOICE(0, "link", &o.link, link_names, "unix|stdio",
                   "serial link: QEMU socket (default) or QEMU's stdio"),
        OPT_CALLBACK(0, "profile-socket", &o.profile_socket, "PATH",
                     "serve the profile link (COM2) on the unix socket PATH for\n"
                     "'alphaprof daemon --link unix:PATH' to attach to; the\n"
                     "profiler (profile=timer unless --append profile=... says\n"
                     "otherwise) waits for the daemon's START", socket_path),
        OPT_CLEAR(0, "no-check", &o.check, "skip the host's checks of the images and of the --append\n"
                  "keys (the monitor still checks them)"),
        OPT_BOARD_RUN(&o.bo),
        OPT_END(),
    };
    struct strvec keys = {0};
    enum opt_result r = opt_parse(&run_command, options, argc, argv, &o.images, &o.args);
    int status = r != OPT_PARSED ? opt_exit(r)
                 : o.images.n == 0 ? opt_usage_error(&run_command, "no workload image given (e.g. build/workloads/hello.elf)")
                 : o.check         ? board_opts_check(&run_command, &o.bo)
                                   : 0;
    status = r == OPT_PARSED && status == 0 ? -1 : status;
    if (status < 0) {
        for (size_t k = 0; k < o.bo.append.n; k++)
            strvec_push(&keys, o.bo.append.v[k]);
        if (o.profile_socket)
            profile_socket_keys(&keys, &o.bo.append);
        if (o.bo.baud)
            strvec_pushf(&keys, "baud=%u", o.bo.baud);
        struct board_run br = {
            .cmd = "alphaprof run",
            .board_name = board_opts_board(&o.bo, false),
            .oracle_path = o.bo.oracle,
            .model_mode = o.bo.model,
            .cores = o.bo.cores,
            .timeout_s = o.bo.timeout_s,
            .deterministic = o.bo.deterministic,
            .verbose = o.bo.verbose,
            .check = o.check,
            .link = (enum link_kind)o.link,
            .images = &o.images,
            .keys = &keys,
            .args = &o.args,
            .profile_socket = o.profile_socket,
        };
        struct run_relay rr = {.waiting = false};
        if (o.profile_socket) {
            uint16_t seq = 0;
            if (getrandom(&seq, sizeof seq, 0) != sizeof seq)
                seq = (uint16_t)getpid();
            profile_relay_init(&rr.watch, seq);
            br.profile.sink = relay_board;
            br.profile.ctx = &rr;
            br.profile.from_host = relay_host_bytes;
            br.profile.host = relay_host;
            br.profile.stop = relay_stop;
            br.profile.saved = relay_saved;
            br.profile.tick = relay_tick;
        }
        status = board_run(&br);
        if (o.profile_socket && rr.waiting) {
            fprintf(stderr, "alphaprof run: stopped early: %s\n", profile_relay_saved(&rr.watch)
                    ? "the board stopped sampling and flushed; the daemon stored every sample it took"
                    : "the daemon did not store the board's last flush in time; the profile is incomplete");
            if (stop_note_instrumented("alphaprof run", &o.images, stderr) && status == 0)
                status = 1;
        }
    }
    strvec_free(&o.images);
    strvec_free(&keys);
    strvec_free(&o.bo.append);
    strvec_free(&o.args);
    return status;
}
