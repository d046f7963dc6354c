/*
 * The timing model on synthetic instruction streams with known answers:
 * cache hit and miss latencies, the predictor learning a biased branch,
 * a dependency chain issuing back to back at the producer's latency, a
 * full reorder buffer stalling fetch, the stage times of seed Table 1
 * (map->data ready waits of a dependency chain, an FP divide's execution
 * latency, functional-unit contention in data ready->issue, full issue
 * queues and store buffer in fetch->map), bad-path fetch after a
 * mispredict, and exact cycle attribution on a mixed random stream.
 * Cycle stacks (TIP's rules) with hand-computed answers: a cold start's
 * empty window booked as I-cache, a retiring cycle split among its
 * retirers, the retire width, a stall to the oldest instruction, a
 * mispredict's refetch bubble to the branch, a D-cache miss's stall to its
 * consumer as D-cache, a trap's bubble to the trapping load; and on the
 * random stream the stacks sum exactly to the core's cycles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hw-model/isa/alpha-isa.h"
#include "hw-model/model/core-model.h"

/* Instruction words. */
#define LDQ(ra, disp, rb)   (0x29u << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define ADDQ(ra, rb, rc)    (0x10u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define SRL(ra, rb, rc)     (0x12u << 26 | (ra) << 21 | (rb) << 16 | 0x34 << 5 | (rc))
#define XOR(ra, rb, rc)     (0x11u << 26 | (ra) << 21 | (rb) << 16 | 0x40 << 5 | (rc))
#define LDA(ra, disp, rb)   (0x08u << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define MULQ(ra, rb, rc)    (0x13u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define BNE(ra, disp)       (0x3du << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define STQ(ra, disp, rb)   (0x2du << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define BEQ(ra, disp)       (0x39u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BR(ra, disp)        (0x30u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define DIVT(fa, fb, fc)    (0x16u << 26 | (fa) << 21 | (fb) << 16 | 0x0a3u << 5 | (fc))
#define ADDT(fa, fb, fc)    (0x16u << 26 | (fa) << 21 | (fb) << 16 | 0x0a0u << 5 | (fc))
#define JSR(ra, rb)         (0x1au << 26 | (ra) << 21 | (rb) << 16 | 1u << 14)
#define JMP(ra, rb)         (0x1au << 26 | (ra) << 21 | (rb) << 16)
#define RET(ra, rb)         (0x1au << 26 | (ra) << 21 | (rb) << 16 | 2u << 14)
#define BSR(ra, disp)       (0x34u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define NOP                 0x47ff041fu
#define KSEG                0xfffffc0000000000ull

static struct core_model model;
static struct model_params params;

static int setup(void **state)
{
    (void)state;
    model_params_default(&params);
    return core_model_init(&model, &params);
}

/* The in-order core (clipper-ev5's): an instruction issues in order, so
 * each one of a chain waits past its first cycle to issue. */
static int setup_inorder(void **state)
{
    (void)state;
    model_params_inorder(&params);
    return core_model_init(&model, &params);
}

static int teardown(void **state)
{
    (void)state;
    core_model_free(&model);
    return 0;
}

/* One instruction; its cycle stack is added to acct (NULL: the model's). */
static void step_into(uint64_t pc, uint32_t word, uint64_t addr, uint64_t next, struct insn_result *r,
                      uint64_t *acct)
{
    struct insn_static s;
    insn_static_decode(&s, pc, word);
    core_model_step(&model, &s, addr, next, r, acct);
}

static void step(uint64_t pc, uint32_t word, uint64_t addr, uint64_t next, struct insn_result *r)
{
    step_into(pc, word, addr, next, r, NULL);
}

#define U ((uint64_t)CYCLE_UNIT)

static uint64_t stack_sum(const uint64_t *stack)
{
    uint64_t sum = 0;
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        sum += stack[c];
    return sum;
}

/* The stack holds exactly these causes (pairs of cause, units; -1 ends). */
static void assert_stack(const uint64_t *stack, ...)
{
    uint64_t want[CAUSE_COUNT] = {0};
    va_list ap;
    va_start(ap, stack);
    for (int c; (c = va_arg(ap, int)) >= 0;)
        want[c] = va_arg(ap, uint64_t);
    va_end(ap);
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        if (stack[c] != want[c])
            fail_msg("cause %u: %llu units (%.4f cycles), expected %llu (%.4f)", c,
                     (unsigned long long)stack[c], (double)stack[c] / U, (unsigned long long)want[c],
                     (double)want[c] / U);
}

