/*
 * The truth of the profiled interval (util/oracle-file: oracle_read_interval)
 * from hand-written oracle files: the stop snapshot minus the start one,
 * field by field, PCs first seen after the start kept whole; another
 * run's snapshots (another run id) are refused by name; a stop snapshot holding
 * less than the start, or a truncated one, is an error naming the file.
 * Reading one file: counts in the header that the file's size does not
 * bear out (2^28 PCs in a few bytes) are "damaged file", never "out of
 * memory"; a FIFO is refused at once, not waited on.  Summing runs
 * (oracle_add, check --calc over several runs): every counter of a PC
 * both have is added, a PC only one has is kept whole and in order, cores
 * are added field by field, and runs on other cores are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/oracle-file.h"

static char base[128];

static void write_oracle(const char *path, uint64_t run_id, uint32_t snapshot, const struct oracle_pc *pcs,
                         size_t npcs, uint64_t instructions)
{
    struct oracle_header h = {.magic = ORACLE_MAGIC, .version = ORACLE_VERSION, .ncores = 1, .npcs = npcs,
                              .nevents = PMU_EV_COUNT, .snapshot = snapshot, .run_id = run_id,
                              .ncauses = CAUSE_COUNT, .cycle_unit = CYCLE_UNIT};
    struct oracle_core core = {.instructions = instructions, .cycles = 2 * instructions,
                               .ring_unread = snapshot == ORACLE_SNAPSHOT_START ? 9 : 3};
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(&h, sizeof h, 1, f), 1);
    assert_int_equal(fwrite(&core, sizeof core, 1, f), 1);
    assert_int_equal(fwrite(pcs, sizeof *pcs, npcs, f), npcs);
    assert_int_equal(fclose(f), 0);
}

static void write_snapshot(unsigned n, uint64_t run_id, const struct oracle_pc *pcs, size_t npcs,
                           uint64_t instructions)
{
    char p[160];
    oracle_snapshot_path(base, n, p, sizeof p);
    write_oracle(p, run_id, n, pcs, npcs, instructions);
}

static int setup(void **state)
{
    (void)state;
    snprintf(base, sizeof base, "/tmp/alphaprof-oracle-interval-%d", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char p[160];
    unlink(base);
    for (unsigned n = ORACLE_SNAPSHOT_START; n <= ORACLE_SNAPSHOT_STOP; n++) {
        oracle_snapshot_path(base, n, p, sizeof p);
        unlink(p);
    }
    return 0;
}

static struct oracle_pc pc_entry(uint64_t pc, uint64_t executions)
{
    struct oracle_pc e = {.pc = pc, .executions = executions, .cycles = 3 * executions};
    e.events[PMU_EV_CYCLES] = 3 * executions;
    e.events[PMU_EV_RETIRED] = executions;
    e.pme_events[PME_EVB_RETIRED] = executions / 10;
    e.stack[CAUSE_BASE] = 2 * executions * CYCLE_UNIT + executions * CYCLE_UNIT / 4;
    e.stack[CAUSE_DCACHE_MEM] = executions * (CYCLE_UNIT - CYCLE_UNIT / 4);
    return e;
}

/* A run's three files (the whole run's id may differ from the snapshots'),
 * its whole-run oracle read back into *whole. */
struct run_files {
    uint64_t run_id, snapshot_run_id;
    const struct oracle_pc *start, *stop, *end;
    size_t nstart, nstop, nend;
};

static void write_run(const struct run_files *r, struct oracle *whole)
{
    write_oracle(base, r->run_id, 0, r->end, r->nend, 1000);
    write_snapshot(ORACLE_SNAPSHOT_START, r->snapshot_run_id, r->start, r->nstart, 100);
    write_snapshot(ORACLE_SNAPSHOT_STOP, r->snapshot_run_id, r->stop, r->nstop, 900);
    struct ap_err err;
    assert_int_equal(oracle_read(base, whole, &err), 0);
}

