/*
 * alphaprof calc's analysis (util/calc*.c) on hand-made instruction
 * sequences with hand-computed answers: the CFG of a loop and of a diamond
 * (blocks, edges, EXIT), their frequency-equivalence classes (cycle
 * equivalence), an indirect jump marking missing edges, the static
 * schedule by the model's issue rules (a load-use dependency, dual issue,
 * a pipe conflict), a class's frequency from its clustered S/M ratios with
 * a dynamically stalled issue point left out, and that stall blamed on the
 * load's D-cache and DTB (guilty while unbounded; bounded by D-cache-miss
 * samples once there are some, less what overlapped the miss); a
 * cluster of the points that agree within sampling noise; a loop's back
 * edge by flow; a branch's edge samples splitting what flow cannot; a
 * mispredict's cost split into the branch's penalty and the target's
 * refill (MODEL_REFILL_CYCLES, base); an issue point whose M_i depends on
 * how its block was entered left out beside two sure ones; a procedure
 * that callers in its unit enter after its gp prologue; a long run seen
 * a few times a point, its stalled points left out; the classes'
 * estimates reconciled with the flow by weighted least squares (each
 * moved by its share of the variance, none negative).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>

#include "util/calc.h"
#include "util/calc-profile.h"

#define LDQ(ra, disp, rb)   (0x29u << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define STQ(ra, disp, rb)   (0x2du << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define LDA(ra, disp, rb)   (0x08u << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define ADDQ(ra, rb, rc)    (0x10u << 26 | (ra) << 21 | (rb) << 16 | 0x20 << 5 | (rc))
#define SLL(ra, rb, rc)     (0x12u << 26 | (ra) << 21 | (rb) << 16 | 0x39 << 5 | (rc))
#define BEQ(ra, disp)       (0x39u << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BNE(ra, disp)       (0x3du << 26 | (ra) << 21 | ((disp) & 0x1fffff))
#define BR(disp)            (0x30u << 26 | 31u << 21 | ((disp) & 0x1fffff))
#define LDAH(ra, disp, rb)  (0x09u << 26 | (ra) << 21 | (rb) << 16 | ((disp) & 0xffff))
#define RET                 (0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14)
#define JMP(rb)             (0x1au << 26 | 31u << 21 | (rb) << 16)

static struct model_params params;

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

static int setup(void **state)
{
    (void)state;
    model_params_inorder(&params);
    return 0;
}

/* 1000 addq; 1004 beq -> 1010; 1008 addq; 100c br -> 1000; 1010 ret.
 * Blocks 1000-1004, 1008-100c, 1010.  The loop head runs entry + back
 * edge times: a class of its own; the body is one class with its two
 * edges; the exit block is one with ENTRY's and EXIT's edges. */
static void test_a_loops_blocks_edges_and_classes(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 3), BEQ(3, 2), ADDQ(1, 2, 1), BR(-4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    assert_int_equal(p.nblocks, 3);
    assert_int_equal(p.blocks[0].n, 2);
    assert_int_equal(p.blocks[1].first, 2);
    assert_int_equal(p.blocks[2].first, 4);
    assert_int_equal(p.nedges, 5);          /* entry, fall, taken, back, exit */
    assert_false(p.missing_edges);
    calc_equivalence(&p);
    uint32_t head = p.blocks[0].cls, body = p.blocks[1].cls, tail = p.blocks[2].cls;
    assert_true(head != body && head != tail && body != tail);
    for (size_t e = 0; e < p.nedges; e++) {
        const struct calc_edge *x = &p.edges[e];
        if (x->from == CALC_NONE || x->to == CALC_EXIT || x->to == 2)
            assert_int_equal(x->cls, tail);     /* entry, exit, the loop's exit edge */
        else
            assert_int_equal(x->cls, body);     /* into and out of the body */
    }
    calc_proc_free(&p);
}

/* A diamond: 1000 beq -> 100c; 1004 addq; 1008 br -> 1010; 100c addq;
 * 1010 ret.  The fork and the join run equally often; each arm is a class
 * with its two edges. */
static void test_a_diamonds_fork_and_join_are_equivalent(void **state)
{
    (void)state;
    const uint32_t w[] = {BEQ(1, 2), ADDQ(1, 2, 3), BR(1), ADDQ(1, 2, 4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    assert_int_equal(p.nblocks, 4);
    calc_equivalence(&p);
    assert_int_equal(p.blocks[0].cls, p.blocks[3].cls);
    assert_true(p.blocks[1].cls != p.blocks[2].cls && p.blocks[1].cls != p.blocks[0].cls);
    for (size_t e = 0; e < p.nedges; e++)
        if (p.edges[e].to == 1 || p.edges[e].from == 1)
            assert_int_equal(p.edges[e].cls, p.blocks[1].cls);
    calc_proc_free(&p);
}

static void test_an_indirect_jump_marks_missing_edges(void **state)
{
    (void)state;
    const uint32_t w[] = {BEQ(1, 1), JMP(4), ADDQ(1, 2, 3), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 4), 0);
    assert_true(p.missing_edges);
    calc_equivalence(&p);
    for (size_t a = 0; a < p.nblocks; a++)
        for (size_t b = a + 1; b < p.nblocks; b++)
            assert_true(p.blocks[a].cls != p.blocks[b].cls);
    calc_proc_free(&p);
}

/* ldq r1 issues at 1 on E0 (M 1); addq r1 waits for the load's 2 cycles:
 * issues at 3, M 2, a static dependency on the load; addq r4,r5,r6 pairs
 * with it on E1 (M 0, half the cycle each); two stores never pair (E0):
 * M 1 each. */
static void test_the_schedule_follows_the_models_issue_rules(void **state)
{
    (void)state;
    const uint32_t w[] = {LDQ(1, 0, 2), ADDQ(1, 1, 3), ADDQ(4, 5, 6), STQ(3, 0, 7), STQ(6, 8, 7), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 6), 0);
    calc_equivalence(&p);
    calc_schedule(&p);
    assert_int_equal(p.insns[0].m, 1);
    assert_int_equal(p.insns[1].m, 2);
    assert_int_equal(p.insns[1].static_cause, CAUSE_DEPENDENCY);
    assert_int_equal(p.insns[1].static_culprit, 0);
    assert_int_equal(p.insns[2].m, 0);
    assert_true(p.insns[1].share == 0.5 && p.insns[2].share == 0.5 && p.insns[0].share == 1);
    /* the first store is in the next aligned block (1010): a new group */
    assert_int_equal(p.insns[3].m, 1);
    assert_int_equal(p.insns[4].m, 1);
    calc_proc_free(&p);
}