/* After settling, the core's stack is its cycles, in full. */
static void assert_core_exact(void)
{
    core_model_settle(&model);
    assert_int_equal(stack_sum(model.stack), model.last_retire * U);
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
    /* The load itself retires before its data returns (21264); its
     * consumer cannot. */
    assert_true(r.retire < r.complete);
    step(0x4004, ADDQ(1, 1, 3), 0, 0x4008, &r);
    uint64_t consumer_retire = r.retire;
    assert_true(consumer_retire > r.complete - 1);
    uint64_t first_after = 0;
    for (unsigned i = 2; i <= params.rob + 8; i++) {
        step(0x4000 + 4 * i, NOP, 0, 0x4004 + 4 * i, &r);
        if (i == params.rob + 1)
            first_after = r.fetch;
    }
    assert_true(first_after >= consumer_retire - 1);
    /* Cycles are attributed in full: they sum to the last retirement. */
    assert_int_equal(model.events[PMU_EV_CYCLES], model.last_retire);
}

/* The stages add up: fetch + the five latency registers = retire. */
static void assert_stages(const struct insn_result *r)
{
    assert_true(r->fetch < r->map);
    assert_true(r->map < r->data_ready);
    assert_true(r->data_ready <= r->issue);
    assert_true(r->issue < r->retire_ready);
    assert_true(r->retire_ready <= r->retire);
    uint64_t sum = r->fetch;
    for (unsigned k = 0; k < PME_LAT_LOAD_COMPLETE; k++)
        sum += r->lat[k];
    assert_int_equal(sum, r->retire);
}

static void test_dependency_chain_waits_in_map_to_data_ready(void **state)
{
    (void)state;
    struct insn_result r[3];
    step(0x3000, MULQ(2, 3, 1), 0, 0x3004, &r[0]);
    step(0x3004, ADDQ(1, 1, 4), 0, 0x3008, &r[1]);        /* waits for the multiply */
    step(0x3008, ADDQ(6, 7, 8), 0, 0x300c, &r[2]);        /* independent */
    for (int i = 0; i < 3; i++)
        assert_stages(&r[i]);
    assert_int_equal(r[1].data_ready, r[0].issue + params.imul_latency);
    assert_int_equal(r[1].lat[PME_LAT_MAP_DATA], r[0].issue + params.imul_latency - r[1].map);
    assert_true(r[1].lat[PME_LAT_MAP_DATA] >= params.imul_latency - 1);
    assert_int_equal(r[2].lat[PME_LAT_MAP_DATA], 1);
    assert_int_equal(r[0].lat[PME_LAT_ISSUE_RETREADY], params.imul_latency);
    /* the independent add is ready long before it may retire */
    assert_true(r[2].lat[PME_LAT_RETREADY_RETIRE] >= params.imul_latency - 2);
    assert_int_equal(r[1].lat[PME_LAT_LOAD_COMPLETE], 0);
}

static void test_fp_divide_latency_and_unpipelined_divider(void **state)
{
    (void)state;
    struct insn_static s;
    insn_static_decode(&s, 0x5000, DIVT(1, 2, 3));
    assert_int_equal(s.cls, ALPHA_FDIV_T);
    struct insn_result r[3];
    step(0x5000, DIVT(1, 2, 3), 0, 0x5004, &r[0]);
    step(0x5004, DIVT(4, 5, 6), 0, 0x5008, &r[1]);        /* independent, same divider */
    step(0x5008, ADDT(7, 8, 9), 0, 0x500c, &r[2]);        /* independent, FP add pipe */
    for (int i = 0; i < 3; i++)
        assert_stages(&r[i]);
    assert_int_equal(r[0].lat[PME_LAT_ISSUE_RETREADY], params.fdiv_t_latency);
    assert_int_equal(r[0].lat[PME_LAT_DATA_ISSUE], 0);
    /* the second divide is ready at once but waits for the divider */
    assert_int_equal(r[1].issue, r[0].issue + params.fdiv_t_latency);
    assert_true(r[1].lat[PME_LAT_DATA_ISSUE] >= params.fdiv_t_latency - 1);
    assert_int_equal(r[2].lat[PME_LAT_DATA_ISSUE], 0);
}

