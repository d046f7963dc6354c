/*
 * Board definitions, boards/<name>/board.conf (format and rules: board.h).
 *
 * Invariants: a parsed board has every required key exactly once; an
 * unknown, repeated or missing key or a bad number is an error naming
 * file:line.
 */
#include "util/board.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linker/ram-map.h"
#include "util/regular-file.h"

enum key_type { KEY_STR, KEY_UINT };

struct key_def {
    const char *name;
    enum key_type type;
    bool required;
    bool may_be_empty;          /* strings only */
    size_t offset;
    unsigned min, max;          /* numbers only */
};

#define STR(k, req, empty) { #k, KEY_STR, req, empty, offsetof(struct board, k), 0, 0 }
#define NUM(k, lo, hi) { #k, KEY_UINT, true, false, offsetof(struct board, k), lo, hi }

static const struct key_def keys[] = {
    STR(description, false, true),
    STR(qemu, true, false),
    STR(machine, true, false),
    STR(cpu, true, false),
    NUM(ram_mb, 1, 1u << 20),
    NUM(max_cores, 1, MAX_CORES),
    STR(firmware, true, false),
    STR(qemu_args, true, true),
    STR(deterministic_args, true, true),
    STR(fast_args, true, true),
    STR(plugin, false, true),
    STR(plugin_args, false, true),
    NUM(timeout_s, 1, 86400),
};
#define NKEYS (sizeof keys / sizeof keys[0])

static size_t key_index(const char *name)
{
    size_t k = 0;
    while (k < NKEYS && strcmp(keys[k].name, name) != 0)
        k++;
    return k;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int parse_uint(const char *s, unsigned *out)
{
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > 0xffffffffUL)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int board_parse(const char *path, struct board *b, struct ap_err *err)
{
    memset(b, 0, sizeof *b);
    snprintf(b->conf_path, sizeof b->conf_path, "%s", path);
    FILE *f = regular_fopen_read(path, "a board definition (boards/NAME/board.conf)", err);
    if (!f)
        return -1;

    unsigned seen_line[NKEYS] = {0};
    char line[4096];
    unsigned lineno = 0;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n' && !feof(f)) {
            rc = ap_err_set(err, "%s:%u: line longer than %zu characters", path, lineno, sizeof line - 2);
            break;
        }
        char *s = trim(line);
        if (*s == '\0' || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = ap_err_set(err, "%s:%u: expected 'key = value', got '%s'", path, lineno, s);
            break;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        size_t k;
        for (k = 0; k < NKEYS; k++)
            if (strcmp(keys[k].name, key) == 0)
                break;
        if (k == NKEYS) {
            rc = ap_err_set(err, "%s:%u: unknown key '%s' (known: description qemu machine cpu ram_mb max_cores firmware qemu_args deterministic_args fast_args plugin plugin_args timeout_s)",
                            path, lineno, key);
            break;
        }
        const struct key_def *d = &keys[k];
        if (seen_line[k]) {
            rc = ap_err_set(err, "%s:%u: key '%s' repeated (first on line %u)", path, lineno, key, seen_line[k]);
            break;
        }
        seen_line[k] = lineno;
        if (d->type == KEY_UINT) {
            unsigned v;
            if (parse_uint(val, &v)) {
                rc = ap_err_set(err, "%s:%u: %s: '%s' is not a decimal number", path, lineno, key, val);
                break;
            }
            if (v < d->min || v > d->max) {
                rc = ap_err_set(err, "%s:%u: %s = %u is out of range %u..%u", path, lineno, key, v, d->min, d->max);
                break;
            }
            *(unsigned *)((char *)b + d->offset) = v;
        } else {
            if (!d->may_be_empty && *val == '\0') {
                rc = ap_err_set(err, "%s:%u: %s must not be empty", path, lineno, key);
                break;
            }
            if (strlen(val) >= BOARD_STR_MAX) {
                rc = ap_err_set(err, "%s:%u: %s is longer than %d characters", path, lineno, key, BOARD_STR_MAX - 1);
                break;
            }
            strcpy((char *)b + d->offset, val);
        }
    }
    if (rc == 0 && ferror(f))
        rc = ap_err_set(err, "%s: read error", path);
    fclose(f);
    if (rc)
        return rc;
    for (size_t k = 0; k < NKEYS; k++)
        if (keys[k].required && !seen_line[k])
            return ap_err_set(err, "%s: required key '%s' is missing; add a line '%s = ...'", path,
                              keys[k].name, keys[k].name);
    /* The RAM map is fixed at build time: the board must agree with it. */
    if ((unsigned long long)b->ram_mb * 1024 * 1024 != (unsigned long long)RAM_SIZE)
        return ap_err_set(err, "%s:%u: ram_mb = %u but linker/ram-map.h has RAM_SIZE = %u MiB; they must match",
                          path, seen_line[key_index("ram_mb")], b->ram_mb, (unsigned)(RAM_SIZE / (1024 * 1024)));
    return 0;
}

int board_load(const char *home, const char *name, struct board *b, struct ap_err *err)
{
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof b->name)
        return ap_err_set(err, "board name '%s' is empty or too long", name);
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
            return ap_err_set(err, "board name '%s': use letters, digits, '_' and '-' only (a directory under boards/)", name);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/boards/%s/board.conf", home, name);
    if (access(path, F_OK) != 0)
        return ap_err_set(err, "unknown board '%s': %s does not exist (boards are directories under %s/boards)",
                          name, path, home);
    if (board_parse(path, b, err))
        return -1;
    snprintf(b->name, sizeof b->name, "%s", name);
    return 0;
}

static bool has_boards(const char *dir)
{
    char p[PATH_MAX];
    struct stat st;
    snprintf(p, sizeof p, "%s/boards", dir);
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int alphaprof_home(char *out, size_t outlen, struct ap_err *err)
{
    const char *env = getenv("ALPHAPROF_HOME");
    if (env && *env) {
        if (!has_boards(env))
            return ap_err_set(err, "ALPHAPROF_HOME=%s has no boards/ directory; point it at the alphaprof repository", env);
        snprintf(out, outlen, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return ap_err_set(err, "cannot find my own path (/proc/self/exe): %s; set ALPHAPROF_HOME to the repository", strerror(errno));
    exe[n] = '\0';
    /* build/host/alphaprof: strip the file name, then two directories. */
    for (int up = 0; up < 3; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return ap_err_set(err, "cannot find the repository from %s; set ALPHAPROF_HOME", exe);
        *slash = '\0';
    }
    if (exe[0] == '\0')
        strcpy(exe, "/");
    if (!has_boards(exe))
        return ap_err_set(err, "%s has no boards/ directory (expected the binary at REPO/build/host/); set ALPHAPROF_HOME to the repository", exe);
    snprintf(out, outlen, "%s", exe);
    return 0;
}

void board_resolve(const char *home, const char *rel, char *out, size_t outlen)
{
    if (rel[0] == '/')
        snprintf(out, outlen, "%s", rel);
    else
        snprintf(out, outlen, "%s/%s", home, rel);
}