/* 1000 ldq r1 (M 1), 1004 sll (E0 taken: M 1), 1008 addq r1,r1 (ready at
 * 3: M 1), 100c ret (pairs with it: M 0).  Samples 100, 100, 500, 0 at period 1:
 * the cluster {100, 100} gives F = 100; the addq stalled 400 cycles. */
static void run_stalled_block(struct calc_proc *p, double dmiss_period, double dmiss_samples)
{
    const uint32_t w[] = {LDQ(1, 0, 2), SLL(4, 5, 6), ADDQ(1, 1, 3), RET};
    const double s[] = {100, 100, 500, 0};
    assert_int_equal(calc_cfg_build(p, &params, 0x1000, w, 4), 0);
    for (int i = 0; i < 4; i++)
        p->insns[i].samples[CALC_EV_CYCLES] = s[i];
    p->insns[0].samples[CALC_EV_DMISS] = dmiss_samples;
    calc_equivalence(p);
    calc_schedule(p);
    assert_int_equal(p->insns[0].m + p->insns[1].m + p->insns[2].m + p->insns[3].m, 3);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1, [CALC_EV_DMISS] = dmiss_period}};
    calc_estimate(p, &r);
}

static void test_the_smallest_cluster_of_ratios_gives_the_frequency(void **state)
{
    (void)state;
    struct calc_proc p;
    run_stalled_block(&p, 0, 0);
    assert_true(p.insns[0].freq == 100 && p.insns[2].freq == 100);
    assert_int_equal(p.classes[p.blocks[0].cls].used, 2);
    assert_true(p.insns[2].dynamic == 400);
    /* no D-cache-miss samples: the load's D-cache and DTB stay guilty */
    assert_true(p.insns[2].culprits & (1u << CAUSE_DCACHE_MEM));
    assert_true(p.insns[2].culprits & (1u << CAUSE_DTB));
    assert_int_equal(p.insns[2].culprit_insn, 0);
    /* 200 cycles each; that is 200/60 + 200/20 = 13.33 stalled executions,
     * whose issue cycles are base (calc.h note 5): 400 - 13.33 = 386.67 of
     * stall, 193.33 each; the ret pairs with the addq: half the cycle each */
    assert_true(near(p.insns[2].stack[CAUSE_DCACHE_MEM], 200 * (400 - 40.0 / 3) / 400));
    assert_true(near(p.insns[2].stack[CAUSE_DTB], 200 * (400 - 40.0 / 3) / 400));
    assert_true(p.insns[2].stack[CALC_UNEXPLAINED] == 0);
    assert_true(near(p.insns[2].stack[CAUSE_BASE], 50 + 40.0 / 3) && p.insns[3].stack[CAUSE_BASE] == 50);
    calc_proc_free(&p);
}

/* A class runs at least as often as its load took D-cache misses (one
 * at most per execution).  The cycles' cluster gives F = 100 from 200
 * samples (variance F^2 / 200 = 50); 150 miss samples at period 1 say
 * E = 150 (variance 150): below E, F becomes their inverse-variance mean,
 * (100/50 + 150/150) / (1/50 + 1/150) = 112.5.  80 miss samples say
 * nothing F does not: it stays. */
static void test_miss_samples_floor_a_class_the_cycles_underestimate(void **state)
{
    (void)state;
    struct calc_proc p;
    run_stalled_block(&p, 1, 150);
    assert_true(near(p.insns[0].freq, 112.5) && near(p.insns[2].freq, 112.5));
    calc_proc_free(&p);
    run_stalled_block(&p, 1, 80);
    assert_true(p.insns[0].freq == 100 && p.insns[2].freq == 100);
    calc_proc_free(&p);
}

/* calc.h note 6: a stall no culprit can take is unexplained only when
 * the samples exceed the schedule's cycles beyond Poisson noise.  Three
 * shifts (E0, a cycle each: M 1) at F = 100; the third's samples are
 * S - 100 over its schedule.  112: within 2.5 sqrt(100) = 25, base; 200:
 * beyond it, and with every event counted and none sampled nothing can
 * have caused it: unexplained. */
