/*
 * alphaprof check --oracle FILE: how accurate is the profile?  Compares the
 * database's samples of one event with the hardware model's exact truth of
 * the same run: the fraction of the event attributed to the wrong
 * instruction (and procedure), the instructions that contribute most, and
 * whether every overflow the model produced is accounted for.
 *
 * Invariants: the analyses are util/profile-accuracy and util/pme-*; this
 * file parses and prints.  It never compares a profile with another run's
 * truth: an oracle or snapshots of another run are refused (exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "firmware/abi/link-protocol.h"
#include "util/calc-accuracy.h"
#include "util/path-accuracy.h"
#include "util/cct-accuracy.h"
#include "firmware/abi/event-spec.h"
#include "firmware/abi/path-region.h"
#include "util/path-count-accuracy.h"
#include "util/cycle-stacks.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/oracle-file.h"
#include "util/pme-account.h"
#include "util/pme-accuracy.h"
#include "util/pme-loops.h"
#include "util/pme-stacks.h"
#include "util/profile-accuracy.h"
#include "util/profile-db.h"
#include "util/profile-view.h"
#include "util/strvec.h"
#include "util/loss-note.h"
#include "util/value-accuracy.h"
#include "util/value-view.h"

/* check --pme --json lists the loops with the most cycles, this many. */
#define CHECK_PME_LOOPS_LISTED 20

static const struct opt_command check_command = {
    .name = "check",
    .synopsis = "--oracle FILE [options]",
    .about = "Compares the profile with the hardware model's oracle of the same run\n"
             "(alphaprof record --oracle FILE) and prints the instruction-level error:\n"
             "half the sum over instructions of |profile share - oracle share|, the\n"
             "fraction of the event attributed to the wrong instruction.\n"
             "With ProfileMe samples it accounts for every record and compares each\n"
             "estimate with the truth: retire counts kS with executions (the share\n"
             "within the 1/sqrt(k) envelope, theory about two thirds, and inside the\n"
             "95% interval), event-bit counts with the oracle's, stage latency means.\n"
             "Cycle and timer samples are also checked against the exact time-\n"
             "proportional truth (TIP's rules: the oracle's cycle stacks), the time error;\n"
             "--stacks shows those stacks; --pme checks the cycle stacks estimated from\n"
             "ProfileMe's paired samples (alphaprof pme --stacks) against them.",
};

/* The command line of one check, parsed. */
struct check_options {
    struct profile_opts po;
    struct strvec oracles;      /* --oracle, each given; more than one only with --calc */
    const char *oracle, *event, *board;
    bool totals, stacks, whole_run, values, calc, pme, paths, cct;
    double max_error;           /* < 0: none */
    unsigned min_samples;       /* --values: loads with fewer values sampled are not checked */
};

/* The JSON of an instrumented profile's two metrics (cycles and event)
 * against the truth: {"cycles": e0, "<event>": e1}, "<list_key>": [per
 * metric its sums, absolute difference and bias per execution]. */
static void print_metric_errors(int event, const double error[2], const uint64_t profile[2],
                                const uint64_t truth[2], const uint64_t abs_diff[2], const double bias[2],
                                const char *list_key)
{
    const char *names[2] = {"cycles", pmu_event_name((unsigned)event)};
    printf("{");
    for (unsigned k = 0; k < 2; k++) {
        printf("%s\"%s\": ", k ? ", " : "", names[k]);
        json_num(stdout, error[k]);
    }
    printf("}, \"%s\": [", list_key);
    for (unsigned k = 0; k < 2; k++) {
        printf("%s{\"metric\": \"%s\", \"profile\": %llu, \"truth\": %llu, \"abs_diff\": %llu, "
               "\"bias_per_execution\": ", k ? ", " : "", names[k], (unsigned long long)profile[k],
               (unsigned long long)truth[k], (unsigned long long)abs_diff[k]);
        json_num(stdout, bias[k]);
        printf("}");
    }
    printf("]");
}

/* Prints the instructions whose shares differ most. */
static void print_top_differences(const struct profile_view *v, const struct profile_accuracy *a, size_t top)
{
    printf("  largest differences:\n  %18s %9s %9s  %s\n", "pc", "profile%", "oracle%", "procedure");
    for (size_t k = 0; k < a->ndiffs && k < top; k++)
        printf("  %18llx %9.3f %9.3f  %s\n", (unsigned long long)a->diffs[k].pc, 100 * a->diffs[k].profile,
               100 * a->diffs[k].oracle, pv_procedure_at(v, a->diffs[k].pc));
}

/* The ProfileMe estimates of the selection against the oracle
 * (util/pme-accuracy): 1 computed, 0 no ProfileMe samples (or only
 * time-sampled ones, whose counts are no k S: check --pme judges those,
 * pme-stacks.h note 12), -1 error. */
static int pme_estimates(struct pdb *db, const struct pv_selection *sel, const struct oracle *o,
                         struct pme_accuracy *acc, struct ap_err *err)
{
    struct pme_view pv;
    if (pme_view_load(db, sel, 30, &pv, err))
        return -1;
    int rc = pv.samples && !(pv.time_interval > 0) ? 1 : 0;
    if (rc && pme_accuracy(&pv, o, acc, err))
        rc = -1;
    pme_view_free(&pv);
    return rc;
}

/* --totals: the oracle's per-core totals, no profile needed.  --json: one
 * document with the cores' sums, each event summed over the per-PC truth
 * (which must equal the cores' counts: nothing counted that no instruction
 * caused, nothing caused that was not counted) and the cores. */
static void print_totals(const struct oracle *o, bool json)
{
    static const char *const names[] = {PMU_EVENT_NAMES};
    if (!json) {
        printf("%4s %14s %14s %12s %12s %10s\n", "core", "cycles", "instructions", "records",
               "interrupts", "IPC");
        for (unsigned c = 0; c < o->h.ncores; c++) {
            const struct oracle_core *k = &o->cores[c];
            printf("%4u %14llu %14llu %12llu %12llu %10.3f\n", c, (unsigned long long)k->cycles,
                   (unsigned long long)k->instructions, (unsigned long long)k->overflows,
                   (unsigned long long)k->interrupts,
                   k->cycles ? (double)k->instructions / (double)k->cycles : 0.0);
        }
        return;
    }
    struct oracle_sums sums;
    oracle_sums(o, &sums);
    printf("{\"cycles\": %llu, \"instructions\": %llu", (unsigned long long)sums.cycles,
           (unsigned long long)sums.instructions);
    for (int which = 0; which < 2; which++) {
        const uint64_t *v = which ? sums.events_by_pc : sums.events;
        printf(", \"%s\": {", which ? "events_by_pc" : "events");
        for (unsigned e = 0; e < PMU_EV_COUNT; e++)
            printf("%s\"%s\": %llu", e ? ", " : "", names[e], (unsigned long long)v[e]);
        printf("}");
    }
    printf(", \"cores\": [");
    for (unsigned c = 0; c < o->h.ncores; c++) {
        const struct oracle_core *k = &o->cores[c];
        printf("%s{\"core\": %u, \"cycles\": %llu, \"instructions\": %llu, \"fetched\": %llu, "
               "\"aborted\": %llu, \"records\": %llu, \"ring_dropped\": %llu, \"ring_unread\": %llu, "
               "\"pme_samples\": %llu, \"pme_dropped\": %llu, \"pme_unread\": %llu, "
               "\"interrupts\": %llu, \"events\": {",
               c ? ", " : "", c, (unsigned long long)k->cycles, (unsigned long long)k->instructions,
               (unsigned long long)k->fetched, (unsigned long long)k->aborted,
               (unsigned long long)k->overflows, (unsigned long long)k->ring_dropped,
               (unsigned long long)k->ring_unread, (unsigned long long)k->pme_samples,
               (unsigned long long)k->pme_dropped, (unsigned long long)k->pme_unread,
               (unsigned long long)k->interrupts);
        for (unsigned e = 0; e < PMU_EV_COUNT; e++)
            printf("%s\"%s\": %llu", e ? ", " : "", names[e], (unsigned long long)k->events[e]);
        printf("}}");
    }
    printf("]}\n");
}

static void free_oracles(struct oracle *whole, struct oracle *interval, int have_interval)
{
    oracle_free(whole);
    if (have_interval > 0)
        oracle_free(interval);
}

static int check_profile(const struct check_options *opts);
static int check_values(const struct check_options *opts);
static int check_paths(const struct check_options *opts);
static int check_cct(const struct check_options *opts);

/* A snapshot is the truth up to a moment of the run, not the truth of its
 * profile (its totals and stacks are fine to read): -1 with err naming the
 * file to give instead. */
