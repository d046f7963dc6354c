/* Composition of the QEMU command line and the boot command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linker/ram-map.h"
#include "util/qemu-cmdline.h"

static struct board board;

static int setup(void **state)
{
    (void)state;
    memset(&board, 0, sizeof board);
    strcpy(board.name, "clipper");
    strcpy(board.qemu, "qemu-system-alpha");
    strcpy(board.machine, "clipper");
    strcpy(board.cpu, "ev67");
    board.ram_mb = RAM_SIZE / (1024 * 1024);
    board.max_cores = 4;
    strcpy(board.firmware, "build/firmware/monitor-clipper.elf");
    strcpy(board.qemu_args, "-display none  -nodefaults");
    strcpy(board.deterministic_args, "-icount shift=0,sleep=off -accel tcg,thread=single");
    strcpy(board.fast_args, "-accel tcg,thread=multi");
    board.timeout_s = 300;
    return 0;
}

static const char *images1[] = {"build/workloads/hello.elf"};

static struct run_config config(void)
{
    return (struct run_config){
        .board = &board, .home = "/repo", .cores = 2, .link = LINK_UNIX,
        .shm_path = "/dev/shm/alphaprof-1-ram", .socket_path = "/tmp/alphaprof-1-link.sock",
        .images = images1, .nimages = 1,
    };
}

/* Index of the word after `opt` (the option's value), or -1. */
static int value_of(const struct strvec *v, const char *opt)
{
    for (size_t i = 0; i + 1 < v->n; i++)
        if (strcmp(v->v[i], opt) == 0)
            return (int)i + 1;
    return -1;
}

static bool contains(const struct strvec *v, const char *word)
{
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->v[i], word) == 0)
            return true;
    return false;
}

static void test_basic_unix(void **state)
{
    (void)state;
    struct run_config c = config();
    struct strvec v = {0};
    struct ap_err err;
    assert_int_equal(qemu_compose(&c, &v, &err), 0);
    assert_string_equal(v.v[0], "qemu-system-alpha");
    assert_null(v.v[v.n]);
    assert_string_equal(v.v[value_of(&v, "-M")], "clipper,memory-backend=ram");
    assert_string_equal(v.v[value_of(&v, "-cpu")], "ev67");
    assert_string_equal(v.v[value_of(&v, "-object")],
                        "memory-backend-file,id=ram,size=256M,share=on,mem-path=/dev/shm/alphaprof-1-ram");
    assert_string_equal(v.v[value_of(&v, "-smp")], "2");
    assert_string_equal(v.v[value_of(&v, "-kernel")], "/repo/build/firmware/monitor-clipper.elf");
    assert_string_equal(v.v[value_of(&v, "-device")], "loader,file=build/workloads/hello.elf");
    assert_string_equal(v.v[value_of(&v, "-append")], "");
    assert_string_equal(v.v[value_of(&v, "-chardev")],
                        "socket,id=link,server=on,wait=on,path=/tmp/alphaprof-1-link.sock");
    assert_string_equal(v.v[value_of(&v, "-serial")], "chardev:link");
    /* board words split on blanks, fast mode by default, no -m, no plugin */
    assert_true(contains(&v, "-display") && contains(&v, "none") && contains(&v, "-nodefaults"));
    assert_string_equal(v.v[value_of(&v, "-accel")], "tcg,thread=multi");
    assert_false(contains(&v, "-icount"));
    assert_false(contains(&v, "-m"));
    assert_false(contains(&v, "-plugin"));
    strvec_free(&v);
}

static void test_deterministic_stdio_plugin(void **state)
{
    (void)state;
    strcpy(board.plugin, "build/hw-model/hw-model.so");
    strcpy(board.plugin_args, "model=ev67");
    struct run_config c = config();
    c.deterministic = true;
    c.link = LINK_STDIO;
    c.cores = 4;
    struct strvec v = {0};
    struct ap_err err;
    assert_int_equal(qemu_compose(&c, &v, &err), 0);
    assert_string_equal(v.v[value_of(&v, "-icount")], "shift=0,sleep=off");
    assert_string_equal(v.v[value_of(&v, "-accel")], "tcg,thread=single");
    assert_string_equal(v.v[value_of(&v, "-serial")], "stdio");
    assert_false(contains(&v, "-chardev"));
    assert_string_equal(v.v[value_of(&v, "-plugin")],
                        "/repo/build/hw-model/hw-model.so,ram=/dev/shm/alphaprof-1-ram,cores=4,model=ev67");
    strvec_free(&v);
}

static void test_several_images_and_escaping(void **state)
{
    (void)state;
    const char *imgs[] = {"a.elf", "dir,with,commas/b.elf"};
    struct run_config c = config();
    c.images = imgs;
    c.nimages = 2;
    struct strvec v = {0};
    struct ap_err err;
    assert_int_equal(qemu_compose(&c, &v, &err), 0);
    int first = value_of(&v, "-device");
    assert_string_equal(v.v[first], "loader,file=a.elf");
    assert_string_equal(v.v[first + 1], "-device");
    assert_string_equal(v.v[first + 2], "loader,file=dir,,with,,commas/b.elf");
    strvec_free(&v);
}

/* The profile link on COM2: a second socket, waited for (record) or not
 * (run --profile-socket: a daemon attaches later). */