static void test_contention_shows_in_data_ready_to_issue(void **state)
{
    (void)state;
    /* Independent multiplies, four fetched per cycle, one multiplier: they
     * become ready together and issue one per cycle. */
    struct insn_result r[8];
    for (unsigned i = 0; i < 8; i++)
        step(0x6000 + 4 * i, MULQ(2, 3, 10 + i), 0, 0x6004 + 4 * i, &r[i]);
    unsigned max_wait = 0;
    for (unsigned i = 0; i < 8; i++) {
        assert_stages(&r[i]);
        assert_int_equal(r[i].lat[PME_LAT_MAP_DATA], 1);
        if (r[i].lat[PME_LAT_DATA_ISSUE] > max_wait)
            max_wait = r[i].lat[PME_LAT_DATA_ISSUE];
        for (unsigned j = 0; j < i; j++)
            assert_true(r[i].issue != r[j].issue);
    }
    assert_true(max_wait >= 3);
    /* Independent adds: four integer pipes keep up with fetch. */
    for (unsigned i = 0; i < 8; i++) {
        step(0x7000 + 4 * i, ADDQ(2, 3, 20 + i), 0, 0x7004 + 4 * i, &r[i]);
        assert_int_equal(r[i].lat[PME_LAT_DATA_ISSUE], 0);
    }
}

static void test_full_issue_queue_stalls_map(void **state)
{
    (void)state;
    struct insn_result r;
    step(0x8000, LDQ(1, 0, 2), 0xa00000, 0x8004, &r);     /* misses to memory */
    uint64_t data = r.complete;
    unsigned stalled = 0, first_stalled = 0;
    for (unsigned i = 1; i <= params.iq_int + 4; i++) {
        step(0x8000 + 4 * i, ADDQ(1, 1, 3), 0, 0x8004 + 4 * i, &r);   /* all wait for r1 */
        assert_stages(&r);
        if (r.lat[PME_LAT_FETCH_MAP] > 1 && !stalled++)
            first_stalled = i;
        if (stalled)
            assert_true(r.map >= data);
    }
    /* the instruction after iq_int waiting ones maps when the first issues */
    assert_int_equal(first_stalled, params.iq_int + 1);
}

static void test_store_buffer_full_stalls_map(void **state)
{
    (void)state;
    struct insn_result r;
    unsigned stalled_at = 0;
    /* Stores to distinct lines, all missing: the buffer drains slowly.  A
     * loop over one I-cache line, so fetch itself never stalls. */
    step(0x9000, NOP, 0, 0x9004, &r);
    for (unsigned i = 0; i < params.store_buffer + 8 && !stalled_at; i++) {
        uint64_t pc = 0x9000 + 4 * (i % 16);
        step(pc, STQ(1, 0, 2), 0x1000000 + 64 * i, pc == 0x903c ? 0x9000 : pc + 4, &r);
        assert_stages(&r);
        assert_true(r.pme_events & 1u << PME_EVB_STORE);
        if (r.lat[PME_LAT_FETCH_MAP] > params.memory_latency / 2)
            stalled_at = i + 1;
    }
    assert_true(stalled_at > params.store_buffer);
}

static uint8_t *guest_memory(size_t size)
{
    uint8_t *mem = calloc(1, size);
    assert_non_null(mem);
    for (size_t i = 0; i + 4 <= size; i += 4) {
        uint32_t w = NOP;
        memcpy(mem + i, &w, 4);
    }
    return mem;
}

static void put_word(uint8_t *mem, uint64_t phys, uint32_t w)
{
    memcpy(mem + phys, &w, 4);
}

static void test_mispredict_fetches_an_aborted_bad_path(void **state)
{
    (void)state;
    size_t size = 0x10000;
    uint8_t *mem = guest_memory(size);
    core_model_set_memory(&model, mem, size);
    uint64_t pc = KSEG + 0x1000;
    put_word(mem, 0x1000, BNE(1, 16));                    /* target 0x1044 */
    put_word(mem, 0x1010, BR(31, 2));                     /* bad path: br to 0x101c */
    struct insn_result r;
    uint64_t fetched0 = model.fetched;
    /* A fresh predictor says not taken: the taken branch mispredicts. */
    step(pc, BNE(1, 16), 0, pc + 0x44, &r);
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 1);
    assert_true(r.pme_events & 1u << PME_EVB_MISPREDICT);
    assert_true(r.pme_events & 1u << PME_EVB_TAKEN);
    assert_int_equal(r.addr, pc + 0x44);
    uint64_t redirect = r.complete + params.mispredict_penalty;
    assert_true(model.nbad > 0 && model.nbad <= params.rob);
    assert_int_equal(model.aborted, model.nbad);
    assert_int_equal(model.fetched - fetched0, 1 + model.nbad);
    /* The predicted path: fall-through, then the unconditional branch's target. */
    uint64_t expect = pc + 4, last_fetch = r.fetch;
    for (unsigned i = 0; i < model.nbad; i++) {
        const struct bad_fetch *b = &model.bad[i];
        assert_int_equal(b->pc, expect);
        expect = b->pc == pc + 0x10 ? pc + 0x1c : b->pc + 4;
        assert_true(b->pme_events & 1u << PME_EVB_BAD_PATH);
        assert_false(b->pme_events & 1u << PME_EVB_RETIRED);
        assert_true(b->fetch >= last_fetch && b->fetch < redirect);
        last_fetch = b->fetch;
        /* history holds the predicted (wrong) direction of the branch */
        assert_int_equal(b->history & 1, 0);
    }
    assert_true(model.nbad >= 2 * params.width);
    /* The good path resumes at the redirect. */
    step(pc + 0x44, NOP, 0, pc + 0x48, &r);
    assert_int_equal(model.nbad, 0);
    assert_true(r.fetch >= redirect);
    /* Outside KSEG and the user region there is no bad path (PALcode). */
    uint64_t aborted = model.aborted, mispredicts = model.events[PMU_EV_BRANCHMP];
    for (int i = 0; i < 20; i++)
        step(0x2000, BEQ(1, 4), 0, i & 1 ? 0x2004 : 0x2014, &r);
    assert_true(model.events[PMU_EV_BRANCHMP] > mispredicts);
    assert_int_equal(model.aborted, aborted);
    core_model_set_memory(&model, NULL, 0);
    free(mem);
}

