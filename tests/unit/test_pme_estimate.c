/*
 * The ProfileMe estimators (util/pme-estimate) on synthetic sample sets
 * with known answers: closed-form values of the count and rate intervals;
 * instruction sampling of a synthetic fetch stream (kS against the true
 * counts: unbiased total, about two thirds inside the 1/sqrt(k) envelope,
 * 95 % intervals covering about 95 %); nested paired sampling of a
 * synthetic pipeline trace whose every timeline is known, against the
 * exact useful overlap, wasted issue slots and IPC of each instruction.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/pme-estimate.h"

/* Deterministic generator (splitmix64), so the simulations repeat exactly. */
static uint64_t rng_state;
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rng_unit(void)
{
    return (double)(rng_next() >> 11) / 9007199254740992.0;
}
/* Uniform in lo..hi inclusive. */
static uint64_t rng_range(uint64_t lo, uint64_t hi)
{
    return lo + rng_next() % (hi - lo + 1);
}

static void test_count_estimate_known_values(void **state)
{
    (void)state;
    struct pme_count_est c;
    pme_count_estimate(100, 1000, PME_Z95, &c);
    assert_int_equal(c.k, 100);
    assert_float_equal(c.estimate, 100000, 0);
    assert_float_equal(c.cv, 0.1, 1e-12);
    /* Poisson score interval m = k + z^2/2 -+ z sqrt(k + z^2/4). */
    assert_float_equal(c.lo, 82227.20043412788, 1e-6);
    assert_float_equal(c.hi, 121614.25838656625, 1e-6);
    pme_count_estimate(0, 1000, PME_Z95, &c);
    assert_float_equal(c.estimate, 0, 0);
    assert_true(isinf(c.cv));
    assert_float_equal(c.lo, 0, 0);
    assert_float_equal(c.hi, 3841.4588206941253, 1e-6);        /* z^2 S */
    pme_count_estimate(1, 64, PME_Z95, &c);
    assert_true(c.lo > 0 && c.lo < 64 && c.hi > 64);
}

static void test_envelope(void **state)
{
    (void)state;
    assert_true(pme_within_envelope(110, 100, 100));     /* 10 % off, 1/sqrt(100) = 10 % */
    assert_false(pme_within_envelope(111, 100, 100));
    assert_true(pme_within_envelope(50, 100, 4));        /* 1/sqrt(4) = 50 % */
    assert_false(pme_within_envelope(49, 100, 4));
    assert_false(pme_within_envelope(0, 100, 0));
    assert_false(pme_within_envelope(10, 0, 3));
}

static void test_rate_estimate_known_values(void **state)
{
    (void)state;
    struct pme_rate_est r;
    pme_rate_estimate(5, 50, PME_Z95, &r);     /* Wilson 5/50: 0.0435 .. 0.2136 */
    assert_float_equal(r.rate, 0.1, 1e-12);
    assert_float_equal(r.lo, 0.04347576493189041, 1e-12);
    assert_float_equal(r.hi, 0.21360231437479654, 1e-12);
    pme_rate_estimate(0, 20, PME_Z95, &r);
    assert_float_equal(r.lo, 0, 0);
    assert_true(r.hi > 0.1 && r.hi < 0.2);     /* Wilson 0/20: upper 0.161 */
    pme_rate_estimate(20, 20, PME_Z95, &r);
    assert_float_equal(r.hi, 1, 0);
    assert_true(r.lo > 0.8 && r.lo < 0.9);
    pme_rate_estimate(0, 0, PME_Z95, &r);
    assert_float_equal(r.rate, 0, 0);
    assert_float_equal(r.lo, 0, 0);
    assert_float_equal(r.hi, 1, 0);
}

/*
 * Instruction sampling: 300 static instructions fetched at random with
 * geometric weights, each fetch having property P with the instruction's
 * own probability; one fetch in S (interval uniform S/2..3S/2) is sampled.
 */
