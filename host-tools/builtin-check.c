/*
 * alphaprof check --oracle FILE: how accurate is the profile?  Compares the
 * database's samples of one event with the hardware model's exact truth of
 * the same run: the fraction of the event attributed to the wrong
 * instruction (and procedure), the instructions that contribute most, and
 * whether every overflow the model produced is accounted for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "firmware/abi/link-protocol.h"
#include "util/accuracy.h"
#include "util/cycle-stacks.h"
#include "util/option-groups.h"
#include "util/oracle-file.h"
#include "util/pme-account.h"
#include "util/pme-accuracy.h"
#include "util/profile-db.h"
#include "util/profile-view.h"
#include "util/strvec.h"

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
             "--stacks shows those stacks.",
};

/* The command line of one check, parsed. */
struct check_options {
    struct profile_opts po;
    const char *oracle, *event;
    bool totals, stacks, whole_run;
    double max_error;           /* < 0: none */
};

/* The oracle event a profile event stands for. */
static int oracle_event(const char *name)
{
    if (!strcmp(name, "timer"))
        return PMU_EV_CYCLES;
    return pmu_event_lookup(name, strlen(name));
}

/* Name of the procedure holding pc, for the top differences. */
static const char *where(const struct profile_view *v, uint64_t pc)
{
    for (size_t m = 0; m < v->nimages; m++) {
        const struct symbol *s = v->images[m].st ? symtab_lookup(v->images[m].st, pc) : NULL;
        if (s)
            return s->name;
    }
    return "?";
}

struct diff_row {
    uint64_t pc;
    double profile, oracle;
};

static int cmp_diff(const void *a, const void *b)
{
    const struct diff_row *x = a, *y = b;
    double dx = x->profile > x->oracle ? x->profile - x->oracle : x->oracle - x->profile;
    double dy = y->profile > y->oracle ? y->profile - y->oracle : y->oracle - y->profile;
    return dx < dy ? 1 : dx > dy ? -1 : 0;
}

/* Prints the instructions whose shares differ most. */
static void print_top_differences(const struct profile_view *v, const struct keyed_count *a, size_t na,
                                  const struct keyed_count *b, size_t nb, size_t top)
{
    double ta = 0, tb = 0;
    for (size_t i = 0; i < na; i++)
        ta += a[i].count;
    for (size_t i = 0; i < nb; i++)
        tb += b[i].count;
    struct diff_row *rows = xmalloc((na + nb + 1) * sizeof *rows);
    size_t n = 0, i = 0, j = 0;
    while (i < na || j < nb) {
        if (j == nb || (i < na && a[i].key < b[j].key)) {
            rows[n++] = (struct diff_row){a[i].key, a[i].count / ta, 0};
            i++;
        } else if (i == na || b[j].key < a[i].key) {
            rows[n++] = (struct diff_row){b[j].key, 0, b[j].count / tb};
            j++;
        } else {
            rows[n++] = (struct diff_row){a[i].key, a[i].count / ta, b[j].count / tb};
            i++;
            j++;
        }
    }
    qsort(rows, n, sizeof *rows, cmp_diff);
    printf("  largest differences:\n  %18s %9s %9s  %s\n", "pc", "profile%", "oracle%", "procedure");
    for (size_t k = 0; k < n && k < top; k++)
        printf("  %18llx %9.3f %9.3f  %s\n", (unsigned long long)rows[k].pc, 100 * rows[k].profile,
               100 * rows[k].oracle, where(v, rows[k].pc));
    free(rows);
}

/* The ProfileMe estimates of the selection against the oracle
 * (util/pme-accuracy): 1 computed, 0 no ProfileMe samples, -1 error. */
static int pme_estimates(struct pdb *db, const struct pv_selection *sel, const struct oracle *o,
                         struct pme_accuracy *acc, struct ap_err *err)
{
    struct pme_view pv;
    if (pme_view_load(db, sel, 30, &pv, err))
        return -1;
    int rc = pv.samples ? 1 : 0;
    if (rc && pme_accuracy(&pv, o, acc, err))
        rc = -1;
    pme_view_free(&pv);
    return rc;
}

/* The key with the largest count (0 if none). */
static uint64_t top_key(const struct keyed_count *k, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (k[i].count > k[best].count)
            best = i;
    return n ? k[best].key : 0;
}