static void run_shifts(struct calc_proc *p, double third)
{
    const uint32_t w[] = {SLL(4, 5, 6), SLL(7, 8, 9), SLL(10, 11, 12), RET};
    const double s[] = {100, 100, third, 0};
    assert_int_equal(calc_cfg_build(p, &params, 0x1000, w, 4), 0);
    for (int i = 0; i < 4; i++)
        p->insns[i].samples[CALC_EV_CYCLES] = s[i];
    calc_equivalence(p);
    calc_schedule(p);
    /* every event counted, none sampled here: no culprit is left */
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1, [CALC_EV_IMISS] = 1, [CALC_EV_ITBMISS] = 1,
                                      [CALC_EV_DMISS] = 1, [CALC_EV_L2MISS] = 1, [CALC_EV_DTBMISS] = 1,
                                      [CALC_EV_BRANCHMP] = 1}};
    calc_estimate(p, &r);
}

static void test_a_stall_within_sampling_noise_is_base_and_beyond_it_unexplained(void **state)
{
    (void)state;
    struct calc_proc p;
    run_shifts(&p, 112);
    assert_true(p.insns[2].stack[CALC_UNEXPLAINED] == 0);
    calc_proc_free(&p);
    run_shifts(&p, 200);
    assert_true(p.insns[2].stack[CALC_UNEXPLAINED] > 0);
    calc_proc_free(&p);
}

/* 4 D-cache-miss samples at period 1 on the load: at most 4 x (60 + 2 +
 * 20: memory, L1 and a DTB miss, pessimistically) = 328 cycles, less the
 * sll's cycle between them on each of the 4 misses (the miss's latency
 * overlaps it): 324 are the D-cache's, the other 76 go to the DTB, still
 * unbounded. */
static void test_event_samples_bound_a_culprit(void **state)
{
    (void)state;
    struct calc_proc p;
    run_stalled_block(&p, 1, 4);
    /* 324 and 76: 324/60 + 76/20 stalled executions' issue cycles are
     * base, the rest scaled to what is left of the 400 */
    double issue = 324.0 / 60 + 76.0 / 20, keep = (400 - issue) / 400;
    assert_true(near(p.insns[2].stack[CAUSE_DCACHE_MEM], 324 * keep));
    assert_true(near(p.insns[2].stack[CAUSE_DTB], 76 * keep));
    assert_true(near(p.insns[2].stack[CAUSE_BASE], 50 + issue));
    calc_proc_free(&p);
}

/* ldq r1 (M 1); addq r1,r1 waits for it (M 2) and stalls 500 cycles
 * more on its misses; addq r1,r4 pairs with it (M 0) yet has 400 cycles
 * of its own.  10 D-cache misses at period 1 bound the D-cache at 10 x
 * 82 = 820 cycles, but the first consumer's 500-cycle stall and its 2
 * schedule cycles on each of the 10 misses already passed while the
 * line came: the second's D-cache share is at most 820 - 520 = 300, the
 * other 100 go to the DTB (unbounded); 300/60 + 100/20 = 10 stalled
 * executions' issue cycles are base (calc.h note 5). */
static void test_a_miss_already_waited_for_bounds_the_next_consumer_less(void **state)
{
    (void)state;
    const uint32_t w[] = {LDQ(1, 0, 2), ADDQ(1, 1, 3), ADDQ(1, 4, 5), RET};
    const double s[] = {100, 700, 400, 100};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 4), 0);
    for (int i = 0; i < 4; i++)
        p.insns[i].samples[CALC_EV_CYCLES] = s[i];
    p.insns[0].samples[CALC_EV_DMISS] = 10;
    calc_equivalence(&p);
    calc_schedule(&p);
    assert_true(p.insns[0].m == 1 && p.insns[1].m == 2 && p.insns[2].m == 0);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1, [CALC_EV_DMISS] = 1}};
    calc_estimate(&p, &r);
    assert_true(near(p.insns[0].freq, 100));
    assert_true(near(p.insns[1].dynamic, 500) && near(p.insns[2].dynamic, 400));
    assert_true(near(p.insns[2].stack[CAUSE_DCACHE_MEM], 300 * 390.0 / 400));
    assert_true(near(p.insns[2].stack[CAUSE_DTB], 100 * 390.0 / 400));
    calc_proc_free(&p);
}

/* A loop whose load walks 8 bytes a time (lda r2, 8(r2)) crosses a page
 * every 1024 executions: with no dtbmiss samples, the DTB is still a
 * culprit of the consumer's stall (guilty) but of at most (calls + 1 +
 * F 8 / 8192) misses of 20 cycles; no D-cache-miss samples rule the
 * D-cache out, so the rest is unexplained.  Walking a list instead (the
 * base loaded from memory), each execution may be on a new page: the
 * DTB may take it all. */
static void run_walk(struct calc_proc *p, uint32_t step)
{
    const uint32_t w[] = {LDQ(1, 0, 2), step, ADDQ(1, 1, 3), BNE(3, -4), RET};
    const double s[] = {1000, 0, 5000, 1000, 1};
    assert_int_equal(calc_cfg_build(p, &params, 0x1000, w, 5), 0);
    for (int i = 0; i < 5; i++)
        p->insns[i].samples[CALC_EV_CYCLES] = s[i];
    calc_equivalence(p);
    calc_schedule(p);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1, [CALC_EV_DMISS] = 1}};
    calc_estimate(p, &r);
    assert_true(near(p->insns[2].freq, 1000) && near(p->insns[2].dynamic, 3000));
}

