/*
 * The monitor's console lines (the protocol: console.h).
 *
 * Invariants: only lines starting "monitor: " are ever classified; a line
 * that does not match one of the fixed forms exactly is CONSOLE_OTHER, so a
 * workload printing look-alike text cannot fake an exit status.
 */
#include "util/console.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PREFIX "monitor: "

/* Parses a decimal integer that must end the string (trailing blanks ok). */
static bool parse_long_end(const char *s, long *out)
{
    if (!(isdigit((unsigned char)*s) || ((*s == '-' || *s == '+') && isdigit((unsigned char)s[1]))))
        return false;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno)
        return false;
    while (*end == ' ' || *end == '\t' || *end == '\r')
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

void console_parse_line(const char *line, struct console_line *out)
{
    memset(out, 0, sizeof *out);
    out->kind = CONSOLE_OTHER;
    if (strncmp(line, PREFIX, strlen(PREFIX)) != 0)
        return;
    const char *rest = line + strlen(PREFIX);

    if (strncmp(rest, "FATAL", 5) == 0 && (rest[5] == ' ' || rest[5] == '\0' || rest[5] == '\r')) {
        out->kind = CONSOLE_FATAL;
        return;
    }
    static const char core[] = "core ";
    if (strncmp(rest, core, strlen(core)) == 0) {
        const char *num = rest + strlen(core);
        const char *sp = strchr(num, ' ');
        static const char online[] = " online";
        if (sp && strncmp(sp, online, strlen(online)) == 0) {
            const char *tail = sp + strlen(online);
            while (*tail == ' ' || *tail == '\r')
                tail++;
            char digits[24];
            size_t n = (size_t)(sp - num);
            if (*tail == '\0' && n > 0 && n < sizeof digits) {
                memcpy(digits, num, n);
                digits[n] = '\0';
                long v;
                if (isdigit((unsigned char)digits[0]) && parse_long_end(digits, &v)) {
                    out->kind = CONSOLE_CORE_ONLINE;
                    out->value = v;
                }
            }
        }
        return;
    }
    static const char running[] = "running ";
    if (strncmp(rest, running, strlen(running)) == 0) {
        const char *name = rest + strlen(running);
        const char *on = strstr(name, " on ");
        if (on && on > name && (size_t)(on - name) < sizeof out->name &&
            !memchr(name, ' ', (size_t)(on - name))) {
            const char *num = on + 4;
            char *end;
            long v = strtol(num, &end, 10);
            if (end > num && (strncmp(end, " cores", 6) == 0 || strncmp(end, " core", 5) == 0)) {
                memcpy(out->name, name, (size_t)(on - name));
                out->name[on - name] = '\0';
                out->kind = CONSOLE_RUNNING;
                out->value = v;
            }
        }
        return;
    }
    static const char exited[] = " exited with status ";
    const char *at = strstr(rest, exited);
    if (at && at > rest) {
        size_t n = (size_t)(at - rest);
        if (n >= sizeof out->name || memchr(rest, ' ', n))
            return;             /* image names are one word */
        long v;
        if (!parse_long_end(at + strlen(exited), &v))
            return;
        memcpy(out->name, rest, n);
        out->name[n] = '\0';
        out->kind = CONSOLE_EXIT;
        out->value = v;
    }
}

void console_init(struct console_state *c)
{
    memset(c, 0, sizeof *c);
}

static void end_line(struct console_state *c)
{
    c->buf[c->len] = '\0';
    if (c->len && c->buf[c->len - 1] == '\r')
        c->buf[c->len - 1] = '\0';
    struct console_line l;
    console_parse_line(c->buf, &l);
    switch (l.kind) {
    case CONSOLE_EXIT:
        /* The first report counts: the monitor stops after it. */
        if (!c->exit_seen) {
            c->exit_seen = true;
            c->exit_status = l.value;
            memcpy(c->exit_name, l.name, sizeof c->exit_name);
        }
        break;
    case CONSOLE_FATAL:
        if (!c->fatal_seen) {
            c->fatal_seen = true;
            memcpy(c->fatal_line, c->buf, sizeof c->fatal_line);
        }
        break;
    case CONSOLE_CORE_ONLINE:
        c->cores_online++;
        break;
    case CONSOLE_RUNNING:
        c->running_seen = true;
        break;
    case CONSOLE_OTHER:
        break;
    }
    c->len = 0;
}

void console_feed(struct console_state *c, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n') {
            end_line(c);
        } else if (c->len < sizeof c->buf - 1) {
            c->buf[c->len++] = data[i];
        }
    }
}

void console_finish(struct console_state *c)
{
    if (c->len)
        end_line(c);
}

int console_clamp_status(long status)
{
    if (status >= 0 && status <= 255)
        return (int)status;
    return 255;
}
