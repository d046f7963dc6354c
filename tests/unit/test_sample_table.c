/* The on-target hash table (firmware/profiler/sample-table.c, built for the
 * host): both policies keep every sample exactly once; stf6 is what DCPI's
 * section 5.4 proposes: 6-way buckets of one cache line each, every line
 * used, a hit moves its entry to the front, a new entry goes in at the
 * front and the least recently used one leaves. */
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

static struct sample_area *area;

static int setup(void **state)
{
    (void)state;
    area = aligned_alloc(64, (sizeof *area + 63) & ~(size_t)63);
    return area ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(area);
    return 0;
}

/* What the flusher does: every full buffer's entries summed into out
 * (a small map from (pc, event) to count), the buffer released. */
#define KEYS 65536
static struct { uint64_t pc; unsigned event; uint64_t count; } drained[KEYS];
static size_t ndrained;

static void add_drained(const struct sample_entry *e)
{
    for (size_t i = 0; i < ndrained; i++)
        if (drained[i].pc == e->pc && drained[i].event == e->event) {
            drained[i].count += e->count;
            return;
        }
    assert_true(ndrained < KEYS);
    drained[ndrained].pc = e->pc;
    drained[ndrained].event = e->event;
    drained[ndrained++].count = e->count;
}

static void drain_ready(void)
{
    for (unsigned b = 0; b < 2; b++)
        if (area->ovf[b].ready) {
            for (uint32_t i = 0; i < area->ovf[b].fill; i++)
                add_drained(&area->ovf[b].e[i]);
            area->ovf[b].fill = 0;
            area->ovf[b].ready = 0;
        }
}

static uint64_t drained_count(uint64_t pc, unsigned event)
{
    for (size_t i = 0; i < ndrained; i++)
        if (drained[i].pc == pc && drained[i].event == event)
            return drained[i].count;
    return 0;
}

static unsigned bucket_index(const struct stf6_bucket *b)
{
    return (unsigned)(b - area->table.stf6);
}

/* The bucket holding (pc, event) and its slot, or -1. */
static int stf6_slot(uint64_t pc, unsigned event, unsigned *line)
{
    for (unsigned l = 0; l < area->st.nbuckets; l++)
        for (unsigned i = 0; i < STF6_WAYS && area->table.stf6[l].count[i]; i++) {
            const struct stf6_bucket *b = &area->table.stf6[l];
            unsigned code = (b->events >> (STF6_EVENT_BITS * i)) & 31;
            unsigned ev = code == STF6_EVENT_TIMER ? LK_EVENT_TIMER : code;
            if (b->pc[i] == pc && ev == event) {
                *line = bucket_index(b);
                return (int)i;
            }
        }
    return -1;
}

/* n PCs that all land in one stf6 bucket (found by trying). */
static void same_bucket_pcs(uint64_t *pcs, unsigned n, unsigned event)
{
    unsigned found = 0, want_line = 0;
    for (uint64_t pc = 0x1000000; found < n; pc += 4) {
        sample_table_reset(area, POLICY_STF6);
        sample_table_record(area, pc, event);
        unsigned line;
        assert_int_equal(stf6_slot(pc, event, &line), 0);
        if (found == 0)
            want_line = line;
        if (line == want_line)
            pcs[found++] = pc;
    }
}

static void test_stf6_buckets_are_whole_cache_lines_and_every_line_is_used(void **state)
{
    (void)state;
    sample_table_reset(area, POLICY_STF6);
    assert_int_equal(sizeof(struct stf6_bucket), 64);
    assert_int_equal((uintptr_t)area->table.stf6 % 64, 0);
    assert_int_equal(area->st.nbuckets * sizeof(struct stf6_bucket), TABLE_BYTES);
    assert_int_equal(sample_table_capacity(area), TABLE_BYTES / 64 * 6);
    sample_table_reset(area, POLICY_RR4);
    assert_int_equal(sample_table_capacity(area), TABLE_BYTES / 16);
}

