/*
 * Cycle equivalence in linear time (util/calc-equiv.c, Johnson, Pearson
 * and Pingali's bracket lists) on hand-made graphs with hand-computed
 * classes, and against the definition itself on random strongly connected
 * CFGs: two edges of a two-edge-connected undirected graph are cycle
 * equivalent iff removing both disconnects it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/calc.h"

#define NONE UINT32_MAX

static uint32_t classes_of(uint32_t nv, uint32_t ne, const uint32_t *a, const uint32_t *b, uint32_t *cls)
{
    bool alive[64];
    assert_true(ne <= 64);
    for (uint32_t e = 0; e < ne; e++)
        alive[e] = true;
    return calc_cycle_equivalence(nv, ne, a, b, alive, 0, cls);
}

/* A cycle 0-1-2-3-0: one class. */
static void test_a_simple_cycle_is_one_class(void **state)
{
    (void)state;
    const uint32_t a[] = {0, 1, 2, 3}, b[] = {1, 2, 3, 0};
    uint32_t cls[4];
    assert_int_equal(classes_of(4, 4, a, b, cls), 1);
    for (int e = 1; e < 4; e++)
        assert_int_equal(cls[e], cls[0]);
}

/* A diamond closed by a return edge: 0-1 (fork), 1-2 and 2-4 (one arm),
 * 1-3 and 3-4 (the other), 4-0 (join back).  The fork and the return
 * edge run together; each arm is a class. */
static void test_a_diamonds_arms_are_classes_and_its_ends_one(void **state)
{
    (void)state;
    const uint32_t a[] = {0, 1, 2, 1, 3, 4}, b[] = {1, 2, 4, 3, 4, 0};
    uint32_t cls[6];
    assert_int_equal(classes_of(5, 6, a, b, cls), 3);
    assert_int_equal(cls[0], cls[5]);
    assert_int_equal(cls[1], cls[2]);
    assert_int_equal(cls[3], cls[4]);
    assert_true(cls[0] != cls[1] && cls[1] != cls[3] && cls[0] != cls[3]);
}

/* Two parallel edges between 0 and 1 (a branch whose target is its
 * fall-through) and a path 1-2-0 back: each parallel edge is its own
 * class (a cycle uses one without the other); the path is one. */
static void test_parallel_edges_are_not_equivalent(void **state)
{
    (void)state;
    const uint32_t a[] = {0, 0, 1, 2}, b[] = {1, 1, 2, 0};
    uint32_t cls[4];
    assert_int_equal(classes_of(3, 4, a, b, cls), 3);
    assert_int_equal(cls[2], cls[3]);
    assert_true(cls[0] != cls[1] && cls[0] != cls[2] && cls[1] != cls[2]);
}

/* Nested loops, the kind the quadratic bridge search got right and the
 * bracket lists need capping for: a vertex whose two subtrees both
 * reach above it.  0-1, 1-2, 2-3, 3-1 (inner loop back), 2-4, 4-0 (outer
 * way back), 3-4.  Checked against the definition below. */
static bool disconnects(uint32_t nv, uint32_t ne, const uint32_t *a, const uint32_t *b, const bool *alive,
                        uint32_t x, uint32_t y)
{
    uint32_t parent[64];
    for (uint32_t v = 0; v < nv; v++)
        parent[v] = v;
    uint32_t comps = 0;
    bool used[64] = {false};
    for (uint32_t e = 0; e < ne; e++)
        if (alive[e]) {
            used[a[e]] = used[b[e]] = true;
            if (e == x || e == y)
                continue;
            uint32_t p = a[e], q = b[e];
            while (parent[p] != p)
                p = parent[p];
            while (parent[q] != q)
                q = parent[q];
            if (p != q)
                parent[p] = q;
        }
    for (uint32_t v = 0; v < nv; v++)
        comps += used[v] && parent[v] == v;
    return comps > 1;
}

/* Shuffles the edges (so that depth-first trees branch). */
static void shuffle(uint32_t ne, uint32_t *a, uint32_t *b)
{
    for (uint32_t e = ne; e > 1; e--) {
        uint32_t k = (uint32_t)rand() % e, t;
        t = a[e - 1], a[e - 1] = a[k], a[k] = t;
        t = b[e - 1], b[e - 1] = b[k], b[k] = t;
    }
}

static void check_against_definition(uint32_t nv, uint32_t ne, const uint32_t *a, const uint32_t *b,
                                     const bool *alive)
{
    uint32_t cls[64];
    calc_cycle_equivalence(nv, ne, a, b, alive, 0, cls);
    for (uint32_t x = 0; x < ne; x++) {
        if (!alive[x])
            continue;
        assert_true(cls[x] != NONE);
        for (uint32_t y = x + 1; y < ne; y++) {
            if (!alive[y])
                continue;
            bool same = disconnects(nv, ne, a, b, alive, x, y);
            if (same != (cls[x] == cls[y]))
                fail_msg("edges %u (%u-%u) and %u (%u-%u): cut %d, classes %u %u", x, a[x], b[x], y, a[y],
                         b[y], same, cls[x], cls[y]);
        }
    }
}

