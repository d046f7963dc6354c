/*
 * The boot command line's keys (see boot-line.h for the grammar and the
 * invariants).  One table: each key's kind, limits and place in struct
 * boot_options.  Freestanding C11: no library calls.
 */
#include "firmware/abi/boot-line.h"

#include <stdbool.h>

#include "firmware/abi/link-protocol.h"

enum key_kind { KEY_TEXT, KEY_UINT, KEY_FLAG, KEY_RANGE, KEY_CHOICE, KEY_EVENTS, KEY_CAPTURE, KEY_HEX64 };

struct choice {
    const char *name;
    unsigned value;
};

struct boot_key {
    const char *name;
    enum key_kind kind;
    size_t offset;              /* of the field (KEY_RANGE: of MIN; MAX follows) */
    uint64_t min, max;          /* KEY_UINT, KEY_RANGE */
    const struct choice *choices;   /* KEY_CHOICE, ended by a NULL name */
    const char *expect;         /* what a value must be, for messages */
};

#define AT(field) offsetof(struct boot_options, field)
#define N_(x) GRAMMAR_STR(x)

static const struct choice profiles[] = {
    {"timer", LK_MODE_TIMER}, {"counters", LK_MODE_COUNTERS}, {"profileme", LK_MODE_PROFILEME},
    {"paired", LK_MODE_PAIRED}, {"off", LK_MODE_OFF}, {0, 0},
};
/* enum table_policy of firmware/profiler/sample-table.h */
static const struct choice tables[] = {{"rr4", 0}, {"stf6", 1}, {0, 0}};
static const struct choice starts[] = {{"boot", 0}, {"host", 1}, {0, 0}};
/* bit 0: pmu-window.h PME_DRAW_GEOMETRIC; bit 1: PME_DRAW_TIME (BOOT_PME_DRAW_*) */
static const struct choice pme_draws[] = {
    {"uniform", 0}, {"geometric", BOOT_PME_DRAW_GEOMETRIC}, {"time", BOOT_PME_DRAW_TIME},
    {"time-geometric", BOOT_PME_DRAW_TIME | BOOT_PME_DRAW_GEOMETRIC}, {0, 0}};

static const struct boot_key boot_keys[] = {
    {"run", KEY_TEXT, AT(run), 0, 0, 0, "an image name of 1 to 31 characters"},
    {"tick_hz", KEY_UINT, AT(tick_hz), 0, BOOT_TICK_HZ_MAX, 0,
     "a rate in 0.." N_(BOOT_TICK_HZ_MAX)},
    {"report_ticks", KEY_FLAG, AT(report_ticks), 0, 0, 0, "0 or 1"},
    {"profile_probe", KEY_FLAG, AT(profile_probe), 0, 0, 0, "0 or 1"},
    {"window_fuzz", KEY_UINT, AT(window_fuzz), 0, BOOT_NUMBER_MAX, 0,
     "a round count in 0.." N_(BOOT_NUMBER_MAX)},
    {"stack_probe", KEY_FLAG, AT(stack_probe), 0, 0, 0, "0 or 1"},
    {"profile", KEY_CHOICE, AT(profile), 0, 0, profiles,
     "timer, counters, profileme, paired or off"},
    {"period", KEY_RANGE, AT(period_min), BOOT_PERIOD_MIN, BOOT_NUMBER_MAX, 0,
     "MIN-MAX ns with " N_(BOOT_PERIOD_MIN) " <= MIN <= MAX <= " N_(BOOT_NUMBER_MAX)},
    {"baud", KEY_UINT, AT(baud), 0, BOOT_NUMBER_MAX, 0, "a rate in 0.." N_(BOOT_NUMBER_MAX)},
    {"flush_ms", KEY_UINT, AT(flush_ms), 1, BOOT_NUMBER_MAX, 0,
     "milliseconds in 1.." N_(BOOT_NUMBER_MAX)},
    {"start", KEY_CHOICE, AT(start_host), 0, 0, starts, "boot or host"},
    {"table", KEY_CHOICE, AT(table_policy), 0, 0, tables, "rr4 or stf6"},
    {"events", KEY_EVENTS, AT(nevents), 0, 0, 0, "a list NAME[:MIN-MAX],... of events"},
    {"pme", KEY_RANGE, AT(pme_min), PME_MIN_INTERVAL, BOOT_NUMBER_MAX, 0,
     "MIN-MAX fetched instructions (cycles with pme_draw time) with " N_(PME_MIN_INTERVAL) " <= MIN <= MAX <= "
     N_(BOOT_NUMBER_MAX)},
    {"pme_draw", KEY_CHOICE, AT(pme_draw), 0, 0, pme_draws, "uniform, geometric, time or time-geometric"},
    {"pair_window", KEY_UINT, AT(pair_window), 1, PME_MAX_PAIR_WINDOW, 0,
     "fetched instructions in 1.." N_(PME_MAX_PAIR_WINDOW)},
    {"seed", KEY_UINT, AT(seed), 0, BOOT_NUMBER_MAX, 0, "a number in 0.." N_(BOOT_NUMBER_MAX)},
    {"value_every", KEY_UINT, AT(value_every), 0, BOOT_NUMBER_MAX, 0,
     "sampling interrupts per value-sampling run in 0.." N_(BOOT_NUMBER_MAX) " (0: off)"},
    {"value_length", KEY_UINT, AT(value_length), 1, BOOT_VALUE_MAX_LENGTH, 0,
     "instructions in 1.." N_(BOOT_VALUE_MAX_LENGTH)},
    {"value_skip", KEY_UINT, AT(value_skip), 0, BOOT_VALUE_MAX_SKIP, 0,
     "instructions in 0.." N_(BOOT_VALUE_MAX_SKIP)},
    {"value_capture", KEY_CAPTURE, AT(value_capture), 0, 0, 0,
     "a list CLASS:KIND[+KIND],... (classes int load store branch fp all; kinds result "
     "operand_a operand_b address latency ra tos, or none)"},
    {"nonce", KEY_HEX64, AT(link_nonce), 0, 0, 0, "1 to 16 hex digits, not all zero"},
};
#define NKEYS (sizeof boot_keys / sizeof boot_keys[0])

