/*
 * The event counters' guest interface (hw-model/plugin/counter-unit.c)
 * against a buggy guest: garbage in the register window never enables a
 * counter with an impossible configuration and never makes the model write
 * outside the ring; a ring the guest does not drain drops records and
 * counts every one; periods stay in their range.  Interrupt delivery is
 * not resolved here (no QEMU), so irq_delivery_check is a no-op.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hw-model/plugin/counter-unit.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static struct pmu_window *new_window(void)
{
    struct pmu_window *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->magic = PMU_MAGIC;
    return w;
}

static void garbage_never_enables_an_impossible_counter(void **state)
{
    (void)state;
    struct pmu_window *w = new_window();
    struct counter_unit u;
    counter_unit_init(&u, w, 0);
    unsigned enabled = 0;
    for (int round = 0; round < 20000; round++) {
        /* The firmware-written header: counters, seed, generation, ring tail. */
        uint8_t *header = (uint8_t *)w;
        for (size_t i = offsetof(struct pmu_window, config_gen); i < offsetof(struct pmu_window, ring_head); i++)
            header[i] = (uint8_t)rnd();
        if (round % 2)          /* half the time something plausible */
            for (unsigned i = 0; i < PMU_COUNTERS; i++) {
                w->counters[i].enable = 1;
                w->counters[i].event %= PMU_EV_COUNT + 2;
                w->counters[i].period_min %= 5000;
                w->counters[i].period_max = w->counters[i].period_min + rnd() % 3000 - 500;
            }
        w->config_gen = (uint64_t)round + 1;
        counter_unit_sync(&u);
        for (unsigned i = 0; i < PMU_COUNTERS; i++) {
            const struct counter_state *c = &u.c[i];
            if (!c->enabled)
                continue;
            enabled++;
            assert_true(c->event < PMU_EV_COUNT);
            assert_true(c->period_min >= PMU_MIN_PERIOD && c->period_max >= c->period_min);
            assert_true(c->remaining >= (int64_t)c->period_min && c->remaining <= (int64_t)c->period_max);
        }
        /* Overflows with a garbage tail: only ring slots are written. */
        w->ring_tail = rnd() % 3 ? w->ring_head - rnd() % (2 * PMU_RING_ENTRIES) : rnd();
        for (int k = 0; k < 8; k++) {
            uint64_t head = w->ring_head;
            struct pmu_record r = {.pc = rnd(), .event = PMU_EV_CYCLES};
            counter_unit_overflow(&u, &r);
            assert_true(w->ring_head == head || w->ring_head == head + 1);
        }
    }
    assert_true(enabled > 1000);      /* the plausible half did enable counters */
    assert_int_equal(u.overflows, 20000 * 8);
    assert_int_equal(w->overflows, u.overflows);
    assert_int_equal(w->ring_dropped, u.dropped);
    free(w);
}

static void a_full_ring_drops_and_counts_every_record(void **state)
{
    (void)state;
    struct pmu_window *w = new_window();
    struct counter_unit u;
    counter_unit_init(&u, w, 0);
    for (uint64_t k = 0; k < PMU_RING_ENTRIES + 123; k++) {
        struct pmu_record r = {.pc = 0x1000000 + 4 * k, .event = PMU_EV_DMISS};
        counter_unit_overflow(&u, &r);
    }
    assert_int_equal(w->ring_head, PMU_RING_ENTRIES);
    assert_int_equal(w->ring_dropped, 123);
    assert_int_equal(w->overflows, PMU_RING_ENTRIES + 123);
    assert_int_equal(w->ring[5].pc, 0x1000000 + 4 * 5);
    /* The guest drains half: room again, in order. */
    w->ring_tail = PMU_RING_ENTRIES / 2;
    struct pmu_record r = {.pc = 0x2000000, .event = PMU_EV_DMISS};
    counter_unit_overflow(&u, &r);
    assert_int_equal(w->ring_head, PMU_RING_ENTRIES + 1);
    assert_int_equal(w->ring[0].pc, 0x2000000);
    assert_int_equal(w->ring_dropped, 123);
    free(w);
}

static void periods_cover_their_range_uniformly(void **state)
{
    (void)state;
    struct pmu_window *w = new_window();
    w->counters[0] = (struct pmu_counter_config){.event = PMU_EV_CYCLES, .enable = 1,
                                                 .period_min = 60000, .period_max = 64000};
    w->seed = 42;
    w->config_gen = 1;
    struct counter_unit u;
    counter_unit_init(&u, w, 0);
    counter_unit_sync(&u);
    assert_true(u.c[0].enabled);
    enum { N = 200000, BINS = 8 };
    unsigned bins[BINS] = {0};
    for (int i = 0; i < N; i++) {
        int64_t p = counter_unit_period(&u, 0);
        assert_true(p >= 60000 && p <= 64000);
        bins[(p - 60000) * BINS / 4001]++;
    }
    /* chi-square, 7 degrees of freedom: 35 is p ~ 1e-5 */
    double chi = 0, e = (double)N / BINS;
    for (int b = 0; b < BINS; b++)
        chi += (bins[b] - e) * (bins[b] - e) / e;
    assert_true(chi < 35);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(garbage_never_enables_an_impossible_counter),
        cmocka_unit_test(a_full_ring_drops_and_counts_every_record),
        cmocka_unit_test(periods_cover_their_range_uniformly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
