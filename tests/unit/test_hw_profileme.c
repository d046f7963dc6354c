/*
 * The ProfileMe unit (hw-model/model/profileme.c) on synthetic fetch
 * streams: configuration checks (garbage turns the unit off, never
 * crashes), exact intervals, records and pairs in the ring (a pair is
 * never split: both written or both dropped and counted), and statistics
 * with deterministic seeds and fixed thresholds: tags uniform over the
 * fetched instructions, paired gaps uniform over 1..W (chi-square tests at
 * p = 1e-6, with a biased sampler as the negative control).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hw-model/cycle-causes.h"
#include "hw-model/model/profileme.h"

static struct pmu_window *win;
static struct pme_unit unit;

static int setup(void **state)
{
    (void)state;
    win = calloc(1, sizeof *win);
    pme_unit_init(&unit);
    return win ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(win);
    return 0;
}

/* Fetches one instruction at pc; a tagged one is done at once. */
static bool fetch(uint64_t pc, uint64_t cycle, struct pmu_window *w)
{
    if (!pme_unit_fetch(&unit))
        return false;
    struct pme_record r = {.pc = pc, .fetch_cycle = cycle, .events = 1u << PME_EVB_RETIRED};
    pme_unit_done(&unit, &r, w);
    return true;
}

/* Chi-square statistic of counts against equal expectations. */
static double chi_square(const uint64_t *count, unsigned n)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += count[i];
    double expect = (double)total / n, x = 0;
    for (unsigned i = 0; i < n; i++)
        x += ((double)count[i] - expect) * ((double)count[i] - expect) / expect;
    return x;
}

/* Upper 1e-6 points of chi-square (regularised incomplete gamma, inverted
 * numerically offline): a correct sampler fails with probability 1e-6. */
#define CHI2_96_P1E6 176.78
#define CHI2_49_P1E6 111.14

static void test_bad_configurations_turn_the_unit_off(void **state)
{
    (void)state;
    struct pme_config bad[] = {
        {.mode = 3, .interval_min = 1000, .interval_max = 2000},
        {.mode = PME_SINGLE, .interval_min = PME_MIN_INTERVAL - 1, .interval_max = 2000},
        {.mode = PME_SINGLE, .interval_min = 2000, .interval_max = 1000},
        {.mode = PME_SINGLE, .interval_min = 1000, .interval_max = 1000 + (1ull << 31)},
        {.mode = PME_PAIRED, .pair_window = 0, .interval_min = 1000, .interval_max = 2000},
        {.mode = PME_PAIRED, .pair_window = PME_MAX_PAIR_WINDOW + 1, .interval_min = 1000, .interval_max = 2000},
        {.mode = UINT32_MAX, .pair_window = UINT32_MAX, .interval_min = UINT64_MAX, .interval_max = UINT64_MAX},
        {.mode = PME_DRAW_GEOMETRIC, .interval_min = 1000, .interval_max = 2000},
        {.mode = PME_SINGLE | PME_DRAW_GEOMETRIC | 0x400, .interval_min = 1000, .interval_max = 2000},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct pme_config good = {.mode = PME_SINGLE, .interval_min = 100, .interval_max = 100};
        assert_int_equal(pme_unit_configure(&unit, &good, 1), 0);
        assert_int_equal(pme_unit_configure(&unit, &bad[i], 1), -1);
        assert_int_equal(unit.mode, PME_OFF);
        for (int k = 0; k < 10000; k++)
            assert_false(fetch(0x1000, k, win));
    }
    /* Random garbage: never a crash, and a unit that is on is in range. */
    uint32_t rng = 12345;
    for (int i = 0; i < 100000; i++) {
        struct pme_config c;
        uint32_t *words = (uint32_t *)&c;
        for (size_t k = 0; k < sizeof c / 4; k++)
            words[k] = model_minstd(&rng) ^ (model_minstd(&rng) << 16);
        if (i & 1)
            c.mode = i % 3;
        if (pme_unit_configure(&unit, &c, (uint64_t)i) == 0 && unit.mode != PME_OFF) {
            assert_true(unit.interval_min >= PME_MIN_INTERVAL && unit.interval_max >= unit.interval_min);
            assert_true(unit.geometric ? unit.countdown >= 1
                                       : unit.countdown >= unit.interval_min && unit.countdown <= unit.interval_max);
        }
    }
}

