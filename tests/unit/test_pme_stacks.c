/*
 * Cycle stacks from ProfileMe records (util/pme-stacks) on synthetic
 * records and sample streams with hand-computed answers: one record's
 * cycles by cause (a memory wait, a flush's bubble moved to its branch, a
 * store-buffer wait, a trap, the bad path, a barrier), the retire-cycle
 * shares of straight-line code (the mean of 1/n over varying groups), a whole synthetic view against its known stacks,
 * the stack and time errors against an oracle, and their sampling noise;
 * a frequency-equivalence class's records pooled for its executions,
 * and along the CFG's flow; a flush's bubble from the branch's records
 * and the refetched instruction's together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/calc.h"
#include "util/pme-stacks.h"

/* penalty 7, L1 3, L2 13, memory 120: waits of 9.5 and 76 cycles part the causes */
static void params(struct pme_stack_params *p)
{
    struct model_params mp;
    model_params_default(&mp);
    pme_stack_params_of(&mp, p);
    assert_float_equal(p->penalty, 7, 0);
    assert_float_equal(p->l2_wait, 9.5, 0);
    assert_float_equal(p->mem_wait, 76, 0);
    assert_int_equal(p->retire_width, 8);
}

static struct pme_rec_obs rec(uint32_t fm, uint32_t md, uint32_t di, uint32_t ir, uint32_t rr, uint32_t gap)
{
    struct pme_rec_obs r;
    memset(&r, 0, sizeof r);
    r.retired = true;
    r.lat[PME_LAT_FETCH_MAP] = fm;
    r.lat[PME_LAT_MAP_DATA] = md;
    r.lat[PME_LAT_DATA_ISSUE] = di;
    r.lat[PME_LAT_ISSUE_RETREADY] = ir;
    r.lat[PME_LAT_RETREADY_RETIRE] = rr;
    r.lat[PME_LAT_RETIRE_GAP] = gap;
    return r;
}

static double sum(const double *s)
{
    double t = 0;
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        t += s[c];
    return t;
}

static void test_a_wait_as_long_as_a_memory_miss_is_booked_to_dcache_mem(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    /* M 1, D 131, I 131, RR 132, R 132; the previous retired at 32: (32, 132)
     * is [33, 131) waiting (a 129-cycle wait: memory), [131, 132) its
     * 1-cycle execution, base; its retire cycle alone */
    struct pme_rec_obs r = rec(1, 130, 0, 1, 0, 100);
    double s[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &r, 1, s);
    assert_float_equal(s[CAUSE_DCACHE_MEM], 98, 1e-12);
    assert_float_equal(s[CAUSE_BASE], 2, 1e-12);
    assert_float_equal(sum(s), 100, 1e-12);
    /* the same wait at 20 cycles is an L2 hit's; at 5 a plain dependency */
    double s2[CAUSE_COUNT] = {0}, s3[CAUSE_COUNT] = {0};
    r = rec(1, 21, 0, 1, 0, 21);
    pme_record_stack(&p, &r, 0.5, s2);
    assert_float_equal(s2[CAUSE_DCACHE_L2], 19, 1e-12);
    assert_float_equal(s2[CAUSE_BASE], 1.5, 1e-12);
    r = rec(1, 6, 0, 1, 0, 6);
    pme_record_stack(&p, &r, 1, s3);
    assert_float_equal(s3[CAUSE_DEPENDENCY], 4, 1e-12);
    assert_float_equal(s3[CAUSE_BASE], 2, 1e-12);
}

static void test_retiring_with_the_one_before_costs_only_its_share(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_rec_obs r = rec(1, 50, 3, 9, 12, 0);
    double s[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &r, 0.25, s);
    assert_float_equal(s[CAUSE_BASE], 0.25, 0);
    assert_float_equal(sum(s), 0.25, 0);
}

static void test_a_mispredicted_branch_owns_its_flush_bubble_and_its_target_does_not(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    /* the branch: resolves at RR 3, retires at once: refetch 7 cycles on */
    struct pme_rec_obs b = rec(1, 1, 0, 1, 0, 1);
    b.mispredict = true;
    double sb[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &b, 1, sb);
    assert_float_equal(sb[CAUSE_MISPREDICT], 7, 0);
    assert_float_equal(sb[CAUSE_BASE], 1, 0);
    /* waiting 2 cycles to retire, its bubble is 2 cycles shorter */
    b.lat[PME_LAT_RETREADY_RETIRE] = 2;
    double sb2[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &b, 1, sb2);
    assert_float_equal(sb2[CAUSE_MISPREDICT], 5, 0);
    /* the target: the previous retired at -6, it was fetched at 0, M 1,
     * R 3: [-5, 1) is the branch's bubble; [1, 2) base, [2, 3) its
     * execution, base; plus its retire cycle */
    struct pme_rec_obs t = rec(1, 1, 0, 1, 0, 9);
    double st[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &t, 1, st);
    assert_float_equal(st[CAUSE_BASE], 3, 0);
    assert_float_equal(sum(st), 3, 0);
    /* with an I-cache miss of its own the window is its fetch's */
    t.imiss = true;
    double si[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &t, 1, si);
    assert_float_equal(si[CAUSE_ICACHE], 6, 0);
    assert_float_equal(sum(si), 9, 0);
    /* a short late fetch (a taken branch's fetch bubble) is its own: base */
    struct pme_rec_obs f = rec(1, 1, 0, 1, 0, 4);
    double sf[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &f, 1, sf);
    assert_float_equal(sf[CAUSE_BASE], 4, 0);
}

