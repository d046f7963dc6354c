/*
 * alphaprof annotate PROC: the procedure's instructions with their source
 * lines (DWARF line table, inlined calls) and the samples of each event on
 * each instruction, like DCPI's dcpilist.
 *
 * Invariants: the listing is util/proc-listing's; this file parses and
 * prints it, as text or JSON with the same numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/pme-view.h"
#include "util/proc-listing.h"
#include "util/profile-db.h"
#include "util/profile-view.h"
#include "util/source-file.h"
#include "util/strvec.h"
#include "util/loss-note.h"
#include "util/value-transform.h"
#include "util/value-view.h"
#include "firmware/abi/value-capture.h"

static const struct opt_command annotate_command = {
    .name = "annotate",
    .synopsis = "[options] PROCEDURE",
    .about = "Disassembles PROCEDURE with its source lines and the samples of each\n"
             "event on every instruction; with ProfileMe samples also its estimated\n"
             "retire count (kS, +- 1/sqrt(k)), D-cache miss and mispredict rates and\n"
             "mean cycles in each pipeline stage (alphaprof pme has more); with value\n"
             "samples (record --values) each instruction's top value, its share of the\n"
             "executions (invariance) and how many values were sampled.",
};

/* Value columns (when the database has value samples in the procedure):
 * the rows of one instruction, the result's first (what the paper's
 * invariance is about), then the other kinds. */
#define VALUE_TOP_JSON 3

static size_t value_rows_of(const struct value_view *vv, const struct proc_listing *l, uint64_t pc,
                            const struct vv_row **out, size_t max)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < vv->nrows && n < max; i++) {
            const struct vv_row *r = &vv->rows[i];
            if (!r->img || r->img->address + r->offset != pc || strcmp(r->img->name, l->img->name) != 0)
                continue;
            if ((pass == 0) == (r->kind == VALUE_RESULT))
                out[n++] = r;
        }
    return n;
}

static void value_columns(const struct value_view *vv, const struct proc_listing *l, uint64_t pc)
{
    const struct vv_row *rows[VALUE_KIND_COUNT];
    size_t n = value_rows_of(vv, l, pc, rows, VALUE_KIND_COUNT);
    if (!n || !rows[0]->nvalues) {
        printf("%18s %6s %7s ", ".", "", "");
        return;
    }
    char top[32];
    snprintf(top, sizeof top, "%llx%s", (unsigned long long)rows[0]->values[0].value,
             rows[0]->kind == VALUE_RESULT ? "" : "*");
    printf("%18s %6.1f %7llu ", top, 100 * rows[0]->values[0].share, (unsigned long long)rows[0]->offered);
}

static void value_json(const struct value_view *vv, const struct proc_listing *l, uint64_t pc)
{
    const struct vv_row *rows[VALUE_KIND_COUNT];
    size_t n = value_rows_of(vv, l, pc, rows, VALUE_KIND_COUNT);
    printf(", \"values\": [");
    for (size_t i = 0; i < n; i++) {
        printf("%s{\"kind\": ", i ? ", " : "");
        json_str(stdout, value_any_kind_name(rows[i]->kind));
        printf(", \"offered\": %llu, \"top\": [", (unsigned long long)rows[i]->offered);
        for (size_t k = 0; k < rows[i]->nvalues && k < VALUE_TOP_JSON; k++) {
            const struct vv_value *x = &rows[i]->values[k];
            printf("%s{\"value\": %llu, \"share\": ", k ? ", " : "", (unsigned long long)x->value);
            json_num(stdout, x->share);
            printf(", \"ci\": [");
            json_num(stdout, x->ci_lo);
            printf(", ");
            json_num(stdout, x->ci_hi);
            printf("]}");
        }
        printf("]}");
    }
    printf("]");
}

/* ProfileMe columns (when the database has ProfileMe samples here). */
static void pme_header(const struct pme_view *pv)
{
    printf("%11s %5s %6s %6s", "est.retires", "+-%", "dmiss%", "mispr%");
    for (size_t f = 0; f < pv->nlat; f++)
        printf(" %7.7s", pv->lat_names[f]);
    printf(" ");
}

static void pme_columns(const struct pme_view *pv, const struct pme_insn *in, int dmiss, int mispredict)
{
    if (!in || !in->samples) {
        printf("%11s %5s %6s %6s", ".", "", "", "");
        for (size_t f = 0; f < pv->nlat; f++)
            printf(" %7s", "");
        printf(" ");
        return;
    }
    struct pme_count_est c;
    pme_count_estimate(in->retired, pv->interval, PME_Z95, &c);
    double n = (double)in->samples;
    if (pv->interval)
        printf("%11.0f", c.estimate);
    else
        printf("%11s", "?");
    if (in->retired)
        printf(" %5.1f", 100 * c.cv);
    else
        printf(" %5s", "-");
    printf(" %6.1f %6.1f", dmiss >= 0 ? 100 * (double)in->bits[dmiss] / n : 0.0,
           mispredict >= 0 ? 100 * (double)in->bits[mispredict] / n : 0.0);
    for (size_t f = 0; f < pv->nlat; f++)
        printf(" %7.1f", (double)in->lat[f] / n);
    printf(" ");
}

