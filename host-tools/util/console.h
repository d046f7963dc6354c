/*
 * Reading the monitor's console: the fixed `monitor: ` lines the launcher
 * relies on (see the runtime conventions): the workload's exit status, FATAL
 * reports and cores coming online.  Fed raw bytes as they arrive.
 *
 * Invariants: line parsing is pure (no state between lines); the scanner
 * hands over whole lines only, however the bytes were split.
 */
#ifndef ALPHAPROF_UTIL_CONSOLE_H
#define ALPHAPROF_UTIL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

#define CONSOLE_LINE_MAX 1024

enum console_line_kind {
    CONSOLE_OTHER,
    CONSOLE_EXIT,           /* monitor: NAME exited with status N */
    CONSOLE_FATAL,          /* monitor: FATAL ... */
    CONSOLE_CORE_ONLINE,    /* monitor: core N online */
    CONSOLE_RUNNING,        /* monitor: running NAME on N cores */
};

struct console_line {
    enum console_line_kind kind;
    long value;                 /* exit status or core number */
    char name[64];              /* image name of an exit line */
};

/* Classifies one line (without its newline; a trailing '\r' is ignored). */
void console_parse_line(const char *line, struct console_line *out);

struct console_state {
    char buf[CONSOLE_LINE_MAX];
    size_t len;
    bool exit_seen;
    long exit_status;
    char exit_name[64];
    bool fatal_seen;
    char fatal_line[CONSOLE_LINE_MAX];
    unsigned cores_online;
    bool running_seen;      /* the workload started: input may flow */
};

void console_init(struct console_state *c);
/* Feeds console bytes; lines longer than CONSOLE_LINE_MAX are cut. */
void console_feed(struct console_state *c, const char *data, size_t n);
/* Processes a last line without newline (at end of output). */
void console_finish(struct console_state *c);

/* A workload status as a process exit status: 0..255 unchanged; anything
 * else (negative, or too big for an exit status) becomes 255 so a failure
 * never reads as success. */
int console_clamp_status(long status);

#endif
