/*
 * The in-order core (hw-model/model/issue-rules.h, core=inorder) with
 * hand-computed answers: the 21164-like issue rules one by one (dual issue
 * on E0/E1, a third integer instruction waits, two stores never pair, an
 * aligned block is a slotting boundary, so is a taken branch, quad issue
 * over the integer and FP pipes, in-order issue behind an older stalled
 * instruction, the unpipelined divider, a barrier holding issue), then the
 * whole model: a D-cache miss stalls the load's consumer at issue (the
 * load does not block) and its stall is booked to the consumer as D-cache,
 * retire is issue + 1, and on a random stream the cycle stacks sum to the
 * cycles exactly and no cycle issues more than the pipes allow.
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

#define LDQ(ra, disp, rb)   (0x29u << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define STQ(ra, disp, rb)   (0x2du << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define ADDQ(ra, rb, rc)    (0x10u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define MULQ(ra, rb, rc)    (0x13u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define SLL(ra, rb, rc)     (0x12u << 26 | (ra) << 21 | (rb) << 16 | 0x39 << 5 | (rc))
#define ADDT(fa, fb, fc)    (0x16u << 26 | (fa) << 21 | (fb) << 16 | 0x0a0u << 5 | (fc))
#define MULT(fa, fb, fc)    (0x16u << 26 | (fa) << 21 | (fb) << 16 | 0x0a2u << 5 | (fc))
#define DIVT(fa, fb, fc)    (0x16u << 26 | (fa) << 21 | (fb) << 16 | 0x0a3u << 5 | (fc))
#define BNE(ra, disp)       (0x3du << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define MB                  (0x18u << 26 | 0x4000u)
#define NOP                 0x47ff041fu
#define U ((uint64_t)CYCLE_UNIT)

static struct model_params params;

static int setup(void **state)
{
    (void)state;
    model_params_inorder(&params);
    return 0;
}

/* Issues the instructions (pc, word, ready) from a fresh issue stage and
 * checks each one's cycle and reason. */
struct want {
    uint64_t pc;
    uint32_t word;
    uint64_t ready, issue;
    enum issue_wait why;
};

static void issue_all(const struct want *w, size_t n, const bool *taken_after)
{
    struct inorder_issue st = {0};
    for (size_t i = 0; i < n; i++) {
        struct insn_static s;
        insn_static_decode(&s, w[i].pc, w[i].word);
        enum issue_wait why;
        uint64_t t = inorder_issue(&st, &params, &s, w[i].ready, &why);
        if (t != w[i].issue || why != w[i].why)
            fail_msg("instruction %zu: issued at %llu (why %d), expected %llu (why %d)", i,
                     (unsigned long long)t, why, (unsigned long long)w[i].issue, w[i].why);
        inorder_taken(&st, taken_after && taken_after[i]);
    }
}

static void test_two_integer_instructions_dual_issue_a_third_waits(void **state)
{
    (void)state;
    const struct want w[] = {
        {0x1000, ADDQ(1, 2, 3), 10, 10, ISSUE_READY},
        {0x1004, ADDQ(4, 5, 6), 10, 10, ISSUE_READY},
        {0x1008, ADDQ(7, 8, 9), 10, 11, ISSUE_PIPE},    /* E0 and E1 taken */
    };
    issue_all(w, 3, NULL);
}

static void test_two_stores_or_two_shifts_never_pair(void **state)
{
    (void)state;
    const struct want stores[] = {
        {0x1000, STQ(1, 0, 2), 10, 10, ISSUE_READY},
        {0x1004, STQ(3, 8, 2), 10, 11, ISSUE_PIPE},     /* stores only on E0 */
        {0x1008, LDQ(4, 0, 5), 10, 11, ISSUE_ORDER},    /* a load pairs with it on E1 */
    };
    issue_all(stores, 3, NULL);
    const struct want shifts[] = {
        {0x1000, SLL(1, 2, 3), 10, 10, ISSUE_READY},
        {0x1004, SLL(4, 5, 6), 10, 11, ISSUE_PIPE},
    };
    issue_all(shifts, 2, NULL);
}