static void test_a_map_held_back_after_an_early_fetch_is_queue_full(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    /* fetched at 0, the previous retired at 0: M 10 (store buffer full),
     * D 11, I 11, RR 12, R 12: [1, 10) queue_full, [10, 11) base,
     * [11, 12) base */
    struct pme_rec_obs r = rec(10, 1, 0, 1, 0, 12);
    r.store = true;
    double s[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &r, 1, s);
    assert_float_equal(s[CAUSE_QUEUE_FULL], 9, 0);
    assert_float_equal(s[CAUSE_BASE], 3, 0);
}

static void test_own_execution_is_dtb_for_a_dtb_missing_load_execute_for_a_multiply(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    /* M 1, D 2, I 2, RR 25, R 25; previous retired at 1: [2, 25) execution */
    struct pme_rec_obs l = rec(1, 1, 0, 23, 0, 24);
    l.load = l.dtbmiss = true;
    double sl[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &l, 1, sl);
    assert_float_equal(sl[CAUSE_DTB], 23, 0);
    struct pme_rec_obs m = rec(1, 1, 2, 7, 0, 10);
    double sm[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &m, 1, sm);
    /* M 1, D 2, I 4, RR 11, R 11; previous at 1: [2, 4) fu_busy, [4, 11) execute */
    assert_float_equal(sm[CAUSE_FU_BUSY], 2, 0);
    assert_float_equal(sm[CAUSE_EXECUTE], 7, 0);
    assert_float_equal(sm[CAUSE_BASE], 1, 0);
}

static void test_a_trap_owns_penalty_plus_one_and_the_bad_path_nothing(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_rec_obs t = rec(0, 0, 0, 0, 0, 0), bad = rec(0, 0, 0, 0, 0, 0);
    t.retired = bad.retired = false;
    t.trap = true;
    double s[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &t, 1, s);
    assert_float_equal(s[CAUSE_TRAP], 8, 0);
    pme_record_stack(&p, &bad, 1, s);
    assert_float_equal(sum(s), 8, 0);
}

/* A barrier (or PAL call) executing several cycles at the head serialises:
 * the image says what it is (the record does not); any other instruction
 * as long is executing.  M 1, D 2, I 2, RR 7, R 7, the previous at 1:
 * (1, 7) is [2, 2) nothing, wait, [2, 7) its execution. */
static void test_a_barriers_execution_is_serialise_and_anothers_execute(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_rec_obs r = rec(1, 1, 0, 5, 0, 6);
    double own[CAUSE_COUNT] = {0}, barrier[CAUSE_COUNT] = {0};
    pme_record_stack(&p, &r, 1, own);
    assert_float_equal(own[CAUSE_EXECUTE], 5, 1e-12);
    assert_float_equal(own[CAUSE_SERIALISE], 0, 0);
    r.serialising = true;
    pme_record_stack(&p, &r, 1, barrier);
    assert_float_equal(barrier[CAUSE_SERIALISE], 5, 1e-12);
    assert_float_equal(barrier[CAUSE_EXECUTE], 0, 0);
    assert_float_equal(sum(barrier), sum(own), 1e-12);
}

/* X then Y then Z (straight line, each once per iteration): Y retires in
 * X's cycle half the time, Z never with Y.  X's share is 1 when alone and
 * 1/2 with Y: 0.75 on average, not 1 / (1 + 0.5) = 2/3 (the mean of 1/n,
 * not one over the mean group).  Y's record after a gap (alone: Z never
 * joins) has 1, one with gap 0 (with X) 1/2: 0.75 on average too.  Z
 * retires alone: 1. */
static void test_a_share_is_the_mean_of_one_over_the_group_not_one_over_the_mean_group(void **state)
{
    (void)state;
    struct pme_seq_stats st[3] = {
        {.retired = 100, .zero_gap = 0, .prev = SIZE_MAX, .next = 1, .target = SIZE_MAX},
        {.retired = 100, .zero_gap = 50, .prev = 0, .next = 2, .target = SIZE_MAX},
        {.retired = 100, .zero_gap = 0, .prev = 1, .next = SIZE_MAX, .target = SIZE_MAX},
    };
    struct pme_share x, y, z;
    pme_share_estimates(st, 0, 8, &x);
    pme_share_estimates(st, 1, 8, &y);
    pme_share_estimates(st, 2, 8, &z);
    assert_float_equal(x.first, 0.75, 1e-12);
    assert_float_equal(x.mean, 0.75, 1e-12);
    assert_float_equal(y.first, 1, 1e-12);
    assert_float_equal(y.joined, 0.5, 1e-12);
    assert_float_equal(y.mean, 0.75, 1e-12);
    assert_float_equal(z.mean, 1, 1e-12);
    /* X and Y take one retire cycle half the time, two the other half:
     * 1.5 a iteration, what their shares add up to */
    assert_float_equal(x.mean + y.mean, 1.5, 1e-12);
}

