/*
 * Ball-Larus path numbering (util/ball-larus.c) on hand-made instruction
 * sequences, through calc's CFG, with hand-computed numbers: two diamonds
 * in a row (4 paths, each number its blocks), a loop (BL's four paths:
 * entry or backedge to exit or backedge, and the counts an execution
 * leaves), increments on the chords of the spanning tree a heavy loop body
 * chooses (the body's path carries no increment), an indirect jump and
 * too many paths marked, and for every number of a 2^10-path chain the
 * invariants of ball-larus.h (regeneration, vals and incs both sum to it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/ball-larus.h"

#define ADDQ(ra, rb, rc)    (0x10u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define BEQ(ra, disp)       (0x39u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BR(disp)            (0x30u << 26 | 31u << 21 | ((disp) & 0x1fffff))
#define BSR(disp)           (0x34u << 26 | 26u << 21 | ((disp) & 0x1fffff))
#define RET                 (0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14)
#define JMP(rb)             (0x1au << 26 | 31u << 21 | (rb) << 16)

static struct model_params params;

static int setup(void **state)
{
    (void)state;
    model_params_inorder(&params);
    return 0;
}

/* The CFG edge from block a to block b of kind k. */
static uint32_t edge(const struct calc_proc *p, uint32_t a, uint32_t b, uint8_t k)
{
    for (uint32_t e = 0; e < p->nedges; e++)
        if (p->edges[e].from == a && p->edges[e].to == b && p->edges[e].kind == k)
            return e;
    fail_msg("no edge %u -> %u", a, b);
    return 0;
}

/* Replays path r's edges through bl_step: the count it leaves is r. */
static void check_path(const struct bl_proc *bl, uint64_t r)
{
    struct bl_path path;
    assert_int_equal(bl_regenerate(bl, r, &path), 0);
    uint64_t vals = 0;
    int64_t incs = 0, reg = 0;
    uint64_t done = UINT64_MAX;
    for (size_t i = 0; i < path.ndag; i++) {
        const struct bl_edge *x = &bl->edges[path.dag_edges[i]];
        vals += x->val;
        incs += x->inc;
        assert_true(x->chord || x->inc == 0);
        bool last = i + 1 == path.ndag;
        if (i == 0 && path.from_backedge)
            reg = bl->action[x->cfg_edge].reset;
        else
            assert_int_equal(bl_step(bl, x->cfg_edge, &reg, &done), last);
    }
    assert_int_equal(vals, r);
    assert_int_equal((uint64_t)incs, r);
    assert_int_equal(done, r);
    bl_path_free(&path);
}

/* 1000 beq -> 100c | 1004 addq; 1008 br -> 1010 | 100c addq | 1010 beq
 * -> 101c | 1014 addq; 1018 br -> 1020 | 101c addq | 1020 ret.  Blocks
 * B0..B6; numpaths B0 = 4, B3 = 2; the fall edge is numbered first, so
 * B0's taken edge has val 2 and B3's val 1. */
static void test_two_diamonds_have_four_paths_each_numbered_by_its_blocks(void **state)
{
    (void)state;
    const uint32_t w[] = {BEQ(1, 2), ADDQ(1, 2, 3), BR(1), ADDQ(1, 2, 4),
                          BEQ(2, 2), ADDQ(1, 2, 3), BR(1), ADDQ(1, 2, 4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 9), 0);
    assert_int_equal(p.nblocks, 7);
    struct bl_proc bl;
    assert_int_equal(bl_number(&bl, &p, NULL), 0);
    assert_int_equal(bl.status, BL_OK);
    assert_int_equal(bl.npaths, 4);
    assert_int_equal(bl.numpaths[0], 4);
    assert_int_equal(bl.numpaths[3], 2);
    assert_int_equal(bl.numpaths[6], 1);
    for (uint32_t e = 0; e < p.nedges; e++)
        assert_false(bl.backedge[e]);
    static const uint32_t want[4][5] = {{0, 1, 3, 4, 6}, {0, 1, 3, 5, 6}, {0, 2, 3, 4, 6}, {0, 2, 3, 5, 6}};
    for (uint64_t r = 0; r < 4; r++) {
        struct bl_path path;
        assert_int_equal(bl_regenerate(&bl, r, &path), 0);
        assert_int_equal(path.n, 5);
        assert_memory_equal(path.blocks, want[r], sizeof want[r]);
        assert_false(path.from_backedge);
        assert_false(path.to_backedge);
        bl_path_free(&path);
        check_path(&bl, r);
    }
    struct bl_path none;
    assert_int_equal(bl_regenerate(&bl, 4, &none), -1);
    bl_free(&bl);
    calc_proc_free(&p);
}

