/*
 * The exact paired-metrics truth (hw-model/model/concurrency.h) on
 * hand-made traces: the others issued while each instruction was in
 * progress, younger ones issuing before older ones included, counted once
 * its range is final or at the end of the run, summed per counter.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "hw-model/model/concurrency.h"

static void test_others_issued_in_fetch_to_retire_ready_are_counted(void **state)
{
    (void)state;
    struct concurrency *c = malloc(sizeof *c);
    conc_init(c);
    uint64_t u[4] = {0, 0, 0, 0};
    /* (fetch, issue, retire ready): I3 (younger) issues before I2 */
    conc_note(c, 0, 2, 3, &u[0]);
    conc_note(c, 0, 5, 6, &u[1]);
    conc_note(c, 1, 3, 4, &u[2]);
    assert_int_equal(u[0] + u[1] + u[2], 0);    /* nothing final yet: a later one may issue at 2 */
    conc_note(c, 10, 12, 13, &u[3]);
    /* I1 [0, 3]: I3 at 3; I2 [0, 6]: I1 at 2, I3 at 3; I3 [1, 4]: I1 at 2 */
    assert_int_equal(u[0], 1);
    assert_int_equal(u[1], 2);
    assert_int_equal(u[2], 1);
    assert_int_equal(u[3], 0);                  /* waits for the end */
    conc_note(c, 11, 11, 12, &u[3]);            /* the same PC again: issues inside the other's range */
    conc_flush(c);
    /* I4 [10, 13]: I5 at 11; I5 [11, 12]: I4 at 12 */
    assert_int_equal(u[3], 2);
    assert_int_equal(c->clipped, 0);
    free(c);
}

static void test_ranges_far_apart_leave_no_issue_behind(void **state)
{
    (void)state;
    struct concurrency *c = malloc(sizeof *c);
    conc_init(c);
    uint64_t u = 0, v = 0;
    /* 100000 instructions, one a cycle, each in progress 3 cycles:
     * [k, k + 2] holds the issues of k - 1 .. k + 1 (issue = fetch + 1) */
    for (uint64_t k = 0; k < 100000; k++)
        conc_note(c, k, k + 1, k + 2, k == 50000 ? &v : &u);
    conc_flush(c);
    assert_int_equal(v, 2);
    assert_int_equal(u, 2 * 99999 - 2);     /* the first and the last see one other */
    assert_int_equal(c->clipped, 0);
    free(c);
}

/* The notes' rules with each range counted slot by slot (note 5's
 * reference): the same FIFOs, aging and clipping as concurrency.c. */
struct ref_conc {
    uint32_t slot[CONC_RING];
    uint64_t issue[CONC_ISSUES], ihead, itail;
    struct conc_wait wait[CONC_WAIT];
    uint64_t head, tail, final_end, clipped;
};

static uint64_t ref_lo(const struct ref_conc *r)
{
    return r->final_end > CONC_RING / 2 ? r->final_end - CONC_RING / 2 : 0;
}

static void ref_settle(struct ref_conc *r)
{
    struct conc_wait *w = &r->wait[r->head++ & (CONC_WAIT - 1)];
    uint64_t a = w->fetch, b = w->retready;
    if (a < ref_lo(r)) {
        a = ref_lo(r);
        r->clipped++;
    }
    uint32_t n = 0;
    if (a <= b)
        for (uint64_t s = a & (CONC_RING - 1);; s = (s + 1) & (CONC_RING - 1)) {
            n += r->slot[s];
            if (s == (b & (CONC_RING - 1)))
                break;
        }
    *w->useful += n ? n - 1 : 0;
}

static void ref_drop_oldest_issue(struct ref_conc *r)
{
    r->slot[r->issue[r->ihead++ & (CONC_ISSUES - 1)] & (CONC_RING - 1)]--;
}

static void ref_note(struct ref_conc *r, uint64_t fetch, uint64_t issue, uint64_t retready, uint64_t *useful)
{
    if (fetch > r->final_end)
        r->final_end = fetch;
    while (r->head != r->tail && r->wait[r->head & (CONC_WAIT - 1)].retready < r->final_end)
        ref_settle(r);
    while (r->ihead != r->itail && r->issue[r->ihead & (CONC_ISSUES - 1)] < ref_lo(r))
        ref_drop_oldest_issue(r);
    if (r->itail - r->ihead == CONC_ISSUES)
        ref_drop_oldest_issue(r);
    r->issue[r->itail++ & (CONC_ISSUES - 1)] = issue;
    r->slot[issue & (CONC_RING - 1)]++;
    if (r->tail - r->head == CONC_WAIT) {
        struct conc_wait *w = &r->wait[r->head & (CONC_WAIT - 1)];
        if (w->retready >= r->final_end)
            w->retready = r->final_end ? r->final_end - 1 : 0;
        r->clipped++;
        ref_settle(r);
    }
    r->wait[r->tail++ & (CONC_WAIT - 1)] = (struct conc_wait){useful, fetch, retready};
}

static void test_running_sums_answer_as_counting_the_slots_one_by_one(void **state)
{
    (void)state;
    struct concurrency *c = malloc(sizeof *c);
    struct ref_conc *r = calloc(1, sizeof *r);
    enum { PCS = 64 };
    uint64_t u[PCS] = {0}, v[PCS] = {0};
    conc_init(c);
    srand(7);
    uint64_t fetch = 0;
    /* stalls of thousands of cycles (clipped ranges), issues far ahead
     * (slots that alias inside the window), bursts of four a cycle */
    for (unsigned k = 0; k < 400000; k++) {
        unsigned roll = (unsigned)rand() % 1000;
        fetch += roll < 3 ? 3000 + (unsigned)rand() % 6000 : (unsigned)rand() % 3 == 0;
        uint64_t issue = fetch + (roll >= 3 && roll < 6 ? 8000 + (unsigned)rand() % 4000 : (unsigned)rand() % 40);
        uint64_t ready = issue + (roll >= 6 && roll < 20 ? 200 + (unsigned)rand() % 600 : (unsigned)rand() % 8);
        unsigned pc = (unsigned)rand() % PCS;
        conc_note(c, fetch, issue, ready, &u[pc]);
        ref_note(r, fetch, issue, ready, &v[pc]);
    }
    conc_flush(c);
    while (r->head != r->tail)
        ref_settle(r);
    for (unsigned pc = 0; pc < PCS; pc++)
        assert_int_equal(u[pc], v[pc]);
    assert_int_equal(c->clipped, r->clipped);
    assert_true(c->clipped > 0);
    free(r);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_others_issued_in_fetch_to_retire_ready_are_counted),
        cmocka_unit_test(test_ranges_far_apart_leave_no_issue_behind),
        cmocka_unit_test(test_running_sums_answer_as_counting_the_slots_one_by_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