static void test_a_record_that_says_its_retire_group_gets_one_over_its_size_whatever_the_links_say(void **state)
{
    (void)state;
    struct pme_share links = {.first = 0.9, .joined = 0.2, .mean = 0.5};
    uint32_t retired = 1u << PME_EVB_RETIRED;
    /* the group's size in the record wins over the links' estimate */
    assert_float_equal(pme_record_share(retired | 3u << PME_EVENTS_GROUP_SHIFT, 0, &links), 1.0 / 3, 1e-12);
    assert_float_equal(pme_record_share(retired | 3u << PME_EVENTS_GROUP_SHIFT, 5, &links), 1.0 / 3, 1e-12);
    assert_float_equal(pme_record_share(retired | 1u << PME_EVENTS_GROUP_SHIFT, 0, &links), 1, 1e-12);
    assert_float_equal(pme_record_share(retired | PME_EVENTS_GROUP_MAX << PME_EVENTS_GROUP_SHIFT, 0, &links),
                       1.0 / PME_EVENTS_GROUP_MAX, 1e-12);
    /* a record without it (an older profile): the links, by its gap */
    assert_float_equal(pme_record_share(retired, 4, &links), 0.9, 1e-12);
    assert_float_equal(pme_record_share(retired, 0, &links), 0.2, 1e-12);
    /* the event bits below are not read as a size */
    assert_float_equal(pme_record_share(0xffffu, 0, &links), 0.2, 1e-12);
}

static void test_a_loop_retiring_in_pairs_gives_each_instruction_half_a_cycle(void **state)
{
    (void)state;
    /* A B | C D | (D branches back to A): B and D always retire with the
     * one before, A and C never */
    struct pme_seq_stats st[4] = {
        {.retired = 100, .zero_gap = 0, .taken = 0, .prev = 3, .next = 1, .target = SIZE_MAX},
        {.retired = 100, .zero_gap = 100, .taken = 0, .prev = 0, .next = 2, .target = SIZE_MAX},
        {.retired = 100, .zero_gap = 0, .taken = 0, .prev = 1, .next = 3, .target = SIZE_MAX},
        {.retired = 100, .zero_gap = 100, .taken = 100, .prev = 2, .next = SIZE_MAX, .target = 0},
    };
    for (size_t i = 0; i < 4; i++)
        assert_float_equal(pme_share_estimate(st, 4, i, 8), 0.5, 1e-12);
    /* one at a time: every share whole */
    for (size_t i = 0; i < 4; i++)
        st[i].zero_gap = 0;
    for (size_t i = 0; i < 4; i++)
        assert_float_equal(pme_share_estimate(st, 4, i, 8), 1, 0);
    /* all four together (a 4-wide group each iteration, A its first); a
     * width of 2 sees at most one other on each side */
    for (size_t i = 0; i < 4; i++)
        st[i].zero_gap = i == 0 ? 0 : 100;
    for (size_t i = 0; i < 4; i++) {
        assert_float_equal(pme_share_estimate(st, 4, i, 8), 0.25, 1e-12);
        assert_float_equal(pme_share_estimate(st, 4, i, 2), i == 0 || i == 3 ? 0.5 : 1.0 / 3, 1e-12);
    }
    /* A load missing at the loop's head, the three after it retiring in
     * its cycle: the group crosses the taken branch back to A (L B C A'
     * retire together, D being the branch): A's older partners are found
     * through its usual predecessor, the branch */
    struct pme_seq_stats loop[3] = {
        /* 0 A (retires with the branch before it), 1 L the missing load, 2 D the branch to A */
        {.retired = 100, .zero_gap = 100, .taken = 0, .prev = 2, .next = 1, .target = SIZE_MAX},
        {.retired = 100, .zero_gap = 0, .taken = 0, .prev = 0, .next = 2, .target = SIZE_MAX},
        {.retired = 100, .zero_gap = 100, .taken = 100, .prev = 1, .next = SIZE_MAX, .target = 0},
    };
    assert_float_equal(pme_share_estimate(loop, 3, 0, 8), 1.0 / 3, 1e-12);
    assert_float_equal(pme_share_estimate(loop, 3, 1, 8), 1.0 / 3, 1e-12);
    assert_float_equal(pme_share_estimate(loop, 3, 2, 8), 1.0 / 3, 1e-12);
}

/* A synthetic view: image at 0x1000, A (offset 0) a load missing to
 * memory, B (offset 4) its consumer, a taken branch back to A; pairs <A, B>
 * one every S = 1000 fetched instructions. */
