/* board.conf parsing: the shipped board, and each kind of bad file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/board.h"

static const char good[] =
    "# comment\n"
    "description = test board\n"
    "qemu = qemu-system-alpha\n"
    "machine = clipper\n"
    "cpu = ev67\n"
    "ram_mb = 256\n"
    "max_cores = 4\n"
    "firmware = build/firmware/monitor-clipper.elf\n"
    "  qemu_args   =   -display none -monitor none  \n"
    "deterministic_args = -icount shift=0\n"
    "fast_args =\n"
    "plugin =\n"
    "timeout_s = 300\n";

static char path[64];

static int write_conf(const char *text)
{
    strcpy(path, "/tmp/platform-unit-board-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Parses text with one line replaced (or removed: repl "") and returns rc. */
static int parse_variant(const char *line_start, const char *repl, struct ap_err *err)
{
    char text[4096];
    const char *at = strstr(good, line_start);
    assert_non_null(at);
    const char *eol = strchr(at, '\n') + 1;
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, repl, eol);
    assert_int_equal(write_conf(text), 0);
    struct board b;
    int rc = board_parse(path, &b, err);
    unlink(path);
    return rc;
}

static void test_shipped_clipper(void **state)
{
    (void)state;
    struct board b;
    struct ap_err err = {{0}};
    int rc = board_load(".", "clipper", &b, &err);
    if (rc)
        fail_msg("boards/clipper/board.conf: %s", err.msg);
    assert_string_equal(b.machine, "clipper");
    assert_string_equal(b.cpu, "ev67");
    assert_int_equal(b.ram_mb, 256);
    assert_true(b.max_cores >= 1 && b.max_cores <= 4);
    assert_true(strstr(b.deterministic_args, "icount") != NULL);
}

static void test_good_file(void **state)
{
    (void)state;
    assert_int_equal(write_conf(good), 0);
    struct board b;
    struct ap_err err;
    int rc = board_parse(path, &b, &err);
    unlink(path);
    assert_int_equal(rc, 0);
    assert_string_equal(b.description, "test board");
    assert_string_equal(b.qemu_args, "-display none -monitor none");
    assert_string_equal(b.fast_args, "");
    assert_string_equal(b.plugin, "");
    assert_int_equal(b.max_cores, 4);
    assert_int_equal(b.timeout_s, 300);
}

static void expect_error(const char *line_start, const char *repl, const char *lineno,
                         const char *what)
{
    struct ap_err err;
    assert_int_equal(parse_variant(line_start, repl, &err), -1);
    char where[96];
    snprintf(where, sizeof where, "%s:%s", path, lineno);
    if (!strstr(err.msg, where) || !strstr(err.msg, what))
        fail_msg("expected '%s' and '%s' in: %s", where, what, err.msg);
}

static void test_unknown_key(void **state)
{
    (void)state;
    expect_error("cpu =", "cpus = ev67\n", "5:", "unknown key 'cpus'");
}

static void test_bad_number(void **state)
{
    (void)state;
    expect_error("max_cores", "max_cores = four\n", "7:", "not a decimal number");
    expect_error("max_cores", "max_cores = 4x\n", "7:", "not a decimal number");
    expect_error("max_cores", "max_cores = -1\n", "7:", "not a decimal number");
    expect_error("timeout_s", "timeout_s = 99999999999999\n", "13:", "not a decimal number");
}

static void test_out_of_range(void **state)
{
    (void)state;
    expect_error("max_cores", "max_cores = 9\n", "7:", "out of range");
    expect_error("timeout_s", "timeout_s = 0\n", "13:", "out of range");
}

static void test_ram_mismatch(void **state)
{
    (void)state;
    expect_error("ram_mb", "ram_mb = 128\n", "6:", "RAM_SIZE");
}

static void test_missing_key(void **state)
{
    (void)state;
    struct ap_err err;
    assert_int_equal(parse_variant("machine =", "", &err), -1);
    assert_non_null(strstr(err.msg, "required key 'machine' is missing"));
    assert_non_null(strstr(err.msg, path));
}

static void test_duplicate_and_syntax(void **state)
{
    (void)state;
    expect_error("plugin =", "cpu = ev6\n", "12:", "repeated");
    expect_error("plugin =", "just words\n", "12:", "expected 'key = value'");
    expect_error("cpu =", "cpu =   \n", "5:", "must not be empty");
}

static void test_missing_file_and_board_names(void **state)
{
    (void)state;
    struct board b;
    struct ap_err err;
    assert_int_equal(board_parse("/nonexistent/board.conf", &b, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/board.conf"));
    assert_int_equal(board_load(".", "../etc", &b, &err), -1);
    assert_non_null(strstr(err.msg, "letters, digits"));
    assert_int_equal(board_load(".", "no-such-board", &b, &err), -1);
    assert_non_null(strstr(err.msg, "unknown board 'no-such-board'"));
}

static void test_home_from_env(void **state)
{
    (void)state;
    char home[4096];
    struct ap_err err;
    setenv("ALPHAPROF_HOME", ".", 1);
    assert_int_equal(alphaprof_home(home, sizeof home, &err), 0);
    assert_string_equal(home, ".");
    setenv("ALPHAPROF_HOME", "/nonexistent-dir", 1);
    assert_int_equal(alphaprof_home(home, sizeof home, &err), -1);
    assert_non_null(strstr(err.msg, "no boards/"));
    unsetenv("ALPHAPROF_HOME");
    char out[64];
    board_resolve("/r", "build/x", out, sizeof out);
    assert_string_equal(out, "/r/build/x");
    board_resolve("/r", "/abs/y", out, sizeof out);
    assert_string_equal(out, "/abs/y");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_clipper),
        cmocka_unit_test(test_good_file),
        cmocka_unit_test(test_unknown_key),
        cmocka_unit_test(test_bad_number),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_ram_mismatch),
        cmocka_unit_test(test_missing_key),
        cmocka_unit_test(test_duplicate_and_syntax),
        cmocka_unit_test(test_missing_file_and_board_names),
        cmocka_unit_test(test_home_from_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
