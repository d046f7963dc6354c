/*
 * Concise-sample hotlists (firmware/profiler/value-hotlist.c): exact while
 * the values fit, bounded space, count * tau (each pair's own tau) an
 * unbiased estimate of a value's frequency on streams of known
 * distribution (checked over many independent seeds against the exact
 * counts, within 4 standard errors), and frequent values kept exact while
 * values seen once are thinned (hand-computed streams).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "firmware/profiler/value-hotlist.h"

static struct hotlist_area *area;

static int setup(void **st)
{
    (void)st;
    area = malloc(sizeof *area);
    hotlist_area_init(area, 1);
    return area ? 0 : -1;
}

static int teardown(void **st)
{
    (void)st;
    free(area);
    return 0;
}

static uint64_t count_of(const struct hotlist *h, uint64_t v)
{
    for (unsigned i = 0; i < h->entries; i++)
        if (*hotlist_value(area, h, i) == v)
            return *hotlist_count(area, h, i);
    return 0;
}

/* count * (the pair's tau): the value's estimated frequency (note 2) */
static uint64_t estimate_of(const struct hotlist *h, uint64_t v)
{
    for (unsigned i = 0; i < h->entries; i++)
        if (*hotlist_value(area, h, i) == v)
            return (uint64_t)*hotlist_count(area, h, i) << *hotlist_shift(area, h, i);
    return 0;
}

static uint32_t tau_of(const struct hotlist *h, uint64_t v)
{
    for (unsigned i = 0; i < h->entries; i++)
        if (*hotlist_value(area, h, i) == v)
            return 1u << *hotlist_shift(area, h, i);
    return 0;
}

static void values_that_fit_are_counted_exactly(void **st)
{
    (void)st;
    for (unsigned i = 0; i < 100 * HOTLIST_VALUES; i++)
        hotlist_record(area, 0x1000, VALUE_RESULT, i % HOTLIST_VALUES);
    struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
    assert_non_null(h);
    assert_int_equal(h->tau, 1);
    assert_int_equal(h->entries, HOTLIST_VALUES);
    assert_int_equal(h->offered, 100 * HOTLIST_VALUES);
    for (unsigned v = 0; v < HOTLIST_VALUES; v++)
        assert_int_equal(count_of(h, v), 100);
}

static void kinds_and_pcs_have_their_own_hotlists(void **st)
{
    (void)st;
    hotlist_record(area, 0x1000, VALUE_RESULT, 5);
    hotlist_record(area, 0x1000, VALUE_ADDRESS, 6);
    hotlist_record(area, 0x1004, VALUE_RESULT, 7);
    assert_int_equal(count_of(hotlist_find(area, 0x1000, VALUE_RESULT), 5), 1);
    assert_int_equal(count_of(hotlist_find(area, 0x1000, VALUE_ADDRESS), 6), 1);
    assert_int_equal(count_of(hotlist_find(area, 0x1004, VALUE_RESULT), 7), 1);
    assert_int_equal(count_of(hotlist_find(area, 0x1000, VALUE_RESULT), 6), 0);
    assert_string_equal(value_kind_name(VALUE_LATENCY), "latency");
}

static void space_stays_bounded_and_tau_a_growing_power_of_two(void **st)
{
    (void)st;
    uint64_t x = 1;
    uint32_t last_tau = 1;
    struct hotlist *h = hotlist_find(area, 0x2000, VALUE_RESULT);
    for (unsigned i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        hotlist_offer(area, h, x >> 40);            /* ~16M distinct values */
        assert_true(h->entries <= HOTLIST_VALUES);
        assert_true(h->tau >= last_tau);
        assert_int_equal(h->tau & (h->tau - 1), 0);
        last_tau = h->tau;
        for (unsigned e = 0; e < h->entries; e++) {
            assert_true(*hotlist_count(area, h, e) > 0);
            assert_true((1u << *hotlist_shift(area, h, e)) <= h->tau);
        }
    }
    assert_true(h->tau > 1000);
    assert_int_equal(h->offered, 200000);
}

