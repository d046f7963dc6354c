/* The monitor's boot-line parser and event-list grammar
 * (firmware/abi/boot-line.c, event-spec.c), pure code tested on the host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "firmware/abi/boot-line.h"
#include "firmware/abi/event-spec.h"

struct warnings {
    int n;
    char last[128];
    enum boot_status status;
};

static void collect(void *ctx, const char *word, size_t len, const struct boot_problem *why)
{
    struct warnings *w = ctx;
    w->n++;
    w->status = why->status;
    snprintf(w->last, sizeof w->last, "%.*s", (int)len, word);
}

static struct boot_options parsed(const char *line, struct warnings *w)
{
    struct boot_options o = BOOT_OPTIONS_DEFAULTS;
    memset(w, 0, sizeof *w);
    boot_line_parse(&o, line, collect, w);
    return o;
}

static void test_defaults_hold_without_keys(void **state)
{
    (void)state;
    struct warnings w;
    struct boot_options o = parsed("", &w);
    assert_int_equal(w.n, 0);
    assert_int_equal(o.period_min, BOOT_DEFAULT_PERIOD_MIN);
    assert_int_equal(o.period_max, BOOT_DEFAULT_PERIOD_MAX);
    assert_int_equal(o.flush_ms, BOOT_DEFAULT_FLUSH_MS);
    assert_int_equal(o.pme_min, BOOT_DEFAULT_PME_MIN);
    assert_int_equal(o.pair_window, BOOT_DEFAULT_PAIR_WINDOW);
    assert_int_equal(o.seed, BOOT_DEFAULT_SEED);
    assert_int_equal(o.nevents, 0);
    assert_string_equal(o.args, "");
}

static void test_every_key_is_read(void **state)
{
    (void)state;
    struct warnings w;
    struct boot_options o = parsed("run=hello tick_hz=1000 report_ticks=1 profile=paired period=2000-3000 "
                                   "baud=115200 flush_ms=50 start=host table=stf6 events=cycles:1000-1100,dmiss "
                                   "pme=100-200 pair_window=16 seed=7 -- echo  a b", &w);
    assert_int_equal(w.n, 0);
    assert_string_equal(o.run, "hello");
    assert_int_equal(o.tick_hz, 1000);
    assert_int_equal(o.report_ticks, 1);
    assert_int_equal(o.profile, LK_MODE_PAIRED);
    assert_int_equal(o.period_min, 2000);
    assert_int_equal(o.period_max, 3000);
    assert_int_equal(o.baud, 115200);
    assert_int_equal(o.flush_ms, 50);
    assert_int_equal(o.start_host, 1);
    assert_int_equal(o.table_policy, 1);
    assert_int_equal(o.nevents, 2);
    assert_int_equal(o.events[0].event, PMU_EV_CYCLES);
    assert_int_equal(o.events[0].period_max, 1100);
    assert_int_equal(o.events[1].event, PMU_EV_DMISS);
    assert_int_equal(o.events[1].period_min, 0);
    assert_int_equal(o.pme_min, 100);
    assert_int_equal(o.pair_window, 16);
    assert_int_equal(o.seed, 7);
    assert_string_equal(o.args, "echo  a b");
}

static void test_value_sampling_keys_and_the_capture_grammar(void **state)
{
    (void)state;
    struct warnings w;
    struct boot_options d = BOOT_OPTIONS_DEFAULTS;
    assert_int_equal(d.value_every, 0);                 /* off unless asked for */
    assert_int_equal(d.value_capture.kinds[VALUE_CLASS_LOAD],
                     1u << VALUE_RESULT | 1u << VALUE_ADDRESS | 1u << VALUE_LATENCY);
    struct boot_options o = parsed("value_every=3 value_length=8 value_skip=0 "
                                   "value_capture=all:none,load:result+tos,branch:ra", &w);
    assert_int_equal(w.n, 0);
    assert_int_equal(o.value_every, 3);
    assert_int_equal(o.value_length, 8);
    assert_int_equal(o.value_skip, 0);
    assert_int_equal(o.value_capture.kinds[VALUE_CLASS_LOAD], 1u << VALUE_RESULT | 1u << VALUE_TOS);
    assert_int_equal(o.value_capture.kinds[VALUE_CLASS_BRANCH], 1u << VALUE_RA);
    assert_int_equal(o.value_capture.kinds[VALUE_CLASS_INT], 0);
    assert_int_equal(o.value_capture.kinds[VALUE_CLASS_STORE], 0);
    /* classes not named keep their defaults */
    o = parsed("value_capture=int:operand_a+operand_b", &w);
    assert_int_equal(o.value_capture.kinds[VALUE_CLASS_INT], 1u << VALUE_OPERAND_A | 1u << VALUE_OPERAND_B);
    assert_int_equal(o.value_capture.kinds[VALUE_CLASS_LOAD], d.value_capture.kinds[VALUE_CLASS_LOAD]);
    assert_string_equal(value_kind_name(VALUE_LATENCY), "latency");
    assert_string_equal(value_class_name(VALUE_CLASS_FP), "fp");
}

