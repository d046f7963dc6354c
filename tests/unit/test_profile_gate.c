/*
 * The regression gate's test (util/profile-gate) on synthetic counts: a
 * worked example, the verdicts at the threshold, new and gone procedures,
 * and its error rates measured on simulated Poisson runs: false alarms in
 * at most alpha = 1 % of 2,000 unchanged runs of five procedures, and a
 * 3 % slowdown of one procedure with 60,000 samples caught in over 90 %
 * (with 30,000, about 76 %: the estimate itself must pass 2 %).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/profile-gate.h"

static struct cmp_row row(const char *name, uint64_t *count)
{
    return (struct cmp_row){.image = "img", .proc = (char *)name, .count = count};
}

static const struct gate_row *find(const struct gate_result *g, const char *name)
{
    for (size_t i = 0; i < g->nrows; i++)
        if (name ? g->rows[i].row && !strcmp(g->rows[i].row->proc, name) : !g->rows[i].row)
            return &g->rows[i];
    fail_msg("no row %s", name ? name : "[whole profile]");
    return NULL;
}

/* One base run of 10,000 samples in "hot", a new run of 10,400 (+4 %):
 * m = 10,200, var = 2 m, z = 400 / sqrt(20,400) = 2.8006. */
static void test_worked_example(void **state)
{
    (void)state;
    uint64_t hot[2] = {10000, 10400}, total[2] = {10000, 10400};
    struct cmp_row rows[1] = {row("hot", hot)};
    struct cmp_table t = {.level = CMP_PROCS, .nsets = 2, .total = total, .rows = rows, .nrows = 1};
    double period[2] = {1, 1};
    struct gate_result g;
    gate_evaluate(&t, period, 1, 0.02, 0.05, &g);
    const struct gate_row *r = find(&g, "hot");
    assert_true(fabs(r->z - 400 / sqrt(20400)) < 1e-9);
    assert_true(fabs(r->change - 0.04) < 1e-12);
    assert_true(fabs(r->p - erfc(r->z / sqrt(2))) < 1e-12);
    assert_true(fabs(r->p_holm - fmin(1, 2 * r->p)) < 1e-12);      /* two rows: hot and the whole */
    assert_int_equal(r->verdict, GATE_REGRESSION);
    assert_int_equal(g.regressions, 2);                               /* the whole profile is hot */
    assert_ptr_equal(g.rows[0].row == NULL || g.rows[1].row == NULL, 1);
    gate_free(&g);
    /* the same change inside a 5 % threshold: significant but within */
    gate_evaluate(&t, period, 1, 0.05, 0.05, &g);
    assert_int_equal(find(&g, "hot")->verdict, GATE_WITHIN);
    assert_int_equal(g.regressions, 0);
    gate_free(&g);
    /* periods: the new run sampled twice as often, so 10,400 samples are
     * half the time: a 48 % improvement */
    double faster[2] = {2, 1};
    gate_evaluate(&t, faster, 1, 0.02, 0.05, &g);
    r = find(&g, "hot");
    assert_true(fabs(r->change - (10400.0 / 20000 - 1)) < 1e-12);
    assert_int_equal(r->verdict, GATE_IMPROVEMENT);
    gate_free(&g);
}

/* Base runs that vary more than sampling explains widen the test: the
 * spread, not the Poisson error, sets the variance. */
static void test_base_spread_widens_the_test(void **state)
{
    (void)state;
    uint64_t steady[4] = {10000, 10000, 10000, 10500}, noisy[4] = {9000, 11000, 10000, 10500};
    uint64_t total[4] = {20000, 21000, 20000, 21000};
    struct cmp_row rows[2] = {row("noisy", noisy), row("steady", steady)};
    struct cmp_table t = {.level = CMP_PROCS, .nsets = 4, .total = total, .rows = rows, .nrows = 2};
    double period[4] = {1, 1, 1, 1};
    struct gate_result g;
    gate_evaluate(&t, period, 3, 0.02, 0.01, &g);
    assert_int_equal(find(&g, "steady")->verdict, GATE_REGRESSION);
    assert_int_equal(find(&g, "noisy")->verdict, GATE_SAME);       /* sd 1000: +5 % is noise */
    assert_true(fabs(find(&g, "noisy")->base_sd - 1000) < 1e-9);
    assert_true(fabs(find(&g, "noisy")->z - 500 / sqrt(1000000 + 1000000 / 3.0)) < 1e-9);
    gate_free(&g);
}

