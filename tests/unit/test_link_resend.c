/*
 * The target's choice of frames to send again (firmware/profiler/
 * link-resend.c, link-protocol.h 5.3): only frames whose last copy is
 * known lost, lowest first; a delayed or repeated LINK_ACK asks for
 * nothing twice; the retransmit time resends `expected` and what the last
 * bitmap did not show held, never the frames the host holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "firmware/profiler/link-resend.h"

/* The sack bit of position pos in a LINK_ACK with this `expected`. */
static uint32_t held(uint32_t expected, uint32_t pos)
{
    return (uint32_t)1 << (pos - expected - 1);
}

/* Frames first..last (inclusive) go out for the first time. */
static void send_new(struct link_resend *r, uint32_t first, uint32_t last)
{
    for (uint32_t p = first; p <= last; p++)
        link_resend_sent(r, p, 0);
}

/* Everything link_resend_next gives, in order, as a list ended by ~0. */
static void drain(struct link_resend *r, uint32_t *out, size_t cap)
{
    size_t n = 0;
    uint32_t pos;
    while (n + 1 < cap && link_resend_next(r, &pos))
        out[n++] = pos;
    out[n] = ~0u;
}

static void a_single_lost_frame_is_the_only_one_sent_again(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 0);
    send_new(&r, 0, 19);
    /* the host took 0..9, lost 10, holds 11..19 */
    uint32_t sack = 0;
    for (uint32_t p = 11; p <= 19; p++)
        sack |= held(10, p);
    uint32_t lost = link_resend_ack(&r, 10, sack, 1);
    assert_int_equal(lost, 1);              /* base is 10 now: bit 0 */
    uint32_t got[8];
    drain(&r, got, 8);
    assert_int_equal(got[0], 10);
    assert_int_equal(got[1], ~0u);
}

static void holes_below_the_highest_held_frame_go_again_lowest_first(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 100);
    send_new(&r, 100, 115);
    /* lost: 100, 103, 104, 110; held: 101, 102, 105..109, 111, 112; 113..115 not (yet) there */
    uint32_t sack = held(100, 101) | held(100, 102) | held(100, 111) | held(100, 112);
    for (uint32_t p = 105; p <= 109; p++)
        sack |= held(100, p);
    link_resend_ack(&r, 100, sack, 1);
    uint32_t got[8];
    drain(&r, got, 8);
    assert_int_equal(got[0], 100);
    assert_int_equal(got[1], 103);
    assert_int_equal(got[2], 104);
    assert_int_equal(got[3], 110);
    assert_int_equal(got[4], ~0u);          /* 113..115 may still be on their way */
}

static void a_repeated_or_delayed_ack_asks_for_nothing_twice(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 0);
    send_new(&r, 0, 9);
    uint32_t sack = held(5, 6) | held(5, 7);
    link_resend_ack(&r, 5, sack, 1);
    uint32_t pos;
    assert_true(link_resend_next(&r, &pos) && pos == 5);
    link_resend_sent(&r, 5, 1);             /* sent again, after 6 and 7 */
    /* the same LINK_ACK again (the host asked twice, or it was delayed) */
    assert_int_equal(link_resend_ack(&r, 5, sack, 1), 0);
    assert_false(link_resend_next(&r, &pos));
    /* 8 came (sent after 5's first copy, before its second): 5's second copy may still come */
    assert_int_equal(link_resend_ack(&r, 5, sack | held(5, 8), 1), 0);
    /* a new frame sent after the second copy arrived first: that copy was lost too */
    send_new(&r, 10, 10);
    assert_int_equal(link_resend_ack(&r, 5, sack | held(5, 8) | held(5, 9) | held(5, 10), 1), 1);
    assert_true(link_resend_next(&r, &pos) && pos == 5);
}

static void a_stale_ack_behind_expected_asks_for_nothing_acknowledged(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 0);
    send_new(&r, 0, 9);
    assert_int_equal(link_resend_ack(&r, 8, 0, 0), 0);
    /* a replayed LINK_ACK of long ago: expected 2, holding 4 */
    assert_int_equal(link_resend_ack(&r, 2, held(2, 4), 1), 0);
    uint32_t pos;
    assert_false(link_resend_next(&r, &pos));
    assert_int_equal(r.base, 8);
}

static void a_resend_without_a_bitmap_asks_for_expected_alone(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 0);
    send_new(&r, 0, 9);
    assert_int_equal(link_resend_ack(&r, 3, 0, 1), 1);
    uint32_t got[4];
    drain(&r, got, 4);
    assert_int_equal(got[0], 3);
    assert_int_equal(got[1], ~0u);
    /* an ack that does not ask, with nothing held, asks for nothing */
    assert_int_equal(link_resend_ack(&r, 3, 0, 0), 0);
}

static void the_retransmit_time_resends_expected_and_what_the_last_bitmap_did_not_hold(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 0);
    send_new(&r, 0, 7);
    link_resend_ack(&r, 2, held(2, 3) | held(2, 5), 0);
    uint32_t pos;
    while (link_resend_next(&r, &pos))
        link_resend_sent(&r, pos, 1);       /* 2 and 4, proved lost, went again */
    uint32_t lack = link_resend_timeout(&r);
    /* 2, 4, 6, 7 (bits 0, 2, 4, 5 from base 2): never 3 or 5, which the host holds */
    assert_int_equal(lack, 1u | 1u << 2 | 1u << 4 | 1u << 5);
    uint32_t got[8];
    drain(&r, got, 8);
    assert_int_equal(got[0], 2);
    assert_int_equal(got[1], 4);
    assert_int_equal(got[2], 6);
    assert_int_equal(got[3], 7);
    assert_int_equal(got[4], ~0u);
}

static void nothing_sent_nothing_resent_and_progress_forgets_what_the_host_took(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 0);
    assert_int_equal(link_resend_timeout(&r), 0);
    send_new(&r, 0, 4);
    link_resend_ack(&r, 0, held(0, 2) | held(0, 3), 1);    /* 0 and 1 lost */
    /* 0 and 1 came after all (the host's `expected` is 4 now): nothing left to send */
    link_resend_ack(&r, 4, 0, 0);
    uint32_t pos;
    assert_false(link_resend_next(&r, &pos));
    assert_int_equal(r.held, 0);
}

static void go_back_n_for_comparison_resends_every_frame_from_expected(void **st)
{
    (void)st;
    struct link_resend r;
    link_resend_reset(&r, 0);
    send_new(&r, 0, 5);
    link_resend_advance(&r, 3);
    assert_int_equal(link_resend_go_back(&r), 7u);          /* 3, 4, 5 */
    uint32_t got[6];
    drain(&r, got, 6);
    assert_int_equal(got[0], 3);
    assert_int_equal(got[1], 4);
    assert_int_equal(got[2], 5);
    assert_int_equal(got[3], ~0u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_single_lost_frame_is_the_only_one_sent_again),
        cmocka_unit_test(holes_below_the_highest_held_frame_go_again_lowest_first),
        cmocka_unit_test(a_repeated_or_delayed_ack_asks_for_nothing_twice),
        cmocka_unit_test(a_stale_ack_behind_expected_asks_for_nothing_acknowledged),
        cmocka_unit_test(a_resend_without_a_bitmap_asks_for_expected_alone),
        cmocka_unit_test(the_retransmit_time_resends_expected_and_what_the_last_bitmap_did_not_hold),
        cmocka_unit_test(nothing_sent_nothing_resent_and_progress_forgets_what_the_host_took),
        cmocka_unit_test(go_back_n_for_comparison_resends_every_frame_from_expected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
