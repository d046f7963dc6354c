/*
 * The oracle's per-PC table (hw-model/plugin/pc-table.c): an entry exists
 * once its PC was fetched, whatever its counts (a PC only ever fetched
 * down a bad path has no executions and must still be there), entries keep
 * their addresses while the index grows, and the entries below `used` are
 * exactly the PCs asked for, once each.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hw-model/plugin/pc-table.h"

static void test_entries_exist_without_executions(void **state)
{
    (void)state;
    struct pc_table t;
    assert_int_equal(pc_table_init(&t, 16), 0);
    struct oracle_pc *a = pc_table_get(&t, 0x1000);
    assert_non_null(a);
    a->aborted++;                       /* fetched on a bad path only */
    struct oracle_pc *b = pc_table_get(&t, 0);     /* PC 0 is an address like any other */
    assert_non_null(b);
    assert_true(a != b);
    assert_ptr_equal(pc_table_get(&t, 0x1000), a);
    assert_ptr_equal(pc_table_get(&t, 0), b);
    assert_int_equal(t.used, 2);
    assert_int_equal(a->executions, 0);
    assert_int_equal(a->aborted, 1);
    pc_table_free(&t);
}

static void test_entries_stay_put_while_the_index_grows(void **state)
{
    (void)state;
    struct pc_table t;
    assert_int_equal(pc_table_init(&t, 16), 0);
    enum { N = 3 * PC_TABLE_CHUNK + 17 };
    struct oracle_pc **ptr = calloc(N, sizeof *ptr);
    assert_non_null(ptr);
    for (size_t i = 0; i < N; i++) {
        uint64_t pc = 0xfffffc0000310000ull + 4 * (i * 7919 % N);
        ptr[i] = pc_table_get(&t, pc);
        assert_non_null(ptr[i]);
        assert_int_equal(ptr[i]->pc, pc);
        ptr[i]->executions = i + 1;
    }
    assert_int_equal(t.used, N);
    assert_true(t.cap >= 2 * N);
    for (size_t i = 0; i < N; i++) {
        uint64_t pc = 0xfffffc0000310000ull + 4 * (i * 7919 % N);
        assert_ptr_equal(pc_table_get(&t, pc), ptr[i]);
        assert_int_equal(ptr[i]->executions, i + 1);
    }
    assert_int_equal(t.used, N);
    /* entries in first-fetch order, each PC once */
    for (size_t i = 0; i < N; i++)
        assert_ptr_equal(pc_table_entry(&t, i), ptr[i]);
    free(ptr);
    pc_table_free(&t);
}

static void test_bad_sizes_are_refused(void **state)
{
    (void)state;
    struct pc_table t;
    assert_int_equal(pc_table_init(&t, 0), -1);
    assert_int_equal(pc_table_init(&t, 100), -1);
    pc_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_exist_without_executions),
        cmocka_unit_test(test_entries_stay_put_while_the_index_grows),
        cmocka_unit_test(test_bad_sizes_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
