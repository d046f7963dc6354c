/*
 * util/proc-listing: the model behind `alphaprof annotate`, on the real
 * hello workload (symbols, DWARF lines, the shared disassembler) with a
 * hand-made profile of two instructions of main.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "util/proc-listing.h"

#define HELLO "build/workloads/hello.elf"

static void test_main_listed_slot_by_slot_with_its_samples(void **state)
{
    (void)state;
    struct pv_image img;
    memset(&img, 0, sizeof img);
    img.id = 1;
    strcpy(img.name, "hello");
    img.address = 0x1000000;
    struct ap_err err;
    if (symtab_open(HELLO, &img.st, &err))
        fail_msg("%s (make builds it)", err.msg);
    const struct symbol *main_sym = symtab_find(img.st, "main");
    assert_non_null(main_sym);

    struct pv_insn in[3];
    memset(in, 0, sizeof in);
    for (int i = 0; i < 3; i++)
        in[i].img = &img;
    in[0].offset = main_sym->start - img.address;           /* main's first instruction */
    in[0].count[0] = 7;
    in[0].count[1] = 1;
    in[1].offset = main_sym->start + 8 - img.address;       /* its third */
    in[1].count[0] = 3;
    in[2].offset = main_sym->start + main_sym->size - img.address;  /* just past main: not its */
    in[2].count[0] = 100;
    struct profile_view v;
    memset(&v, 0, sizeof v);
    v.nevents = 2;
    v.images = &img;
    v.nimages = 1;
    v.insns = in;
    v.ninsns = 3;

    struct proc_listing l;
    assert_int_equal(proc_listing_build(&v, NULL, "main", &l), 0);
    assert_ptr_equal(l.sym, main_sym);
    assert_int_equal(l.n, main_sym->size / 4);
    for (size_t k = 0; k < l.n; k++) {
        assert_int_equal(l.insns[k].pc, main_sym->start + 4 * k);
        assert_true(l.insns[k].text[0] && strcmp(l.insns[k].text, "??") != 0);
        assert_null(l.insns[k].pme);
    }
    assert_int_equal(l.insns[0].count[0], 7);
    assert_int_equal(l.insns[0].count[1], 1);
    assert_int_equal(l.insns[2].count[0], 3);
    assert_int_equal(l.insns[1].count[0], 0);
    assert_int_equal(l.proc_total[0], 10);      /* the sample past main is not main's */
    assert_int_equal(l.proc_total[1], 1);
    assert_int_equal(l.pme_samples, 0);
    assert_non_null(l.insns[0].line);
    assert_non_null(strstr(l.insns[0].line->file, "hello.c"));
    proc_listing_free(&l);

    assert_int_equal(proc_listing_build(&v, NULL, "no_such_procedure", &l), -1);
    symtab_close(img.st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_main_listed_slot_by_slot_with_its_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