static void a_full_slot_table_drops_and_counts(void **st)
{
    (void)st;
    unsigned made = 0;
    for (uint64_t pc = 4; pc < 4 * (HOTLIST_SLOTS + 100); pc += 4)
        hotlist_record(area, pc, VALUE_RESULT, 1);
    for (unsigned i = 0; i < HOTLIST_SLOTS; i++)
        made += area->slot[i].pc != 0;
    assert_true(made <= HOTLIST_SLOTS);
    assert_int_equal(area->offered, HOTLIST_SLOTS + 99);
    assert_int_equal(area->dropped_no_slot + made, HOTLIST_SLOTS + 99);
    assert_true(area->dropped_no_slot >= 99);
}

static void a_hotlist_grows_by_chunks_before_tau_rises(void **st)
{
    (void)st;
    struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
    assert_int_equal(h->nchunks, 1);
    for (unsigned v = 0; v < HOTLIST_VALUES; v++)
        hotlist_offer(area, h, v);
    assert_int_equal(h->tau, 1);
    assert_int_equal(h->entries, HOTLIST_VALUES);
    assert_int_equal(h->nchunks, HOTLIST_MAX_CHUNKS);
    hotlist_offer(area, h, HOTLIST_VALUES);          /* one more distinct value: full, so thinned */
    assert_int_equal(h->tau, 2);
    assert_int_equal(h->nchunks, HOTLIST_MAX_CHUNKS);
    assert_int_equal(area->chunks_used, HOTLIST_MAX_CHUNKS);
}

/* From a fresh area with a small seed (as the board seeds them) the first
 * thinning keeps each point with probability 1/2: its coins are not the
 * sparse first outputs of a barely seeded generator.  Every value is
 * offered twice, so every pair is cold (count 2 * tau 1 <= 2) and thinned. */
static void the_first_thinning_keeps_half_whatever_the_seed(void **st)
{
    (void)st;
    double kept = 0, expected = 0, var = 0;
    for (uint64_t seed = 0; seed < 40; seed++) {
        hotlist_area_init(area, seed);
        struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
        for (unsigned r = 0; r < 2; r++)
            for (unsigned v = 0; v < HOTLIST_VALUES; v++)
                hotlist_offer(area, h, v);
        hotlist_offer(area, h, HOTLIST_VALUES);      /* full: tau doubles until the new point loses */
        assert_true(h->tau >= 2);
        double p = 1.0, k = 0;
        for (unsigned i = 0; i < h->entries; i++)
            if (*hotlist_value(area, h, i) < HOTLIST_VALUES) {
                k += *hotlist_count(area, h, i);
                p = 1.0 / (1u << *hotlist_shift(area, h, i));
                assert_int_equal(1u << *hotlist_shift(area, h, i), h->tau);
            }
        /* Binomial(96, 1/tau) a seed, 5 sd either way */
        assert_true(fabs(k - 96 * p) <= 5 * sqrt(96 * p * (1 - p)));
        kept += k;
        expected += 96 * p;
        var += 96 * p * (1 - p);
    }
    assert_true(fabs(kept - expected) <= 4 * sqrt(var));   /* over the 40 seeds */
}

/* The stream valuemix's skewed[] gives its load, by hand: 7 at every even
 * offer, 1000 at every 5th odd one, 0xdeadbeef at every 10th, a value
 * seen once otherwise (2 in 10 offers).  3 repeated values and 45
 * singletons fill the hotlist; the 46th singleton (offer 230) finds it
 * full when 7 has been counted 115 times, so 7 is hot (115 > 2) at the
 * first raise and stays hot: a raise to tau 2T leaves ~22 free pairs,
 * which singletons sampled at 1/2T refill in ~22 * 2T / 0.2 = 220T
 * offers, by when 7 has ~110T points, far above the next tau, 4T (1000:
 * ~44T, 0xdeadbeef: ~22T).  So 7, 1000 and 0xdeadbeef keep tau 1 and are counted
 * exactly, while the singletons are thinned (plain concise samples
 * would have halved 7's points at every doubling too). */
