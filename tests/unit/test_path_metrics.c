/*
 * Ranking counted Ball-Larus paths (util/path-metrics.c) on hand-made
 * paths: sorted by each key with ties broken by count, then procedure and
 * number; the share the top k hold is the k largest values over the
 * total whatever the order the paths are in, and all of it once k reaches
 * the number of paths; no total gives 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/path-metrics.h"

static struct hot_path paths[5] = {
    /* proc, path, {count, cycles, misses}, core, record (-1: no context) */
    {0x1000, 0, {100, 500, 1}, 0, -1},
    {0x1000, 1, {10, 9000, 60}, 0, -1},
    {0x2000, 0, {100, 300, 20}, 0, -1},
    {0x2000, 3, {1, 200, 19}, 0, -1},
    {0x3000, 2, {50, 1000, 0}, 0, -1},
};

static struct path_metrics make(void)
{
    struct path_metrics pm = {.present = true, .metered = true, .event = 3, .paths = paths, .n = 5};
    for (size_t i = 0; i < pm.n; i++)
        for (int k = 0; k < PM_NKEYS; k++)
            pm.total[k] += paths[i].v[k];
    return pm;
}

static void test_paths_sort_by_each_key_largest_first_ties_by_count_then_place(void **state)
{
    (void)state;
    struct path_metrics pm = make();
    path_metrics_sort(&pm, PM_COUNT);
    assert_true(pm.paths[0].proc == 0x1000 && pm.paths[0].path == 0);     /* 100, 100: by proc */
    assert_true(pm.paths[1].proc == 0x2000 && pm.paths[1].path == 0);
    assert_int_equal(pm.paths[2].v[PM_COUNT], 50);
    assert_int_equal(pm.paths[4].v[PM_COUNT], 1);
    path_metrics_sort(&pm, PM_EVENT);
    assert_int_equal(pm.paths[0].v[PM_EVENT], 60);
    assert_int_equal(pm.paths[1].v[PM_EVENT], 20);
    assert_int_equal(pm.paths[4].v[PM_EVENT], 0);
    path_metrics_sort(&pm, PM_CYCLES);
    for (size_t i = 0; i + 1 < pm.n; i++)
        assert_true(pm.paths[i].v[PM_CYCLES] >= pm.paths[i + 1].v[PM_CYCLES]);
}

static void test_the_top_k_share_is_the_k_largest_over_the_total_in_any_order(void **state)
{
    (void)state;
    struct path_metrics pm = make();
    path_metrics_sort(&pm, PM_COUNT);           /* not the misses' order */
    assert_true(path_metrics_top_share(&pm, PM_EVENT, 1) == 60.0 / 100);
    assert_true(path_metrics_top_share(&pm, PM_EVENT, 2) == 80.0 / 100);
    assert_true(path_metrics_top_share(&pm, PM_EVENT, 5) == 1.0);
    assert_true(path_metrics_top_share(&pm, PM_EVENT, 28) == 1.0);
    assert_true(path_metrics_top_share(&pm, PM_CYCLES, 2) == 10000.0 / 11000);
    assert_int_equal(pm.paths[0].v[PM_COUNT], 100);    /* the ranking is left as it was */
    pm.total[PM_EVENT] = 0;
    assert_true(path_metrics_top_share(&pm, PM_EVENT, 5) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_sort_by_each_key_largest_first_ties_by_count_then_place),
        cmocka_unit_test(test_the_top_k_share_is_the_k_largest_over_the_total_in_any_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