_Static_assert(sizeof ((struct boot_options *)0)->run == 32, "run's message says 1 to 31 characters");
/* KEY_RANGE writes MIN and then MAX, the next field */
_Static_assert(AT(period_max) == AT(period_min) + sizeof(uint64_t), "period MIN, MAX adjacent");
_Static_assert(AT(pme_max) == AT(pme_min) + sizeof(uint64_t), "pme MIN, MAX adjacent");

static bool same(const char *a, size_t alen, const char *b)
{
    size_t i = 0;
    while (i < alen && b[i] && a[i] == b[i])
        i++;
    return i == alen && b[i] == '\0';
}

static void copy_bytes(char *dst, const char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i];
    dst[n] = '\0';
}

/* Sets the value; -1 (o untouched) if it does not fit the key. */
static int apply_value(struct boot_options *o, const struct boot_key *k, const char *v, size_t n,
                       struct boot_problem *why)
{
    char *field = (char *)o + k->offset;
    uint64_t a, b;
    switch (k->kind) {
    case KEY_TEXT:
        if (n == 0 || n >= sizeof o->run)     /* (run= would silently mean the first image) */
            return -1;
        copy_bytes(field, v, n);
        return 0;
    case KEY_UINT:
        if (grammar_uint(v, n, k->max, &a) || a < k->min)
            return -1;
        *(unsigned *)field = (unsigned)a;
        return 0;
    case KEY_FLAG:
        *(int *)field = !(n == 1 && v[0] == '0');
        return 0;
    case KEY_RANGE:
        if (grammar_range(v, n, k->min, k->max, &a, &b))
            return -1;
        ((uint64_t *)field)[0] = a;
        ((uint64_t *)field)[1] = b;
        return 0;
    case KEY_CHOICE:
        for (const struct choice *c = k->choices; c->name; c++)
            if (same(v, n, c->name)) {
                *(unsigned *)field = c->value;
                return 0;
            }
        return -1;
    case KEY_CAPTURE: {
        struct value_capture c = o->value_capture;
        if (value_capture_parse(&c, v, n, &why->at, &why->at_len))
            return -1;          /* at: the bad item; expect: the grammar */
        o->value_capture = c;
        return 0;
    }
    case KEY_HEX64: {
        uint64_t x = 0;
        if (n == 0 || n > 16)
            return -1;
        for (size_t i = 0; i < n; i++) {
            char c = v[i];
            unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                       : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                       : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
            if (d == 16)
                return -1;
            x = x << 4 | d;
        }
        if (x == 0)
            return -1;
        *(uint64_t *)field = x;
        return 0;
    }
    case KEY_EVENTS: {
        struct event_spec_list l;
        struct event_spec_problem p;
        if (event_spec_parse(v, n, &l, &p) != EVENT_SPEC_OK) {
            why->expect = p.expect;
            why->at = p.at;
            why->at_len = p.at_len;
            why->item = 1;
            return -1;
        }
        o->nevents = l.n;
        for (unsigned i = 0; i < l.n; i++)
            o->events[i] = l.ev[i];
        return 0;
    }
    }
    return -1;
}

enum boot_status boot_apply_word(struct boot_options *o, const char *word, size_t len,
                                 struct boot_problem *why)
{
    size_t klen = 0;
    while (klen < len && word[klen] != '=')
        klen++;
    *why = (struct boot_problem){BOOT_OK, 0, word, len, 0};
    if (klen == len)
        return why->status = BOOT_NOT_KEY_VALUE;
    const char *v = word + klen + 1;
    size_t n = len - klen - 1;
    for (size_t i = 0; i < NKEYS; i++) {
        const struct boot_key *k = &boot_keys[i];
        if (!same(word, klen, k->name))
            continue;
        why->expect = k->expect;
        why->at = v;
        why->at_len = n;
        if (apply_value(o, k, v, n, why))
            return why->status = BOOT_BAD_VALUE;
        return BOOT_OK;
    }
    return why->status = BOOT_UNKNOWN_KEY;
}

const char *boot_status_text(enum boot_status s)
{
    switch (s) {
    case BOOT_OK: return "is good";
    case BOOT_NOT_KEY_VALUE: return "is not KEY=VALUE";
    case BOOT_UNKNOWN_KEY: return "is not a boot option the monitor knows";
    case BOOT_BAD_VALUE: return "has a bad value";
    }
    return "?";
}

const char *boot_key_name(size_t i)
{
    return i < NKEYS ? boot_keys[i].name : 0;
}

void boot_line_parse(struct boot_options *o, const char *line, boot_warn_fn *warn, void *ctx)
{
    const char *p = line;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            return;
        const char *word = p;
        while (*p && *p != ' ')
            p++;
        size_t len = (size_t)(p - word);
        if (len == 2 && word[0] == '-' && word[1] == '-') {
            while (*p == ' ')
                p++;
            size_t n = 0;
            while (p[n] && n < sizeof o->args - 1)
                n++;
            copy_bytes(o->args, p, n);
            return;
        }
        struct boot_problem why;
        if (boot_apply_word(o, word, len, &why) != BOOT_OK && warn)
            warn(ctx, word, len, &why);
    }
}