static void synthetic_view(struct pme_view *v, struct pv_image *img, size_t npairs)
{
    static const char *const bits[] = {PME_EVENT_BIT_NAMES};
    memset(v, 0, sizeof *v);
    memset(img, 0, sizeof *img);
    img->id = 1;
    img->address = 0x1000;
    v->images = img;
    v->nimages = 1;
    v->nbits = PME_EVB_COUNT;
    for (size_t i = 0; i < PME_EVB_COUNT; i++)
        strcpy(v->bit_names[i], bits[i]);
    v->pair_interval = 1000;
    v->ninsns = 2;
    v->insns = calloc(2, sizeof *v->insns);
    v->insns[0].img = v->insns[1].img = img;
    v->insns[1].offset = 4;
    v->nraw = npairs;
    v->raw = calloc(npairs, sizeof *v->raw);
    for (size_t k = 0; k < npairs; k++) {
        struct pme_pair_raw *p = &v->raw[k];
        p->gap = 1;
        p->distance = 0;
        p->weight = 1;
        p->rec[0] = (struct pme_pair_rec){.img = img, .offset = 0,
            .events = 1u << PME_EVB_RETIRED | 1u << PME_EVB_LOAD | 1u << PME_EVB_DMISS | 1u << PME_EVB_L2MISS,
            .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 1, [PME_LAT_ISSUE_RETREADY] = 3,
                    [PME_LAT_RETIRE_GAP] = 1}};
        /* M 1, D 141, I 141, RR 142, R 142, the previous (A) at 3:
         * [4, 141) memory, [141, 142) base, and its cycle */
        p->rec[1] = (struct pme_pair_rec){.img = img, .offset = 4,
            .events = 1u << PME_EVB_RETIRED | 1u << PME_EVB_BRANCH | 1u << PME_EVB_TAKEN,
            .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 140, [PME_LAT_ISSUE_RETREADY] = 1,
                    [PME_LAT_RETIRE_GAP] = 139}};
    }
}

static void test_a_synthetic_stream_gives_its_hand_computed_stacks(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    synthetic_view(&v, &img, 5);
    struct pme_stack st[2];
    struct ap_err err;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    /* each record stands for S/2 = 500 fetched instructions */
    assert_int_equal(st[0].pc, 0x1000);
    assert_float_equal(st[0].share, 1, 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 5 * 500, 1e-9);
    assert_float_equal(pme_stack_total(&st[0]), 5 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_DCACHE_MEM], 5 * 137 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_BASE], 5 * 2 * 500, 1e-9);
    assert_float_equal(pme_stack_total(&st[1]), 5 * 139 * 500, 1e-9);

    /* against a truth of A 2500 base, B 5000 base and 340000 memory */
    struct oracle_pc pcs[2];
    memset(pcs, 0, sizeof pcs);
    pcs[0].pc = 0x1000;
    pcs[0].stack[CAUSE_BASE] = 2500ull * CYCLE_UNIT;
    pcs[1].pc = 0x1004;
    pcs[1].stack[CAUSE_BASE] = 5000ull * CYCLE_UNIT;
    pcs[1].stack[CAUSE_DCACHE_MEM] = 340000ull * CYCLE_UNIT;
    struct oracle o = {.h = {.npcs = 2}, .pcs = pcs};
    struct pme_stack_accuracy a;
    assert_int_equal(pme_stack_accuracy(st, 2, &o, &a), 0);
    assert_float_equal(a.true_cycles, 347500, 1e-6);
    assert_float_equal(a.estimate_cycles, 350000, 1e-6);
    assert_float_equal(a.stack_error, 0.5 * 2500 / 347500, 1e-12);
    assert_float_equal(a.time_error,
                       0.5 * (fabs(2500 / 350000.0 - 2500 / 347500.0) + fabs(347500 / 350000.0 - 345000 / 347500.0)),
                       1e-12);
    assert_float_equal(a.cause_true[CAUSE_DCACHE_MEM], 340000, 1e-6);

    /* an instruction only one side has counts wholly */
    pcs[1].pc = 0x2000;
    assert_int_equal(pme_stack_accuracy(st, 2, &o, &a), 0);
    assert_float_equal(a.stack_error, 0.5 * (342500 + 5000 + 345000) / 347500.0, 1e-12);
    free(v.insns);
    free(v.raw);
}

/* Note 12: time-sampled records, one every 100 cycles: each is 100 cycles
 * of its own instruction, split by its own estimated causes.  A retired
 * with one other (group 2: half a cycle, base), B waited 137 cycles for
 * memory and 2 base (139).  5 records each: A 500 base, B 500 x 137/139
 * memory and 500 x 2/139 base; the time shares are the records' (1/2
 * each, whatever the per-record cycles say); executions 5 x 100 / 0.5 =
 * 1000 and 5 x 100 / 139.  None of the fetch-order corrections apply. */