static void test_single_intervals_and_ring_accounting(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE, .interval_min = 64, .interval_max = 80};
    assert_int_equal(pme_unit_configure(&unit, &c, 7), 0);
    uint64_t last = 0, tags = 0;
    for (uint64_t i = 1; i <= 64 * PME_RING_ENTRIES * 2; i++) {
        if (!fetch(i, i / 4, win))
            continue;
        if (tags++) {
            assert_true(i - last >= 64 && i - last <= 80);
        }
        last = i;
    }
    /* The firmware never drained: the ring holds PME_RING_ENTRIES, the rest
     * were dropped and counted. */
    assert_int_equal(unit.samples, tags);
    assert_int_equal(win->pme_samples, tags);
    assert_int_equal(win->pme_head, PME_RING_ENTRIES);
    assert_int_equal(win->pme_dropped, tags - PME_RING_ENTRIES);
    for (unsigned k = 0; k < PME_RING_ENTRIES; k++)
        assert_int_equal(win->pme_ring[k].slot, PME_SLOT_SINGLE);
    /* Drained: records flow again. */
    win->pme_tail = win->pme_head;
    uint64_t dropped = win->pme_dropped;
    for (uint64_t i = 0; i < 1000; i++)
        fetch(i, i, win);
    assert_true(win->pme_head > PME_RING_ENTRIES);
    assert_int_equal(win->pme_dropped, dropped);
    /* A tail beyond head (guest garbage) drops, never overruns. */
    win->pme_tail = win->pme_head + 5;
    uint64_t head = win->pme_head;
    for (uint64_t i = 0; i < 1000; i++)
        fetch(i, i, win);
    assert_int_equal(win->pme_head, head);
    assert_true(win->pme_dropped > dropped);
}

static void test_pairs_are_adjacent_and_never_split(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_PAIRED, .pair_window = 40, .interval_min = 200, .interval_max = 300};
    assert_int_equal(pme_unit_configure(&unit, &c, 99), 0);
    uint64_t first_index = 0;
    unsigned pairs = 0;
    for (uint64_t i = 1; pairs < 100; i++) {
        uint64_t cycle = 1000 + i / 3;
        if (!fetch(i, cycle, win))
            continue;
        if (!unit.pending) {
            /* the second of a pair was just written with its partner */
            uint64_t h = win->pme_head;
            assert_int_equal(h % 2, 0);
            const struct pme_record *a = &win->pme_ring[(h - 2) % PME_RING_ENTRIES];
            const struct pme_record *b = &win->pme_ring[(h - 1) % PME_RING_ENTRIES];
            assert_int_equal(a->slot, PME_SLOT_FIRST);
            assert_int_equal(b->slot, PME_SLOT_SECOND);
            assert_int_equal(a->pc, first_index);
            assert_int_equal(b->pc, i);
            assert_int_equal(b->gap, i - first_index);
            assert_true(b->gap >= 1 && b->gap <= 40);
            assert_int_equal(b->distance, b->fetch_cycle - a->fetch_cycle);
            pairs++;
        } else {
            first_index = i;
            assert_int_equal(win->pme_head % 2, 0);     /* the first waits for its partner */
        }
    }
    assert_int_equal(unit.samples, 2 * pairs);
    /* A ring with room for one record: the pair is dropped whole. */
    win->pme_tail = win->pme_head - (PME_RING_ENTRIES - 1);
    uint64_t head = win->pme_head, samples = unit.samples;
    while (unit.samples == samples)
        fetch(1, 1, win);
    assert_int_equal(unit.samples, samples + 2);
    assert_int_equal(win->pme_head, head);
    assert_int_equal(win->pme_dropped, 2);
}

