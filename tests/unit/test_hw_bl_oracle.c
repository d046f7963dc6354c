/*
 * The model's Ball-Larus path counting (hw-model/plugin/bl-oracle.c) on a
 * hand-made plan of one loop (1000 addq; 1004 beq -> 1010 | 1008 addq;
 * 100c br -> 1000 | 1010 ret; numbered as BL's four paths: 0 entry-body-
 * backedge, 1 entry-exit, 2 backedge-body-backedge, 3 backedge-exit) and a
 * caller (2000 bsr -> 1000; 2004 ret): three trips round the loop leave
 * the counts 0:1 2:2 3:1, an interrupt between instructions changes
 * nothing, a call does not end the caller's path, and the counts come out
 * in the file's layout.  Metrics: each instruction takes 2 cycles and
 * 1008 misses once; a path's deltas run from the counters before its
 * first instruction (an entry's) or after its backedge, to those after
 * its last, so loop paths tile, the caller's path holds its callee's
 * and what ran before a procedure's first instruction is not its.
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

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/plugin/bl-oracle.h"

#define BEQ(ra, disp)   (0x39u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BR(disp)        (0x30u << 26 | 31u << 21 | ((disp) & 0x1fffff))
#define BSR(disp)       (0x34u << 26 | 26u << 21 | ((disp) & 0x1fffff))
#define RET             (0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14)
#define ADDQ            (0x10u << 26 | 1u << 21 | 2u << 16 | 0x20 << 5 | 3u)

static char plan_path[] = "/tmp/test_hw_bl_oracleXXXXXX";

static int setup(void **state)
{
    (void)state;
    struct oracle_plan_proc procs[2] = {
        {.start = 0x1000, .end = 0x1014, .npaths = 4, .status = ORACLE_PLAN_OK, .nedges = 5, .first_edge = 0},
        {.start = 0x2000, .end = 0x2008, .npaths = 1, .status = ORACLE_PLAN_OK, .nedges = 3, .first_edge = 5},
    };
    struct oracle_plan_edge edges[8] = {
        {.from = 0, .to = 0x1000, .action = ORACLE_PLAN_ACT_ENTRY, .cfg_kind = ORACLE_PLAN_EDGE_ENTRY},
        {.from = 0x1004, .to = 0x1008, .action = ORACLE_PLAN_ACT_ADD, .cfg_kind = ORACLE_PLAN_EDGE_FALL},
        {.from = 0x1004, .to = 0x1010, .action = ORACLE_PLAN_ACT_ADD, .cfg_kind = ORACLE_PLAN_EDGE_TAKEN, .add = 1},
        {.from = 0x100c, .to = 0x1000, .action = ORACLE_PLAN_ACT_BACKEDGE, .cfg_kind = ORACLE_PLAN_EDGE_TAKEN,
         .reset = 2},
        {.from = 0x1010, .to = 0, .action = ORACLE_PLAN_ACT_EXIT, .cfg_kind = 4},
        {.from = 0, .to = 0x2000, .action = ORACLE_PLAN_ACT_ENTRY, .cfg_kind = ORACLE_PLAN_EDGE_ENTRY},
        {.from = 0x2000, .to = 0x2004, .action = ORACLE_PLAN_ACT_ADD, .cfg_kind = ORACLE_PLAN_EDGE_CALL_RETURN},
        {.from = 0x2004, .to = 0, .action = ORACLE_PLAN_ACT_EXIT, .cfg_kind = 4},
    };
    struct oracle_plan_header h = {.magic = ORACLE_PLAN_MAGIC, .version = ORACLE_PLAN_VERSION, .nprocs = 2,
                                   .nedges = 8};
    int fd = mkstemp(plan_path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    fwrite(&h, sizeof h, 1, f);
    fwrite(procs, sizeof procs[0], 2, f);
    fwrite(edges, sizeof edges[0], 8, f);
    fclose(f);
    assert_int_equal(bl_oracle_load(plan_path, 1), 1);
    unlink(plan_path);
    return 0;
}

static struct bl_meter now;
static uint64_t ctx;    /* the calling-context oracle's record the next instruction runs under */

/* Something outside the plan ran: the counters moved. */
static void elsewhere(uint64_t cycles)
{
    now.v[PMU_EV_CYCLES] += cycles;
}

static void run(uint64_t pc, uint32_t word, unsigned cls)
{
    static struct bl_insn pool[64];             /* (they live as long as the plugin's do) */
    static size_t used;
    assert_true(used < 64);
    struct bl_insn *in = &pool[used++];
    assert_true(bl_oracle_insn(pc, word, cls, in));
    struct bl_meter before = now;
    now.v[PMU_EV_CYCLES] += 2;
    now.v[PMU_EV_DMISS] += pc == 0x1008;
    bl_oracle_retired(0, pc, in, &before, &now, ctx);
}

