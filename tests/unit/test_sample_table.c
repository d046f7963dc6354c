/*
 * DCPI's per-core hash table and overflow buffers
 * (firmware/profiler/sample-table.c) on the host: both replacement
 * policies, hand-over of full buffers, drops when the flusher is behind,
 * the flush, and the accounting invariant (every sample recorded is in the
 * table, in a buffer or counted as dropped, exactly once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "firmware/profiler/sample-table.h"

#define PC0 0x1000000ull

static struct sample_area *new_area(enum table_policy policy)
{
    struct sample_area *a = aligned_alloc(64, sizeof *a);
    assert_non_null(a);
    sample_table_init(a, policy);
    return a;
}

static int area_setup(void **state)
{
    *state = NULL;
    return 0;
}

static int area_teardown(void **state)
{
    free(*state);
    return 0;
}

/* The bucket (pc, event) lands in, found by recording it into an empty
 * scratch table: the test does not depend on the hash function. */
static unsigned bucket_of_key(struct sample_area *scratch, uint64_t pc, unsigned event)
{
    sample_table_record(scratch, pc, event);
    for (unsigned i = 0; i < TABLE_ENTRIES; i++)
        if (scratch->table[i].count && scratch->table[i].pc == pc && scratch->table[i].event == event) {
            memset(&scratch->table[i], 0, sizeof scratch->table[i]);
            return i / scratch->st.ways;
        }
    fail_msg("recorded key not in the table");
    return 0;
}

/* n PCs that share one bucket: PCs a table's worth of buckets apart
 * usually do (a quick guess, checked); else a search. */
static void colliding_pcs(enum table_policy policy, uint64_t *pcs, unsigned n)
{
    struct sample_area *scratch = new_area(policy);
    unsigned want = bucket_of_key(scratch, PC0, 1), found = 0;
    uint64_t stride = 4ull * scratch->st.nbuckets;
    for (unsigned k = 0; found < n && k < n; k++)
        if (bucket_of_key(scratch, PC0 + k * stride, 1) == want)
            pcs[found++] = PC0 + k * stride;
    if (found < n) {
        found = 0;
        for (uint64_t pc = PC0; found < n; pc += 4)
            if (bucket_of_key(scratch, pc, 1) == want)
                pcs[found++] = pc;
    }
    free(scratch);
}

static uint64_t table_count(const struct sample_area *a, uint64_t pc, unsigned event)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < TABLE_ENTRIES; i++)
        if (a->table[i].count && a->table[i].pc == pc && a->table[i].event == event)
            n += a->table[i].count;
    return n;
}

static uint64_t buffered(const struct sample_area *a, uint64_t pc, unsigned event)
{
    uint64_t n = 0;
    for (unsigned b = 0; b < 2; b++)
        for (uint32_t i = 0; i < a->ovf[b].fill; i++)
            if (a->ovf[b].e[i].pc == pc && a->ovf[b].e[i].event == event)
                n += a->ovf[b].e[i].count;
    return n;
}

/* Samples in the table and the buffers, plus those counted dropped. */
static uint64_t accounted(const struct sample_area *a)
{
    uint64_t n = a->st.dropped;
    for (unsigned i = 0; i < TABLE_ENTRIES; i++)
        n += a->table[i].count;
    for (unsigned b = 0; b < 2; b++)
        for (uint32_t i = 0; i < a->ovf[b].fill; i++)
            n += a->ovf[b].e[i].count;
    return n;
}

static void hits_count_in_place_and_events_are_distinct_keys(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_RR4);
    for (int i = 0; i < 5; i++)
        sample_table_record(a, PC0, 1);
    sample_table_record(a, PC0, 2);
    assert_int_equal(table_count(a, PC0, 1), 5);
    assert_int_equal(table_count(a, PC0, 2), 1);
    assert_int_equal(a->st.samples, 6);
    assert_int_equal(a->st.hits, 4);
    assert_int_equal(a->st.misses, 2);
    assert_int_equal(a->st.evicted, 0);
}