static void test_a_time_sampled_record_is_its_interval_of_cycles_split_by_its_own_causes(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    synthetic_view(&v, &img, 5);
    v.pair_interval = 0;
    v.time_interval = 100;
    for (size_t k = 0; k < v.nraw; k++) {
        v.raw[k].rec[0].events |= 2u << PME_EVENTS_GROUP_SHIFT;
        v.raw[k].rec[1].events |= 1u << PME_EVENTS_GROUP_SHIFT;
    }
    struct pme_stack st[2];
    struct ap_err err;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 500, 1e-9);
    assert_float_equal(pme_stack_total(&st[0]), 500, 1e-9);
    assert_float_equal(st[0].share, 0.5, 0);
    assert_float_equal(st[0].executions, 1000, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_DCACHE_MEM], 500.0 * 137 / 139, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_BASE], 500.0 * 2 / 139, 1e-9);
    assert_float_equal(pme_stack_total(&st[1]), 500, 1e-9);
    assert_float_equal(st[1].executions, 500.0 / 139, 1e-9);
    /* an execution that owned two sample points is two records: it counts twice */
    v.raw[0].rec[1] = v.raw[0].rec[0];
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(pme_stack_total(&st[0]), 600, 1e-9);
    assert_float_equal(pme_stack_total(&st[1]), 400, 1e-9);
    /* a pair from a bank thinned 3:1 (note 7) counts three times the others */
    free(v.insns);
    free(v.raw);
    synthetic_view(&v, &img, 2);
    v.pair_interval = 0;
    v.time_interval = 100;
    v.raw[1].rec[1] = v.raw[1].rec[0];      /* <A, B>, <A, A> */
    v.raw[1].weight = 3;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(pme_stack_total(&st[0]), 100 * (0.5 + 2 * 1.5), 1e-9);
    assert_float_equal(pme_stack_total(&st[1]), 100 * 0.5, 1e-9);
    /* the noise halves carry the interval: identical halves, no noise */
    free(v.insns);
    free(v.raw);
    synthetic_view(&v, &img, 6);
    v.pair_interval = 0;
    v.time_interval = 100;
    double sn, tn;
    assert_int_equal(pme_stacks_noise(&v, &p, &sn, &tn, &err), 0);
    assert_float_equal(sn, 0, 1e-12);
    assert_float_equal(tn, 0, 1e-12);
    free(v.insns);
    free(v.raw);
}

/* Note 6: with the aggregates, an instruction's records stand for the
 * record interval times its aggregated records over its pair records: A's
 * 10 records (5 in pairs kept, 5 in pairs the board dropped) count twice
 * what B's 5 do; without them (interval 0) every record stands for S/2. */
static void test_aggregates_say_how_many_records_each_instruction_had_when_pairs_were_dropped(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    synthetic_view(&v, &img, 5);
    v.interval = 500;
    v.pair_full = 5;                    /* the board dropped 5 pairs, no weight stands for them */
    v.insns[0].samples = 10;
    v.insns[1].samples = 5;
    struct pme_stack st[2];
    struct ap_err err;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].records, 5, 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 10 * 500, 1e-9);
    assert_float_equal(pme_stack_total(&st[1]), 5 * 139 * 500, 1e-9);
    /* an instruction without aggregates keeps S/2 */
    v.insns[0].samples = 0;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 5 * 500, 1e-9);
    /* note 9: pairs never dropped, or thinned with weights, need no
     * aggregates (which lose records of their own, agg_full): S/2 */
    v.insns[0].samples = 10;
    v.pair_full = 0;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 5 * 500, 1e-9);
    v.pair_full = 5;
    v.raw[0].weight = 2;                /* a bank that kept half: weights 2, 1, 1, 1, 1 over their mean 1.2 */
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 5 * 500, 1e-9);
    v.raw[0].weight = 1;
    /* the noise is the pairs' own: the halves do not use the aggregates */
    v.insns[0].samples = 10;
    double sn, tn;
    assert_int_equal(pme_stacks_noise(&v, &p, &sn, &tn, &err), 0);
    assert_float_equal(sn, 0, 1e-12);
    free(v.insns);
    free(v.raw);
}

/* Note 7: a pair from a bank the board thinned stands for offered / kept
 * pairs.  Pairs 0-1 (weight 1) have B wait 137 cycles for memory, pairs
 * 2-3 (weight 3: a bank that kept a third) a 7-cycle dependency (map 1,
 * data 11, issue 11, retire 12, gap 9: [4, 11) waiting, [11, 12) its
 * execution, plus its cycle).  The weights are taken over their mean (2),
 * 0.5 and 1.5, so the total stays S/2 a record: A 4 x 500 base, B 2 x 0.5
 * x 137 x 500 memory, 2 x 1.5 x 7 x 500 dependency, 4 x 2 x 500 base.
 * Equal weights change nothing. */
static void test_a_pair_from_a_thinned_bank_stands_for_its_banks_offered_over_kept(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    synthetic_view(&v, &img, 4);
    for (size_t k = 0; k < 4; k++)
        v.raw[k].weight = 3;
    struct pme_stack st[2];
    struct ap_err err;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 4 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_DCACHE_MEM], 4 * 137 * 500, 1e-9);
    for (size_t k = 2; k < 4; k++) {
        v.raw[k].rec[1].lat[PME_LAT_MAP_DATA] = 10;
        v.raw[k].rec[1].lat[PME_LAT_RETIRE_GAP] = 9;
        v.raw[k].weight = 3;
    }
    v.raw[0].weight = v.raw[1].weight = 1;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_BASE], 4 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_DCACHE_MEM], 2 * 0.5 * 137 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_DEPENDENCY], 2 * 1.5 * 7 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_BASE], 4 * 2 * 500, 1e-9);
    assert_float_equal(st[1].records, 4, 1e-12);
    /* the aggregates are not used for pairs the weights stand for (note
     * 9): the same */
    v.interval = 500;
    v.insns[0].samples = v.insns[1].samples = 4;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[1].cause[CAUSE_DCACHE_MEM], 2 * 0.5 * 137 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_DEPENDENCY], 2 * 1.5 * 7 * 500, 1e-9);
    free(v.insns);
    free(v.raw);
}

