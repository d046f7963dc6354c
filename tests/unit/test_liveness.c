/*
 * Register liveness (util/liveness.c) on hand-made instruction sequences,
 * through calc's CFG: what a straight line and a loop leave live, what a
 * standard call needs and keeps (liveness.h note 3), a conditional move
 * reading its destination, everything live before a tail branch, a return
 * through another register, a millicode call, a store-conditional
 * writing its source, and which registers a word names for the image scan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "util/liveness.h"

#define ADDQ(ra, rb, rc)    (0x10u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define ADDQI(ra, lit, rc)  (0x10u << 26 | (ra) << 21 | (lit) << 13 | 1u << 12 | 0x20 << 5 | (rc))
#define CMOVEQ(ra, rb, rc)  (0x11u << 26 | (ra) << 21 | (rb) << 16 | 0x24 << 5 | (rc))
#define LDA(ra, rb, d)      (0x08u << 26 | (ra) << 21 | (rb) << 16 | ((d) & 0xffff))
#define STQ_C(ra, rb, d)    (0x2fu << 26 | (ra) << 21 | (rb) << 16 | ((d) & 0xffff))
#define BEQ(ra, disp)       (0x39u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BR(disp)            (0x30u << 26 | 31u << 21 | ((disp) & 0x1fffff))
#define BSR(disp)           (0x34u << 26 | 26u << 21 | ((disp) & 0x1fffff))
#define JSR(ra, rb)         (0x1au << 26 | (ra) << 21 | (rb) << 16 | 1u << 14)
#define RET_VIA(rb)         (0x1au << 26 | 31u << 21 | (rb) << 16 | 2u << 14)
#define RET                 RET_VIA(26)
#define R(n)                (1u << (n))

static struct model_params params;

static int setup(void **state)
{
    (void)state;
    model_params_default(&params);
    return 0;
}

/* live_before of each instruction of w (n of them, at 0x1000). */
static void live(const uint32_t *w, size_t n, uint32_t *out)
{
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, n), 0);
    liveness_compute(&p, out);
    calc_proc_free(&p);
}

/* addq $1,$2,$3; addq $3,1,$0; ret: $1, $2 and what a return keeps are
 * live at the start, $3 only between its write and its read, the other
 * temporaries and v0 (written before the return) nowhere before. */
static void test_a_straight_line_needs_its_inputs_and_what_a_return_keeps(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 3), ADDQI(3, 1, 0), RET};
    uint32_t lb[3];
    live(w, 3, lb);
    assert_int_equal(lb[0], (R(1) | R(2) | LIVE_AT_RET) & ~R(0));
    assert_int_equal(lb[1], (R(3) | LIVE_AT_RET) & ~R(0));
    assert_int_equal(lb[2], LIVE_AT_RET);
    for (unsigned r = 4; r <= 8; r++)
        assert_false(lb[0] & R(r));
    assert_false(lb[0] & R(28));
    assert_true(lb[0] & R(9) && lb[0] & R(15) && lb[0] & R(30) && lb[0] & R(26));
}

/* L: addq $1,$2,$1; beq $3, L; ret: the loop keeps $1, $2, $3 live all
 * round, $4 stays dead. */
static void test_a_loop_keeps_what_its_next_iteration_reads(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 1), BEQ(3, -2), RET};
    uint32_t lb[3];
    live(w, 3, lb);
    for (int i = 0; i < 2; i++)
        assert_int_equal(lb[i] & (R(1) | R(2) | R(3) | R(4)), R(1) | R(2) | R(3));
}

/* lda $5,1($31); bsr f; addq $0,$5,$0; ret.  The call reads the argument
 * registers, pv, gp and sp and kills nothing but ra, so $5 (read after it,
 * against the standard) stays live across it; $6 and $22 are dead. */
static void test_a_call_reads_the_arguments_and_kills_only_ra(void **state)
{
    (void)state;
    const uint32_t w[] = {LDA(5, 31, 1), BSR(100), ADDQ(0, 5, 0), RET};
    uint32_t lb[4];
    live(w, 4, lb);
    uint32_t want = LIVE_ARGS | R(27) | R(29) | R(30);
    assert_int_equal(lb[1] & want, want);
    assert_true(lb[1] & R(5));
    assert_true(lb[1] & R(0));
    assert_false(lb[1] & R(26));
    assert_false(lb[1] & (R(6) | R(22) | R(28)));
    assert_false(lb[0] & R(5));
    /* jsr ra,($24): the target register too */
    const uint32_t j[] = {JSR(26, 24), RET};
    live(j, 2, lb);
    assert_true(lb[0] & R(24));
    assert_false(lb[0] & R(23));
}