/* A procedure new in B is measured against the base's whole time; one
 * gone from B changed by -100 %; rows with no samples are "same", p 1. */
static void test_new_gone_and_empty_rows(void **state)
{
    (void)state;
    uint64_t added[2] = {0, 900}, gone[2] = {400, 0}, empty[2] = {0, 0}, rest[2] = {9600, 9600};
    uint64_t total[2] = {10000, 10500};
    struct cmp_row rows[4] = {row("added", added), row("empty", empty), row("gone", gone), row("rest", rest)};
    struct cmp_table t = {.level = CMP_PROCS, .nsets = 2, .total = total, .rows = rows, .nrows = 4};
    double period[2] = {1, 1};
    struct gate_result g;
    gate_evaluate(&t, period, 1, 0.02, 0.01, &g);
    assert_true(fabs(find(&g, "added")->change - 0.09) < 1e-12);
    assert_int_equal(find(&g, "added")->verdict, GATE_REGRESSION);
    assert_true(find(&g, "gone")->change == -1);
    assert_int_equal(find(&g, "gone")->verdict, GATE_IMPROVEMENT);
    const struct gate_row *e = find(&g, "empty");
    assert_true(e->verdict == GATE_SAME && e->p == 1 && e->z == 0 && e->change == 0);
    assert_int_equal(g.rows[0].verdict, GATE_REGRESSION);           /* regressions first */
    gate_free(&g);
}

/* Exact Poisson counts: Knuth's product method on chunks of mean <= 500
 * (a sum of Poisson counts is Poisson), with a fixed xorshift seed. */
static uint64_t rng_state = 88172645463325252ull;
static double uniform(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}
static uint64_t poisson(double mean)
{
    uint64_t n = 0;
    while (mean > 0) {
        double chunk = mean > 500 ? 500 : mean, limit = exp(-chunk), prod = uniform();
        while (prod > limit) {
            n++;
            prod *= uniform();
        }
        mean -= chunk;
    }
    return n;
}

/* Five procedures (60,000 down to 300 samples a run), three base runs and
 * a new one: how often does the gate fail? */
static int failures(double slowdown, int trials)
{
    static const double mean[5] = {60000, 12000, 5000, 1000, 300};
    int failed = 0;
    for (int k = 0; k < trials; k++) {
        uint64_t c[5][4], total[4] = {0};
        struct cmp_row rows[5];
        char names[5][8];
        for (int p = 0; p < 5; p++) {
            for (int s = 0; s < 4; s++) {
                c[p][s] = poisson(mean[p] * (s == 3 && p == 0 ? 1 + slowdown : 1));
                total[s] += c[p][s];
            }
            snprintf(names[p], sizeof names[p], "p%d", p);
            rows[p] = row(names[p], c[p]);
        }
        struct cmp_table t = {.level = CMP_PROCS, .nsets = 4, .total = total, .rows = rows, .nrows = 5};
        double period[4] = {1, 1, 1, 1};
        struct gate_result g;
        gate_evaluate(&t, period, 3, 0.02, 0.01, &g);
        failed += g.regressions > 0;
        gate_free(&g);
    }
    return failed;
}

static void test_error_rates_on_simulated_runs(void **state)
{
    (void)state;
    int false_alarms = failures(0, 2000);
    assert_true(false_alarms <= 20);    /* the family-wise error rate is held at alpha = 1 % */
    int caught = failures(0.03, 500);
    assert_true(caught >= 450);         /* measured: 475 */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_example),
        cmocka_unit_test(test_base_spread_widens_the_test),
        cmocka_unit_test(test_new_gone_and_empty_rows),
        cmocka_unit_test(test_error_rates_on_simulated_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