/* Note 8: B (0x1000) a branch mispredicted not taken that waited 6 of the
 * penalty's 7 cycles to retire: it books 1 cycle of bubble; N (0x1004),
 * refetched, saw that cycle as the empty window before its fetch (gap 4:
 * that cycle, its map, its issue, its retire cycle) and booked it as its
 * own late fetch.  N gives it back: 3 cycles, not 4; without the
 * mispredict bit it keeps its 4. */
static void test_a_short_flush_bubble_is_booked_once_at_the_branch_not_again_at_the_refetched(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    synthetic_view(&v, &img, 5);
    const uint32_t group1 = 1u << 16;       /* retired alone: share 1 (PME_EVENTS_GROUP) */
    for (size_t k = 0; k < 5; k++) {
        v.raw[k].rec[0] = (struct pme_pair_rec){.img = &img, .offset = 0,
            .events = 1u << PME_EVB_RETIRED | 1u << PME_EVB_BRANCH | 1u << PME_EVB_MISPREDICT | group1,
            .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 1, [PME_LAT_ISSUE_RETREADY] = 1,
                    [PME_LAT_RETREADY_RETIRE] = 6, [PME_LAT_RETIRE_GAP] = 1}};
        v.raw[k].rec[1] = (struct pme_pair_rec){.img = &img, .offset = 4,
            .events = 1u << PME_EVB_RETIRED | group1,
            .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 1, [PME_LAT_ISSUE_RETREADY] = 1,
                    [PME_LAT_RETIRE_GAP] = 4}};
    }
    struct pme_rec_obs n = {.retired = true, .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 1,
                                                     [PME_LAT_ISSUE_RETREADY] = 1, [PME_LAT_RETIRE_GAP] = 4}};
    assert_float_equal(pme_record_late_fetch(&p, &n), 1, 0);
    struct pme_rec_obs b = {.retired = true, .mispredict = true,
                            .lat = {[PME_LAT_RETREADY_RETIRE] = 6}};
    assert_float_equal(pme_record_short_bubble(&p, &b), 1, 0);
    b.lat[PME_LAT_RETREADY_RETIRE] = 2;     /* a 5-cycle bubble: a flush's at N already (>= 3.5) */
    assert_float_equal(pme_record_short_bubble(&p, &b), 0, 0);
    struct pme_stack st[2];
    struct ap_err err;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_MISPREDICT], 5 * 1 * 500, 1e-9);
    assert_float_equal(st[0].cause[CAUSE_BASE], 5 * 1 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_BASE], 5 * 3 * 500, 1e-9);
    assert_float_equal(pme_stack_total(&st[1]), 5 * 3 * 500, 1e-9);
    for (size_t k = 0; k < 5; k++)
        v.raw[k].rec[0].events &= ~(1u << PME_EVB_MISPREDICT);
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_MISPREDICT], 0, 0);
    assert_float_equal(st[1].cause[CAUSE_BASE], 5 * 4 * 500, 1e-9);
    free(v.insns);
    free(v.raw);
}

/* Note 10: B (0x1000) a conditional branch, N (0x1004) where it goes on
 * when it falls through; four pairs <B, N>, S = 1000 (each record stands
 * for 500).  Two of B's records mispredicted with no wait to retire (a
 * 7-cycle bubble each: 7000 booked from B's own records); three of N's
 * saw a 7-cycle empty window before their fetch (refetched: 10500 seen
 * from N's).  Both are samples of the same bubbles: B's mispredict cycles
 * are their mean, (7000 + 10500) / 2 = 8750.  When B's mispredictions
 * were short (1 cycle each, booked as they are, 1000) the windows N saw
 * are still a flush's of its usual predecessor, which mispredicts: half
 * of them, 5250, go to B; when B never mispredicts they are not B's. */
