/* The options engine (util/options.c): tables in, values or one-line
 * errors out, and the generated --help. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "util/option-groups.h"
#include "util/options.h"

static const char *const colours[] = {"red", "green", "blue", NULL};

struct values {
    bool flag, check;
    const char *name;
    unsigned count, limit;
    double level;
    int colour;
    struct strvec list, operands, rest;
    int64_t epoch;
};

static int even_only(void *value, const char *arg, char *why, size_t n)
{
    unsigned u;
    if (!parse_unsigned(arg, &u) || u % 2) {
        snprintf(why, n, "give an even number");
        return -1;
    }
    *(unsigned *)value = u;
    return 0;
}

static unsigned even;

#define TABLE(v)                                                                                   \
    {                                                                                              \
        OPT_BOOLEAN('f', "flag", &(v)->flag, "a flag"),                                            \
        OPT_CLEAR(0, "no-check", &(v)->check, "clears check"),                                     \
        OPT_STRING('n', "name", &(v)->name, "NAME", "a name\nover two lines"),                     \
        OPT_UINT(0, "count", &(v)->count, "N", 2, 9, "a count"),                                   \
        OPT_UINT(0, "limit", &(v)->limit, "N", 0, UINT_MAX, "a limit as large as numbers go"),      \
        OPT_DOUBLE(0, "level", &(v)->level, "X", 0, 1, OPT_ABOVE_MIN, "a level"),                  \
        OPT_GROUP("more"),                                                                         \
        OPT_CHOICE(0, "colour", &(v)->colour, colours, "C", "a colour"),                           \
        OPT_LIST(0, "item", &(v)->list, "I", "repeatable"),                                        \
        OPT_CALLBACK(0, "even", &even, "N", "an even number", even_only),                          \
        OPT_CALLBACK(0, "epoch", &(v)->epoch, "N|all", "an epoch", opt_epoch),                     \
        OPT_END(),                                                                                 \
    }

/* Runs opt_parse on words with stderr captured into err. */
static enum opt_result parse(struct values *v, const char *const *words, char *err, size_t errlen,
                             bool operands, bool rest)
{
    const struct option options[] = TABLE(v);
    struct opt_command c = {.name = "test", .synopsis = "[options]"};
    char *argv[32];
    int argc = 0;
    argv[argc++] = "test";
    for (; *words; words++)
        argv[argc++] = (char *)*words;
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    enum opt_result r = opt_parse(&c, options, argc, argv, operands ? &v->operands : NULL, rest ? &v->rest : NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(err, 1, errlen - 1, tmp);
    err[n] = '\0';
    fclose(tmp);
    return r;
}

static void free_values(struct values *v)
{
    strvec_free(&v->list);
    strvec_free(&v->operands);
    strvec_free(&v->rest);
}

static void expect_error(const char *const *words, const char *needle)
{
    struct values v = {0};
    char err[512];
    assert_int_equal(parse(&v, words, err, sizeof err, false, false), OPT_BAD);
    assert_non_null(strstr(err, needle));
    /* one line, naming the command and the way to its help */
    assert_non_null(strstr(err, "alphaprof test: "));
    assert_non_null(strstr(err, "; see 'alphaprof test --help'\n"));
    assert_ptr_equal(strchr(err, '\n'), err + strlen(err) - 1);
    free_values(&v);
}

static void test_values_of_every_kind_are_stored(void **state)
{
    (void)state;
    struct values v = {.check = true, .colour = -1};
    char err[256];
    const char *words[] = {"-f", "--no-check", "--name=x", "--count", "9", "--level", "0.5", "--colour", "blue",
                           "--item", "a", "--item=b", "--even", "4", "--epoch", "all", "op", "-", NULL};
    assert_int_equal(parse(&v, words, err, sizeof err, true, false), OPT_PARSED);
    assert_true(v.flag);
    assert_false(v.check);
    assert_string_equal(v.name, "x");
    assert_int_equal(v.count, 9);
    assert_true(v.level == 0.5);
    assert_int_equal(v.colour, 2);
    assert_int_equal(v.list.n, 2);
    assert_string_equal(v.list.v[1], "b");
    assert_int_equal(even, 4);
    assert_int_equal(v.epoch, -1);
    assert_int_equal(v.operands.n, 2);
    assert_string_equal(v.operands.v[1], "-");
    assert_string_equal(err, "");
    free_values(&v);
}

static void test_short_option_values_attach_or_follow(void **state)
{
    (void)state;
    struct values v = {0};
    char err[256];
    const char *words[] = {"-nfoo", NULL};
    assert_int_equal(parse(&v, words, err, sizeof err, false, false), OPT_PARSED);
    assert_string_equal(v.name, "foo");
    const char *words2[] = {"-n", "bar", NULL};
    assert_int_equal(parse(&v, words2, err, sizeof err, false, false), OPT_PARSED);
    assert_string_equal(v.name, "bar");
    free_values(&v);
}

static void test_double_dash_ends_the_options(void **state)
{
    (void)state;
    struct values v = {0};
    char err[256];
    const char *words[] = {"img", "--", "--flag", "x", NULL};
    assert_int_equal(parse(&v, words, err, sizeof err, true, true), OPT_PARSED);
    assert_false(v.flag);
    assert_int_equal(v.operands.n, 1);
    assert_int_equal(v.rest.n, 2);
    assert_string_equal(v.rest.v[0], "--flag");
    free_values(&v);
}

static void test_every_bad_command_line_is_one_line(void **state)
{
    (void)state;
    expect_error((const char *[]){"--nosuch", NULL}, "unknown option '--nosuch'");
    expect_error((const char *[]){"--nosuch=3", NULL}, "unknown option '--nosuch'");
    expect_error((const char *[]){"-z", NULL}, "unknown option '-z'");
    expect_error((const char *[]){"--name", NULL}, "--name needs a value (NAME)");
    expect_error((const char *[]){"--flag=1", NULL}, "--flag takes no value");
    expect_error((const char *[]){"--count", "1", NULL}, "--count '1': give a whole number in 2..9");
    expect_error((const char *[]){"--count", "x", NULL}, "--count 'x': give a whole number in 2..9");
    expect_error((const char *[]){"--count", "-3", NULL}, "--count '-3'");
    /* past OPT_NUMBER_MAX: the range said whole (it said ">= 0" of 99999999999) */
    expect_error((const char *[]){"--limit", "99999999999", NULL}, "--limit '99999999999': give a whole number in "
                                                                   "0..1000000");
    expect_error((const char *[]){"--level", "0", NULL}, "--level '0': give a number > 0 and <= 1");
    expect_error((const char *[]){"--level", "nan", NULL}, "--level 'nan'");
    expect_error((const char *[]){"--colour", "pink", NULL}, "--colour 'pink': use red, green or blue");
    expect_error((const char *[]){"--even", "3", NULL}, "--even '3': give an even number");
    expect_error((const char *[]){"--epoch", "0", NULL}, "--epoch '0': give an epoch number or all");
    expect_error((const char *[]){"stray", NULL}, "unexpected argument 'stray'");
    expect_error((const char *[]){"--", "stray", NULL}, "unexpected argument 'stray'");
}

static void test_help_is_generated_from_the_table(void **state)
{
    (void)state;
    struct values v = {0};
    const struct option options[] = TABLE(&v);
    struct opt_command c = {.name = "test", .synopsis = "[options] FILE", .about = "About.",
                            .epilog = "Exit status: 0."};
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    opt_print_help(&c, options, f);
    fclose(f);
    assert_non_null(strstr(buf, "usage: alphaprof test [options] FILE\n\nAbout.\n"));
    assert_non_null(strstr(buf, "  -f, --flag         a flag\n"));
    assert_non_null(strstr(buf, "  -n, --name NAME    a name\n                     over two lines\n"));
    assert_non_null(strstr(buf, "\nmore:\n  --colour C"));
    assert_non_null(strstr(buf, "  -h, --help         this text\n"));
    assert_non_null(strstr(buf, "\nExit status: 0.\n"));
}

static void test_help_wins_and_asks_for_exit_zero(void **state)
{
    (void)state;
    struct values v = {0};
    char err[256];
    int out = dup(1), devnull = open("/dev/null", 1);
    fflush(stdout);
    dup2(devnull, 1);
    enum opt_result r = parse(&v, (const char *[]){"--count", "5", "--help", "--nosuch", NULL}, err, sizeof err,
                              false, false);
    enum opt_result r2 = parse(&v, (const char *[]){"-h", NULL}, err, sizeof err, false, false);
    fflush(stdout);
    dup2(out, 1);
    close(out);
    close(devnull);
    assert_int_equal(r, OPT_HELP_SHOWN);
    assert_int_equal(r2, OPT_HELP_SHOWN);
    assert_int_equal(opt_exit(r), 0);
    assert_int_equal(opt_exit(OPT_BAD), 2);
    free_values(&v);
}

static void test_one_default_database_rule(void **state)
{
    (void)state;
    struct profile_opts po = PROFILE_OPTS_INIT;
    unsetenv("ALPHAPROF_DB");
    assert_string_equal(profile_opts_db(&po), "alphaprof.db");
    setenv("ALPHAPROF_DB", "/tmp/env.db", 1);
    assert_string_equal(profile_opts_db(&po), "/tmp/env.db");
    po.db = "given.db";
    assert_string_equal(profile_opts_db(&po), "given.db");
    unsetenv("ALPHAPROF_DB");
}

static void test_board_keys_are_checked_with_the_monitors_table(void **state)
{
    (void)state;
    struct boot_options boot = BOOT_OPTIONS_DEFAULTS;
    const char *period_text = NULL, *events_text = NULL;
    struct boot_key_opt period = {"period", &boot, &period_text}, events = {"events", &boot, &events_text};
    char why[256];
    assert_int_equal(opt_boot_key(&period, "2000-3000", why, sizeof why), 0);
    assert_int_equal(boot.period_min, 2000);
    assert_string_equal(period_text, "2000-3000");
    assert_int_equal(opt_boot_key(&period, "2000000-3000000", why, sizeof why), -1);
    assert_non_null(strstr(why, "1000 <= MIN <= MAX <= 1000000"));
    assert_int_equal(boot.period_min, 2000);
    assert_int_equal(opt_boot_key(&events, "cycles,nosuch", why, sizeof why), -1);
    assert_non_null(strstr(why, "no event 'nosuch'"));
    assert_int_equal(opt_boot_key(&events, "", why, sizeof why), -1);
    assert_non_null(strstr(why, "an empty list"));
    assert_null(events_text);
    assert_int_equal(opt_boot_key(&events, "cycles:5000-6000,dmiss", why, sizeof why), 0);
    assert_int_equal(boot.nevents, 2);
    assert_int_equal(boot.events[1].event, PMU_EV_DMISS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_of_every_kind_are_stored),
        cmocka_unit_test(test_short_option_values_attach_or_follow),
        cmocka_unit_test(test_double_dash_ends_the_options),
        cmocka_unit_test(test_every_bad_command_line_is_one_line),
        cmocka_unit_test(test_help_is_generated_from_the_table),
        cmocka_unit_test(test_help_wins_and_asks_for_exit_zero),
        cmocka_unit_test(test_one_default_database_rule),
        cmocka_unit_test(test_board_keys_are_checked_with_the_monitors_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