static void test_interval_is_stop_minus_start(void **state)
{
    (void)state;
    struct oracle_pc start[] = {pc_entry(0x1000, 5), pc_entry(0x2000, 40)};
    struct oracle_pc stop[] = {pc_entry(0x1000, 5), pc_entry(0x1800, 7), pc_entry(0x2000, 100)};
    struct oracle_pc end[] = {pc_entry(0x1000, 6), pc_entry(0x1800, 7), pc_entry(0x2000, 100)};
    struct oracle whole, in;
    write_run(&(struct run_files){42, 42, start, stop, end, 2, 3, 3}, &whole);
    struct ap_err err;
    assert_int_equal(oracle_read_interval(base, &whole, &in, &err), 1);
    assert_int_equal(in.h.npcs, 3);
    assert_int_equal(in.cores[0].instructions, 800);
    assert_int_equal(in.cores[0].cycles, 1600);
    assert_int_equal(in.cores[0].ring_unread, 0);      /* shrank: clamped */
    const struct oracle_pc *a = oracle_find(&in, 0x1000), *b = oracle_find(&in, 0x1800),
                           *c = oracle_find(&in, 0x2000);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_int_equal(a->executions, 0);
    assert_int_equal(b->executions, 7);                 /* first seen after the start: whole */
    assert_int_equal(c->executions, 60);
    assert_int_equal(c->cycles, 180);
    assert_int_equal(c->events[PMU_EV_RETIRED], 60);
    assert_int_equal(c->pme_events[PME_EVB_RETIRED], 6);
    assert_int_equal(c->stack[CAUSE_BASE], 60 * (2 * CYCLE_UNIT + CYCLE_UNIT / 4));     /* the stacks too */
    assert_int_equal(c->stack[CAUSE_DCACHE_MEM], 60 * (CYCLE_UNIT - CYCLE_UNIT / 4));
    assert_int_equal(c->pc, 0x2000);                    /* the key is not subtracted */
    oracle_free(&in);
    oracle_free(&whole);
}

static void test_another_runs_snapshots_are_refused_by_name(void **state)
{
    (void)state;
    struct oracle_pc pcs[] = {pc_entry(0x1000, 5)};
    struct oracle whole, in;
    write_run(&(struct run_files){43, 42, pcs, pcs, pcs, 1, 1, 1}, &whole);
    struct ap_err err;
    char p[160];
    oracle_snapshot_path(base, ORACLE_SNAPSHOT_START, p, sizeof p);
    assert_int_equal(oracle_read_interval(base, &whole, &in, &err), -1);
    assert_non_null(strstr(err.msg, p));
    assert_non_null(strstr(err.msg, "snapshot of another run"));
    oracle_snapshot_path(base, ORACLE_SNAPSHOT_STOP, p, sizeof p);
    unlink(p);
    assert_int_equal(oracle_read_interval(base, &whole, &in, &err), 0);    /* no stop: none */
    oracle_free(&whole);
}

static void test_damaged_snapshots_are_named(void **state)
{
    (void)state;
    struct oracle_pc start[] = {pc_entry(0x1000, 50)};
    struct oracle_pc stop[] = {pc_entry(0x1000, 20)};
    struct oracle whole, in;
    write_run(&(struct run_files){42, 42, start, stop, stop, 1, 1, 1}, &whole);
    struct ap_err err;
    assert_int_equal(oracle_read_interval(base, &whole, &in, &err), -1);
    assert_non_null(strstr(err.msg, "holds less than"));

    /* the stop snapshot cut short */
    char p[160];
    oracle_snapshot_path(base, ORACLE_SNAPSHOT_STOP, p, sizeof p);
    assert_int_equal(truncate(p, sizeof(struct oracle_header) + 8), 0);
    assert_int_equal(oracle_read_interval(base, &whole, &in, &err), -1);
    assert_non_null(strstr(err.msg, p));
    assert_non_null(strstr(err.msg, "truncated"));

    /* snapshots in the wrong files */
    write_snapshot(ORACLE_SNAPSHOT_STOP, 42, start, 1, 900);
    oracle_snapshot_path(base, ORACLE_SNAPSHOT_START, p, sizeof p);
    write_oracle(p, 42, ORACLE_SNAPSHOT_STOP, start, 1, 100);
    assert_int_equal(oracle_read_interval(base, &whole, &in, &err), -1);
    assert_non_null(strstr(err.msg, "not the start and stop snapshots"));
    oracle_free(&whole);
}

/* A two-PC oracle at base whose header field at offset then says value. */
static void write_with_header_field(size_t offset, const void *value, size_t size)
{
    struct oracle_pc pcs[] = {pc_entry(0x1000, 5), pc_entry(0x1004, 6)};
    write_oracle(base, 7, 0, pcs, 2, 11);
    FILE *f = fopen(base, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)offset, SEEK_SET), 0);
    assert_int_equal(fwrite(value, size, 1, f), 1);
    assert_int_equal(fclose(f), 0);
}

static void test_a_header_claiming_2_28_pcs_is_a_damaged_file(void **state)
{
    (void)state;
    uint64_t npcs = 1ull << 28;
    write_with_header_field(offsetof(struct oracle_header, npcs), &npcs, sizeof npcs);
    struct oracle o;
    struct ap_err err;
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, base));
    assert_non_null(strstr(err.msg, "damaged file"));
    assert_non_null(strstr(err.msg, "268435456 PCs"));
    assert_null(strstr(err.msg, "memory"));
}

