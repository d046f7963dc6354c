/*
 * libFuzzer target for the monitor's boot-line parser and event-list
 * grammar (firmware/abi/boot-line.c, event-spec.c): the line QEMU stores
 * for the monitor is whatever a launcher wrote, so the parser must hold its
 * invariants on any text.
 *
 * The input, cut at the first NUL and at CMDLINE_MAX - 1 bytes as the
 * monitor cuts it, is parsed from the defaults.  Invariants (a violation
 * aborts): every string field stays terminated; every range keeps
 * MIN <= MAX within the limits; at most BOOT_MAX_EVENTS events, each a
 * known event; a word the parser refuses leaves the options as they were
 * (boot_apply_word on a copy).
 *
 * Run: build/tests/fuzz/fuzz_boot_line -max_total_time=20 CORPUS_DIR
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/boot-line.h"

#define CHECK(cond)             \
    do {                        \
        if (!(cond))            \
            abort();            \
    } while (0)

static void check_options(const struct boot_options *o)
{
    CHECK(memchr(o->run, 0, sizeof o->run));
    CHECK(memchr(o->args, 0, sizeof o->args));
    CHECK(o->period_min >= BOOT_PERIOD_MIN && o->period_min <= o->period_max &&
          o->period_max <= BOOT_NUMBER_MAX);
    CHECK(o->pme_min >= PME_MIN_INTERVAL && o->pme_min <= o->pme_max && o->pme_max <= BOOT_NUMBER_MAX);
    CHECK(o->pair_window >= 1 && o->pair_window <= PME_MAX_PAIR_WINDOW);
    CHECK(o->flush_ms >= 1 && o->tick_hz <= BOOT_TICK_HZ_MAX);
    CHECK(o->nevents <= BOOT_MAX_EVENTS);
    for (unsigned i = 0; i < o->nevents; i++) {
        CHECK(o->events[i].event < PMU_EV_COUNT);
        CHECK(o->events[i].period_min <= o->events[i].period_max);
        CHECK(o->events[i].period_max == 0 || o->events[i].period_min >= PMU_MIN_PERIOD);
    }
}

/* A refused word changes nothing (boot-line.h invariant 1). */
static void on_refused(void *ctx, const char *word, size_t len, const struct boot_problem *why)
{
    (void)ctx;
    CHECK(why->status != BOOT_OK && len > 0);
    struct boot_options a = BOOT_OPTIONS_DEFAULTS, b = a;
    struct boot_problem again;
    CHECK(boot_apply_word(&b, word, len, &again) == why->status);
    CHECK(memcmp(&a, &b, sizeof a) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char line[CMDLINE_MAX];
    size_t n = size < sizeof line - 1 ? size : sizeof line - 1;
    memcpy(line, data, n);
    line[n] = '\0';
    struct boot_options o = BOOT_OPTIONS_DEFAULTS;
    boot_line_parse(&o, line, on_refused, NULL);
    check_options(&o);
    /* the event grammar alone, on the raw bytes (not terminated) */
    struct event_spec_list l;
    struct event_spec_problem p;
    if (event_spec_parse((const char *)data, size, &l, &p) == EVENT_SPEC_OK) {
        CHECK(l.n >= 1 && l.n <= EVENT_SPEC_MAX);
    } else {
        CHECK(p.at >= (const char *)data && p.at + p.at_len <= (const char *)data + size);
    }
    return 0;
}