static void frequent_values_stay_exact_while_singletons_are_thinned(void **st)
{
    (void)st;
    struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
    uint64_t n7 = 0, n1000 = 0, ndb = 0, once = 0;
    for (unsigned i = 0; i < 12500; i++) {
        uint64_t v;
        if (i % 2 == 0)
            v = 7, n7++;
        else if (i % 10 == 1 || i % 10 == 5)
            v = 1000, n1000++;
        else if (i % 10 == 3)
            v = 0xdeadbeef, ndb++;
        else
            v = 1u << 20 | i, once++;
        hotlist_offer(area, h, v);
    }
    assert_int_equal(n7, 6250);
    assert_int_equal(n1000, 2500);
    assert_int_equal(ndb, 1250);
    assert_int_equal(once, 2500);
    assert_int_equal(h->offered, 12500);
    assert_true(h->tau >= 16);                      /* 2500 singletons in 45 pairs: thinned (~32) */
    assert_int_equal(estimate_of(h, 7), 6250);
    assert_int_equal(estimate_of(h, 1000), 2500);
    assert_int_equal(estimate_of(h, 0xdeadbeef), 1250);
    assert_int_equal(tau_of(h, 7), 1);
    assert_int_equal(tau_of(h, 1000), 1);
    assert_int_equal(tau_of(h, 0xdeadbeef), 1);
    assert_int_equal(h->hot, 3);
    for (unsigned i = 0; i < h->entries; i++) {     /* every singleton held was thinned to the hotlist's tau */
        uint64_t v = *hotlist_value(area, h, i);
        if (v != 7 && v != 1000 && v != 0xdeadbeef) {
            assert_int_equal(1u << *hotlist_shift(area, h, i), h->tau);
            assert_int_equal(*hotlist_count(area, h, i), 1);
        }
    }
}

/* A raise by hand: 48 values held at tau 1, value v offered 1 + v % 5
 * times (counts 1-5).  The 49th value doubles tau to 2: pairs with
 * count * 1 <= 2 (counts 1 and 2) are cold and thinned to tau 2, those
 * with counts 3-5 are hot and keep tau 1 and their counts. */
static void a_raise_thins_only_pairs_whose_estimate_is_at_most_the_new_tau(void **st)
{
    (void)st;
    struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
    for (unsigned v = 0; v < HOTLIST_VALUES; v++)
        for (unsigned r = 0; r < 1 + v % 5; r++)
            hotlist_offer(area, h, v);
    assert_int_equal(h->tau, 1);
    hotlist_offer(area, h, 999);
    assert_true(h->tau == 2 || h->tau == 4);        /* 4 only if no cold point was dropped and the new point won */
    if (h->tau == 4)
        return;
    unsigned hot = 0;
    for (unsigned v = 0; v < HOTLIST_VALUES; v++) {
        unsigned c = 1 + v % 5;
        if (c >= 3) {
            assert_int_equal(estimate_of(h, v), c);
            assert_int_equal(tau_of(h, v), 1);
            hot++;
        } else if (tau_of(h, v)) {
            assert_int_equal(tau_of(h, v), 2);
            assert_true(estimate_of(h, v) == 2 || (c == 2 && estimate_of(h, v) == 4));
        }
    }
    assert_int_equal(h->hot, hot);
    assert_true(tau_of(h, 999) == 0 || tau_of(h, 999) == 2);
}

/* The sender's order: by tau, lowest first, otherwise as held. */
static void sorting_by_tau_is_stable_and_keeps_every_pair(void **st)
{
    (void)st;
    struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
    for (unsigned v = 0; v < 24; v++)
        hotlist_offer(area, h, v);
    static const uint8_t shifts[24] = {3, 0, 2, 0, 3, 1, 0, 2, 3, 3, 0, 1, 2, 0, 1, 3, 0, 2, 1, 0, 3, 2, 1, 0};
    for (unsigned i = 0; i < 24; i++) {
        *hotlist_shift(area, h, i) = shifts[i];
        *hotlist_count(area, h, i) = 100 + i;
    }
    hotlist_sort_by_tau(area, h);
    assert_int_equal(h->entries, 24);
    unsigned i = 0;
    for (unsigned s = 0; s <= 3; s++)
        for (unsigned v = 0; v < 24; v++)
            if (shifts[v] == s) {
                assert_int_equal(*hotlist_value(area, h, i), v);
                assert_int_equal(*hotlist_count(area, h, i), 100 + v);
                assert_int_equal(*hotlist_shift(area, h, i), s);
                i++;
            }
    for (unsigned v = 0; v < 24; v++)               /* the tags moved with their values */
        assert_int_equal(count_of(h, v), 100 + v);
    hotlist_offer(area, h, 5);                      /* found through its tag after the sort (tau 1: counted) */
    assert_int_equal(count_of(h, 5), 106);
}

