#include "util/qemu-cmdline.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int cmdline_check_key(const char *word, struct ap_err *err)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word)
        return ap_err_set(err, "--append '%s': expected KEY=VALUE (e.g. tick_hz=1000)", word);
    for (const char *p = word; p < eq; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_'))
            return ap_err_set(err, "--append '%s': keys use lower-case letters, digits and '_'", word);
    for (const char *p = eq + 1; *p; p++)
        if (isspace((unsigned char)*p) || !isprint((unsigned char)*p))
            return ap_err_set(err, "--append '%s': the value must be printable and without blanks", word);
    return 0;
}

int cmdline_boot_text(const struct run_config *c, char **out, struct ap_err *err)
{
    struct strvec words = {0};
    for (size_t i = 0; i < c->nkeys; i++) {
        if (cmdline_check_key(c->keys[i], err)) {
            strvec_free(&words);
            return -1;
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

    char buf[PATH_MAX * 2 + 256];
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

    char path[PATH_MAX];
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
    free(boot);

    strvec_push_words(argv, b->qemu_args);
    strvec_push_words(argv, c->deterministic ? b->deterministic_args : b->fast_args);

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
        /* COM2: the profile link, a socket of its own beside the console. */
        strvec_push(argv, "-chardev");
        snprintf(buf, sizeof buf, "socket,id=profile,server=on,wait=%s,path=",
                 c->profile_socket_nowait ? "off" : "on");
        qemu_escape_into(buf, sizeof buf, c->profile_socket_path);
        strvec_push(argv, buf);
        strvec_push(argv, "-serial");
        strvec_push(argv, "chardev:profile");
    }

    if (b->plugin[0]) {
        /* The plugin maps the same RAM file: file offset = guest physical. */
        board_resolve(c->home, b->plugin, path, sizeof path);
        buf[0] = '\0';
        qemu_escape_into(buf, sizeof buf, path);
        size_t n = strlen(buf);
        snprintf(buf + n, sizeof buf - n, ",ram=");
        qemu_escape_into(buf, sizeof buf, c->shm_path);
        n = strlen(buf);
        snprintf(buf + n, sizeof buf - n, ",cores=%u", c->cores);
        if (b->plugin_args[0]) {
            n = strlen(buf);
            snprintf(buf + n, sizeof buf - n, ",%s", b->plugin_args);
        }
        if (c->model_mode) {
            n = strlen(buf);
            snprintf(buf + n, sizeof buf - n, ",mode=%s", c->model_mode);
        }
        if (c->oracle_path) {
            n = strlen(buf);
            snprintf(buf + n, sizeof buf - n, ",oracle=");
            qemu_escape_into(buf, sizeof buf, c->oracle_path);
        }
        if (c->model_errors_path) {
            n = strlen(buf);
            snprintf(buf + n, sizeof buf - n, ",errors=");
            qemu_escape_into(buf, sizeof buf, c->model_errors_path);
        }
        strvec_push(argv, "-plugin");
        strvec_push(argv, buf);
    }
    return 0;
}
