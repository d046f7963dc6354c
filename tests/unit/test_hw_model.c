/*
 * The timing model on synthetic instruction streams with known answers:
 * cache hit and miss latencies, the predictor learning a biased branch,
 * a dependency chain issuing back to back at the producer's latency, and
 * a full reorder buffer stalling fetch.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/model/core-model.h"

/* Instruction words. */
#define LDQ(ra, disp, rb)   (0x29u << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define ADDQ(ra, rb, rc)    (0x10u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define MULQ(ra, rb, rc)    (0x13u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define BNE(ra, disp)       (0x3du << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define NOP                 0x47ff041fu

static struct core_model model;
static struct model_params params;

static int setup(void **state)
{
    (void)state;
    model_params_default(&params);
    return core_model_init(&model, &params);
}

static int teardown(void **state)
{
    (void)state;
    core_model_free(&model);
    return 0;
}

static void step(uint64_t pc, uint32_t word, uint64_t addr, uint64_t next, struct insn_result *r)
{
    struct insn_static s;
    insn_static_decode(&s, pc, word);
    core_model_step(&model, &s, addr, next, r);
}

static void test_cache_hit_and_miss_latency(void **state)
{
    (void)state;
    struct insn_result r;
    step(0x1000, LDQ(1, 0, 2), 0x200000, 0x1004, &r);
    assert_int_equal(r.events[PMU_EV_DMISS], 1);
    assert_int_equal(r.events[PMU_EV_L2MISS], 1);
    assert_int_equal(r.latency, params.l1_latency + params.tlb_miss_latency + params.memory_latency);
    step(0x1004, LDQ(3, 8, 2), 0x200008, 0x1008, &r);     /* same line, same page */
    assert_int_equal(r.events[PMU_EV_DMISS], 0);
    assert_int_equal(r.latency, params.l1_latency);
    /* Evict the line from the 2-way L1 with two conflicting lines: an L2 hit. */
    uint64_t stride = (uint64_t)params.l1d_kb * 1024 / params.l1_ways;
    step(0x1008, LDQ(4, 0, 5), 0x200000 + stride, 0x100c, &r);
    step(0x100c, LDQ(4, 0, 5), 0x200000 + 2 * stride, 0x1010, &r);
    step(0x1010, LDQ(4, 0, 5), 0x200000, 0x1014, &r);
    assert_int_equal(r.events[PMU_EV_DMISS], 1);
    assert_int_equal(r.events[PMU_EV_L2MISS], 0);
    assert_int_equal(r.latency, params.l1_latency + params.l2_latency);
}

static void test_predictor_learns_a_biased_branch(void **state)
{
    (void)state;
    struct insn_result r;
    unsigned late_mispredicts = 0;
    for (int i = 0; i < 1000; i++) {
        bool taken = i % 10 != 9;      /* 90% taken */
        step(0x2000, BNE(1, -1), 0, taken ? 0x2000 : 0x2004, &r);
        if (i >= 500 && r.events[PMU_EV_BRANCHMP])
            late_mispredicts++;
    }
    /* A learnt 90/10 branch mispredicts at most the 10% (the local history
     * can even learn the period-10 pattern). */
    assert_true(late_mispredicts <= 55);
    assert_true(model.bp.predictions == 1000);
}

static void test_dependency_chain_issues_at_producer_latency(void **state)
{
    (void)state;
    struct insn_result r[4];
    /* r1 = r2*r3; r4 = r1+r1; r5 = r4+r4: each waits for the previous. */
    step(0x3000, MULQ(2, 3, 1), 0, 0x3004, &r[0]);
    step(0x3004, ADDQ(1, 1, 4), 0, 0x3008, &r[1]);
    step(0x3008, ADDQ(4, 4, 5), 0, 0x300c, &r[2]);
    step(0x300c, ADDQ(6, 7, 8), 0, 0x3010, &r[3]);        /* independent */
    assert_int_equal(r[1].issue, r[0].issue + params.imul_latency);
    assert_int_equal(r[2].issue, r[1].issue + 1);
    assert_true(r[3].issue < r[1].issue);                  /* does not wait */
    assert_true(r[3].retire >= r[2].retire);               /* but retires in order */
}

static void test_full_rob_stalls_map(void **state)
{
    (void)state;
    struct insn_result r;
    /* A load that misses to memory, then independent nops: once the ROB is
     * full of them, map waits for the load to retire. */
    step(0x4000, LDQ(1, 0, 2), 0x900000, 0x4004, &r);
    uint64_t load_retire = r.retire;
    uint64_t first_after = 0;
    for (unsigned i = 1; i <= params.rob + 8; i++) {
        step(0x4000 + 4 * i, NOP, 0, 0x4004 + 4 * i, &r);
        if (i == params.rob)
            first_after = r.fetch;
    }
    assert_true(first_after >= load_retire - 1);
    /* Cycles are attributed in full: they sum to the last retirement. */
    assert_int_equal(model.events[PMU_EV_CYCLES], model.last_retire);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cache_hit_and_miss_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_predictor_learns_a_biased_branch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dependency_chain_issues_at_producer_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_rob_stalls_map, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