/* 1000 addq; 1004 beq -> 1010 | 1008 addq; 100c br -> 1000 | 1010 ret.
 * The br is the backedge.  ENTRY's out edges: the real one (val 0) and
 * the pseudo one to B0 (val 2): path 0 entry-body-backedge, 1 entry-exit,
 * 2 backedge-body-backedge, 3 backedge-exit. */
static void test_a_loop_has_balls_four_paths_and_leaves_their_counts(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 3), BEQ(3, 2), ADDQ(1, 2, 1), BR(-4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    struct bl_proc bl;
    assert_int_equal(bl_number(&bl, &p, NULL), 0);
    uint32_t entry = 0, body = edge(&p, 0, 1, EDGE_FALL), out = edge(&p, 0, 2, EDGE_TAKEN),
             back = edge(&p, 1, 0, EDGE_TAKEN), exit = edge(&p, 2, CALC_EXIT, EDGE_OUT);
    assert_true(bl.backedge[back]);
    assert_false(bl.backedge[body] || bl.backedge[out] || bl.backedge[exit]);
    assert_int_equal(bl.npaths, 4);
    static const struct { size_t n; uint32_t b[2]; bool from, to; } want[4] = {
        {2, {0, 1}, false, true}, {2, {0, 2}, false, false}, {2, {0, 1}, true, true}, {2, {0, 2}, true, false}};
    for (uint64_t r = 0; r < 4; r++) {
        struct bl_path path;
        assert_int_equal(bl_regenerate(&bl, r, &path), 0);
        assert_int_equal(path.n, want[r].n);
        assert_memory_equal(path.blocks, want[r].b, sizeof want[r].b);
        assert_int_equal(path.from_backedge, want[r].from);
        assert_int_equal(path.to_backedge, want[r].to);
        bl_path_free(&path);
        check_path(&bl, r);
    }
    /* three trips round the loop, then out: paths 0, 2, 2, 3 */
    const uint32_t run[] = {entry, body, back, body, back, body, back, out, exit};
    uint64_t counts[4] = {0};
    int64_t reg = 0;
    for (size_t i = 0; i < sizeof run / sizeof run[0]; i++) {
        uint64_t done;
        if (bl_step(&bl, run[i], &reg, &done)) {
            assert_true(done < 4);
            counts[done]++;
        }
    }
    assert_int_equal(counts[0], 1);
    assert_int_equal(counts[1], 0);
    assert_int_equal(counts[2], 2);
    assert_int_equal(counts[3], 1);
    bl_free(&bl);
    calc_proc_free(&p);
}

/* The same loop with a heavy body (weights 100 on B0 -> B1 and the
 * backedge): the tree takes B0 -> B1, ENTRY -> B0 (pseudo) and B0 -> B2;
 * pot B0 = 2, B1 = 2, B2 = 3; the chords are ENTRY's real edge (inc -2),
 * B1 -> EXIT (pseudo, inc 2) and B2 -> EXIT (inc 3).  The body's trip
 * costs only its count: no increment, reset 0. */
static void test_a_heavy_loop_body_carries_no_increment(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 3), BEQ(3, 2), ADDQ(1, 2, 1), BR(-4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    uint32_t entry = 0, body = edge(&p, 0, 1, EDGE_FALL), out = edge(&p, 0, 2, EDGE_TAKEN),
             back = edge(&p, 1, 0, EDGE_TAKEN), exit = edge(&p, 2, CALC_EXIT, EDGE_OUT);
    double *weight = calloc(p.nedges, sizeof *weight);
    for (size_t e = 0; e < p.nedges; e++)
        weight[e] = 1;
    weight[body] = weight[back] = 100;
    struct bl_proc bl;
    assert_int_equal(bl_number(&bl, &p, weight), 0);
    assert_int_equal(bl.action[entry].kind, BL_ACT_ENTRY);
    assert_int_equal(bl.action[entry].add, -2);
    assert_int_equal(bl.action[body].kind, BL_ACT_ADD);
    assert_int_equal(bl.action[body].add, 0);
    assert_int_equal(bl.action[out].add, 0);
    assert_int_equal(bl.action[back].kind, BL_ACT_BACKEDGE);
    assert_int_equal(bl.action[back].add, 2);
    assert_int_equal(bl.action[back].reset, 0);
    assert_int_equal(bl.action[exit].kind, BL_ACT_EXIT);
    assert_int_equal(bl.action[exit].add, 3);
    assert_int_equal(bl.nchords, 3);
    for (uint64_t r = 0; r < 4; r++)
        check_path(&bl, r);
    free(weight);
    bl_free(&bl);
    calc_proc_free(&p);
}

