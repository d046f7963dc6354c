/*
 * The shared Alpha instruction table checked against binutils: every
 * instruction of real images (workloads, newlib, the monitor, FP code) is
 * decoded by our table and by alpha-linux-gnu-objdump, and the mnemonics
 * must agree.  objdump is an independent decoder, so this tests the table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hw-model/isa/alpha-isa.h"

static void compare_with_objdump(const char *elf, size_t *total, size_t *bad)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "alpha-linux-gnu-objdump -d %s 2>/dev/null", elf);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[512];
    while (fgets(line, sizeof line, p)) {
        unsigned long long addr;
        unsigned b0, b1, b2, b3;
        char mnem[64];
        /* " 1000090:\t01 00 bb 27 \tldah\tgp,1(t12)" */
        if (sscanf(line, " %llx:\t%2x %2x %2x %2x \t%63s", &addr, &b0, &b1, &b2, &b3, mnem) != 6)
            continue;
        uint32_t w = b0 | b1 << 8 | b2 << 16 | (uint32_t)b3 << 24;
        char ours[128];
        alpha_disassemble(w, addr, ours, sizeof ours);
        char *tab = strchr(ours, '\t');
        if (tab)
            *tab = '\0';
        (*total)++;
        /* binutils names only the unprivileged PAL calls; we name the OSF/1
         * privileged ones too (swpipl, whami...): same instruction. */
        const struct alpha_insn_info *in = alpha_decode(w);
        if (!strcmp(mnem, "call_pal") && in && in->cls == ALPHA_PAL)
            continue;
        if (strcmp(ours, mnem) != 0) {
            if (++*bad <= 10)
                fprintf(stderr, "%s: %llx %08x: objdump '%s', ours '%s'\n", elf, addr, w, mnem, ours);
        }
    }
    pclose(p);
}

static void test_mnemonics_agree_with_binutils(void **state)
{
    (void)state;
    const char *elfs[] = {"build/workloads/libcheck.elf", "build/workloads/matmul.elf",
                          "build/workloads/compress.elf", "build/firmware/monitor-clipper.elf"};
    size_t total = 0, bad = 0;
    for (size_t i = 0; i < sizeof elfs / sizeof elfs[0]; i++)
        compare_with_objdump(elfs[i], &total, &bad);
    fprintf(stderr, "%zu instructions compared, %zu differ\n", total, bad);
    assert_true(total > 20000);
    assert_int_equal(bad, 0);
}

static void test_fields_and_classes(void **state)
{
    (void)state;
    /* ldq ra,0(sp) = 0xa75e0000 */
    const struct alpha_insn_info *in = alpha_decode(0xa75e0000);
    assert_non_null(in);
    assert_string_equal(in->name, "ldq");
    assert_int_equal(in->cls, ALPHA_LOAD);
    assert_int_equal(alpha_ra(0xa75e0000), 26);
    assert_int_equal(alpha_rb(0xa75e0000), 30);
    /* beq v0,+0x26 words: 0xe4000026 at pc 0x1000100 -> 0x100019c */
    in = alpha_decode(0xe4000026);
    assert_int_equal(in->cls, ALPHA_BRANCH_COND);
    assert_int_equal(alpha_branch_target(0x1000100, 0xe4000026), 0x100019c);
    /* mult/su is an FMUL whatever its qualifiers */
    in = alpha_decode(0x5800a000 | (0x562 << 5));
    assert_non_null(in);
    assert_string_equal(in->name, "mult");
    assert_int_equal(in->cls, ALPHA_FMUL);
    /* an undefined opcode */
    assert_null(alpha_decode(0x04000000));
    char buf[64];
    alpha_disassemble(0x04000000, 0, buf, sizeof buf);
    assert_string_equal(buf, ".long\t0x04000000");
    /* every table entry decodes to itself */
    for (size_t i = 0; i < alpha_ninsns; i++) {
        const struct alpha_insn_info *e = &alpha_insns[i];
        uint32_t w = (uint32_t)e->opcode << 26;
        switch (e->format) {
        case ALPHA_FMT_PAL: w |= e->function; break;
        case ALPHA_FMT_MEMF: w |= e->function; break;
        case ALPHA_FMT_JMP: w |= (uint32_t)e->function << 14; break;
        case ALPHA_FMT_OPR: case ALPHA_FMT_FTOI: w |= (uint32_t)e->function << 5; break;
        case ALPHA_FMT_ITOF: case ALPHA_FMT_FPQ: case ALPHA_FMT_FPQ1:
            w |= (uint32_t)(e->function | 0x80) << 5; break;
        case ALPHA_FMT_FPX: case ALPHA_FMT_FPX1: w |= (uint32_t)e->function << 5; break;
        default: break;
        }
        assert_ptr_equal(alpha_decode(w), e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_and_classes),
        cmocka_unit_test(test_mnemonics_agree_with_binutils),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
