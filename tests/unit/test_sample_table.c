/*
 * DCPI's per-core hash table and overflow buffers
 * (firmware/profiler/sample-table.c) on the host: both replacement
 * policies, hand-over of full buffers, drops when the flusher is behind,
 * the flush, and the accounting invariant (every sample recorded is in the
 * table, in a buffer or counted as dropped, exactly once); stf6 as DCPI's
 * section 5.4 proposes it: six entries packed per cache line, every line
 * used, a hit moves to the front, a new entry goes in at the front and the
 * least recently used one leaves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "firmware/abi/link-protocol.h"
#include "firmware/profiler/sample-table.h"
#include "hw-model/pmu-window.h"

#define PC0 0x1000000ull

static struct sample_area *new_area(enum table_policy policy)
{
    struct sample_area *a = aligned_alloc(64, sizeof *a);
    assert_non_null(a);
    memset(a, 0, sizeof *a);            /* invariant 5: as the board's RAM at reset */
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

/* Entry i of the table (0 <= i < its capacity), whatever the layout:
 * rr4's as stored, stf6's unpacked from its line. */
static struct sample_entry entry_at(const struct sample_area *a, unsigned i)
{
    if (a->st.policy != POLICY_STF6)
        return a->table.rr4[i];
    const struct stf6_bucket *b = &a->table.stf6[i / STF6_WAYS];
    unsigned slot = i % STF6_WAYS, code = (b->events >> (STF6_EVENT_BITS * slot)) & 31;
    return (struct sample_entry){.pc = b->pc[slot], .count = b->count[slot],
                                 .event = (uint16_t)(code == STF6_EVENT_TIMER ? LK_EVENT_TIMER : code)};
}

/* The slot of (pc, event) in the table, or -1. */
static int slot_of(const struct sample_area *a, uint64_t pc, unsigned event)
{
    for (unsigned i = 0; i < sample_table_capacity(a); i++) {
        struct sample_entry e = entry_at(a, i);
        if (e.count && e.pc == pc && e.event == event)
            return (int)i;
    }
    return -1;
}

/* The bucket (pc, event) lands in, found by recording it into an empty
 * scratch table: the test does not depend on the hash function. */
