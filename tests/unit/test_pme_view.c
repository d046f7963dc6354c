/*
 * The ProfileMe view (util/pme-view) on a synthetic database written with
 * the database's own API, and the accuracy against an oracle
 * (util/pme-accuracy) on a hand-made view and oracle, every answer worked
 * out by hand: aggregates summed over cores, core and epoch selection,
 * intervals from the periods rows scaled for losses, paired samples
 * analysed into each instruction's sums, the pair window estimated from the
 * gaps, damaged tables refused; the envelope fractions, totals and latency
 * errors of check --oracle.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/pme-accuracy.h"
#include "util/pme-view.h"

static char path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/alphaprof-pmeview-%d.db", (int)getpid());
    unlink(path);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[160];
    unlink(path);
    snprintf(p, sizeof p, "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof p, "%s-shm", path);
    unlink(p);
    return 0;
}

static struct pdb *create(void)
{
    struct pdb *db;
    struct ap_err err;
    assert_int_equal(pdb_open(path, PDB_CREATE, &db, &err), 0);
    return db;
}

static void commit(struct pdb *db)
{
    struct ap_err err;
    assert_int_equal(pdb_commit(db, &err), 0);
}

static struct lk_pme_agg agg(uint64_t samples, uint64_t retired, uint64_t dmiss)
{
    struct lk_pme_agg a;
    memset(&a, 0, sizeof a);
    a.samples = samples;
    a.retired = retired;
    a.aborted = samples - retired;
    a.bits[PME_EVB_RETIRED] = retired;
    a.bits[PME_EVB_DMISS] = dmiss;
    for (int f = 0; f < PME_LAT_COUNT; f++)
        a.lat[f] = samples * (uint64_t)(f + 1);
    return a;
}

static void test_view_aggregates_and_intervals(void **state)
{
    (void)state;
    struct pdb *db = create();
    struct lk_pme_agg a = agg(60, 50, 30), b = agg(40, 40, 10), c = agg(100, 100, 0);
    /* image 0: offsets are absolute PCs */
    pdb_add_pme(db, 1, 0, 0, 0x1000, &a, PME_EVB_COUNT, PME_LAT_COUNT);
    pdb_add_pme(db, 1, 0, 1, 0x1000, &b, PME_EVB_COUNT, PME_LAT_COUNT);
    pdb_add_pme(db, 1, 0, 0, 0x2000, &c, PME_EVB_COUNT, PME_LAT_COUNT);
    pdb_set_period(db, 1, PDB_PERIOD_PME, -1, 500);
    pdb_add_drop(db, 1, 0, "agg_full", 50);
    pdb_add_samples(db, 1, 0, 0, 0, 0x1000, 1);   /* a counter sampled: ring_overflow is not ProfileMe's */
    pdb_add_drop(db, 1, 0, "ring_overflow", 999);
    commit(db);

    struct pv_selection sel = {.epoch = 0, .core = -1, .image = NULL};
    struct pme_view v;
    struct ap_err err;
    assert_int_equal(pme_view_load(db, &sel, 30, &v, &err), 0);
    assert_int_equal(v.epoch, 1);
    assert_int_equal(v.ninsns, 2);
    assert_int_equal(v.samples, 200);
    assert_int_equal(v.retired, 190);
    assert_int_equal(v.aborted, 10);
    const struct pme_insn *in = &v.insns[0];
    assert_int_equal(pme_insn_pc(in), 0x1000);
    assert_int_equal(in->samples, 100);
    assert_int_equal(in->retired, 90);
    assert_int_equal(in->bits[PME_EVB_DMISS], 40);
    assert_int_equal(in->lat[PME_LAT_MAP_DATA], 200);   /* 2 per sample */
    assert_int_equal(pme_insn_pc(&v.insns[1]), 0x2000);
    assert_ptr_equal(pme_view_find(&v, in->img, 0x2000), &v.insns[1]);
    assert_null(pme_view_find(&v, in->img, 0x3000));
    /* 50 of 250 records lost in full aggregate tables: S grows by 250/200 */
    assert_float_equal(v.nominal_interval, 500, 0);
    assert_float_equal(v.record_loss_factor, 1.25, 1e-12);
    assert_float_equal(v.interval, 625, 1e-9);
    assert_int_equal(pme_bit_index(&v, "dmiss"), PME_EVB_DMISS);
    assert_string_equal(v.lat_names[PME_LAT_ISSUE_RETREADY], "issue-retready");
    assert_int_equal(v.npairs, 0);
    assert_float_equal(v.window, 0, 0);
    pme_view_free(&v);

    sel.core = 1;       /* core 1: its own samples, no drops there */
    assert_int_equal(pme_view_load(db, &sel, 30, &v, &err), 0);
    assert_int_equal(v.ninsns, 1);
    assert_int_equal(v.insns[0].samples, 40);
    assert_float_equal(v.record_loss_factor, 1, 0);
    pme_view_free(&v);

    sel.core = -1;
    sel.epoch = 2;      /* no such epoch: empty */
    assert_int_equal(pme_view_load(db, &sel, 30, &v, &err), 0);
    assert_int_equal(v.ninsns, 0);
    pme_view_free(&v);
    pdb_close(db);
}

