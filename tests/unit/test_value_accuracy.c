/* check --values's metrics (util/value-accuracy.h) on profiles and
 * oracles with known answers: the strict recall, the near-tie rule beside
 * it, and what a fair sampler would reach. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/value-accuracy.h"

#define NLOADS 4

/* One load's oracle truth: values and counts, descending. */
static void truth(struct oracle_value_pc *t, uint64_t pc, uint64_t loads, const uint64_t *values,
                  const uint64_t *counts, unsigned n)
{
    memset(t, 0, sizeof *t);
    t->pc = pc;
    t->loads = loads;
    t->distinct = n;
    for (unsigned k = 0; k < n; k++) {
        t->value[k] = values[k];
        t->count[k] = counts[k];
    }
}

struct fixture {
    struct oracle_value_pc pcs[NLOADS];
    struct value_oracle vo;
    struct vv_value values[NLOADS][2];
    struct vv_row rows[NLOADS];
    struct value_view v;
};

static void profile_row(struct fixture *f, unsigned i, uint64_t pc, uint64_t offered, uint64_t first, double s1,
                        uint64_t second, double s2)
{
    f->values[i][0] = (struct vv_value){.value = first, .share = s1, .estimate = s1 * (double)offered};
    f->values[i][1] = (struct vv_value){.value = second, .share = s2, .estimate = s2 * (double)offered};
    f->rows[i] = (struct vv_row){.offset = pc, .offered = offered, .nvalues = 2, .values = f->values[i]};
}

/* Four loads, each sampled 189 times:
 *   0x100  -1 on 50.3 %, 1 on 48.8 % (qsort's __divqu); the profile ranks 1 first: a near-tie
 *   0x104  7 on 90 %, 8 on 5 %; the profile ranks 8 first: a real miss
 *   0x108  3 on 60 %, 4 on 40 %; ranked right
 *   0x10c  5 on 30 %, 6 on 25 %; the profile ranks 9, a value outside the oracle's top, first */
static void build(struct fixture *f)
{
    memset(f, 0, sizeof *f);
    truth(&f->pcs[0], 0x100, 592300, (const uint64_t[]){~0ull, 1, 0}, (const uint64_t[]){297700, 289000, 5600}, 3);
    truth(&f->pcs[1], 0x104, 1000, (const uint64_t[]){7, 8, 9}, (const uint64_t[]){900, 50, 50}, 3);
    truth(&f->pcs[2], 0x108, 1000, (const uint64_t[]){3, 4}, (const uint64_t[]){600, 400}, 2);
    truth(&f->pcs[3], 0x10c, 1000, (const uint64_t[]){5, 6}, (const uint64_t[]){300, 250}, 2);
    f->vo.h.npcs = NLOADS;
    f->vo.pcs = f->pcs;
    profile_row(f, 0, 0x100, 189, 1, 0.52, ~0ull, 0.48);
    profile_row(f, 1, 0x104, 189, 8, 0.50, 7, 0.45);
    profile_row(f, 2, 0x108, 189, 3, 0.62, 4, 0.38);
    profile_row(f, 3, 0x10c, 189, 9, 0.40, 5, 0.30);
    f->v.rows = f->rows;
    f->v.nrows = NLOADS;
}

static const struct value_check_row *row_of(const struct value_accuracy *a, uint64_t pc)
{
    for (size_t i = 0; i < a->checked; i++)
        if (a->rows[i].row->offset == pc)
            return &a->rows[i];
    fail_msg("load %#llx not checked", (unsigned long long)pc);
    return NULL;
}

