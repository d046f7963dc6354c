/*
 * The sample-path oracle (hw-model/plugin/path-oracle.c): what the ring
 * keeps of retired instructions (conditional branches with their
 * direction, other transfers, discontinuities; straight-line code not at
 * all), newest first in a logged sample, wrapping at the depth, and the
 * file it writes (oracle-format.h's layout, read back byte for byte).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "hw-model/plugin/path-oracle.h"

static void test_the_log_holds_each_kind_of_control_flow_newest_first(void **state)
{
    (void)state;
    assert_int_equal(path_oracle_init(2), 0);
    path_oracle_retired(1, 0x1000, ALPHA_BRANCH_COND, 0x1004);     /* fall-through */
    path_oracle_retired(1, 0x1004, ALPHA_IALU, 0x1008);             /* straight line: nothing */
    path_oracle_retired(1, 0x1008, ALPHA_BRANCH_COND, 0x1100);     /* taken */
    path_oracle_retired(1, 0x1100, ALPHA_JUMP, 0x2000);            /* a jsr */
    path_oracle_retired(1, 0x2000, ALPHA_IALU, 0x8000);             /* an interrupt came */
    path_oracle_retired(0, 0x3000, ALPHA_BRANCH, 0x3010);          /* another core's br */
    path_oracle_sample(1, 0x8000, 77, 0x2);
    for (unsigned i = 0; i < 40; i++)                              /* wraps the ring */
        path_oracle_retired(0, 0x4000 + 4 * i, ALPHA_BRANCH_COND, 0x4000 + 4 * i + (i & 1 ? 8 : 4));
    path_oracle_sample(0, 0x5000, 99, 0);
    char path[] = "/tmp/test_hw_path_oracleXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(path_oracle_write(path, 1234), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    struct oracle_pmepath_header h;
    assert_int_equal(fread(&h, sizeof h, 1, f), 1);
    assert_true(h.magic == ORACLE_PMEPATH_MAGIC);
    assert_int_equal(h.version, ORACLE_PMEPATH_VERSION);
    assert_int_equal(h.nsamples, 2);
    assert_int_equal(h.run_id, 1234);
    assert_int_equal(h.lost, 0);
    struct oracle_pmepath_sample s[2];
    assert_int_equal(fread(s, sizeof s[0], 2, f), 2);
    fclose(f);
    unlink(path);
    /* core 0's first: its sample came second but the file is per core */
    assert_int_equal(s[0].core, 0);
    assert_int_equal(s[0].ntrans, ORACLE_PMEPATH_DEPTH);
    assert_true(s[0].trans[0] == ((0x4000 + 4 * 39) | PMEPATH_TAKEN));
    assert_true(s[0].trans[1] == ((0x4000 + 4 * 38) | PMEPATH_FALL));
    assert_true(s[0].trans[ORACLE_PMEPATH_DEPTH - 1] == ((0x4000 + 4 * 8) | PMEPATH_FALL));
    assert_int_equal(s[1].core, 1);
    assert_int_equal(s[1].pc, 0x8000);
    assert_int_equal(s[1].fetch_cycle, 77);
    assert_int_equal(s[1].history, 2);
    assert_int_equal(s[1].ntrans, 4);
    assert_true(s[1].trans[0] == (0x2000 | PMEPATH_OTHER));
    assert_true(s[1].trans[1] == (0x1100 | PMEPATH_JUMP));
    assert_true(s[1].trans[2] == (0x1008 | PMEPATH_TAKEN));
    assert_true(s[1].trans[3] == (0x1000 | PMEPATH_FALL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_log_holds_each_kind_of_control_flow_newest_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
