/*
 * One board run for `run` and `record` (interface: board-run.h).
 *
 * Invariants:
 *   1. Every image is checked (a regular file; with checks on, sealed and
 *      not overlapping another) before QEMU starts: bad input is one line,
 *      never a launched board or a QEMU waiting on a FIFO.
 *   2. SIGINT/SIGTERM only write to a self-pipe; the launch loop stops QEMU
 *      and reaps it, so no QEMU outlives the command.
 *   3. The exit status is the workload's when the monitor reported one,
 *      else non-zero with a message saying what happened.
 *
 * Test seam: with ALPHAPROF_PROFILE_VIA=PATH in the environment, `record`
 * reaches the profile socket QEMU serves (/tmp/alphaprof-PID-profile.sock)
 * through the socket PATH instead: the tests' fault proxy
 * (tests/e2e/linkfault.py) listens there and relays.
 */
#include "util/board-run.h"
#include "util/path-plan.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/image-file.h"
#include "util/oracle-file.h"
#include "util/regular-file.h"

static int stop_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    unsigned char b = (unsigned char)sig;
    int saved = errno;
    if (write(stop_pipe[1], &b, 1) < 0) {
        /* the pipe is full: a stop is already pending */
    }
    errno = saved;
}

/* ^C and friends stop QEMU through the launch loop, which then cleans up. */
static void install_signals(void)
{
    if (stop_pipe[0] < 0 && pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

static void print_shell_word(FILE *f, const char *s)
{
    bool plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || strchr("-_=,./:+@%", *p)))
            plain = false;
    if (plain) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

/* Every image readable and sealed, and no two overlapping in memory. */
/* The hardware model's errors of this run (errors=PATH, see
 * hw-model/plugin/alphaprof-core.c), one stderr line each; returns how many.
 * Any fails the run: what the model could not do, the run did not give. */
static int report_model_errors(const char *cmd, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0]) {
            fprintf(stderr, "%s: hardware model: %s\n", cmd, line);
            n++;
        }
    }
    fclose(f);
    return n;
}

static int check_images(const struct board_run *br, struct ap_err *err)
{
    const struct strvec *images = br->images;
    struct image_header *hdrs = xmalloc((images->n ? images->n : 1) * sizeof *hdrs);
    int rc = 0;
    for (size_t i = 0; i < images->n && !rc; i++) {
        if (br->check)
            rc = image_check_file(images->v[i], &hdrs[i], err);
        else if (access(images->v[i], R_OK) != 0)
            rc = ap_err_set(err, "%s: %s; build it first (make) or check the path",
                            images->v[i], strerror(errno));
        else
            rc = regular_or_absent(images->v[i], "the path of a workload image (.elf)", err);
    }
    for (size_t i = 0; !rc && br->check && i < images->n; i++)
        for (size_t j = i + 1; !rc && j < images->n; j++)
            if (hdrs[i].load_base < hdrs[j].bss_end && hdrs[j].load_base < hdrs[i].bss_end)
                rc = ap_err_set(err, "%s (0x%llx..0x%llx) and %s (0x%llx..0x%llx) overlap in memory; link one at another base",
                                images->v[i], (unsigned long long)hdrs[i].load_base,
                                (unsigned long long)hdrs[i].bss_end, images->v[j],
                                (unsigned long long)hdrs[j].load_base,
                                (unsigned long long)hdrs[j].bss_end);
    free(hdrs);
    return rc;
}