static void test_a_branchs_bubbles_are_the_mean_of_its_own_records_and_what_its_refetched_saw(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    synthetic_view(&v, &img, 4);
    const uint32_t group1 = 1u << 16;       /* retired alone: share 1 (PME_EVENTS_GROUP) */
    for (size_t k = 0; k < 4; k++) {
        v.raw[k].rec[0] = (struct pme_pair_rec){.img = &img, .offset = 0,
            .events = 1u << PME_EVB_RETIRED | 1u << PME_EVB_BRANCH | (k < 2 ? 1u << PME_EVB_MISPREDICT : 0) | group1,
            .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 1, [PME_LAT_ISSUE_RETREADY] = 1,
                    [PME_LAT_RETIRE_GAP] = 1}};
        /* M 1, R 3; refetched: the previous retirement at 3 - 10 = -7,
         * an empty window [-6, 1) before its fetch */
        v.raw[k].rec[1] = (struct pme_pair_rec){.img = &img, .offset = 4, .events = 1u << PME_EVB_RETIRED | group1,
            .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 1, [PME_LAT_ISSUE_RETREADY] = 1,
                    [PME_LAT_RETIRE_GAP] = k < 3 ? 10 : 1}};
    }
    struct pme_rec_obs n = {.retired = true, .lat = {[PME_LAT_FETCH_MAP] = 1, [PME_LAT_MAP_DATA] = 1,
                                                     [PME_LAT_ISSUE_RETREADY] = 1, [PME_LAT_RETIRE_GAP] = 10}};
    assert_float_equal(pme_record_flush_window(&p, &n), 7, 0);
    n.imiss = true;                     /* its own I-cache miss: not a flush's */
    assert_float_equal(pme_record_flush_window(&p, &n), 0, 0);
    n.imiss = false;
    n.lat[PME_LAT_RETIRE_GAP] = 5;      /* a 2-cycle late fetch: its own */
    assert_float_equal(pme_record_flush_window(&p, &n), 0, 0);
    struct pme_rec_obs b = {.retired = true, .mispredict = true};
    assert_float_equal(pme_record_long_bubble(&p, &b), 7, 0);
    b.lat[PME_LAT_RETREADY_RETIRE] = 6; /* a 1-cycle bubble: note 8's */
    assert_float_equal(pme_record_long_bubble(&p, &b), 0, 0);
    struct pme_stack st[2];
    struct ap_err err;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_MISPREDICT], (2 * 7 * 500 + 3 * 7 * 500) / 2.0, 1e-9);
    assert_float_equal(st[0].cause[CAUSE_BASE], 4 * 500, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_MISPREDICT], 0, 0);
    for (size_t k = 0; k < 2; k++)
        v.raw[k].rec[0].lat[PME_LAT_RETREADY_RETIRE] = 6;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_MISPREDICT], 2 * 1 * 500 + 3 * 7 * 500 / 2.0, 1e-9);
    for (size_t k = 0; k < 2; k++)
        v.raw[k].rec[0].events &= ~(1u << PME_EVB_MISPREDICT);
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), 0);
    assert_float_equal(st[0].cause[CAUSE_MISPREDICT], 0, 0);
    free(v.insns);
    free(v.raw);
}

/* The sampling noise from even against odd pairs: a stream of identical
 * pairs has none; pairs <A, A> and <B, B> alternating give halves with
 * all of the time on A and all on B: half-distances 1 (time and stacks),
 * so about 1/2 of the whole's. */
static void test_the_noise_is_half_the_distance_between_the_even_and_the_odd_pairs(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    struct ap_err err;
    double sn, tn;
    synthetic_view(&v, &img, 6);
    assert_int_equal(pme_stacks_noise(&v, &p, &sn, &tn, &err), 0);
    assert_float_equal(sn, 0, 1e-12);
    assert_float_equal(tn, 0, 1e-12);
    for (size_t k = 0; k < v.nraw; k++)
        v.raw[k].rec[k % 2] = v.raw[k].rec[1 - k % 2];      /* even <A, A>, odd <B, B> */
    assert_int_equal(pme_stacks_noise(&v, &p, &sn, &tn, &err), 0);
    assert_float_equal(sn, 0.5, 1e-12);
    assert_float_equal(tn, 0.5, 1e-12);
    free(v.insns);
    free(v.raw);
}

/* Note 5: 1000 addq, 1004 addq, 1008 bne -> 1000 (a loop, one block), 100c
 * ret.  The loop's three instructions run equally often: with 10, 20 and 30
 * retired records (one cycle each) each is estimated from 60 / 3 = 20
 * records' executions, its own records giving its cycles per execution
 * (1): 20 cycles each.  The ret, a class of its own, keeps its 1. */
static void test_a_blocks_instructions_share_their_records_executions(void **state)
{
    (void)state;
    const uint32_t w[] = {0x10u << 26 | 1u << 21 | 2u << 16 | 0x20 << 5 | 1u,
                          0x10u << 26 | 3u << 21 | 4u << 16 | 0x20 << 5 | 3u,
                          0x3du << 26 | 1u << 21 | (0x1fffffu & (uint32_t)-3),
                          0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14};
    struct model_params mp;
    model_params_default(&mp);
    struct calc_proc cfg;
    assert_int_equal(calc_cfg_build(&cfg, &mp, 0x1000, w, 4), 0);
    calc_equivalence(&cfg);
    assert_int_equal(cfg.nblocks, 2);
    struct pme_stack st[4];
    const double rec[4] = {10, 20, 30, 1};
    memset(st, 0, sizeof st);
    for (int k = 0; k < 4; k++) {
        st[k].pc = 0x1000 + 4 * (uint64_t)k;
        st[k].cause[CAUSE_BASE] = rec[k];
    }
    pme_stacks_pool(&cfg, st, rec, 4);
    for (int k = 0; k < 3; k++) {
        assert_float_equal(st[k].cause[CAUSE_BASE], 20, 1e-12);
        assert_float_equal(st[k].executions, 20, 1e-12);
    }
    assert_float_equal(st[3].cause[CAUSE_BASE], 1, 1e-12);
    calc_proc_free(&cfg);
}

/* Note 11: 1000 beq -> 1008 (P), 1004 addq (A, its fall-through side),
 * 1008 ret (J, the join): P and J one class, A one of its own.  Records
 * (one cycle each): P 40 (10 of them taken), A 20, J 40.  A's own class
 * says 20 executions (variance 20 / 1); its one in-edge says P's class
 * (80 / 2 = 40, variance 40 / 2) times the fall-through share 0.75: 30,
 * variance 0.75^2 x 20 + 40^2 x 0.25 x 0.75 / 40 = 18.75.  A runs
 * (20 / 20 + 30 / 18.75) / (1 / 20 + 1 / 18.75) = 25.16 times; P and J,
 * whose edges say nothing new (the entry's is unknown, J is entered
 * twice), keep their 40. */
