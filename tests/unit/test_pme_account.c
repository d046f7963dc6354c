/*
 * ProfileMe accounting (util/pme-account, `check --oracle`) on a synthetic
 * database written with the database's own API and a hand-made oracle:
 * records stored + dropped (aggregate table full, link full, lost on the
 * link) + lost in full rings + unread balance the records the model
 * produced, and one record more or less does not; pairs taken balance
 * pairs stored whole (two records each) + dropped; epochs are selected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/pme-account.h"

static char path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/alphaprof-pmeaccount-%d.db", (int)getpid());
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

static void add_agg(struct pdb *db, int64_t epoch, int32_t core, uint64_t offset, uint64_t samples)
{
    struct lk_pme_agg a;
    memset(&a, 0, sizeof a);
    a.samples = samples;
    a.retired = samples;
    a.bits[PME_EVB_RETIRED] = samples;
    pdb_add_pme(db, epoch, PDB_IMAGE_UNKNOWN, core, offset, &a, PME_EVB_COUNT, PME_LAT_COUNT);
}

static void add_pair(struct pdb *db, int64_t epoch, int32_t core)
{
    struct lk_pair p;
    memset(&p, 0, sizeof p);
    p.distance = 3;
    p.gap = 2;
    p.rec[0].pc = 0x1000;
    p.rec[1].pc = 0x1008;
    struct pdb_pair_record where[2] = {{PDB_IMAGE_UNKNOWN, 0x1000, &p.rec[0]},
                                       {PDB_IMAGE_UNKNOWN, 0x1008, &p.rec[1]}};
    pdb_add_pair(db, epoch, 1, core, &p, PME_LAT_COUNT, where, 1);
}

/* An oracle of two cores: produced, ring-dropped and unread records. */
static void make_oracle(struct oracle *o, struct oracle_core cores[2], uint64_t produced0,
                        uint64_t produced1, uint64_t dropped1, uint64_t unread0)
{
    memset(o, 0, sizeof *o);
    memset(cores, 0, 2 * sizeof cores[0]);
    o->h.magic = ORACLE_MAGIC;
    o->h.version = ORACLE_VERSION;
    o->h.ncores = 2;
    o->cores = cores;
    cores[0].pme_samples = produced0;
    cores[0].pme_unread = unread0;
    cores[1].pme_samples = produced1;
    cores[1].pme_dropped = dropped1;
}

/* 120 records produced: 100 stored (two cores, two PCs), 5 agg_full, 4
 * link_full, 3 link_lost_pme, 6 lost in core 1's full ring, 2 unread;
 * 10 pairs taken: 7 stored, 2 pair_full, 1 lost on the link. */
static struct pdb *balanced_db(void)
{
    struct pdb *db = create();
    struct ap_err err;
    add_agg(db, 1, 0, 0x1000, 60);
    add_agg(db, 1, 0, 0x1008, 20);
    add_agg(db, 1, 1, 0x1000, 20);
    pdb_add_drop(db, 1, 0, "agg_full", 5);
    pdb_add_drop(db, 1, 1, "link_full", 4);
    pdb_add_drop(db, 1, 0, "link_lost_pme", 3);
    pdb_add_drop(db, 1, 1, "ring_overflow", 6);
    pdb_add_stat(db, 1, 0, "pairs_taken", 6);
    pdb_add_stat(db, 1, 1, "pairs_taken", 4);
    for (int i = 0; i < 7; i++)
        add_pair(db, 1, i & 1);
    pdb_add_drop(db, 1, 0, "pair_full", 2);
    pdb_add_drop(db, 1, 1, "link_lost_pairs", 1);
    assert_int_equal(pdb_commit(db, &err), 0);
    return db;
}