static void test_a_file_longer_than_its_header_says_is_damaged(void **state)
{
    (void)state;
    uint64_t npcs = 1;
    write_with_header_field(offsetof(struct oracle_header, npcs), &npcs, sizeof npcs);
    struct oracle o;
    struct ap_err err;
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, "damaged file (wrong size)"));

    /* and one whose cores count is out of every board's range */
    uint32_t ncores = 100000;
    write_with_header_field(offsetof(struct oracle_header, ncores), &ncores, sizeof ncores);
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, "damaged file"));
    assert_non_null(strstr(err.msg, "100000 cores"));

    /* the real thing reads */
    struct oracle_pc pcs[] = {pc_entry(0x1000, 5), pc_entry(0x1004, 6)};
    write_oracle(base, 7, 0, pcs, 2, 11);
    assert_int_equal(oracle_read(base, &o, &err), 0);
    assert_int_equal(o.h.npcs, 2);
    oracle_free(&o);
}

static void test_a_fifo_as_oracle_is_refused_at_once(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(base, 0600), 0);    /* nobody writes to it: open() would block */
    struct oracle o;
    struct ap_err err;
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, base));
    assert_non_null(strstr(err.msg, "is a FIFO, not a regular file"));
}

/* An oracle of an earlier format (3: no cycle stacks) or with another
 * cause list is refused with one line saying what to do. */
static void test_an_older_oracle_format_is_refused_clearly(void **state)
{
    (void)state;
    uint32_t version = 3, ncauses = CAUSE_COUNT + 1;
    write_with_header_field(offsetof(struct oracle_header, version), &version, sizeof version);
    struct oracle o;
    struct ap_err err;
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, "version 3"));
    assert_non_null(strstr(err.msg, "rerun the record with this build"));
    write_with_header_field(offsetof(struct oracle_header, ncauses), &ncauses, sizeof ncauses);
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, "cycle causes"));
    assert_non_null(strstr(err.msg, "rerun the record with this build"));
}

/* Two runs' truths in memory: a = {0x10: 5, 0x30: 7}, b = {0x20: 2, 0x30: 1, 0x40: 4}. */
static void test_adding_runs_sums_shared_pcs_and_keeps_the_others_in_order(void **state)
{
    (void)state;
    struct oracle a = {.h = {.ncores = 1, .npcs = 2}}, b = {.h = {.ncores = 1, .npcs = 3}};
    a.cores = calloc(1, sizeof *a.cores);
    b.cores = calloc(1, sizeof *b.cores);
    a.cores[0].cycles = 100;
    a.cores[0].stack[CAUSE_BASE] = 7;
    b.cores[0].cycles = 40;
    b.cores[0].stack[CAUSE_BASE] = 3;
    a.pcs = calloc(2, sizeof *a.pcs);
    b.pcs = calloc(3, sizeof *b.pcs);
    a.pcs[0] = pc_entry(0x10, 5);
    a.pcs[1] = pc_entry(0x30, 7);
    b.pcs[0] = pc_entry(0x20, 2);
    b.pcs[1] = pc_entry(0x30, 1);
    b.pcs[2] = pc_entry(0x40, 4);
    a.pcs[1].taken = 6;
    b.pcs[1].taken = 1;
    struct ap_err err;
    assert_int_equal(oracle_add(&a, &b, &err), 0);
    assert_int_equal(a.h.npcs, 4);
    const uint64_t pcs[] = {0x10, 0x20, 0x30, 0x40}, executions[] = {5, 2, 8, 4};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(a.pcs[i].pc, pcs[i]);
        assert_int_equal(a.pcs[i].executions, executions[i]);
        assert_int_equal(a.pcs[i].cycles, 3 * executions[i]);
        assert_int_equal(a.pcs[i].stack[CAUSE_DCACHE_MEM], executions[i] * (CYCLE_UNIT - CYCLE_UNIT / 4));
    }
    assert_int_equal(a.pcs[2].taken, 7);
    assert_non_null(oracle_find(&a, 0x20));
    assert_int_equal(a.cores[0].cycles, 140);
    assert_int_equal(a.cores[0].stack[CAUSE_BASE], 10);

    struct oracle two = {.h = {.ncores = 2}};
    two.cores = calloc(2, sizeof *two.cores);
    assert_int_equal(oracle_add(&a, &two, &err), -1);
    assert_non_null(strstr(err.msg, "1 and 2 cores"));
    assert_int_equal(a.cores[0].cycles, 140);       /* refused: nothing added */
    oracle_free(&two);
    oracle_free(&a);
    oracle_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_interval_is_stop_minus_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_another_runs_snapshots_are_refused_by_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_snapshots_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_header_claiming_2_28_pcs_is_a_damaged_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_file_longer_than_its_header_says_is_damaged, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_fifo_as_oracle_is_refused_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_older_oracle_format_is_refused_clearly, setup, teardown),
        cmocka_unit_test(test_adding_runs_sums_shared_pcs_and_keeps_the_others_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
