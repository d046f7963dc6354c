/*
 * Symbol and line lookup on real images: the hello workload and the monitor
 * as the build makes them (DWARF from gcc, symbols from ld).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/symbols.h"

static struct symtab *open_or_fail(const char *path)
{
    struct symtab *st = NULL;
    struct ap_err err;
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "ERROR: %s is missing: build it with make (make test builds it first)\n", path);
        fail();
    }
    if (symtab_open(path, &st, &err)) {
        fprintf(stderr, "ERROR: %s\n", err.msg);
        fail();
    }
    return st;
}

static void test_functions_and_lines(void **state)
{
    (void)state;
    struct symtab *st = open_or_fail("build/workloads/hello.elf");
    const struct symbol *main_sym = symtab_find(st, "main");
    assert_non_null(main_sym);
    assert_true(main_sym->start >= 0x1000000 && main_sym->size > 0);
    /* Every address inside main maps back to main; one past it does not. */
    for (uint64_t a = main_sym->start; a < main_sym->start + main_sym->size; a += 4)
        assert_ptr_equal(symtab_lookup(st, a), main_sym);
    const struct symbol *after = symtab_lookup(st, main_sym->start + main_sym->size);
    assert_true(after != main_sym);
    /* Lines of main come from hello.c (DWARF, not the symbol table). */
    const struct source_line *l = symtab_line(st, main_sym->start);
    assert_non_null(l);
    assert_non_null(strstr(l->file, "workloads/hello/hello.c"));
    assert_true(l->line > 0);
    /* printf lives in newlib, built without our sources: a symbol, any line. */
    assert_non_null(symtab_find(st, "printf"));
    size_t idsize;
    symtab_build_id(st, &idsize);
    assert_int_equal(idsize, 20);
    symtab_close(st);
}

static void test_sorted_and_distinct(void **state)
{
    (void)state;
    struct symtab *st = open_or_fail("build/firmware/monitor-clipper.elf");
    size_t n;
    const struct symbol *s = symtab_symbols(st, &n);
    assert_true(n > 50);
    for (size_t i = 1; i < n; i++)
        assert_true(s[i - 1].start < s[i].start);
    /* The monitor is linked in KSEG. */
    const struct symbol *m = symtab_find(st, "monitor_main");
    assert_non_null(m);
    assert_true(m->start >= 0xfffffc0000310000ull);
    assert_ptr_equal(symtab_lookup(st, m->start + 4), m);
    assert_null(symtab_lookup(st, 0x10));
    symtab_close(st);
}

static void test_bad_files(void **state)
{
    (void)state;
    struct symtab *st;
    struct ap_err err;
    assert_int_not_equal(symtab_open("no/such/file.elf", &st, &err), 0);
    assert_non_null(strstr(err.msg, "no/such/file.elf"));
    assert_int_not_equal(symtab_open("README.md", &st, &err), 0);
    assert_non_null(strstr(err.msg, "not an ELF"));
}

/* An image whose symbol table has no function (and no DWARF): nothing to
 * sort, nothing found, no crash (UBSan stopped at qsort(NULL, 0) here). */
static void test_an_elf_without_function_symbols(void **state)
{
    (void)state;
    struct symtab *st = open_or_fail("build/tests/data/no-functions.o");
    size_t n = 99;
    symtab_symbols(st, &n);
    assert_int_equal(n, 0);
    assert_null(symtab_find(st, "lookup_table"));     /* an object, not a procedure */
    assert_null(symtab_lookup(st, 0));
    assert_null(symtab_line(st, 0));
    symtab_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_functions_and_lines),
        cmocka_unit_test(test_sorted_and_distinct),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_an_elf_without_function_symbols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