static void test_a_strided_load_bounds_its_dtb_misses_by_the_pages_it_crosses(void **state)
{
    (void)state;
    struct calc_proc p;
    run_walk(&p, LDA(2, 8, 2));
    double cap = (p.edges[0].freq + 1 + p.insns[1].freq * 8 / 8192) * params.tlb_miss_latency;
    assert_true(cap > 0 && cap < 100);
    assert_true(p.insns[2].culprits & (1u << CAUSE_DTB));
    /* (the addq waits statically too, M 2: its issue cycle is already base) */
    assert_true(near(p.insns[2].stack[CAUSE_DTB], cap));
    assert_true(near(p.insns[2].stack[CALC_UNEXPLAINED], 3000 - cap));
    calc_proc_free(&p);
    run_walk(&p, LDQ(2, 8, 2));
    assert_true(p.insns[2].stack[CALC_UNEXPLAINED] == 0 && p.insns[2].stack[CAUSE_DTB] > 2500);
    calc_proc_free(&p);
}

/* Builds the straight run w of n instructions with s[i] cycle samples
 * each (period 1), checks that the schedule gives the first `ones` one
 * cycle each, and estimates. */
static void estimate_one_cycle_each(struct calc_proc *p, const uint32_t *w, const double *s, uint32_t n,
                                    uint32_t ones)
{
    assert_int_equal(calc_cfg_build(p, &params, 0x1000, w, n), 0);
    for (uint32_t i = 0; i < n; i++)
        p->insns[i].samples[CALC_EV_CYCLES] = s[i];
    calc_equivalence(p);
    calc_schedule(p);
    for (uint32_t i = 0; i < ones; i++)
        assert_int_equal(p->insns[i].m, 1);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1}};
    calc_estimate(p, &r);
}

/* Five stores, one a cycle (E0 only), with 260, 275, 303, 311 and 414
 * samples at period 1: the first four agree within Poisson noise (F =
 * 1149 / 4 = 287.25); the fifth, stalled about a third of its
 * executions, is 4.7 sigma above and left out (a 1.5x spread took it in:
 * 312.6). */
static void test_a_cluster_takes_the_points_that_agree_within_sampling_noise(void **state)
{
    (void)state;
    const uint32_t w[] = {STQ(1, 0, 2), STQ(3, 8, 2), STQ(4, 16, 2), STQ(5, 24, 2), STQ(6, 32, 2), RET};
    const double s[] = {303, 260, 414, 311, 275, 0};
    struct calc_proc p;
    estimate_one_cycle_each(&p, w, s, 6, 5);
    assert_true(near(p.insns[0].freq, 1149.0 / 4));
    assert_int_equal(p.classes[p.blocks[0].cls].used, 4);
    calc_proc_free(&p);
}

/* Four stores and a ret, one cycle each by the schedule, at 112, 155,
 * 155, 260 and 160 samples (copy's first loop, at 135 samples a cycle):
 * the 112 is below the next point up by less than the noise of the two
 * counts' difference (3 sqrt(112 + 155) + 3 = 52), so it is an issue
 * point like the others and the cluster is 112, 155, 155, 160 (the
 * stalled 260 out): 582 / 4.  Judged by the 155's noise alone (40) it was
 * left out, and the cluster was 470 / 3, 8 % higher. */
static void test_a_low_point_within_two_counts_noise_of_the_next_stays_in_the_cluster(void **state)
{
    (void)state;
    const uint32_t w[] = {STQ(1, 0, 2), STQ(3, 8, 2), STQ(4, 16, 2), STQ(5, 24, 2), RET};
    const double s[] = {112, 155, 155, 260, 160};
    struct calc_proc p;
    estimate_one_cycle_each(&p, w, s, 5, 5);
    assert_true(near(p.insns[0].freq, 582.0 / 4));
    assert_int_equal(p.classes[p.blocks[0].cls].used, 4);
    calc_proc_free(&p);
}

/* 1000-1008 three addq, 100c beq -> 1014; 1010 addq; 1014 ret.  The
 * block at 1010 is entered only by the beq's fall-through: it runs at
 * most as often as the block before it.  Its one issue point stalled (300
 * samples to the others' 100 a cycle; the addq and beq at 1004 and 100c
 * pair), so its own estimate is three times that; flow caps it at the
 * block before's 100 (matmul's block under its loop's exit test took 4.4
 * times the executions of the one before it). */
static void test_a_class_own_estimate_is_capped_by_the_block_that_leads_to_it(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 3), ADDQ(4, 5, 6), ADDQ(7, 8, 9), BEQ(10, 1), ADDQ(11, 12, 13), RET};
    const double s[] = {100, 0, 100, 0, 300, 100};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 6), 0);
    for (int i = 0; i < 6; i++)
        p.insns[i].samples[CALC_EV_CYCLES] = s[i];
    calc_equivalence(&p);
    calc_schedule(&p);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1}};
    calc_estimate(&p, &r);
    assert_true(near(p.insns[0].freq, 100));
    assert_true(near(p.insns[4].freq, 100));
    calc_proc_free(&p);
}

/* A one-block loop: 1000 addq; 1004 addq; 1008 bne -> 1000; 100c ret.
 * Its back edge has no instruction of its own: flow gives it the loop's
 * executions less the entry's, even when the entry (and the ret) have
 * next to no samples. */