static void test_returns_and_jumps_are_predicted(void **state)
{
    (void)state;
    size_t size = 0x10000;
    uint8_t *mem = guest_memory(size);
    core_model_set_memory(&model, mem, size);
    struct insn_result r;
    uint64_t f = KSEG + 0x8000, caller = KSEG + 0x1000, caller2 = KSEG + 0x2010;
    /* A function called by jsr from two sites: the returns follow the
     * return stack, so only the first jsr (no target known) mispredicts. */
    unsigned mispredicts = 0;
    for (int i = 0; i < 10; i++) {
        uint64_t site = i & 1 ? caller2 : caller;
        step(site, JSR(26, 27), 0, f, &r);
        mispredicts += r.events[PMU_EV_BRANCHMP];
        assert_true(r.pme_events & 1u << PME_EVB_JUMP);
        assert_true(r.pme_events & 1u << PME_EVB_TAKEN);
        assert_int_equal(r.addr, f);
        step(f, RET(31, 26), 0, site + 4, &r);
        assert_int_equal(r.events[PMU_EV_BRANCHMP], 0);
        assert_int_equal(r.addr, site + 4);
    }
    assert_int_equal(mispredicts, 2);          /* each site's first call */
    /* bsr pushes too */
    step(caller, BSR(26, 0x1c00), 0, caller + 4 + 4 * 0x1c00, &r);
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 0);
    step(caller + 4 + 4 * 0x1c00, RET(31, 26), 0, caller + 4, &r);
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 0);
    /* A jmp whose target changes mispredicts, and fetch goes down the old
     * target meanwhile: a bad path there. */
    uint64_t j = KSEG + 0x3000, t1 = KSEG + 0x4000, t2 = KSEG + 0x5000;
    step(j, JMP(31, 1), 0, t1, &r);
    step(t1, NOP, 0, j, &r);
    step(j, JMP(31, 1), 0, t1, &r);
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 0);
    assert_int_equal(model.nbad, 0);
    step(j, JMP(31, 1), 0, t2, &r);
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 1);
    assert_true(r.pme_events & 1u << PME_EVB_MISPREDICT);
    assert_true(model.nbad > 0);
    assert_int_equal(model.bad[0].pc, t1);
    uint64_t redirect = r.complete + params.mispredict_penalty;
    step(t2, NOP, 0, t2 + 4, &r);
    assert_true(r.fetch >= redirect);
    /* A return on a bad path follows the return stack (without popping it). */
    uint64_t g = KSEG + 0x6000;
    put_word(mem, 0x6008, RET(31, 26));
    step(caller, JSR(26, 27), 0, g, &r);
    step(g, BNE(1, 100), 0, g + 4 + 400, &r);               /* mispredicted: bad path g+4... */
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 1);
    assert_true(model.nbad >= 4);
    assert_int_equal(model.bad[0].pc, g + 4);
    assert_int_equal(model.bad[1].pc, g + 8);
    assert_true(model.bad[1].pme_events & 1u << PME_EVB_JUMP);
    assert_int_equal(model.bad[1].addr, caller + 4);
    assert_int_equal(model.bad[2].pc, caller + 4);
    step(g + 404, RET(31, 26), 0, caller + 4, &r);
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 0);
    core_model_set_memory(&model, NULL, 0);
    free(mem);
}

