/*
 * alphaprof pme: what the ProfileMe samples say about each instruction
 * (seed profileme-micro97 sections 5-6): estimated retire and event counts
 * kS with their 1/sqrt(k) variation and 95 % intervals, abort, miss and
 * mispredict rates, the mean latency of each pipeline stage, and from
 * paired samples the wasted issue slots, useful concurrency and IPC near
 * each instruction, ranked to point at the bottlenecks.  The estimators
 * are util/pme-estimate; the data util/pme-view.
 *
 * Invariants:
 *  1. Read-only: the database is opened for reading and closed before
 *     the report is printed.
 *  2. The order is total: rows by --sort, ties by PC, so the same
 *     database always gives the same listing.
 *  3. --interval, --pair-interval and --window, when given, replace the
 *     database's values; otherwise the database's are used.
 *  4. Exit status: 0 printed; 1 no database, no ProfileMe samples or no
 *     such procedure; 2 bad options (--rates names are checked against
 *     the database's event bits, so only after it is read).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "hw-model/isa/alpha-isa.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/calc-profile.h"
#include "util/pme-estimate.h"
#include "util/pme-loops.h"
#include "util/pme-stacks.h"
#include "util/pme-view.h"
#include "util/profile-db.h"
#include "util/strvec.h"

#define DEFAULT_ISSUE_WIDTH 4   /* the hardware model's width (hw-model/model/core-model.c) */
#define DEFAULT_IPC_WINDOW  30  /* cycles, as the seed's IPC measurements */
#define MAX_RATES           8

static const struct opt_command pme_command = {
    .name = "pme",
    .synopsis = "[options] [PROCEDURE]",
    .about = "Per-instruction estimates from ProfileMe samples (alphaprof record --profileme\n"
             "or --paired): with k samples of a property and one sample every S fetched\n"
             "instructions, kS estimates how often the instruction had it (coefficient of\n"
             "variation about 1/sqrt(k), 95 % interval shown); rates of aborts, misses and\n"
             "mispredicts among its samples; mean cycles in each pipeline stage.  With paired\n"
             "samples also the issue slots wasted while the instruction was in progress\n"
             "(L C S/2 - U W S), its useful concurrency and the IPC around it, most wasted\n"
             "first: the bottlenecks.  PROCEDURE keeps that procedure's instructions.\n"
             "--stacks: where the cycles went, per procedure, loop and instruction, in the causes of\n"
             "the model's exact cycle stacks, estimated from the paired samples' records\n"
             "(util/pme-stacks.h; check them with alphaprof check --pme).",
};

static const char *const sort_names[] = {"retired", "samples", "latency", "wasted", NULL};

/* The command line of one pme, parsed. */
struct pme_options {
    struct profile_opts po;
    const char *proc, *rates_arg;
    unsigned limit;
    int sort;                   /* enum sort_key */
    double interval, pair_interval, window, C, T;
    bool stacks;
    const char *board;
};

enum sort_key { SORT_RETIRED, SORT_SAMPLES, SORT_LATENCY, SORT_WASTED };

struct row {
    const struct pme_insn *in;
    const struct symbol *sym;
    uint64_t pc;
    double retired_est, latency, wasted;
    struct pme_concurrency conc;
    bool has_pairs;
};

static enum sort_key sort_key;

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    double kx, ky;
    switch (sort_key) {
    case SORT_SAMPLES: kx = (double)x->in->samples; ky = (double)y->in->samples; break;
    case SORT_LATENCY: kx = x->latency * (double)x->in->samples; ky = y->latency * (double)y->in->samples; break;
    case SORT_WASTED: kx = x->has_pairs ? x->wasted : -INFINITY; ky = y->has_pairs ? y->wasted : -INFINITY; break;
    default: kx = (double)x->in->retired; ky = (double)y->in->retired; break;
    }
    if (kx != ky)
        return kx > ky ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Mean fetch-to-retire-ready cycles of the aggregates: stages up to retire-ready. */
static double mean_in_progress(const struct pme_insn *in)
{
    if (!in->samples)
        return 0;
    uint64_t s = in->lat[PME_LAT_FETCH_MAP] + in->lat[PME_LAT_MAP_DATA] + in->lat[PME_LAT_DATA_ISSUE] +
                 in->lat[PME_LAT_ISSUE_RETREADY];
    return (double)s / (double)in->samples;
}

