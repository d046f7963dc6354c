/*
 * firmware/abi/counter-names.def: the drop reasons and stats the firmware
 * sends and the host stores, named once.  The names are the keys of
 * existing databases and the numbers the wire format: these tests pin the
 * list's invariants (unique names, numbers below 32, lookups agree).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "firmware/abi/link-codec.h"

static const char *const all_names[] = {
#define LK_DROP(id, number, name, what) name,
#define LK_STAT(id, number, name) name,
#define HOST_DROP(id, name, what) name,
#define HOST_STAT(id, name) name,
#define VALUE_STAT(id, name) name,
#define VALUE_DROP(id, name, what) name,
#include "firmware/abi/counter-names.def"
};

static void test_every_name_is_unique_across_drops_and_stats(void **state)
{
    (void)state;
    size_t n = sizeof all_names / sizeof all_names[0];
    assert_true(n > 20);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(all_names[i], all_names[j]) == 0)
                fail_msg("%s appears twice", all_names[i]);
}

static void test_wire_numbers_fit_the_per_id_tables_and_name_back(void **state)
{
    (void)state;
#define LK_DROP(id, number, name, what)                                                    \
    assert_true(number > 0 && number < 32);                                            \
    assert_int_equal(LK_DROP_##id, number);                                            \
    assert_string_equal(lk_drop_name(number), name);
#define LK_STAT(id, number, name)                                                      \
    assert_true(number > 0 && number < 32);                                            \
    assert_int_equal(LK_STAT_##id, number);                                            \
    assert_string_equal(lk_stat_name(number), name);
#define HOST_DROP(id, name, what) assert_string_equal(lk_host_drop_name(LK_HOST_DROP_##id), name);
#define HOST_STAT(id, name) assert_string_equal(lk_host_stat_name(LK_HOST_STAT_##id), name);
#include "firmware/abi/counter-names.def"
    assert_string_equal(lk_drop_name(0), "unknown");
    assert_string_equal(lk_stat_name(31), "unknown");
}

static void test_names_of_existing_databases_keep_their_spelling(void **state)
{
    (void)state;
    assert_string_equal(lk_drop_name(LK_DROP_OVERFLOW_FULL), "overflow_full");
    assert_string_equal(lk_stat_name(LK_STAT_CTRL_BAD), "control_bad");
    assert_string_equal(lk_host_drop_name(LK_HOST_DROP_LINK_BAD_FRAMES), "link_bad_frames");
    assert_string_equal(lk_host_drop_name(LK_HOST_DROP_LINK_MALFORMED), "link_malformed_frames");
    assert_string_equal(lk_host_stat_name(LK_HOST_STAT_LINK_BYTES_BAD), "link_bytes_bad");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_name_is_unique_across_drops_and_stats),
        cmocka_unit_test(test_wire_numbers_fit_the_per_id_tables_and_name_back),
        cmocka_unit_test(test_names_of_existing_databases_keep_their_spelling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
