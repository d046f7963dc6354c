/*
 * alphaprof values: value profiles (Burrows et al., ASPLOS 2000) of the
 * instructions value sampling interpreted (record --value-every K): per
 * instruction and value kind, the most frequent values with their
 * estimated share of executions and a 95 % confidence interval, the
 * semi-invariant instructions first; with --latency, each load's latency
 * histogram binned as L1, L2 and memory by the hardware model's latencies.
 *
 * Invariants: the estimates and bins are util/value-view's; this file
 * parses and prints.  A database without value samples is an error
 * (exit 1, one line saying how to record them), never an empty table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "firmware/abi/value-capture.h"
#include "util/value-transform.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/strvec.h"
#include "util/value-view.h"

static const struct opt_command values_command = {
    .name = "values",
    .synopsis = "[options] [PROCEDURE]",
    .about = "Value profiles of the instructions value sampling interpreted (record with\n"
             "--value-every K): per instruction, the values it computed (or loaded,\n"
             "stored, waited for: --kind) most often, with the estimated share of its\n"
             "executions and a 95% confidence interval; instructions whose top value\n"
             "covers most executions (semi-invariants) first.  PROCEDURE keeps the\n"
             "instructions of that procedure.",
    .epilog = "Columns:\n"
              "  top%        estimated share of the top value: its count * tau over the values\n"
              "              offered (counted exactly on the board); [95% interval]\n"
              "  offered     values this instruction offered to its hotlist\n"
              "  values      the next most frequent values, with their shares\n"
              "With --latency, per load: the share of its latencies in each bin (L1 up to\n"
              "the middle of the model's L1 and L2 latencies, L2 up to the middle of L2 and\n"
              "memory, memory beyond) and the part of the hotlist's tail not kept.\n"
              "\n"
              "Exit status: 0 done, 1 the database could not be read or has no value\n"
              "samples of this selection, 2 bad options.",
};

static const char *const kind_names[] = {
#define VALUE_KIND(id, n, name) name,
    VALUE_KINDS
#undef VALUE_KIND
    "all",
#define VALUE_TRANSFORM(id, name, kind, kname, what) kname,
    VALUE_TRANSFORMS        /* the daemon's --value-transform kinds */
#undef VALUE_TRANSFORM
    NULL,
};

/* --kind's index in kind_names -> a kind number, -1 for all */
static int kind_of_choice(int i)
{
    static const int derived[] = {
#define VALUE_TRANSFORM(id, name, kind, kname, what) kind,
        VALUE_TRANSFORMS
#undef VALUE_TRANSFORM
    };
    return i < VALUE_KIND_COUNT ? i : i == VALUE_KIND_COUNT ? -1 : derived[i - VALUE_KIND_COUNT - 1];
}

static void place_text(const struct vv_row *r, char *buf, size_t n)
{
    uint64_t pc = (r->img ? r->img->address : 0) + r->offset;
    if (r->proc && r->img && r->img->st) {
        const struct symbol *s = symtab_lookup(r->img->st, pc);
        snprintf(buf, n, "%s+0x%llx", r->proc, (unsigned long long)(s ? pc - s->start : 0));
    } else {
        snprintf(buf, n, "%s+0x%llx", r->img ? r->img->name : "[unknown]", (unsigned long long)r->offset);
    }
}