static void test_trapped_load_aborts_and_redirects(void **state)
{
    (void)state;
    struct insn_result r;
    uint64_t mul[CAUSE_COUNT] = {0}, load[CAUSE_COUNT] = {0}, handler[CAUSE_COUNT] = {0};
    step_into(0x1000, MULQ(2, 3, 4), 0, 0x1004, &r, mul);
    uint64_t last_retire = model.last_retire, seq = model.seq, cycles = model.events[PMU_EV_CYCLES];
    struct insn_static s;
    insn_static_decode(&s, 0x1004, LDQ(1, 0, 2));
    core_model_trap(&model, &s, &r, load);
    assert_true(r.pme_events & 1u << PME_EVB_TRAP);
    assert_true(r.pme_events & 1u << PME_EVB_LOAD);
    assert_false(r.pme_events & 1u << PME_EVB_RETIRED);
    assert_int_equal(r.cycles, 0);
    assert_int_equal(r.events[PMU_EV_RETIRED], 0);
    assert_int_equal(model.aborted, 1);
    assert_int_equal(model.fetched, 2);
    assert_int_equal(model.seq, seq);
    assert_int_equal(model.events[PMU_EV_CYCLES], cycles);
    /* the handler is fetched after the older instructions retired */
    step_into(KSEG + 0x8000, NOP, 0, KSEG + 0x8004, &r, handler);
    assert_true(r.fetch >= last_retire + params.mispredict_penalty);
    assert_int_equal(model.events[PMU_EV_CYCLES], model.last_retire);
    /* Cycle stacks.  The multiply: cold fetch (ITB and I-cache miss to
     * memory: 20 + 120) at 140, map 141, issue 142, retire 149.  The trap
     * is taken at 149 + 7; the handler's line (a new page) comes 140 later:
     * fetch 296, map 297, retire 299.  Its empty window [150, 297) is the
     * trapping load's. */
    assert_int_equal(r.retire, 299);
    assert_core_exact();
    assert_stack(mul, CAUSE_ICACHE, 140 * U, CAUSE_BASE, 2 * U, CAUSE_EXECUTE, 7 * U, -1);
    assert_stack(load, CAUSE_TRAP, 147 * U, -1);
    assert_stack(handler, CAUSE_BASE, 3 * U, -1);
}

static void test_no_memory_no_bad_path(void **state)
{
    (void)state;
    struct insn_result r;
    step(KSEG + 0x1000, BNE(1, 16), 0, KSEG + 0x1044, &r);
    assert_int_equal(r.events[PMU_EV_BRANCHMP], 1);
    assert_int_equal(model.nbad, 0);
    uint64_t redirect = r.complete + params.mispredict_penalty;
    step(KSEG + 0x1044, NOP, 0, KSEG + 0x1048, &r);
    assert_true(r.fetch >= redirect);
    assert_int_equal(model.aborted, 0);
    assert_int_equal(model.fetched, 2);
}

/* Cold start, then a NOP and three independent adds fetched together
 * (one line, 140 cycles of ITB and I-cache miss): map 141, issue 142 on
 * the four integer pipes, all four retire in cycle 143.  Cycles 1-140 are
 * the empty window before the first enters (I-cache), 141-142 the NOP's
 * at the head, and 143 a quarter each. */
static void test_same_cycle_retirers_split_the_cycle(void **state)
{
    (void)state;
    uint64_t acct[4][CAUSE_COUNT] = {{0}};
    struct insn_result r[4];
    step_into(0x1000, NOP, 0, 0x1004, &r[0], acct[0]);
    for (unsigned i = 1; i < 4; i++)
        step_into(0x1000 + 4 * i, ADDQ(2, 3, 10 + i), 0, 0x1004 + 4 * i, &r[i], acct[i]);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(r[i].retire, 143);
    /* the retire gap gives the first all and the others nothing */
    assert_int_equal(r[0].cycles, 143);
    assert_int_equal(r[1].cycles, 0);
    /* the open cycle is charged once it closes */
    assert_int_equal(stack_sum(model.stack), 142 * U);
    assert_core_exact();
    assert_stack(acct[0], CAUSE_ICACHE, 140 * U, CAUSE_BASE, 2 * U + U / 4, -1);
    for (unsigned i = 1; i < 4; i++)
        assert_stack(acct[i], CAUSE_BASE, U / 4, -1);
}

/* A load missing to memory, its consumer, then 15 independent NOPs ready
 * long before: they retire behind the consumer, retire_width (8) a cycle. */
