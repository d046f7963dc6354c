/* The profile error metric on distributions with known answers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util/accuracy.h"

static void test_identical_and_disjoint(void **state)
{
    (void)state;
    struct keyed_count a[] = {{4, 10}, {8, 30}, {12, 60}};
    struct keyed_count scaled[] = {{4, 1}, {8, 3}, {12, 6}};     /* same shares */
    struct keyed_count other[] = {{16, 5}, {20, 5}};
    assert_float_equal(distribution_error(a, 3, scaled, 3), 0.0, 1e-12);
    assert_float_equal(distribution_error(a, 3, other, 2), 1.0, 1e-12);
}

static void test_known_shift(void **state)
{
    (void)state;
    /* 10% of the cycles moved from one instruction to the next: error 0.1 */
    struct keyed_count truth[] = {{0x100, 50}, {0x104, 50}};
    struct keyed_count profile[] = {{0x100, 40}, {0x104, 60}};
    assert_float_equal(distribution_error(profile, 2, truth, 2), 0.1, 1e-12);
    /* an instruction only the profile has (skid onto a neighbour) */
    struct keyed_count skid[] = {{0x100, 50}, {0x104, 25}, {0x108, 25}};
    assert_float_equal(distribution_error(skid, 3, truth, 2), 0.25, 1e-12);
}

static void test_normalise_merges(void **state)
{
    (void)state;
    struct keyed_count v[] = {{8, 1}, {4, 2}, {8, 3}, {4, 4}};
    size_t n = keyed_normalise(v, 4);
    assert_int_equal(n, 2);
    assert_int_equal(v[0].key, 4);
    assert_float_equal(v[0].count, 6, 1e-12);
    assert_float_equal(v[1].count, 4, 1e-12);
    assert_float_equal(distribution_error(NULL, 0, NULL, 0), 0.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_and_disjoint),
        cmocka_unit_test(test_known_shift),
        cmocka_unit_test(test_normalise_merges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
