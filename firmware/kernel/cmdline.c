/*
 * Boot command line parser.  The launcher writes it (host-tools
 * util/qemu-cmdline.c composes "key=value ... -- args"); QEMU stores it
 * NUL-terminated at CMDLINE_PHYS.  Unknown keys are reported, not fatal:
 * an old monitor still runs workloads a newer launcher starts.
 */
#include "firmware/kernel/cmdline.h"

#include <stdlib.h>
#include <string.h>
#include "firmware/abi/link-protocol.h"
#include "firmware/kernel/console.h"
#include "firmware/profiler/sample-table.h"
#include "hw-model/pmu-window.h"

struct boot_options boot_options = {
    .period_min = 60000,        /* DCPI's default: uniform in 60K..64K */
    .period_max = 64000,
    .flush_ms = 100,
    .table_policy = POLICY_RR4,
    .seed = 1,
    /* ProfileMe: one sample per 60K..64K fetched instructions, about the
     * rate of the default timer and cycle sampling at 1 ns per instruction;
     * pair window = the model's 80 reorder-buffer entries (seed 5.2.1: W
     * covers any two instructions that can be in flight together). */
    .pme_min = 60000,
    .pme_max = 64000,
    .pair_window = 80,
};

/* Copies at most size - 1 bytes and always terminates. */
static void copy_string(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int parse_uint(const char *s, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end || v > 1000000)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* events=NAME[:MIN-MAX],... with the hardware model's event names. */
static void parse_events(const char *val)
{
    static const char *const names[] = {PMU_EVENT_NAMES};
    char list[128];
    copy_string(list, sizeof list, val);
    boot_options.nevents = 0;
    for (char *item = strtok(list, ","); item; item = strtok(NULL, ",")) {
        char *colon = strchr(item, ':');
        uint64_t lo = 0, hi = 0;
        if (colon) {
            *colon = '\0';
            unsigned a, b;
            char *dash = strchr(colon + 1, '-');
            if (!dash) {
                mon_printf("monitor: warning: events: '%s' needs MIN-MAX; ignored\n", colon + 1);
                continue;
            }
            *dash = '\0';
            if (parse_uint(colon + 1, &a) || parse_uint(dash + 1, &b) || a < PMU_MIN_PERIOD || b < a) {
                mon_printf("monitor: warning: events: bad period for %s; ignored\n", item);
                continue;
            }
            lo = a;
            hi = b;
        }
        unsigned e = 0;
        while (e < sizeof names / sizeof names[0] && strcmp(names[e], item))
            e++;
        if (e == sizeof names / sizeof names[0]) {
            mon_printf("monitor: warning: events: no event '%s' (hw-model/pmu-window.h lists them); ignored\n", item);
            continue;
        }
        if (boot_options.nevents == BOOT_MAX_EVENTS) {
            mon_printf("monitor: warning: events: at most %d; '%s' ignored\n", BOOT_MAX_EVENTS, item);
            continue;
        }
        boot_options.events[boot_options.nevents].event = e;
        boot_options.events[boot_options.nevents].period_min = lo;
        boot_options.events[boot_options.nevents].period_max = hi;
        boot_options.nevents++;
    }
}

static void apply_key(const char *word)
{
    const char *eq = strchr(word, '=');
    if (!eq) {
        mon_printf("monitor: warning: boot option '%s' is not key=value; ignored\n", word);
        return;
    }
    size_t klen = (size_t)(eq - word);
    const char *val = eq + 1;
    unsigned u;
    if (klen == 3 && !strncmp(word, "run", 3)) {
        copy_string(boot_options.run, sizeof boot_options.run, val);
    } else if (klen == 7 && !strncmp(word, "tick_hz", 7)) {
        if (parse_uint(val, &u) || u > 100000)
            mon_printf("monitor: warning: tick_hz=%s is not a rate in 0..100000; ignored\n", val);
        else
            boot_options.tick_hz = u;
    } else if (klen == 12 && !strncmp(word, "report_ticks", 12)) {
        boot_options.report_ticks = strcmp(val, "0") != 0;
    } else if (klen == 13 && !strncmp(word, "profile_probe", 13)) {
        boot_options.profile_probe = strcmp(val, "0") != 0;
    } else if (klen == 11 && !strncmp(word, "window_fuzz", 11)) {
        if (parse_uint(val, &u) || u > 1000000)
            mon_printf("monitor: warning: window_fuzz=%s is not a round count in 0..1000000; ignored\n", val);
        else
            boot_options.window_fuzz = u;
    } else if (klen == 7 && !strncmp(word, "profile", 7)) {
        if (!strcmp(val, "timer"))
            boot_options.profile = LK_MODE_TIMER;
        else if (!strcmp(val, "counters"))
            boot_options.profile = LK_MODE_COUNTERS;
        else if (!strcmp(val, "profileme"))
            boot_options.profile = LK_MODE_PROFILEME;
        else if (!strcmp(val, "paired"))
            boot_options.profile = LK_MODE_PAIRED;
        else if (!strcmp(val, "off"))
            boot_options.profile = LK_MODE_OFF;
        else
            mon_printf("monitor: warning: profile=%s: use timer, counters, profileme, paired or off; ignored\n", val);
    } else if (klen == 6 && !strncmp(word, "period", 6)) {
        char lo[16];
        const char *dash = strchr(val, '-');
        unsigned a, b;
        size_t n = dash ? (size_t)(dash - val) : strlen(val);
        copy_string(lo, n + 1 < sizeof lo ? n + 1 : sizeof lo, val);
        if (parse_uint(lo, &a) || parse_uint(dash ? dash + 1 : lo, &b) || a < 1000 || b < a)
            mon_printf("monitor: warning: period=%s is not MIN-MAX with 1000 <= MIN <= MAX; ignored\n", val);
        else {
            boot_options.period_min = a;
            boot_options.period_max = b;
        }
    } else if (klen == 4 && !strncmp(word, "baud", 4)) {
        if (parse_uint(val, &u))
            mon_printf("monitor: warning: baud=%s is not a rate; ignored\n", val);
        else
            boot_options.baud = u;
    } else if (klen == 8 && !strncmp(word, "flush_ms", 8)) {
        if (parse_uint(val, &u) || u == 0)
            mon_printf("monitor: warning: flush_ms=%s is not a positive number; ignored\n", val);
        else
            boot_options.flush_ms = u;
    } else if (klen == 5 && !strncmp(word, "start", 5)) {
        if (!strcmp(val, "host"))
            boot_options.start_host = 1;
        else if (!strcmp(val, "boot"))
            boot_options.start_host = 0;
        else
            mon_printf("monitor: warning: start=%s: use boot or host; ignored\n", val);
    } else if (klen == 5 && !strncmp(word, "table", 5)) {
        if (!strcmp(val, "rr4"))
            boot_options.table_policy = POLICY_RR4;
        else if (!strcmp(val, "stf6"))
            boot_options.table_policy = POLICY_STF6;
        else
            mon_printf("monitor: warning: table=%s: use rr4 or stf6; ignored\n", val);
    } else if (klen == 6 && !strncmp(word, "events", 6)) {
        parse_events(val);
    } else if (klen == 3 && !strncmp(word, "pme", 3)) {
        unsigned a, b;
        char lo[16];
        const char *dash = strchr(val, '-');
        size_t n = dash ? (size_t)(dash - val) : strlen(val);
        copy_string(lo, n + 1 < sizeof lo ? n + 1 : sizeof lo, val);
        if (!dash || parse_uint(lo, &a) || parse_uint(dash + 1, &b) || a < PME_MIN_INTERVAL || b < a)
            mon_printf("monitor: warning: pme=%s is not MIN-MAX fetched instructions with %d <= MIN <= MAX; ignored\n",
                       val, PME_MIN_INTERVAL);
        else {
            boot_options.pme_min = a;
            boot_options.pme_max = b;
        }
    } else if (klen == 11 && !strncmp(word, "pair_window", 11)) {
        if (parse_uint(val, &u) || u == 0 || u > PME_MAX_PAIR_WINDOW)
            mon_printf("monitor: warning: pair_window=%s is not in 1..%d; ignored\n", val, PME_MAX_PAIR_WINDOW);
        else
            boot_options.pair_window = u;
    } else if (klen == 4 && !strncmp(word, "seed", 4)) {
        if (parse_uint(val, &u))
            mon_printf("monitor: warning: seed=%s is not a number; ignored\n", val);
        else
            boot_options.seed = u;
    } else {
        mon_printf("monitor: warning: unknown boot option '%s'; ignored\n", word);
    }
}

void cmdline_parse(void)
{
    char text[CMDLINE_MAX];
    const char *src = (const char *)(KSEG_BASE + CMDLINE_PHYS);
    size_t n = strnlen(src, CMDLINE_MAX - 1);
    memcpy(text, src, n);
    text[n] = '\0';

    char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char *word = p;
        while (*p && *p != ' ')
            p++;
        if (*p)
            *p++ = '\0';
        if (!strcmp(word, "--")) {
            while (*p == ' ')
                p++;
            copy_string(boot_options.args, sizeof boot_options.args, p);
            return;
        }
        apply_key(word);
    }
}