static void pair_rec(struct lk_pme_record *r, uint64_t pc, const uint64_t *lat, bool retired)
{
    memset(r, 0, sizeof *r);
    r->pc = pc;
    r->events = retired ? 1u << PME_EVB_RETIRED : 0;
    for (int f = 0; f < PME_LAT_COUNT; f++)
        r->lat[f] = lat[f];
}

static void test_view_pairs(void **state)
{
    (void)state;
    struct pdb *db = create();
    /* A: I1 at 0x1000 fetched at 0 (issue 2, retready 10, retire 12); I2
     * at 0x2000 fetched at 3 (issue 4, retready 8, retire 12).  I2 issues
     * while I1 is in progress: useful for 0x1000 (forward); I1 issued at 2,
     * before I2's fetch: not useful for 0x2000. */
    const uint64_t l1[PME_LAT_COUNT] = {1, 1, 0, 8, 2, 0}, l2[PME_LAT_COUNT] = {1, 0, 0, 4, 4, 0};
    struct lk_pair p;
    memset(&p, 0, sizeof p);
    p.distance = 3;
    p.gap = 5;
    pair_rec(&p.rec[0], 0x1000, l1, true);
    pair_rec(&p.rec[1], 0x2000, l2, true);
    struct pdb_pair_record w[2] = {{0, 0x1000, &p.rec[0]}, {0, 0x2000, &p.rec[1]}};
    pdb_add_pair(db, 1, 0, 0, &p, PME_LAT_COUNT, w, 1);
    /* B: 0x2000 first (issue 1, retready 5, retire 9); 0x1000 fetched 1
     * later (issue 3, retready 11) and aborted.  0x2000 issued at 1, the
     * cycle 0x1000 was fetched, and retired: useful (backward) for 0x1000;
     * the aborted 0x1000 is never useful for 0x2000, and neither is near
     * (0x1000 did not retire). */
    const uint64_t l3[PME_LAT_COUNT] = {1, 0, 0, 4, 4, 0};
    memset(&p, 0, sizeof p);
    p.distance = 1;
    p.gap = 10;
    pair_rec(&p.rec[0], 0x2000, l3, true);
    pair_rec(&p.rec[1], 0x1000, l1, false);
    struct pdb_pair_record w2[2] = {{0, 0x2000, &p.rec[0]}, {0, 0x1000, &p.rec[1]}};
    pdb_add_pair(db, 1, 0, 0, &p, PME_LAT_COUNT, w2, 1);
    pdb_set_period(db, 1, PDB_PERIOD_PME_PAIR, -1, 1000);
    pdb_add_stat(db, 1, 0, "pairs_taken", 4);       /* 2 of 4 pairs stored */
    commit(db);

    struct pv_selection sel = {.epoch = 0, .core = -1, .image = NULL};
    struct pme_view v;
    struct ap_err err;
    assert_int_equal(pme_view_load(db, &sel, 30, &v, &err), 0);
    assert_int_equal(v.npairs, 2);
    assert_int_equal(v.max_gap, 10);
    assert_true(v.window_estimated);
    assert_float_equal(v.window, 14, 1e-12);        /* 10 + 10/2 - 1 */
    assert_float_equal(v.pair_loss_factor, 2, 1e-12);
    assert_float_equal(v.pair_interval, 2000, 1e-9);
    assert_int_equal(v.ninsns, 2);
    const struct pme_pair_acc *a = &v.insns[0].pair, *b = &v.insns[1].pair;  /* 0x1000, 0x2000 */
    assert_int_equal(a->pairs, 2);
    assert_int_equal(a->useful_fwd, 1);
    assert_int_equal(a->useful_bwd, 1);
    assert_int_equal(a->retired, 1);
    assert_int_equal(a->near, 1);                  /* pair A: retire 12 and 12 */
    assert_float_equal(a->latency, 20, 0);          /* 10 + 10 */
    assert_int_equal(b->pairs, 2);
    assert_int_equal(b->useful_fwd, 0);             /* B: its partner aborted */
    assert_int_equal(b->useful_bwd, 0);             /* A: I1 issued before its fetch */
    assert_int_equal(b->retired, 2);
    assert_int_equal(b->near, 1);
    assert_float_equal(b->latency, 5 + 5, 0);
    assert_int_equal(v.insns[0].samples, 0);        /* pairs alone make no aggregates */
    pme_view_free(&v);
    /* The window recorded wins over the gaps. */
    pdb_set_period(db, 1, PDB_PERIOD_PME_WINDOW, -1, 80);
    commit(db);
    assert_int_equal(pme_view_load(db, &sel, 30, &v, &err), 0);
    assert_false(v.window_estimated);
    assert_float_equal(v.window, 80, 0);
    pme_view_free(&v);
    pdb_close(db);
}

