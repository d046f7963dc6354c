/*
 * The boot command line: its keys, their defaults and their limits, once.
 * The monitor parses the line QEMU's -append stored at CMDLINE_PHYS with
 * it (firmware/kernel/cmdline.c); the host checks every word it is about to
 * send with the same table (host-tools util/qemu-cmdline.c, record and run
 * options), so a word the monitor would refuse never leaves the host.
 *
 * Grammar:   line  = { word ' ' } [ '--' ' ' args ]
 *            word  = key '=' value
 * Values by kind of key (boot_keys[] in boot-line.c names each key's kind):
 *   uint     decimal digits, MIN..MAX of the key
 *   range    MIN-MAX, both ends in the key's limits, MIN <= MAX
 *   choice   one of the key's names
 *   flag     "0" is off, anything else on (report_ticks=1)
 *   text     at most the field's size - 1 characters (run=NAME)
 *   events   NAME[:MIN-MAX],... (firmware/abi/event-spec.h)
 *   capture  CLASS:KIND[+KIND],... (firmware/abi/value-capture.h)
 *
 * Invariants:
 *  1. A word with a problem leaves struct boot_options exactly as it was
 *     (the monitor warns and keeps the default; the host refuses the run).
 *  2. The last word of a key wins: the host appends the user's --append
 *     words after its own, so they override.
 *  3. Freestanding C11 (no library calls): built for the firmware and the
 *     host alike, the way link-codec.c is.
 */
#ifndef FIRMWARE_ABI_BOOT_LINE_H
#define FIRMWARE_ABI_BOOT_LINE_H

#include <stddef.h>
#include <stdint.h>

#include "firmware/abi/event-spec.h"
#include "firmware/abi/value-capture.h"
#include "linker/ram-map.h"

#define BOOT_MAX_EVENTS     EVENT_SPEC_MAX
/* Every number on the line is at most this (the monitor's one limit). */
#define BOOT_NUMBER_MAX     GRAMMAR_NUMBER_MAX
#define BOOT_PERIOD_MIN     1000            /* ns of virtual time, timer sampling */
#define BOOT_TICK_HZ_MAX    100000

/* The defaults, written once: DCPI's sampling period, uniform in 60K..64K;
 * ProfileMe one sample per 60K..64K fetched instructions, about the rate of
 * the default timer and cycle sampling at 1 ns per instruction; the pair
 * window the model's 80 reorder-buffer entries (seed 5.2.1: W covers any
 * two instructions that can be in flight together). */
#define BOOT_DEFAULT_PERIOD_MIN     60000
#define BOOT_DEFAULT_PERIOD_MAX     64000
/* An event of events= without a period: cycles take period=, every other
 * event this (events are rarer than cycles) */
#define BOOT_DEFAULT_EVENT_PERIOD_MIN 4000
#define BOOT_DEFAULT_EVENT_PERIOD_MAX 4400
#define BOOT_DEFAULT_FLUSH_MS       100
#define BOOT_DEFAULT_SEED           1
/* pme_draw's bits */
#define BOOT_PME_DRAW_GEOMETRIC     1u  /* geometric with the interval's mean */
#define BOOT_PME_DRAW_TIME          2u  /* time-proportional: the interval in cycles */
#define BOOT_DEFAULT_PME_MIN        60000
#define BOOT_DEFAULT_PME_MAX        64000
#define BOOT_DEFAULT_PAIR_WINDOW    80
/* Value sampling (firmware/profiler/value-sampling.c): off unless
 * value_every is given; then each run interprets a random 0..value_skip
 * instructions unseen (so captured PCs are not biased towards the
 * interrupted one) and captures the next value_length. */
#define BOOT_DEFAULT_VALUE_EVERY    4   /* record --values: within the ~10 % cost goal (README) */
#define BOOT_DEFAULT_VALUE_LENGTH   16
#define BOOT_DEFAULT_VALUE_SKIP     16
#define BOOT_VALUE_MAX_LENGTH       64
#define BOOT_VALUE_MAX_SKIP         64

