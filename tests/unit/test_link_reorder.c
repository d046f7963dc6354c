/*
 * The host's reorder buffer (host-tools/util/link-reorder.c,
 * link-protocol.h 5.3): frames that come early are held, handed back in
 * seq order with their own bytes once the gap fills, a second copy is a
 * duplicate, the window and the memory are bounded, and the bitmap is
 * LINK_ACK's sack.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/link-reorder.h"

static struct link_reorder *r;

static int setup(void **st)
{
    (void)st;
    r = malloc(sizeof *r);
    if (!r)
        return -1;
    link_reorder_init(r);
    return 0;
}

static int teardown(void **st)
{
    (void)st;
    free(r);
    return 0;
}

/* A frame of type SAMPLES whose payload is its seq, repeated. */
static struct lk_frame frame(uint16_t seq, uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seq + i);
    return (struct lk_frame){LK_T_SAMPLES, seq, buf, len};
}

static void early_frames_come_back_in_seq_order_once_the_gap_fills(void **st)
{
    (void)st;
    uint8_t b[3][40];
    uint16_t expected = 65534;                      /* across the wrap */
    struct lk_frame f1 = frame(1, b[0], 40), f0 = frame(0, b[1], 7), f65535 = frame(65535, b[2], 12);
    assert_int_equal(link_reorder_put(r, expected, &f1), LINK_REORDER_HELD);
    assert_int_equal(link_reorder_put(r, expected, &f65535), LINK_REORDER_HELD);
    assert_int_equal(link_reorder_put(r, expected, &f0), LINK_REORDER_HELD);
    memset(b, 0xee, sizeof b);                      /* the buffer keeps copies */
    struct lk_frame got;
    assert_false(link_reorder_take(r, expected, &got));     /* 65534 itself is missing */
    expected++;                                     /* the host took 65534 as it came */
    for (uint16_t want = 65535; want != 2; want++) {
        assert_true(link_reorder_take(r, expected, &got));
        assert_int_equal(got.seq, want);
        assert_int_equal(got.type, LK_T_SAMPLES);
        assert_int_equal(got.len, want == 65535 ? 12 : want == 0 ? 7 : 40);
        assert_int_equal(got.payload[0], (uint8_t)want);
        assert_int_equal(got.payload[got.len - 1], (uint8_t)(want + got.len - 1));
        expected++;
    }
    assert_false(link_reorder_take(r, expected, &got));
    assert_int_equal(link_reorder_held(r), 0);
}

static void a_second_copy_of_a_held_frame_is_a_duplicate(void **st)
{
    (void)st;
    uint8_t b[8];
    struct lk_frame f = frame(12, b, sizeof b);
    assert_int_equal(link_reorder_put(r, 10, &f), LINK_REORDER_HELD);
    assert_int_equal(link_reorder_put(r, 10, &f), LINK_REORDER_DUPLICATE);
    assert_int_equal(link_reorder_put(r, 11, &f), LINK_REORDER_DUPLICATE);
    assert_int_equal(link_reorder_held(r), 1);
}

static void only_frames_within_the_window_and_no_pieces_are_held(void **st)
{
    (void)st;
    uint8_t b[8];
    struct lk_frame at = frame(100, b, sizeof b), last = frame(100 + LK_SACK_BITS, b, sizeof b),
                    beyond = frame(101 + LK_SACK_BITS, b, sizeof b), behind = frame(99, b, sizeof b),
                    piece = frame(101, b, sizeof b);
    piece.type = LK_T_PART;
    assert_int_equal(link_reorder_put(r, 100, &at), LINK_REORDER_BEYOND);
    assert_int_equal(link_reorder_put(r, 100, &behind), LINK_REORDER_BEYOND);
    assert_int_equal(link_reorder_put(r, 100, &beyond), LINK_REORDER_BEYOND);
    assert_int_equal(link_reorder_put(r, 100, &piece), LINK_REORDER_BEYOND);
    assert_int_equal(link_reorder_put(r, 100, &last), LINK_REORDER_HELD);
    assert_int_equal(link_reorder_held(r), 1);
    assert_int_equal(link_reorder_sack(r, 100), 1u << (LK_SACK_BITS - 1));
}

static void the_bitmap_names_the_frames_held_after_expected(void **st)
{
    (void)st;
    uint8_t b[8];
    uint16_t seqs[] = {21, 23, 24, 30};
    for (size_t i = 0; i < sizeof seqs / sizeof *seqs; i++) {
        struct lk_frame f = frame(seqs[i], b, sizeof b);
        assert_int_equal(link_reorder_put(r, 20, &f), LINK_REORDER_HELD);
    }
    /* bit i: 20 + 1 + i */
    assert_int_equal(link_reorder_sack(r, 20), 1u << 0 | 1u << 2 | 1u << 3 | 1u << 9);
    struct lk_frame got;
    assert_false(link_reorder_take(r, 20, &got));
    /* the host got 20 and 21, 22 from elsewhere: the bitmap moves with expected */
    assert_true(link_reorder_take(r, 21, &got));
    assert_int_equal(link_reorder_sack(r, 23), 1u << 0 | 1u << 6);     /* 24, 30 */
    assert_true(link_reorder_take(r, 23, &got) && got.seq == 23);
    assert_true(link_reorder_take(r, 24, &got) && got.seq == 24);
    assert_false(link_reorder_take(r, 25, &got));
    assert_int_equal(link_reorder_sack(r, 25), 1u << 4);
}

static void frames_passed_by_expected_are_let_go_and_a_new_session_starts_empty(void **st)
{
    (void)st;
    uint8_t b[8];
    struct lk_frame f = frame(5, b, sizeof b), g = frame(6, b, sizeof b);
    link_reorder_put(r, 3, &f);
    link_reorder_put(r, 3, &g);
    /* the host took 3..6 some other way (a takeover's renumbering, a copy in pieces) */
    assert_int_equal(link_reorder_sack(r, 7), 0);
    assert_int_equal(link_reorder_held(r), 0);
    link_reorder_put(r, 7, &f);                     /* 5 is behind 7: not held */
    assert_int_equal(link_reorder_held(r), 0);
    struct lk_frame h = frame(9, b, sizeof b);
    link_reorder_put(r, 7, &h);
    link_reorder_clear(r);
    struct lk_frame got;
    assert_false(link_reorder_take(r, 9, &got));
    assert_int_equal(link_reorder_sack(r, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(early_frames_come_back_in_seq_order_once_the_gap_fills, setup, teardown),
        cmocka_unit_test_setup_teardown(a_second_copy_of_a_held_frame_is_a_duplicate, setup, teardown),
        cmocka_unit_test_setup_teardown(only_frames_within_the_window_and_no_pieces_are_held, setup, teardown),
        cmocka_unit_test_setup_teardown(the_bitmap_names_the_frames_held_after_expected, setup, teardown),
        cmocka_unit_test_setup_teardown(frames_passed_by_expected_are_let_go_and_a_new_session_starts_empty,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
