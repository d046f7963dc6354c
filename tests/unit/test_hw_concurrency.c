/*
 * The exact paired-metrics truth (hw-model/model/concurrency.h) on
 * hand-made traces: the others issued while each instruction was in
 * progress, younger ones issuing before older ones included, counted once
 * its range is final or at the end of the run, summed per counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "hw-model/model/concurrency.h"

static void test_others_issued_in_fetch_to_retire_ready_are_counted(void **state)
{
    (void)state;
    struct concurrency *c = malloc(sizeof *c);
    conc_init(c);
    uint64_t u[4] = {0, 0, 0, 0};
    /* (fetch, issue, retire ready): I3 (younger) issues before I2 */
    conc_note(c, 0, 2, 3, &u[0]);
    conc_note(c, 0, 5, 6, &u[1]);
    conc_note(c, 1, 3, 4, &u[2]);
    assert_int_equal(u[0] + u[1] + u[2], 0);    /* nothing final yet: a later one may issue at 2 */
    conc_note(c, 10, 12, 13, &u[3]);
    /* I1 [0, 3]: I3 at 3; I2 [0, 6]: I1 at 2, I3 at 3; I3 [1, 4]: I1 at 2 */
    assert_int_equal(u[0], 1);
    assert_int_equal(u[1], 2);
    assert_int_equal(u[2], 1);
    assert_int_equal(u[3], 0);                  /* waits for the end */
    conc_note(c, 11, 11, 12, &u[3]);            /* the same PC again: issues inside the other's range */
    conc_flush(c);
    /* I4 [10, 13]: I5 at 11; I5 [11, 12]: I4 at 12 */
    assert_int_equal(u[3], 2);
    assert_int_equal(c->clipped, 0);
    free(c);
}

static void test_ranges_far_apart_leave_no_issue_behind(void **state)
{
    (void)state;
    struct concurrency *c = malloc(sizeof *c);
    conc_init(c);
    uint64_t u = 0, v = 0;
    /* 100000 instructions, one a cycle, each in progress 3 cycles:
     * [k, k + 2] holds the issues of k - 1 .. k + 1 (issue = fetch + 1) */
    for (uint64_t k = 0; k < 100000; k++)
        conc_note(c, k, k + 1, k + 2, k == 50000 ? &v : &u);
    conc_flush(c);
    assert_int_equal(v, 2);
    assert_int_equal(u, 2 * 99999 - 2);     /* the first and the last see one other */
    assert_int_equal(c->clipped, 0);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_others_issued_in_fetch_to_retire_ready_are_counted),
        cmocka_unit_test(test_ranges_far_apart_leave_no_issue_behind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