static void test_same_seed_same_samples(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE, .interval_min = 64, .interval_max = 5000};
    uint64_t tags[3][50];
    uint64_t seeds[3] = {5, 5, 6};
    for (int run = 0; run < 3; run++) {
        pme_unit_init(&unit);
        assert_int_equal(pme_unit_configure(&unit, &c, seeds[run]), 0);
        int n = 0;
        for (uint64_t i = 0; n < 50; i++)
            if (fetch(i, i, NULL))
                tags[run][n++] = i;
    }
    assert_memory_equal(tags[0], tags[1], sizeof tags[0]);
    assert_memory_not_equal(tags[0], tags[2], sizeof tags[0]);
}

/* Tags over a loop of 97 instructions: tagged PCs uniform (chi-square,
 * 96 degrees of freedom).  Returns the statistic. */
static double loop_tag_chi_square(uint64_t min, uint64_t max, uint64_t seed)
{
    struct pme_config c = {.mode = PME_SINGLE, .interval_min = min, .interval_max = max};
    pme_unit_init(&unit);
    assert_int_equal(pme_unit_configure(&unit, &c, seed), 0);
    uint64_t count[97] = {0};
    unsigned tags = 0;
    for (uint64_t i = 0; tags < 200000; i++)
        if (fetch(i % 97, i, NULL)) {
            count[i % 97]++;
            tags++;
        }
    return chi_square(count, 97);
}

static void test_tags_are_uniform_over_fetched_instructions(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 3; seed++)
        assert_true(loop_tag_chi_square(64, 1000, seed) < CHI2_96_P1E6);
    /* The negative control: a fixed interval of two loop trips tags one PC. */
    assert_true(loop_tag_chi_square(194, 194, 1) > CHI2_96_P1E6);
    /* The intervals themselves are uniform over [min, max]: 50 values. */
    struct pme_config c = {.mode = PME_SINGLE, .interval_min = 100, .interval_max = 149};
    pme_unit_init(&unit);
    assert_int_equal(pme_unit_configure(&unit, &c, 42), 0);
    uint64_t count[50] = {0}, last = 0;
    unsigned tags = 0;
    for (uint64_t i = 1; tags < 100000; i++)
        if (fetch(i, i, NULL)) {
            if (tags++)
                count[i - last - 100]++;
            last = i;
        }
    assert_true(chi_square(count, 50) < CHI2_49_P1E6);
}

/* Intervals between tags under a configuration, 1 .. 2000 (longer ones
 * in the last). */
static void intervals(uint32_t mode, uint64_t lo, uint64_t hi, unsigned ntags, uint64_t *count, double *mean)
{
    struct pme_config c = {.mode = mode, .interval_min = lo, .interval_max = hi};
    pme_unit_init(&unit);
    assert_int_equal(pme_unit_configure(&unit, &c, 5), 0);
    uint64_t last = 0, sum = 0;
    unsigned tags = 0;
    for (uint64_t i = 1; tags <= ntags; i++)
        if (fetch(i, i, NULL)) {
            if (tags++) {
                count[i - last < 2000 ? i - last : 2000]++;
                sum += i - last;
            }
            last = i;
        }
    *mean = (double)sum / ntags;
}

static void test_a_geometric_draw_tags_every_instruction_alike_however_far_the_last_tag_is(void **state)
{
    (void)state;
    enum { N = 200000 };
    static uint64_t geo[2001], uni[2001];
    double geo_mean, uni_mean;
    intervals(PME_SINGLE | PME_DRAW_GEOMETRIC, 100, 300, N, geo, &geo_mean);
    intervals(PME_SINGLE, 100, 300, N, uni, &uni_mean);
    /* the same mean as the uniform draw over MIN-MAX */
    assert_true(geo_mean > 196 && geo_mean < 204);
    assert_true(uni_mean > 198 && uni_mean < 202);
    /* Memoryless: of the intervals that reach d, the same share ends in the
     * next 50 fetches whatever d is (1 - (1 - 1/200)^50 = 0.222); the
     * uniform draw (the control) never ends one in its first 100 and ends
     * every one by 300. */
    for (unsigned d = 1; d <= 351; d += 50) {
        uint64_t reach = 0, end = 0;
        for (unsigned k = d; k <= 2000; k++)
            reach += geo[k];
        for (unsigned k = d; k < d + 50; k++)
            end += geo[k];
        double hazard = (double)end / (double)reach;
        assert_true(hazard > 0.207 && hazard < 0.237);
    }
    uint64_t uni_early = 0, geo_early = 0;
    for (unsigned k = 1; k < 100; k++) {
        uni_early += uni[k];
        geo_early += geo[k];
    }
    assert_int_equal(uni_early, 0);
    assert_true(geo_early > N / 3);     /* 1 - (1 - 1/200)^99 = 0.391 */
}