static void test_count_estimates_converge_like_the_paper_says(void **state)
{
    (void)state;
    enum { M = 300, N = 3000000 };
    const double S = 300;
    double weight[M], cum[M], wsum = 0, prob[M];
    for (int j = 0; j < M; j++) {
        weight[j] = pow(0.985, j);
        wsum += weight[j];
        cum[j] = wsum;
        prob[j] = 0.05 + 0.9 * (double)((j * 37) % 100) / 100.0;
    }
    uint64_t truth[M] = {0}, k[M] = {0};
    rng_state = 42;
    uint64_t next = rng_range((uint64_t)(S / 2), (uint64_t)(3 * S / 2)), samples = 0;
    for (uint64_t i = 0; i < N; i++) {
        double u = rng_unit() * wsum;
        int lo = 0, hi = M - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cum[mid] < u)
                lo = mid + 1;
            else
                hi = mid;
        }
        bool p = rng_unit() < prob[lo];
        truth[lo] += p;
        if (--next == 0) {
            samples++;
            k[lo] += p;
            next = rng_range((uint64_t)(S / 2), (uint64_t)(3 * S / 2));
        }
    }
    assert_true(samples > N / S * 0.98 && samples < N / S * 1.02);
    double est_total = 0, true_total = 0;
    size_t sampled = 0, inside = 0, covered = 0, considered = 0;
    for (int j = 0; j < M; j++) {
        struct pme_count_est c;
        pme_count_estimate(k[j], S, PME_Z95, &c);
        est_total += c.estimate;
        true_total += (double)truth[j];
        if (truth[j] > 0) {
            considered++;
            covered += c.lo <= (double)truth[j] && (double)truth[j] <= c.hi;
        }
        if (k[j] >= 1 && truth[j] > 0) {
            sampled++;
            inside += pme_within_envelope(c.estimate, (double)truth[j], k[j]);
        }
    }
    if (getenv("PME_TEST_VERBOSE"))
        print_message("%zu sampled instructions: %.3f within 1/sqrt(k), %.3f of %zu true counts in the 95%% "
                      "interval, total %.4f of the truth\n", sampled, (double)inside / (double)sampled,
                      (double)covered / (double)considered, considered, est_total / true_total);
    /* Unbiased: the totals agree within a few 1/sqrt(samples). */
    assert_true(fabs(est_total / true_total - 1) < 0.03);
    /* About two thirds inside the one-sigma envelope (seed section 5.1). */
    double frac = (double)inside / (double)sampled;
    assert_true(sampled > 200);
    assert_true(frac > 0.58 && frac < 0.80);
    /* The 95 % intervals cover about 95 % of the true counts. */
    double cover = (double)covered / (double)considered;
    assert_true(cover > 0.90 && cover < 0.99);
}

/*
 * Paired sampling on a synthetic pipeline trace.  A loop of B instructions
 * runs on a 4-wide core with a 24-entry window: fetch 4 a cycle (waiting
 * for the instruction 24 older to retire), map a cycle later, issue when
 * the producer is ready, fixed latencies with a load that misses every
 * fourth iteration (60 cycles) and a dependent chain, in-order retire; one
 * instruction traps (aborts) on 5 % of its executions.  Every timeline is
 * known, so the exact useful overlap, wasted slots and IPC of each static
 * instruction can be counted and the estimates compared with them.
 */
enum { B = 12, ROB = 24, WIDTH = 4 };
struct tl {
    uint64_t fetch, issue, retready, retire;
    bool retired;
    int insn;
};

static void make_trace(struct tl *t, size_t n)
{
    /* producer index within the loop (-1 none) and latency */
    static const int dep[B] = {-1, 0, -1, -1, 3, 4, 5, -1, -1, 8, -1, 10};
    static const int lat[B] = {1, 1, 1, 3, 1, 4, 1, 1, 1, 1, 2, 1};
    uint64_t cycle_fetch = 0;
    unsigned in_cycle = 0;
    for (size_t i = 0; i < n; i++) {
        int j = (int)(i % B);
        uint64_t f = cycle_fetch;
        if (i >= ROB && t[i - ROB].retire + 1 > f)
            f = t[i - ROB].retire + 1;
        if (f != cycle_fetch) {
            cycle_fetch = f;
            in_cycle = 0;
        }
        t[i].fetch = f;
        if (++in_cycle == WIDTH) {
            cycle_fetch++;
            in_cycle = 0;
        }
        uint64_t ready = f + 1;
        if (dep[j] >= 0) {
            size_t p = i - (size_t)(j - dep[j]);
            if (t[p].retready > ready)
                ready = t[p].retready;
        }
        t[i].issue = ready;
        uint64_t l = (uint64_t)lat[j];
        if (j == 4 && (i / B) % 4 == 0)
            l = 60;                             /* the missing load */
        t[i].retready = ready + l;
        t[i].retire = t[i].retready;
        if (i > 0 && t[i - 1].retire > t[i].retire)
            t[i].retire = t[i - 1].retire;
        t[i].retired = !(j == 9 && rng_unit() < 0.05);
        t[i].insn = j;
    }
}