static void pme_json(const struct pme_view *pv, const struct pme_insn *in)
{
    if (!in || !in->samples) {
        printf("null");
        return;
    }
    struct pme_count_est c;
    pme_count_estimate(in->retired, pv->interval, PME_Z95, &c);
    printf("{\"samples\": %llu, \"retired\": %llu, \"aborted\": %llu, \"retire_estimate\": ",
           (unsigned long long)in->samples, (unsigned long long)in->retired, (unsigned long long)in->aborted);
    json_num(stdout, pv->interval ? c.estimate : NAN);
    printf(", \"cv\": ");
    json_num(stdout, c.cv);
    printf(", \"lo\": ");
    json_num(stdout, pv->interval ? c.lo : NAN);
    printf(", \"hi\": ");
    json_num(stdout, pv->interval ? c.hi : NAN);
    printf(", \"rates\": {");
    for (size_t b = 0; b < pv->nbits; b++) {
        printf("%s", b ? ", " : "");
        json_str(stdout, pv->bit_names[b]);
        printf(": ");
        json_num(stdout, (double)in->bits[b] / (double)in->samples);
    }
    printf("}, \"latency_mean\": {");
    for (size_t f = 0; f < pv->nlat; f++) {
        printf("%s", f ? ", " : "");
        json_str(stdout, pv->lat_names[f]);
        printf(": ");
        json_num(stdout, (double)in->lat[f] / (double)in->samples);
    }
    printf("}}");
}

static void print_json(const struct profile_view *v, const struct pme_view *pv, const struct value_view *vv,
                       const struct proc_listing *l)
{
    bool with_pme = l->pme_samples > 0;
    printf("{\"procedure\": ");
    json_str(stdout, l->sym->name);
    printf(", \"image\": ");
    json_str(stdout, l->img->name);
    printf(", \"events\": [");
    for (size_t e = 0; e < v->nevents; e++) {
        printf("%s{\"name\": ", e ? ", " : "");
        json_str(stdout, v->event_names[e]);
        printf(", \"procedure\": %llu, \"total\": %llu}", (unsigned long long)l->proc_total[e],
               (unsigned long long)v->total[e]);
    }
    printf("],\n \"instructions\": [");
    for (size_t k = 0; k < l->n; k++) {
        const struct listing_insn *li = &l->insns[k];
        printf("%s\n  {\"address\": %llu, \"instruction\": ", k ? "," : "", (unsigned long long)li->pc);
        json_str(stdout, li->text);
        printf(", \"samples\": [");
        for (size_t e = 0; e < v->nevents; e++)
            printf("%s%llu", e ? ", " : "", (unsigned long long)li->count[e]);
        printf("], \"file\": ");
        json_str(stdout, li->line && li->line->file ? li->line->file : "");
        printf(", \"line\": %u, \"inlined\": [", li->line ? li->line->line : 0);
        for (size_t i = 0; i < li->ninlined; i++) {
            printf("%s", i ? ", " : "");
            json_str(stdout, li->inlined[i]);
        }
        printf("]");
        if (with_pme) {
            printf(", \"profileme\": ");
            pme_json(pv, li->pme);
        }
        if (vv->nrows)
            value_json(vv, l, li->pc);
        printf("}");
    }
    printf("]}\n");
}