static int not_a_snapshot(const struct oracle_header *h, const char *oracle_path, struct ap_err *err)
{
    if (h->snapshot == 0)
        return 0;
    const char *dot = strrchr(oracle_path, '.');
    int stem = dot ? (int)(dot - oracle_path) : (int)strlen(oracle_path);
    return ap_err_set(err, "%s is snapshot %u, taken while the run went on, not the run's oracle: give %.*s (the "
                      "file record --oracle wrote); check reads its snapshots itself", oracle_path,
                      (unsigned)h->snapshot, stem, oracle_path);
}

int cmd_check(int argc, char **argv)
{
    struct check_options o = {.po = PROFILE_OPTS_INIT, .max_error = -1, .min_samples = 30};
    const struct option options[] = {
        OPT_LIST(0, "oracle", &o.oracles, "FILE", "the oracle of the run (alphaprof record --oracle FILE);\n"
                 "with --calc, an epoch recorded over several runs: each run's"),
        OPT_CALLBACK(0, "event", &o.event, "NAME", "the sampled event to check (default: cycles, else timer);\n"
                     "timer samples are compared with the oracle's cycles", opt_event_name),
        OPT_DOUBLE(0, "max-error", &o.max_error, "F", 0, 1, 0,
                   "exit 1 if the instruction-level error exceeds F (0..1)"),
        OPT_BOOLEAN(0, "totals", &o.totals, "only the oracle's per-core totals (no profile needed)"),
        OPT_BOOLEAN(0, "stacks", &o.stacks, "only the oracle's cycle stacks: each core's, whether they\n"
                    "sum to its cycles exactly, and the top instructions' (no\n"
                    "profile needed; with --db, their procedures are named)"),
        OPT_BOOLEAN(0, "calc", &o.calc, "check alphaprof calc's estimates: executions within\n"
                    "5/10/15%, unexplained stalls, causes against the oracle's\n"
                    "cycle stacks, stack error (util/calc-accuracy.h)"),
        OPT_BOOLEAN(0, "pme", &o.pme, "check alphaprof pme --stacks's cycle stacks (from paired\n"
                    "ProfileMe samples) against the oracle's: stack_error and\n"
                    "time_error (util/pme-stacks.h); and the paired metrics\n"
                    "(useful issues, wasted slots, concurrency) against the\n"
                    "model's exact values"),
        OPT_STRING(0, "board", &o.board, "NAME", "with --calc or --pme: the board the profile was recorded\n"
                   "on (default clipper-ev5 for --calc, clipper-pm for --pme)"),
        OPT_BOOLEAN(0, "whole-run", &o.whole_run,
                    "compare with the whole run's truth, boot and final flush\n"
                    "included (default: the profiled interval, FILE.2 minus\n"
                    "FILE.1, when the monitor took those snapshots)"),
        OPT_BOOLEAN(0, "values", &o.values,
                    "check the value profiles (record --value-every K) against the\n"
                    "model's value oracle (FILE.values): top_value_recall and\n"
                    "top_value_freq_error over the loads whose top value covers\n"
                    "at least 10% of their executions; beside the strict recall,\n"
                    "top_value_recall_within_error (near-ties at the load's sample\n"
                    "count count, util/value-accuracy.h) and what a fair sampler\n"
                    "would reach (top_value_recall_expected)"),
        OPT_BOOLEAN(0, "cct", &o.cct,
                    "check the calling context tree of an instrumented image\n"
                    "(alphaprof instrument --cct) against the model's exact one\n"
                    "(FILE.cct): calls per context, cct_count_error must be 0;\n"
                    "with --metrics images, each context's inclusive cycles and\n"
                    "instructions too (cct_metric_error, bias per call)"),
        OPT_UINT(0, "min-samples", &o.min_samples, "N", 1, OPT_NUMBER_MAX,
                 "--values: check loads with at least N values sampled (default 30)"),
        OPT_BOOLEAN(0, "paths", &o.paths,
                    "check the paths reconstructed from paired ProfileMe samples'\n"
                    "branch history (record --paired) against the model's exact\n"
                    "sample paths (FILE.pmepaths): reconstruction_success by\n"
                    "history bits, as ProfileMe's Figure 6; and for an image\n"
                    "instrumented with `instrument --paths`, its path counts\n"
                    "against the model's (FILE.blpaths): path_count_error, must be 0"),
        OPT_GROUP("selecting the profile"),
        OPT_PROFILE_DB(&o.po), OPT_PROFILE_EPOCH(&o.po), OPT_PROFILE_CORE(&o.po), OPT_PROFILE_JSON(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&check_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    if (!o.oracles.n)
        return opt_usage_error(&check_command, "give --oracle FILE (written by alphaprof record --oracle FILE)");
    if (o.oracles.n > 1 && !o.calc)
        return opt_usage_error(&check_command, "give one --oracle: only --calc sums the truth of several runs "
                               "recorded into one epoch");
    o.oracle = o.oracles.v[0];
    /* --values, --paths and --cct each check a profile of their own kind */
    int alone = o.values + o.paths + o.cct;
    if (alone > 1 || (alone && (o.totals || o.stacks || o.calc || o.pme)))
        return opt_usage_error(&check_command, "--values, --paths and --cct each check alone; give one of them "
                               "without --totals, --stacks, --calc or --pme");
    if (o.calc && o.pme)
        return opt_usage_error(&check_command, "give --calc or --pme, not both");
    if (!o.board)
        o.board = o.pme ? "clipper-pm" : "clipper-ev5";
    int rc = o.values ? check_values(&o) : o.paths ? check_paths(&o) : o.cct ? check_cct(&o) : check_profile(&o);
    strvec_free(&o.oracles);
    return rc;
}

static const char *name_in_view(void *ctx, uint64_t pc)
{
    return pv_procedure_at(ctx, pc);
}

/* --stacks: of the profiled interval when the snapshots are there (as the
 * check itself), procedures named from the profile given with --db. */
static int print_stacks(const struct check_options *opts, const struct oracle *whole)
{
    struct ap_err err;
    struct oracle interval;
    int have_interval = opts->whole_run ? 0 : oracle_read_interval(opts->oracle, whole, &interval, &err);
    if (have_interval < 0) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    struct profile_view v;
    bool named = false;
    if (opts->po.db) {
        struct pdb *db;
        int rc = pdb_open(opts->po.db, PDB_READ, &db, &err);
        if (!rc) {
            rc = pv_load(db, &opts->po.sel, &v, &err);
            pdb_close(db);
        }
        if (rc) {
            fprintf(stderr, "alphaprof check: %s\n", err.msg);
            if (have_interval)
                oracle_free(&interval);
            return 1;
        }
        named = true;
    }
    int rc = cycle_stacks_print(stdout, have_interval ? &interval : whole, 20, opts->po.json,
                                named ? name_in_view : NULL, named ? &v : NULL);
    if (rc)
        fprintf(stderr, "alphaprof check: the cycle stacks do not sum to the cycles: the oracle is damaged\n");
    if (named)
        pv_free(&v);
    if (have_interval)
        oracle_free(&interval);
    return rc;
}

/* --calc: alphaprof calc's estimates against the truth t. */
static int check_calc(const struct check_options *opts, const struct profile_view *v, const struct pme_view *pme,
                      const struct oracle *t, bool interval)
{
    struct ap_err err;
    struct model_params mp;
    if (calc_board_params(opts->board, &mp, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    int idx[CALC_NEV];
    calc_event_indices(v, idx);
    if (idx[CALC_EV_CYCLES] < 0) {
        fprintf(stderr, "alphaprof check: --calc needs cycles samples: record with --events "
                        "cycles,dmiss,l2miss,branchmp\n");
        return 1;
    }
    struct calc_analysed a;
    calc_analyse_view_pme(v, pme, &mp, &a);
    struct calc_accuracy acc;
    calc_accuracy(&a, t, &acc);
    if (opts->po.json) {
        printf("{\"freq_within_5\": %.6f, \"freq_within_10\": %.6f, \"freq_within_15\": %.6f, "
               "\"unexplained_share\": %.6f, \"cause_agreement\": %.6f, \"stack_error\": %.6f, "
               "\"samples\": %.0f, \"procedures\": %zu, \"estimated_cycles\": %.0f, "
               "\"estimated_stall_cycles\": %.0f, \"oracle_cycles\": %.0f, \"oracle_scope\": \"%s\", "
               "\"edge_within_10\": %.6f, \"edge_executions\": %.0f}\n",
               acc.freq_within[0], acc.freq_within[1], acc.freq_within[2], acc.unexplained_share,
               acc.cause_agreement, acc.stack_error, acc.samples, acc.procedures, acc.est_cycles, acc.est_stall,
               acc.true_cycles, interval ? "interval" : "run", acc.edge_within_10, acc.edge_executions);
    } else {
        printf("alphaprof calc against the oracle (%s): %zu procedures, %.0f cycle samples\n",
               interval ? "the profiled interval" : "the whole run", acc.procedures, acc.samples);
        printf("  executions within 5%% / 10%% / 15%%   %5.1f%% / %5.1f%% / %5.1f%% of cycle samples\n",
               100 * acc.freq_within[0], 100 * acc.freq_within[1], 100 * acc.freq_within[2]);
        printf("  unexplained stall cycles           %5.1f%%\n", 100 * acc.unexplained_share);
        printf("  stall cycles with the oracle's cause %5.1f%%\n", 100 * acc.cause_agreement);
        printf("  edge executions within 10%%         %5.1f%%  (of %.0f, the oracle's)\n", 100 * acc.edge_within_10,
               acc.edge_executions);
        printf("  stack error                        %5.1f%%  (half the sum of |estimate - truth| over\n"
               "                                            (instruction, cause), over %.0f cycles)\n",
               100 * acc.stack_error, acc.true_cycles);
    }
    calc_analysed_free(&a);
    return 0;
}

/* --pme: the ProfileMe cycle stacks against the truth t. */
static int check_pme_stacks(const struct check_options *opts, struct pdb *db, const struct oracle *t, bool interval)
{
    struct ap_err err;
    struct model_params mp;
    if (calc_board_params(opts->board, &mp, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    struct pme_stack_params sp;
    pme_stack_params_of(&mp, &sp);
    struct pme_view pv;
    if (pme_view_load(db, &opts->po.sel, 30, &pv, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    for (size_t i = 0; i < pv.nimages; i++)
        if (pv.images[i].id != 0 && pv.images[i].st_error) {
            /* the stacks read each record's instruction from the image (its class, the CFG):
             * another build's code would give wrong causes, not an error */
            fprintf(stderr, "alphaprof check: no code for %s, so no stack check: %s\n", pv.images[i].name,
                    pv.images[i].st_error);
            pme_view_free(&pv);
            return 1;
        }
    struct pme_stack *st = xmalloc((pv.ninsns ? pv.ninsns : 1) * sizeof *st);
    struct pme_stack_accuracy a;
    int rc = pme_stacks_estimate(&pv, &sp, st, &err);
    if (!rc && pme_stack_accuracy(st, pv.ninsns, t, &a))
        rc = ap_err_set(&err, "no cycles to compare: the profile's stacks or the oracle's are empty");
    double stack_noise = 0, time_noise = 0;
    if (!rc)
        rc = pme_stacks_noise(&pv, &sp, &stack_noise, &time_noise, &err);
    struct pme_pair_accuracy pa;
    bool have_pa = !rc && !pme_pair_accuracy(&pv, t, mp.width, &pa);
    size_t nl = 0;
    struct pme_loop *lp = rc ? NULL : pme_stacks_by_loop(st, pv.ninsns, &mp, &nl);
    struct pme_loop_accuracy la;
    bool have_la = !rc && !pme_loop_accuracy(lp, nl, pv.interval, a.estimate_cycles, t, a.true_cycles, &la);
    if (rc) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
    } else if (opts->po.json) {
        static const char *const names[] = {CYCLE_CAUSE_NAMES};
        printf("{\"stack_error\": %.6f, \"time_error\": %.6f, \"stack_error_noise\": %.6f, "
               "\"time_error_noise\": %.6f, \"share_stack_error\": %.6f, "
               "\"estimated_cycles\": %.0f, \"oracle_cycles\": %.0f, \"pairs\": %llu, "
               "\"pair_interval\": %.3f, \"time_sampled\": %s, \"time_interval\": %.3f, "
               "\"instructions_estimated\": %zu, \"oracle_pcs\": %zu, "
               "\"oracle_scope\": \"%s\", \"causes\": {",
               a.stack_error, a.time_error, stack_noise, time_noise, a.share_stack_error, a.estimate_cycles, a.true_cycles,
               (unsigned long long)pv.npairs, pv.pair_interval, pv.time_interval > 0 ? "true" : "false",
               pv.time_interval, a.estimated, a.true_pcs,
               interval ? "interval" : "run");
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            printf("%s\"%s\": {\"estimate\": %.0f, \"oracle\": %.0f}", c ? ", " : "", names[c],
                   a.cause_estimate[c], a.cause_true[c]);
        printf("}, \"paired\": ");
        if (have_pa)
            printf("{\"instructions\": %zu, \"useful_error\": %.6f, \"latency_error\": %.6f, "
                   "\"wasted_error\": %.6f, \"concurrency_error\": %.6f, \"useful_estimate\": %.0f, "
                   "\"useful_oracle\": %.0f, \"wasted_estimate\": %.0f, \"wasted_oracle\": %.0f, "
                   "\"top_wasted_estimate\": %llu, \"top_wasted_oracle\": %llu, \"top_wasted_agrees\": %s}",
                   pa.instructions, pa.useful_error, pa.latency_error, pa.wasted_error, pa.concurrency_error,
                   pa.useful_estimate, pa.useful_true, pa.wasted_estimate, pa.wasted_true,
                   (unsigned long long)pa.top_estimate_pc, (unsigned long long)pa.top_true_pc,
                   pa.top_wasted_agrees ? "true" : "false");
        else
            printf("null");
        printf(", \"loops\": ");
        if (have_la) {
            printf("{\"loops\": %zu, \"share_error_max\": %.6f, \"share_error_mean\": %.6f, "
                   "\"executions_error\": %.6f, \"executions_checked\": %zu, \"top_estimate\": %llu, "
                   "\"top_oracle\": %llu, \"top_agrees\": %s, \"list\": [",
                   la.loops, la.share_error_max, la.share_error_mean, la.executions_error, la.executions_checked,
                   (unsigned long long)la.top_estimate, (unsigned long long)la.top_oracle,
                   la.top_estimate == la.top_oracle ? "true" : "false");
            for (size_t k = 0; k < nl && k < CHECK_PME_LOOPS_LISTED; k++) {
                double tc, te;
                struct pme_count_est e;
                pme_loop_truth(&lp[k], t, &tc, &te);
                pme_loop_executions(&lp[k], pv.interval, &e);
                printf("%s{\"header\": %llu, \"procedure\": ", k ? ", " : "", (unsigned long long)lp[k].header);
                json_str(stdout, lp[k].proc);
                printf(", \"depth\": %u, \"estimate_share\": %.6f, \"oracle_share\": %.6f, "
                       "\"header_records\": %llu, \"executions\": %.0f, \"oracle_executions\": %.0f}",
                       lp[k].depth, lp[k].total / a.estimate_cycles, tc / a.true_cycles,
                       (unsigned long long)lp[k].header_retired, e.estimate, te);
            }
            printf("]}");
        } else {
            printf("null");
        }
        printf("}\n");
    } else {
        static const char *const names[] = {CYCLE_CAUSE_NAMES};
        if (pv.time_interval > 0)
            printf("ProfileMe cycle stacks against the oracle's (%s): %llu time-sampled records, one every\n"
                   "%.0f cycles\n", interval ? "the profiled interval" : "the whole run",
                   (unsigned long long)(2 * pv.npairs), pv.time_interval);
        else
            printf("ProfileMe cycle stacks against the oracle's (%s): %llu pairs, one every %.0f fetched\n"
                   "instructions\n", interval ? "the profiled interval" : "the whole run",
                   (unsigned long long)pv.npairs, pv.pair_interval);
        printf("  stack error   %6.2f%%  (half the sum over (instruction, cause) of |estimate - truth|,\n"
               "                          over the oracle's %.0f cycles; estimated %.0f)\n",
               100 * a.stack_error, a.true_cycles, a.estimate_cycles);
        printf("  time error    %6.2f%%  (instruction level: half the L1 distance of the time shares)\n",
               100 * a.time_error);
        printf("  sampling noise about %.2f%% and %.2f%% of those (half their distance between the\n"
               "                          estimates from the even and from the odd pairs)\n",
               100 * stack_noise, 100 * time_noise);
        printf("  %-12s %14s %14s\n", "cause", "estimate", "oracle");
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            if (a.cause_estimate[c] > 0 || a.cause_true[c] > 0)
                printf("  %-12s %14.0f %14.0f\n", names[c], a.cause_estimate[c], a.cause_true[c]);
        if (have_pa)
            printf("Paired-sample metrics against the oracle's exact values (%zu instructions with >= %d pair\n"
                   "records, issue width %u):\n"
                   "  useful instructions issued while in progress  error %6.2f%%  (estimate %.0f, oracle %.0f)\n"
                   "  in-progress cycles                            error %6.2f%%\n"
                   "  wasted issue slots                            error %6.2f%%  (estimate %.0f, oracle %.0f)\n"
                   "  useful concurrency                            mean |error| %.3f per cycle\n"
                   "  most wasted slots: %llx (estimate), %llx (oracle)%s\n",
                   pa.instructions, PME_PAIR_ACC_MIN, mp.width, 100 * pa.useful_error, pa.useful_estimate,
                   pa.useful_true, 100 * pa.latency_error, 100 * pa.wasted_error, pa.wasted_estimate,
                   pa.wasted_true, pa.concurrency_error, (unsigned long long)pa.top_estimate_pc,
                   (unsigned long long)pa.top_true_pc, pa.top_wasted_agrees ? ": the same" : ": DIFFERENT");
        if (have_la) {
            printf("Loops (%zu natural loops of the sampled procedures) against the oracle's:\n"
                   "  share of the cycles     error max %.2f, mean %.2f points (weighted by true cycles)\n"
                   "  header executions       error %6.2f%%  (%zu loops with >= %d header records)\n"
                   "  most cycles: %llx (estimate), %llx (oracle)%s\n"
                   "  %18s %-24s %10s %10s %14s %14s\n",
                   la.loops, 100 * la.share_error_max, 100 * la.share_error_mean, 100 * la.executions_error,
                   la.executions_checked, PME_LOOP_MIN_RECORDS, (unsigned long long)la.top_estimate,
                   (unsigned long long)la.top_oracle, la.top_estimate == la.top_oracle ? ": the same" : ": DIFFERENT",
                   "header", "procedure", "est. %", "oracle %", "executions", "oracle");
            for (size_t k = 0; k < nl && k < 5; k++) {
                double tc, te;
                struct pme_count_est e;
                pme_loop_truth(&lp[k], t, &tc, &te);
                pme_loop_executions(&lp[k], pv.interval, &e);
                printf("  %18llx %-24.24s %10.2f %10.2f %14.0f %14.0f\n", (unsigned long long)lp[k].header,
                       lp[k].proc, 100 * lp[k].total / a.estimate_cycles, 100 * tc / a.true_cycles, e.estimate, te);
            }
        }
    }
    pme_loops_free(lp, nl);
    free(st);
    pme_view_free(&pv);
    return rc ? 1 : 0;
}

/* The truth of one more run's oracle at path: of its profiled interval,
 * or of the whole run (as check_profile reads the first's). */
static int read_run_truth(const char *path, bool whole_run, struct oracle *truth, struct ap_err *err)
{
    struct oracle whole, interval;
    if (oracle_read(path, &whole, err))
        return -1;
    if (whole.h.snapshot != 0) {
        oracle_free(&whole);
        return ap_err_set(err, "%s is snapshot %u, taken while the run went on, not the run's oracle: give the "
                          "file record --oracle wrote", path, (unsigned)whole.h.snapshot);
    }
    int have_interval = whole_run ? 0 : oracle_read_interval(path, &whole, &interval, err);
    if (have_interval < 0) {
        oracle_free(&whole);
        return -1;
    }
    if (have_interval) {
        oracle_free(&whole);
        *truth = interval;
    } else {
        *truth = whole;
    }
    return 0;
}

/* --calc over an epoch that holds several runs' samples (recorded one
 * after another into it, as DCPI's profiles of three runs of each
 * program): the truth is the sum of every run's, so each run recorded
 * with an oracle must be given once, or every execution count would look
 * too high.  first is the first --oracle's truth (its run already checked
 * to be one of the epoch's).  1 with the sum in *sum, 0 when the epoch is
 * one run and one oracle was given (first is the truth), -1 with err. */
static int truth_of_runs(const struct check_options *opts, struct pdb *db, int64_t epoch, const struct oracle *first,
                         struct oracle *sum, struct ap_err *err)
{
    enum { MAX_RUNS = 64 };
    uint64_t ids[MAX_RUNS];
    bool used[MAX_RUNS] = {false};
    size_t n;
    if (pdb_oracle_runs(db, epoch, ids, MAX_RUNS, &n, NULL, 0, err))
        return -1;
    size_t given = opts->oracles.n;
    if (given == 1 && n <= 1)
        return 0;
    if (n == MAX_RUNS)
        return ap_err_set(err, "the profile's epoch holds the samples of %d or more runs: check --calc sums at "
                          "most %d; start a new epoch (alphaprof db new-epoch) for fewer", MAX_RUNS, MAX_RUNS - 1);
    if (given != n)
        return ap_err_set(err, "the profile's epoch holds the samples of %zu runs recorded with an oracle and %zu "
                          "oracles were given: give each run's oracle once (--oracle FILE per run)", n, given);
    *sum = (struct oracle){.h = first->h};
    sum->h.npcs = 0;
    sum->cores = xmalloc(first->h.ncores * sizeof *sum->cores);
    memset(sum->cores, 0, first->h.ncores * sizeof *sum->cores);
    sum->pcs = NULL;
    int rc = oracle_add(sum, first, err);
    for (size_t k = 0; !rc && k < given; k++) {
        struct oracle t;
        if (k > 0 && read_run_truth(opts->oracles.v[k], opts->whole_run, &t, err)) {
            rc = -1;
            break;
        }
        const struct oracle *truth = k > 0 ? &t : first;
        size_t i = 0;
        while (i < n && ids[i] != truth->h.run_id)
            i++;
        if (i == n || used[i])
            rc = ap_err_set(err, "%s %s: give each run's oracle of the epoch once", opts->oracles.v[k],
                            i == n ? "is the oracle of a run whose samples are not in the profile's epoch"
                                   : "is of the same run as another --oracle");
        else
            used[i] = true;
        if (!rc && k > 0)
            rc = oracle_add(sum, &t, err);
        if (k > 0)
            oracle_free(&t);
    }
    if (rc) {
        oracle_free(sum);
        return -1;
    }
    return 1;
}

/* Checks the selected profile against the oracle. */
static int check_profile(const struct check_options *opts)
{
    const char *db_path = profile_opts_db(&opts->po), *oracle_path = opts->oracle, *event = opts->event;
    struct pv_selection sel = opts->po.sel;
    bool json = opts->po.json, totals = opts->totals, whole_run = opts->whole_run;
    double max_error = opts->max_error;
    struct ap_err err;
    struct oracle o;
    if (oracle_read(oracle_path, &o, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    if (totals) {
        print_totals(&o, json);
        oracle_free(&o);
        return 0;
    }
    if (opts->stacks) {
        int rc = print_stacks(opts, &o);
        oracle_free(&o);
        return rc;
    }
    if (not_a_snapshot(&o.h, oracle_path, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        oracle_free(&o);
        return 1;
    }
    /* The per-PC truth (for the error and the ProfileMe estimates): of the
     * profiled interval when the monitor took its snapshots, else of the
     * whole run; the accounting of records (rings, ProfileMe) always of the
     * whole run, since records are produced to its end. */
    struct oracle interval;
    int have_interval = whole_run ? 0 : oracle_read_interval(oracle_path, &o, &interval, &err);
    if (have_interval < 0) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        oracle_free(&o);
        return 1;
    }
    const struct oracle *t = have_interval ? &interval : &o;
    struct pdb *db;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        free_oracles(&o, &interval, have_interval);
        return 1;
    }
    if (oracle_check_run(&o.h, oracle_path, db, sel.epoch, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        pdb_close(db);
        free_oracles(&o, &interval, have_interval);
        return 1;
    }
    struct profile_view v;
    int rc = pv_load(db, &sel, &v, &err);
    struct pme_account pa;
    int have_pme = rc ? 0 : pme_account(db, sel.epoch, &o, &pa, &err);
    struct pme_accuracy pacc;
    int have_est = have_pme > 0 ? pme_estimates(db, &sel, t, &pacc, &err) : 0;
    if (have_pme < 0 || have_est < 0) {
        pv_free(&v);
        rc = -1;
    }
    for (size_t i = 0; !rc && i < v.nimages; i++)
        if (v.images[i].id != 0 && v.images[i].st_error) {
            /* without them every PC would be a procedure of its own: a wrong procedure-level error */
            ap_err_set(&err, "no symbols for %s, so no procedure-level error: %s", v.images[i].name,
                       v.images[i].st_error);
            pv_free(&v);
            rc = -1;
        }
    struct pme_view calc_pme = {0};     /* --calc: the branches' edge samples */
    if (!rc && opts->calc && pme_view_load(db, &sel, 30, &calc_pme, &err)) {
        pv_free(&v);
        rc = -1;
    }
    if (!rc)
        loss_note(db, v.epoch, "alphaprof check", stderr);      /* one line before the table */
    if (!rc && opts->pme) {
        rc = check_pme_stacks(opts, db, t, have_interval > 0);
        pdb_close(db);
        pv_free(&v);
        free_oracles(&o, &interval, have_interval);
        return rc;
    }
    struct oracle runs;         /* --calc over several runs: their summed truth */
    int have_runs = rc || !opts->calc ? 0 : truth_of_runs(opts, db, sel.epoch, t, &runs, &err);
    if (have_runs < 0) {
        pme_view_free(&calc_pme);
        pv_free(&v);
        rc = -1;
    }
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        free_oracles(&o, &interval, have_interval);
        return 1;
    }
    if (opts->calc) {
        rc = check_calc(opts, &v, &calc_pme, have_runs ? &runs : t, have_interval > 0);
        if (have_runs)
            oracle_free(&runs);
        pme_view_free(&calc_pme);
        pv_free(&v);
        free_oracles(&o, &interval, have_interval);
        return rc;
    }
    int ev = -1;
    for (size_t e = 0; e < v.nevents && ev < 0; e++)
        if (event ? !strcmp(v.event_names[e], event) : !strcmp(v.event_names[e], "cycles"))
            ev = (int)e;
    if (ev < 0 && !event && v.nevents)
        ev = 0;
    int oev = ev >= 0 ? oracle_event_for(v.event_names[ev]) : -1;
    if ((ev < 0 || oev < 0) && have_pme && !event) {
        /* a ProfileMe profile: its accounting against the oracle */
        if (json) {
            printf("{\"profileme\": ");
            pme_account_json(stdout, &pa);
            if (have_est) {
                printf(", \"profileme_estimates\": ");
                pme_accuracy_json(stdout, &pacc);
            }
            printf("}\n");
        } else {
            pme_account_print(stdout, &pa);
            if (have_est)
                pme_accuracy_print(stdout, &pacc);
        }
        pv_free(&v);
        free_oracles(&o, &interval, have_interval);
        return 0;
    }
    if (ev < 0 || oev < 0) {
        fprintf(stderr, "alphaprof check: the profile has no samples of event %s that the oracle knows\n",
                event ? event : "cycles or timer");
        pv_free(&v);
        free_oracles(&o, &interval, have_interval);
        return 1;
    }

    struct profile_accuracy acc;
    profile_accuracy(&v, ev, t, &o, oev, &acc);
    if (json) {
        printf("{\"event\": ");
        json_str(stdout, v.event_names[ev]);
        printf(", \"samples\": %llu, \"instruction_error\": %.6f, "
               "\"procedure_error\": %.6f, \"oracle_pcs\": %zu, \"profile_pcs\": %zu, "
               "\"model_overflows\": %llu, \"ring_dropped\": %llu, \"ring_unread\": %llu, "
               "\"interrupts\": %llu, \"oracle_instructions\": %llu, \"oracle_cycles\": %llu, "
               "\"top_procedure\": {\"profile\": ",
               (unsigned long long)acc.samples, acc.insn_error, acc.proc_error, acc.oracle_pcs,
               acc.profile_pcs, (unsigned long long)acc.overflows, (unsigned long long)acc.ring_dropped,
               (unsigned long long)acc.ring_unread, (unsigned long long)acc.interrupts,
               (unsigned long long)acc.instructions, (unsigned long long)acc.cycles);
        json_str(stdout, acc.top_profile);
        printf(", \"oracle\": ");
        json_str(stdout, acc.top_oracle);
        printf("}, \"oracle_scope\": \"%s\"", have_interval ? "interval" : "run");
        if (acc.time_error >= 0)
            printf(", \"time_error\": %.6f", acc.time_error);
        if (have_pme) {
            printf(", \"profileme\": ");
            pme_account_json(stdout, &pa);
        }
        if (have_est) {
            printf(", \"profileme_estimates\": ");
            pme_accuracy_json(stdout, &pacc);
        }
        printf("}\n");
    } else {
        printf("Event %s: %llu samples against the oracle's %s of %u core(s)\n", v.event_names[ev],
               (unsigned long long)acc.samples, oev == PMU_EV_CYCLES ? "cycles" : v.event_names[ev],
               o.h.ncores);
        printf("  instruction-level error  %6.2f%%  (share of the event on the wrong instruction)\n",
               100 * acc.insn_error);
        if (acc.time_error >= 0)
            printf("  instruction time error   %6.2f%%  (against the exact time-proportional truth, TIP's rules)\n",
                   100 * acc.time_error);
        printf("  procedure-level error    %6.2f%%  (top procedure: %s in the profile, %s in the oracle)\n",
               100 * acc.proc_error, acc.top_profile, acc.top_oracle);
        printf("  instructions: %zu in the profile, %zu in the oracle\n", acc.profile_pcs, acc.oracle_pcs);
        print_top_differences(&v, &acc, 8);
        if (have_interval)
            printf("  (the oracle's truth of the profiled interval: its stop snapshot minus its start)\n");
        else
            printf("  (the oracle covers the whole run, boot and the final flush included, which no\n"
                   "  sample can see; the profile covers the sampled part)\n");
        if (acc.overflows)
            printf("  the model produced %llu overflow records of all events: %llu lost in full rings,\n"
                   "  %llu produced after the profiler stopped (never drained)\n",
                   (unsigned long long)acc.overflows, (unsigned long long)acc.ring_dropped,
                   (unsigned long long)acc.ring_unread);
        if (acc.interrupts)
            printf("  %llu performance interrupts delivered them\n", (unsigned long long)acc.interrupts);
        if (have_pme)
            pme_account_print(stdout, &pa);
        if (have_est)
            pme_accuracy_print(stdout, &pacc);
    }
    double insn_error = acc.insn_error;
    profile_accuracy_free(&acc);
    pv_free(&v);
    free_oracles(&o, &interval, have_interval);
    if (max_error >= 0 && insn_error > max_error) {
        fprintf(stderr, "alphaprof check: instruction-level error %.4f exceeds --max-error %.4f\n",
                insn_error, max_error);
        return 1;
    }
    return 0;
}

/* --values: value profiles of loads against the value oracle. */
static int check_values(const struct check_options *opts)
{
    const char *db_path = profile_opts_db(&opts->po), *oracle_path = opts->oracle;
    struct ap_err err;
    struct oracle_header oh;
    struct value_oracle vo;
    struct pdb *db;
    if (oracle_read_header(oracle_path, &oh, &err) || not_a_snapshot(&oh, oracle_path, &err) ||
        value_oracle_read(oracle_path, &vo, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    if (vo.h.run_id != oh.run_id) {
        fprintf(stderr, "alphaprof check: %s.values is of another run than %s; record again\n", oracle_path,
                oracle_path);
        value_oracle_free(&vo);
        return 1;
    }
    if (pdb_open(db_path, PDB_READ, &db, &err) || oracle_check_run(&oh, oracle_path, db, opts->po.sel.epoch, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        value_oracle_free(&vo);
        return 1;
    }
    struct value_view v;
    int rc = vv_load(db, &opts->po.sel, VALUE_RESULT, NULL, &v, &err);
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        value_oracle_free(&vo);
        return 1;
    }
    struct value_accuracy a;
    if (value_accuracy(&v, &vo, opts->min_samples, &a)) {
        fprintf(stderr, "alphaprof check: out of memory\n");
        vv_free(&v);
        value_oracle_free(&vo);
        return 1;
    }
    rc = 0;
    if (a.checked == 0) {
        fprintf(stderr, "alphaprof check: no load in %s has a value profile to check (%zu with fewer than %u "
                        "values sampled, %zu without a value covering 10%%, %zu not loads); record with "
                        "--value-every K and run longer\n",
                db_path, a.too_few, opts->min_samples, a.no_top, a.not_in_oracle);
        rc = 1;
    } else if (opts->po.json) {
        printf("{\"top_value_recall\": ");
        json_num(stdout, a.recall);
        printf(", \"top_value_recall_within_error\": ");
        json_num(stdout, a.recall_within_error);
        printf(", \"top_value_recall_expected\": ");
        json_num(stdout, a.recall_expected);
        printf(", \"tie_z\": ");
        json_num(stdout, VALUE_TIE_Z);
        printf(", \"top_value_freq_error\": ");
        json_num(stdout, a.freq_error);
        printf(", \"loads_checked\": %zu, \"hits\": %zu, \"hits_within_error\": %zu, \"near_ties\": %zu, "
               "\"too_few_samples\": %zu, \"no_top_value\": %zu, \"not_loads\": %zu, \"min_samples\": %u, "
               "\"loads\": [",
               a.checked, a.hits, a.hits_within_error, a.near_ties, a.too_few, a.no_top, a.not_in_oracle,
               opts->min_samples);
        for (size_t i = 0; i < a.checked; i++) {
            const struct value_check_row *c = &a.rows[i];
            printf("%s\n  {\"pc\": %llu, \"offered\": %llu, \"true_value\": %llu, \"true_share\": ", i ? "," : "",
                   (unsigned long long)((c->row->img ? c->row->img->address : 0) + c->row->offset),
                   (unsigned long long)c->row->offered, (unsigned long long)c->true_value);
            json_num(stdout, c->true_share);
            printf(", \"estimated_share\": ");
            json_num(stdout, c->est_share);
            printf(", \"ranked_first\": %s, \"first_value\": %llu, \"first_true_share\": ",
                   c->hit ? "true" : "false", (unsigned long long)c->first_value);
            json_num(stdout, c->first_true_share);
            printf(", \"tie_margin\": ");
            json_num(stdout, c->tie_margin);
            printf(", \"within_error\": %s, \"fair_hit_probability\": ", c->within_error ? "true" : "false");
            json_num(stdout, c->fair_hit);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("Value profiles of loads against the model's value oracle: %zu loads checked\n"
               "(%zu with fewer than %u values sampled, %zu without a value covering 10%%, %zu not loads).\n\n"
               "  top_value_recall                %.1f%% (%zu of %zu loads rank their true top value first)\n"
               "  top_value_recall_within_error   %.1f%% (%zu of %zu: first is the true top, or a value whose true\n"
               "                                  share is within %.2f standard errors of the top's at the load's\n"
               "                                  sample count: %zu near-ties)\n"
               "  top_value_recall_expected       %.1f%% (what a fair sampler of these sample counts reaches\n"
               "                                  on average)\n"
               "  top_value_freq_error            %.2f points (mean |estimated - true share| of the true top value)\n\n"
               "  %16s %10s %18s %8s %8s  %-5s %18s %8s %7s\n",
               a.checked, a.too_few, opts->min_samples, a.no_top, a.not_in_oracle, 100 * a.recall, a.hits, a.checked,
               100 * a.recall_within_error, a.hits_within_error, a.checked, VALUE_TIE_Z, a.near_ties,
               100 * a.recall_expected, a.freq_error, "pc", "offered", "true top value", "true%", "est%", "first",
               "first value", "true%", "margin%");
        for (size_t i = 0; i < a.checked && i < 10; i++) {
            const struct value_check_row *c = &a.rows[i];
            printf("  %16llx %10llu %18llx %8.2f %8.2f  %-5s %18llx %8.2f %7.2f\n",
                   (unsigned long long)((c->row->img ? c->row->img->address : 0) + c->row->offset),
                   (unsigned long long)c->row->offered, (unsigned long long)c->true_value, 100 * c->true_share,
                   100 * c->est_share, c->hit ? "yes" : c->within_error ? "tie" : "NO",
                   (unsigned long long)c->first_value, 100 * c->first_true_share, 100 * c->tie_margin);
        }
    }
    value_accuracy_free(&a);
    vv_free(&v);
    value_oracle_free(&vo);
    return rc;
}

/* --paths: ProfileMe path reconstruction against the sample-path oracle
 * (util/path-accuracy.h). */
static int check_paths(const struct check_options *opts)
{
    const char *db_path = profile_opts_db(&opts->po), *oracle_path = opts->oracle;
    struct ap_err err;
    struct oracle_header oh;
    struct pmepath_oracle po;
    struct pdb *db;
    if (oracle_read_header(oracle_path, &oh, &err) || not_a_snapshot(&oh, oracle_path, &err) ||
        pmepath_oracle_read(oracle_path, &po, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    if (po.h.run_id != oh.run_id) {
        fprintf(stderr, "alphaprof check: %s.pmepaths is of another run than %s; record again\n", oracle_path,
                oracle_path);
        pmepath_oracle_free(&po);
        return 1;
    }
    struct ps_samples ps;
    if (pdb_open(db_path, PDB_READ, &db, &err) || oracle_check_run(&oh, oracle_path, db, opts->po.sel.epoch, &err) ||
        ps_load(db, &opts->po.sel, &ps, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        pmepath_oracle_free(&po);
        return 1;
    }
    struct path_count_accuracy pc;      /* an instrumented image's counts (instrument --paths) */
    if (path_count_accuracy(db, 0, oracle_path, &pc, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        pdb_close(db);
        ps_free(&ps);
        pmepath_oracle_free(&po);
        return 1;
    }
    struct cct_path_accuracy cp = {0};  /* paths per context (instrument --both) */
    struct cct_view cv = {0};
    bool have_cv = false;
    const char *sel = profile_sel_given(&opts->po.sel);
    if (pc.present && sel)
        fprintf(stderr, "alphaprof check: %s selects the ProfileMe samples only; the instrumented path counts are "
                        "the newest session's, compared whole (every core) against the run's truth\n", sel);
    if (pc.present) {
        struct ap_err e2;
        have_cv = cv_load(db, pc.session, &cv, &e2) == 0;
        if (have_cv && cct_path_accuracy(db, &cv, oracle_path, &cp, &err)) {
            fprintf(stderr, "alphaprof check: %s\n", err.msg);
            cv_free(&cv);
            pdb_close(db);
            ps_free(&ps);
            pmepath_oracle_free(&po);
            return 1;
        }
    }
    pdb_close(db);
    struct path_accuracy a;
    path_accuracy(&ps, &po, &a);
    struct bl_truth bt;
    bool have_bl = bl_truth_read(oracle_path, &bt, &err) == 0;
    int rc = 0;
    if (a.matched == 0 && !pc.present) {
        fprintf(stderr, "alphaprof check: no paired ProfileMe sample of %s is in %s.pmepaths (%llu retired samples "
                        "with code, %llu unmatched); record with --paired and --oracle in one run\n",
                db_path, oracle_path, (unsigned long long)a.samples, (unsigned long long)a.unmatched);
        rc = 1;
    } else if (opts->po.json) {
        printf("{\"samples\": %llu, \"matched\": %llu, \"unmatched\": %llu, \"history_mismatch\": %llu, "
               "\"oracle_lost\": %llu, \"reconstruction_success\": [",
               (unsigned long long)a.samples, (unsigned long long)a.matched, (unsigned long long)a.unmatched,
               (unsigned long long)a.history_mismatch, (unsigned long long)po.h.lost);
        for (unsigned n = 0; n < PR_MAX_BITS; n++) {
            const struct path_success *r = &a.rows[n];
            printf("%s\n  {\"history_bits\": %u, \"evaluated\": %llu, \"unique\": %llu, \"success\": %llu, "
                   "\"rate\": ", n ? "," : "", r->nbits, (unsigned long long)r->evaluated,
                   (unsigned long long)r->unique, (unsigned long long)r->success);
            json_num(stdout, r->evaluated ? (double)r->success / (double)r->evaluated : 0);
            printf(", \"baseline_success\": %llu, \"baseline_rate\": ", (unsigned long long)r->baseline_success);
            json_num(stdout, r->evaluated ? (double)r->baseline_success / (double)r->evaluated : 0);
            printf(", \"polluted\": %llu, \"unresolved\": %llu, \"truth_unknown\": %llu, "
                   "\"seconds\": %llu, \"seconds_success\": %llu, \"pair_evaluated\": %llu, "
                   "\"pair_unique\": %llu, \"pair_success\": %llu, \"pair_rate\": ",
                   (unsigned long long)r->polluted, (unsigned long long)r->unresolved,
                   (unsigned long long)r->truth_unknown, (unsigned long long)r->seconds,
                   (unsigned long long)r->seconds_success, (unsigned long long)r->pair_evaluated,
                   (unsigned long long)r->pair_unique, (unsigned long long)r->pair_success);
            json_num(stdout, r->pair_evaluated ? (double)r->pair_success / (double)r->pair_evaluated : 0);
            printf("}");
        }
        printf("], \"path_count_error\": ");
        if (pc.present) {
            printf("%llu, \"instrumented\": {\"session\": %lld, \"paths_profile\": %llu, \"paths_truth\": %llu, "
                   "\"distinct_profile\": %llu, \"distinct_truth\": %llu, \"distinct_equal\": %llu, "
                   "\"procedures_instrumented\": %llu, \"procedures_left_alone_run\": %llu, "
                   "\"paths_left_alone\": %llu, \"lost_paths\": %llu, \"unmatched_exits\": %llu, "
                   "\"bad_paths\": %llu, \"unnamed\": %llu, \"truth_unknown\": %llu, \"truth_lost\": %llu, "
                   "\"procedures_hashed\": %llu}",
                   (unsigned long long)pc.path_count_error, (long long)pc.session,
                   (unsigned long long)pc.paths_profile, (unsigned long long)pc.paths_truth,
                   (unsigned long long)pc.distinct_profile, (unsigned long long)pc.distinct_truth,
                   (unsigned long long)pc.distinct_equal, (unsigned long long)pc.procs_instrumented,
                   (unsigned long long)pc.procs_left_alone_run, (unsigned long long)pc.paths_left_alone,
                   (unsigned long long)pc.lost_paths, (unsigned long long)pc.unmatched_exits,
                   (unsigned long long)pc.bad_paths, (unsigned long long)pc.unnamed,
                   (unsigned long long)pc.truth_unknown, (unsigned long long)pc.truth_lost,
                   (unsigned long long)pc.procs_hashed);
            printf(", \"metered\": %s, \"path_metric_error\": ", pc.event >= 0 ? "true" : "false");
            if (pc.event >= 0) {
                print_metric_errors(pc.event, pc.path_metric_error, pc.metric_profile, pc.metric_truth,
                                    pc.metric_abs_diff, pc.metric_bias, "metrics");
                printf(", \"unmetered\": %llu", (unsigned long long)pc.unmetered);
            } else {
                printf("null");
            }
            printf(", \"left_alone\": [");
            for (unsigned i = 0; i < pc.nleft_alone; i++)
            {
                printf("%s{\"procedure\": ", i ? ", " : "");
                json_str(stdout, pc.left_alone[i].name);
                printf(", \"start\": %llu, \"executions\": %llu, \"why\": \"%s\"}",
                       (unsigned long long)pc.left_alone[i].start, (unsigned long long)pc.left_alone[i].executions,
                       path_skip_name(pc.left_alone[i].why));
            }
            printf("]");
        } else {
            printf("null, \"instrumented\": null");
        }
        printf(", \"context_path_error\": ");
        if (cp.present)
            printf("%llu, \"contexts\": {\"paths_profile\": %llu, \"paths_truth\": %llu, \"paths_all_truth\": %llu, "
                   "\"context_free_profile\": %llu, \"keys\": %llu, \"keys_equal\": %llu, \"unnamed\": %llu}",
                   (unsigned long long)cp.context_path_error, (unsigned long long)cp.paths_profile,
                   (unsigned long long)cp.paths_truth, (unsigned long long)cp.paths_truth_all,
                   (unsigned long long)(pc.paths_profile - pc.context_paths), (unsigned long long)cp.keys,
                   (unsigned long long)cp.keys_equal, (unsigned long long)cp.unnamed);
        else
            printf("null, \"contexts\": null");
        printf(", \"context_path_metric_error\": ");
        if (cp.present && cp.metered) {
            print_metric_errors(cp.event, cp.context_path_metric_error, cp.metric_profile, cp.metric_truth,
                                cp.metric_abs_diff, cp.metric_bias, "context_metrics");
            printf(", \"context_unmetered\": %llu", (unsigned long long)cp.unmetered);
        } else {
            printf("null");
        }
        printf(", \"ball_larus\": ");
        if (have_bl) {
            printf("{\"procedures\": %zu, \"exact\": %zu, \"paths\": %llu, \"counted\": %llu, "
                   "\"unknown\": %llu, \"lost\": %llu, \"by_procedure\": [",
                   bt.nprocs, bt.exact, (unsigned long long)bt.h.n, (unsigned long long)bt.counted,
                   (unsigned long long)bt.h.unknown, (unsigned long long)bt.h.lost);
            for (size_t k = 0; k < bt.nprocs; k++) {
                const struct bl_proc_check *c = &bt.procs[k];
                printf("%s\n  {\"start\": %llu, \"npaths\": %llu, \"paths_seen\": %llu, \"counted\": %llu, "
                       "\"edge_ends\": %llu}", k ? "," : "", (unsigned long long)c->start,
                       (unsigned long long)c->npaths, (unsigned long long)c->paths_seen,
                       (unsigned long long)c->counted, (unsigned long long)c->edge_ends);
            }
            printf("]}");
        } else {
            printf("null, \"ball_larus_missing\": ");
            json_str(stdout, err.msg);
        }
        printf("}\n");
    } else {
        printf("Paths reconstructed from ProfileMe branch history against the model's exact paths:\n"
               "%llu retired samples with code, %llu found in the oracle's log (%llu not: a pair with an\n"
               "aborted record).  Success: one path reconstructed and it is the true one (ProfileMe Figure 6);\n"
               "no-hist: the same without the history bits, the baseline.\n\n"
               "  %4s %9s %9s %9s %9s %9s %9s   %9s %9s\n",
               (unsigned long long)a.samples, (unsigned long long)a.matched, (unsigned long long)a.unmatched,
               "bits", "samples", "unique%", "success%", "no-hist%", "polluted%", "unresolv%", "2nd:hist%",
               "2nd:pair%");
        for (unsigned n = 0; n < PR_MAX_BITS; n++) {
            const struct path_success *r = &a.rows[n];
            double e = r->evaluated ? (double)r->evaluated : 1, se = r->seconds ? (double)r->seconds : 1;
            printf("  %4u %9llu %9.1f %9.1f %9.1f %9.1f %9.1f   %9.1f %9.1f\n", r->nbits,
                   (unsigned long long)r->evaluated, 100 * (double)r->unique / e, 100 * (double)r->success / e,
                   100 * (double)r->baseline_success / e, 100 * (double)r->polluted / e,
                   100 * (double)r->unresolved / e, 100 * (double)r->seconds_success / se,
                   100 * (double)r->pair_success / se);
        }
        if (have_bl)
            printf("\nThe model's exact Ball-Larus path counts (%s.blpaths): %llu paths of %zu procedures,\n"
                   "%llu path executions; %zu procedures' counts equal the oracle's executions of their\n"
                   "path-ending edges exactly; %llu transitions outside the plan, %llu paths lost.\n",
                   oracle_path, (unsigned long long)bt.h.n, bt.nprocs, (unsigned long long)bt.counted, bt.exact,
                   (unsigned long long)bt.h.unknown, (unsigned long long)bt.h.lost);
        else
            printf("\nNo Ball-Larus path counts: %s\n", err.msg);
        if (a.history_mismatch)
            printf("\n  %llu samples' logged branch directions disagree with their history bits\n",
                   (unsigned long long)a.history_mismatch);
        if (pc.present) {
            printf("\nInstrumented path counts (alphaprof instrument --paths, session %lld) against %s.blpaths:\n"
                   "  path_count_error %llu (sum over paths of |instrumented - truth|; exact: 0)\n"
                   "  %llu path executions counted, %llu by the truth, in %llu instrumented procedures "
                   "(%llu in the hash table);\n"
                   "  %llu distinct paths counted, %llu by the truth, %llu equal\n"
                   "  left alone: %llu procedures that ran (%llu path executions, not in the error)\n"
                   "  the board: %llu paths lost (register stack full or no hash slot), %llu unmatched exits, "
                   "%llu bad numbers\n",
                   (long long)pc.session, oracle_path, (unsigned long long)pc.path_count_error,
                   (unsigned long long)pc.paths_profile, (unsigned long long)pc.paths_truth,
                   (unsigned long long)pc.procs_instrumented, (unsigned long long)pc.procs_hashed,
                   (unsigned long long)pc.distinct_profile,
                   (unsigned long long)pc.distinct_truth, (unsigned long long)pc.distinct_equal,
                   (unsigned long long)pc.procs_left_alone_run, (unsigned long long)pc.paths_left_alone,
                   (unsigned long long)pc.lost_paths, (unsigned long long)pc.unmatched_exits,
                   (unsigned long long)pc.bad_paths);
            if (pc.event >= 0) {
                const char *names[2] = {"cycles", pmu_event_name((unsigned)pc.event)};
                printf("  per-path metrics against the model's deltas over each path (path_metric_error =\n"
                       "  sum |instrumented - truth| / sum truth; bias = (instrumented - truth) per execution,\n"
                       "  where the trampolines read the PMU page; %llu paths counted unmetered):\n",
                       (unsigned long long)pc.unmetered);
                for (unsigned k = 0; k < 2; k++)
                    printf("    %-8s path_metric_error %.4f  instrumented %llu, truth %llu, bias %+.2f per execution\n",
                           names[k], pc.path_metric_error[k], (unsigned long long)pc.metric_profile[k],
                           (unsigned long long)pc.metric_truth[k], pc.metric_bias[k]);
            }
            for (unsigned i = 0; i < pc.nleft_alone; i++)
                printf("    left alone: %s (0x%llx), %llu path executions (%s)\n",
                       pc.left_alone[i].name[0] ? pc.left_alone[i].name : "proc",
                       (unsigned long long)pc.left_alone[i].start,
                       (unsigned long long)pc.left_alone[i].executions, path_skip_name(pc.left_alone[i].why));
            for (unsigned i = 0; i < pc.nworst; i++)
                printf("    %s (0x%llx) path %llu: instrumented %llu, truth %llu\n",
                       pc.worst[i].name[0] ? pc.worst[i].name : "proc", (unsigned long long)pc.worst[i].proc,
                       (unsigned long long)pc.worst[i].path, (unsigned long long)pc.worst[i].profile,
                       (unsigned long long)pc.worst[i].truth);
        }
        if (cp.present) {
            printf("\nPaths per calling context (alphaprof instrument --both) against %s.cctpaths:\n"
                   "  context_path_error %llu (sum over (context, procedure, path) of |instrumented - truth|;\n"
                   "  exact: 0)\n"
                   "  %llu path executions counted in their context, %llu by the truth; %llu counted\n"
                   "  context-free (entered by no standard call, before the first call: in\n"
                   "  path_count_error's sums);\n"
                   "  %llu (context, procedure, path) seen, %llu equal\n",
                   oracle_path, (unsigned long long)cp.context_path_error, (unsigned long long)cp.paths_profile,
                   (unsigned long long)cp.paths_truth, (unsigned long long)(pc.paths_profile - pc.context_paths),
                   (unsigned long long)cp.keys, (unsigned long long)cp.keys_equal);
            for (size_t i = 0; i < cp.nworst; i++)
                printf("    in %s: proc 0x%llx path %llu: instrumented %llu, truth %llu\n",
                       cp.worst[i].node ? cp.worst[i].node->name : "(a context the image has no record of)",
                       (unsigned long long)cp.worst[i].proc, (unsigned long long)cp.worst[i].path,
                       (unsigned long long)cp.worst[i].profile, (unsigned long long)cp.worst[i].truth);
            if (cp.metered) {
                const char *names[2] = {"cycles", pmu_event_name((unsigned)cp.event)};
                printf("  per-context path metrics against the model's deltas per context\n"
                       "  (context_path_metric_error = sum over (context, procedure, path) of\n"
                       "  |instrumented - truth| / sum truth; bias per execution counted in a context;\n"
                       "  %llu counted in a context without metrics):\n", (unsigned long long)cp.unmetered);
                for (unsigned k = 0; k < 2; k++) {
                    const struct cct_path_metric_mismatch *w = &cp.metric_worst[k];
                    printf("    %-8s context_path_metric_error %.4f  instrumented %llu, truth %llu, bias %+.2f "
                           "per execution\n", names[k], cp.context_path_metric_error[k],
                           (unsigned long long)cp.metric_profile[k], (unsigned long long)cp.metric_truth[k],
                           cp.metric_bias[k]);
                    if (w->diff)
                        printf("      largest: in %s: proc 0x%llx path %llu: instrumented %llu, truth %llu\n",
                               w->node ? w->node->name : "(a context the image has no record of)",
                               (unsigned long long)w->proc, (unsigned long long)w->path,
                               (unsigned long long)w->profile, (unsigned long long)w->truth);
                }
            }
        }
    }
    if (have_bl)
        bl_truth_free(&bt);
    if (have_cv)
        cv_free(&cv);
    ps_free(&ps);
    pmepath_oracle_free(&po);
    return rc;
}

/* --cct: the instrumented run's calling context tree against the model's. */
static int check_cct(const struct check_options *opts)
{
    const char *db_path = profile_opts_db(&opts->po);
    struct ap_err err;
    struct pdb *db;
    struct cct_view v;
    struct cct_accuracy a;
    struct oracle_header oh;
    const char *sel = profile_sel_given(&opts->po.sel);
    if (sel) {
        fprintf(stderr, "alphaprof check: --cct compares the newest session's calling context tree whole: %s does "
                        "not apply; drop it\n", sel);
        return 2;
    }
    if (oracle_read_header(opts->oracle, &oh, &err) || not_a_snapshot(&oh, opts->oracle, &err) ||
        pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        return 1;
    }
    if (oracle_check_run(&oh, opts->oracle, db, opts->po.sel.epoch, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        pdb_close(db);
        return 1;
    }
    if (cv_load(db, 0, &v, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        pdb_close(db);
        return 1;
    }
    pdb_close(db);
    if (cct_accuracy(&v, opts->oracle, &a, &err)) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        cv_free(&v);
        return 1;
    }
    static const char *const names[CCT_ACC_NMETRICS] = CCT_ACC_METRIC_NAMES;
    if (opts->po.json) {
        printf("{\"session\": %lld, \"cct_count_error\": %llu, \"contexts_profile\": %llu, "
               "\"contexts_oracle\": %llu, \"contexts_equal\": %llu, \"calls_profile\": %llu, "
               "\"calls_oracle\": %llu, \"instrumentation_calls\": %llu, \"outside_calls\": %llu, "
               "\"skipped_calls\": %llu, "
               "\"overflow_calls\": %llu, \"metrics\": %s, \"cct_metric_error\": ",
               (long long)v.session, (unsigned long long)a.count_error, (unsigned long long)a.contexts_profile,
               (unsigned long long)a.contexts_oracle, (unsigned long long)a.contexts_equal,
               (unsigned long long)a.calls_profile, (unsigned long long)a.calls_oracle,
               (unsigned long long)a.instrumentation_calls, (unsigned long long)a.outside_calls,
               (unsigned long long)a.skipped_calls, (unsigned long long)a.overflow_calls,
               a.metrics ? "true" : "false");
        if (a.metrics) {
            printf("{");
            for (unsigned k = 0; k < CCT_ACC_NMETRICS; k++) {
                printf("%s\"%s\": ", k ? ", " : "", names[k]);
                json_num(stdout, a.metric_error[k]);
            }
            printf("}, \"cct_metrics\": [");
            for (unsigned k = 0; k < CCT_ACC_NMETRICS; k++) {
                printf("%s{\"metric\": \"%s\", \"profile\": %llu, \"truth\": %llu, \"abs_diff\": %llu, "
                       "\"bias_per_call\": ", k ? ", " : "", names[k], (unsigned long long)a.metric_profile[k],
                       (unsigned long long)a.metric_truth[k], (unsigned long long)a.metric_abs_diff[k]);
                json_num(stdout, a.metric_bias[k]);
                printf("}");
            }
            printf("]");
        } else {
            printf("null, \"cct_metrics\": null");
        }
        printf(", \"mismatches\": [");
        for (size_t i = 0; i < a.nworst; i++)
            printf("%s{\"core\": %d, \"depth\": %u, \"site\": %llu, \"callee\": %llu, \"profile\": %llu, "
                   "\"oracle\": %llu}", i ? ", " : "", a.worst[i].core, a.worst[i].depth,
                   (unsigned long long)a.worst[i].site, (unsigned long long)a.worst[i].callee,
                   (unsigned long long)a.worst[i].profile, (unsigned long long)a.worst[i].oracle);
        printf("]}\n");
    } else {
        printf("calling context tree of session %lld against %s.cct:\n", (long long)v.session, opts->oracle);
        printf("  contexts: %llu in the profile, %llu in the truth, %llu with equal call counts\n",
               (unsigned long long)a.contexts_profile, (unsigned long long)a.contexts_oracle,
               (unsigned long long)a.contexts_equal);
        printf("  calls: %llu in the profile, %llu in the truth (%llu more made by the instrumentation "
               "itself, left out)\n", (unsigned long long)a.calls_profile, (unsigned long long)a.calls_oracle,
               (unsigned long long)a.instrumentation_calls);
        if (a.outside_calls)
            printf("  %llu more calls in the truth were made from code in no function of the image (code it "
                   "wrote at run time), which no instrumenter of the image sees: left out\n",
                   (unsigned long long)a.outside_calls);
        printf("  cct_count_error %llu (sum over contexts of |profile - truth|; exact: 0)",
               (unsigned long long)a.count_error);
        if (a.skipped_calls || a.overflow_calls)
            printf("; the board skipped %llu calls (shadow stack full) and put %llu on the overflow record",
                   (unsigned long long)a.skipped_calls, (unsigned long long)a.overflow_calls);
        printf("\n");
        if (a.overflow_calls && v.paths)
            printf("  (the core's records were full: a --both image's records also hold the per-context path "
                   "counters\n  of every procedure with up to --context-paths paths; instrument --both "
                   "--context-paths N with a\n  smaller N makes them smaller)\n");
        if (a.metrics) {
            printf("  inclusive metrics per context against the model's deltas from each call to its return\n"
                   "  (cct_metric_error = sum |instrumented - truth| / sum truth; bias = (instrumented - truth)\n"
                   "  per call: where the trampolines read the PMU page, and what interrupts them there):\n");
            for (unsigned k = 0; k < CCT_ACC_NMETRICS; k++)
                printf("    %-8s cct_metric_error %.4f  instrumented %llu, truth %llu, bias %+.2f per call\n",
                       names[k], a.metric_error[k], (unsigned long long)a.metric_profile[k],
                       (unsigned long long)a.metric_truth[k], a.metric_bias[k]);
        } else {
            printf("  counts only (no metrics measured: instrument --cct --metrics for cct_metric_error)\n");
        }
        for (size_t i = 0; i < a.nworst; i++) {
            const struct cct_mismatch *m = &a.worst[i];
            printf("  core %d depth %u: %s called from 0x%llx: profile %llu, truth %llu\n", m->core, m->depth,
                   m->node ? m->node->name : "?", (unsigned long long)m->site, (unsigned long long)m->profile,
                   (unsigned long long)m->oracle);
        }
    }
    cv_free(&v);
    return 0;
}
