/*
 * Multiplexing support of the event counters (hw-model/plugin/counter-unit.c,
 * pmu-window.h "Multiplexing"): when the model reads a new configuration it
 * leaves the old counters' countdowns in the window under the old
 * generation; a counter_start in range is a counter's first countdown; the
 * period generator is reseeded only when the seed changes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "hw-model/plugin/counter-unit.h"

static struct pmu_window *new_window(void)
{
    struct pmu_window *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->magic = PMU_MAGIC;
    w->seed = 7;
    return w;
}

static void program(struct pmu_window *w, unsigned i, unsigned event, uint64_t lo, uint64_t hi, uint64_t start)
{
    w->counters[i] = (struct pmu_counter_config){.event = event, .enable = 1, .period_min = lo, .period_max = hi};
    w->counter_start[i] = start;
}

static void a_reload_leaves_the_old_countdowns_under_the_old_generation(void **state)
{
    (void)state;
    struct pmu_window *w = new_window();
    struct counter_unit u;
    counter_unit_init(&u, w, 0);
    program(w, 0, PMU_EV_STORES, 5000, 6000, 0);
    program(w, 2, PMU_EV_LOADS, 2000, 2000, 0);
    w->config_gen = 1;
    counter_unit_sync(&u);
    u.c[0].remaining -= 1234;               /* the counters counted meanwhile */
    u.c[2].remaining = 17;
    int64_t stores_left = u.c[0].remaining;
    w->counters[0].enable = w->counters[2].enable = 0;
    program(w, 1, PMU_EV_BRANCHES, 3000, 3000, 0);
    w->config_gen = 2;
    counter_unit_sync(&u);
    assert_int_equal(w->counter_left_gen, 1);
    assert_int_equal(w->counter_left[0], stores_left);
    assert_int_equal(w->counter_left[1], 0);    /* was off */
    assert_int_equal(w->counter_left[2], 17);
    assert_int_equal(w->counter_left[3], 0);
    free(w);
}

static void a_start_in_range_is_the_first_countdown_else_a_fresh_period(void **state)
{
    (void)state;
    struct pmu_window *w = new_window();
    struct counter_unit u;
    counter_unit_init(&u, w, 0);
    program(w, 0, PMU_EV_STORES, 5000, 6000, 42);
    program(w, 1, PMU_EV_LOADS, 5000, 6000, 6000);
    program(w, 2, PMU_EV_BRANCHES, 5000, 6000, 6001);  /* beyond the period: garbage */
    program(w, 3, PMU_EV_CYCLES, 5000, 6000, 0);
    w->config_gen = 1;
    counter_unit_sync(&u);
    assert_int_equal(u.c[0].remaining, 42);
    assert_int_equal(u.c[1].remaining, 6000);
    for (unsigned i = 2; i < 4; i++)
        assert_true(u.c[i].remaining >= 5000 && u.c[i].remaining <= 6000);
    free(w);
}

static void a_group_that_comes_back_draws_new_periods_unless_the_seed_changes(void **state)
{
    (void)state;
    struct pmu_window *w = new_window();
    struct counter_unit u, again;
    counter_unit_init(&u, w, 0);
    int64_t first[8];
    for (unsigned round = 0; round < 8; round++) {
        program(w, 0, PMU_EV_STORES, 1000, 1000000, 0);
        w->config_gen++;
        counter_unit_sync(&u);
        first[round] = u.c[0].remaining;
    }
    unsigned distinct = 0;
    for (unsigned r = 1; r < 8; r++)
        distinct += first[r] != first[0];
    assert_true(distinct >= 6);             /* not the same period every turn */
    /* the same seed from a fresh unit replays the sequence: deterministic */
    struct pmu_window *w2 = new_window();
    counter_unit_init(&again, w2, 0);
    program(w2, 0, PMU_EV_STORES, 1000, 1000000, 0);
    w2->config_gen = 1;
    counter_unit_sync(&again);
    assert_int_equal(again.c[0].remaining, first[0]);
    /* a new seed reseeds */
    w2->seed = 7;
    w2->config_gen = 2;
    counter_unit_sync(&again);
    assert_int_equal(again.c[0].remaining, first[1]);
    w2->seed = 8;
    w2->config_gen = 3;
    counter_unit_sync(&again);
    struct counter_unit fresh;
    struct pmu_window *w3 = new_window();
    w3->seed = 8;
    counter_unit_init(&fresh, w3, 0);
    program(w3, 0, PMU_EV_STORES, 1000, 1000000, 0);
    w3->config_gen = 1;
    counter_unit_sync(&fresh);
    assert_int_equal(again.c[0].remaining, fresh.c[0].remaining);
    free(w);
    free(w2);
    free(w3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_reload_leaves_the_old_countdowns_under_the_old_generation),
        cmocka_unit_test(a_start_in_range_is_the_first_countdown_else_a_fresh_period),
        cmocka_unit_test(a_group_that_comes_back_draws_new_periods_unless_the_seed_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