static void disasm(const struct pme_insn *in, uint64_t pc, char *text, size_t n)
{
    uint32_t word;
    if (in->img->st && symtab_read(in->img->st, pc, &word, 4))
        alpha_disassemble(word, pc, text, n);
    else
        snprintf(text, n, "??");
}

static void where(const struct row *r, char *out, size_t n)
{
    if (r->sym)
        snprintf(out, n, "%s+0x%llx", r->sym->name, (unsigned long long)(r->pc - r->sym->start));
    else
        snprintf(out, n, "[%s]", r->in->img->name);
}

static void print_text(const struct pme_view *v, struct row *rows, size_t n, const int *rates, size_t nrates,
                       size_t limit, double C, const char *proc)
{
    if (v->epoch < 0)
        printf("ProfileMe, every epoch");
    else
        printf("ProfileMe, epoch %lld", (long long)v->epoch);
    if (proc)
        printf(", procedure %s", proc);
    printf(": %llu samples (%llu retired, %llu aborted)", (unsigned long long)v->samples,
           (unsigned long long)v->retired, (unsigned long long)v->aborted);
    if (v->interval)
        printf(", one per %.0f fetched instructions (S)\n", v->interval);
    else
        printf("; sampling interval unknown (estimates need --interval S)\n");
    if (v->record_loss_factor > 1.001 || v->pair_loss_factor > 1.001)
        printf("Warning: %.1f%% of the records (%.1f%% of the pairs) were lost before the database (alphaprof db "
               "dump drops); the intervals are scaled to the samples kept, which holds only if the losses were "
               "uniform over the run\n", 100 * (1 - 1 / v->record_loss_factor), 100 * (1 - 1 / v->pair_loss_factor));
    if (v->npairs) {
        printf("Paired samples: %llu pairs", (unsigned long long)v->npairs);
        if (v->pair_interval)
            printf(", one per %.0f fetched instructions", v->pair_interval);
        printf(", window W = %.0f%s, issue width C = %.0f, IPC window T = %.0f cycles\n", v->window,
               v->window_estimated ? " (estimated from the gaps)" : "", C, v->ipc_window);
    }
    size_t m = limit && limit < n ? limit : n;
    printf("\nEvent frequencies (estimate = k S; +- = 1/sqrt(k); 95%% interval):\n");
    printf("%8s %8s %12s %6s %25s %7s", "samples", "retired", "est.retires", "+-%", "95% interval", "abort%");
    for (size_t r = 0; r < nrates; r++)
        printf(" %10.10s%%", v->bit_names[rates[r]]);
    printf("  %-18s %-28s %s\n", "address", "where", "instruction");
    for (size_t i = 0; i < m; i++) {
        const struct row *r = &rows[i];
        const struct pme_insn *in = r->in;
        struct pme_count_est c;
        pme_count_estimate(in->retired, v->interval, PME_Z95, &c);
        char est[32], cv[16], ci[48], text[96], w[96];
        if (v->interval) {
            snprintf(est, sizeof est, "%.0f", c.estimate);
            snprintf(ci, sizeof ci, "%.0f..%.0f", c.lo, c.hi);
        } else {
            snprintf(est, sizeof est, "?");
            snprintf(ci, sizeof ci, "?");
        }
        if (in->retired)
            snprintf(cv, sizeof cv, "%.1f", 100 * c.cv);
        else
            snprintf(cv, sizeof cv, "-");
        printf("%8llu %8llu %12s %6s %25s %7.2f", (unsigned long long)in->samples, (unsigned long long)in->retired,
               est, cv, ci, in->samples ? 100.0 * (double)in->aborted / (double)in->samples : 0.0);
        for (size_t k = 0; k < nrates; k++) {
            if (in->bits[rates[k]])
                printf(" %11.2f", in->samples ? 100.0 * (double)in->bits[rates[k]] / (double)in->samples : 0.0);
            else
                printf(" %11s", ".");
        }
        disasm(in, r->pc, text, sizeof text);
        where(r, w, sizeof w);
        printf("  %-18llx %-28s %s\n", (unsigned long long)r->pc, w, text);
    }
    if (m < n)
        printf("(%zu more instructions; --limit 0 shows all)\n", n - m);

    printf("\nLatency breakdown (mean cycles per sample in each stage):\n");
    printf("%8s", "samples");
    for (size_t f = 0; f < v->nlat; f++)
        printf(" %15.15s", v->lat_names[f]);
    printf(" %15s  %-18s %s\n", "fetch->retready", "address", "where");
    for (size_t i = 0; i < m; i++) {
        const struct row *r = &rows[i];
        char w[96];
        printf("%8llu", (unsigned long long)r->in->samples);
        for (size_t f = 0; f < v->nlat; f++)
            printf(" %15.2f", r->in->samples ? (double)r->in->lat[f] / (double)r->in->samples : 0.0);
        where(r, w, sizeof w);
        printf(" %15.2f  %-18llx %s\n", r->latency, (unsigned long long)r->pc, w);
    }

    if (!v->npairs)
        return;
    /* Bottlenecks: most wasted slots first, whatever --sort says. */
    struct row *by = xmalloc((n ? n : 1) * sizeof *by);
    memcpy(by, rows, n * sizeof *by);
    enum sort_key keep = sort_key;
    sort_key = SORT_WASTED;
    qsort(by, n, sizeof *by, cmp_row);
    sort_key = keep;
    size_t np = 0;
    for (size_t i = 0; i < n; i++)
        np += by[i].has_pairs;
    m = limit && limit < np ? limit : np;
    printf("\nBottlenecks from paired samples (wasted issue slots = L C S/2 - U W S, most first):\n");
    if (!v->pair_interval)
        printf("(pair interval unknown: give --pair-interval S for slot counts; the ranking holds)\n");
    printf("%7s %7s %14s %14s %14s %11s %8s %8s  %-18s %s\n", "pairs", "useful", "wasted", "slots", "useful.issued",
           "concurrency", "IPC.near", "latency", "address", "where");
    double S = v->pair_interval ? v->pair_interval : 1;
    for (size_t i = 0; i < m; i++) {
        const struct row *r = &by[i];
        const struct pme_pair_acc *a = &r->in->pair;
        char w[96];
        where(r, w, sizeof w);
        struct pme_concurrency c;
        pme_concurrency_estimate(a, S, v->window, C, v->ipc_window, &c);
        printf("%7llu %7llu %14.0f %14.0f %14.0f %11.2f %8.2f %8.2f  %-18llx %s\n", (unsigned long long)a->pairs,
               (unsigned long long)(a->useful_fwd + a->useful_bwd), c.wasted, c.slots, c.useful, c.concurrency,
               c.ipc_near, c.mean_latency, (unsigned long long)r->pc, w);
    }
    if (m < np)
        printf("(%zu more instructions with pairs; --limit 0 shows all)\n", np - m);
    free(by);
}