static void test_the_last_word_of_a_key_wins(void **state)
{
    (void)state;
    struct warnings w;
    struct boot_options o = parsed("profile=timer profile=off tick_hz=5 tick_hz=6", &w);
    assert_int_equal(o.profile, LK_MODE_OFF);
    assert_int_equal(o.tick_hz, 6);
}

/* Each bad word is reported once and changes nothing. */
static void expect_refused(const char *word, enum boot_status status)
{
    struct warnings w;
    struct boot_options before = BOOT_OPTIONS_DEFAULTS, o = parsed(word, &w);
    assert_int_equal(w.n, 1);
    assert_int_equal(w.status, status);
    assert_string_equal(w.last, word);
    assert_memory_equal(&o, &before, sizeof o);
}

static void test_bad_words_change_nothing(void **state)
{
    (void)state;
    expect_refused("no_such_key=1", BOOT_UNKNOWN_KEY);
    expect_refused("value_length=0", BOOT_BAD_VALUE);
    expect_refused("value_length=65", BOOT_BAD_VALUE);
    expect_refused("value_skip=65", BOOT_BAD_VALUE);
    expect_refused("value_capture=", BOOT_BAD_VALUE);
    expect_refused("value_capture=load", BOOT_BAD_VALUE);
    expect_refused("value_capture=load:colour", BOOT_BAD_VALUE);
    expect_refused("value_capture=cpu:result", BOOT_BAD_VALUE);
    expect_refused("value_capture=load:result,", BOOT_BAD_VALUE);
    expect_refused("value_capture=load:result++tos", BOOT_BAD_VALUE);
    expect_refused("noequals", BOOT_NOT_KEY_VALUE);
    expect_refused("tick_hz=abc", BOOT_BAD_VALUE);
    expect_refused("tick_hz=100001", BOOT_BAD_VALUE);
    expect_refused("tick_hz=", BOOT_BAD_VALUE);
    expect_refused("period=5-1", BOOT_BAD_VALUE);
    expect_refused("period=999-2000", BOOT_BAD_VALUE);
    expect_refused("period=2000000-3000000", BOOT_BAD_VALUE);
    expect_refused("period=5000", BOOT_BAD_VALUE);
    expect_refused("pme=10-20", BOOT_BAD_VALUE);
    expect_refused("pair_window=0", BOOT_BAD_VALUE);
    expect_refused("pair_window=65536", BOOT_BAD_VALUE);
    expect_refused("flush_ms=0", BOOT_BAD_VALUE);
    expect_refused("profile=bogus", BOOT_BAD_VALUE);
    expect_refused("table=rr5", BOOT_BAD_VALUE);
    expect_refused("start=later", BOOT_BAD_VALUE);
    expect_refused("events=", BOOT_BAD_VALUE);
    expect_refused("events=cycles,bogus", BOOT_BAD_VALUE);
    expect_refused("events=cycles:2000000-3000000", BOOT_BAD_VALUE);
    expect_refused("run=a_name_longer_than_thirty_one_chars", BOOT_BAD_VALUE);
    expect_refused("seed=99999999999999999999999", BOOT_BAD_VALUE);
    expect_refused("nonce=0", BOOT_BAD_VALUE);
    expect_refused("nonce=", BOOT_BAD_VALUE);
    expect_refused("nonce=12345678123456789", BOOT_BAD_VALUE);
    expect_refused("nonce=12g4", BOOT_BAD_VALUE);
}

/* nonce=HEX (record's link session): 64 bits, hex, either case. */
static void test_link_nonce_is_64_bit_hex(void **state)
{
    (void)state;
    struct warnings w = {0};
    struct boot_options o = parsed("nonce=fEdCbA9876543210", &w);
    assert_int_equal(w.n, 0);
    assert_true(o.link_nonce == 0xfedcba9876543210ull);
    o = parsed("nonce=1", &w);
    assert_true(o.link_nonce == 1);
}

static void test_limits_are_inclusive(void **state)
{
    (void)state;
    struct warnings w;
    struct boot_options o = parsed("tick_hz=100000 period=1000-1000000 pme=64-64 pair_window=65535 "
                                   "run=exactly_thirty_one_characters12", &w);
    assert_int_equal(w.n, 0);
    assert_int_equal(o.tick_hz, 100000);
    assert_int_equal(o.period_max, 1000000);
    assert_int_equal(o.pme_min, 64);
    assert_int_equal(o.pair_window, 65535);
    assert_int_equal(strlen(o.run), 31);
}