static void test_a_loops_back_edge_gets_the_loop_less_its_entry(void **state)
{
    (void)state;
    const uint32_t w[] = {ADDQ(1, 2, 1), ADDQ(3, 4, 3), BNE(1, -3), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 4), 0);
    const double s[] = {400, 0, 400, 1};
    for (int i = 0; i < 4; i++)
        p.insns[i].samples[CALC_EV_CYCLES] = s[i];
    calc_equivalence(&p);
    calc_schedule(&p);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1}};
    calc_estimate(&p, &r);
    double loop = p.insns[0].freq, entry = p.insns[3].freq;
    assert_true(loop > 350 && entry >= 0 && entry < 5);
    bool seen = false;
    for (size_t e = 0; e < p.nedges; e++)
        if (p.edges[e].from == 0 && p.edges[e].to == 0) {
            assert_true(near(p.edges[e].freq, loop - entry));
            assert_int_equal(p.classes[p.edges[e].cls].by, BY_PROPAGATION);
            seen = true;
        }
    assert_true(seen);
    calc_proc_free(&p);
}

/* A diamond whose arms have no samples: flow cannot split the fork's 100
 * executions; 20 edge samples of its beq, 5 taken, give the taken arm 25
 * and the other 75 (DCPI section 7). */
static void test_edge_samples_split_a_branch_that_flow_cannot(void **state)
{
    (void)state;
    const uint32_t w[] = {BEQ(1, 2), ADDQ(1, 2, 3), BR(1), ADDQ(1, 2, 4), RET};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    p.insns[0].samples[CALC_EV_CYCLES] = 100;
    p.insns[4].samples[CALC_EV_CYCLES] = 100;
    p.insns[0].dir_samples = 20;
    p.insns[0].dir_taken = 5;
    calc_equivalence(&p);
    calc_schedule(&p);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1}};
    calc_estimate(&p, &r);
    assert_true(near(p.insns[0].freq, 100));
    assert_true(near(p.insns[1].freq, 75) && near(p.insns[3].freq, 25));
    for (uint32_t k = 0; k < p.blocks[0].nout; k++) {
        const struct calc_edge *e = &p.edges[p.blocks[0].out[k]];
        assert_true(near(e->freq, e->kind == EDGE_TAKEN ? 25 : 75));
        assert_int_equal(p.classes[e->cls].by, BY_BRANCH);
    }
    calc_proc_free(&p);
    /* without them, the arms keep their own estimates (no samples: 0) */
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 5), 0);
    p.insns[0].samples[CALC_EV_CYCLES] = 100;
    p.insns[4].samples[CALC_EV_CYCLES] = 100;
    calc_equivalence(&p);
    calc_schedule(&p);
    calc_estimate(&p, &r);
    assert_true(p.insns[1].freq == 0 && p.insns[3].freq == 0);
    calc_proc_free(&p);
}

/* Every event counted at period 1, none sampled but what a test gives. */
static void estimate_all_counted(struct calc_proc *p)
{
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1, [CALC_EV_IMISS] = 1, [CALC_EV_ITBMISS] = 1,
                                      [CALC_EV_DMISS] = 1, [CALC_EV_L2MISS] = 1, [CALC_EV_DTBMISS] = 1,
                                      [CALC_EV_BRANCHMP] = 1}};
    calc_equivalence(p);
    calc_schedule(p);
    calc_estimate(p, &r);
}

/* 1000-1008 three shifts, 100c beq out of the procedure (pairs with the
 * third: M 0); the fall-through block 1010 sll, 1014 sll, 1018 sll, 101c
 * ret (pairs: M 0), 100 samples on each shift but the head's, at period
 * 1: F = 100 for both blocks.  The head (M 1 both ways: a new issue
 * group) has 100 + D samples: D dynamic stall cycles, and the only
 * culprit left is the beq's mispredict (every event counted; the head is
 * in the beq's line and page).  One mispredict costs the head penalty +
 * MODEL_REFILL_CYCLES = 5 + 2 = 7 cycles (issue-rules.h): of those the
 * penalty is the branch's empty window (TIP), the 2 refill cycles the
 * head's own map and issue, base.
 *   10 mispredicts, D 70 = 10 x 7: the beq gets 10 x 5 = 50 mispredict,
 *   the head 10 x 2 = 20 base on top of its own 100; nothing unexplained.
 *   20 mispredicts, D 300: bounded at 20 x 7 = 140: 100 to the beq, 40
 *   base to the head; the other 160 are beyond noise (400 samples, 100
 *   expected): unexplained. */
static void run_mispredicted_fall_through(struct calc_proc *p, double stall, double mispredicts)
{
    const uint32_t w[] = {SLL(4, 5, 6), SLL(4, 5, 6), SLL(4, 5, 6), BEQ(1, 100),
                          SLL(7, 8, 9), SLL(10, 11, 12), SLL(13, 14, 15), RET};
    const double s[] = {100, 100, 100, 0, 100 + stall, 100, 100, 0};
    assert_int_equal(calc_cfg_build(p, &params, 0x1000, w, 8), 0);
    for (int i = 0; i < 8; i++)
        p->insns[i].samples[CALC_EV_CYCLES] = s[i];
    p->insns[3].samples[CALC_EV_BRANCHMP] = mispredicts;
    estimate_all_counted(p);
    assert_int_equal(p->nblocks, 2);
    assert_true(p->insns[4].m == 1 && p->insns[4].m_alt == 1 && p->insns[3].m == 0);
    assert_true(near(p->insns[4].freq, 100) && near(p->insns[3].freq, 100));
    assert_true(near(p->insns[4].dynamic, stall));
}