static void print_text(const struct profile_view *v, const struct pme_view *pv, const struct value_view *vv,
                       const struct proc_listing *l)
{
    bool with_pme = l->pme_samples > 0;
    int dmiss = pme_bit_index(pv, "dmiss"), mispredict = pme_bit_index(pv, "mispredict");
    printf("Procedure %s in image %s (%s)\n", l->sym->name, l->img->name,
           l->img->path ? l->img->path : "ELF unknown");
    for (size_t e = 0; e < v->nevents; e++)
        printf("%s: %llu samples here, %.2f%% of %llu\n", v->event_names[e],
               (unsigned long long)l->proc_total[e],
               v->total[e] ? 100.0 * (double)l->proc_total[e] / (double)v->total[e] : 0.0,
               (unsigned long long)v->total[e]);
    if (with_pme)
        printf("ProfileMe: %llu samples here, one per %.0f fetched instructions%s\n",
               (unsigned long long)l->pme_samples, pv->interval, pv->interval ? "" : " (interval unknown)");
    if (vv->nrows)
        printf("Values: the top value of each instruction's result (* another kind: alphaprof\n"
               "values lists them all), its share of the sampled executions, values sampled\n");
    printf("\n");
    for (size_t e = 0; e < v->nevents; e++)
        printf("%10s %6s ", v->event_names[e], "%");
    if (with_pme)
        pme_header(pv);
    if (vv->nrows)
        printf("%18s %6s %7s ", "top value", "share%", "sampled");
    printf(" %-16s %s\n", "address", "instruction");
    struct source_cache *sc = source_cache_new();
    const struct source_line *last = NULL;
    for (size_t k = 0; k < l->n; k++) {
        const struct listing_insn *li = &l->insns[k];
        const struct source_line *ln = li->line;
        if (ln && (!last || ln->line != last->line || ln->file != last->file)) {
            const char *src = source_line_text(sc, ln->file, ln->line);
            printf("\n  %s:%u%s%s", ln->file, ln->line, src ? "  " : "", src ? src : "");
            for (size_t i = 0; i < li->ninlined; i++)
                printf("%s%s", i ? " < " : "   [inlined: ", li->inlined[i]);
            printf("%s\n", li->ninlined ? "]" : "");
            last = ln;
        }
        for (size_t e = 0; e < v->nevents; e++) {
            if (li->count[e])
                printf("%10llu %6.2f ", (unsigned long long)li->count[e],
                       l->proc_total[e] ? 100.0 * (double)li->count[e] / (double)l->proc_total[e] : 0.0);
            else
                printf("%10s %6s ", ".", "");
        }
        if (with_pme)
            pme_columns(pv, li->pme, dmiss, mispredict);
        if (vv->nrows)
            value_columns(vv, l, li->pc);
        printf(" %-16llx %s\n", (unsigned long long)li->pc, li->text);
    }
    source_cache_free(sc);
}

static int annotate(const char *db_path, const struct pv_selection *selp, const char *proc, bool json);

int cmd_annotate(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    struct strvec operands = {0};
    const struct option options[] = {
        OPT_GROUP("selecting the profile"),
        OPT_PROFILE_DB(&po), OPT_PROFILE_EPOCH(&po), OPT_PROFILE_CORE(&po),
        OPT_STRING(0, "image", &po.sel.image, "NAME", "the image holding PROCEDURE (when several have one)"),
        OPT_PROFILE_JSON(&po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&annotate_command, options, argc, argv, &operands, NULL);
    int rc = r != OPT_PARSED ? opt_exit(r)
             : operands.n > 1 ? opt_usage_error(&annotate_command, "unexpected argument '%s'", operands.v[1])
             : operands.n == 0 ? opt_usage_error(&annotate_command, "which procedure? (alphaprof report lists them)")
                               : annotate(profile_opts_db(&po), &po.sel, operands.v[0], po.json);
    strvec_free(&operands);
    return rc;
}

/* Annotates procedure proc of the selected profile. */
static int annotate(const char *db_path, const struct pv_selection *selp, const char *proc, bool json)
{
    struct pv_selection sel = *selp;
    struct ap_err err;
    struct pdb *db;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof annotate: %s\n", err.msg);
        return 1;
    }
    struct profile_view v;
    struct pme_view pv;
    int rc = pv_load(db, &sel, &v, &err);
    if (!rc && pme_view_load(db, &sel, 30, &pv, &err)) {
        pv_free(&v);
        rc = -1;
    }
    struct value_view vv = {0};
    if (!rc && vv_load(db, &sel, -1, proc, &vv, &err)) {
        pv_free(&v);
        pme_view_free(&pv);
        rc = -1;
    }
    if (!rc) {
        loss_note(db, v.epoch, "alphaprof annotate", stderr);   /* one line before the listing */
        pv_warn_images(stderr, "alphaprof annotate", v.images, v.nimages, NULL, 0);
        pv_warn_images(stderr, "alphaprof annotate", pv.images, pv.nimages, v.images, v.nimages);
    }
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof annotate: %s\n", err.msg);
        return 1;
    }
    struct proc_listing l;
    if (proc_listing_build(&v, &pv, proc, &l)) {
        fprintf(stderr, "alphaprof annotate: no procedure '%s' in the images of %s%s; "
                        "alphaprof report lists the procedures with samples\n",
                proc, db_path, sel.image ? " (with --image)" : "");
        pv_free(&v);
        pme_view_free(&pv);
        vv_free(&vv);
        return 1;
    }
    if (json)
        print_json(&v, &pv, &vv, &l);
    else
        print_text(&v, &pv, &vv, &l);
    vv_free(&vv);
    proc_listing_free(&l);
    pv_free(&v);
    pme_view_free(&pv);
    return 0;
}
