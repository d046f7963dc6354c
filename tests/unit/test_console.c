/* Reading the monitor's console lines, the output filters, and how a run's
 * end becomes the launcher's exit status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "util/console.h"
#include "util/qemu-launch.h"
#include "util/serial-link.h"

static void test_exit_line(void **state)
{
    (void)state;
    struct console_line l;
    console_parse_line("monitor: hello exited with status 0", &l);
    assert_int_equal(l.kind, CONSOLE_EXIT);
    assert_string_equal(l.name, "hello");
    assert_int_equal(l.value, 0);
    console_parse_line("monitor: qsort exited with status 42\r", &l);
    assert_int_equal(l.kind, CONSOLE_EXIT);
    assert_int_equal(l.value, 42);
    console_parse_line("monitor: x exited with status -3", &l);
    assert_int_equal(l.kind, CONSOLE_EXIT);
    assert_int_equal(l.value, -3);
    /* not exit lines: other prefix, two-word name, trailing junk, no number */
    const char *bad[] = {
        "hello exited with status 0",
        " monitor: hello exited with status 0",
        "monitor: a b exited with status 1",
        "monitor: hello exited with status 1x",
        "monitor: hello exited with status ",
        "monitor:  exited with status 1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        console_parse_line(bad[i], &l);
        if (l.kind == CONSOLE_EXIT)
            fail_msg("taken as exit line: '%s'", bad[i]);
    }
}

static void test_other_lines(void **state)
{
    (void)state;
    struct console_line l;
    console_parse_line("monitor: FATAL entMM on core 0 in trap: pc=0x0000000001000abc va=0x0 mmcsr=0 cause=0", &l);
    assert_int_equal(l.kind, CONSOLE_FATAL);
    console_parse_line("monitor: FATALITY", &l);
    assert_int_equal(l.kind, CONSOLE_OTHER);
    console_parse_line("monitor: core 3 online", &l);
    assert_int_equal(l.kind, CONSOLE_CORE_ONLINE);
    assert_int_equal(l.value, 3);
    console_parse_line("monitor: core x online", &l);
    assert_int_equal(l.kind, CONSOLE_OTHER);
    console_parse_line("monitor: running hello on 4 cores", &l);
    assert_int_equal(l.kind, CONSOLE_RUNNING);
    assert_string_equal(l.name, "hello");
    assert_int_equal(l.value, 4);
    console_parse_line("PCI: 00:01:0 class 0101", &l);
    assert_int_equal(l.kind, CONSOLE_OTHER);
}

static void test_feed_in_pieces(void **state)
{
    (void)state;
    static const char text[] =
        "PCI: x\r\nmonitor: core 0 online\r\nmonitor: core 1 online\r\n"
        "monitor: running hello on 2 cores\r\nhello, world\r\n"
        "monitor: hello exited with status 7\r\nmonitor: other exited with status 9\r\n";
    /* every split point must give the same result */
    for (size_t cut = 0; cut < sizeof text - 1; cut += 3) {
        struct console_state c;
        console_init(&c);
        console_feed(&c, text, cut);
        console_feed(&c, text + cut, sizeof text - 1 - cut);
        console_finish(&c);
        assert_true(c.exit_seen);
        assert_int_equal(c.exit_status, 7);
        assert_string_equal(c.exit_name, "hello");
        assert_int_equal(c.cores_online, 2);
        assert_true(c.running_seen);
        assert_false(c.fatal_seen);
    }
    struct console_state c;
    console_init(&c);
    const char *t = "monitor: FATAL image at 0x1000000 is corrupt: payload crc ; rebuild";
    console_feed(&c, t, strlen(t));
    assert_false(c.fatal_seen);     /* no newline yet */
    console_finish(&c);
    assert_true(c.fatal_seen);
    assert_string_equal(c.fatal_line, t);
}

static void test_long_line_is_cut(void **state)
{
    (void)state;
    struct console_state c;
    console_init(&c);
    char big[CONSOLE_LINE_MAX * 3];
    memset(big, 'x', sizeof big);
    console_feed(&c, big, sizeof big);
    const char *t = "\nmonitor: a exited with status 1\n";
    console_feed(&c, t, strlen(t));
    assert_true(c.exit_seen);
    assert_int_equal(c.exit_status, 1);
}