static void test_a_mispredicts_penalty_is_the_branchs_and_the_refill_the_targets_base(void **state)
{
    (void)state;
    struct calc_proc p;
    run_mispredicted_fall_through(&p, 70, 10);
    assert_true(near(p.insns[3].stack[CAUSE_MISPREDICT], 10 * 5.0));
    assert_true(near(p.insns[3].stack[CAUSE_BASE], 100 * 0.5));    /* its half of the issue cycle only */
    assert_true(near(p.insns[4].stack[CAUSE_MISPREDICT], 0));
    assert_true(near(p.insns[4].stack[CAUSE_BASE], 100 + 10 * MODEL_REFILL_CYCLES));
    assert_true(near(p.insns[4].stack[CALC_UNEXPLAINED], 0));
    assert_true(p.insns[4].culprits & (1u << CAUSE_MISPREDICT));
    assert_int_equal(p.insns[4].culprit_insn, 3);
    calc_proc_free(&p);
    run_mispredicted_fall_through(&p, 300, 20);
    assert_true(near(p.insns[3].stack[CAUSE_MISPREDICT], 20 * 5.0));
    assert_true(near(p.insns[4].stack[CAUSE_BASE], 100 + 20 * MODEL_REFILL_CYCLES));
    assert_true(near(p.insns[4].stack[CALC_UNEXPLAINED], 300 - 20 * 7.0));
    calc_proc_free(&p);
}

/* 1000 ldq r1, 1004 beq out (pairs with it); the fall-through block's
 * head 1008 addq r1,r1 waits for the load when fallen into (issues at 3
 * after the beq retired at 2: M 2) but not after a mispredict, when it
 * starts fresh (M 1): its M_i depends on how the block was entered.
 * With two sure points in its class (1 cycle each both ways: 100c sll,
 * 1010 sll; the ret pairs, M 0) it is no issue point: F = 200 / 2 = 100
 * from the shifts, not (250 + 200) / (2 + 2) = 112.5 with it, and the
 * head's 250 - 100 x 2 = 50 cycles are a stall.  Without them (1008
 * addq, 100c ret pairing with it: no sure point) it is the class's only
 * point: F = 250 / 2 = 125. */
static void test_an_issue_point_whose_cycles_depend_on_the_entry_is_skipped_beside_two_sure_ones(void **state)
{
    (void)state;
    const uint32_t two[] = {LDQ(1, 0, 2), BEQ(3, 100), ADDQ(1, 1, 4), SLL(7, 8, 9), SLL(10, 11, 12), RET};
    const double s2[] = {100, 0, 250, 100, 100, 0};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, two, 6), 0);
    for (int i = 0; i < 6; i++)
        p.insns[i].samples[CALC_EV_CYCLES] = s2[i];
    estimate_all_counted(&p);
    const struct calc_insn *head = &p.insns[2];
    assert_true(head->m == 2 && head->m_alt == 1);
    assert_true(p.insns[3].m == 1 && p.insns[3].m_alt == 1 && p.insns[4].m == 1 && p.insns[4].m_alt == 1);
    const struct calc_class *k = &p.classes[p.blocks[head->block].cls];
    assert_int_equal(k->points, 2);
    assert_true(near(k->freq, 100) && near(head->freq, 100));
    assert_true(near(head->dynamic, 50));
    calc_proc_free(&p);

    const uint32_t none[] = {LDQ(1, 0, 2), BEQ(3, 100), ADDQ(1, 1, 4), RET};
    const double s0[] = {100, 0, 250, 0};
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, none, 4), 0);
    for (int i = 0; i < 4; i++)
        p.insns[i].samples[CALC_EV_CYCLES] = s0[i];
    estimate_all_counted(&p);
    head = &p.insns[2];
    assert_true(head->m == 2 && head->m_alt == 1 && p.insns[3].m == 0);
    k = &p.classes[p.blocks[head->block].cls];
    assert_int_equal(k->points, 1);
    assert_true(near(k->freq, 125) && near(head->dynamic, 0));
    calc_proc_free(&p);
}

/* What every listing of calc shows (calc's text and JSON, html): the
 * culprits' letters static first, each once, '?' for unexplained stall;
 * the bubbles, stall cycles per execution of the block; the culprit. */
static void test_a_listing_shows_culprits_static_first_and_stall_per_execution(void **state)
{
    (void)state;
    struct calc_insn insns[2] = {{0}};
    struct calc_block block = {.first = 0, .n = 2};
    struct calc_proc p = {.insns = insns, .n = 2, .blocks = &block, .nblocks = 1};
    insns[0].freq = 10;
    insns[1].freq = 10;
    insns[1].m = 3;                             /* 2 static stall cycles... */
    insns[1].static_cause = CAUSE_DEPENDENCY;
    insns[1].static_culprit = 0;
    insns[1].culprit_insn = CALC_NONE;
    insns[1].dynamic = 15;                      /* ... and 1.5 dynamic, per execution */
    insns[1].culprits = 1u << CAUSE_DCACHE_L2 | 1u << CAUSE_DCACHE_MEM | 1u << CAUSE_DEPENDENCY;
    insns[1].stack[CALC_UNEXPLAINED] = 1;
    char letters[16];
    calc_culprit_letters(&insns[1], letters, sizeof letters);
    assert_string_equal(letters, "ad?");        /* a dependency, d the L2 and memory alike, ? unexplained */
    assert_true(near(calc_bubble_cycles(&p, 1), 3.5));
    assert_int_equal(calc_culprit_of(&insns[1]), 0);
    insns[1].culprit_insn = 1;                  /* a dynamic culprit comes first */
    assert_int_equal(calc_culprit_of(&insns[1]), 1);
    insns[0].culprit_insn = insns[0].static_culprit = CALC_NONE;
    calc_culprit_letters(&insns[0], letters, sizeof letters);
    assert_string_equal(letters, "");
    assert_true(near(calc_bubble_cycles(&p, 0), 0) && calc_culprit_of(&insns[0]) == CALC_NONE);
    block.first = 0;
    insns[0].freq = 0;                          /* a block that never ran: no bubbles */
    assert_true(near(calc_bubble_cycles(&p, 1), 0));
}