static void round_robin_evicts_each_way_in_turn(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_RR4);
    uint64_t pc[8];
    colliding_pcs(POLICY_RR4, pc, 8);
    for (unsigned i = 0; i < 4; i++)
        sample_table_record(a, pc[i], 1);
    assert_int_equal(a->st.evicted, 0);         /* four ways: all fit */
    for (unsigned i = 4; i < 8; i++) {
        sample_table_record(a, pc[i], 1);
        /* the i-th new PC evicts the (i-4)-th: round robin from way 0 */
        assert_int_equal(buffered(a, pc[i - 4], 1), 1);
        assert_int_equal(table_count(a, pc[i - 4], 1), 0);
        assert_int_equal(table_count(a, pc[i], 1), 1);
    }
    assert_int_equal(a->st.evicted, 4);
    assert_int_equal(a->ovf[0].fill, 4);
    assert_int_equal(accounted(a), a->st.samples);
}

static void swap_to_front_moves_a_hit_forward_and_evicts_the_last_way(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    uint64_t pc[7];
    colliding_pcs(POLICY_STF6, pc, 7);
    for (unsigned i = 0; i < 6; i++)
        sample_table_record(a, pc[i], 1);
    /* pc[5] is in the last way; a hit swaps it one way forward (pc[4]
     * goes to the last way), a second hit one more (pc[3] takes its place,
     * pc[4] stays last) */
    sample_table_record(a, pc[5], 1);
    sample_table_record(a, pc[5], 1);
    sample_table_record(a, pc[6], 1);           /* a miss evicts the last way: pc[4] */
    assert_int_equal(buffered(a, pc[4], 1), 1);
    assert_int_equal(table_count(a, pc[3], 1), 1);
    assert_int_equal(table_count(a, pc[5], 1), 3);
    assert_int_equal(table_count(a, pc[6], 1), 1);
    assert_int_equal(a->st.evicted, 1);
    assert_int_equal(accounted(a), a->st.samples);
}

static void a_full_buffer_is_handed_over_and_the_other_one_fills(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_RR4);
    /* distinct PCs: once their buckets are full, each one evicts another */
    for (uint64_t pc = PC0; a->st.evicted < OVERFLOW_ENTRIES + 1; pc += 4)
        sample_table_record(a, pc, 1);
    assert_int_equal(a->ovf[0].ready, 1);
    assert_int_equal(a->ovf[0].fill, OVERFLOW_ENTRIES);
    assert_int_equal(a->st.active, 1);
    assert_int_equal(a->ovf[1].fill, 1);
    assert_int_equal(a->ovf[1].ready, 0);
    assert_int_equal(a->st.dropped, 0);
    assert_int_equal(accounted(a), a->st.samples);
}

static void with_both_buffers_waiting_evictions_are_counted_as_dropped(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_RR4);
    uint64_t pc[6];
    colliding_pcs(POLICY_RR4, pc, 6);
    a->ovf[0].ready = a->ovf[1].ready = 1;      /* the flusher is behind */
    a->ovf[0].fill = a->ovf[1].fill = 0;
    for (unsigned i = 0; i < 4; i++)
        sample_table_record(a, pc[i], 1);
    sample_table_record(a, pc[0], 1);           /* pc[0] now counts 2 */
    sample_table_record(a, pc[4], 1);           /* evicts pc[0]: 2 samples dropped */
    sample_table_record(a, pc[5], 1);           /* evicts pc[1]: 1 more */
    assert_int_equal(a->st.dropped, 3);
    assert_int_equal(a->st.evicted, 0);
    assert_int_equal(accounted(a), a->st.samples);
}

static void a_count_about_to_overflow_is_handed_over_first(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_RR4);
    sample_table_record(a, PC0, 1);
    for (unsigned i = 0; i < TABLE_ENTRIES; i++)
        if (a->table[i].count)
            a->table[i].count = UINT32_MAX - 1;
    sample_table_record(a, PC0, 1);             /* reaches UINT32_MAX */
    assert_int_equal(buffered(a, PC0, 1), UINT32_MAX);
    assert_int_equal(table_count(a, PC0, 1), 0);
    sample_table_record(a, PC0, 1);             /* starts again at 1 */
    assert_int_equal(table_count(a, PC0, 1), 1);
}

