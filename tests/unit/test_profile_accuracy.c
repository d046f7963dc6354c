/*
 * util/profile-accuracy: what `alphaprof check` computes, on a hand-made
 * profile view and oracle (answers by hand in the comments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "util/profile-accuracy.h"

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-12)
        fail_msg("%.15g, want %.15g", got, want);
}

/* Profile: 0x1000 has 60 samples, 0x1004 has 40.  Oracle: 0x1000 50
 * cycles, 0x1004 30, 0x1008 20.  Shares 0.6/0.4/0 against 0.5/0.3/0.2:
 * half the L1 distance is (0.1 + 0.1 + 0.2) / 2 = 0.2. */
static void test_errors_differences_and_accounting(void **state)
{
    (void)state;
    struct pv_image img;
    memset(&img, 0, sizeof img);
    img.id = 1;
    img.address = 0x1000;
    struct pv_insn in[2];
    memset(in, 0, sizeof in);
    in[0].img = in[1].img = &img;
    in[0].offset = 0;
    in[0].count[0] = 60;
    in[1].offset = 4;
    in[1].count[0] = 40;
    struct profile_view v;
    memset(&v, 0, sizeof v);
    v.nevents = 1;
    strcpy(v.event_names[0], "cycles");
    v.total[0] = 100;
    v.images = &img;
    v.nimages = 1;
    v.insns = in;
    v.ninsns = 2;

    struct oracle_pc pcs[3];
    memset(pcs, 0, sizeof pcs);
    const uint64_t cyc[3] = {50, 30, 20};
    for (int i = 0; i < 3; i++) {
        pcs[i].pc = 0x1000 + 4 * (uint64_t)i;
        pcs[i].events[PMU_EV_CYCLES] = cyc[i];
        pcs[i].events[PMU_EV_RETIRED] = 1;
    }
    struct oracle_core cores[2];
    memset(cores, 0, sizeof cores);
    cores[0].cycles = 70, cores[1].cycles = 30;
    cores[0].instructions = 2, cores[1].instructions = 1;
    cores[0].overflows = 90, cores[1].overflows = 12;
    cores[1].ring_dropped = 2;
    cores[0].interrupts = 5;
    cores[0].events[PMU_EV_CYCLES] = 70, cores[1].events[PMU_EV_CYCLES] = 30;
    struct oracle o = {.h = {.ncores = 2, .npcs = 3}, .cores = cores, .pcs = pcs};

    assert_int_equal(oracle_event_for("timer"), PMU_EV_CYCLES);
    assert_int_equal(oracle_event_for("cycles"), PMU_EV_CYCLES);
    assert_int_equal(oracle_event_for("nosuch"), -1);

    struct profile_accuracy a;
    profile_accuracy(&v, 0, &o, &o, PMU_EV_CYCLES, &a);
    near(a.insn_error, 0.2);
    near(a.proc_error, 0.2);            /* no symbols: procedures are the PCs */
    assert_int_equal(a.profile_pcs, 2);
    assert_int_equal(a.oracle_pcs, 3);
    assert_string_equal(a.top_profile, "[unknown]");  /* no image in the view: report's name */
    /* every PC of either side, the largest difference first: 0x1008 (0.2) */
    assert_int_equal(a.ndiffs, 3);
    assert_int_equal(a.diffs[0].pc, 0x1008);
    near(a.diffs[0].profile, 0);
    near(a.diffs[0].oracle, 0.2);
    assert_int_equal(a.samples, 100);
    assert_int_equal(a.cycles, 100);
    assert_int_equal(a.instructions, 3);
    assert_int_equal(a.overflows, 102);
    assert_int_equal(a.ring_dropped, 2);
    assert_int_equal(a.interrupts, 5);
    profile_accuracy_free(&a);

    struct oracle_sums s;
    oracle_sums(&o, &s);
    assert_int_equal(s.cycles, 100);
    assert_int_equal(s.events[PMU_EV_CYCLES], 100);
    assert_int_equal(s.events_by_pc[PMU_EV_CYCLES], 100);   /* agrees with the cores */
    assert_int_equal(s.events_by_pc[PMU_EV_RETIRED], 3);
}

/* An empty profile against an oracle: every share is the oracle's, the
 * error is total, nothing crashes on empty arrays. */
static void test_an_empty_profile_is_wholly_wrong(void **state)
{
    (void)state;
    struct profile_view v;
    memset(&v, 0, sizeof v);
    v.nevents = 1;
    struct oracle_pc pc;
    memset(&pc, 0, sizeof pc);
    pc.pc = 0x2000;
    pc.events[PMU_EV_CYCLES] = 7;
    struct oracle_core core;
    memset(&core, 0, sizeof core);
    struct oracle o = {.h = {.ncores = 1, .npcs = 1}, .cores = &core, .pcs = &pc};
    struct profile_accuracy a;
    profile_accuracy(&v, 0, &o, &o, PMU_EV_CYCLES, &a);
    assert_int_equal(a.profile_pcs, 0);
    assert_int_equal(a.ndiffs, 1);
    near(a.insn_error, 1);
    profile_accuracy_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors_differences_and_accounting),
        cmocka_unit_test(test_an_empty_profile_is_wholly_wrong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
