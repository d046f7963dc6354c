/*
 * util/compare-rank: the rankings `diff` and `stats` print, on hand-made
 * comparison tables (answers by hand in the comments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/compare-rank.h"

static struct cmp_row row(const char *proc, uint64_t *counts)
{
    return (struct cmp_row){.image = "img", .proc = (char *)proc, .count = counts};
}

/* A: 500/300/200 of 1000; B: 500/500/0 of 1000.  "hot" holds its share
 * (delta 0), "grew" gains 0.2, "gone" loses 0.2: the two changes tie on
 * |delta|, and "grew" has more samples, so it comes first.  Both are far
 * beyond noise at these counts, "hot" is not. */
static void test_diff_ranks_by_change_with_holm(void **state)
{
    (void)state;
    uint64_t c_hot[2] = {500, 500}, c_grew[2] = {300, 500}, c_gone[2] = {200, 0};
    struct cmp_row rows[3] = {row("hot", c_hot), row("grew", c_grew), row("gone", c_gone)};
    uint64_t total[2] = {1000, 1000};
    struct cmp_table t = {.level = CMP_PROCS, .nsets = 2, .total = total, .rows = rows, .nrows = 3};
    struct diff_rank *r = rank_diff(&t, false);
    assert_string_equal(r[0].row->proc, "grew");
    assert_string_equal(r[1].row->proc, "gone");
    assert_string_equal(r[2].row->proc, "hot");
    assert_true(fabs(r[0].test.delta - 0.2) < 1e-12 && fabs(r[1].test.delta + 0.2) < 1e-12);
    assert_true(r[0].p_holm < 1e-6 && r[1].p_holm < 1e-6);
    assert_true(r[2].test.delta == 0 && r[2].p_holm == 1);
    /* Holm never lowers a p-value */
    for (int i = 0; i < 3; i++)
        assert_true(r[i].p_holm >= r[i].test.p_value);
    free(r);

    r = rank_diff(&t, true);     /* by |z|: "gone" (a share to 0) has the larger z */
    assert_true(fabs(r[0].test.z) >= fabs(r[1].test.z) && fabs(r[1].test.z) >= fabs(r[2].test.z));
    free(r);
}

/* Three sets: "steady" 100/100/100 (range 0), "varies" 0/50/100 (range
 * (100 - 0) / 150 = 2/3, sd 50, sd/sqrt(mean) = 50/sqrt(50)). */
static void test_stats_ranks_by_range_or_sum(void **state)
{
    (void)state;
    uint64_t c_steady[3] = {100, 100, 100}, c_varies[3] = {0, 50, 100};
    struct cmp_row rows[2] = {row("steady", c_steady), row("varies", c_varies)};
    uint64_t total[3] = {100, 150, 200};
    struct cmp_table t = {.level = CMP_PROCS, .nsets = 3, .total = total, .rows = rows, .nrows = 2};
    struct stats_rank *r = rank_stats(&t, false);
    assert_string_equal(r[0].row->proc, "varies");
    assert_true(fabs(r[0].var.range_norm - 2.0 / 3) < 1e-12);
    assert_true(fabs(r[0].var.sd - 50) < 1e-12);
    assert_true(fabs(r[0].dispersion - 50 / sqrt(50)) < 1e-12);
    assert_true(r[1].var.range_norm == 0 && r[1].dispersion == 0);
    free(r);
    r = rank_stats(&t, true);
    assert_string_equal(r[0].row->proc, "steady");      /* sum 300 before 150 */
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diff_ranks_by_change_with_holm),
        cmocka_unit_test(test_stats_ranks_by_range_or_sum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
