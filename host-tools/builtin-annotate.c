/*
 * alphaprof annotate PROC: the procedure's instructions with their source
 * lines (DWARF line table, inlined calls) and the samples of each event on
 * each instruction, like DCPI's dcpilist.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "hw-model/isa/alpha-isa.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/pme-view.h"
#include "util/profile-db.h"
#include "util/profile-view.h"
#include "util/source-file.h"
#include "util/strvec.h"

static const struct opt_command annotate_command = {
    .name = "annotate",
    .synopsis = "[options] PROCEDURE",
    .about = "Disassembles PROCEDURE with its source lines and the samples of each\n"
             "event on every instruction; with ProfileMe samples also its estimated\n"
             "retire count (kS, +- 1/sqrt(k)), D-cache miss and mispredict rates and\n"
             "mean cycles in each pipeline stage (alphaprof pme has more).",
};

/* The procedure's symbol: from the samples, or any image's symbol table. */
static int find_procedure(const struct profile_view *v, const char *name, const struct pv_image **img,
                          const struct symbol **sym)
{
    const struct pv_proc *p = pv_find_proc(v, name);
    if (p && p->sym) {
        *img = p->img;
        *sym = p->sym;
        return 0;
    }
    for (size_t i = 0; i < v->nimages; i++)
        if (v->images[i].st && (*sym = symtab_find(v->images[i].st, name))) {
            *img = &v->images[i];
            return 0;
        }
    return -1;
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

static void json_str_out(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
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
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof annotate: %s\n", err.msg);
        return 1;
    }
    const struct pv_image *img;
    const struct symbol *sym;
    /* A ProfileMe-only profile: its images hold the procedure. */
    struct profile_view pmev = {.images = pv.images, .nimages = pv.nimages};
    if (find_procedure(&v, proc, &img, &sym) && find_procedure(&pmev, proc, &img, &sym)) {
        fprintf(stderr, "alphaprof annotate: no procedure '%s' in the images of %s%s; "
                        "alphaprof report lists the procedures with samples\n",
                proc, db_path, sel.image ? " (with --image)" : "");
        for (size_t i = 0; i < v.nimages; i++)
            if (v.images[i].st_error)
                fprintf(stderr, "alphaprof annotate: (no symbols for %s: %s)\n", v.images[i].name,
                        v.images[i].st_error);
        pv_free(&v);
        pme_view_free(&pv);
        return 1;
    }
    /* The ProfileMe image of the same ELF, and the procedure's samples in it. */
    const struct pv_image *pimg = NULL;
    uint64_t pme_samples = 0;
    for (size_t i = 0; i < pv.nimages; i++)
        if (pv.images[i].id == img->id)
            pimg = &pv.images[i];
    uint64_t end = symtab_symbol_end(img->st, sym);
    size_t n = (size_t)((end - sym->start) / 4);
    uint64_t (*counts)[PV_MAX_EVENTS] = calloc(n ? n : 1, sizeof *counts);
    uint64_t proc_total[PV_MAX_EVENTS] = {0};
    for (size_t i = 0; i < v.ninsns; i++) {
        const struct pv_insn *in = &v.insns[i];
        uint64_t pc = img->address + in->offset;
        if (in->img != img || pc < sym->start || pc >= end)
            continue;
        for (size_t e = 0; e < v.nevents; e++) {
            counts[(pc - sym->start) / 4][e] += in->count[e];
            proc_total[e] += in->count[e];
        }
    }
    for (size_t k = 0; pimg && k < n; k++) {
        const struct pme_insn *in = pme_view_find(&pv, pimg, sym->start + 4 * k - pimg->address);
        pme_samples += in ? in->samples : 0;
    }
    bool with_pme = pme_samples > 0;
    int dmiss = pme_bit_index(&pv, "dmiss"), mispredict = pme_bit_index(&pv, "mispredict");
    struct source_cache *sc = source_cache_new();
    if (json) {
        printf("{\"procedure\": ");
        json_str_out(sym->name);
        printf(", \"image\": ");
        json_str_out(img->name);
        printf(", \"events\": [");
        for (size_t e = 0; e < v.nevents; e++) {
            printf("%s{\"name\": ", e ? ", " : "");
            json_str_out(v.event_names[e]);
            printf(", \"procedure\": %llu, \"total\": %llu}", (unsigned long long)proc_total[e],
                   (unsigned long long)v.total[e]);
        }
        printf("],\n \"instructions\": [");
    } else {
        printf("Procedure %s in image %s (%s)\n", sym->name, img->name, img->path ? img->path : "ELF unknown");
        for (size_t e = 0; e < v.nevents; e++)
            printf("%s: %llu samples here, %.2f%% of %llu\n", v.event_names[e],
                   (unsigned long long)proc_total[e],
                   v.total[e] ? 100.0 * (double)proc_total[e] / (double)v.total[e] : 0.0,
                   (unsigned long long)v.total[e]);
        if (with_pme)
            printf("ProfileMe: %llu samples here, one per %.0f fetched instructions%s\n",
                   (unsigned long long)pme_samples, pv.interval, pv.interval ? "" : " (interval unknown)");
        printf("\n");
        for (size_t e = 0; e < v.nevents; e++)
            printf("%10s %6s ", v.event_names[e], "%");
        if (with_pme)
            pme_header(&pv);
        printf(" %-16s %s\n", "address", "instruction");
    }
    const struct source_line *last = NULL;
    for (size_t k = 0; k < n; k++) {
        uint64_t pc = sym->start + 4 * k;
        uint32_t word = 0;
        char text[96];
        const struct pme_insn *pin = with_pme ? pme_view_find(&pv, pimg, pc - pimg->address) : NULL;
        if (symtab_read(img->st, pc, &word, 4))
            alpha_disassemble(word, pc, text, sizeof text);
        else
            snprintf(text, sizeof text, "??");
        const struct source_line *l = symtab_line(img->st, pc);
        const char *inl[8];
        size_t ninl = symtab_inlined_at((struct symtab *)img->st, pc, inl, 8);
        if (json) {
            printf("%s\n  {\"address\": %llu, \"instruction\": ", k ? "," : "", (unsigned long long)pc);
            json_str_out(text);
            printf(", \"samples\": [");
            for (size_t e = 0; e < v.nevents; e++)
                printf("%s%llu", e ? ", " : "", (unsigned long long)counts[k][e]);
            printf("], \"file\": ");
            json_str_out(l ? l->file : NULL);
            printf(", \"line\": %u, \"inlined\": [", l ? l->line : 0);
            for (size_t i = 0; i < ninl; i++) {
                printf("%s", i ? ", " : "");
                json_str_out(inl[i]);
            }
            printf("]");
            if (with_pme) {
                printf(", \"profileme\": ");
                pme_json(&pv, pin);
            }
            printf("}");
            continue;
        }
        if (l && (!last || l->line != last->line || l->file != last->file)) {
            const char *src = source_line_text(sc, l->file, l->line);
            printf("\n  %s:%u%s%s", l->file, l->line, src ? "  " : "", src ? src : "");
            for (size_t i = 0; i < ninl; i++)
                printf("%s%s", i ? " < " : "   [inlined: ", inl[i]);
            printf("%s\n", ninl ? "]" : "");
            last = l;
        }
        for (size_t e = 0; e < v.nevents; e++) {
            if (counts[k][e])
                printf("%10llu %6.2f ", (unsigned long long)counts[k][e],
                       proc_total[e] ? 100.0 * (double)counts[k][e] / (double)proc_total[e] : 0.0);
            else
                printf("%10s %6s ", ".", "");
        }
        if (with_pme)
            pme_columns(&pv, pin, dmiss, mispredict);
        printf(" %-16llx %s\n", (unsigned long long)pc, text);
    }
    if (json)
        printf("]}\n");
    source_cache_free(sc);
    free(counts);
    pv_free(&v);
    pme_view_free(&pv);
    return 0;
}
