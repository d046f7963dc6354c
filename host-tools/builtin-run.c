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
#include "util/board-run.h"
#include "util/options.h"
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
            "  --profile-socket PATH\n"
            "                     serve the profile link (COM2) on the unix socket PATH for\n"
            "                     'alphaprof daemon --link unix:PATH' to attach to; the\n"
            "                     profiler (profile=timer unless --append profile=... says\n"
            "                     otherwise) waits for the daemon's START\n"
            "  --baud N           run the profile link like an N-baud 8N1 UART (default: unpaced)\n"
            "  --oracle PATH      write the hardware model's exact truth of the run to PATH\n"
            "                     (board clipper-pm, which it picks by default)\n"
            "  --model full|counters  the hardware model's mode instead of the board's\n"
            "  --no-check         skip the host-side image checks (the monitor still checks)\n"
            "  -v, --verbose      print the QEMU command line\n"
            "  ARGS               the image's argument string (after --)\n"
            "\n"
            "Exit status: the workload's (0..255), 1 after a monitor FATAL, 124 on\n"
            "timeout, 125 if QEMU ended without a result, 127 if QEMU is missing,\n"
            "2 for bad options or images.\n",
            DEFAULT_BOARD);
}

int cmd_run(int argc, char **argv)
{
    const char *board_name = NULL, *oracle = NULL, *model = NULL;
    unsigned cores = 1, timeout_s = 0;
    bool deterministic = false, verbose = false, check = true;
    enum link_kind link = LINK_UNIX;
    const char *profile_socket = NULL;
    unsigned baud = 0;
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
        } else if ((v = opt_value(argc, argv, &i, "--profile-socket", &missing))) {
            profile_socket = v;
        } else if ((v = opt_value(argc, argv, &i, "--baud", &missing))) {
            if (!parse_unsigned(v, &baud) || baud < 300) {
                fprintf(stderr, "alphaprof run: --baud '%s': give a rate of at least 300\n", v);
                goto out;
            }
        } else if ((v = opt_value(argc, argv, &i, "--board", &missing))) {
            board_name = v;
        } else if ((v = opt_value(argc, argv, &i, "--oracle", &missing))) {
            oracle = v;
        } else if ((v = opt_value(argc, argv, &i, "--model", &missing))) {
            if (!(model = parse_model_mode("alphaprof run", v)))
                goto out;
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

    if (!board_name)
        board_name = oracle || model ? "clipper-pm" : DEFAULT_BOARD;
    if (profile_socket) {
        bool has_profile = false;
        for (size_t k = 0; k < keys.n; k++)
            if (strncmp(keys.v[k], "profile=", 8) == 0)
                has_profile = true;
        if (!has_profile)
            strvec_push(&keys, "profile=timer");
        strvec_push(&keys, "start=host");
    }
    if (baud)
        strvec_pushf(&keys, "baud=%u", baud);

    struct board_run br = {
        .cmd = "alphaprof run",
        .board_name = board_name,
        .oracle_path = oracle,
        .model_mode = model,
        .cores = cores,
        .timeout_s = timeout_s,
        .deterministic = deterministic,
        .verbose = verbose,
        .check = check,
        .link = link,
        .images = &images,
        .keys = &keys,
        .args = &args,
        .profile_socket = profile_socket,
    };
    status = board_run(&br);

out:
    strvec_free(&images);
    strvec_free(&keys);
    strvec_free(&args);
    return status;
}