static void json_est(const struct pme_count_est *c, bool known)
{
    printf("{\"k\": %llu, \"estimate\": ", (unsigned long long)c->k);
    json_num(stdout, known ? c->estimate : NAN);
    printf(", \"cv\": ");
    json_num(stdout, c->cv);
    printf(", \"lo\": ");
    json_num(stdout, known ? c->lo : NAN);
    printf(", \"hi\": ");
    json_num(stdout, known ? c->hi : NAN);
    printf("}");
}

static void print_json(const struct pme_view *v, struct row *rows, size_t n, size_t limit, double C)
{
    printf("{\"epoch\": %lld, \"samples\": %llu, \"retired\": %llu, \"aborted\": %llu, \"interval\": ",
           (long long)v->epoch, (unsigned long long)v->samples, (unsigned long long)v->retired,
           (unsigned long long)v->aborted);
    json_num(stdout, v->interval ? v->interval : NAN);
    printf(", \"pairs\": %llu, \"pair_interval\": ", (unsigned long long)v->npairs);
    json_num(stdout, v->pair_interval ? v->pair_interval : NAN);
    printf(", \"window\": ");
    json_num(stdout, v->window ? v->window : NAN);
    printf(", \"record_loss_factor\": ");
    json_num(stdout, v->record_loss_factor);
    printf(", \"pair_loss_factor\": ");
    json_num(stdout, v->pair_loss_factor);
    printf(", \"window_estimated\": %s, \"issue_width\": ", v->window_estimated ? "true" : "false");
    json_num(stdout, C);
    printf(", \"ipc_window\": ");
    json_num(stdout, v->ipc_window);
    printf(", \"bit_names\": [");
    for (size_t b = 0; b < v->nbits; b++) {
        printf("%s", b ? ", " : "");
        json_str(stdout, v->bit_names[b]);
    }
    printf("], \"latency_names\": [");
    for (size_t f = 0; f < v->nlat; f++) {
        printf("%s", f ? ", " : "");
        json_str(stdout, v->lat_names[f]);
    }
    printf("],\n \"instructions\": [");
    size_t m = limit && limit < n ? limit : n;
    for (size_t i = 0; i < m; i++) {
        const struct row *r = &rows[i];
        const struct pme_insn *in = r->in;
        char text[96];
        disasm(in, r->pc, text, sizeof text);
        printf("%s\n  {\"address\": %llu, \"image\": ", i ? "," : "", (unsigned long long)r->pc);
        json_str(stdout, in->img->name);
        printf(", \"offset\": %llu, \"procedure\": ", (unsigned long long)in->offset);
        json_str(stdout, r->sym ? r->sym->name : NULL);
        printf(", \"instruction\": ");
        json_str(stdout, text);
        printf(", \"samples\": %llu, \"retired\": %llu, \"aborted\": %llu", (unsigned long long)in->samples,
               (unsigned long long)in->retired, (unsigned long long)in->aborted);
        struct pme_count_est c;
        pme_count_estimate(in->retired, v->interval, PME_Z95, &c);
        printf(", \"retire_estimate\": ");
        json_est(&c, v->interval > 0);
        pme_count_estimate(in->samples, v->interval, PME_Z95, &c);
        printf(", \"fetch_estimate\": ");
        json_est(&c, v->interval > 0);
        printf(", \"events\": {");
        bool first = true;
        for (size_t b = 0; b < v->nbits; b++) {
            if (!in->bits[b])
                continue;
            struct pme_rate_est rt;
            pme_rate_estimate(in->bits[b], in->samples, PME_Z95, &rt);
            pme_count_estimate(in->bits[b], v->interval, PME_Z95, &c);
            printf("%s", first ? "" : ", ");
            first = false;
            json_str(stdout, v->bit_names[b]);
            printf(": {\"k\": %llu, \"estimate\": ", (unsigned long long)in->bits[b]);
            json_num(stdout, v->interval ? c.estimate : NAN);
            printf(", \"cv\": ");
            json_num(stdout, c.cv);
            printf(", \"rate\": ");
            json_num(stdout, rt.rate);
            printf(", \"rate_lo\": ");
            json_num(stdout, rt.lo);
            printf(", \"rate_hi\": ");
            json_num(stdout, rt.hi);
            printf("}");
        }
        printf("}, \"latency_mean\": {");
        for (size_t f = 0; f < v->nlat; f++) {
            printf("%s", f ? ", " : "");
            json_str(stdout, v->lat_names[f]);
            printf(": ");
            json_num(stdout, in->samples ? (double)in->lat[f] / (double)in->samples : NAN);
        }
        printf("}, \"fetch_to_retready\": ");
        json_num(stdout, in->samples ? r->latency : NAN);
        printf(", \"paired\": ");
        if (!r->has_pairs) {
            printf("null}");
            continue;
        }
        const struct pme_pair_acc *a = &in->pair;
        printf("{\"records\": %llu, \"useful_forward\": %llu, \"useful_backward\": %llu, \"retired\": %llu, "
               "\"near\": %llu, \"latency_sum\": ",
               (unsigned long long)a->pairs, (unsigned long long)a->useful_fwd, (unsigned long long)a->useful_bwd,
               (unsigned long long)a->retired, (unsigned long long)a->near);
        json_num(stdout, a->latency);
        bool known = v->pair_interval > 0;
        printf(", \"wasted_slots\": ");
        json_num(stdout, known ? r->conc.wasted : NAN);
        printf(", \"slots\": ");
        json_num(stdout, known ? r->conc.slots : NAN);
        printf(", \"useful_issued\": ");
        json_num(stdout, known ? r->conc.useful : NAN);
        printf(", \"latency_total\": ");
        json_num(stdout, known ? r->conc.latency_total : NAN);
        printf(", \"concurrency\": ");
        json_num(stdout, r->conc.concurrency);
        printf(", \"ipc_near\": ");
        json_num(stdout, r->conc.ipc_near);
        printf(", \"mean_latency\": ");
        json_num(stdout, r->conc.mean_latency);
        printf("}}");
    }
    printf("]}\n");
}

