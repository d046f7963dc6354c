/*
 * The QEMU command line of a run (see qemu-cmdline.h).  Pure: composes
 * words, touches no file.  Invariants: the boot line holds only words the
 * monitor's own table accepts (firmware/abi/boot-line.c; run --no-check
 * excepted) and fits the monitor's CMDLINE_MAX buffer; every path inside a
 * QEMU option value has its ',' doubled.
 */
#include "util/qemu-cmdline.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/boot-line.h"
#include "linker/ram-map.h"

void qemu_escape_into(char *out, size_t outlen, const char *s)
{
    size_t n = strlen(out);
    for (; *s && n + 2 < outlen; s++) {
        out[n++] = *s;
        if (*s == ',')
            out[n++] = ',';
    }
    out[n] = '\0';
}

/* The line is blank-separated plain text: a word has no blank in it. */
static int cmdline_check_blanks(const char *word, struct ap_err *err)
{
    for (const char *p = word; *p; p++)
        if (isspace((unsigned char)*p) || !isprint((unsigned char)*p))
            return ap_err_set(err, "a boot option is printable and without blanks");
    return 0;
}

int cmdline_check_key(const char *word, struct ap_err *err)
{
    if (cmdline_check_blanks(word, err))
        return -1;
    /* The monitor's own table (firmware/abi/boot-line.c) on a scratch copy:
     * what it would refuse is refused here, before QEMU starts. */
    struct boot_options scratch = BOOT_OPTIONS_DEFAULTS;
    struct boot_problem why;
    switch (boot_apply_word(&scratch, word, strlen(word), &why)) {
    case BOOT_OK:
        return 0;
    case BOOT_NOT_KEY_VALUE:
        return ap_err_set(err, "not KEY=VALUE (e.g. tick_hz=1000)");
    case BOOT_UNKNOWN_KEY: {
        char keys[512] = "";
        size_t n = 0;
        for (size_t i = 0; boot_key_name(i) && n < sizeof keys; i++)
            n += (size_t)snprintf(keys + n, sizeof keys - n, "%s%s", i ? " " : "", boot_key_name(i));
        return ap_err_set(err, "the monitor has no boot option '%.*s' (it knows: %s)",
                          (int)strcspn(word, "="), word, keys);
    }
    case BOOT_BAD_VALUE:
        break;
    }
    if (why.item)
        return ap_err_set(err, "'%.*s' is not %s", (int)why.at_len, why.at, why.expect);
    return ap_err_set(err, "give %s", why.expect);
}

int cmdline_boot_text(const struct run_config *c, char **out, struct ap_err *err)
{
    struct strvec words = {0};
    for (size_t i = 0; i < c->nkeys; i++) {
        struct ap_err why;
        if (c->unchecked_keys ? cmdline_check_blanks(c->keys[i], &why) : cmdline_check_key(c->keys[i], &why)) {
            strvec_free(&words);
            return ap_err_set(err, "boot option '%s': %s", c->keys[i], why.msg);
        }
        strvec_push(&words, c->keys[i]);
    }
    if (c->nargs) {
        strvec_push(&words, "--");
        for (size_t i = 0; i < c->nargs; i++) {
            const char *a = c->args[i];
            for (const char *p = a; *p; p++)
                if (!isprint((unsigned char)*p)) {
                    strvec_free(&words);
                    return ap_err_set(err, "image argument '%s' has a non-printable character; the boot command line is plain text", a);
                }
            strvec_push(&words, a);
        }
    }
    char *text = strvec_join(&words, " ");
    strvec_free(&words);
    if (strlen(text) >= CMDLINE_MAX) {
        size_t n = strlen(text);
        free(text);
        return ap_err_set(err, "the boot command line (keys and image arguments) is %zu characters, the board takes at most %d: pass fewer or shorter arguments",
                          n, CMDLINE_MAX - 1);
    }
    *out = text;
    return 0;
}

/* The machine: board, CPU, the shared RAM file, cores, the monitor and the
 * images it loads, and the boot line. */