struct boot_options {
    char run[32];               /* empty: the only (or first) image */
    unsigned tick_hz;
    int report_ticks;
    int profile_probe;          /* profile_probe=1: measure the sample table's cost */
    unsigned window_fuzz;       /* window_fuzz=N: N rounds of garbage in the PMU window */
    int stack_probe;            /* stack_probe=1: the last core overflows its monitor stack */
    unsigned profile;           /* LK_MODE_* (firmware/abi/link-protocol.h) */
    uint64_t period_min, period_max;
    unsigned baud;
    unsigned flush_ms;
    unsigned table_policy;      /* enum table_policy (firmware/profiler/sample-table.h) */
    unsigned seed;
    unsigned nevents;
    struct event_spec events[BOOT_MAX_EVENTS];
    uint64_t pme_min, pme_max;  /* ProfileMe: fetched instructions between samples */
    unsigned pme_draw;          /* BOOT_PME_DRAW_* bits (pmu-window.h PME_DRAW_GEOMETRIC, PME_DRAW_TIME) */
    unsigned pair_window;       /* paired ProfileMe: minor interval 1..W */
    unsigned start_host;        /* start=host: sample only after the host's START */
    unsigned value_every;       /* value sampling at every k-th sampling interrupt, 0 off */
    unsigned value_length;      /* instructions captured per run */
    unsigned value_skip;        /* at most this many interpreted first, uncaptured */
    struct value_capture value_capture;
    uint64_t link_nonce;        /* nonce=HEX: the boot session is this host's, which
                                   acknowledges (link-protocol.h 5.1); 0: none */
    char args[CMDLINE_MAX];     /* text after "--", blank-separated */
};

#define BOOT_OPTIONS_DEFAULTS {                                                      \
    .period_min = BOOT_DEFAULT_PERIOD_MIN, .period_max = BOOT_DEFAULT_PERIOD_MAX,    \
    .flush_ms = BOOT_DEFAULT_FLUSH_MS, .table_policy = 0 /* POLICY_RR4 */,           \
    .seed = BOOT_DEFAULT_SEED, .pme_min = BOOT_DEFAULT_PME_MIN,                      \
    .pme_max = BOOT_DEFAULT_PME_MAX, .pair_window = BOOT_DEFAULT_PAIR_WINDOW,       \
    .value_length = BOOT_DEFAULT_VALUE_LENGTH, .value_skip = BOOT_DEFAULT_VALUE_SKIP, \
    .value_capture = VALUE_CAPTURE_DEFAULTS,                                         \
}

enum boot_status { BOOT_OK, BOOT_NOT_KEY_VALUE, BOOT_UNKNOWN_KEY, BOOT_BAD_VALUE };

struct boot_problem {
    enum boot_status status;
    /* BOOT_BAD_VALUE: what the value must be, e.g. "a rate in 0..100000" */
    const char *expect;
    /* the offending part of the value: an item of an event list (item is
     * set), or the whole value */
    const char *at;
    size_t at_len;
    int item;
};

/* Applies one word (len bytes, not necessarily terminated) to o.  On a
 * problem o is unchanged and why says what (invariant 1). */
enum boot_status boot_apply_word(struct boot_options *o, const char *word, size_t len,
                                 struct boot_problem *why);

/* Called for each word of a line that has a problem. */
typedef void boot_warn_fn(void *ctx, const char *word, size_t len, const struct boot_problem *why);

/* Applies every word of a NUL-terminated line to o and copies the text
 * after "--" into o->args; warn (may be NULL) hears of each bad word. */
void boot_line_parse(struct boot_options *o, const char *line, boot_warn_fn *warn, void *ctx);

/* The text of a status, for messages ("is not KEY=VALUE", ...). */
const char *boot_status_text(enum boot_status s);
/* The name of the i-th key, or NULL past the last: for messages. */
const char *boot_key_name(size_t i);

#endif