/* cmoveq $1,$2,$0 may leave $0 as it was: $0 is live before it, but not
 * before addq $1,$2,$0. */
static void test_a_conditional_move_reads_its_destination(void **state)
{
    (void)state;
    uint32_t lb[2];
    const uint32_t a[] = {CMOVEQ(1, 2, 0), RET};
    live(a, 2, lb);
    assert_true(lb[0] & R(0));
    const uint32_t b[] = {ADDQ(1, 2, 0), RET};
    live(b, 2, lb);
    assert_false(lb[0] & R(0));
}

/* Ways out the standard does not describe leave everything live: a tail
 * branch out of the procedure, a return through $23, a call through a
 * register that is neither ra nor t9. */
static void test_unknown_ways_out_and_calls_keep_everything_live(void **state)
{
    (void)state;
    uint32_t lb[3];
    const uint32_t tail[] = {ADDQ(1, 2, 3), BR(100)};
    live(tail, 2, lb);
    assert_int_equal(lb[1], LIVE_ALL);
    assert_int_equal(lb[0], LIVE_ALL & ~R(3));
    const uint32_t milli[] = {RET_VIA(23)};
    live(milli, 1, lb);
    assert_int_equal(lb[0], LIVE_ALL);
    const uint32_t odd[] = {JSR(28, 27), ADDQ(27, 27, 0), RET};
    live(odd, 3, lb);
    assert_int_equal(lb[0], LIVE_ALL);
}

/* jsr t9,(pv); addq $27,$27,$0; ret: millicode (__divq) by GCC's
 * contract reads t10, t11 (and gp, sp, its target) and kills only t9;
 * what is live after it stays live, the other temporaries are dead. */
static void test_a_millicode_call_reads_t10_and_t11_and_kills_only_t9(void **state)
{
    (void)state;
    uint32_t lb[3];
    const uint32_t divq[] = {JSR(23, 27), ADDQ(27, 27, 0), RET};
    live(divq, 3, lb);
    uint32_t want = R(24) | R(25) | R(27) | R(29) | R(30);
    assert_int_equal(lb[0] & want, want);
    assert_true(lb[0] & R(9) && lb[0] & R(26));      /* a return's, through the call */
    assert_false(lb[0] & (R(1) | R(5) | R(8) | R(16) | R(22) | R(23) | R(28)));
}

/* stq_c $1,0($2) reads $1 and writes the success flag back into it. */
static void test_a_store_conditional_reads_and_writes_its_source(void **state)
{
    (void)state;
    uint32_t use, def;
    liveness_regs(STQ_C(1, 2, 0), &use, &def);
    assert_int_equal(use, R(1) | R(2));
    assert_int_equal(def, R(1));
}

/* The image scan: lda $28,8($28) names $28; $31 is never named; a word
 * that is no instruction names nothing. */
static void test_the_scan_sees_every_register_a_word_names(void **state)
{
    (void)state;
    assert_int_equal(liveness_named(LDA(28, 28, 8)), R(28));
    assert_int_equal(liveness_named(ADDQ(1, 31, 28)), R(1) | R(28));
    assert_int_equal(liveness_named(ADDQI(31, 5, 31)), 0);
    assert_int_equal(liveness_named(0x1c000000u | 0x3ffu << 5), 0);   /* opcode 0x1c, no such function */
    assert_int_equal(liveness_named(BSR(4)), R(26));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_straight_line_needs_its_inputs_and_what_a_return_keeps),
        cmocka_unit_test(test_a_loop_keeps_what_its_next_iteration_reads),
        cmocka_unit_test(test_a_call_reads_the_arguments_and_kills_only_ra),
        cmocka_unit_test(test_a_conditional_move_reads_its_destination),
        cmocka_unit_test(test_unknown_ways_out_and_calls_keep_everything_live),
        cmocka_unit_test(test_a_millicode_call_reads_t10_and_t11_and_kills_only_t9),
        cmocka_unit_test(test_a_store_conditional_reads_and_writes_its_source),
        cmocka_unit_test(test_the_scan_sees_every_register_a_word_names),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