static bool read_nothing(const void *ctx, uint64_t addr, void *buf, size_t len)
{
    (void)ctx, (void)addr, (void)buf, (void)len;
    return false;
}

/* 1000 ldah gp, 1(pv); 1004 lda gp, 2(gp): gcc's gp prologue, which
 * callers in the unit skip (bsr to +8); then three shifts (M 1 each) and
 * ret.  With the local entry the prologue is a block of its own with its
 * own class, entered by edges[0], and the shifts' block by edges[1] as
 * well: 100 samples on each shift and none on the prologue give the
 * shifts 100 executions and the prologue none (one class for all would
 * have left the prologue's points in the cluster). */
static void test_a_procedure_entered_after_its_gp_prologue_has_a_second_entry(void **state)
{
    (void)state;
    const uint32_t w[] = {LDAH(29, 1, 27), LDA(29, 2, 29), SLL(4, 5, 6), SLL(7, 8, 9), SLL(10, 11, 12), RET};
    const double s[] = {0, 0, 100, 100, 100, 0};
    const struct calc_image img = {read_nothing, NULL, .local_entry = true};
    struct calc_proc p;
    assert_int_equal(calc_cfg_build_image(&p, &params, 0x1000, w, 6, &img), 0);
    assert_int_equal(p.nblocks, 2);
    assert_int_equal(p.blocks[1].first, 2);
    assert_int_equal(p.edges[0].kind, EDGE_ENTRY);
    assert_int_equal(p.edges[0].to, 0);
    assert_int_equal(p.edges[1].kind, EDGE_ENTRY);
    assert_int_equal(p.edges[1].to, 1);
    assert_int_equal(p.blocks[1].nin, 2);
    for (int i = 0; i < 6; i++)
        p.insns[i].samples[CALC_EV_CYCLES] = s[i];
    calc_equivalence(&p);
    assert_int_not_equal(p.blocks[0].cls, p.blocks[1].cls);
    calc_schedule(&p);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 1}};
    calc_estimate(&p, &r);
    assert_true(near(p.insns[0].freq, 0) && near(p.insns[1].freq, 0));
    assert_true(near(p.insns[2].freq, 100) && near(p.insns[4].freq, 100));
    calc_proc_free(&p);
    /* without it (calc_cfg_build): one block from the first word */
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 6), 0);
    assert_int_equal(p.nblocks, 1);
    calc_proc_free(&p);
}

/* 64 shifts (M 1 each, no operand shared) and ret (M 1) from 0x1000, at
 * period 100: one class of 65 points with 1 sample a point on average
 * where nothing stalls (1, 0, 2, 1, 1, 0, 2) and 20 on each 32-byte
 * I-cache line's first shift (it holds the miss), 1 on the ret (the
 * ninth line's first), and 12 on the shift at 0x1024 (a stall of its
 * own).  217 samples over 65 points is "few a point".  The lines' first
 * points hold 161 samples over 9 cycles, where the others' rate (67 over
 * 56) says 10.8: beyond noise, left out.  Of the rest, the 12 is far
 * beyond its share (P < 0.001): left out.  55 samples over 55 points,
 * 100 executions. */
static void test_a_long_run_seen_a_few_times_a_point_leaves_out_its_stalled_points(void **state)
{
    (void)state;
    uint32_t w[65];
    const double unstalled[7] = {1, 0, 2, 1, 1, 0, 2};
    struct calc_proc p;
    for (unsigned i = 0; i < 64; i++)
        w[i] = SLL(1 + i % 3, 4 + i % 3, 7 + i % 8);
    w[64] = RET;
    assert_int_equal(calc_cfg_build(&p, &params, 0x1000, w, 65), 0);
    for (unsigned i = 0; i < 64; i++)
        p.insns[i].samples[CALC_EV_CYCLES] = i % 8 == 0 ? 20 : unstalled[i % 8 - 1];
    p.insns[9].samples[CALC_EV_CYCLES] = 12;
    p.insns[64].samples[CALC_EV_CYCLES] = 1;
    calc_equivalence(&p);
    calc_schedule(&p);
    for (unsigned i = 0; i < 64; i++)
        assert_int_equal(p.insns[i].m, 1);
    struct calc_rates r = {.period = {[CALC_EV_CYCLES] = 100}};
    calc_estimate(&p, &r);
    assert_true(near(p.insns[0].freq, 100) && near(p.insns[63].freq, 100));
    assert_int_equal(p.classes[p.blocks[0].cls].used, 55);
    calc_proc_free(&p);
}

/* The diamond 1000 beq -> 100c; 1004 addq, 1008 br -> 1010; 100c addq;
 * 1010 ret: classes A (fork and join, ENTRY's and EXIT's edges), B (the
 * fall-through arm) and C (the taken arm), with one constraint A = B + C.
 * Weighted least squares (calc-reconcile.c) moves each estimate by its
 * share of the variance: y = 100, 70, 40 with variances 1, 1, 2 miss
 * the constraint by r = 100 - 70 - 40 = -10 over 4; A gets 100 + 10 / 4
 * = 102.5, B 70 - 10 / 4 = 67.5, C 40 - 10 x 2 / 4 = 35. */
