/*
 * Concise-sample hotlists (firmware/profiler/value-hotlist.c): exact while
 * the values fit, bounded space, and count * tau an unbiased estimate of a
 * value's frequency on streams of known distribution (checked over many
 * independent seeds against the exact counts, within 4 standard errors).
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
        for (unsigned e = 0; e < h->entries; e++)
            assert_true(*hotlist_count(area, h, e) > 0);
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
 * sparse first outputs of a barely seeded generator. */
static void the_first_thinning_keeps_half_whatever_the_seed(void **st)
{
    (void)st;
    for (uint64_t seed = 0; seed < 40; seed++) {
        hotlist_area_init(area, seed);
        struct hotlist *h = hotlist_find(area, 0x1000, VALUE_RESULT);
        for (unsigned r = 0; r < 20; r++)
            for (unsigned v = 0; v < HOTLIST_VALUES; v++)
                hotlist_offer(area, h, v);
        hotlist_offer(area, h, HOTLIST_VALUES);      /* full: tau doubles until the new point loses */
        assert_true(h->tau >= 2);
        double kept = 0, p = 1.0 / h->tau;
        for (unsigned i = 0; i < h->entries; i++)
            kept += *hotlist_count(area, h, i) * (*hotlist_value(area, h, i) < HOTLIST_VALUES);
        /* Binomial(960, 1/tau), 5 sd either way */
        assert_true(fabs(kept - 960 * p) <= 5 * sqrt(960 * p * (1 - p)));
    }
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
            if (*hotlist_count(area, h, e) > *hotlist_count(area, h, best))
                best = e;
        top_first += *hotlist_value(area, h, best) == 1000;
        for (unsigned i = 0; i < 4; i++) {
            double est = (double)count_of(h, 1000 + watch[i]) * h->tau;
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
