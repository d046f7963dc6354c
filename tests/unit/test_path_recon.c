/*
 * ProfileMe path reconstruction (util/path-recon.c) on two hand-written
 * functions (tests/unit/data/path-cfgs.S: f with branches at 0x00 beq,
 * 0x08 br, 0x10 beq, returning at 0x18; g calling f at A(0x1c)), with
 * hand-derived answers (addresses below are from f, at 0x100): the history bits pick one way back, a path
 * without them is ambiguous, a path reaching f's entry with bits left is
 * checked in its caller, and the truth is cut from a logged sample by the
 * same rule (a call at depth 0 is the activation's start, an interrupt
 * pollutes, a short log is unknown, a wrong direction is a mismatch).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/path-recon.h"

#define A(x) (0x100 + (x))     /* the object's code starts at 0x100 */

static struct symtab *st;
static struct pr_program prog;

static int setup(void **state)
{
    (void)state;
    struct ap_err err;
    if (symtab_open("build/tests/data/path-cfgs.o", &st, &err))
        fail_msg("%s", err.msg);
    pr_program_init(&prog, st);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pr_program_free(&prog);
    symtab_close(st);
    return 0;
}

static struct pr_result recon(uint64_t pc, uint32_t history, unsigned nbits, bool ignore)
{
    struct pr_query q = {.pc = pc, .history = history, .nbits = nbits, .ignore_history = ignore};
    struct pr_result r;
    pr_reconstruct(&prog, &q, &r);
    return r;
}

/* At f's ret, bit 0 (beq A(0x10)) taken, bit 1 (beq A(0x00)) not: back over
 * the taken beq, the br and the fall-through of the first beq. */
static void test_the_history_bits_pick_the_one_way_back(void **state)
{
    (void)state;
    struct pr_result r = recon(A(0x18), 0x1, 2, false);
    assert_int_equal(r.outcome, PR_UNIQUE);
    assert_int_equal(r.seg.ntrans, 3);
    assert_true(r.seg.trans[0] == (A(0x10) | PMEPATH_TAKEN));
    assert_true(r.seg.trans[1] == (A(0x08) | PMEPATH_JUMP));
    assert_true(r.seg.trans[2] == (A(0x00) | PMEPATH_FALL));
    assert_int_equal(r.seg.nbits, 2);
    assert_false(r.seg.reached_entry);
    assert_int_equal(r.seg.nblocks, 3);             /* A(0x18), A(0x10), 0x04 */
    assert_true(r.seg.block[0] == A(0x18) && r.seg.block[1] == A(0x10) && r.seg.block[2] == A(0x04));
    assert_int_equal(r.seg.insns, 4);               /* beq A(0x10), addq, br, beq 0x00 */
    r = recon(A(0x18), 0x2, 2, false);                 /* the other way round */
    assert_int_equal(r.outcome, PR_UNIQUE);
    assert_int_equal(r.seg.ntrans, 2);
    assert_true(r.seg.trans[0] == (A(0x10) | PMEPATH_FALL));
    assert_true(r.seg.trans[1] == (A(0x00) | PMEPATH_TAKEN));
}

static void test_without_the_history_four_paths_remain(void **state)
{
    (void)state;
    struct pr_result r = recon(A(0x18), 0x1, 2, true);
    assert_int_equal(r.outcome, PR_AMBIGUOUS);
    assert_int_equal(r.ncandidates, 4);
    r = recon(A(0x14), 0, 1, true);                    /* one way in to 0x14 */
    assert_int_equal(r.outcome, PR_UNIQUE);
}

/* Three bits from f's ret: f holds two, so the path reaches f's entry; its
 * caller g (no branch, no caller) cannot refute the third: kept. */
static void test_a_path_reaching_the_entry_keeps_its_bits_for_the_caller(void **state)
{
    (void)state;
    struct pr_result r = recon(A(0x18), 0x1, 3, false);
    assert_int_equal(r.outcome, PR_UNIQUE);
    assert_true(r.seg.reached_entry);
    assert_int_equal(r.seg.nbits, 2);
    assert_int_equal(r.seg.ntrans, 3);
    /* from g's ret, back into f at its ret, through f to its entry, to the bsr */
    r = recon(A(0x20), 0x1, 2, false);
    assert_int_equal(r.outcome, PR_UNIQUE);
    assert_true(r.seg.trans[0] == (A(0x18) | PMEPATH_JUMP));
    assert_true(r.seg.trans[1] == (A(0x10) | PMEPATH_TAKEN));
    assert_int_equal(r.seg.depth[1], 1);            /* f's blocks, one call down */
}

static void test_the_truth_is_cut_by_the_same_rule(void **state)
{
    (void)state;
    struct oracle_pmepath_sample s = {.pc = A(0x18), .history = 0x1, .ntrans = 5,
        .trans = {A(0x10) | PMEPATH_TAKEN, A(0x08) | PMEPATH_JUMP, A(0x00) | PMEPATH_FALL, A(0x1c) | PMEPATH_JUMP,
                  A(0x10) | PMEPATH_FALL}};
    struct pr_segment t;
    bool ok;
    assert_int_equal(pr_truth(&prog, &s, 2, &t, &ok), PR_TRUTH_OK);
    assert_true(ok);
    struct pr_result r = recon(A(0x18), 0x1, 2, false);
    assert_true(pr_same_path(&t, &r.seg));
    /* three bits: g's bsr at depth 0 is where f's activation began */
    assert_int_equal(pr_truth(&prog, &s, 3, &t, &ok), PR_TRUTH_OK);
    assert_true(t.reached_entry);
    assert_int_equal(t.ntrans, 3);
    r = recon(A(0x18), 0x1, 3, false);
    assert_true(pr_same_path(&t, &r.seg));
    /* an interrupt inside the path */
    s.trans[1] = A(0x08) | PMEPATH_OTHER;
    assert_int_equal(pr_truth(&prog, &s, 2, &t, &ok), PR_TRUTH_POLLUTED);
    /* a log too short for the bits */
    s.trans[1] = A(0x08) | PMEPATH_JUMP;
    s.ntrans = 2;
    assert_int_equal(pr_truth(&prog, &s, 2, &t, &ok), PR_TRUTH_UNKNOWN);
    /* a direction the history contradicts */
    s.ntrans = 5;
    s.history = 0x3;
    assert_int_equal(pr_truth(&prog, &s, 2, &t, &ok), PR_TRUTH_OK);
    assert_false(ok);
    /* a PC in no procedure */
    assert_int_equal(recon(0x1000, 0, 2, false).outcome, PR_NO_CODE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_history_bits_pick_the_one_way_back),
        cmocka_unit_test(test_without_the_history_four_paths_remain),
        cmocka_unit_test(test_a_path_reaching_the_entry_keeps_its_bits_for_the_caller),
        cmocka_unit_test(test_the_truth_is_cut_by_the_same_rule),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