#define POSITIVE(l, v, a, h) OPT_DOUBLE(0, l, v, a, 0, 1e12, OPT_ABOVE_MIN, h)

static int pme_report(const struct pme_options *o);
static int pme_stacks_report(const struct pme_options *o);

int cmd_pme(int argc, char **argv)
{
    struct pme_options o = {.po = PROFILE_OPTS_INIT, .rates_arg = "dmiss,imiss,mispredict", .limit = OPT_LIMIT_UNSET,
                            .sort = SORT_RETIRED, .C = DEFAULT_ISSUE_WIDTH, .T = DEFAULT_IPC_WINDOW};
    struct strvec operands = {0};
    const struct option options[] = {
        OPT_CHOICE(0, "sort", &o.sort, sort_names, "KEY", "retired (default), samples, latency or wasted"),
        OPT_STRING(0, "rates", &o.rates_arg, "LIST", "event bits shown as rates (default dmiss,imiss,mispredict)"),
        OPT_LIMIT(&o.limit, "instructions per table"),
        POSITIVE("interval", &o.interval, "S", "fetched instructions per sample (given: used instead of the database's)"),
        POSITIVE("pair-interval", &o.pair_interval, "S", "fetched instructions per pair (given: used instead of the database's)"),
        POSITIVE("window", &o.window, "W", "the pair window (given: used instead of the database's)"),
        POSITIVE("issue-width", &o.C, "C", "issue slots per cycle (default " GRAMMAR_STR(DEFAULT_ISSUE_WIDTH)
                 ", the model's)"),
        POSITIVE("ipc-window", &o.T, "T", "cycles of the IPC window (default " GRAMMAR_STR(DEFAULT_IPC_WINDOW) ")"),
        OPT_BOOLEAN(0, "stacks", &o.stacks, "cycle stacks per procedure, loop and instruction (needs --paired)"),
        OPT_STRING(0, "board", &o.board, "NAME", "with --stacks: the board recorded on, for its core's\n"
                   "latencies and penalty (default: the one record stored\n"
                   "with the profile, else " DEFAULT_MODEL_BOARD ")"),
        OPT_PROFILE_SELECT(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&pme_command, options, argc, argv, &operands, NULL);
    int rc = r != OPT_PARSED ? opt_exit(r)
             : operands.n > 1 ? opt_usage_error(&pme_command, "unexpected argument '%s'", operands.v[1]) : -1;
    if (rc < 0) {
        o.proc = operands.n ? operands.v[0] : NULL;
        rc = o.stacks ? pme_stacks_report(&o) : pme_report(&o);
    }
    strvec_free(&operands);
    return rc;
}

/* Loads the selected profile's ProfileMe view with the options'
 * overrides: 0, or 1 after saying why. */
static int pme_load(const struct pme_options *o, const char *db_path, struct pme_view *v)
{
    struct ap_err err;
    struct pdb *db;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof pme: %s\n", err.msg);
        return 1;
    }
    int rc = pme_view_load(db, &o->po.sel, o->T, v, &err);
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof pme: %s\n", err.msg);
        return 1;
    }
    pv_warn_images(stderr, "alphaprof pme", v->images, v->nimages, NULL, 0);
    if (o->interval)
        v->interval = o->interval;
    if (o->pair_interval)
        v->pair_interval = o->pair_interval;
    if (o->window) {
        v->window = o->window;
        v->window_estimated = false;
    }
    if (!v->ninsns) {
        fprintf(stderr, "alphaprof pme: %s holds no ProfileMe samples for this selection; "
                        "record some with alphaprof record --profileme (or --paired)\n", db_path);
        pme_view_free(v);
        return 1;
    }
    return 0;
}