static void test_event_names_come_from_the_one_list(void **state)
{
    (void)state;
    static const char *const names[] = {PMU_EVENT_NAMES};
    assert_int_equal(sizeof names / sizeof names[0], PMU_EV_COUNT);
    for (unsigned e = 0; e < PMU_EV_COUNT; e++) {
        assert_string_equal(pmu_event_name(e), names[e]);
        assert_int_equal(pmu_event_lookup(names[e], strlen(names[e])), (int)e);
    }
    assert_null(pmu_event_name(PMU_EV_COUNT));
    assert_int_equal(pmu_event_lookup("cycle", 5), -1);
    assert_int_equal(pmu_event_lookup("cyclesx", 7), -1);
    assert_int_equal(pmu_event_lookup("cyclesx", 6), PMU_EV_CYCLES);
    assert_non_null(strstr(PMU_EVENT_LIST_TEXT, "cycles retired imiss"));
}

static enum event_spec_error spec(const char *text, struct event_spec_list *l, struct event_spec_problem *p)
{
    return event_spec_parse(text, strlen(text), l, p);
}

static void test_event_lists_parse_whole_or_not_at_all(void **state)
{
    (void)state;
    struct event_spec_list l = {.n = 99};
    struct event_spec_problem p;
    assert_int_equal(spec("retired:1000-2000,l2miss", &l, &p), EVENT_SPEC_OK);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.ev[0].event, PMU_EV_RETIRED);
    assert_int_equal(l.ev[0].period_min, 1000);
    assert_int_equal(l.ev[1].event, PMU_EV_L2MISS);

    l.n = 99;
    assert_int_equal(spec("cycles,nosuch:1000-2000", &l, &p), EVENT_SPEC_NO_EVENT);
    assert_int_equal(l.n, 99);
    assert_int_equal(p.at_len, 6);
    assert_memory_equal(p.at, "nosuch", 6);
    assert_int_equal(spec("", &l, &p), EVENT_SPEC_EMPTY);
    assert_int_equal(spec("cycles,", &l, &p), EVENT_SPEC_EMPTY);
    assert_int_equal(spec(",cycles", &l, &p), EVENT_SPEC_EMPTY);
    assert_int_equal(spec("cycles:", &l, &p), EVENT_SPEC_BAD_PERIOD);
    assert_int_equal(spec("cycles:999-2000", &l, &p), EVENT_SPEC_BAD_PERIOD);
    assert_int_equal(spec("cycles:2000-1999", &l, &p), EVENT_SPEC_BAD_PERIOD);
    assert_int_equal(spec("cycles:1000-1000001", &l, &p), EVENT_SPEC_BAD_PERIOD);
    assert_int_equal(spec("cycles:1000-2000x", &l, &p), EVENT_SPEC_BAD_PERIOD);
    assert_memory_equal(p.at, "cycles:1000-2000x", p.at_len);
    assert_int_equal(spec("cycles,retired,imiss,dmiss,branchmp,loads,stores,branches", &l, &p), EVENT_SPEC_OK);
    assert_int_equal(l.n, EVENT_SPEC_MAX);
    assert_int_equal(spec("cycles,retired,imiss,dmiss,branchmp,loads,stores,branches,l2miss", &l, &p),
                     EVENT_SPEC_TOO_MANY);
    assert_memory_equal(p.at, "l2miss", p.at_len);
}

static void test_ranges_and_numbers(void **state)
{
    (void)state;
    uint64_t lo, hi, v;
    assert_int_equal(grammar_range("1-2", 3, 1, 10, &lo, &hi), 0);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 2);
    assert_int_equal(grammar_range("1-2", 1, 1, 10, &lo, &hi), -1);     /* only "1" */
    assert_int_equal(grammar_range("-2", 2, 0, 10, &lo, &hi), -1);
    assert_int_equal(grammar_range("1-", 2, 0, 10, &lo, &hi), -1);
    assert_int_equal(grammar_range("1-2-3", 5, 0, 10, &lo, &hi), -1);
    assert_int_equal(grammar_uint("18446744073709551616", 20, UINT64_MAX, &v), -1);
    assert_int_equal(grammar_uint("+1", 2, 10, &v), -1);
    assert_int_equal(grammar_uint("10", 2, 10, &v), 0);
    assert_int_equal(grammar_uint("11", 2, 10, &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_hold_without_keys),
        cmocka_unit_test(test_every_key_is_read),
        cmocka_unit_test(test_value_sampling_keys_and_the_capture_grammar),
        cmocka_unit_test(test_the_last_word_of_a_key_wins),
        cmocka_unit_test(test_bad_words_change_nothing),
        cmocka_unit_test(test_link_nonce_is_64_bit_hex),
        cmocka_unit_test(test_limits_are_inclusive),
        cmocka_unit_test(test_event_names_come_from_the_one_list),
        cmocka_unit_test(test_event_lists_parse_whole_or_not_at_all),
        cmocka_unit_test(test_ranges_and_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