static void print_text(const struct value_view *v, int kind, unsigned top, size_t limit)
{
    printf("Value profile of %s%lld, %s: %zu instruction%s, semi-invariants first.\n\n",
           v->epoch < 0 ? "every epoch" : "epoch ", v->epoch < 0 ? 0LL : (long long)v->epoch,
           kind < 0 ? "every kind" : value_any_kind_name((unsigned)kind), v->nrows, v->nrows == 1 ? "" : "s");
    printf("%6s %-15s %10s  %-16s %-28s %-9s %s\n", "top%", "[95% interval]", "offered", "pc", "where", "kind",
           "values (share)");
    size_t shown = limit && limit < v->nrows ? limit : v->nrows;
    for (size_t i = 0; i < shown; i++) {
        const struct vv_row *r = &v->rows[i];
        char where[96], ci[32];
        place_text(r, where, sizeof where);
        const struct vv_value *t = r->nvalues ? &r->values[0] : NULL;
        snprintf(ci, sizeof ci, "[%.1f, %.1f]", t ? 100 * t->ci_lo : 0, t ? 100 * t->ci_hi : 0);
        printf("%6.1f %-15s %10llu  %-16llx %-28s %-9s", t ? 100 * t->share : 0, ci,
               (unsigned long long)r->offered, (unsigned long long)((r->img ? r->img->address : 0) + r->offset),
               where, value_any_kind_name(r->kind));
        for (size_t k = 0; k < r->nvalues && k < top; k++)
            printf(" %#llx (%.1f%%)", (unsigned long long)r->values[k].value, 100 * r->values[k].share);
        if (r->nvalues > top)
            printf(" +%zu more", r->nvalues - top);
        printf("\n");
    }
    if (shown < v->nrows)
        printf("(%zu more instructions; --limit 0 shows all)\n", v->nrows - shown);
}

static void print_json(const struct value_view *v, int kind, unsigned top, size_t limit)
{
    printf("{\"epoch\": %lld, \"kind\": ", (long long)v->epoch);
    json_str(stdout, kind < 0 ? "all" : value_any_kind_name((unsigned)kind));
    printf(", \"instructions\": [");
    size_t shown = limit && limit < v->nrows ? limit : v->nrows;
    for (size_t i = 0; i < shown; i++) {
        const struct vv_row *r = &v->rows[i];
        printf("%s\n  {\"image\": ", i ? "," : "");
        json_str(stdout, r->img ? r->img->name : "[unknown]");
        printf(", \"offset\": %llu, \"pc\": %llu, \"procedure\": ", (unsigned long long)r->offset,
               (unsigned long long)((r->img ? r->img->address : 0) + r->offset));
        if (r->proc)
            json_str(stdout, r->proc);
        else
            printf("null");
        printf(", \"kind\": ");
        json_str(stdout, value_any_kind_name(r->kind));
        printf(", \"offered\": %llu, \"top_share\": ", (unsigned long long)r->offered);
        json_num(stdout, r->nvalues ? r->values[0].share : 0);
        printf(", \"values\": [");
        for (size_t k = 0; k < r->nvalues && k < top; k++) {
            const struct vv_value *x = &r->values[k];
            printf("%s{\"value\": %llu, \"estimate\": ", k ? ", " : "", (unsigned long long)x->value);
            json_num(stdout, x->estimate);
            printf(", \"share\": ");
            json_num(stdout, x->share);
            printf(", \"ci\": [");
            json_num(stdout, x->ci_lo);
            printf(", ");
            json_num(stdout, x->ci_hi);
            printf("], \"samples\": %llu}", (unsigned long long)x->samples);
        }
        printf("]}");
    }
    printf("]}\n");
}

/* Per load: the shares of its latencies in each bin (kind latency rows). */
static void latency_bins(const struct vv_row *r, double bins[VV_NBINS], double *tail)
{
    double kept = 0;
    for (int b = 0; b < VV_NBINS; b++)
        bins[b] = 0;
    for (size_t k = 0; k < r->nvalues; k++) {
        bins[vv_latency_bin(r->values[k].value)] += r->values[k].share;
        kept += r->values[k].share;
    }
    if (kept > 1)                   /* estimates of a thinned hotlist may add up past 1 */
        for (int b = 0; b < VV_NBINS; b++)
            bins[b] /= kept;
    *tail = kept < 1 ? 1 - kept : 0;
}