static void test_retire_width_caps_a_cycle(void **state)
{
    (void)state;
    assert_int_equal(params.retire_width, 8);
    uint64_t acct[17][CAUSE_COUNT] = {{0}};
    struct insn_result r[17];
    step_into(0x2000, LDQ(1, 0, 2), 0x900000, 0x2004, &r[0], acct[0]);
    step_into(0x2004, ADDQ(1, 1, 3), 0, 0x2008, &r[1], acct[1]);
    for (unsigned i = 2; i < 17; i++)
        step_into(0x2000 + 4 * i, NOP, 0, 0x2004 + 4 * i, &r[i], acct[i]);
    uint64_t c = r[1].retire;
    for (unsigned i = 2; i < 9; i++)
        assert_int_equal(r[i].retire, c);
    for (unsigned i = 9; i < 17; i++)
        assert_int_equal(r[i].retire, c + 1);
    assert_core_exact();
    for (unsigned i = 2; i < 9; i++)
        assert_stack(acct[i], CAUSE_BASE, U / 8, -1);
    for (unsigned i = 9; i < 17; i++)
        assert_stack(acct[i], CAUSE_BASE, U / 8, -1);
}

/* After a warm-up NOP (retiring at 143), a multiply and its consumer:
 * the multiply issues at 142 and is at the head, executing, in 144-148,
 * retires at 149; the add issues at 149 and retires at 150. */
static void test_stall_goes_to_the_oldest(void **state)
{
    (void)state;
    uint64_t nop[CAUSE_COUNT] = {0}, mul[CAUSE_COUNT] = {0}, add[CAUSE_COUNT] = {0};
    struct insn_result r[3];
    step_into(0x1000, NOP, 0, 0x1004, &r[0], nop);
    step_into(0x1004, MULQ(2, 3, 1), 0, 0x1008, &r[1], mul);
    step_into(0x1008, ADDQ(1, 1, 4), 0, 0x100c, &r[2], add);
    assert_int_equal(r[0].retire, 143);
    assert_int_equal(r[1].retire, 149);
    assert_int_equal(r[2].retire, 150);
    assert_core_exact();
    assert_stack(nop, CAUSE_ICACHE, 140 * U, CAUSE_BASE, 3 * U, -1);
    assert_stack(mul, CAUSE_EXECUTE, 5 * U, CAUSE_BASE, U, -1);
    assert_stack(add, CAUSE_BASE, U, -1);
}

/* A warm-up NOP and a taken branch the fresh predictor calls not taken,
 * both retiring in cycle 143; the branch resolves at 143, fetch resumes at
 * its target (same line) 7 cycles later: fetch 150, map 151, retire 153.
 * The empty window 144-150 is the branch's (mispredict), not the target's. */
static void test_mispredict_bubble_goes_to_the_branch(void **state)
{
    (void)state;
    uint64_t nop[CAUSE_COUNT] = {0}, branch[CAUSE_COUNT] = {0}, target[CAUSE_COUNT] = {0};
    struct insn_result r[3];
    step_into(0x1000, NOP, 0, 0x1004, &r[0], nop);
    step_into(0x1004, BNE(1, 7), 0, 0x1024, &r[1], branch);
    assert_int_equal(r[1].events[PMU_EV_BRANCHMP], 1);
    step_into(0x1024, NOP, 0, 0x1028, &r[2], target);
    assert_int_equal(r[1].retire, 143);
    assert_int_equal(r[2].fetch, 143 + params.mispredict_penalty);
    assert_int_equal(r[2].retire, 153);
    /* the retire gap gives the bubble to the target */
    assert_int_equal(r[2].cycles, 10);
    assert_core_exact();
    assert_stack(nop, CAUSE_ICACHE, 140 * U, CAUSE_BASE, 2 * U + U / 2, -1);
    assert_stack(branch, CAUSE_BASE, U / 2, CAUSE_MISPREDICT, 7 * U, -1);
    assert_stack(target, CAUSE_BASE, 3 * U, -1);
}

/* A load missing the DTB (20), the L1 and the L2 (memory, 120) after a
 * warm-up NOP: retire-ready after translation and the L1 access (142 + 23
 * = 165), data at 142 + 143 = 285.  Its consumer waits at the head from
 * 166 to 284 for data from memory, issues at 285, retires at 286. */
static void test_dcache_miss_stall_is_booked_as_dcache(void **state)
{
    (void)state;
    uint64_t nop[CAUSE_COUNT] = {0}, load[CAUSE_COUNT] = {0}, use[CAUSE_COUNT] = {0};
    struct insn_result r[3];
    step_into(0x1000, NOP, 0, 0x1004, &r[0], nop);
    step_into(0x1004, LDQ(1, 0, 2), 0x900000, 0x1008, &r[1], load);
    step_into(0x1008, ADDQ(1, 1, 3), 0, 0x100c, &r[2], use);
    assert_int_equal(r[1].retire, 165);
    assert_int_equal(r[1].complete, 285);
    assert_int_equal(r[2].retire, 286);
    assert_core_exact();
    assert_stack(nop, CAUSE_ICACHE, 140 * U, CAUSE_BASE, 3 * U, -1);
    assert_stack(load, CAUSE_DTB, 21 * U, CAUSE_BASE, U, -1);
    assert_stack(use, CAUSE_DCACHE_MEM, 119 * U, CAUSE_BASE, 2 * U, -1);
    /* a chain behind the consumer inherits the miss as its cause */
    assert_int_equal(model.reg_cause[3], CAUSE_DCACHE_MEM);
}