/* --rates LIST: the event bits, by the names of the database's view (so
 * checked once it is loaded): 0, or a usage error (2). */
static int parse_rates(const struct pme_view *v, const char *list, int *rates, size_t *nrates)
{
    char *copy = xstrdup(list), *save = NULL;
    int rc = 0;
    *nrates = 0;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        int b = pme_bit_index(v, t);
        if (b >= 0 && *nrates < MAX_RATES) {
            rates[(*nrates)++] = b;
            continue;
        }
        char names[LK_MAX_BITS * 34] = "";
        size_t len = 0;
        for (size_t k = 0; k < v->nbits && len < sizeof names; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, " %s", v->bit_names[k]);
        rc = opt_usage_error(&pme_command, "--rates '%s': %s '%s' (the event bits:%s)", list,
                             b < 0 ? "no event bit" : "at most " GRAMMAR_STR(MAX_RATES) " rates, at", t, names);
    }
    free(copy);
    return rc;
}

/* The rows of the instructions with samples (of proc, if given); *seen:
 * whether proc has any instruction in the view. */
static struct row *collect_rows(const struct pme_view *v, const struct pme_options *o, size_t *n, bool *seen)
{
    struct row *rows = xmalloc(v->ninsns * sizeof *rows);
    *n = 0;
    *seen = false;
    for (size_t i = 0; i < v->ninsns; i++) {
        const struct pme_insn *in = &v->insns[i];
        uint64_t pc = pme_insn_pc(in);
        const struct symbol *sym = in->img->st ? symtab_lookup(in->img->st, pc) : NULL;
        if (o->proc && !(sym && !strcmp(sym->name, o->proc)))
            continue;
        *seen = true;
        if (!in->samples && !in->pair.pairs)
            continue;
        struct row *r = &rows[(*n)++];
        memset(r, 0, sizeof *r);
        r->in = in;
        r->sym = sym;
        r->pc = pc;
        r->latency = mean_in_progress(in);
        r->has_pairs = in->pair.pairs > 0;
        pme_concurrency_estimate(&in->pair, v->pair_interval ? v->pair_interval : 1, v->window, o->C, o->T,
                                 &r->conc);
        r->wasted = r->conc.wasted;
    }
    return rows;
}