static void expect_load_error(struct pdb *db, const char *sql, const char *needle)
{
    char *msg = NULL;
    assert_int_equal(sqlite3_exec((sqlite3 *)pdb_sqlite(db), sql, NULL, NULL, &msg), SQLITE_OK);
    struct pv_selection sel = {.epoch = 0, .core = -1, .image = NULL};
    struct pme_view v;
    struct ap_err err;
    assert_int_equal(pme_view_load(db, &sel, 30, &v, &err), -1);
    if (!strstr(err.msg, needle))
        fail_msg("error '%s' lacks '%s'", err.msg, needle);
}

static void test_view_refuses_damage(void **state)
{
    (void)state;
    struct pdb *db = create();
    expect_load_error(db, "INSERT INTO pairs(id, epoch, session, core, distance, gap) VALUES (7, 1, 0, 0, 3, 1);"
                          "INSERT INTO pair_records VALUES (7, 0, 0, 4096, 1, 0, 0, '[1,x]');"
                          "INSERT INTO pair_records VALUES (7, 1, 0, 4100, 1, 0, 0, '[1]');",
                      "damaged");
    expect_load_error(db, "DELETE FROM pair_records; DELETE FROM pairs;"
                          "INSERT INTO pme VALUES (1, 0, 0, 4096, 5, 4, 4)", "damaged");
    expect_load_error(db, "DELETE FROM pme; INSERT INTO names VALUES ('pme_latency', 0, 'decode-map')",
                      "different hardware model");
    pdb_close(db);
}

/* A view of one image at 0x10000 with three instructions at offsets 0, 4
 * and 8 sampled k[i] times, all retired, with every bit name of this build
 * and the ProfileMe interval S. */