static unsigned bucket_of_key(struct sample_area *scratch, uint64_t pc, unsigned event)
{
    sample_table_record(scratch, pc, event);
    int i = slot_of(scratch, pc, event);
    if (i < 0)
        fail_msg("recorded key not in the table");
    if (scratch->st.policy == POLICY_STF6)
        memset(&scratch->table.stf6[i / STF6_WAYS], 0, sizeof scratch->table.stf6[0]);
    else
        memset(&scratch->table.rr4[i], 0, sizeof scratch->table.rr4[0]);
    return (unsigned)i / scratch->st.ways;
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
    int i = slot_of(a, pc, event);
    return i < 0 ? 0 : entry_at(a, (unsigned)i).count;
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
    for (unsigned i = 0; i < sample_table_capacity(a); i++)
        n += entry_at(a, i).count;
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

static void stf6_buckets_are_whole_cache_lines_and_every_line_is_used(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    assert_int_equal(sizeof(struct stf6_bucket), 64);
    assert_int_equal((uintptr_t)a->table.stf6 % 64, 0);
    assert_int_equal(a->st.nbuckets * sizeof(struct stf6_bucket), TABLE_BYTES);
    assert_int_equal(sample_table_capacity(a), TABLE_BYTES / 64 * 6);
    sample_table_init(a, POLICY_RR4);
    assert_int_equal(sample_table_capacity(a), TABLE_BYTES / 16);
}

/* Invariant 5: init clears only the buckets marked used, and that is
 * enough: a table that took samples (and a full buffer's worth of
 * evictions) starts again empty, under either policy. */
static void init_after_use_empties_every_bucket_though_it_clears_only_used_ones(void **state)
{
    for (int policy = POLICY_RR4; policy <= POLICY_STF6; policy++) {
        free(*state);
        struct sample_area *a = *state = new_area((enum table_policy)policy);
        for (uint32_t i = 0; i < 3 * sample_table_capacity(a); i++)
            sample_table_record(a, PC0 + 4ull * (i * 7919u % 50000u), i % 3 ? PMU_EV_CYCLES : LK_EVENT_TIMER);
        sample_table_init(a, (enum table_policy)(policy ^ 1));     /* the other layout over the same lines */
        for (uint32_t i = 0; i < TABLE_BYTES / sizeof(uint64_t); i++)
            assert_int_equal(((const uint64_t *)&a->table)[i], 0);
        for (unsigned w = 0; w < TABLE_LINES / 64; w++)
            assert_int_equal(a->used[w], 0);
        assert_int_equal(a->st.samples + a->st.evicted + a->st.dropped, 0);
        assert_int_equal(a->ovf[0].fill + a->ovf[0].ready + a->ovf[1].fill + a->ovf[1].ready, 0);
        sample_table_record(a, PC0, PMU_EV_CYCLES);
        sample_table_record(a, PC0, PMU_EV_CYCLES);
        assert_int_equal(table_count(a, PC0, PMU_EV_CYCLES), 2);
        assert_int_equal(accounted(a), 2);
    }
}

static void stf6_holds_24576_spread_keys_without_evicting(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    uint32_t cap = sample_table_capacity(a);
    for (uint32_t i = 0; i < cap; i++)      /* consecutive PCs: six per bucket */
        sample_table_record(a, PC0 + 4ull * i, PMU_EV_CYCLES);
    assert_int_equal(a->st.misses, cap);
    assert_int_equal(a->st.evicted, 0);
    assert_int_equal(accounted(a), cap);
}

static void stf6_hit_moves_the_entry_to_the_front(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    uint64_t p[6];
    colliding_pcs(POLICY_STF6, p, 6);
    for (unsigned i = 0; i < 6; i++)
        sample_table_record(a, p[i], PMU_EV_DMISS);     /* front to back: p5 .. p0 */
    int first = slot_of(a, p[5], PMU_EV_DMISS);
    assert_int_equal(first % STF6_WAYS, 0);
    assert_int_equal(slot_of(a, p[0], PMU_EV_DMISS), first + 5);
    sample_table_record(a, p[0], PMU_EV_DMISS);         /* the back one, hit */
    assert_int_equal(a->st.hits, 1);
    assert_int_equal(slot_of(a, p[0], PMU_EV_DMISS), first);
    assert_int_equal(entry_at(a, (unsigned)first).count, 2);
    for (unsigned i = 1; i < 6; i++)                    /* the others moved back one, in order */
        assert_int_equal(slot_of(a, p[6 - i], PMU_EV_DMISS), first + (int)i);
}

static void stf6_miss_goes_in_front_and_evicts_the_least_recently_used(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    uint64_t p[7];
    colliding_pcs(POLICY_STF6, p, 7);
    for (unsigned i = 0; i < 6; i++)
        sample_table_record(a, p[i], LK_EVENT_TIMER);
    sample_table_record(a, p[0], LK_EVENT_TIMER);       /* p0 recently used: p1 is the oldest */
    sample_table_record(a, p[0], LK_EVENT_TIMER);
    sample_table_record(a, p[6], LK_EVENT_TIMER);
    int first = slot_of(a, p[6], LK_EVENT_TIMER);
    assert_int_equal(first % STF6_WAYS, 0);
    assert_int_equal(slot_of(a, p[0], LK_EVENT_TIMER), first + 1);
    assert_int_equal(table_count(a, p[0], LK_EVENT_TIMER), 3);
    assert_int_equal(slot_of(a, p[1], LK_EVENT_TIMER), -1);
    assert_int_equal(a->st.evicted, 1);
    assert_int_equal(buffered(a, p[1], LK_EVENT_TIMER), 1);
    assert_int_equal(accounted(a), a->st.samples);
}

static void stf6_same_pc_with_other_events_are_other_entries(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    for (unsigned k = 0; k < 3; k++) {
        sample_table_record(a, PC0 + 64, PMU_EV_CYCLES);
        sample_table_record(a, PC0 + 64, LK_EVENT_TIMER);
        sample_table_record(a, PC0 + 64, PMU_EV_DTBMISS);
    }
    assert_int_equal(table_count(a, PC0 + 64, PMU_EV_CYCLES), 3);
    assert_int_equal(table_count(a, PC0 + 64, LK_EVENT_TIMER), 3);
    assert_int_equal(table_count(a, PC0 + 64, PMU_EV_DTBMISS), 3);
    assert_int_equal(a->st.hits, 6);
}

static void stf6_a_count_past_16_bits_is_handed_over_and_restarts(void **state)
{
    struct sample_area *a = *state = new_area(POLICY_STF6);
    for (unsigned i = 0; i < 65535; i++)
        sample_table_record(a, PC0, PMU_EV_CYCLES);
    assert_int_equal(table_count(a, PC0, PMU_EV_CYCLES), 65535);
    sample_table_record(a, PC0, PMU_EV_CYCLES);         /* the 65536th */
    assert_int_equal(buffered(a, PC0, PMU_EV_CYCLES), 65535);
    assert_int_equal(table_count(a, PC0, PMU_EV_CYCLES), 1);
    assert_int_equal(accounted(a), a->st.samples);
}

static void stf6_hits_more_than_rr4_when_the_keys_outgrow_rr4(void **state)
{
    /* 20000 keys, uniform: they fit stf6's 24576 entries, not rr4's 16384 */
    uint64_t hits[2];
    for (unsigned p = 0; p < 2; p++) {
        struct sample_area *a = *state = new_area(p ? POLICY_STF6 : POLICY_RR4);
        uint64_t x = 99;
        for (unsigned s = 0; s < 200000; s++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            sample_table_record(a, PC0 + 4ull * ((x >> 33) % 20000), PMU_EV_CYCLES);
            for (unsigned b = 0; b < 2; b++)
                a->ovf[b].fill = a->ovf[b].ready = 0;   /* a flusher that keeps up */
        }
        hits[p] = a->st.hits;
        free(a);
        *state = NULL;
    }
    assert_true(hits[1] > hits[0]);
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
        if (a->table.rr4[i].count)
            a->table.rr4[i].count = UINT32_MAX - 1;
    sample_table_record(a, PC0, 1);             /* reaches UINT32_MAX */
    assert_int_equal(buffered(a, PC0, 1), UINT32_MAX);
    assert_int_equal(table_count(a, PC0, 1), 0);
    sample_table_record(a, PC0, 1);             /* starts again at 1 */
    assert_int_equal(table_count(a, PC0, 1), 1);
}

static struct sample_area *waiting_area;
static unsigned waits;

/* The flusher of the flush test: sends (empties) every ready buffer. */
static uint64_t flusher_sent;          /* samples flusher_sends took */

static void flusher_sends(void)
{
    waits++;
    for (unsigned b = 0; b < 2; b++)
        if (waiting_area->ovf[b].ready) {
            for (uint32_t k = 0; k < waiting_area->ovf[b].fill; k++)
                flusher_sent += waiting_area->ovf[b].e[k].count;
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
    for (unsigned i = 0; i < sample_table_capacity(a); i++)
        assert_int_equal(entry_at(a, i).count, 0);
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

/* Invariant 4: a flush visits only the buckets marked used, so every
 * bucket that took an entry must be marked: flushes between random
 * streams leave no live entry behind and no mark set, and every sample is
 * sent exactly once, under both policies. */
static void every_flush_empties_the_table_though_it_visits_only_used_buckets(void **state)
{
    for (enum table_policy policy = POLICY_RR4; policy <= POLICY_STF6; policy++) {
        struct sample_area *a = new_area(policy);
        *state = a;
        waiting_area = a;
        flusher_sent = 0;
        uint32_t x = 777;
        for (unsigned round = 0; round < 20; round++) {
            unsigned n = 1000u << (round % 6);  /* a few buckets up to most of them */
            for (unsigned i = 0; i < n; i++) {
                x = x * 1103515245u + 12345u;
                sample_table_record(a, PC0 + 4 * ((x >> 8) % (n / 2 + 1)), (x >> 4) & 1);
            }
            flusher_sends();                    /* evictions sent before the flush */
            sample_table_flush(a, flusher_sends);
            for (unsigned i = 0; i < sample_table_capacity(a); i++)
                assert_int_equal(entry_at(a, i).count, 0);
            for (unsigned w = 0; w < TABLE_LINES / 64; w++)
                assert_int_equal(a->used[w], 0);
            flusher_sends();
        }
        assert_int_equal(a->st.dropped, 0);
        assert_int_equal(flusher_sent, a->st.samples);
        free(a);
        *state = NULL;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hits_count_in_place_and_events_are_distinct_keys, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(round_robin_evicts_each_way_in_turn, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(stf6_buckets_are_whole_cache_lines_and_every_line_is_used, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(stf6_holds_24576_spread_keys_without_evicting, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(init_after_use_empties_every_bucket_though_it_clears_only_used_ones,
                                        area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(stf6_hit_moves_the_entry_to_the_front, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(stf6_miss_goes_in_front_and_evicts_the_least_recently_used, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(stf6_same_pc_with_other_events_are_other_entries, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(stf6_a_count_past_16_bits_is_handed_over_and_restarts, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(stf6_hits_more_than_rr4_when_the_keys_outgrow_rr4, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(a_full_buffer_is_handed_over_and_the_other_one_fills, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(with_both_buffers_waiting_evictions_are_counted_as_dropped, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(a_count_about_to_overflow_is_handed_over_first, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(flush_moves_every_entry_and_hands_over_the_partly_filled_buffer, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(flush_waits_for_the_flusher_when_both_buffers_are_full, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(every_sample_is_in_the_table_a_buffer_or_dropped_exactly_once, area_setup, area_teardown),
        cmocka_unit_test_setup_teardown(every_flush_empties_the_table_though_it_visits_only_used_buckets, area_setup,
                                        area_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
