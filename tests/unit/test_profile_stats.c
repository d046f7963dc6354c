/*
 * The estimators of alphaprof stats and diff on synthetic counts with known
 * answers: dcpistats' variation columns, the two-proportion z-test (values
 * worked out independently, and its error rate and power measured on
 * simulated binomial samples), Holm's correction.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "util/profile-stats.h"

static void test_variation_known_values(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3, 4};
    struct variation v;
    variation_of(x, 4, &v);
    assert_int_equal(v.n, 4);
    assert_float_equal(v.sum, 10, 0);
    assert_float_equal(v.mean, 2.5, 1e-12);
    assert_float_equal(v.sd, 1.2909944487358056, 1e-12);    /* sample sd, n - 1 */
    assert_float_equal(v.min, 1, 0);
    assert_float_equal(v.max, 4, 0);
    assert_float_equal(v.range_norm, 0.3, 1e-12);
    /* DCPI Figure 3's "smooth": min 38155, max 88075, sum 441040 over 8
     * runs gives a normalised range of 11.32 % and a mean of 55130. */
    const double smooth[] = {38155, 88075, 50000, 50000, 50000, 50000, 50000, 64810};
    variation_of(smooth, 8, &v);
    assert_float_equal(v.sum, 441040, 0);
    assert_float_equal(v.mean, 55130, 1e-9);
    assert_float_equal(100 * v.range_norm, 11.32, 0.005);
}

static void test_variation_edges(void **state)
{
    (void)state;
    struct variation v;
    variation_of(NULL, 0, &v);
    assert_int_equal(v.n, 0);
    assert_float_equal(v.sum, 0, 0);
    const double one[] = {7};
    variation_of(one, 1, &v);
    assert_float_equal(v.sd, 0, 0);
    assert_float_equal(v.range_norm, 0, 0);
    const double same[] = {5, 5, 5};
    variation_of(same, 3, &v);
    assert_float_equal(v.sd, 0, 0);
    assert_float_equal(v.range_norm, 0, 0);
    const double zeros[] = {0, 0};
    variation_of(zeros, 2, &v);
    assert_float_equal(v.range_norm, 0, 0);
    /* Large counts: the two-pass variance does not cancel. */
    const double big[] = {1e12 + 1, 1e12 + 2, 1e12 + 3};
    variation_of(big, 3, &v);
    assert_float_equal(v.sd, 1, 1e-6);
}

static void test_share_test_known_values(void **state)
{
    (void)state;
    struct share_test t;
    /* 5 % of 1000 samples against 10 % of 1000. */
    share_test(50, 1000, 100, 1000, &t);
    assert_true(t.valid);
    assert_false(t.small);
    assert_float_equal(t.share_a, 0.05, 1e-15);
    assert_float_equal(t.share_b, 0.10, 1e-15);
    assert_float_equal(t.delta, 0.05, 1e-15);
    assert_float_equal(t.z, 4.244763599780089, 1e-9);
    assert_float_equal(t.p_value, 2.1882399336140217e-05, 1e-12);
    assert_float_equal(t.ci_lo, 0.027017385095567517, 1e-12);
    assert_float_equal(t.ci_hi, 0.07298261490443249, 1e-12);
    /* The other way round: the same test, the sign flipped. */
    struct share_test r;
    share_test(100, 1000, 50, 1000, &r);
    assert_float_equal(r.z, -t.z, 1e-12);
    assert_float_equal(r.p_value, t.p_value, 1e-15);
    /* Few samples: pooled share 0.12 of 40 expects 4.8 < 5. */
    share_test(3, 40, 9, 60, &t);
    assert_true(t.valid && t.small);
    assert_float_equal(t.z, 1.1306675421666135, 1e-9);
    assert_float_equal(t.p_value, 0.2581950475839452, 1e-9);
    /* No change at all. */
    share_test(30, 100, 60, 200, &t);
    assert_float_equal(t.z, 0, 1e-12);
    assert_float_equal(t.p_value, 1, 1e-12);
}

static void test_share_test_degenerate(void **state)
{
    (void)state;
    struct share_test t;
    share_test(0, 0, 5, 10, &t);           /* an empty profile */
    assert_false(t.valid);
    assert_float_equal(t.p_value, 1, 0);
    share_test(10, 10, 20, 20, &t);        /* everything in this row on both sides */
    assert_false(t.valid);
    assert_float_equal(t.z, 0, 0);
    assert_float_equal(t.p_value, 1, 0);
    share_test(0, 10, 0, 20, &t);          /* nothing in it on either side */
    assert_false(t.valid);
}

/* xorshift64*: a fixed stream, so the simulations below repeat exactly. */
static uint64_t rng_state = 88172645463325252ull;
static double uniform(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static uint64_t binomial(uint64_t n, double p)
{
    uint64_t k = 0;
    for (uint64_t i = 0; i < n; i++)
        k += uniform() < p;
    return k;
}

/* Under the null hypothesis (same share) 5 % of tests reject at 0.05;
 * with a real change of 10 % -> 13 % at 2000 samples a side the power is
 * Phi((0.03 - 1.96 * 0.01009) / 0.01008) = 0.845 (pooled and unpooled
 * standard errors of the difference). */
static void test_share_test_error_rate_and_power(void **state)
{
    (void)state;
    const int trials = 2000;
    int false_rejects = 0, true_rejects = 0;
    for (int i = 0; i < trials; i++) {
        struct share_test t;
        share_test(binomial(1000, 0.1), 1000, binomial(1500, 0.1), 1500, &t);
        false_rejects += t.p_value < 0.05;
    }
    for (int i = 0; i < 400; i++) {
        struct share_test t;
        share_test(binomial(2000, 0.10), 2000, binomial(2000, 0.13), 2000, &t);
        true_rejects += t.p_value < 0.05;
    }
    double alpha_hat = (double)false_rejects / trials;
    /* 5 % +- 4 standard errors of a proportion over 2000 trials */
    assert_true(alpha_hat > 0.05 - 4 * 0.0049 && alpha_hat < 0.05 + 4 * 0.0049);
    double power_hat = true_rejects / 400.0;    /* +- 4 standard errors (0.018) */
    assert_true(power_hat > 0.845 - 0.072 && power_hat < 0.845 + 0.072);
}

static void test_holm(void **state)
{
    (void)state;
    const double p[] = {0.01, 0.04, 0.03, 0.005};
    double adj[4];
    holm_adjust(p, 4, adj);
    /* ranks: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, max(0.04*1, 0.06) */
    assert_float_equal(adj[3], 0.02, 1e-15);
    assert_float_equal(adj[0], 0.03, 1e-15);
    assert_float_equal(adj[2], 0.06, 1e-15);
    assert_float_equal(adj[1], 0.06, 1e-15);
    const double big[] = {0.5, 0.9};
    holm_adjust(big, 2, adj);
    assert_float_equal(adj[0], 1, 0);        /* capped at 1 */
    assert_float_equal(adj[1], 1, 0);
    const double single[] = {0.02};
    holm_adjust(single, 1, adj);
    assert_float_equal(adj[0], 0.02, 0);
    holm_adjust(NULL, 0, NULL);              /* nothing to do, no crash */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_variation_known_values),
        cmocka_unit_test(test_variation_edges),
        cmocka_unit_test(test_share_test_known_values),
        cmocka_unit_test(test_share_test_degenerate),
        cmocka_unit_test(test_share_test_error_rate_and_power),
        cmocka_unit_test(test_holm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
