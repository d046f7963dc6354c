/*
 * The oracle's cycle stacks on the host (util/cycle-stacks): the time
 * truth is each PC's stack in cycles; `check --stacks` says "exactly" only
 * when every core's stack is its cycles to the unit and the PCs' stacks
 * sum to the cores', allows a snapshot its one open retire cycle, and
 * fails an oracle whose sums are off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/cycle-stacks.h"

#define U ((uint64_t)CYCLE_UNIT)

/* Two cores of 10 and 6 cycles; three PCs holding them. */
static struct oracle_core cores[2];
static struct oracle_pc pcs[3];
static struct oracle oracle;

static int setup(void **state)
{
    (void)state;
    memset(cores, 0, sizeof cores);
    memset(pcs, 0, sizeof pcs);
    cores[0].cycles = 10;
    cores[0].stack[CAUSE_BASE] = 7 * U + U / 3;
    cores[0].stack[CAUSE_MISPREDICT] = 3 * U - U / 3;
    cores[1].cycles = 6;
    cores[1].stack[CAUSE_BASE] = 2 * U;
    cores[1].stack[CAUSE_DCACHE_MEM] = 4 * U;
    pcs[0] = (struct oracle_pc){.pc = 0x1000, .executions = 4};
    pcs[0].stack[CAUSE_BASE] = 5 * U;
    pcs[0].stack[CAUSE_DCACHE_MEM] = 4 * U;
    pcs[1] = (struct oracle_pc){.pc = 0x1004, .executions = 3};
    pcs[1].stack[CAUSE_BASE] = 4 * U + U / 3;
    pcs[1].stack[CAUSE_MISPREDICT] = 3 * U - U / 3;
    pcs[2] = (struct oracle_pc){.pc = 0x1008, .executions = 9};
    oracle = (struct oracle){.h = {.ncores = 2, .npcs = 3}, .cores = cores, .pcs = pcs};
    return 0;
}

/* check --stacks into a string; returns its result. */
static int print(bool json, char **out)
{
    size_t len;
    FILE *f = open_memstream(out, &len);
    assert_non_null(f);
    int rc = cycle_stacks_print(f, &oracle, 10, json, NULL, NULL);
    assert_int_equal(fclose(f), 0);
    return rc;
}

static void test_time_truth_is_each_pcs_stack_in_cycles(void **state)
{
    (void)state;
    struct keyed_count t[3];
    assert_int_equal(cycle_stacks_time(&oracle, t), 2);         /* 0x1008 has no time */
    assert_int_equal(t[0].key, 0x1000);
    assert_true(t[0].count == 9.0);
    assert_int_equal(t[1].key, 0x1004);
    assert_true(t[1].count == 7.0);
}

static void test_exact_sums_say_exactly(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(print(false, &out), 0);
    assert_non_null(strstr(out, "every core's stack sums to its cycles: exactly"));
    assert_non_null(strstr(out, "the instructions' stacks sum to the cores': exactly"));
    /* the top instruction first, its largest cause first */
    char *top = strstr(out, "1000"), *next = strstr(out, "1004");
    assert_true(top && next && top < next);
    assert_non_null(strstr(top, "base 55.6% dcache_mem 44.4%"));
    free(out);
    assert_int_equal(print(true, &out), 0);
    assert_non_null(strstr(out, "\"exact\": true"));
    assert_non_null(strstr(out, "\"pc_sums_match\": true"));
    assert_non_null(strstr(out, "\"stack\": {\"base\": 9.33333"));
    free(out);
}

static void test_a_snapshot_may_lack_its_open_cycle_and_no_more(void **state)
{
    (void)state;
    char *out;
    /* the open cycle (one unit of a cycle short: a group of 3, uncharged) */
    cores[0].stack[CAUSE_BASE] -= U;
    pcs[1].stack[CAUSE_BASE] -= U;
    oracle.h.snapshot = 2;
    assert_int_equal(print(false, &out), 0);
    assert_non_null(strstr(out, "within its open retire cycle"));
    free(out);
    /* a cycle more is missing: damaged */
    cores[0].stack[CAUSE_BASE] -= 1;
    pcs[1].stack[CAUSE_BASE] -= 1;
    assert_int_equal(print(false, &out), 1);
    assert_non_null(strstr(out, "sums to its cycles: NO"));
    free(out);
}

static void test_pc_stacks_must_sum_to_the_cores(void **state)
{
    (void)state;
    char *out;
    pcs[2].stack[CAUSE_OTHER] = 1;
    assert_int_equal(print(false, &out), 1);
    assert_non_null(strstr(out, "the instructions' stacks sum to the cores': NO"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_time_truth_is_each_pcs_stack_in_cycles, setup),
        cmocka_unit_test_setup(test_exact_sums_say_exactly, setup),
        cmocka_unit_test_setup(test_a_snapshot_may_lack_its_open_cycle_and_no_more, setup),
        cmocka_unit_test_setup(test_pc_stacks_must_sum_to_the_cores, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