static void test_stf6_holds_24576_distinct_samples_without_evicting_when_they_spread(void **state)
{
    (void)state;
    sample_table_reset(area, POLICY_STF6);
    uint32_t cap = sample_table_capacity(area);
    for (uint32_t i = 0; i < cap; i++)      /* consecutive PCs: six per bucket */
        sample_table_record(area, 0x1000000 + 4ull * i, PMU_EV_CYCLES);
    assert_int_equal(area->st.misses, cap);
    assert_int_equal(area->st.evicted, 0);
    unsigned live = 0;
    for (unsigned l = 0; l < area->st.nbuckets; l++)
        for (unsigned i = 0; i < STF6_WAYS; i++)
            live += area->table.stf6[l].count[i] != 0;
    assert_int_equal(live, cap);
}

static void test_stf6_hit_moves_the_entry_to_the_front(void **state)
{
    (void)state;
    uint64_t p[6];
    same_bucket_pcs(p, 6, PMU_EV_DMISS);
    sample_table_reset(area, POLICY_STF6);
    for (unsigned i = 0; i < 6; i++)
        sample_table_record(area, p[i], PMU_EV_DMISS);     /* front to back: p5 .. p0 */
    unsigned line;
    assert_int_equal(stf6_slot(p[0], PMU_EV_DMISS, &line), 5);
    sample_table_record(area, p[0], PMU_EV_DMISS);         /* the back one, hit */
    assert_int_equal(area->st.hits, 1);
    assert_int_equal(stf6_slot(p[0], PMU_EV_DMISS, &line), 0);
    const struct stf6_bucket *b = &area->table.stf6[line];
    assert_int_equal(b->count[0], 2);
    for (unsigned i = 1; i < 6; i++) {          /* the others moved back one, in order */
        assert_int_equal(b->pc[i], p[6 - i]);
        assert_int_equal(b->count[i], 1);
        assert_int_equal(stf6_slot(p[6 - i], PMU_EV_DMISS, &line), (int)i);
    }
}

static void test_stf6_miss_goes_in_front_and_evicts_the_least_recently_used(void **state)
{
    (void)state;
    uint64_t p[7];
    same_bucket_pcs(p, 7, LK_EVENT_TIMER);
    sample_table_reset(area, POLICY_STF6);
    for (unsigned i = 0; i < 6; i++)
        sample_table_record(area, p[i], LK_EVENT_TIMER);
    sample_table_record(area, p[0], LK_EVENT_TIMER);       /* p0 recently used: p1 is the oldest */
    sample_table_record(area, p[0], LK_EVENT_TIMER);
    sample_table_record(area, p[6], LK_EVENT_TIMER);
    unsigned line;
    assert_int_equal(stf6_slot(p[6], LK_EVENT_TIMER, &line), 0);
    assert_int_equal(stf6_slot(p[0], LK_EVENT_TIMER, &line), 1);
    assert_int_equal(stf6_slot(p[1], LK_EVENT_TIMER, &line), -1);
    assert_int_equal(area->st.evicted, 1);
    const struct sample_entry *out = &area->ovf[area->st.active].e[0];
    assert_int_equal(out->pc, p[1]);
    assert_int_equal(out->count, 1);
    assert_int_equal(out->event, LK_EVENT_TIMER);
}

static void test_stf6_same_pc_different_events_are_different_entries(void **state)
{
    (void)state;
    sample_table_reset(area, POLICY_STF6);
    for (unsigned k = 0; k < 3; k++) {
        sample_table_record(area, 0x1000040, PMU_EV_CYCLES);
        sample_table_record(area, 0x1000040, LK_EVENT_TIMER);
        sample_table_record(area, 0x1000040, PMU_EV_DTBMISS);
    }
    unsigned line;
    assert_true(stf6_slot(0x1000040, PMU_EV_CYCLES, &line) >= 0);
    assert_int_equal(area->table.stf6[line].count[stf6_slot(0x1000040, PMU_EV_CYCLES, &line)], 3);
    assert_true(stf6_slot(0x1000040, LK_EVENT_TIMER, &line) >= 0);
    assert_true(stf6_slot(0x1000040, PMU_EV_DTBMISS, &line) >= 0);
    assert_int_equal(area->st.hits, 6);
}