static void hand_made_view(struct pme_view *v, struct pv_image *img, struct pme_insn in[3],
                           const uint64_t k[3], double S)
{
    static const char *const bits[] = {PME_EVENT_BIT_NAMES};
    memset(img, 0, sizeof *img);
    img->id = 1;
    img->address = 0x10000;
    memset(in, 0, 3 * sizeof *in);
    for (int i = 0; i < 3; i++) {
        in[i].img = img;
        in[i].offset = 4 * (uint64_t)i;
        in[i].samples = k[i];
        in[i].retired = k[i];
        in[i].bits[PME_EVB_RETIRED] = k[i];
    }
    memset(v, 0, sizeof *v);
    v->images = img;
    v->nimages = 1;
    v->insns = in;
    v->ninsns = 3;
    v->nbits = PME_EVB_COUNT;
    v->nlat = PME_LAT_COUNT;
    for (int b = 0; b < PME_EVB_COUNT; b++)
        snprintf(v->bit_names[b], sizeof v->bit_names[b], "%s", bits[b]);
    v->interval = S;
}

/* A hand-made view and oracle: answers by hand in the comments. */
static void test_accuracy_against_an_oracle(void **state)
{
    (void)state;
    struct pv_image img;
    struct pme_insn in[3];
    struct pme_view v;
    const uint64_t k[3] = {100, 25, 4};
    hand_made_view(&v, &img, in, k, 10);
    in[0].bits[PME_EVB_DMISS] = 50;
    in[0].lat[PME_LAT_ISSUE_RETREADY] = 300;       /* mean 3 */
    in[1].lat[PME_LAT_ISSUE_RETREADY] = 50;        /* mean 2 */
    in[2].lat[PME_LAT_ISSUE_RETREADY] = 400;       /* 4 samples: too few for latencies */

    struct oracle_pc pcs[4];
    memset(pcs, 0, sizeof pcs);
    const uint64_t exec[4] = {1050, 400, 30, 20};
    for (int i = 0; i < 4; i++) {
        pcs[i].pc = 0x10000 + 4 * (uint64_t)i;
        pcs[i].executions = exec[i];
        pcs[i].pme_events[PME_EVB_RETIRED] = exec[i];
    }
    pcs[0].pme_events[PME_EVB_DMISS] = 480;
    pcs[0].lat_sum[PME_LAT_ISSUE_RETREADY] = 4200;  /* mean 4 */
    pcs[1].lat_sum[PME_LAT_ISSUE_RETREADY] = 800;   /* mean 2 */
    struct oracle_core core;
    memset(&core, 0, sizeof core);
    core.fetched = 5000;
    core.pme_samples = 250;
    struct oracle o = {.h = {.ncores = 1, .npcs = 4}, .cores = &core, .pcs = pcs};

    struct pme_accuracy a;
    struct ap_err err;
    assert_int_equal(pme_accuracy(&v, &o, &a, &err), 0);
    assert_float_equal(a.interval, 10, 0);
    assert_false(a.interval_from_oracle);
    assert_float_equal(a.oracle_interval, 20, 1e-12);
    /* 1000 vs 1050: 4.8 % <= 10 %, in; 250 vs 400: 37.5 % > 20 %, out;
     * 40 vs 30: 33 % <= 50 %, in. */
    assert_int_equal(a.retired.sampled, 3);
    assert_int_equal(a.retired.within, 2);
    assert_int_equal(a.retired.sampled_k10, 2);
    assert_int_equal(a.retired.within_k10, 1);
    /* 95 % intervals (score, times S): k=100 -> 822..1216 holds 1050;
     * k=25 -> 169..370 misses 400; k=4 -> 16..103 holds 30. */
    assert_int_equal(a.retired.covered, 2);
    assert_int_equal(a.retired.covered_k10, 1);
    assert_float_equal(a.retired.estimate_total, 1290, 1e-9);
    assert_float_equal(a.retired.true_sampled, 1480, 1e-9);
    assert_float_equal(a.retired.true_total, 1500, 1e-9);
    /* the whole run: every sample's kS (1290) against every PC (1500) */
    assert_float_equal(a.retired.estimate_all, 1290, 1e-9);
    assert_true(fabs(a.retired.total_error - (1290.0 / 1500 - 1)) < 1e-12);
    double wre = (100 * (50.0 / 1050) + 25 * 0.375 + 4 * (10.0 / 30)) / 129;
    assert_float_equal(a.retired.weighted_rel_error, wre, 1e-12);
    assert_int_equal(a.oracle_pcs_missed, 1);
    assert_float_equal(a.missed_executions, 20.0 / 1500, 1e-12);
    /* dmiss: 500 vs 480, 4.2 % <= 1/sqrt(50) */
    assert_int_equal(a.bits[PME_EVB_DMISS].sampled, 1);
    assert_int_equal(a.bits[PME_EVB_DMISS].within, 1);
    /* latency: |3-4| weight 100, |2-2| weight 25; the 4-sample PC left out */
    assert_int_equal(a.lat[PME_LAT_ISSUE_RETREADY].instructions, 2);
    assert_float_equal(a.lat[PME_LAT_ISSUE_RETREADY].mean_abs_error, 100.0 / 125, 1e-12);
    assert_float_equal(a.lat[PME_LAT_ISSUE_RETREADY].mean_true, (100 * 4.0 + 25 * 2.0) / 125, 1e-12);

    /* Without the database's interval the oracle's is used. */
    v.interval = 0;
    assert_int_equal(pme_accuracy(&v, &o, &a, &err), 0);
    assert_true(a.interval_from_oracle);
    assert_float_equal(a.interval, 20, 1e-12);
    core.pme_samples = 0;
    assert_int_equal(pme_accuracy(&v, &o, &a, &err), -1);
    assert_non_null(strstr(err.msg, "interval"));
}