static void print_latency(const struct value_view *v, bool json, size_t limit)
{
    size_t shown = limit && limit < v->nrows ? limit : v->nrows;
    if (json)
        printf("{\"epoch\": %lld, \"loads\": [", (long long)v->epoch);
    else
        printf("Load latencies of %s%lld: %zu load%s, binned by the hardware model's latencies.\n\n"
               "%8s %8s %8s %8s %10s  %-16s %s\n",
               v->epoch < 0 ? "every epoch" : "epoch ", v->epoch < 0 ? 0LL : (long long)v->epoch, v->nrows,
               v->nrows == 1 ? "" : "s", "L1%", "L2%", "memory%", "tail%", "offered", "pc", "where");
    for (size_t i = 0; i < shown; i++) {
        const struct vv_row *r = &v->rows[i];
        double bins[VV_NBINS], tail;
        latency_bins(r, bins, &tail);
        char where[96];
        place_text(r, where, sizeof where);
        uint64_t pc = (r->img ? r->img->address : 0) + r->offset;
        if (json) {
            printf("%s\n  {\"pc\": %llu, \"where\": ", i ? "," : "", (unsigned long long)pc);
            json_str(stdout, where);
            printf(", \"offered\": %llu", (unsigned long long)r->offered);
            for (int b = 0; b < VV_NBINS; b++) {
                printf(", \"%s\": ", vv_bin_name((enum vv_bin)b));
                json_num(stdout, bins[b]);
            }
            printf(", \"tail\": ");
            json_num(stdout, tail);
            printf("}");
        } else {
            printf("%8.1f %8.1f %8.1f %8.1f %10llu  %-16llx %s\n", 100 * bins[VV_L1], 100 * bins[VV_L2],
                   100 * bins[VV_MEMORY], 100 * tail, (unsigned long long)r->offered, (unsigned long long)pc, where);
        }
    }
    if (json)
        printf("]}\n");
    else if (shown < v->nrows)
        printf("(%zu more loads; --limit 0 shows all)\n", v->nrows - shown);
}

int cmd_values(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    struct strvec operands = {0};
    int kind = VALUE_RESULT;
    bool kind_given = false, latency = false;
    unsigned top = 4, limit = OPT_LIMIT_UNSET;
    const struct option options[] = {
        OPT_PROFILE_SELECT(&po),
        OPT_GROUP("what to show"),
        OPT_CHOICE(0, "kind", &kind, kind_names, "KIND",
                   "which values: result (default), operand_a, operand_b, address,\n"
                   "latency, ra, tos or all; accessor: per data address, the\n"
                   "instructions that touched it (record --value-transform accessors)"),
        OPT_BOOLEAN(0, "latency", &latency, "load-latency histograms per load instead (kind latency)"),
        OPT_UINT(0, "top", &top, "N", 1, 16, "values shown per instruction (default 4)"),
        OPT_LIMIT(&limit, "instructions"),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&values_command, options, argc, argv, &operands, NULL);
    for (int i = 1; i < argc; i++)
        kind_given |= !strncmp(argv[i], "--kind", 6);
    int rc = r != OPT_PARSED ? opt_exit(r)
             : operands.n > 1 ? opt_usage_error(&values_command, "unexpected argument '%s'", operands.v[1])
             : latency && kind_given && kind != VALUE_LATENCY
                 ? opt_usage_error(&values_command, "--latency shows the latency kind; leave out --kind")
                 : -1;
    if (rc >= 0) {
        strvec_free(&operands);
        return rc;
    }
    if (latency)
        kind = VALUE_LATENCY;
    int want = kind_of_choice(kind);
    const char *proc = operands.n ? operands.v[0] : NULL;
    const char *db_path = profile_opts_db(&po);
    struct ap_err err;
    struct pdb *db;
    struct value_view v;
    if (pdb_open(db_path, PDB_READ, &db, &err) || vv_load(db, &po.sel, want, proc, &v, &err)) {
        fprintf(stderr, "alphaprof values: %s\n", err.msg);
        strvec_free(&operands);
        return 1;
    }
    pdb_close(db);
    pv_warn_images(stderr, "alphaprof values", v.images, v.nimages, NULL, 0);
    rc = 0;
    if (v.nrows == 0) {
        fprintf(stderr, "alphaprof values: no %s value samples in %s%s%s; record them with "
                        "`alphaprof record --values` (or --value-every K)%s\n",
                want < 0 ? "" : value_any_kind_name((unsigned)want), db_path, proc ? " in procedure " : "", proc ? proc : "",
                latency ? " (loads' latencies are kept by default)" : "");
        rc = 1;
    } else if (latency) {
        print_latency(&v, po.json, opt_limit(limit, po.json));
    } else if (po.json) {
        print_json(&v, want, top, opt_limit(limit, po.json));
    } else {
        print_text(&v, want, top, opt_limit(limit, po.json));
    }
    vv_free(&v);
    strvec_free(&operands);
    return rc;
}