/* On the in-order core, hotspots' multiply loop: r2 loaded once (a miss
 * to memory), then 200 rounds of srl r0, r5 -> r1; xor r1, r0 -> r1;
 * mulq r1, r2 -> r1; lda r0, 2(r1).  The first mulq waits for the miss
 * and its value inherits it; after that the miss's data came long before,
 * and the chain waits only on its own multiplies: dependency, never the
 * miss again (it was charged to the miss for ever: the loop's lda was
 * 25 % dcache_l2 with no load in the loop, and calc's causes agreed with
 * that truth for 63 % of hotspots' stall cycles). */
static void test_a_chain_stops_inheriting_a_miss_once_its_data_came(void **state)
{
    (void)state;
    enum { ROUNDS = 200 };
    static uint64_t chain[4 * ROUNDS][CAUSE_COUNT];
    uint64_t nop[CAUSE_COUNT] = {0}, load[CAUSE_COUNT] = {0};
    const uint32_t body[4] = {SRL(0, 5, 1), XOR(1, 0, 1), MULQ(1, 2, 1), LDA(0, 2, 1)};
    struct insn_result r;
    memset(chain, 0, sizeof chain);
    step_into(0x1000, NOP, 0, 0x1004, &r, nop);
    step_into(0x1004, LDQ(2, 0, 16), 0x900000, 0x1008, &r, load);
    for (unsigned k = 0; k < 4 * ROUNDS; k++)
        step_into(0x1008 + 4 * (k % 4), body[k % 4], 0, k % 4 == 3 ? 0x1008 : 0x100c + 4 * (k % 4), &r, chain[k]);
    assert_int_equal(model.reg_cause[0], CAUSE_DEPENDENCY);
    assert_core_exact();
    /* the first mulq's consumer waited for memory; the last round never did */
    assert_true(chain[3][CAUSE_DCACHE_MEM] > 0);
    uint64_t last_miss = 0, last_dep = 0;
    for (unsigned k = 4 * ROUNDS - 4; k < 4 * ROUNDS; k++) {
        last_miss += chain[k][CAUSE_DCACHE_MEM] + chain[k][CAUSE_DCACHE_L2];
        last_dep += chain[k][CAUSE_DEPENDENCY];
    }
    assert_true(last_miss == 0 && last_dep > 0);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_random_stream_attributes_every_cycle(void **state)
{
    (void)state;
    size_t size = 0x20000;
    uint8_t *mem = guest_memory(size);
    core_model_set_memory(&model, mem, size);
    uint64_t x = 88172645463325252ull, cycles = 0, last_retire = 0, last_map = 0, last_fetch = 0;
    uint64_t retired = 0, aborted = 0, pc = KSEG + 0x100, events[PMU_EV_COUNT] = {0};
    /* a cycle stack per PC, as the plugin keeps them */
    uint64_t (*stacks)[CAUSE_COUNT] = calloc(size / 4, sizeof *stacks);
    assert_non_null(stacks);
    for (int i = 0; i < 200000; i++) {
        uint64_t v = rnd(&x);
        unsigned ra = v & 31, rb = (v >> 5) & 31, rc = (v >> 10) & 31;
        uint32_t w;
        uint64_t addr = 0, next = pc + 4;
        switch ((v >> 20) % 8) {
        case 0: w = LDQ(ra, 0, rb); addr = 0x100000 + ((v >> 24) & 0xfffff8); break;
        case 1: w = STQ(ra, 0, rb); addr = 0x100000 + ((v >> 24) & 0xfffff8); break;
        case 2: w = MULQ(ra, rb, rc); break;
        case 3: w = DIVT(ra, rb, rc); break;
        case 4: w = BNE(ra, 8); if ((v >> 30) & 1) next = pc + 36; break;
        default: w = ADDQ(ra, rb, rc); break;
        }
        if (pc + 64 > KSEG + size)
            next = KSEG + 0x100;
        struct insn_result r;
        step_into(pc, w, addr, next, &r, stacks[(pc - KSEG) / 4]);
        assert_stages(&r);
        /* between steps, every cycle but the open one is charged */
        assert_int_equal(stack_sum(model.stack), (model.last_retire - 1) * U);
        assert_true(r.retire >= last_retire && r.map >= last_map && r.fetch >= last_fetch);
        last_retire = r.retire;
        last_map = r.map;
        last_fetch = r.fetch;
        cycles += r.cycles;
        retired++;
        for (unsigned e = 1; e < PMU_EV_COUNT; e++)
            events[e] += r.events[e];
        for (unsigned b = 0; b < model.nbad; b++) {
            assert_true(model.bad[b].fetch >= last_fetch);
            last_fetch = model.bad[b].fetch;
            events[PMU_EV_IMISS] += (model.bad[b].pme_events >> PME_EVB_IMISS) & 1;
        }
        aborted += model.nbad;
        pc = next;
    }
    assert_int_equal(cycles, model.last_retire);
    assert_int_equal(model.events[PMU_EV_CYCLES], model.last_retire);
    assert_int_equal(model.events[PMU_EV_RETIRED], retired);
    /* the core's event totals are exactly the instructions' events */
    for (unsigned e = 1; e < PMU_EV_COUNT; e++)
        assert_int_equal(model.events[e], events[e]);
    assert_true(events[PMU_EV_DMISS] > 0 && events[PMU_EV_BRANCHMP] > 0);
    assert_int_equal(model.seq, retired);
    assert_int_equal(model.aborted, aborted);
    assert_int_equal(model.fetched, retired + aborted);
    assert_true(aborted > 0);
    /* the stacks: the instructions' sum to the core's, exactly its cycles */
    assert_core_exact();
    uint64_t by_pc[CAUSE_COUNT] = {0};
    for (size_t k = 0; k < size / 4; k++)
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            by_pc[c] += stacks[k][c];
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        assert_int_equal(by_pc[c], model.stack[c]);
    assert_int_equal(stack_sum(model.unowned), 0);
    /* (fu_busy and dependency stay 0 here: the model reserves units and
     * retires in program order, so the head never waits for a younger
     * instruction's unit, and only a load retires before its value) */
    assert_true(model.stack[CAUSE_MISPREDICT] > 0 && model.stack[CAUSE_DCACHE_MEM] > 0 &&
                model.stack[CAUSE_EXECUTE] > 0 && model.stack[CAUSE_DTB] > 0 &&
                model.stack[CAUSE_ICACHE] > 0);
    free(stacks);
    core_model_set_memory(&model, NULL, 0);
    free(mem);
}

static void test_pc_translation_and_context(void **state)
{
    (void)state;
    uint64_t phys = 0;
    assert_true(model_translate_pc(KSEG + 0x310000, &phys));
    assert_int_equal(phys, 0x310000);
    assert_true(model_translate_pc(0x1000000, &phys));
    assert_int_equal(phys, 0x1000000);
    assert_false(model_translate_pc(0x8000, &phys));            /* PALcode */
    assert_false(model_translate_pc(0x10000000, &phys));        /* beyond RAM */
    assert_false(model_translate_pc(0x1000001, &phys));         /* PAL-mode flag */
    assert_int_equal(model_pc_context(0x8001), PME_CTX_PAL);
    assert_int_equal(model_pc_context(0x8000), PME_CTX_PAL);
    assert_int_equal(model_pc_context(0x1000001), PME_CTX_PAL);
    assert_int_equal(model_pc_context(KSEG + 0x8000), PME_CTX_PAL);     /* QEMU's PALcode */
    assert_int_equal(model_pc_context(KSEG + 0x2ffffc), PME_CTX_PAL);
    assert_int_equal(model_pc_context(KSEG + 0x300000), PME_CTX_KERNEL);
    assert_int_equal(model_pc_context(KSEG + 0x310000), PME_CTX_KERNEL);
    assert_int_equal(model_pc_context(0x1000000), PME_CTX_USER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cache_hit_and_miss_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_predictor_learns_a_biased_branch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dependency_chain_issues_at_producer_latency, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_rob_stalls_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dependency_chain_waits_in_map_to_data_ready, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fp_divide_latency_and_unpipelined_divider, setup, teardown),
        cmocka_unit_test_setup_teardown(test_contention_shows_in_data_ready_to_issue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_issue_queue_stalls_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_store_buffer_full_stalls_map, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mispredict_fetches_an_aborted_bad_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_memory_no_bad_path, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trapped_load_aborts_and_redirects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_returns_and_jumps_are_predicted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_same_cycle_retirers_split_the_cycle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_retire_width_caps_a_cycle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stall_goes_to_the_oldest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mispredict_bubble_goes_to_the_branch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dcache_miss_stall_is_booked_as_dcache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_chain_stops_inheriting_a_miss_once_its_data_came, setup_inorder,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_random_stream_attributes_every_cycle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pc_translation_and_context, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