static void test_an_aligned_block_and_a_taken_branch_end_the_group(void **state)
{
    (void)state;
    const struct want w[] = {
        {0x100c, ADDQ(1, 2, 3), 10, 10, ISSUE_READY},
        {0x1010, ADDQ(4, 5, 6), 10, 11, ISSUE_SLOT},    /* the next aligned block */
    };
    issue_all(w, 2, NULL);
    const struct want b[] = {
        {0x1000, BNE(1, 1), 10, 10, ISSUE_READY},
        {0x1008, ADDQ(4, 5, 6), 10, 11, ISSUE_SLOT},    /* the taken branch's target */
    };
    const bool taken[] = {true, false};
    issue_all(b, 2, taken);
}

static void test_integer_and_fp_pipes_quad_issue(void **state)
{
    (void)state;
    const struct want w[] = {
        {0x1000, ADDQ(1, 2, 3), 10, 10, ISSUE_READY},    /* E0 */
        {0x1004, ADDT(1, 2, 3), 10, 10, ISSUE_READY},    /* FA */
        {0x1008, MULT(4, 5, 6), 10, 10, ISSUE_READY},    /* FM */
        {0x100c, LDQ(7, 0, 8), 10, 10, ISSUE_READY},     /* E1 */
    };
    issue_all(w, 4, NULL);
}

static void test_issue_is_in_order_behind_a_stalled_instruction(void **state)
{
    (void)state;
    const struct want w[] = {
        {0x1000, ADDQ(1, 2, 3), 15, 15, ISSUE_READY},
        {0x1004, ADDQ(4, 5, 6), 10, 15, ISSUE_ORDER},   /* ready earlier, waits its turn */
        {0x1008, MULQ(4, 5, 6), 12, 16, ISSUE_PIPE},    /* multiply needs E0: taken */
    };
    issue_all(w, 3, NULL);
}

static void test_the_divider_and_a_barrier_hold_issue(void **state)
{
    (void)state;
    const struct want d[] = {
        {0x1000, DIVT(1, 2, 3), 10, 10, ISSUE_READY},
        {0x1004, DIVT(4, 5, 6), 11, 10 + 23, ISSUE_DIVIDER},
    };
    issue_all(d, 2, NULL);
    const struct want b[] = {
        {0x1000, MB, 10, 10, ISSUE_READY},
        {0x1004, ADDQ(4, 5, 6), 10, 20, ISSUE_SERIAL},   /* mb: 10 cycles alone */
    };
    issue_all(b, 2, NULL);
}

/* Cold start: the first fetch misses the ITB (20) and the I-cache to
 * memory (60): fetch 80, map 81, ready 82, issue and retire ready 82+1.
 * The nop (E0) and the load (E1) issue together at 82 and retire at 83;
 * the load misses the DTB and goes to memory: its data at 82 + 2 + 20 + 60
 * = 164.  The add waits for it at issue (164) and retires at 165: the
 * counters' retire gap gives it 82 cycles, its stack 80 of D-cache (memory)
 * and 2 of base (the cycle after the load's and its own). */