static void frequent_values_move_to_the_front(void **st)
{
    (void)st;
    struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
    for (unsigned v = 0; v < 20; v++)
        hotlist_offer(area, h, v);
    for (unsigned i = 0; i < 30; i++)
        hotlist_offer(area, h, 19);
    assert_int_equal(*hotlist_value(area, h, 0), 19);
    assert_int_equal(*hotlist_count(area, h, 0), 31);
    for (unsigned v = 0; v < 19; v++)
        assert_int_equal(count_of(h, v), 1);
}

static void a_spent_pool_drops_new_hotlists_and_counts(void **st)
{
    (void)st;
    uint64_t pc = 4, offered = 0;
    while (area->chunks_used < HOTLIST_POOL) {       /* hotlists that take every chunk they may */
        for (unsigned v = 0; v < HOTLIST_VALUES && area->chunks_used < HOTLIST_POOL; v++, offered++)
            hotlist_record(area, pc, VALUE_ADDRESS, v);
        pc += 4;
    }
    assert_int_equal(area->dropped_no_slot, 0);
    hotlist_record(area, 0x7777000, VALUE_ADDRESS, 1);
    assert_null(hotlist_find(area, 0x7777000, VALUE_ADDRESS));
    assert_int_equal(area->dropped_no_slot, 1);
    assert_int_equal(area->offered, offered + 1);
    hotlist_record(area, 4, VALUE_ADDRESS, 12345);  /* an existing hotlist, full: thinned, not dropped */
    assert_int_equal(area->dropped_no_slot, 1);
    assert_true(hotlist_find(area, 4, VALUE_ADDRESS)->tau > 1);
}

/* A stream of n values from a known skewed distribution: value k with
 * weight w[k]; returns exact counts in truth[]. */
#define NDIST 200
static void stream(struct hotlist_area *a, struct hotlist *h, unsigned n, uint64_t *rng, uint64_t *truth)
{
    static unsigned cum[NDIST];
    unsigned total = 0;
    for (unsigned k = 0; k < NDIST; k++) {
        unsigned w = k == 0 ? 400 : k == 1 ? 150 : k == 2 ? 60 : 2;    /* 40 %, 15 %, 6 %, 0.2 % each */
        total += w;
        cum[k] = total;
    }
    for (unsigned i = 0; i < n; i++) {
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)((*rng >> 33) % total), k = 0;
        while (cum[k] <= r)
            k++;
        truth[k]++;
        hotlist_offer(a, h, 1000 + k);
    }
}

static void count_times_tau_estimates_frequencies_without_bias(void **st)
{
    (void)st;
    enum { RUNS = 300, N = 5000 };
    const unsigned watch[] = {0, 1, 2, 7};
    double sum[4] = {0}, sumsq[4] = {0}, truth_sum[4] = {0};
    unsigned top_first = 0;
    uint64_t rng = 12345;
    for (unsigned run = 0; run < RUNS; run++) {
        hotlist_area_init(area, 1 + run * 7919ull);
        struct hotlist *h = hotlist_find(area, 0x3000, VALUE_RESULT);
        uint64_t truth[NDIST] = {0};
        stream(area, h, N, &rng, truth);
        assert_true(h->tau > 1);                    /* the sample was thinned */
        unsigned best = 0;
        for (unsigned e = 1; e < h->entries; e++)
            if ((uint64_t)*hotlist_count(area, h, e) << *hotlist_shift(area, h, e) >
                (uint64_t)*hotlist_count(area, h, best) << *hotlist_shift(area, h, best))
                best = e;
        top_first += *hotlist_value(area, h, best) == 1000;
        for (unsigned i = 0; i < 4; i++) {
            double est = (double)estimate_of(h, 1000 + watch[i]);
            sum[i] += est;
            sumsq[i] += est * est;
            truth_sum[i] += (double)truth[watch[i]];
        }
    }
    for (unsigned i = 0; i < 4; i++) {
        double mean = sum[i] / RUNS, var = sumsq[i] / RUNS - mean * mean;
        double se = sqrt(var / RUNS), truth = truth_sum[i] / RUNS;
        print_message("value %u: mean estimate %.1f, truth %.1f, se %.1f\n", watch[i], mean, truth, se);
        assert_true(fabs(mean - truth) <= 4 * se + 1);
    }
    print_message("top value first in %u of %u runs\n", top_first, RUNS);
    assert_true(top_first >= RUNS * 95 / 100);      /* the 40 % value leads the hotlist */
}