static uint32_t diamond_classes(struct calc_proc *p, uint32_t *a, uint32_t *b, uint32_t *c)
{
    const uint32_t w[] = {BEQ(1, 2), ADDQ(1, 2, 3), BR(1), ADDQ(1, 2, 4), RET};
    assert_int_equal(calc_cfg_build(p, &params, 0x1000, w, 5), 0);
    calc_equivalence(p);
    assert_int_equal(p->nblocks, 4);
    *a = p->blocks[0].cls;
    *b = p->blocks[1].cls;
    *c = p->blocks[2].cls;
    assert_true(p->blocks[3].cls == *a && *a != *b && *b != *c && *a != *c);
    return (uint32_t)p->nclasses;
}

static void test_reconciliation_moves_each_class_by_its_share_of_the_variance(void **state)
{
    (void)state;
    struct calc_proc p;
    uint32_t a, b, c;
    assert_int_equal(diamond_classes(&p, &a, &b, &c), 3);
    double y[3], var[3], x[3];
    y[a] = 100, y[b] = 70, y[c] = 40;
    var[a] = 1, var[b] = 1, var[c] = 2;
    assert_true(calc_reconcile(&p, y, var, x));
    assert_true(fabs(x[a] - 102.5) < 1e-6 && fabs(x[b] - 67.5) < 1e-6 && fabs(x[c] - 35) < 1e-6);
    /* estimates that agree with the flow stay as they are */
    y[a] = 100, y[b] = 60, y[c] = 40;
    assert_true(calc_reconcile(&p, y, var, x));
    assert_true(fabs(x[a] - 100) < 1e-6 && fabs(x[b] - 60) < 1e-6 && fabs(x[c] - 40) < 1e-6);
    calc_proc_free(&p);
}

/* The same diamond with no estimate for C: flow gives it A - B, and A, B
 * keep their estimates (nothing to compare them with): 100 and 70 give C
 * 30.  With B = 130 above A = 100, C would run -30 times: it is held at
 * 0, so A = B, their mean by variance: 115 (equal variances). */
static void test_reconciliation_holds_at_zero_a_class_flow_would_make_negative(void **state)
{
    (void)state;
    struct calc_proc p;
    uint32_t a, b, c;
    diamond_classes(&p, &a, &b, &c);
    double y[3], var[3], x[3];
    y[a] = 100, y[b] = 70, y[c] = -1;
    var[a] = 1, var[b] = 1, var[c] = INFINITY;
    assert_true(calc_reconcile(&p, y, var, x));
    assert_true(fabs(x[a] - 100) < 1e-6 && fabs(x[b] - 70) < 1e-6 && fabs(x[c] - 30) < 1e-6);
    y[b] = 130;
    assert_true(calc_reconcile(&p, y, var, x));
    assert_true(fabs(x[a] - 115) < 1e-6 && fabs(x[b] - 115) < 1e-6 && x[c] == 0);
    calc_proc_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_a_loops_blocks_edges_and_classes, setup),
        cmocka_unit_test_setup(test_a_diamonds_fork_and_join_are_equivalent, setup),
        cmocka_unit_test_setup(test_an_indirect_jump_marks_missing_edges, setup),
        cmocka_unit_test_setup(test_the_schedule_follows_the_models_issue_rules, setup),
        cmocka_unit_test_setup(test_the_smallest_cluster_of_ratios_gives_the_frequency, setup),
        cmocka_unit_test_setup(test_event_samples_bound_a_culprit, setup),
        cmocka_unit_test_setup(test_miss_samples_floor_a_class_the_cycles_underestimate, setup),
        cmocka_unit_test_setup(test_a_stall_within_sampling_noise_is_base_and_beyond_it_unexplained, setup),
        cmocka_unit_test_setup(test_a_cluster_takes_the_points_that_agree_within_sampling_noise, setup),
        cmocka_unit_test_setup(test_a_low_point_within_two_counts_noise_of_the_next_stays_in_the_cluster, setup),
        cmocka_unit_test_setup(test_a_class_own_estimate_is_capped_by_the_block_that_leads_to_it, setup),
        cmocka_unit_test_setup(test_a_miss_already_waited_for_bounds_the_next_consumer_less, setup),
        cmocka_unit_test_setup(test_a_strided_load_bounds_its_dtb_misses_by_the_pages_it_crosses, setup),
        cmocka_unit_test_setup(test_a_loops_back_edge_gets_the_loop_less_its_entry, setup),
        cmocka_unit_test_setup(test_edge_samples_split_a_branch_that_flow_cannot, setup),
        cmocka_unit_test_setup(test_a_listing_shows_culprits_static_first_and_stall_per_execution, setup),
        cmocka_unit_test_setup(test_a_mispredicts_penalty_is_the_branchs_and_the_refill_the_targets_base, setup),
        cmocka_unit_test_setup(test_an_issue_point_whose_cycles_depend_on_the_entry_is_skipped_beside_two_sure_ones,
                               setup),
        cmocka_unit_test_setup(test_a_procedure_entered_after_its_gp_prologue_has_a_second_entry, setup),
        cmocka_unit_test_setup(test_a_long_run_seen_a_few_times_a_point_leaves_out_its_stalled_points, setup),
        cmocka_unit_test_setup(test_reconciliation_moves_each_class_by_its_share_of_the_variance, setup),
        cmocka_unit_test_setup(test_reconciliation_holds_at_zero_a_class_flow_would_make_negative, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