static uint64_t pc_of(const struct pv_insn *in)
{
    return in->img->id == 0 ? in->offset : in->img->address + in->offset;
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
    uint64_t cycles = 0, instructions = 0, events[PMU_EV_COUNT] = {0}, by_pc[PMU_EV_COUNT] = {0};
    for (unsigned c = 0; c < o->h.ncores; c++) {
        cycles += o->cores[c].cycles;
        instructions += o->cores[c].instructions;
        for (unsigned e = 0; e < PMU_EV_COUNT; e++)
            events[e] += o->cores[c].events[e];
    }
    for (uint64_t i = 0; i < o->h.npcs; i++)
        for (unsigned e = 0; e < PMU_EV_COUNT; e++)
            by_pc[e] += o->pcs[i].events[e];
    printf("{\"cycles\": %llu, \"instructions\": %llu", (unsigned long long)cycles,
           (unsigned long long)instructions);
    for (int which = 0; which < 2; which++) {
        const uint64_t *v = which ? by_pc : events;
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

int cmd_check(int argc, char **argv)
{
    struct check_options o = {.po = PROFILE_OPTS_INIT, .max_error = -1};
    const struct option options[] = {
        OPT_STRING(0, "oracle", &o.oracle, "FILE", "the oracle of the run (alphaprof record --oracle FILE)"),
        OPT_STRING(0, "event", &o.event, "NAME", "the sampled event to check (default: cycles, else timer);\n"
                   "timer samples are compared with the oracle's cycles"),
        OPT_DOUBLE(0, "max-error", &o.max_error, "F", 0, 1, 0,
                   "exit 1 if the instruction-level error exceeds F (0..1)"),
        OPT_BOOLEAN(0, "totals", &o.totals, "only the oracle's per-core totals (no profile needed)"),
        OPT_BOOLEAN(0, "stacks", &o.stacks, "only the oracle's cycle stacks: each core's, whether they\n"
                    "sum to its cycles exactly, and the top instructions' (no\n"
                    "profile needed; with --db, their procedures are named)"),
        OPT_BOOLEAN(0, "whole-run", &o.whole_run,
                    "compare with the whole run's truth, boot and final flush\n"
                    "included (default: the profiled interval, FILE.2 minus\n"
                    "FILE.1, when the monitor took those snapshots)"),
        OPT_GROUP("selecting the profile"),
        OPT_PROFILE_DB(&o.po), OPT_PROFILE_EPOCH(&o.po), OPT_PROFILE_JSON(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&check_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    if (!o.oracle)
        return opt_usage_error(&check_command, "give --oracle FILE (written by alphaprof record --oracle FILE)");
    return check_profile(&o);
}

static const char *name_in_view(void *ctx, uint64_t pc)
{
    return where(ctx, pc);
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
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof check: %s\n", err.msg);
        free_oracles(&o, &interval, have_interval);
        return 1;
    }
    int ev = -1;
    for (size_t e = 0; e < v.nevents && ev < 0; e++)
        if (event ? !strcmp(v.event_names[e], event) : !strcmp(v.event_names[e], "cycles"))
            ev = (int)e;
    if (ev < 0 && !event && v.nevents)
        ev = 0;
    int oev = ev >= 0 ? oracle_event(v.event_names[ev]) : -1;
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

    /* Instruction level. */
    struct keyed_count *prof = xmalloc((v.ninsns + 1) * sizeof *prof);
    size_t np = 0;
    for (size_t i = 0; i < v.ninsns; i++)
        if (v.insns[i].count[ev])
            prof[np++] = (struct keyed_count){pc_of(&v.insns[i]), (double)v.insns[i].count[ev]};
    np = keyed_normalise(prof, np);
    struct keyed_count *truth = xmalloc((t->h.npcs + 1) * sizeof *truth);
    size_t nt = 0;
    for (uint64_t i = 0; i < t->h.npcs; i++)
        if (t->pcs[i].events[oev])
            truth[nt++] = (struct keyed_count){t->pcs[i].pc, (double)t->pcs[i].events[oev]};
    double insn_error = distribution_error(prof, np, truth, nt);
    /* time: against the exact time-proportional truth (the cycle stacks) */
    double time_error = -1;
    if (oev == PMU_EV_CYCLES) {
        struct keyed_count *time = xmalloc((t->h.npcs + 1) * sizeof *time);
        time_error = distribution_error(prof, np, time, cycle_stacks_time(t, time));
        free(time);
    }

    /* Procedure level: both sides keyed by the start of their symbol. */
    struct keyed_count *pp = xmalloc((np + 1) * sizeof *pp), *tp = xmalloc((nt + 1) * sizeof *tp);
    for (size_t i = 0; i < np; i++)
        pp[i] = prof[i];
    for (size_t i = 0; i < nt; i++)
        tp[i] = truth[i];
    for (size_t k = 0; k < 2; k++) {
        struct keyed_count *vec = k ? tp : pp;
        size_t n = k ? nt : np;
        for (size_t i = 0; i < n; i++)
            for (size_t m = 0; m < v.nimages; m++) {
                const struct pv_image *img = &v.images[m];
                const struct symbol *s = img->st ? symtab_lookup(img->st, vec[i].key) : NULL;
                if (s) {
                    vec[i].key = s->start;
                    break;
                }
            }
    }
    size_t npp = keyed_normalise(pp, np), ntp = keyed_normalise(tp, nt);
    double proc_error = distribution_error(pp, npp, tp, ntp);
    const char *top_profile = where(&v, top_key(pp, npp)), *top_oracle = where(&v, top_key(tp, ntp));

    uint64_t samples = v.total[ev], overflows = 0, ring_dropped = 0, unread = 0, interrupts = 0;
    uint64_t instructions = 0, cycles = 0;
    for (unsigned c = 0; c < o.h.ncores; c++) {
        instructions += t->cores[c].instructions;
        cycles += t->cores[c].cycles;
        interrupts += o.cores[c].interrupts;
        overflows += o.cores[c].overflows;
        ring_dropped += o.cores[c].ring_dropped;
        unread += o.cores[c].ring_unread;
    }
    if (json) {
        printf("{\"event\": \"%s\", \"samples\": %llu, \"instruction_error\": %.6f, "
               "\"procedure_error\": %.6f, \"oracle_pcs\": %zu, \"profile_pcs\": %zu, "
               "\"model_overflows\": %llu, \"ring_dropped\": %llu, \"ring_unread\": %llu, "
               "\"interrupts\": %llu, \"oracle_instructions\": %llu, \"oracle_cycles\": %llu, "
               "\"top_procedure\": {\"profile\": \"%s\", \"oracle\": \"%s\"}, \"oracle_scope\": \"%s\"",
               v.event_names[ev], (unsigned long long)samples, insn_error, proc_error, nt, np,
               (unsigned long long)overflows, (unsigned long long)ring_dropped,
               (unsigned long long)unread, (unsigned long long)interrupts,
               (unsigned long long)instructions, (unsigned long long)cycles, top_profile, top_oracle,
               have_interval ? "interval" : "run");
        if (time_error >= 0)
            printf(", \"time_error\": %.6f", time_error);
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
               (unsigned long long)samples, oracle_event(v.event_names[ev]) == PMU_EV_CYCLES ? "cycles" : v.event_names[ev],
               o.h.ncores);
        printf("  instruction-level error  %6.2f%%  (share of the event on the wrong instruction)\n",
               100 * insn_error);
        if (time_error >= 0)
            printf("  instruction time error   %6.2f%%  (against the exact time-proportional truth, TIP's rules)\n",
                   100 * time_error);
        printf("  procedure-level error    %6.2f%%  (top procedure: %s in the profile, %s in the oracle)\n",
               100 * proc_error, top_profile, top_oracle);
        printf("  instructions: %zu in the profile, %zu in the oracle\n", np, nt);
        print_top_differences(&v, prof, np, truth, nt, 8);
        if (have_interval)
            printf("  (the oracle's truth of the profiled interval: its stop snapshot minus its start)\n");
        else
            printf("  (the oracle covers the whole run, boot and the final flush included, which no\n"
                   "  sample can see; the profile covers the sampled part)\n");
        if (overflows)
            printf("  the model produced %llu overflow records of all events: %llu lost in full rings,\n"
                   "  %llu produced after the profiler stopped (never drained)\n",
                   (unsigned long long)overflows, (unsigned long long)ring_dropped,
                   (unsigned long long)unread);
        if (interrupts)
            printf("  %llu performance interrupts delivered them\n", (unsigned long long)interrupts);
        if (have_pme)
            pme_account_print(stdout, &pa);
        if (have_est)
            pme_accuracy_print(stdout, &pacc);
    }
    free(prof);
    free(truth);
    free(pp);
    free(tp);
    pv_free(&v);
    free_oracles(&o, &interval, have_interval);
    if (max_error >= 0 && insn_error > max_error) {
        fprintf(stderr, "alphaprof check: instruction-level error %.4f exceeds --max-error %.4f\n",
                insn_error, max_error);
        return 1;
    }
    return 0;
}