/* The "total" of check's ProfileMe table is the whole run's: one hot
 * instruction and ten cold ones run once each, two of which a sample
 * happened to hit.  Over the sampled PCs alone the estimate is 1020 against
 * 1002 (+1.8 %) and would be further off the rarer the PCs; over the run it
 * is 1020 against 1010 (+1.0 %), samples the oracle cannot place included. */
static void test_total_is_the_whole_runs_not_the_sampled_pcs(void **state)
{
    (void)state;
    struct pv_image img;
    struct pme_insn in[3];
    struct pme_view v;
    const uint64_t k[3] = {100, 1, 1};
    hand_made_view(&v, &img, in, k, 10);
    struct oracle_pc pcs[11];
    memset(pcs, 0, sizeof pcs);
    for (int i = 0; i < 11; i++) {
        pcs[i].pc = 0x10000 + 4 * (uint64_t)i;
        pcs[i].executions = i == 0 ? 1000 : 1;
    }
    struct oracle_core core;
    memset(&core, 0, sizeof core);
    struct oracle o = {.h = {.ncores = 1, .npcs = 11}, .cores = &core, .pcs = pcs};
    struct pme_accuracy a;
    struct ap_err err;
    assert_int_equal(pme_accuracy(&v, &o, &a, &err), 0);
    assert_float_equal(a.retired.estimate_total, 1020, 1e-9);
    assert_float_equal(a.retired.true_sampled, 1002, 1e-9);
    assert_float_equal(a.retired.estimate_all, 1020, 1e-9);
    assert_float_equal(a.retired.true_total, 1010, 1e-9);
    assert_true(fabs(a.retired.total_error - (1020.0 / 1010 - 1)) < 1e-12);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pme_accuracy_print(f, &a);
    fclose(f);
    assert_non_null(strstr(text, "+0.99%"));        /* the whole run's, not +1.80% */
    assert_null(strstr(text, "+1.80%"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_view_aggregates_and_intervals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_view_pairs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_view_refuses_damage, setup, teardown),
        cmocka_unit_test(test_accuracy_against_an_oracle),
        cmocka_unit_test(test_total_is_the_whole_runs_not_the_sampled_pcs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