static void test_paired_gaps_are_uniform_over_the_window(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_PAIRED, .pair_window = 50, .interval_min = 64, .interval_max = 200};
    assert_int_equal(pme_unit_configure(&unit, &c, 2024), 0);
    uint64_t count[50] = {0};
    unsigned pairs = 0;
    uint64_t first = 0;
    for (uint64_t i = 1; pairs < 100000; i++) {
        if (!fetch(i, i, NULL))
            continue;
        if (unit.pending) {
            first = i;
        } else {
            uint64_t gap = i - first;
            assert_true(gap >= 1 && gap <= 50);
            count[gap - 1]++;
            pairs++;
        }
    }
    assert_true(chi_square(count, 50) < CHI2_49_P1E6);
    /* The negative control: gaps 1..49 only (a window one short) fail. */
    uint64_t skewed[50];
    memcpy(skewed, count, sizeof skewed);
    skewed[48] += skewed[49];
    skewed[49] = 0;
    assert_true(chi_square(skewed, 50) > CHI2_49_P1E6);
}

/* Retire cycle of the i-th retired instruction of a synthetic stream
 * whose groups have sizes 1, 2, 3, 4, 1, 2, ... (a retire width of 4). */
static uint64_t group_cycle(uint64_t i, unsigned *size)
{
    uint64_t block = i / 10, r = i % 10;        /* 1 + 2 + 3 + 4 = 10 a block */
    unsigned k = r < 1 ? 0 : r < 3 ? 1 : r < 6 ? 2 : 3;
    *size = k + 1;
    return 100 + 7 * block + 2 * k;             /* gaps between the groups */
}

/* The pairs written since *seen: each record's group as the stream's; the
 * ring is emptied as a reader would. */
static unsigned check_groups(uint64_t *seen)
{
    unsigned same_group = 0;
    assert_int_equal((win->pme_head - *seen) % 2, 0);
    for (uint64_t h = *seen; h < win->pme_head; h += 2) {
        const struct pme_record *a = &win->pme_ring[h % PME_RING_ENTRIES];
        const struct pme_record *b = &win->pme_ring[(h + 1) % PME_RING_ENTRIES];
        assert_int_equal(a->slot, PME_SLOT_FIRST);
        assert_int_equal(b->slot, PME_SLOT_SECOND);
        unsigned sa, sb;
        uint64_t ca = group_cycle(a->pc, &sa), cb = group_cycle(b->pc, &sb);
        assert_int_equal(PME_EVENTS_GROUP(a->events), sa);
        assert_int_equal(PME_EVENTS_GROUP(b->events), sb);
        assert_true(a->events >> PME_EVB_RETIRED & 1);
        same_group += ca == cb;
    }
    *seen = win->pme_tail = win->pme_head;
    return same_group;
}

static void test_retired_records_carry_their_retire_groups_size_once_the_cycle_is_over(void **state)
{
    (void)state;
    /* pairs with their second often in the first's group (window 2) */
    struct pme_config c = {.mode = PME_PAIRED, .pair_window = 2, .interval_min = 64, .interval_max = 90};
    assert_int_equal(pme_unit_configure(&unit, &c, 7), 0);
    uint64_t seen = 0;
    unsigned same_group = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        unsigned size;
        uint64_t cycle = group_cycle(i, &size);
        pme_unit_retired(&unit, cycle, win);
        same_group += check_groups(&seen);
        if (pme_unit_fetch(&unit)) {
            struct pme_record r = {.pc = i, .fetch_cycle = cycle, .events = 1u << PME_EVB_RETIRED};
            pme_unit_done(&unit, &r, win);
            assert_int_equal(win->pme_head, seen);     /* its group is still open */
        }
    }
    pme_unit_close(&unit, win);
    same_group += check_groups(&seen);
    assert_int_equal(unit.nheld, 0);
    assert_true(seen > 4000);
    assert_int_equal(seen, unit.samples);
    assert_int_equal(win->pme_dropped, 0);
    assert_true(same_group > 10);       /* the case where both wait together was run */
}