static void compose_machine(const struct run_config *c, const char *boot, struct strvec *argv)
{
    const struct board *b = c->board;
    char buf[PATH_MAX * 2 + 256], path[PATH_MAX];
    strvec_push(argv, b->qemu);
    strvec_push(argv, "-M");
    strvec_pushf(argv, "%s,memory-backend=ram", b->machine);
    strvec_push(argv, "-cpu");
    strvec_push(argv, b->cpu);
    strvec_push(argv, "-object");
    snprintf(buf, sizeof buf, "memory-backend-file,id=ram,size=%uM,share=on,mem-path=", b->ram_mb);
    qemu_escape_into(buf, sizeof buf, c->shm_path);
    strvec_push(argv, buf);
    strvec_push(argv, "-smp");
    strvec_pushf(argv, "%u", c->cores);
    board_resolve(c->home, b->firmware, path, sizeof path);
    strvec_push(argv, "-kernel");
    strvec_push(argv, path);
    for (size_t i = 0; i < c->nimages; i++) {
        strvec_push(argv, "-device");
        snprintf(buf, sizeof buf, "loader,file=");
        qemu_escape_into(buf, sizeof buf, c->images[i]);
        strvec_push(argv, buf);
    }
    strvec_push(argv, "-append");
    strvec_push(argv, boot);
}

/* COM1, the console (a socket or QEMU's stdio), and COM2, the profile
 * link, a socket of its own beside the console. */
static void compose_serial(const struct run_config *c, struct strvec *argv)
{
    char buf[PATH_MAX * 2 + 256];
    if (c->link == LINK_UNIX) {
        strvec_push(argv, "-chardev");
        snprintf(buf, sizeof buf, "socket,id=link,server=on,wait=on,path=");
        qemu_escape_into(buf, sizeof buf, c->socket_path);
        strvec_push(argv, buf);
        strvec_push(argv, "-serial");
        strvec_push(argv, "chardev:link");
    } else {
        strvec_push(argv, "-serial");
        strvec_push(argv, "stdio");
    }
    if (c->profile_socket_path) {
        strvec_push(argv, "-chardev");
        snprintf(buf, sizeof buf, "socket,id=profile,server=on,wait=%s,path=",
                 c->profile_socket_nowait ? "off" : "on");
        qemu_escape_into(buf, sizeof buf, c->profile_socket_path);
        strvec_push(argv, buf);
        strvec_push(argv, "-serial");
        strvec_push(argv, "chardev:profile");
    }
}

/* Appends ",fmt" (formatted) to the plugin's option value. */
static void plugin_arg(char *buf, size_t size, const char *fmt, const char *value)
{
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, fmt, value);
}

/* The hardware model's plugin, if the board has one: it maps the same RAM
 * file (file offset = guest physical). */
static void compose_plugin(const struct run_config *c, struct strvec *argv)
{
    const struct board *b = c->board;
    char buf[PATH_MAX * 2 + 256], path[PATH_MAX];
    if (!b->plugin[0])
        return;
    board_resolve(c->home, b->plugin, path, sizeof path);
    buf[0] = '\0';
    qemu_escape_into(buf, sizeof buf, path);
    plugin_arg(buf, sizeof buf, "%s", ",ram=");
    qemu_escape_into(buf, sizeof buf, c->shm_path);
    size_t n = strlen(buf);
    snprintf(buf + n, sizeof buf - n, ",cores=%u", c->cores);
    if (b->plugin_args[0])
        plugin_arg(buf, sizeof buf, ",%s", b->plugin_args);
    if (c->model_mode)
        plugin_arg(buf, sizeof buf, ",mode=%s", c->model_mode);
    if (c->oracle_path) {
        plugin_arg(buf, sizeof buf, "%s", ",oracle=");
        qemu_escape_into(buf, sizeof buf, c->oracle_path);
    }
    if (c->model_errors_path) {
        plugin_arg(buf, sizeof buf, "%s", ",errors=");
        qemu_escape_into(buf, sizeof buf, c->model_errors_path);
    }
    strvec_push(argv, "-plugin");
    strvec_push(argv, buf);
}

int qemu_compose(const struct run_config *c, struct strvec *argv, struct ap_err *err)
{
    const struct board *b = c->board;
    if (c->cores < 1 || c->cores > b->max_cores)
        return ap_err_set(err, "--cores %u: board %s has 1..%u cores", c->cores,
                          b->name[0] ? b->name : b->conf_path, b->max_cores);
    if (c->nimages == 0)
        return ap_err_set(err, "no workload image given");
    char *boot = NULL;
    if (cmdline_boot_text(c, &boot, err))
        return -1;
    compose_machine(c, boot, argv);
    free(boot);
    strvec_push_words(argv, b->qemu_args);
    strvec_push_words(argv, c->deterministic ? b->deterministic_args : b->fast_args);
    compose_serial(c, argv);
    compose_plugin(c, argv);
    return 0;
}