/* A skewed random stream over many keys, both policies: after the final
 * flush, the overflow buffers hold every sample of every key exactly once
 * (counts past a field's range handed over, nothing dropped while the
 * flusher keeps up). */
static void every_sample_once(enum table_policy policy, unsigned keys, uint64_t samples)
{
    static uint64_t expect[KEYS];
    memset(expect, 0, sizeof expect);
    ndrained = 0;
    sample_table_reset(area, policy);
    uint64_t x = 12345;
    for (uint64_t s = 0; s < samples; s++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned r = (unsigned)(x >> 33);
        unsigned k = (r & 1) ? r % 4 : r % keys;          /* half the samples on 4 hot keys: past 65535 */
        unsigned event = k % 3 == 0 ? LK_EVENT_TIMER : k % 11;
        sample_table_record(area, 0x1000000 + 4ull * (k / 3), event);
        expect[k]++;
        drain_ready();
    }
    sample_table_flush(area, drain_ready);
    drain_ready();
    assert_int_equal(area->st.dropped, 0);
    assert_int_equal(area->st.samples, samples);
    uint64_t total = 0;
    for (unsigned k = 0; k < keys; k++) {
        unsigned event = k % 3 == 0 ? LK_EVENT_TIMER : k % 11;
        if (expect[k])
            assert_int_equal(drained_count(0x1000000 + 4ull * (k / 3), event), expect[k]);
        total += expect[k];
    }
    uint64_t got = 0;
    for (size_t i = 0; i < ndrained; i++)
        got += drained[i].count;
    assert_int_equal(got, total);
}

static void test_stf6_keeps_every_sample_exactly_once_through_evictions_and_full_counts(void **state)
{
    (void)state;
    every_sample_once(POLICY_STF6, 60000, 600000);
}

static void test_rr4_keeps_every_sample_exactly_once_through_evictions(void **state)
{
    (void)state;
    every_sample_once(POLICY_RR4, 60000, 400000);
}

static void test_stf6_hits_more_than_rr4_when_the_keys_outgrow_rr4(void **state)
{
    (void)state;
    /* 20000 keys, uniform: they fit stf6's 24576 entries, not rr4's 16384 */
    uint64_t hits[2];
    for (unsigned p = 0; p < 2; p++) {
        sample_table_reset(area, p ? POLICY_STF6 : POLICY_RR4);
        uint64_t x = 99;
        for (unsigned s = 0; s < 200000; s++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            sample_table_record(area, 0x1000000 + 4ull * ((x >> 33) % 20000), PMU_EV_CYCLES);
            drain_ready();
        }
        hits[p] = area->st.hits;
    }
    assert_true(hits[1] > hits[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stf6_buckets_are_whole_cache_lines_and_every_line_is_used),
        cmocka_unit_test(test_stf6_holds_24576_distinct_samples_without_evicting_when_they_spread),
        cmocka_unit_test(test_stf6_hit_moves_the_entry_to_the_front),
        cmocka_unit_test(test_stf6_miss_goes_in_front_and_evicts_the_least_recently_used),
        cmocka_unit_test(test_stf6_same_pc_different_events_are_different_entries),
        cmocka_unit_test(test_stf6_keeps_every_sample_exactly_once_through_evictions_and_full_counts),
        cmocka_unit_test(test_rr4_keeps_every_sample_exactly_once_through_evictions),
        cmocka_unit_test(test_stf6_hits_more_than_rr4_when_the_keys_outgrow_rr4),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
