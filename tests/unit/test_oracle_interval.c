/*
 * The truth of the profiled interval (util/oracle-file: oracle_read_interval)
 * from hand-written oracle files: the stop snapshot minus the start one,
 * field by field, PCs first seen after the start kept whole; an earlier
 * run's snapshots (another run id) are not used; a stop snapshot holding
 * less than the start, or a truncated one, is an error naming the file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void test_an_earlier_runs_snapshots_are_not_used(void **state)
{
    (void)state;
    struct oracle_pc pcs[] = {pc_entry(0x1000, 5)};
    struct oracle whole, in;
    write_run(&(struct run_files){43, 42, pcs, pcs, pcs, 1, 1, 1}, &whole);
    struct ap_err err;
    assert_int_equal(oracle_read_interval(base, &whole, &in, &err), 0);
    char p[160];
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

/* An oracle of an earlier format (3: no cycle stacks) or with another
 * cause list is refused with one line saying what to do. */
static void test_an_older_oracle_format_is_refused_clearly(void **state)
{
    (void)state;
    struct oracle_pc pcs[] = {pc_entry(0x1000, 5)};
    write_oracle(base, 1, 0, pcs, 1, 10);
    FILE *f = fopen(base, "r+b");
    assert_non_null(f);
    struct oracle_header h;
    assert_int_equal(fread(&h, sizeof h, 1, f), 1);
    h.version = 3;
    rewind(f);
    assert_int_equal(fwrite(&h, sizeof h, 1, f), 1);
    assert_int_equal(fclose(f), 0);
    struct oracle o;
    struct ap_err err;
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, "version 3"));
    assert_non_null(strstr(err.msg, "rerun the record with this build"));

    write_oracle(base, 1, 0, pcs, 1, 10);
    f = fopen(base, "r+b");
    assert_non_null(f);
    assert_int_equal(fread(&h, sizeof h, 1, f), 1);
    h.ncauses = CAUSE_COUNT + 1;
    rewind(f);
    assert_int_equal(fwrite(&h, sizeof h, 1, f), 1);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(oracle_read(base, &o, &err), -1);
    assert_non_null(strstr(err.msg, "cycle causes"));
    assert_non_null(strstr(err.msg, "rerun the record with this build"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_interval_is_stop_minus_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_earlier_runs_snapshots_are_not_used, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_snapshots_are_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_older_oracle_format_is_refused_clearly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
