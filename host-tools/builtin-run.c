/*
 * alphaprof run: boots the board with the monitor and the given workload
 * images, forwards the serial console, and exits with the workload's status.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "util/board.h"
#include "util/image-file.h"
#include "util/qemu-cmdline.h"
#include "util/qemu-launch.h"
#include "util/strvec.h"

#define DEFAULT_BOARD "clipper"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: alphaprof run [options] IMAGE.elf [IMAGE2.elf ...] [-- ARGS]\n"
            "\n"
            "Boots the board with the monitor and the workload images, shows the\n"
            "serial console, sends standard input to the guest and exits with the\n"
            "workload's status.\n"
            "\n"
            "  --board B          board definition boards/B/board.conf (default %s)\n"
            "  --cores N          number of cores (default 1)\n"
            "  --deterministic    one host thread, 1 ns per instruction: runs repeat exactly\n"
            "  --link unix|stdio  serial link: QEMU socket (default) or QEMU's stdio\n"
            "  --timeout S        give up after S seconds (default: the board's timeout_s)\n"
            "  --append KEY=VAL   add a key to the boot command line (e.g. run=NAME, tick_hz=1000)\n"
            "  --no-check         skip the host-side image checks (the monitor still checks)\n"
            "  -v, --verbose      print the QEMU command line\n"
            "  ARGS               the image's argument string (after --)\n"
            "\n"
            "Exit status: the workload's (0..255), 1 after a monitor FATAL, 124 on\n"
            "timeout, 125 if QEMU ended without a result, 127 if QEMU is missing,\n"
            "2 for bad options or images.\n",
            DEFAULT_BOARD);
}

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

static void install_signals(void)
{
    if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
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

/* "--opt=VAL" or "--opt VAL": the value, advancing *i; NULL if not this option. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static bool parse_unsigned(const char *s, unsigned *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > 1000000)
        return false;
    *out = (unsigned)v;
    return true;
}

int cmd_run(int argc, char **argv)
{
    const char *board_name = DEFAULT_BOARD;
    unsigned cores = 1, timeout_s = 0;
    bool deterministic = false, verbose = false, check = true;
    enum link_kind link = LINK_UNIX;
    struct strvec images = {0}, keys = {0}, args = {0};
    int status = 2;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                strvec_push(&args, argv[i]);
            break;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            status = 0;
            goto out;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            verbose = true;
        } else if (strcmp(a, "--deterministic") == 0) {
            deterministic = true;
        } else if (strcmp(a, "--no-check") == 0) {
            check = false;
        } else if ((v = opt_value(argc, argv, &i, "--board", &missing))) {
            board_name = v;
        } else if ((v = opt_value(argc, argv, &i, "--cores", &missing))) {
            if (!parse_unsigned(v, &cores) || cores == 0) {
                fprintf(stderr, "alphaprof run: --cores '%s': give a number of cores (1..%d)\n", v, 4);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--timeout", &missing))) {
            if (!parse_unsigned(v, &timeout_s) || timeout_s == 0) {
                fprintf(stderr, "alphaprof run: --timeout '%s': give a whole number of seconds > 0\n", v);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--link", &missing))) {
            if (strcmp(v, "unix") == 0) {
                link = LINK_UNIX;
            } else if (strcmp(v, "stdio") == 0) {
                link = LINK_STDIO;
            } else {
                fprintf(stderr, "alphaprof run: --link '%s': use unix or stdio\n", v);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--append", &missing))) {
            struct ap_err err;
            if (cmdline_check_key(v, &err)) {
                fprintf(stderr, "alphaprof run: %s\n", err.msg);
                goto out;
            }
            strvec_push(&keys, v);
        } else if (missing) {
            fprintf(stderr, "alphaprof run: %s needs a value\n", a);
            goto out;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "alphaprof run: unknown option '%s'; see 'alphaprof run --help'\n", a);
            goto out;
        } else {
            strvec_push(&images, a);
        }
    }
    if (images.n == 0) {
        fprintf(stderr, "alphaprof run: no workload image given (e.g. build/workloads/hello.elf); see 'alphaprof run --help'\n");
        goto out;
    }

    struct ap_err err;
    char home[PATH_MAX];
    struct board board;
    if (alphaprof_home(home, sizeof home, &err) || board_load(home, board_name, &board, &err)) {
        fprintf(stderr, "alphaprof run: %s\n", err.msg);
        goto out;
    }
    if (cores > board.max_cores) {
        fprintf(stderr, "alphaprof run: --cores %u: board %s has at most %u cores\n", cores,
                board.name, board.max_cores);
        goto out;
    }
    if (timeout_s == 0)
        timeout_s = board.timeout_s;

    /* Check every image before starting anything: a bad one is named here,
     * not found by the monitor after a boot. */
    struct image_header *hdrs = xmalloc(images.n * sizeof *hdrs);
    for (size_t i = 0; i < images.n; i++) {
        if (check) {
            if (image_check_file(images.v[i], &hdrs[i], &err)) {
                fprintf(stderr, "alphaprof run: %s\n", err.msg);
                free(hdrs);
                goto out;
            }
        } else if (access(images.v[i], R_OK) != 0) {
            fprintf(stderr, "alphaprof run: %s: %s; build it first (make) or check the path\n",
                    images.v[i], strerror(errno));
            free(hdrs);
            goto out;
        }
    }
    for (size_t i = 0; check && i < images.n; i++)
        for (size_t j = i + 1; j < images.n; j++)
            if (hdrs[i].load_base < hdrs[j].bss_end && hdrs[j].load_base < hdrs[i].bss_end) {
                fprintf(stderr, "alphaprof run: %s (0x%llx..0x%llx) and %s (0x%llx..0x%llx) overlap in memory; link one at another base\n",
                        images.v[i], (unsigned long long)hdrs[i].load_base,
                        (unsigned long long)hdrs[i].bss_end, images.v[j],
                        (unsigned long long)hdrs[j].load_base, (unsigned long long)hdrs[j].bss_end);
                free(hdrs);
                goto out;
            }
    free(hdrs);

    char firmware[PATH_MAX];
    board_resolve(home, board.firmware, firmware, sizeof firmware);
    if (access(firmware, R_OK) != 0) {
        fprintf(stderr, "alphaprof run: the monitor %s is not built (%s); run make\n", firmware,
                strerror(errno));
        goto out;
    }
    if (board.plugin[0]) {
        char plugin[PATH_MAX];
        board_resolve(home, board.plugin, plugin, sizeof plugin);
        if (access(plugin, R_OK) != 0) {
            fprintf(stderr, "alphaprof run: the board's plugin %s is not built (%s); run make\n",
                    plugin, strerror(errno));
            goto out;
        }
    }
    if (!program_exists(board.qemu)) {
        fprintf(stderr, "alphaprof run: %s not found; run make setup (installs qemu-system-misc)\n",
                board.qemu);
        status = 127;
        goto out;
    }

    install_signals();
    char shm_path[128], sock_path[128];
    snprintf(shm_path, sizeof shm_path, "/dev/shm/alphaprof-%ld-ram", (long)getpid());
    snprintf(sock_path, sizeof sock_path, "/tmp/alphaprof-%ld-link.sock", (long)getpid());
    unlink(shm_path);
    unlink(sock_path);

    struct run_config rc = {
        .board = &board,
        .home = home,
        .cores = cores,
        .deterministic = deterministic,
        .link = link,
        .shm_path = shm_path,
        .socket_path = sock_path,
        .images = (const char *const *)images.v,
        .nimages = images.n,
        .keys = (const char *const *)keys.v,
        .nkeys = keys.n,
        .args = (const char *const *)args.v,
        .nargs = args.n,
    };
    struct strvec qargv = {0};
    if (qemu_compose(&rc, &qargv, &err)) {
        fprintf(stderr, "alphaprof run: %s\n", err.msg);
        goto out;
    }
    if (verbose) {
        fprintf(stderr, "alphaprof run:");
        for (size_t i = 0; i < qargv.n; i++) {
            fputc(' ', stderr);
            print_shell_word(stderr, qargv.v[i]);
        }
        fputc('\n', stderr);
    }
    fflush(stdout);

    struct launch_opts lo = {
        .argv = qargv.v,
        .link = link,
        .socket_path = sock_path,
        .timeout_s = timeout_s,
        .stop_fd = stop_pipe[0],
        .in_fd = 0,
        .out_fd = 1,
        .err_fd = 2,
        .show_boot = verbose,
    };
    struct launch_result lr;
    int lrc = qemu_launch(&lo, &lr, &err);
    /* QEMU is gone (reaped or killed): its files go with it. */
    unlink(shm_path);
    unlink(sock_path);
    strvec_free(&qargv);
    if (lrc) {
        fprintf(stderr, "alphaprof run: %s\n", err.msg);
        status = 125;
        goto out;
    }
    char msg[AP_ERR_MAX + 256];
    status = launch_outcome(&lr, board.qemu, timeout_s, msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "alphaprof run: %s\n", msg);

out:
    strvec_free(&images);
    strvec_free(&keys);
    strvec_free(&args);
    return status;
}