static void test_a_near_tie_counts_within_the_sampling_error_and_a_real_miss_does_not(void **state)
{
    (void)state;
    struct fixture f;
    build(&f);
    struct value_accuracy a;
    assert_int_equal(value_accuracy(&f.v, &f.vo, 30, &a), 0);
    assert_int_equal(a.checked, 4);
    assert_int_equal(a.hits, 1);                        /* strict: only 0x108 */
    assert_float_equal(a.recall, 0.25, 1e-12);
    const struct value_check_row *tie = row_of(&a, 0x100), *miss = row_of(&a, 0x104), *hit = row_of(&a, 0x108);
    const struct value_check_row *outside = row_of(&a, 0x10c);
    /* 1.5 points apart, 1.96 standard errors of the difference at 189 samples ~ 14 points */
    assert_false(tie->hit);
    assert_true(tie->within_error);
    assert_float_equal(tie->first_true_share, 289000.0 / 592300.0, 1e-12);
    assert_float_equal(tie->tie_margin, VALUE_TIE_Z * value_share_difference_se(297700.0 / 592300, 289000.0 / 592300, 189),
                       1e-12);
    assert_true(tie->tie_margin > 0.14 && tie->tie_margin < 0.15);
    /* 85 points apart: no sampling error at 189 samples explains that */
    assert_false(miss->hit);
    assert_false(miss->within_error);
    assert_true(hit->hit && hit->within_error);
    /* a first value the oracle does not rank is taken at share 0: 30 points from the top */
    assert_false(outside->within_error);
    assert_float_equal(outside->first_true_share, 0, 0);
    assert_int_equal(a.hits_within_error, 2);
    assert_int_equal(a.near_ties, 1);
    assert_float_equal(a.recall_within_error, 0.5, 1e-12);
    value_accuracy_free(&a);
}

static void test_the_fair_samplers_expected_recall_follows_the_gap_and_the_sample_count(void **state)
{
    (void)state;
    struct fixture f;
    build(&f);
    struct value_accuracy a;
    assert_int_equal(value_accuracy(&f.v, &f.vo, 30, &a), 0);
    /* a 1.5-point gap at 189 samples is near a coin flip (0.58 by simulation) */
    assert_true(row_of(&a, 0x100)->fair_hit > 0.55 && row_of(&a, 0x100)->fair_hit < 0.62);
    /* 90 % against 5 %: certain */
    assert_true(row_of(&a, 0x104)->fair_hit > 0.9999);
    double fair = 0;
    for (size_t i = 0; i < a.checked; i++)
        fair += a.rows[i].fair_hit;
    assert_float_equal(a.recall_expected, fair / 4, 1e-12);
    value_accuracy_free(&a);
    /* 64 times the samples: the near-tie is still a near-tie, but less of a coin flip */
    for (unsigned i = 0; i < NLOADS; i++)
        f.rows[i].offered *= 64;
    assert_int_equal(value_accuracy(&f.v, &f.vo, 30, &a), 0);
    assert_true(row_of(&a, 0x100)->fair_hit > 0.85);
    assert_true(row_of(&a, 0x100)->within_error);       /* tie margin ~1.8 points */
    value_accuracy_free(&a);
}

static void test_the_error_shrinks_with_samples_until_a_gap_is_decided(void **state)
{
    (void)state;
    /* se of the difference of 0.27 and 0.227 (qsort's partition loads) */
    double se100 = value_share_difference_se(0.27, 0.227, 100), se400 = value_share_difference_se(0.27, 0.227, 400);
    assert_float_equal(se100, 2 * se400, 1e-12);
    assert_float_equal(se100, 0.0703, 0.0005);
    assert_float_equal(value_share_difference_se(0.5, 0.5, 0), 0, 0);
    /* 40 samples: a value of 60 % and one of 40 % are a tie; 400: decided */
    struct fixture f;
    build(&f);
    f.rows[2].values[0].value = 4;                      /* rank 4 (40 %) above 3 (60 %) */
    f.rows[2].values[1].value = 3;
    f.rows[2].offered = 40;
    struct value_accuracy a;
    assert_int_equal(value_accuracy(&f.v, &f.vo, 30, &a), 0);
    assert_true(row_of(&a, 0x108)->within_error);
    value_accuracy_free(&a);
    f.rows[2].offered = 400;
    assert_int_equal(value_accuracy(&f.v, &f.vo, 30, &a), 0);
    assert_false(row_of(&a, 0x108)->within_error);
    value_accuracy_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_near_tie_counts_within_the_sampling_error_and_a_real_miss_does_not),
        cmocka_unit_test(test_the_fair_samplers_expected_recall_follows_the_gap_and_the_sample_count),
        cmocka_unit_test(test_the_error_shrinks_with_samples_until_a_gap_is_decided),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
