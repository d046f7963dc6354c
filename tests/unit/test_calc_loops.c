/*
 * Natural loops of calc's CFG (util/calc-loops.c) on hand-made instruction
 * sequences, answers worked out by hand: an outer loop around an inner
 * self-loop (two loops, nested, depths 1 and 2), a loop gcc rotated (its
 * entry branches to the test at the bottom, so the test block is the
 * header), two back edges to one header (one loop), an irreducible cycle
 * (no loop), and straight-line code (none).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/calc.h"

#define ADDQ(ra, rb, rc)    (0x10u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define BEQ(ra, disp)       (0x39u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BNE(ra, disp)       (0x3du << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BR(disp)            (0x30u << 26 | 31u << 21 | ((disp) & 0x1fffff))
#define RET                 (0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14)

static struct model_params params;

static int setup(void **state)
{
    (void)state;
    model_params_default(&params);
    return 0;
}

static void assert_blocks(const struct calc_loop *l, const uint32_t *want, uint32_t n)
{
    assert_int_equal(l->nblocks, n);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(l->blocks[i], want[i]);
}

/* 1000 addq            A
 * 1004 addq            B   outer header (1010's bne)
 * 1008 addq            C   inner header: 100c branches back to it
 * 100c bne -> 1008
 * 1010 bne -> 1004     D
 * 1014 ret             E
 * Back edges D -> B (B dominates D) and C -> C: loops {B, C, D} and {C},
 * the second inside the first. */
static void test_an_inner_loop_is_nested_in_the_outer_one(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 3), ADDQ(1, 2, 3), ADDQ(3, 3, 3), BNE(3, -2), BNE(1, -4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 6), 0);
    assert_int_equal(p.nblocks, 5);
    struct calc_loop *l;
    assert_int_equal(calc_loops_find(&p, &l), 2);
    assert_int_equal(l[0].header, 1);
    assert_blocks(&l[0], (const uint32_t[]){1, 2, 3}, 3);
    assert_int_equal(l[0].parent, CALC_NONE);
    assert_int_equal(l[0].depth, 1);
    assert_int_equal(l[0].backedges, 1);
    assert_int_equal(l[1].header, 2);
    assert_blocks(&l[1], (const uint32_t[]){2}, 1);
    assert_int_equal(l[1].parent, 0);
    assert_int_equal(l[1].depth, 2);
    assert_true(calc_loop_holds(&l[0], 3) && !calc_loop_holds(&l[0], 0) && !calc_loop_holds(&l[1], 3));
    calc_loops_free(l, 2);
    calc_proc_free(&p);
}

/* 1000 br -> 100c      A
 * 1004 addq            B   the body
 * 1008 addq
 * 100c bne -> 1004     C   the test, reached first: it dominates B
 * 1010 ret             D
 * The back edge is B -> C (the fall-through), not C -> B: header C. */
static void test_a_rotated_loops_header_is_its_test_at_the_bottom(void **state)
{
    (void)state;
    const uint32_t w[] = {BR(2), ADDQ(1, 2, 3), ADDQ(3, 2, 1), BNE(1, -3), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    assert_int_equal(p.nblocks, 4);
    struct calc_loop *l;
    assert_int_equal(calc_loops_find(&p, &l), 1);
    assert_int_equal(l[0].header, 2);
    assert_int_equal(p.insns[p.blocks[l[0].header].first].pc, 0x100c);
    assert_blocks(&l[0], (const uint32_t[]){1, 2}, 2);
    assert_int_equal(l[0].depth, 1);
    calc_loops_free(l, 1);
    calc_proc_free(&p);
}

/* 1000 addq            A
 * 1004 beq -> 1010     B   header
 * 1008 bne -> 1004     C   back edge one (continue)
 * 100c br -> 1004      D   back edge two
 * 1010 ret             E
 * One loop {B, C, D} with two back edges. */
static void test_two_back_edges_to_one_header_make_one_loop(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 3), BEQ(3, 2), BNE(1, -2), BR(-3), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    assert_int_equal(p.nblocks, 5);
    struct calc_loop *l;
    assert_int_equal(calc_loops_find(&p, &l), 1);
    assert_int_equal(l[0].header, 1);
    assert_int_equal(l[0].backedges, 2);
    assert_blocks(&l[0], (const uint32_t[]){1, 2, 3}, 3);
    calc_loops_free(l, 1);
    calc_proc_free(&p);
}

/* 1000 beq -> 100c     A   into the cycle at B or at C
 * 1004 addq            B
 * 1008 br -> 100c
 * 100c bne -> 1004     C
 * 1010 ret             D
 * B and C form a cycle with two entries: neither dominates the other, so
 * neither edge is a back edge and there is no natural loop. */
static void test_an_irreducible_cycle_is_no_loop(void **state)
{
    (void)state;
    const uint32_t w[] = {BEQ(1, 2), ADDQ(1, 2, 3), BR(0), BNE(2, -3), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    assert_int_equal(p.nblocks, 4);
    struct calc_loop *l;
    assert_int_equal(calc_loops_find(&p, &l), 0);
    assert_null(l);
    calc_proc_free(&p);
    const uint32_t line[] = {ADDQ(1, 2, 3), BEQ(3, 0), RET};     /* no cycle at all */
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, line, 3), 0);
    assert_int_equal(calc_loops_find(&p, &l), 0);
    calc_proc_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_an_inner_loop_is_nested_in_the_outer_one, setup),
        cmocka_unit_test_setup(test_a_rotated_loops_header_is_its_test_at_the_bottom, setup),
        cmocka_unit_test_setup(test_two_back_edges_to_one_header_make_one_loop, setup),
        cmocka_unit_test_setup(test_an_irreducible_cycle_is_no_loop, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