static void test_nested_loops_agree_with_the_definition(void **state)
{
    (void)state;
    const uint32_t a[] = {0, 1, 2, 3, 2, 4, 3}, b[] = {1, 2, 3, 1, 4, 0, 4};
    const bool alive[] = {1, 1, 1, 1, 1, 1, 1};
    check_against_definition(5, 7, a, b, alive);
}

/* Where a node's two subtrees both reach above it, the top of its bracket
 * list alone would not tell its parent edge from its child's (the paper's
 * capping brackets): 0-1, 1-2 twice, 2-0, 1-3, 3-0; searched from 0 the
 * tree is 0-1, 1-2, 1-3.  0-1 and 1-2 are not equivalent (the cycle
 * 1-2-1 passes one only). */
static void test_two_subtrees_reaching_above_a_node_need_a_capping_bracket(void **state)
{
    (void)state;
    const uint32_t a[] = {0, 1, 1, 2, 1, 3}, b[] = {1, 2, 2, 0, 3, 0};
    const bool alive[] = {1, 1, 1, 1, 1, 1};
    uint32_t cls[6];
    calc_cycle_equivalence(4, 6, a, b, alive, 0, cls);
    assert_true(cls[0] != cls[1]);
    check_against_definition(4, 6, a, b, alive);
}

/* Random strongly connected CFGs as calc builds them (ENTRY 0, EXIT 1,
 * b_in 2 + 2b, b_out 3 + 2b, block edges, CFG edges, EXIT -- ENTRY): a
 * chain through every block to EXIT keeps them all alive, random
 * forward and backward edges make the loops, diamonds and breaks. */
static void test_random_cfgs_agree_with_the_definition(void **state)
{
    (void)state;
    srand(14);
    for (int round = 0; round < 5000; round++) {
        uint32_t nb = 1 + (uint32_t)(rand() % 16);
        uint32_t a[64], b[64], ne = 0;
        bool alive[64];
        for (uint32_t k = 0; k < nb; k++) {
            a[ne] = 2 + 2 * k;
            b[ne++] = 3 + 2 * k;
        }
        a[ne] = 0;                      /* ENTRY -> block 0 */
        b[ne++] = 2;
        for (uint32_t k = 0; k < nb; k++) {
            a[ne] = 3 + 2 * k;          /* the chain: k -> k + 1, the last to EXIT */
            b[ne++] = k + 1 < nb ? 2 + 2 * (k + 1) : 1;
        }
        uint32_t extra = (uint32_t)(rand() % 24);
        for (uint32_t k = 0; k < extra && ne < 62; k++) {
            uint32_t from = (uint32_t)rand() % nb, to = (uint32_t)rand() % (nb + 1);
            a[ne] = 3 + 2 * from;
            b[ne++] = to == nb ? 1 : 2 + 2 * to;
        }
        a[ne] = 1;                      /* EXIT -- ENTRY */
        b[ne++] = 0;
        shuffle(ne, a, b);
        for (uint32_t e = 0; e < ne; e++)
            alive[e] = true;
        check_against_definition(2 + 2 * nb, ne, a, b, alive);
    }
}

/* Random two-edge-connected multigraphs: a cycle through every vertex
 * and random chords, parallel edges among them. */
static void test_random_graphs_agree_with_the_definition(void **state)
{
    (void)state;
    srand(94);
    for (int round = 0; round < 5000; round++) {
        uint32_t nv = 2 + (uint32_t)(rand() % 12), a[64], b[64], ne = 0;
        bool alive[64];
        for (uint32_t v = 0; v < nv; v++) {
            a[ne] = v;
            b[ne++] = (v + 1) % nv;
        }
        uint32_t extra = (uint32_t)(rand() % 14);
        for (uint32_t k = 0; k < extra; k++) {
            uint32_t x = (uint32_t)rand() % nv, y = (uint32_t)rand() % nv;
            if (x != y) {
                a[ne] = x;
                b[ne++] = y;
            }
        }
        shuffle(ne, a, b);
        for (uint32_t e = 0; e < ne; e++)
            alive[e] = true;
        check_against_definition(nv, ne, a, b, alive);
    }
}

/* Edges left out (dead code) get no class and do not disturb the rest. */
static void test_edges_not_alive_get_no_class(void **state)
{
    (void)state;
    const uint32_t a[] = {0, 1, 2, 3}, b[] = {1, 2, 0, 2};
    const bool alive[] = {1, 1, 1, 0};
    uint32_t cls[4];
    assert_int_equal(calc_cycle_equivalence(4, 4, a, b, alive, 0, cls), 1);
    assert_int_equal(cls[3], NONE);
    assert_true(cls[0] == cls[1] && cls[1] == cls[2]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_simple_cycle_is_one_class),
        cmocka_unit_test(test_a_diamonds_arms_are_classes_and_its_ends_one),
        cmocka_unit_test(test_parallel_edges_are_not_equivalent),
        cmocka_unit_test(test_nested_loops_agree_with_the_definition),
        cmocka_unit_test(test_two_subtrees_reaching_above_a_node_need_a_capping_bracket),
        cmocka_unit_test(test_random_cfgs_agree_with_the_definition),
        cmocka_unit_test(test_random_graphs_agree_with_the_definition),
        cmocka_unit_test(test_edges_not_alive_get_no_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