static void record_times(const struct tl *x, struct pme_times *out)
{
    /* Through the latency fields, as the hardware reports them. */
    uint64_t lat[PME_LAT_COUNT] = {0};
    lat[PME_LAT_FETCH_MAP] = 1;
    lat[PME_LAT_MAP_DATA] = x->issue - x->fetch - 1;
    lat[PME_LAT_DATA_ISSUE] = 0;
    lat[PME_LAT_ISSUE_RETREADY] = x->retready - x->issue;
    lat[PME_LAT_RETREADY_RETIRE] = x->retire - x->retready;
    pme_times_from_latencies(lat, PME_LAT_COUNT, x->retired, out);
}

static void test_paired_sampling_estimates_wasted_slots(void **state)
{
    (void)state;
    enum { N = 1200000, W = 48 };
    const double S = 100, C = WIDTH, T = 30;
    struct tl *t = calloc(N, sizeof *t);
    assert_non_null(t);
    rng_state = 7;
    make_trace(t, N);
    /* The truth, over the instructions the windows can see (away from the ends). */
    double slots[B] = {0}, useful[B] = {0}, near[B] = {0}, retired[B] = {0};
    for (size_t i = W; i < N - W; i++) {
        int j = t[i].insn;
        slots[j] += C * (double)(t[i].retready - t[i].fetch);
        for (size_t k = i - W; k <= i + W; k++) {
            if (k == i || !t[k].retired)
                continue;
            useful[j] += t[k].issue >= t[i].fetch && t[k].issue <= t[i].retready;
            if (t[i].retired)
                near[j] += fabs((double)t[k].retire - (double)t[i].retire) <= T / 2;
        }
        retired[j] += t[i].retired;
    }
    /* Nested sampling: a pair every S fetches (uniform S/2..3S/2), the
     * second uniform 1..W after the first. */
    struct pme_pair_acc acc[B];
    memset(acc, 0, sizeof acc);
    uint64_t npairs = 0, max_gap = 0;
    for (size_t i = W + rng_range(50, 150); i + W < N - W; i += rng_range(50, 150)) {
        uint64_t g = rng_range(1, W);
        const struct tl *a = &t[i], *b = &t[i + g];
        struct pme_pair_obs p = {.distance = (double)(b->fetch - a->fetch)};
        record_times(a, &p.rec[0]);
        record_times(b, &p.rec[1]);
        struct pme_pair_effect e[2];
        pme_pair_analyse(&p, T, e);
        pme_pair_acc_add(&acc[a->insn], 0, &e[0]);
        pme_pair_acc_add(&acc[b->insn], 1, &e[1]);
        npairs++;
        max_gap = g > max_gap ? g : max_gap;
    }
    assert_true(npairs > 11000);
    double w_est = pme_window_estimate(max_gap, npairs);
    assert_true(w_est >= W - 0.01 && w_est < W + 0.1);
    double true_wasted_of[B], est_wasted_of[B];
    for (int j = 0; j < B; j++) {
        struct pme_concurrency c;
        pme_concurrency_estimate(&acc[j], S, W, C, T, &c);
        double true_wasted = slots[j] - useful[j];
        double true_ipc = near[j] / (retired[j] * T);
        assert_true(fabs(c.slots / slots[j] - 1) < 0.12);
        assert_true(fabs(c.useful / useful[j] - 1) < 0.12);
        assert_true(fabs(c.wasted - true_wasted) < 0.12 * slots[j]);
        assert_true(fabs(c.ipc_near / true_ipc - 1) < 0.12);
        /* useful concurrency: useful issues per cycle in progress */
        assert_true(fabs(c.concurrency - C * useful[j] / slots[j]) < 0.15 * C * useful[j] / slots[j]);
        if (getenv("PME_TEST_VERBOSE"))
            print_message("insn %d: slots %.0f/%.0f useful %.0f/%.0f wasted %.0f/%.0f ipc %.3f/%.3f\n", j,
                          c.slots, slots[j], c.useful, useful[j], c.wasted, true_wasted, c.ipc_near, true_ipc);
        true_wasted_of[j] = true_wasted;
        est_wasted_of[j] = c.wasted;
    }
    /* The bottlenecks the estimates point at are the true ones: the three
     * instructions wasting most slots are the missing load and the two
     * waiting on it, by the estimates as by the truth. */
    for (int j = 0; j < B; j++) {
        int above_true = 0, above_est = 0;
        for (int m = 0; m < B; m++) {
            above_true += true_wasted_of[m] > true_wasted_of[j];
            above_est += est_wasted_of[m] > est_wasted_of[j];
        }
        bool chain = j == 4 || j == 5 || j == 6;
        assert_int_equal(above_true < 3, chain);
        assert_int_equal(above_est < 3, chain);
    }
    free(t);
}

