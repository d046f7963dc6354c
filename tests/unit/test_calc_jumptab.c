/*
 * calc's CFG through a real jump table (util/calc-jumptab.c): gcc's
 * switch of tests/unit/data/switch-table.c (cases 0..6 and a default,
 * linked by tests/build.mk), read from the ELF with libelf as calc reads
 * an image.  The jmp gets seven edges, one per case, each to a block of
 * that case ending in ret, none to the default; the CFG misses no edge
 * and its classes are cycle equivalence's.  Without the image (nothing
 * to read the table from), the same jmp marks the CFG as missing edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hw-model/isa/alpha-isa.h"
#include "util/calc.h"
#include "util/symbols.h"

static struct model_params params;

static bool read_image(const void *ctx, uint64_t addr, void *buf, size_t len)
{
    return symtab_read(ctx, addr, buf, len);
}

struct fixture {
    struct symtab *st;
    uint64_t start;
    uint32_t *words;
    size_t n;
};

static int setup(void **state)
{
    static struct fixture f;
    struct ap_err err;
    model_params_inorder(&params);
    if (symtab_open("build/tests/data/switch-table.elf", &f.st, &err))
        fail_msg("%s", err.msg);
    const struct symbol *sym = symtab_find(f.st, "classify");
    assert_non_null(sym);
    f.start = sym->start;
    f.n = (size_t)(symtab_symbol_end(f.st, sym) - sym->start) / 4;
    assert_true(f.n > 10);
    f.words = calc_zalloc(f.n, sizeof *f.words);
    assert_true(symtab_read(f.st, f.start, f.words, f.n * 4));
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    free(f->words);
    symtab_close(f->st);
    return 0;
}

static size_t the_jmp(const struct fixture *f)
{
    for (size_t i = 0; i < f->n; i++)
        if (alpha_opcode(f->words[i]) == 0x1a && ((f->words[i] >> 14) & 3) == 0)
            return i;
    fail_msg("no jmp in classify");
    return 0;
}

static void test_a_switchs_jump_table_gives_an_edge_to_each_case(void **state)
{
    struct fixture *f = *state;
    const struct calc_image img = {read_image, f->st, .local_entry = false};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build_image(&p, &params, f->start, f->words, f->n, &img), 0);
    assert_false(p.missing_edges);
    size_t j = the_jmp(f);
    assert_int_equal(p.insns[j].jump, JUMP_TABLE);
    const struct calc_block *jb = &p.blocks[p.insns[j].block];
    assert_int_equal(jb->nout, 7);
    /* the default: the bound check's beq target */
    uint32_t dflt = CALC_NONE;
    for (size_t i = 0; i < j; i++)
        if (alpha_opcode(f->words[i]) == 0x39)
            dflt = p.insns[(alpha_branch_target(p.insns[i].pc, f->words[i]) - f->start) / 4].block;
    assert_true(dflt != CALC_NONE);
    for (uint32_t k = 0; k < jb->nout; k++) {
        const struct calc_edge *e = &p.edges[jb->out[k]];
        assert_int_equal(e->kind, EDGE_TABLE);
        assert_true(e->to != CALC_EXIT && e->to != dflt);
        for (uint32_t q = 0; q < k; q++)
            assert_true(p.edges[jb->out[q]].to != e->to);
        const struct calc_block *t = &p.blocks[e->to];
        uint32_t last = t->first + t->n - 1;
        assert_int_equal(f->words[last] >> 14, (0x1au << 12 | 31u << 7 | 26u << 2 | 2));     /* ret */
    }
    /* each case runs as often as its edge; the jmp's block with the entry */
    calc_equivalence(&p);
    for (uint32_t k = 0; k < jb->nout; k++) {
        const struct calc_edge *e = &p.edges[jb->out[k]];
        assert_int_equal(e->cls, p.blocks[e->to].cls);
        assert_true(e->cls != p.blocks[p.insns[j].block].cls);
    }
    calc_proc_free(&p);
}

static void test_without_the_image_the_jmp_marks_missing_edges(void **state)
{
    struct fixture *f = *state;
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, f->start, f->words, f->n), 0);
    assert_true(p.missing_edges);
    assert_int_equal(p.insns[the_jmp(f)].jump, JUMP_UNKNOWN);
    calc_proc_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_switchs_jump_table_gives_an_edge_to_each_case),
        cmocka_unit_test(test_without_the_image_the_jmp_marks_missing_edges),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