/* A call does not end the path: bsr's block has one edge, to the next. */
static void test_a_call_continues_the_callers_path(void **state)
{
    (void)state;
    const uint32_t w[] = {BEQ(1, 2), BSR(100), BR(1), ADDQ(1, 2, 4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    struct bl_proc bl;
    assert_int_equal(bl_number(&bl, &p, NULL), 0);
    assert_int_equal(bl.npaths, 2);
    struct bl_path path;
    assert_int_equal(bl_regenerate(&bl, 0, &path), 0);
    assert_int_equal(path.n, 4);        /* beq, bsr, br, ret */
    bl_path_free(&path);
    bl_free(&bl);
    calc_proc_free(&p);
}

static void test_an_indirect_jump_is_marked_not_numbered_as_complete(void **state)
{
    (void)state;
    const uint32_t w[] = {BEQ(1, 1), JMP(3), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 3), 0);
    struct bl_proc bl;
    assert_int_equal(bl_number(&bl, &p, NULL), 0);
    assert_int_equal(bl.status, BL_INDIRECT);
    assert_false(bl_countable(&bl));
    assert_string_equal(bl_status_names[bl.status], "indirect-jump");
    bl_free(&bl);
    calc_proc_free(&p);
}

/* n diamonds in a row: 2^n paths. */
static size_t diamonds(uint32_t *w, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        w[k++] = BEQ(1, 2);
        w[k++] = ADDQ(1, 2, 3);
        w[k++] = BR(1);
        w[k++] = ADDQ(1, 2, 4);
    }
    w[k++] = RET;
    return k;
}

static void test_too_many_paths_are_marked_for_a_hash_and_overflow_beyond_64_bits(void **state)
{
    (void)state;
    uint32_t w[4 * 70 + 1];
    struct calc_proc p;
    struct bl_proc bl;
    size_t n = diamonds(w, 25);
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, n), 0);
    assert_int_equal(bl_number(&bl, &p, NULL), 0);
    assert_int_equal(bl.status, BL_TOO_MANY);
    assert_int_equal(bl.npaths, 1ull << 25);
    check_path(&bl, 0);
    check_path(&bl, (1ull << 25) - 1);
    check_path(&bl, 12345678);
    bl_free(&bl);
    calc_proc_free(&p);
    n = diamonds(w, 70);
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, n), 0);
    assert_int_equal(bl_number(&bl, &p, NULL), 0);
    assert_int_equal(bl.status, BL_OVERFLOW);
    assert_int_equal(bl.npaths, UINT64_MAX);
    bl_free(&bl);
    calc_proc_free(&p);
}

/* Every number of a 2^10-path chain with a loop round it: each
 * regenerates to a distinct path whose vals and incs sum to it. */
static void test_every_number_regenerates_to_a_distinct_path_with_that_sum(void **state)
{
    (void)state;
    uint32_t w[4 * 10 + 2];
    size_t n = diamonds(w, 10);
    w[n - 1] = BEQ(5, -(int)n);         /* back to the top */
    w[n++] = RET;
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, n), 0);
    double *weight = calloc(p.nedges, sizeof *weight);
    for (size_t e = 0; e < p.nedges; e++)
        weight[e] = (double)((e * 7919) % 13);  /* some tree */
    struct bl_proc bl;
    assert_int_equal(bl_number(&bl, &p, weight), 0);
    assert_int_equal(bl.status, BL_OK);
    assert_int_equal(bl.npaths, 4 * 1024);      /* from entry or backedge, to exit or backedge */
    uint64_t *seen = calloc(bl.npaths, sizeof *seen);
    for (uint64_t r = 0; r < bl.npaths; r++) {
        check_path(&bl, r);
        struct bl_path path;
        assert_int_equal(bl_regenerate(&bl, r, &path), 0);
        uint64_t h = path.from_backedge * 2 + path.to_backedge;
        for (size_t i = 0; i < path.n; i++)
            h = h * 1000003 + path.blocks[i];
        for (uint64_t q = 0; q < r; q++)
            assert_true(seen[q] != h);
        seen[r] = h;
        bl_path_free(&path);
    }
    free(seen);
    free(weight);
    bl_free(&bl);
    calc_proc_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_diamonds_have_four_paths_each_numbered_by_its_blocks),
        cmocka_unit_test(test_a_loop_has_balls_four_paths_and_leaves_their_counts),
        cmocka_unit_test(test_a_heavy_loop_body_carries_no_increment),
        cmocka_unit_test(test_a_call_continues_the_callers_path),
        cmocka_unit_test(test_an_indirect_jump_is_marked_not_numbered_as_complete),
        cmocka_unit_test(test_too_many_paths_are_marked_for_a_hash_and_overflow_beyond_64_bits),
        cmocka_unit_test(test_every_number_regenerates_to_a_distinct_path_with_that_sum),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