static void test_a_flush_ends_the_group_and_aborted_records_keep_their_place(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE, .interval_min = PME_MIN_INTERVAL, .interval_max = PME_MIN_INTERVAL};
    assert_int_equal(pme_unit_configure(&unit, &c, 3), 0);
    uint64_t i = 0;
    pme_unit_retired(&unit, 10, win);           /* three retire in cycle 10 ... */
    pme_unit_retired(&unit, 10, win);
    while (!pme_unit_fetch(&unit))
        i++;
    pme_unit_retired(&unit, 10, win);           /* (the tagged one is the third) */
    struct pme_record r = {.pc = 0x100, .events = 1u << PME_EVB_RETIRED};
    pme_unit_done(&unit, &r, win);
    assert_int_equal(win->pme_head, 0);
    /* ... a bad path follows (the caller closes the group) and is tagged */
    assert_true(pme_unit_close(&unit, win));
    assert_int_equal(win->pme_head, 1);
    assert_int_equal(PME_EVENTS_GROUP(win->pme_ring[0].events), 3);
    while (!pme_unit_fetch(&unit))
        i++;
    struct pme_record bad = {.pc = 0x200, .events = 1u << PME_EVB_BAD_PATH};
    pme_unit_done(&unit, &bad, win);            /* not retired: out at once */
    assert_int_equal(win->pme_head, 2);
    assert_int_equal(PME_EVENTS_GROUP(win->pme_ring[1].events), 0);
    /* a retired record held, then an aborted one behind it: in fetch order */
    pme_unit_retired(&unit, 20, win);
    while (!pme_unit_fetch(&unit))
        i++;
    struct pme_record r2 = {.pc = 0x300, .events = 1u << PME_EVB_RETIRED};
    pme_unit_done(&unit, &r2, win);
    while (!pme_unit_fetch(&unit))
        i++;
    struct pme_record trap = {.pc = 0x400, .events = 1u << PME_EVB_TRAP};
    pme_unit_done(&unit, &trap, win);
    assert_int_equal(win->pme_head, 2);
    assert_int_equal(unit.samples, 4);          /* produced, counted, held */
    assert_true(pme_unit_retired(&unit, 25, win));      /* a later cycle closes it */
    assert_int_equal(win->pme_head, 4);
    assert_int_equal(win->pme_ring[2].pc, 0x300);
    assert_int_equal(PME_EVENTS_GROUP(win->pme_ring[2].events), 1);
    assert_int_equal(win->pme_ring[3].pc, 0x400);
    assert_int_equal(win->pme_samples, 4);
}

static void test_without_retirements_reported_records_go_out_at_once_without_a_group(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE, .interval_min = 100, .interval_max = 100};
    assert_int_equal(pme_unit_configure(&unit, &c, 1), 0);
    for (uint64_t i = 0; i < 1000; i++)
        fetch(i, i, win);
    assert_int_equal(win->pme_head, 10);
    for (unsigned k = 0; k < 10; k++)
        assert_int_equal(PME_EVENTS_GROUP(win->pme_ring[k].events), 0);
}

/* Time draw (pmu-window.h PME_DRAW_TIME): one execution owning `units`
 * CYCLE_UNIT-ths passes the unit; its records (if any) go to the ring. */
static unsigned owns(uint64_t pc, uint64_t units, uint32_t group)
{
    unsigned k = pme_unit_time(&unit, units);
    if (k) {
        struct pme_record r = {.pc = pc, .events = 1u << PME_EVB_RETIRED | group << PME_EVENTS_GROUP_SHIFT};
        pme_unit_time_done(&unit, &r, k, win);
    }
    return k;
}