static void test_the_loops_paths_are_counted_metered_and_kept_per_context_through_a_call_and_an_interrupt(void **state)
{
    (void)state;
    struct bl_insn none;
    assert_false(bl_oracle_insn(0x3000, ADDQ, ALPHA_IALU, &none));      /* outside the plan */
    elsewhere(1000);                                                     /* (the monitor loaded it) */
    run(0x2000, BSR(-0x401), ALPHA_BRANCH);                              /* g calls f */
    ctx = 5;                                                             /* f runs under record 5 */
    elsewhere(100);                                                      /* an interrupt: g's, not f's */
    for (int trip = 0; trip < 3; trip++) {
        run(0x1000, ADDQ, ALPHA_IALU);
        run(0x1004, BEQ(3, 2), ALPHA_BRANCH_COND);                       /* not taken */
        /* an interrupt here: the monitor's code is not in the plan */
        run(0x1008, ADDQ, ALPHA_IALU);
        run(0x100c, BR(-4), ALPHA_BRANCH);
    }
    run(0x1000, ADDQ, ALPHA_IALU);
    run(0x1004, BEQ(3, 2), ALPHA_BRANCH_COND);                           /* taken: out */
    run(0x1010, RET, ALPHA_JUMP);
    ctx = 0;                                                             /* the return resolved: g's */
    run(0x2004, RET, ALPHA_JUMP);                                        /* back in g, on its path */
    run(0x2000, BSR(-0x401), ALPHA_BRANCH);                              /* (follows g's ret) */
    char path[] = "/tmp/test_hw_bl_countsXXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(bl_oracle_write(path, 7), 0);
    FILE *f = fopen(path, "rb");
    struct oracle_blpaths_header h;
    assert_int_equal(fread(&h, sizeof h, 1, f), 1);
    assert_true(h.magic == ORACLE_BLPATHS_MAGIC);
    assert_int_equal(h.run_id, 7);
    assert_int_equal(h.unknown, 0);
    assert_int_equal(h.n, 4);
    struct oracle_blpath b[4];
    assert_int_equal(fread(b, sizeof b[0], 4, f), 4);
    fclose(f);
    unlink(path);
    /* proc, path, count, cycles, misses */
    static const uint64_t want[4][5] = {
        {0x1000, 0, 1, 8, 1}, {0x1000, 2, 2, 16, 2}, {0x1000, 3, 1, 6, 0}, {0x2000, 0, 1, 134, 3}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(b[i].proc, want[i][0]);
        assert_int_equal(b[i].path, want[i][1]);
        assert_int_equal(b[i].count, want[i][2]);
        assert_int_equal(b[i].metric[PMU_EV_CYCLES], want[i][3]);
        assert_int_equal(b[i].metric[PMU_EV_DMISS], want[i][4]);
    }
    /* per context (bl-oracle.h note 8): f's paths under f's record, its
     * exit too though g's instruction that follows it runs under g's */
    assert_int_equal(bl_oracle_write_contexts(path, 7), 0);
    f = fopen(path, "rb");
    struct oracle_cctpaths_header ch;
    assert_int_equal(fread(&ch, sizeof ch, 1, f), 1);
    assert_true(ch.magic == ORACLE_CCTPATHS_MAGIC && ch.version == ORACLE_CCTPATHS_VERSION);
    assert_int_equal(ch.run_id, 7);
    assert_int_equal(ch.n, 4);
    struct oracle_cctpath cp[4];
    assert_int_equal(fread(cp, sizeof cp[0], 4, f), 4);
    fclose(f);
    unlink(path);
    /* record, proc, path, count, cycles, misses; by record: each path
     * ran in one context here, so its metrics there are its own */
    static const uint64_t cwant[4][6] = {{0, 0x2000, 0, 1, 134, 3}, {5, 0x1000, 0, 1, 8, 1},
                                         {5, 0x1000, 2, 2, 16, 2}, {5, 0x1000, 3, 1, 6, 0}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cp[i].core, 0);
        assert_int_equal(cp[i].record, cwant[i][0]);
        assert_int_equal(cp[i].proc, cwant[i][1]);
        assert_int_equal(cp[i].path, cwant[i][2]);
        assert_int_equal(cp[i].count, cwant[i][3]);
        assert_int_equal(cp[i].metric[PMU_EV_CYCLES], cwant[i][4]);
        assert_int_equal(cp[i].metric[PMU_EV_DMISS], cwant[i][5]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_loops_paths_are_counted_metered_and_kept_per_context_through_a_call_and_an_interrupt),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