static void test_a_dcache_miss_stalls_the_consumer_not_the_load(void **state)
{
    (void)state;
    struct core_model m;
    assert_int_equal(core_model_init(&m, &params), 0);
    uint64_t nop[CAUSE_COUNT] = {0}, ld[CAUSE_COUNT] = {0}, add[CAUSE_COUNT] = {0};
    struct insn_static s;
    struct insn_result r[3];
    insn_static_decode(&s, 0x1000, NOP);
    core_model_step(&m, &s, 0, 0x1004, &r[0], nop);
    insn_static_decode(&s, 0x1004, LDQ(1, 0, 2));
    core_model_step(&m, &s, 0x200000, 0x1008, &r[1], ld);
    insn_static_decode(&s, 0x1008, ADDQ(1, 1, 3));
    core_model_step(&m, &s, 0, 0x100c, &r[2], add);
    core_model_settle(&m);
    assert_int_equal(r[0].issue, 82);
    assert_int_equal(r[1].issue, 82);
    assert_int_equal(r[0].retire, 83);
    assert_int_equal(r[1].retire, 83);
    assert_int_equal(r[1].complete, 164);
    assert_int_equal(r[2].issue, 164);
    assert_int_equal(r[2].retire, 165);
    assert_int_equal(r[2].cycles, 82);
    assert_int_equal(nop[CAUSE_ICACHE], 80 * U);
    assert_int_equal(nop[CAUSE_BASE], 2 * U + U / 2);
    assert_int_equal(ld[CAUSE_BASE], U / 2);
    assert_int_equal(add[CAUSE_DCACHE_MEM], 80 * U);
    assert_int_equal(add[CAUSE_BASE], 2 * U);
    uint64_t sum = 0;
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        sum += m.stack[c];
    assert_int_equal(sum, 165 * U);
    core_model_free(&m);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* A random stream: retire is issue + 1 (barrier-free), issue in order,
 * never more integer instructions in a cycle than E0 and E1, and the
 * stacks sum to the cycles exactly. */
static void test_random_stream_on_the_inorder_core(void **state)
{
    (void)state;
    struct core_model m;
    assert_int_equal(core_model_init(&m, &params), 0);
    uint64_t x = 88172645463325252ull, pc = 0x10000, last_issue = 0, cycle = 0, cycles = 0;
    unsigned in_cycle = 0;
    for (int i = 0; i < 100000; i++) {
        uint64_t v = rnd(&x);
        unsigned ra = v & 31, rb = (v >> 5) & 31, rc = (v >> 10) & 31;
        uint32_t w;
        uint64_t addr = 0, next = pc + 4;
        switch ((v >> 20) % 6) {
        case 0: w = LDQ(ra, 0, rb); addr = 0x100000 + ((v >> 24) & 0xffff8); break;
        case 1: w = STQ(ra, 0, rb); addr = 0x100000 + ((v >> 24) & 0xffff8); break;
        case 2: w = MULQ(ra, rb, rc); break;
        case 3: w = BNE(ra, 8); if ((v >> 30) & 1) next = pc + 36; break;
        default: w = ADDQ(ra, rb, rc); break;
        }
        if (next > 0x30000)
            next = 0x10000;
        struct insn_static s;
        struct insn_result r;
        insn_static_decode(&s, pc, w);
        core_model_step(&m, &s, addr, next, &r, NULL);
        assert_true(r.issue >= last_issue);
        assert_int_equal(r.retire, r.issue + 1);
        in_cycle = r.issue == cycle ? in_cycle + 1 : 1;
        cycle = r.issue;
        assert_true(in_cycle <= 2);         /* integer only: E0 and E1 */
        last_issue = r.issue;
        cycles += r.cycles;
        pc = next;
    }
    core_model_settle(&m);
    uint64_t sum = 0;
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        sum += m.stack[c];
    assert_int_equal(sum, m.last_retire * U);
    assert_int_equal(cycles, m.last_retire);
    core_model_free(&m);
}

static void test_the_core_parameter_selects_the_defaults(void **state)
{
    (void)state;
    struct model_params p;
    assert_true(model_params_core(&p, "inorder"));
    assert_int_equal(p.inorder, 1);
    assert_int_equal(p.l1_latency, 2);
    assert_true(model_params_set(&p, "memory_latency", "90"));
    assert_int_equal(p.memory_latency, 90);
    assert_false(model_params_set(&p, "memory_latency", "0"));
    assert_false(model_params_set(&p, "core", "inorder"));
    assert_true(model_params_core(&p, "ooo"));
    assert_int_equal(p.inorder, 0);
    assert_false(model_params_core(&p, "ev5"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_two_integer_instructions_dual_issue_a_third_waits, setup),
        cmocka_unit_test_setup(test_two_stores_or_two_shifts_never_pair, setup),
        cmocka_unit_test_setup(test_an_aligned_block_and_a_taken_branch_end_the_group, setup),
        cmocka_unit_test_setup(test_integer_and_fp_pipes_quad_issue, setup),
        cmocka_unit_test_setup(test_issue_is_in_order_behind_a_stalled_instruction, setup),
        cmocka_unit_test_setup(test_the_divider_and_a_barrier_hold_issue, setup),
        cmocka_unit_test_setup(test_a_dcache_miss_stalls_the_consumer_not_the_load, setup),
        cmocka_unit_test_setup(test_random_stream_on_the_inorder_core, setup),
        cmocka_unit_test_setup(test_the_core_parameter_selects_the_defaults, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