static struct sample_area *waiting_area;
static unsigned waits;

/* The flusher of the flush test: sends (empties) every ready buffer. */
static void flusher_sends(void)
{
    waits++;
    for (unsigned b = 0; b < 2; b++)
        if (waiting_area->ovf[b].ready) {
            waiting_area->ovf[b].fill = 0;
            waiting_area->ovf[b].ready = 0;
        }
}

static void flush_moves_every_entry_and_hands_over_the_partly_filled_buffer(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    for (unsigned i = 0; i < 100; i++)
        sample_table_record(a, PC0 + 4 * i, 1);
    waiting_area = a;
    waits = 0;
    assert_int_equal(sample_table_flush(a, flusher_sends), 100);
    assert_int_equal(waits, 0);                 /* one buffer took them all */
    for (unsigned i = 0; i < TABLE_ENTRIES; i++)
        assert_int_equal(a->table[i].count, 0);
    assert_int_equal(a->ovf[0].ready, 1);
    assert_int_equal(a->ovf[0].fill, 100);
    assert_int_equal(a->st.active, 1);
    /* an empty table flushes nothing and hands nothing over */
    assert_int_equal(sample_table_flush(a, flusher_sends), 0);
    assert_int_equal(a->ovf[1].ready, 0);
}

static void flush_waits_for_the_flusher_when_both_buffers_are_full(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_RR4);
    unsigned n = OVERFLOW_ENTRIES + OVERFLOW_ENTRIES / 2;
    for (unsigned i = 0; i < n; i++)
        sample_table_record(a, PC0 + 4 * i, 1);
    uint64_t in_table = a->st.samples - a->st.evicted;
    a->ovf[1].ready = 1;                        /* the other buffer still waits to be sent */
    waiting_area = a;
    waits = 0;
    uint32_t moved = sample_table_flush(a, flusher_sends);
    assert_int_equal(moved, in_table);
    assert_true(waits > 0);
    assert_int_equal(a->st.dropped, 0);         /* waiting, never dropping */
}

/* A long random stream: the accounting invariant holds at every step of
 * the way, with a flusher that is sometimes behind. */
static void every_sample_is_in_the_table_a_buffer_or_dropped_exactly_once(void **state)
{
    for (enum table_policy policy = POLICY_RR4; policy <= POLICY_STF6; policy++) {
        struct sample_area *a = new_area(policy);
        *state = a;
        uint64_t sent = 0;
        uint32_t x = 12345;
        for (unsigned i = 0; i < 400000; i++) {
            x = x * 1103515245u + 12345u;
            uint64_t pc = PC0 + 4 * ((x >> 8) % 60000);
            sample_table_record(a, pc, (x >> 4) & 3);
            if ((i & 0x3fff) == 0x3fff)         /* the flusher comes by now and then */
                for (unsigned b = 0; b < 2; b++)
                    if (a->ovf[b].ready) {
                        for (uint32_t k = 0; k < a->ovf[b].fill; k++)
                            sent += a->ovf[b].e[k].count;
                        a->ovf[b].fill = 0;
                        a->ovf[b].ready = 0;
                    }
            if ((i & 0xffff) == 0)
                assert_int_equal(accounted(a) + sent, a->st.samples);
        }
        assert_true(a->st.dropped > 0);         /* the flusher was behind at times */
        assert_int_equal(accounted(a) + sent, a->st.samples);
        assert_int_equal(a->st.hits + a->st.misses, a->st.samples);
        free(a);
        *state = NULL;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hits_count_in_place_and_events_are_distinct_keys, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(round_robin_evicts_each_way_in_turn, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(swap_to_front_moves_a_hit_forward_and_evicts_the_last_way, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(a_full_buffer_is_handed_over_and_the_other_one_fills, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(with_both_buffers_waiting_evictions_are_counted_as_dropped, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(a_count_about_to_overflow_is_handed_over_first, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(flush_moves_every_entry_and_hands_over_the_partly_filled_buffer, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(flush_waits_for_the_flusher_when_both_buffers_are_full, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(every_sample_is_in_the_table_a_buffer_or_dropped_exactly_once, area_setup, area_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