static void test_the_time_draw_never_tags_a_fetch_and_draws_in_cycle_units(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE | PME_DRAW_TIME, .interval_min = 64, .interval_max = 64};
    assert_int_equal(pme_unit_configure(&unit, &c, 11), 0);
    assert_true(unit.time);
    for (unsigned i = 0; i < 100000; i++)
        assert_false(fetch(i, i, win));         /* bad-path or good, fetches never tag */
    assert_int_equal(win->pme_head, 0);
    /* uniform over the units of 64 cycles: ((64 - 1) U, 64 U] */
    for (unsigned i = 0; i < 1000; i++) {
        uint64_t t = pme_unit_draw_time(&unit);
        assert_true(t > 63ull * CYCLE_UNIT && t <= 64ull * CYCLE_UNIT);
    }
    /* a draw in whole cycles would always land on a cycle's first unit */
    unsigned off_boundary = 0;
    for (unsigned i = 0; i < 100; i++)
        off_boundary += pme_unit_draw_time(&unit) % CYCLE_UNIT != 1;
    assert_true(off_boundary > 90);
    /* without the time draw the unit samples no time */
    struct pme_config f = {.mode = PME_SINGLE, .interval_min = 64, .interval_max = 64};
    assert_int_equal(pme_unit_configure(&unit, &f, 11), 0);
    assert_int_equal(pme_unit_time(&unit, 1000ull * CYCLE_UNIT), 0);
    /* unknown mode bits beside it still turn the unit off */
    struct pme_config bad = {.mode = PME_SINGLE | PME_DRAW_TIME | 0x800, .interval_min = 64, .interval_max = 64};
    assert_int_equal(pme_unit_configure(&unit, &bad, 11), -1);
    assert_int_equal(unit.mode, PME_OFF);
}

static void test_a_time_sample_tags_the_execution_whose_cycles_cover_the_sample_point(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE | PME_DRAW_TIME, .interval_min = 64, .interval_max = 64};
    assert_int_equal(pme_unit_configure(&unit, &c, 5), 0);
    /* executions of a quarter cycle each (four retiring together): the
     * first sample point, T units in, lies in execution ceil(T / (U/4)) */
    uint64_t q = CYCLE_UNIT / 4, t = unit.time_left;
    uint64_t want = (t + q - 1) / q;
    for (uint64_t i = 1; i <= want; i++)
        assert_int_equal(owns(i, q, 4), i == want);
    assert_int_equal(win->pme_head, 1);
    assert_int_equal(win->pme_ring[0].pc, want);
    assert_int_equal(PME_EVENTS_GROUP(win->pme_ring[0].events), 4);
    assert_int_equal(win->pme_ring[0].slot, PME_SLOT_SINGLE);
    /* the unit left over is where the next interval starts: the next
     * point is the new draw minus what the tagged one had past the point */
    uint64_t past = want * q - t;
    assert_true(unit.time_left > 63ull * CYCLE_UNIT - past && unit.time_left <= 64ull * CYCLE_UNIT - past);
    uint64_t next = unit.time_left, want2 = want + (next + q - 1) / q;
    for (uint64_t i = want + 1; i <= want2; i++)
        assert_int_equal(owns(i, q, 4), i == want2);
    assert_int_equal(win->pme_head, 2);
    assert_int_equal(win->pme_ring[1].pc, want2);
}

static void test_an_execution_owning_several_sample_points_gives_that_many_consecutive_records(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE | PME_DRAW_TIME, .interval_min = 64, .interval_max = 64};
    assert_int_equal(pme_unit_configure(&unit, &c, 9), 0);
    uint64_t t = unit.time_left;
    /* 1000 cycles from the start: the first point at t, then every
     * 63-64 cycles: 1 + floor((1000 U - t) / 64 U) .. 1 + floor((1000 U - t) / (63 U)) */
    uint64_t units = 1000ull * CYCLE_UNIT;
    unsigned k = owns(77, units, 1);
    assert_true(k >= 1 + (units - t) / (64ull * CYCLE_UNIT) && k <= 1 + (units - t) / (63ull * CYCLE_UNIT));
    assert_true(k >= 15 && k <= 16);
    assert_int_equal(win->pme_head, k);
    assert_int_equal(unit.samples, k);
    for (unsigned i = 0; i < k; i++)
        assert_int_equal(win->pme_ring[i].pc, 77);
    /* what is left of the run after the last point counts toward the next */
    assert_true(unit.time_left <= 64ull * CYCLE_UNIT);
}