static void test_every_record_accounted(void **state)
{
    (void)state;
    struct pdb *db = balanced_db();
    struct oracle o;
    struct oracle_core cores[2];
    struct pme_account a;
    struct ap_err err;
    make_oracle(&o, cores, 70, 50, 6, 2);
    assert_int_equal(pme_account(db, 0, &o, &a, &err), 1);
    assert_int_equal(a.produced, 120);
    assert_int_equal(a.stored, 100);
    assert_int_equal(a.agg_full, 5);
    assert_int_equal(a.link_full, 4);
    assert_int_equal(a.link_lost, 3);
    assert_int_equal(a.ring_dropped, 6);
    assert_int_equal(a.ring_overflow, 6);
    assert_int_equal(a.unread, 2);
    assert_true(a.balanced);
    assert_int_equal(a.pairs_taken, 10);
    assert_int_equal(a.pairs, 7);
    assert_int_equal(a.pair_records, 14);
    assert_int_equal(a.pair_full, 2);
    assert_int_equal(a.pairs_link_lost, 1);
    assert_true(a.pairs_balanced);
    /* the text and JSON say so */
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    pme_account_json(f, &a);
    fclose(f);
    assert_non_null(strstr(text, "\"balanced\": true"));
    assert_non_null(strstr(text, "\"pairs_balanced\": true"));
    free(text);
    pdb_close(db);
}

static void test_one_record_off_is_caught(void **state)
{
    (void)state;
    struct pdb *db = balanced_db();
    struct oracle o;
    struct oracle_core cores[2];
    struct pme_account a;
    struct ap_err err;
    make_oracle(&o, cores, 71, 50, 6, 2);      /* one produced record nowhere */
    assert_int_equal(pme_account(db, 0, &o, &a, &err), 1);
    assert_false(a.balanced);
    make_oracle(&o, cores, 70, 50, 6, 1);      /* one record too many stored */
    assert_int_equal(pme_account(db, 0, &o, &a, &err), 1);
    assert_false(a.balanced);
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    pme_account_print(f, &a);
    fclose(f);
    assert_non_null(strstr(text, "NOT all accounted for"));
    free(text);
    /* a pair stored without its second record */
    sqlite3 *s;
    assert_int_equal(sqlite3_open(path, &s), SQLITE_OK);
    assert_int_equal(sqlite3_exec(s, "DELETE FROM pair_records WHERE pair = 1 AND slot = 1", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(s);
    make_oracle(&o, cores, 70, 50, 6, 2);
    assert_int_equal(pme_account(db, 0, &o, &a, &err), 1);
    assert_true(a.balanced);
    assert_int_equal(a.pair_records, 13);
    assert_false(a.pairs_balanced);
    pdb_close(db);
}

static void test_epochs_and_no_profileme(void **state)
{
    (void)state;
    struct pdb *db = create();
    struct oracle o;
    struct oracle_core cores[2];
    struct pme_account a;
    struct ap_err err;
    make_oracle(&o, cores, 0, 0, 0, 0);
    assert_int_equal(pme_account(db, 0, &o, &a, &err), 0);     /* nothing of ProfileMe */
    add_agg(db, 1, 0, 0x1000, 30);
    assert_int_equal(pdb_commit(db, &err), 0);
    int64_t e2;
    assert_int_equal(pdb_new_epoch(db, "second", &e2, &err), 0);
    add_agg(db, e2, 0, 0x1000, 12);
    pdb_add_drop(db, e2, 0, "agg_full", 3);
    assert_int_equal(pdb_commit(db, &err), 0);
    make_oracle(&o, cores, 45, 0, 0, 0);
    assert_int_equal(pme_account(db, 0, &o, &a, &err), 1);     /* the current one: epoch 2 */
    assert_int_equal(a.stored, 12);
    assert_false(a.balanced);
    assert_int_equal(pme_account(db, 1, &o, &a, &err), 1);
    assert_int_equal(a.stored, 30);
    assert_int_equal(a.agg_full, 0);
    assert_int_equal(pme_account(db, -1, &o, &a, &err), 1);    /* all: the whole run */
    assert_int_equal(a.stored, 42);
    assert_int_equal(a.agg_full, 3);
    assert_true(a.balanced);
    pdb_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_every_record_accounted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_record_off_is_caught, setup, teardown),
        cmocka_unit_test_setup_teardown(test_epochs_and_no_profileme, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