int board_run(struct board_run *br)
{
    struct ap_err err;
    if (alphaprof_home(br->home, sizeof br->home, &err) ||
        board_load(br->home, br->board_name, &br->board, &err)) {
        fprintf(stderr, "%s: %s\n", br->cmd, err.msg);
        return 2;
    }
    struct board *board = &br->board;
    if (br->cores > board->max_cores) {
        fprintf(stderr, "%s: --cores %u: board %s has at most %u cores\n", br->cmd, br->cores,
                board->name, board->max_cores);
        return 2;
    }
    unsigned timeout_s = br->timeout_s ? br->timeout_s : board->timeout_s;
    if (check_images(br, &err)) {
        fprintf(stderr, "%s: %s\n", br->cmd, err.msg);
        return 2;
    }
    board_resolve(br->home, board->firmware, br->firmware, sizeof br->firmware);
    if (access(br->firmware, R_OK) != 0) {
        fprintf(stderr, "%s: the monitor %s is not built (%s); run make\n", br->cmd,
                br->firmware, strerror(errno));
        return 2;
    }
    if (board->plugin[0]) {
        char plugin[PATH_MAX];
        board_resolve(br->home, board->plugin, plugin, sizeof plugin);
        if (access(plugin, R_OK) != 0) {
            fprintf(stderr, "%s: the board's plugin %s is not built (%s); run make\n", br->cmd,
                    plugin, strerror(errno));
            return 2;
        }
    }
    if (br->model_mode && !board->plugin[0]) {
        fprintf(stderr, "%s: board %s has no hardware model, so no --model; use --board clipper-pm\n",
                br->cmd, board->name);
        return 2;
    }
    if (br->oracle_path && !board->plugin[0]) {
        fprintf(stderr, "%s: board %s has no hardware model, so no oracle; use --board clipper-pm\n",
                br->cmd, board->name);
        return 2;
    }
    if (!program_exists(board->qemu)) {
        fprintf(stderr, "%s: %s not found; run make setup (installs qemu-system-misc)\n",
                br->cmd, board->qemu);
        return 127;
    }
    if (br->say_time_limit)     /* (after the checks: bad input gets its one line alone) */
        fprintf(stderr, "%s: note: the run will be stopped after %u s of host time (%s; --timeout S to change)\n",
                br->cmd, timeout_s, br->timeout_s ? "--timeout" : "the board's limit");

    install_signals();
    char shm_path[128], sock_path[128], prof_path[128], errors_path[128];
    snprintf(shm_path, sizeof shm_path, "/dev/shm/alphaprof-%ld-ram", (long)getpid());
    snprintf(sock_path, sizeof sock_path, "/tmp/alphaprof-%ld-link.sock", (long)getpid());
    snprintf(prof_path, sizeof prof_path, "/tmp/alphaprof-%ld-profile.sock", (long)getpid());
    snprintf(errors_path, sizeof errors_path, "/tmp/alphaprof-%ld-model-errors", (long)getpid());
    unlink(errors_path);
    unlink(shm_path);
    unlink(sock_path);
    unlink(prof_path);
    if (br->oracle_path) {
        /* an earlier run's oracle and snapshots must not pass for this
         * run's (record stores the run id of what it finds afterwards) */
        unlink(br->oracle_path);
        for (unsigned n = ORACLE_SNAPSHOT_START; n <= ORACLE_SNAPSHOT_STOP; n++) {
            char snap[PATH_MAX + 16];
            oracle_snapshot_path(br->oracle_path, n, snap, sizeof snap);
            unlink(snap);
        }
        /* the Ball-Larus numbering the model counts paths by (path-plan.h) */
        char plan[PATH_MAX + 16];
        snprintf(plan, sizeof plan, "%s.plan", br->oracle_path);
        if (path_plan_write(plan, (const char *const *)br->images->v, br->images->n, &err)) {
            fprintf(stderr, "%s: %s\n", br->cmd, err.msg);
            return 2;
        }
    }

    struct run_config rc = {
        .board = board,
        .home = br->home,
        .cores = br->cores,
        .deterministic = br->deterministic,
        .link = br->link,
        .shm_path = shm_path,
        .socket_path = sock_path,
        .profile_socket_path = br->profile.sink ? prof_path : NULL,
        .oracle_path = br->oracle_path,
        .model_mode = br->model_mode,
        .model_errors_path = board->plugin[0] ? errors_path : NULL,
        .images = (const char *const *)br->images->v,
        .nimages = br->images->n,
        .keys = (const char *const *)br->keys->v,
        .nkeys = br->keys->n,
        .unchecked_keys = !br->check,
        .args = (const char *const *)br->args->v,
        .nargs = br->args->n,
    };
    struct strvec qargv = {0};
    if (qemu_compose(&rc, &qargv, &err)) {
        fprintf(stderr, "%s: %s\n", br->cmd, err.msg);
        strvec_free(&qargv);
        return 2;
    }
    if (br->verbose) {
        fprintf(stderr, "%s:", br->cmd);
        for (size_t i = 0; i < qargv.n; i++) {
            fputc(' ', stderr);
            print_shell_word(stderr, qargv.v[i]);
        }
        fputc('\n', stderr);
    }
    fflush(stdout);

    struct launch_opts lo = {
        .argv = qargv.v,
        .link = br->link,
        .socket_path = sock_path,
        .timeout_s = timeout_s,
        .stop_fd = stop_pipe[0],
        .in_fd = 0,
        .out_fd = 1,
        .err_fd = 2,
        .show_boot = br->verbose,
        .truth_at_exit = br->oracle_path != NULL,
        .profile_socket_path = !br->profile.sink ? NULL
                               : getenv("ALPHAPROF_PROFILE_VIA") ? getenv("ALPHAPROF_PROFILE_VIA")
                               : prof_path,
        .relay_path = br->profile_socket,
        .profile = br->profile,
    };
    int lrc = qemu_launch(&lo, &br->result, &err);
    /* QEMU is gone (reaped or killed): its files go with it. */
    int model_errors = report_model_errors(br->cmd, errors_path);
    unlink(errors_path);
    unlink(shm_path);
    unlink(sock_path);
    unlink(prof_path);
    strvec_free(&qargv);
    if (lrc) {
        fprintf(stderr, "%s: %s\n", br->cmd, err.msg);
        return 125;
    }
    br->launched = true;
    char msg[AP_ERR_MAX + 256];
    int status = launch_outcome(&br->result, board->qemu, timeout_s, msg, sizeof msg);
    if (msg[0] && !model_errors)
        fprintf(stderr, "%s: %s\n", br->cmd, msg);
    return status ? status : model_errors ? 1 : 0;
}