static void test_time_samples_fall_on_executions_in_proportion_to_their_cycles(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_SINGLE | PME_DRAW_TIME | PME_DRAW_GEOMETRIC, .interval_min = 90,
                           .interval_max = 110};
    assert_int_equal(pme_unit_configure(&unit, &c, 3), 0);
    /* a loop: A 1 cycle, B 3 cycles (a stall at the head), C and D
     * retiring together (half a cycle each), E 40 cycles (a miss) */
    const uint64_t cost[5] = {CYCLE_UNIT, 3ull * CYCLE_UNIT, CYCLE_UNIT / 2, CYCLE_UNIT / 2, 40ull * CYCLE_UNIT};
    uint64_t count[5] = {0}, total = 0;
    for (unsigned it = 0; it < 200000; it++)
        for (unsigned j = 0; j < 5; j++) {
            unsigned k = pme_unit_time(&unit, cost[j]);
            count[j] += k;
            total += k;
        }
    double cycles = 45;     /* per iteration */
    const double want[5] = {1 / cycles, 3 / cycles, 0.5 / cycles, 0.5 / cycles, 40 / cycles};
    for (unsigned j = 0; j < 5; j++) {
        double e = want[j] * (double)total;
        assert_true(fabs((double)count[j] - e) < 5 * sqrt(e));
    }
    /* a sampler in fetch order gives each a fifth: the negative control */
    assert_true(fabs((double)total / 5 - want[0] * (double)total) > 5 * sqrt(want[0] * (double)total));
}

static void test_paired_time_records_are_consecutive_samples_sent_as_pairs(void **state)
{
    (void)state;
    struct pme_config c = {.mode = PME_PAIRED | PME_DRAW_TIME, .pair_window = 40, .interval_min = 64,
                           .interval_max = 64};
    assert_int_equal(pme_unit_configure(&unit, &c, 4), 0);
    unsigned total = 0;
    for (uint64_t i = 1; i <= 2000; i++)     /* ~470 samples: the ring never fills */
        total += owns(i, i % 7 ? CYCLE_UNIT : 100ull * CYCLE_UNIT, 1);
    assert_true(total > 100);
    assert_int_equal(unit.samples, total & ~1u);        /* an odd last one waits for its partner */
    assert_int_equal(win->pme_head, total & ~1u);
    for (unsigned k = 0; k + 1 < win->pme_head; k += 2) {
        assert_int_equal(win->pme_ring[k].slot, PME_SLOT_FIRST);
        assert_int_equal(win->pme_ring[k + 1].slot, PME_SLOT_SECOND);
        assert_true(win->pme_ring[k].pc <= win->pme_ring[k + 1].pc);    /* in program order */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bad_configurations_turn_the_unit_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_single_intervals_and_ring_accounting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pairs_are_adjacent_and_never_split, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_seed_same_samples, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tags_are_uniform_over_fetched_instructions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_geometric_draw_tags_every_instruction_alike_however_far_the_last_tag_is,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_paired_gaps_are_uniform_over_the_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retired_records_carry_their_retire_groups_size_once_the_cycle_is_over,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_flush_ends_the_group_and_aborted_records_keep_their_place, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_without_retirements_reported_records_go_out_at_once_without_a_group,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_time_draw_never_tags_a_fetch_and_draws_in_cycle_units, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_time_sample_tags_the_execution_whose_cycles_cover_the_sample_point,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_an_execution_owning_several_sample_points_gives_that_many_consecutive_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_time_samples_fall_on_executions_in_proportion_to_their_cycles, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_paired_time_records_are_consecutive_samples_sent_as_pairs, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