static void test_profile_socket(void **state)
{
    (void)state;
    for (int nowait = 0; nowait < 2; nowait++) {
        struct run_config c = config();
        c.profile_socket_path = "/tmp/p,1.sock";
        c.profile_socket_nowait = nowait;
        struct strvec v = {0};
        struct ap_err err;
        assert_int_equal(qemu_compose(&c, &v, &err), 0);
        int link = value_of(&v, "-chardev");
        assert_string_equal(v.v[link], "socket,id=link,server=on,wait=on,path=/tmp/alphaprof-1-link.sock");
        int prof = -1;
        for (size_t i = (size_t)link + 1; i + 1 < v.n; i++)
            if (strcmp(v.v[i], "-chardev") == 0)
                prof = (int)i + 1;
        assert_true(prof > 0);
        assert_string_equal(v.v[prof], nowait ? "socket,id=profile,server=on,wait=off,path=/tmp/p,,1.sock"
                                              : "socket,id=profile,server=on,wait=on,path=/tmp/p,,1.sock");
        /* COM1 is the console, COM2 the profile link: -serial in that order */
        assert_string_equal(v.v[prof + 1], "-serial");
        assert_string_equal(v.v[prof + 2], "chardev:profile");
        strvec_free(&v);
    }
}

static void test_boot_text(void **state)
{
    (void)state;
    const char *keys[] = {"run=hello", "tick_hz=1"};
    const char *args[] = {"echo", "x=1"};
    struct run_config c = config();
    c.keys = keys;
    c.nkeys = 2;
    c.args = args;
    c.nargs = 2;
    char *text;
    struct ap_err err;
    assert_int_equal(cmdline_boot_text(&c, &text, &err), 0);
    assert_string_equal(text, "run=hello tick_hz=1 -- echo x=1");
    free(text);
    c.nkeys = 0;
    assert_int_equal(cmdline_boot_text(&c, &text, &err), 0);
    assert_string_equal(text, "-- echo x=1");
    free(text);
}

/* The boot line carries only words the monitor's own table accepts,
 * unless run --no-check asks to send them anyway (the blanks rule stays:
 * a blank would split the word). */
static void test_boot_text_holds_only_keys_the_monitor_accepts(void **state)
{
    (void)state;
    const char *keys[] = {"tick_hz=abc"};
    struct run_config c = config();
    c.keys = keys;
    c.nkeys = 1;
    char *text = NULL;
    struct ap_err err;
    assert_int_equal(cmdline_boot_text(&c, &text, &err), -1);
    assert_non_null(strstr(err.msg, "boot option 'tick_hz=abc': give a rate in 0..100000"));
    c.unchecked_keys = true;
    assert_int_equal(cmdline_boot_text(&c, &text, &err), 0);
    assert_string_equal(text, "tick_hz=abc");
    free(text);
    keys[0] = "tick_hz=1 2";
    assert_int_equal(cmdline_boot_text(&c, &text, &err), -1);
    assert_non_null(strstr(err.msg, "without blanks"));
}

static void test_boot_text_too_long(void **state)
{
    (void)state;
    char big[CMDLINE_MAX];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    const char *args[] = {big};
    struct run_config c = config();
    c.args = args;
    c.nargs = 1;
    char *text = NULL;
    struct ap_err err;
    assert_int_equal(cmdline_boot_text(&c, &text, &err), -1);
    assert_non_null(strstr(err.msg, "at most 255"));
    struct strvec v = {0};
    assert_int_equal(qemu_compose(&c, &v, &err), -1);
    strvec_free(&v);
    /* exactly the limit minus "-- " fits */
    big[CMDLINE_MAX - 1 - 3] = '\0';
    assert_int_equal(cmdline_boot_text(&c, &text, &err), 0);
    assert_int_equal(strlen(text), CMDLINE_MAX - 1);
    free(text);
}

static void test_keys_and_cores(void **state)
{
    (void)state;
    struct ap_err err;
    assert_int_equal(cmdline_check_key("run=hello", &err), 0);
    assert_int_equal(cmdline_check_key("quiet", &err), -1);
    assert_int_equal(cmdline_check_key("=x", &err), -1);
    assert_int_equal(cmdline_check_key("Run=x", &err), -1);
    assert_int_equal(cmdline_check_key("run=a b", &err), -1);
    assert_non_null(strstr(err.msg, "without blanks"));
    assert_int_equal(cmdline_check_key("no_such_key=1", &err), -1);
    assert_non_null(strstr(err.msg, "no boot option 'no_such_key'"));
    assert_int_equal(cmdline_check_key("period=2000000-3000000", &err), -1);
    assert_int_equal(cmdline_check_key("events=cycles:2000-3000,dmiss", &err), 0);

    struct run_config c = config();
    struct strvec v = {0};
    c.cores = 5;
    assert_int_equal(qemu_compose(&c, &v, &err), -1);
    assert_non_null(strstr(err.msg, "1..4"));
    c.cores = 0;
    assert_int_equal(qemu_compose(&c, &v, &err), -1);
    c.cores = 1;
    c.nimages = 0;
    assert_int_equal(qemu_compose(&c, &v, &err), -1);
    assert_non_null(strstr(err.msg, "no workload image"));
    strvec_free(&v);
}

static void test_strvec_words(void **state)
{
    (void)state;
    struct strvec v = {0};
    strvec_push_words(&v, "  a  bb\tccc \n");
    strvec_push_words(&v, "");
    assert_int_equal(v.n, 3);
    char *j = strvec_join(&v, "|");
    assert_string_equal(j, "a|bb|ccc");
    free(j);
    strvec_free(&v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_basic_unix, setup),
        cmocka_unit_test_setup(test_deterministic_stdio_plugin, setup),
        cmocka_unit_test_setup(test_several_images_and_escaping, setup),
        cmocka_unit_test_setup(test_profile_socket, setup),
        cmocka_unit_test_setup(test_boot_text, setup),
        cmocka_unit_test_setup(test_boot_text_too_long, setup),
        cmocka_unit_test_setup(test_keys_and_cores, setup),
        cmocka_unit_test_setup(test_boot_text_holds_only_keys_the_monitor_accepts, setup),
        cmocka_unit_test(test_strvec_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