static void test_pair_analysis_by_hand(void **state)
{
    (void)state;
    /* I1 fetched at 0: issue 2, retready 10, retire 12.  I2 fetched at 3:
     * issue 3+1 = 4 (inside I1's progress), retready 3+5 = 8, retire 3+9. */
    uint64_t l1[PME_LAT_COUNT] = {1, 1, 0, 8, 2, 0}, l2[PME_LAT_COUNT] = {1, 0, 0, 4, 4, 0};
    struct pme_pair_obs p = {.distance = 3};
    pme_times_from_latencies(l1, PME_LAT_COUNT, true, &p.rec[0]);
    pme_times_from_latencies(l2, PME_LAT_COUNT, true, &p.rec[1]);
    assert_float_equal(p.rec[0].issue, 2, 0);
    assert_float_equal(p.rec[0].retready, 10, 0);
    assert_float_equal(p.rec[0].retire, 12, 0);
    struct pme_pair_effect e[2];
    pme_pair_analyse(&p, 30, e);
    assert_true(e[0].useful);           /* I2 issued at 4, in 0..10 */
    assert_false(e[1].useful);          /* I1 issued at 2, before I2's fetch at 3 */
    assert_true(e[0].near && e[1].near);
    assert_float_equal(e[0].latency, 10, 0);
    assert_float_equal(e[1].latency, 5, 0);
    /* The partner aborted: never useful, never near. */
    p.rec[1].retired = false;
    pme_pair_analyse(&p, 30, e);
    assert_false(e[0].useful);
    assert_false(e[0].near);
    /* Retirement 12 cycles apart: outside a 20-cycle window, inside 30. */
    p.rec[1].retired = true;
    p.distance = 3;
    p.rec[1].retire = 21;               /* 3 + 21 = 24 vs 12 */
    pme_pair_analyse(&p, 20, e);
    assert_false(e[0].near);
    pme_pair_analyse(&p, 30, e);
    assert_true(e[0].near);

    struct pme_pair_acc a = {0};
    pme_pair_acc_add(&a, 0, &e[0]);
    pme_pair_acc_add(&a, 1, &e[1]);
    assert_int_equal(a.pairs, 2);
    assert_int_equal(a.useful_fwd, 1);
    assert_int_equal(a.useful_bwd, 0);
    struct pme_concurrency c;
    pme_concurrency_estimate(&a, 1000, 10, 4, 30, &c);
    /* L = 15, U = 1: latency 15*1000/2, slots 4x that, useful 1*10*1000 */
    assert_float_equal(c.latency_total, 7500, 1e-9);
    assert_float_equal(c.slots, 30000, 1e-9);
    assert_float_equal(c.useful, 10000, 1e-9);
    assert_float_equal(c.wasted, 20000, 1e-9);
    assert_float_equal(c.concurrency, 2.0 * 10 / 15, 1e-12);
    assert_float_equal(c.ipc_near, 2.0 * 10 * 2 / (2 * 30), 1e-12);
    struct pme_pair_acc zero = {0};
    pme_concurrency_estimate(&zero, 1000, 10, 4, 30, &c);
    assert_float_equal(c.concurrency, 0, 0);
    assert_float_equal(c.ipc_near, 0, 0);
    assert_float_equal(pme_window_estimate(0, 0), 0, 0);
    assert_float_equal(pme_window_estimate(10, 1), 19, 1e-12);
    assert_float_equal(pme_window_estimate(10, 100), 10, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count_estimate_known_values),
        cmocka_unit_test(test_envelope),
        cmocka_unit_test(test_rate_estimate_known_values),
        cmocka_unit_test(test_count_estimates_converge_like_the_paper_says),
        cmocka_unit_test(test_pair_analysis_by_hand),
        cmocka_unit_test(test_paired_sampling_estimates_wasted_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