/* A value frequent early and then gone is hot, then cold once the
 * hotlist's tau passes its estimate, and is thinned from tau 1 in one
 * step of many coins: its estimate stays unbiased (300 independent runs,
 * within 4 standard errors of the exact count). */
static void a_value_hot_then_gone_is_estimated_without_bias(void **st)
{
    (void)st;
    enum { RUNS = 300 };
    double sum = 0, sumsq = 0, truth_sum = 0;
    unsigned thinned = 0;
    uint64_t rng = 777;
    for (unsigned run = 0; run < RUNS; run++) {
        hotlist_area_init(area, 3 + run * 104729ull);
        struct hotlist *h = hotlist_find(area, 0x4000, VALUE_RESULT);
        uint64_t truth = 0;
        for (unsigned i = 0; i < 40000; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            if (i < 1000 && (rng >> 33) % 10 < 3) {  /* 30 % of the first 1000 */
                hotlist_offer(area, h, 42);
                truth++;
            } else {
                hotlist_offer(area, h, 1ull << 40 | ((uint64_t)run << 20) | i);   /* each seen once */
            }
        }
        thinned += tau_of(h, 42) != 1;
        double est = (double)estimate_of(h, 42);
        sum += est;
        sumsq += est * est;
        truth_sum += (double)truth;
    }
    double mean = sum / RUNS, var = sumsq / RUNS - mean * mean, se = sqrt(var / RUNS), truth = truth_sum / RUNS;
    print_message("hot then gone: mean estimate %.1f, truth %.1f, se %.1f, thinned in %u of %u runs\n", mean, truth, se,
                  thinned, RUNS);
    assert_true(thinned >= RUNS * 9 / 10);           /* it did go cold: tau passed ~300 */
    assert_true(fabs(mean - truth) <= 4 * se + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(values_that_fit_are_counted_exactly, setup, teardown),
        cmocka_unit_test_setup_teardown(kinds_and_pcs_have_their_own_hotlists, setup, teardown),
        cmocka_unit_test_setup_teardown(space_stays_bounded_and_tau_a_growing_power_of_two, setup, teardown),
        cmocka_unit_test_setup_teardown(a_full_slot_table_drops_and_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(a_hotlist_grows_by_chunks_before_tau_rises, setup, teardown),
        cmocka_unit_test_setup_teardown(frequent_values_move_to_the_front, setup, teardown),
        cmocka_unit_test_setup_teardown(the_first_thinning_keeps_half_whatever_the_seed, setup, teardown),
        cmocka_unit_test_setup_teardown(a_spent_pool_drops_new_hotlists_and_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(count_times_tau_estimates_frequencies_without_bias, setup, teardown),
        cmocka_unit_test_setup_teardown(frequent_values_stay_exact_while_singletons_are_thinned, setup, teardown),
        cmocka_unit_test_setup_teardown(a_raise_thins_only_pairs_whose_estimate_is_at_most_the_new_tau, setup, teardown),
        cmocka_unit_test_setup_teardown(sorting_by_tau_is_stable_and_keeps_every_pair, setup, teardown),
        cmocka_unit_test_setup_teardown(a_value_hot_then_gone_is_estimated_without_bias, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