static void test_a_block_entered_from_one_side_of_a_branch_pools_the_branchs_executions_by_its_share(void **state)
{
    (void)state;
    const uint32_t w[] = {0x39u << 26 | 1u << 21 | 1u,
                          0x10u << 26 | 1u << 21 | 2u << 16 | 0x20 << 5 | 1u,
                          0x1au << 26 | 31u << 21 | 26u << 16 | 2u << 14};
    struct model_params mp;
    model_params_default(&mp);
    struct calc_proc cfg;
    assert_int_equal(calc_cfg_build(&cfg, &mp, 0x1000, w, 3), 0);
    calc_equivalence(&cfg);
    assert_int_equal(cfg.nblocks, 3);
    assert_int_equal(cfg.blocks[cfg.insns[0].block].cls, cfg.blocks[cfg.insns[2].block].cls);
    assert_int_not_equal(cfg.blocks[cfg.insns[0].block].cls, cfg.blocks[cfg.insns[1].block].cls);
    struct pme_stack st[3];
    const double rec[3] = {40, 20, 40}, taken[3] = {10, 0, 0};
    memset(st, 0, sizeof st);
    for (int k = 0; k < 3; k++) {
        st[k].pc = 0x1000 + 4 * (uint64_t)k;
        st[k].cause[CAUSE_BASE] = rec[k];
        st[k].executions = rec[k];
    }
    pme_stacks_pool(&cfg, st, rec, 3);
    pme_stacks_pool_flow(&cfg, st, rec, taken, 3);
    const double a = (20 / 20.0 + 30 / 18.75) / (1 / 20.0 + 1 / 18.75);
    assert_float_equal(st[1].executions, a, 1e-9);
    assert_float_equal(st[1].cause[CAUSE_BASE], a, 1e-9);
    assert_float_equal(st[0].executions, 40, 1e-9);
    assert_float_equal(st[2].cause[CAUSE_BASE], 40, 1e-9);
    calc_proc_free(&cfg);
}

static void test_a_profile_without_pairs_or_interval_is_refused_with_the_fix(void **state)
{
    (void)state;
    struct pme_stack_params p;
    params(&p);
    struct pme_view v;
    struct pv_image img;
    synthetic_view(&v, &img, 1);
    struct pme_stack st[2];
    struct ap_err err;
    v.pair_interval = 0;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), -1);
    assert_non_null(strstr(err.msg, "--pair-interval"));
    v.pair_interval = 1000;
    v.nraw = 0;
    assert_int_equal(pme_stacks_estimate(&v, &p, st, &err), -1);
    assert_non_null(strstr(err.msg, "--paired"));
    free(v.insns);
    free(v.raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_wait_as_long_as_a_memory_miss_is_booked_to_dcache_mem),
        cmocka_unit_test(test_retiring_with_the_one_before_costs_only_its_share),
        cmocka_unit_test(test_a_barriers_execution_is_serialise_and_anothers_execute),
        cmocka_unit_test(test_a_share_is_the_mean_of_one_over_the_group_not_one_over_the_mean_group),
        cmocka_unit_test(test_a_record_that_says_its_retire_group_gets_one_over_its_size_whatever_the_links_say),
        cmocka_unit_test(test_a_pair_from_a_thinned_bank_stands_for_its_banks_offered_over_kept),
        cmocka_unit_test(test_a_short_flush_bubble_is_booked_once_at_the_branch_not_again_at_the_refetched),
        cmocka_unit_test(test_a_branchs_bubbles_are_the_mean_of_its_own_records_and_what_its_refetched_saw),
        cmocka_unit_test(test_the_noise_is_half_the_distance_between_the_even_and_the_odd_pairs),
        cmocka_unit_test(test_aggregates_say_how_many_records_each_instruction_had_when_pairs_were_dropped),
        cmocka_unit_test(test_a_blocks_instructions_share_their_records_executions),
        cmocka_unit_test(test_a_block_entered_from_one_side_of_a_branch_pools_the_branchs_executions_by_its_share),
        cmocka_unit_test(test_a_mispredicted_branch_owns_its_flush_bubble_and_its_target_does_not),
        cmocka_unit_test(test_a_map_held_back_after_an_early_fetch_is_queue_full),
        cmocka_unit_test(test_own_execution_is_dtb_for_a_dtb_missing_load_execute_for_a_multiply),
        cmocka_unit_test(test_a_trap_owns_penalty_plus_one_and_the_bad_path_nothing),
        cmocka_unit_test(test_a_loop_retiring_in_pairs_gives_each_instruction_half_a_cycle),
        cmocka_unit_test(test_a_synthetic_stream_gives_its_hand_computed_stacks),
        cmocka_unit_test(test_a_time_sampled_record_is_its_interval_of_cycles_split_by_its_own_causes),
        cmocka_unit_test(test_a_profile_without_pairs_or_interval_is_refused_with_the_fix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