/* The estimates of the selected profile. */
static int pme_report(const struct pme_options *o)
{
    struct pme_view v;
    int rates[MAX_RATES];
    size_t nrates, n;
    bool seen;
    int rc = pme_load(o, profile_opts_db(&o->po), &v);
    if (rc)
        return rc;
    rc = parse_rates(&v, o->rates_arg, rates, &nrates);
    struct row *rows = rc ? NULL : collect_rows(&v, o, &n, &seen);
    if (rows && o->proc && !seen) {
        fprintf(stderr, "alphaprof pme: no ProfileMe samples in a procedure '%s'%s; alphaprof pme without a "
                        "procedure lists the sampled instructions\n", o->proc, o->po.sel.image ? " (with --image)" : "");
        rc = 1;
    } else if (rows) {
        sort_key = (enum sort_key)o->sort;
        qsort(rows, n, sizeof *rows, cmp_row);
        if (o->po.json)
            print_json(&v, rows, n, opt_limit(o->limit, true), o->C);
        else
            print_text(&v, rows, n, rates, nrates, opt_limit(o->limit, false), o->C, o->proc);
    }
    free(rows);
    pme_view_free(&v);
    return rc;
}

/* --- --stacks ------------------------------------------------------------ */

static int cmp_insn_stack(const void *a, const void *b)
{
    const struct pme_stack *x = a, *y = b;
    double tx = pme_stack_total(x), ty = pme_stack_total(y);
    if (tx != ty)
        return tx > ty ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void json_stack(const double *cause)
{
    static const char *const names[] = {CYCLE_CAUSE_NAMES};
    printf("{");
    for (unsigned c = 0; c < CAUSE_COUNT; c++) {
        printf("%s\"%s\": ", c ? ", " : "", names[c]);
        json_num(stdout, cause[c]);
    }
    printf("}");
}

/* Estimated executions with their 95 % interval (NaN without the
 * database's interval), and the stack. */
static void json_estimate_stack(const struct pme_view *v, const struct pme_count_est *e, const double *cause)
{
    printf(", \"executions\": ");
    json_num(stdout, v->interval ? e->estimate : NAN);
    printf(", \"executions_lo\": ");
    json_num(stdout, v->interval ? e->lo : NAN);
    printf(", \"executions_hi\": ");
    json_num(stdout, v->interval ? e->hi : NAN);
    printf(", \"stack\": ");
    json_stack(cause);
}

/* A row's estimated executions from its retired records, and its stack. */
static void json_executions(const struct pme_view *v, double retired, const double *cause)
{
    struct pme_count_est e;
    pme_count_estimate(retired, v->interval, PME_Z95, &e);
    json_estimate_stack(v, &e, cause);
}

/* A loop's name column: its procedure indented by its depth. */
static void loop_name(const struct pme_loop *l, char *out, size_t n)
{
    snprintf(out, n, "%*s%s", 2 * (int)(l->depth - 1), "", l->proc);
}

static void print_loops(const struct pme_view *v, const struct pme_loop *lp, size_t nl, size_t limit,
                        double total, bool json)
{
    static const char *const names[] = {CYCLE_CAUSE_NAMES};
    if (json) {
        printf(",\n \"loops\": [");
        for (size_t k = 0; k < nl && k < limit; k++) {
            const struct pme_loop *l = &lp[k];
            struct pme_count_est e;
            pme_loop_executions(l, v->interval, &e);
            printf("%s\n  {\"header\": %llu, \"procedure\": ", k ? "," : "", (unsigned long long)l->header);
            json_str(stdout, l->proc);
            printf(", \"image\": ");
            json_str(stdout, l->image);
            printf(", \"depth\": %u, \"parent\": ", l->depth);
            if (l->parent)
                printf("%llu", (unsigned long long)l->parent);
            else
                printf("null");
            printf(", \"file\": ");
            if (l->file)
                json_str(stdout, l->file);
            else
                printf("null");
            printf(", \"line\": %u, \"blocks\": %u, \"cycles\": ", l->line, l->nblocks);
            json_num(stdout, l->total);
            printf(", \"header_records\": %llu", (unsigned long long)l->header_retired);
            json_estimate_stack(v, &e, l->cause);
            printf("}");
        }
        printf("]");
        return;
    }
    if (!nl) {
        printf("\nno loops in the sampled procedures\n");
        return;
    }
    printf("\nloops (natural loops of each procedure's CFG; cycles include inner loops', executions are the "
           "header's):\n%-18s %-24s %-20s %8s %12s %12s", "header", "procedure", "line", "cycles%", "cycles",
           "executions");
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        printf(" %6.6s", names[c]);
    printf("\n");
    for (size_t k = 0; k < nl && k < limit; k++) {
        const struct pme_loop *l = &lp[k];
        char name[64], line[64];
        struct pme_count_est e;
        pme_loop_executions(l, v->interval, &e);
        loop_name(l, name, sizeof name);
        if (l->file) {
            const char *base = strrchr(l->file, '/');
            snprintf(line, sizeof line, "%s:%u", base ? base + 1 : l->file, l->line);
        } else {
            snprintf(line, sizeof line, "?");
        }
        printf("%18llx %-24.24s %-20.20s %8.2f %12.0f %12.0f", (unsigned long long)l->header, name, line,
               total > 0 ? 100 * l->total / total : 0, l->total, v->interval ? e.estimate : NAN);
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            printf(" %6.1f", l->total > 0 ? 100 * l->cause[c] / l->total : 0);
        printf("\n");
    }
}

static void print_stacks(const struct pme_view *v, const struct pme_stack *st, size_t n,
                         const struct pme_proc_stack *ps, size_t np, const struct pme_loop *lp, size_t nl,
                         size_t limit, bool json)
{
    static const char *const names[] = {CYCLE_CAUSE_NAMES};
    double total = 0;
    for (size_t k = 0; k < np; k++)
        total += ps[k].total;
    if (json) {
        printf("{\"pairs\": %llu, \"pair_interval\": ", (unsigned long long)v->npairs);
        json_num(stdout, v->pair_interval);
        printf(", \"cycles\": ");
        json_num(stdout, total);
        printf(", \"procedures\": [");
        for (size_t k = 0; k < np && k < limit; k++) {
            printf("%s\n  {\"procedure\": ", k ? "," : "");
            json_str(stdout, ps[k].name);
            printf(", \"image\": ");
            json_str(stdout, ps[k].image);
            printf(", \"cycles\": ");
            json_num(stdout, ps[k].total);
            json_executions(v, ps[k].retired, ps[k].cause);
            printf("}");
        }
        printf("]");
        print_loops(v, lp, nl, limit, total, true);
        printf(",\n \"instructions\": [");
        for (size_t i = 0; i < n && i < limit; i++) {
            printf("%s\n  {\"pc\": %llu, \"procedure\": ", i ? "," : "", (unsigned long long)st[i].pc);
            json_str(stdout, pme_stack_procedure(&st[i]));
            printf(", \"cycles\": ");
            json_num(stdout, pme_stack_total(&st[i]));
            printf(", \"records\": %.0f, \"retire_share\": ", st[i].records);
            json_num(stdout, st[i].share);
            json_executions(v, st[i].in->retired, st[i].cause);
            printf("}");
        }
        printf("]}\n");
        return;
    }
    if (v->time_interval > 0)       /* (pme-stacks.h note 12) */
        printf("Cycle stacks from %llu time-sampled ProfileMe records (one every %.0f cycles): %.0f cycles\n"
               "estimated; shares of each row's cycles by cause (hw-model/cycle-causes.h)\n\n",
               (unsigned long long)(2 * v->npairs), v->time_interval, total);
    else
        printf("Cycle stacks from %llu ProfileMe pairs (one every %.0f fetched instructions): %.0f cycles\n"
               "estimated; shares of each row's cycles by cause (hw-model/cycle-causes.h)\n\n",
               (unsigned long long)v->npairs, v->pair_interval, total);
    printf("%-24s %8s %12s", "procedure", "cycles%", "cycles");
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        printf(" %6.6s", names[c]);
    printf("\n");
    for (size_t k = 0; k < np && k < limit; k++) {
        printf("%-24.24s %8.2f %12.0f", ps[k].name[0] ? ps[k].name : ps[k].image,
               total > 0 ? 100 * ps[k].total / total : 0, ps[k].total);
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            printf(" %6.1f", ps[k].total > 0 ? 100 * ps[k].cause[c] / ps[k].total : 0);
        printf("\n");
    }
    print_loops(v, lp, nl, limit, total, false);
    printf("\n%-18s %-24s %8s %10s", "pc", "procedure", "cycles%", "records");
    for (unsigned c = 0; c < CAUSE_COUNT; c++)
        printf(" %6.6s", names[c]);
    printf("\n");
    for (size_t i = 0; i < n && i < limit; i++) {
        double t = pme_stack_total(&st[i]);
        if (!(t > 0))
            break;
        printf("%18llx %-24.24s %8.2f %10.0f", (unsigned long long)st[i].pc, pme_stack_procedure(&st[i]),
               total > 0 ? 100 * t / total : 0, st[i].records);
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            printf(" %6.1f", 100 * st[i].cause[c] / t);
        printf("\n");
    }
}

static int pme_stacks_report(const struct pme_options *o)
{
    struct ap_err err;
    struct model_params mp;
    char *board = calc_profile_board(o->board, profile_opts_db(&o->po), o->po.sel.epoch, DEFAULT_MODEL_BOARD, NULL);
    int bad_board = calc_board_params(board, &mp, &err);
    free(board);
    if (bad_board) {
        fprintf(stderr, "alphaprof pme: %s\n", err.msg);
        return 1;
    }
    struct pme_stack_params sp;
    pme_stack_params_of(&mp, &sp);
    struct pme_view v;
    int rc = pme_load(o, profile_opts_db(&o->po), &v);
    if (rc)
        return rc;
    struct pme_stack *st = xmalloc((v.ninsns ? v.ninsns : 1) * sizeof *st);
    if (pme_stacks_estimate(&v, &sp, st, &err)) {
        fprintf(stderr, "alphaprof pme: %s\n", err.msg);
        free(st);
        pme_view_free(&v);
        return 1;
    }
    size_t n = 0;
    for (size_t i = 0; i < v.ninsns; i++)
        if (!o->proc || !strcmp(pme_stack_procedure(&st[i]), o->proc))
            st[n++] = st[i];
    if (o->proc && !n) {
        fprintf(stderr, "alphaprof pme: no ProfileMe samples in a procedure '%s'; alphaprof pme --stacks "
                        "without a procedure lists them all\n", o->proc);
        rc = 1;
    } else {
        size_t np;
        struct pme_proc_stack *ps = pme_stacks_by_procedure(st, n, &np);
        size_t nl;
        struct pme_loop *lp = pme_stacks_by_loop(st, n, &mp, &nl);
        qsort(st, n, sizeof *st, cmp_insn_stack);
        size_t limit = opt_limit(o->limit, o->po.json);
        print_stacks(&v, st, n, ps, np, lp, nl, limit ? limit : SIZE_MAX, o->po.json);     /* 0: all */
        pme_loops_free(lp, nl);
        free(ps);
    }
    free(st);
    pme_view_free(&v);
    return rc;
}