static void test_clamp(void **state)
{
    (void)state;
    assert_int_equal(console_clamp_status(0), 0);
    assert_int_equal(console_clamp_status(1), 1);
    assert_int_equal(console_clamp_status(255), 255);
    assert_int_equal(console_clamp_status(256), 255);
    assert_int_equal(console_clamp_status(-1), 255);
    assert_int_equal(console_clamp_status(100000), 255);
}

static void test_crlf_and_boot_filters(void **state)
{
    (void)state;
    struct crlf_filter f = {0};
    char out[64];
    size_t n = crlf_filter(&f, "a\r\nb\r", 5, out);
    assert_int_equal(n, 3);
    assert_memory_equal(out, "a\nb", 3);
    n = crlf_filter(&f, "\nc\rd", 4, out);      /* \r\n split across reads */
    assert_int_equal(n, 4);
    assert_memory_equal(out, "\nc\rd", 4);
    assert_int_equal(crlf_flush(&f, out), 0);

    struct boot_filter b = {0};
    char o2[512];
    const char *in1 = "PCI: 00:01:0 class\nPCI:   regi";
    n = boot_filter(&b, in1, strlen(in1), o2);
    assert_int_equal(n, 0);
    const char *in2 = "on 0\nmonitor: core 0 online\nPCI: later\n";
    n = boot_filter(&b, in2, strlen(in2), o2);
    assert_int_equal(n, strlen("monitor: core 0 online\nPCI: later\n"));
    assert_memory_equal(o2, "monitor: core 0 online\nPCI: later\n", n);

    struct notice_filter nf = {0};
    const char *qe = "qemu-system-alpha: -chardev x: info: QEMU waiting for connection on: disconnected\nreal error\n";
    n = notice_filter(&nf, qe, strlen(qe), o2);
    assert_int_equal(n, strlen("real error\n"));
    assert_memory_equal(o2, "real error\n", n);
}

static struct launch_result result(void)
{
    struct launch_result r;
    memset(&r, 0, sizeof r);
    console_init(&r.console);
    r.reaped = true;
    return r;
}

static void test_outcome(void **state)
{
    (void)state;
    char msg[512];
    struct launch_result r = result();
    r.exec_failed = true;
    r.exec_errno = ENOENT;
    assert_int_equal(launch_outcome(&r, "qemu-system-alpha", 10, msg, sizeof msg), 127);
    assert_string_equal(msg, "qemu-system-alpha not found; run make setup (installs qemu-system-misc)");

    r = result();
    r.timed_out = true;
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 124);
    assert_non_null(strstr(msg, "timed out after 7 s"));

    r = result();
    r.console.exit_seen = true;
    r.console.exit_status = 3;
    r.wait_status = 1 << 8;       /* QEMU exit 1 via pvpanic */
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 3);
    assert_string_equal(msg, "");

    r.console.exit_status = 0;
    r.wait_status = 0;
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 0);

    r.console.exit_status = 1000;
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 255);

    r = result();
    r.console.fatal_seen = true;
    strcpy(r.console.fatal_line, "monitor: FATAL entMM");
    r.wait_status = 1 << 8;
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 1);
    assert_non_null(strstr(msg, "FATAL entMM"));

    r = result();
    r.wait_status = SIGSEGV;       /* WIFSIGNALED */
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 125);
    assert_non_null(strstr(msg, "signal"));

    r = result();
    r.wait_status = 1 << 8;
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 125);
    assert_non_null(strstr(msg, "without a result"));

    r = result();
    r.stopped_by = SIGINT;
    assert_int_equal(launch_outcome(&r, "q", 7, msg, sizeof msg), 128 + SIGINT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_line),
        cmocka_unit_test(test_other_lines),
        cmocka_unit_test(test_feed_in_pieces),
        cmocka_unit_test(test_long_line_is_cut),
        cmocka_unit_test(test_clamp),
        cmocka_unit_test(test_crlf_and_boot_filters),
        cmocka_unit_test(test_outcome),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
