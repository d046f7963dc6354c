/* The report's data document (layout and invariants: html-data.h). */
#include "util/html-data.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "util/export-profile.h"
#include "util/json-out.h"
#include "util/proc-listing.h"
#include "util/source-file.h"
#include "util/str-index.h"
#include "util/strvec.h"
#include "util/value-transform.h"
#include "firmware/abi/value-capture.h"

/* Every drop reason with what it means: counter-names.def's own words. */
static const struct {
    const char *reason, *what;
} drop_whats[] = {
#define LK_DROP(id, number, name, what) {name, what},
#define HOST_DROP(id, name, what) {name, what},
#define VALUE_DROP(id, name, what) {name, what},
#include "firmware/abi/counter-names.def"
};

const char *html_drop_what(const char *reason)
{
    for (size_t i = 0; i < sizeof drop_whats / sizeof drop_whats[0]; i++)
        if (!strcmp(drop_whats[i].reason, reason))
            return drop_whats[i].what;
    return NULL;
}

/* ---------------------------------------------------------------- output */

/* JSON goes through a memory stream first so "</" can be escaped. */
struct jw {
    FILE *f;
};

static void jstr(struct jw *w, const char *s)
{
    json_str(w->f, s);
}

static void jnum(struct jw *w, double x)
{
    json_num(w->f, x);
}

static void counts(struct jw *w, const uint64_t *c, size_t n)
{
    fputc('[', w->f);
    for (size_t e = 0; e < n; e++)
        fprintf(w->f, "%s%llu", e ? "," : "", (unsigned long long)c[e]);
    fputc(']', w->f);
}

/* An estimate to 10 significant digits (the subcommands' values to far
 * below any difference they can show, in half the bytes of full
 * precision: listings are the bulk of a report). */
static void jest(struct jw *w, double x)
{
    if (x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308)
        fputs("null", w->f);
    else
        fprintf(w->f, "%.10g", x);
}

/* Cycles by cause, 0 as 0. */
static void stack_nums(struct jw *w, const double *c, size_t n)
{
    fputc('[', w->f);
    for (size_t k = 0; k < n; k++) {
        if (k)
            fputc(',', w->f);
        if (c[k] == 0)
            fputc('0', w->f);
        else
            jest(w, c[k]);
    }
    fputc(']', w->f);
}

/* A Cycles table row's start, [procedure, image, (the k-th row). */
static void procedure_row_open(struct jw *w, size_t k, const char *name, const char *image)
{
    fprintf(w->f, "%s\n[", k ? "," : "");
    jstr(w, name);
    fputc(',', w->f);
    jstr(w, image);
    fputc(',', w->f);
}

/* ---------------------------------------------------------------- summary */

static void summary(struct jw *w, const struct html_input *in)
{
    const struct profile_view *v = in->v;
    sqlite3 *db = pdb_sqlite(in->db);
    fprintf(w->f, "\"summary\": {\"db\": ");
    jstr(w, in->db_path);
    fprintf(w->f, ", \"epoch\": %lld, \"workloads\": [", (long long)v->epoch);
    for (size_t i = 0; i < v->nimages; i++) {
        if (i)
            fputc(',', w->f);
        jstr(w, v->images[i].name);
    }
    fprintf(w->f, "], \"sessions\": [");
    sqlite3_stmt *st;
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT board, ncores, started, ended, firmware, end_how FROM sessions%s ORDER BY id",
             v->epoch >= 0 ? " WHERE epoch = ?1" : "");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (v->epoch >= 0)
            sqlite3_bind_int64(st, 1, v->epoch);
        for (int k = 0; sqlite3_step(st) == SQLITE_ROW; k++) {
            fprintf(w->f, "%s{\"board\": ", k ? "," : "");
            jstr(w, (const char *)sqlite3_column_text(st, 0));
            fprintf(w->f, ", \"cores\": %lld, \"started\": ", (long long)sqlite3_column_int64(st, 1));
            jstr(w, (const char *)sqlite3_column_text(st, 2));
            fprintf(w->f, ", \"ended\": ");
            jstr(w, (const char *)sqlite3_column_text(st, 3));
            fprintf(w->f, ", \"firmware\": ");
            jstr(w, (const char *)sqlite3_column_text(st, 4));
            fprintf(w->f, ", \"end_how\": %lld}", (long long)sqlite3_column_int64(st, 5));
        }
        sqlite3_finalize(st);
    }
    fprintf(w->f, "], \"events\": [");
    for (size_t e = 0; e < v->nevents; e++) {
        fprintf(w->f, "%s{\"name\": ", e ? "," : "");
        jstr(w, v->event_names[e]);
        fprintf(w->f, ", \"total\": %llu, \"period\": %llu}", (unsigned long long)v->total[e],
                (unsigned long long)v->periods[e]);
    }
    fprintf(w->f, "], \"drops\": [");
    snprintf(sql, sizeof sql, "SELECT reason, sum(count) FROM drops%s GROUP BY reason ORDER BY reason",
             v->epoch >= 0 ? " WHERE epoch = ?1" : "");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (v->epoch >= 0)
            sqlite3_bind_int64(st, 1, v->epoch);
        for (int k = 0; sqlite3_step(st) == SQLITE_ROW; k++) {
            const char *reason = (const char *)sqlite3_column_text(st, 0);
            const char *what = html_drop_what(reason ? reason : "");
            fprintf(w->f, "%s{\"reason\": ", k ? "," : "");
            jstr(w, reason);
            fprintf(w->f, ", \"count\": %lld, \"what\": ", (long long)sqlite3_column_int64(st, 1));
            jstr(w, what ? what : "a reason this alphaprof does not know (a newer firmware's)");
            fprintf(w->f, "}");
        }
        sqlite3_finalize(st);
    }
    fprintf(w->f, "], \"pme_samples\": %llu}", (unsigned long long)in->pv->samples);
}

/* ---------------------------------------------------------------- stacks */

/* Distinct stacks: image, procedure, inlined calls outermost first, then
 * the source line ("file:line") of the innermost frame. */
static int stacks(struct jw *w, const struct html_input *in, struct str_index *names, struct ap_err *err)
{
    const struct profile_view *v = in->v;
    struct xp_profile x;
    if (export_from_view(in->db, v, &x, err))
        return -1;
    size_t sites = x.nsites, split = in->cct ? export_add_contexts(&x, in->cct) : 0;
    struct str_index paths = {0};
    size_t cap = 1024;
    uint64_t *sum = xmalloc(cap * PV_MAX_EVENTS * sizeof *sum);
    for (size_t i = 0; i < x.nsites; i++) {
        const struct xp_site *s = &x.sites[i];
        char key[2048];
        int len = snprintf(key, sizeof key, "%zu", str_index_get(names, x.mappings[s->mapping].name, NULL));
        for (size_t f = s->nframes; f-- > 0 && len < (int)sizeof key - 24;)
            len += snprintf(key + len, sizeof key - (size_t)len, ",%zu", str_index_get(names, s->frames[f].func, NULL));
        if (s->frames[0].file && s->frames[0].line) {
            const char *base = strrchr(s->frames[0].file, '/');
            char where[512];
            snprintf(where, sizeof where, "%s:%u", base ? base + 1 : s->frames[0].file, s->frames[0].line);
            if (len < (int)sizeof key - 24)
                len += snprintf(key + len, sizeof key - (size_t)len, ",%zu", str_index_get(names, where, NULL));
        }
        bool added;
        size_t k = str_index_get(&paths, key, &added);
        if (k >= cap) {
            sum = xrealloc(sum, 2 * cap * PV_MAX_EVENTS * sizeof *sum);
            cap *= 2;
        }
        if (added)
            memset(&sum[k * PV_MAX_EVENTS], 0, PV_MAX_EVENTS * sizeof *sum);
        for (size_t e = 0; e < x.nevents; e++)
            sum[k * PV_MAX_EVENTS + e] += s->count[e];
    }
    fprintf(w->f, "\"stacks\": [");
    for (size_t k = 0; k < paths.n; k++) {
        fprintf(w->f, "%s\n[[%s],", k ? "," : "", paths.keys[k]);
        counts(w, &sum[k * PV_MAX_EVENTS], v->nevents);
        fputc(']', w->f);
    }
    fprintf(w->f, "],\n\"flame\": {\"cct\": %s, \"sites\": %zu, \"sites_in_contexts\": %zu}",
            in->cct ? "true" : "false", sites, split);
    free(sum);
    str_index_free(&paths);
    export_free(&x);
    return 0;
}

/* ---------------------------------------------------------------- listings */

/* The value row of the instruction at pc (result kind first, as annotate
 * shows it), or NULL. */
static const struct vv_row *insn_values(const struct html_input *in, const struct pv_image *img, uint64_t pc)
{
    const struct value_view *vv = in->vals;
    const struct vv_row *other = NULL;
    for (size_t i = 0; vv && i < vv->nrows; i++) {
        const struct vv_row *r = &vv->rows[i];
        if (!r->img || r->img->address + r->offset != pc || strcmp(r->img->name, img->name) || !r->nvalues)
            continue;
        if (r->kind == VALUE_RESULT)
            return r;
        if (!other && r->kind < VALUE_KIND_COUNT)
            other = r;
    }
    return other;
}

/* calc's analysis of the procedure, or NULL. */
static const struct calc_proc *listing_calc(const struct html_input *in, const char *name,
                                            const struct pv_image *img)
{
    for (size_t k = 0; in->calc && k < in->calc->n; k++)
        if (!strcmp(in->calc->pp[k]->name, name) && !strcmp(in->calc->pp[k]->img->name, img->name))
            return &in->calc->procs[k];
    return NULL;
}

static uint64_t cp_n(const struct calc_proc *cp)
{
    return cp ? cp->n : 0;
}

/* One procedure's listing as JSON into a string (its size decides whether
 * it fits the budget). */
static char *listing_json(const struct html_input *in, const char *name, const struct pv_image *img,
                          struct source_cache *sc, size_t *size)
{
    struct proc_listing l;
    if (proc_listing_build(in->v, in->pv, name, &l))
        return NULL;
    if (strcmp(l.img->name, img->name)) {
        proc_listing_free(&l);
        return NULL;
    }
    char *buf = NULL;
    FILE *f = open_memstream(&buf, size);
    struct jw w = {f};
    fprintf(f, "{\"start\": %llu, \"file\": ", (unsigned long long)(l.n ? l.insns[0].pc : 0));
    const struct source_line *last = NULL;
    jstr(&w, l.n && l.insns[0].line ? l.insns[0].line->file : NULL);
    bool with_values = false;
    for (size_t k = 0; k < l.n && !with_values; k++)
        with_values = insn_values(in, l.img, l.insns[k].pc) != NULL;
    fprintf(f, ", \"pme\": %s, \"values\": %s", l.pme_samples ? "true" : "false", with_values ? "true" : "false");
    const struct calc_proc *cp = listing_calc(in, name, img);
    /* the procedure's ProfileMe stack: its rows' summed in pc order, as
     * pme --stacks sums a procedure's */
    double pst[CAUSE_COUNT] = {0}, pst_total = 0;
    bool with_pst = false;
    for (size_t k = 0; in->pme_stacks && k < l.n; k++) {
        const struct pme_stack *ps = l.insns[k].pme ? &in->pme_stacks[l.insns[k].pme - in->pv->insns] : NULL;
        if (!ps)
            continue;
        with_pst = true;
        for (unsigned c = 0; c < CAUSE_COUNT; c++)
            pst[c] += ps->cause[c];
        pst_total += pme_stack_total(ps);
    }
    if (with_pst) {
        fprintf(f, ", \"stack\": [");
        jest(&w, pst_total);
        fputc(',', f);
        stack_nums(&w, pst, CAUSE_COUNT);
        fputc(']', f);
    }
    if (cp) {
        struct calc_totals t;
        calc_proc_totals(cp, &t);
        fprintf(f, ", \"calc\": {\"cycles\": ");
        jest(&w, t.cycles);
        fprintf(f, ", \"stall\": ");
        jest(&w, t.stall);
        fprintf(f, ", \"stack\": ");
        stack_nums(&w, t.stack, CALC_NSTACK);
        fprintf(f, ", \"blocks\": %zu, \"classes\": %zu, \"missing_edges\": %s}", cp->nblocks, cp->nclasses,
                cp->missing_edges ? "true" : "false");
    }
    fprintf(f, ", \"rows\": [");
    for (size_t k = 0; k < l.n; k++) {
        const struct listing_insn *li = &l.insns[k];
        fprintf(f, "%s\n[", k ? "," : "");
        jstr(&w, li->text);
        fputc(',', f);
        counts(&w, li->count, in->v->nevents);
        /* the source line, only where it changes: [line, "text", "file", [inlined]] */
        const struct source_line *ln = li->line;
        if (ln && (!last || ln->line != last->line || ln->file != last->file)) {
            fprintf(f, ",[%u,", ln->line);
            jstr(&w, source_line_text(sc, ln->file, ln->line));
            fputc(',', f);
            jstr(&w, ln->file);
            fprintf(f, ",[");
            for (size_t i = 0; i < li->ninlined; i++) {
                if (i)
                    fputc(',', f);
                jstr(&w, li->inlined[i]);
            }
            fprintf(f, "]]");
            last = ln;
        } else
            fprintf(f, ",0");
        const struct vv_row *vr = insn_values(in, l.img, li->pc);
        if (li->pme && li->pme->samples) {
            const struct pme_insn *pi = li->pme;
            fprintf(f, ",[%llu,%llu,", (unsigned long long)pi->samples, (unsigned long long)pi->retired);
            counts(&w, pi->bits, in->pv->nbits);
            fputc(',', f);
            counts(&w, pi->lat, in->pv->nlat);
            fputc(']', f);
        } else if (vr) {
            fprintf(f, ",null");
        }
        const struct pme_stack *ps = in->pme_stacks && li->pme ? &in->pme_stacks[li->pme - in->pv->insns] : NULL;
        uint64_t ci = cp && li->pc >= cp->start ? (li->pc - cp->start) / 4 : UINT64_MAX;
        const struct calc_insn *cin = ci < cp_n(cp) ? &cp->insns[ci] : NULL;
        bool tail = ps || cin;
        if (!(li->pme && li->pme->samples) && !vr && tail)
            fprintf(f, ",null");
        /* value sampling: [top value (hex), its share, values sampled, kind] */
        if (vr) {
            fprintf(f, ",[\"%llx\",", (unsigned long long)vr->values[0].value);
            jnum(&w, vr->values[0].share);
            fprintf(f, ",%llu,", (unsigned long long)vr->offered);
            jstr(&w, value_any_kind_name(vr->kind));
            fputc(']', f);
        } else if (tail) {
            fprintf(f, ",null");
        }
        /* ProfileMe's cycle stack: [cycles, pair records, retire share, [by cause]] */
        if (ps) {
            fputc(',', f);
            fputc('[', f);
            jest(&w, pme_stack_total(ps));
            fprintf(f, ",%.0f,", ps->records);
            jest(&w, ps->share);
            fputc(',', f);
            stack_nums(&w, ps->cause, CAUSE_COUNT);
            fputc(']', f);
        } else if (cin) {
            fprintf(f, ",null");
        }
        /* calc: [executions, confidence, CPI, culprit pc or null, culprit
         * letters, bubble cycles per execution, dynamic stall, [stack],
         * CPI and bubble cycles as calc prints them (%.1f: JavaScript's
         * toFixed rounds a half up, C to even, and from the 10 digits
         * here, not the whole value)] */
        if (cin) {
            char letters[16];
            calc_culprit_letters(cin, letters, sizeof letters);
            uint32_t culprit = calc_culprit_of(cin);
            fputc(',', f);
            fputc('[', f);
            jest(&w, cin->freq);
            fputc(',', f);
            jstr(&w, calc_confidence_names[cp->classes[cp->blocks[cin->block].cls].confidence]);
            fputc(',', f);
            jest(&w, cin->freq > 0 ? cin->m + cin->dynamic / cin->freq : 0);
            if (culprit != CALC_NONE)
                fprintf(f, ",%llu,", (unsigned long long)cp->insns[culprit].pc);
            else
                fprintf(f, ",null,");
            jstr(&w, letters);
            fputc(',', f);
            jest(&w, calc_bubble_cycles(cp, (uint32_t)ci));
            fputc(',', f);
            jest(&w, cin->dynamic);
            fputc(',', f);
            stack_nums(&w, cin->stack, CALC_NSTACK);
            fprintf(f, ",\"%.1f\",\"%.1f\"]", cin->freq > 0 ? cin->m + cin->dynamic / cin->freq : 0,
                    calc_bubble_cycles(cp, (uint32_t)ci));
        }
        fputc(']', f);
    }
    fprintf(f, "]}");
    fclose(f);
    proc_listing_free(&l);
    return buf;
}

/* A row of the report's procedure table: the view's procedures, then
 * those with ProfileMe samples only. */
struct hproc {
    const char *name;
    const struct pv_image *img;
    const uint64_t *count;      /* NULL: none (ProfileMe only) */
    uint64_t pme;
    bool has_sym;
    long listing;
};

static int by_pme(const void *a, const void *b)
{
    const struct hproc *x = a, *y = b;
    return x->pme != y->pme ? (x->pme > y->pme ? -1 : 1) : strcmp(x->name, y->name);
}

/* Procedures (all), each with its listing's index or -1, and the listings
 * of the hottest ones until the budget is spent. */
static void procedures(struct jw *w, const struct html_input *in)
{
    const struct profile_view *v = in->v;
    const struct pme_view *pv = in->pv;
    static const uint64_t zero[PV_MAX_EVENTS];
    size_t cap = v->nprocs + pv->ninsns + 1, n = 0;
    struct hproc *procs = xmalloc(cap * sizeof *procs);
    struct str_index keys = {0};
    char key[512];
    for (size_t i = 0; i < v->nprocs; i++) {
        const struct pv_proc *p = &v->procs[i];
        snprintf(key, sizeof key, "%s\x1f%s", p->img->name, p->name);
        str_index_get(&keys, key, NULL);
        procs[n++] = (struct hproc){p->name, p->img, p->count, 0, p->sym != NULL, -1};
    }
    size_t from_view = n;
    for (size_t i = 0; i < pv->ninsns; i++) {
        const struct pme_insn *pi = &pv->insns[i];
        uint64_t pc = pme_insn_pc(pi);
        const struct symbol *sym = pi->img && pi->img->st ? symtab_lookup(pi->img->st, pc) : NULL;
        const char *name = sym ? sym->name : pi->img ? pi->img->name : "[unknown]";
        snprintf(key, sizeof key, "%s\x1f%s", pi->img ? pi->img->name : "", name);
        bool added;
        size_t k = str_index_get(&keys, key, &added);
        if (added)
            procs[n++] = (struct hproc){name, pi->img, NULL, 0, sym != NULL, -1};
        procs[k].pme += pi->samples;
    }
    if (n > from_view + 1)
        qsort(procs + from_view, n - from_view, sizeof *procs, by_pme);
    struct source_cache *sc = source_cache_new();
    struct strvec listings = {0};
    size_t spent = 0;
    for (size_t i = 0; i < n && spent < in->listing_budget && listings.n < in->max_listings; i++) {
        size_t size = 0;
        char *j = procs[i].has_sym && procs[i].img ? listing_json(in, procs[i].name, procs[i].img, sc, &size) : NULL;
        if (!j)
            continue;
        if (spent + size > in->listing_budget) {
            free(j);
            break;                          /* the hotter ones fill it: stop here */
        }
        spent += size;
        procs[i].listing = (long)listings.n;
        strvec_push(&listings, j);
        free(j);
    }
    fprintf(w->f, "\"procs\": [");
    for (size_t i = 0; i < n; i++) {
        const struct hproc *p = &procs[i];
        fprintf(w->f, "%s\n[", i ? "," : "");
        jstr(w, p->name);
        fputc(',', w->f);
        jstr(w, p->img ? p->img->name : "[unknown]");
        fputc(',', w->f);
        counts(w, p->count ? p->count : zero, v->nevents);
        fprintf(w->f, ",%ld,%llu]", p->listing, (unsigned long long)p->pme);
    }
    fprintf(w->f, "],\n\"listings\": [");
    for (size_t k = 0; k < listings.n; k++) {
        if (k)
            fprintf(w->f, ",\n");
        fputs(listings.v[k], w->f);
    }
    fprintf(w->f, "]");
    strvec_free(&listings);
    str_index_free(&keys);
    free(procs);
    source_cache_free(sc);
}

/* ---------------------------------------------------------------- ProfileMe */

static void profileme(struct jw *w, const struct html_input *in)
{
    const struct pme_view *pv = in->pv;
    fprintf(w->f, "\"pme\": ");
    if (!pv->samples) {
        fprintf(w->f, "null");
        return;
    }
    fprintf(w->f, "{\"samples\": %llu, \"retired\": %llu, \"aborted\": %llu, \"interval\": ",
            (unsigned long long)pv->samples, (unsigned long long)pv->retired, (unsigned long long)pv->aborted);
    jnum(w, pv->interval);
    fprintf(w->f, ", \"bits\": [");
    for (size_t b = 0; b < pv->nbits; b++) {
        if (b)
            fputc(',', w->f);
        jstr(w, pv->bit_names[b]);
    }
    fprintf(w->f, "], \"latencies\": [");
    for (size_t f = 0; f < pv->nlat; f++) {
        if (f)
            fputc(',', w->f);
        jstr(w, pv->lat_names[f]);
    }
    /* per instruction: procedure, pc, samples, retired, bits, latency sums */
    fprintf(w->f, "], \"insns\": [");
    for (size_t i = 0; i < pv->ninsns; i++) {
        const struct pme_insn *pi = &pv->insns[i];
        uint64_t pc = pme_insn_pc(pi);
        const struct symbol *sym = pi->img && pi->img->st ? symtab_lookup(pi->img->st, pc) : NULL;
        fprintf(w->f, "%s\n[", i ? "," : "");
        jstr(w, sym ? sym->name : "[outside any procedure]");
        fprintf(w->f, ",%llu,%llu,%llu,", (unsigned long long)pc, (unsigned long long)pi->samples,
                (unsigned long long)pi->retired);
        counts(w, pi->bits, pv->nbits);
        fputc(',', w->f);
        counts(w, pi->lat, pv->nlat);
        fputc(']', w->f);
    }
    fprintf(w->f, "]}");
}

/* ---------------------------------------------------------------- cycles */

/* "cycles": null, or {"board", "causes": [names], "whats": [meanings],
 * "letters": calc's bubble letters, "pme": null or {"pairs",
 * "pair_interval", "cycles", "stack", "procedures": [[procedure ("" outside
 * any), image, cycles, [stack]], ...] (pme --stacks's rows, in its
 * order), "loops": [[procedure, image, header pc, depth, parent header pc
 * or "0" (both hex strings), "file:line" or "", cycles, header executions
 * estimated, [stack]],
 * ...] (pme --stacks's loops, most cycles first, at most HTML_LOOP_ROWS),
 * "more_loops"}, "calc": null or {"cycles", "stack",
 * "procedures": [[procedure, image, cycles, stall cycles, [stack]], ...]}
 * (calc --summary's rows, in its order)}. */
static void cycles(struct jw *w, const struct html_input *in)
{
    static const char *const whats[] = {
#define CAUSE_WHAT_(NAME, name, what) what,
        CYCLE_CAUSES(CAUSE_WHAT_)
#undef CAUSE_WHAT_
        "stall no culprit left could take (calc: every cause ruled out or spent)"};
    _Static_assert(sizeof whats / sizeof whats[0] == CALC_NSTACK, "a meaning per stack slot");
    fprintf(w->f, "\"cycles\": ");
    if (!in->pme_stacks && !in->calc) {
        fprintf(w->f, "null");
        return;
    }
    fprintf(w->f, "{\"board\": ");
    jstr(w, in->board);
    fprintf(w->f, ", \"causes\": [");
    for (unsigned c = 0; c < CALC_NSTACK; c++) {
        if (c)
            fputc(',', w->f);
        jstr(w, calc_stack_names[c]);
    }
    fprintf(w->f, "], \"whats\": [");
    for (unsigned c = 0; c < CALC_NSTACK; c++) {
        if (c)
            fputc(',', w->f);
        jstr(w, whats[c]);
    }
    fprintf(w->f, "], \"letters\": ");
    jstr(w, calc_stack_letters);
    fprintf(w->f, ", \"pme\": ");
    if (in->pme_stacks) {
        double total = 0;
        for (size_t i = 0; i < in->pv->ninsns; i++)
            total += pme_stack_total(&in->pme_stacks[i]);
        fprintf(w->f, "{\"pairs\": %llu, \"pair_interval\": ", (unsigned long long)in->pv->npairs);
        jnum(w, in->pv->pair_interval);
        fprintf(w->f, ", \"cycles\": ");
        jnum(w, total);
        size_t np;
        struct pme_proc_stack *ps = pme_stacks_by_procedure(in->pme_stacks, in->pv->ninsns, &np);
        double all[CAUSE_COUNT] = {0};
        for (size_t k = 0; k < np; k++)
            for (unsigned c = 0; c < CAUSE_COUNT; c++)
                all[c] += ps[k].cause[c];
        fprintf(w->f, ", \"stack\": ");
        stack_nums(w, all, CAUSE_COUNT);
        fprintf(w->f, ", \"procedures\": [");
        for (size_t k = 0; k < np; k++) {
            procedure_row_open(w, k, ps[k].name, ps[k].image);
            jnum(w, ps[k].total);
            fputc(',', w->f);
            stack_nums(w, ps[k].cause, CAUSE_COUNT);
            fputc(']', w->f);
        }
        fprintf(w->f, "], \"loops\": [");
        size_t nl = in->npme_loops < HTML_LOOP_ROWS ? in->npme_loops : HTML_LOOP_ROWS;
        for (size_t k = 0; k < nl; k++) {
            const struct pme_loop *l = &in->pme_loops[k];
            struct pme_count_est e;
            pme_loop_executions(l, in->pv->interval, &e);
            procedure_row_open(w, k, l->proc, l->image);
            char at[512] = "";
            if (l->file) {
                const char *base = strrchr(l->file, '/');
                snprintf(at, sizeof at, "%s:%u", base ? base + 1 : l->file, l->line);
            }
            char header[24], parent[24];      /* hex strings: a script's numbers hold 53 bits */
            snprintf(header, sizeof header, "%llx", (unsigned long long)l->header);
            snprintf(parent, sizeof parent, "%llx", (unsigned long long)l->parent);
            jstr(w, header);
            fprintf(w->f, ",%u,", l->depth);
            jstr(w, parent);
            fputc(',', w->f);
            jstr(w, at);
            fputc(',', w->f);
            jnum(w, l->total);
            fputc(',', w->f);
            jnum(w, in->pv->interval > 0 ? e.estimate : 0);
            fputc(',', w->f);
            stack_nums(w, l->cause, CAUSE_COUNT);
            fputc(']', w->f);
        }
        fprintf(w->f, "], \"more_loops\": %zu}", in->npme_loops - nl);
        free(ps);
    } else {
        fprintf(w->f, "null");
    }
    fprintf(w->f, ", \"calc\": ");
    if (in->calc) {
        const struct calc_analysed *a = in->calc;
        double all[CALC_NSTACK] = {0}, all_cycles = 0;
        struct calc_totals *t = xmalloc((a->n + 1) * sizeof *t);
        for (size_t k = 0; k < a->n; k++) {
            calc_proc_totals(&a->procs[k], &t[k]);
            for (unsigned c = 0; c < CALC_NSTACK; c++)
                all[c] += t[k].stack[c];
            all_cycles += t[k].cycles;
        }
        fprintf(w->f, "{\"cycles\": ");
        jnum(w, all_cycles);
        fprintf(w->f, ", \"stack\": ");
        stack_nums(w, all, CALC_NSTACK);
        fprintf(w->f, ", \"procedures\": [");
        for (size_t k = 0; k < a->n; k++) {
            procedure_row_open(w, k, a->pp[k]->name, a->pp[k]->img->name);
            jnum(w, t[k].cycles);
            fputc(',', w->f);
            jnum(w, t[k].stall);
            fputc(',', w->f);
            stack_nums(w, t[k].stack, CALC_NSTACK);
            fputc(']', w->f);
        }
        fprintf(w->f, "]}");
        free(t);
    } else {
        fprintf(w->f, "null");
    }
    fputc('}', w->f);
}

/* ---------------------------------------------------------------- values */

/* "values": null, or {"rows": [[procedure, pc, kind, offered, [[value,
 * share, lo, hi], ...]], ...] semi-invariants first, "more": rows left
 * out}. */
static void values(struct jw *w, const struct html_input *in)
{
    const struct value_view *vv = in->vals;
    fprintf(w->f, "\"values\": ");
    if (!vv || !vv->nrows) {
        fprintf(w->f, "null");
        return;
    }
    size_t n = vv->nrows < HTML_VALUE_ROWS ? vv->nrows : HTML_VALUE_ROWS;
    fprintf(w->f, "{\"more\": %zu, \"rows\": [", vv->nrows - n);
    for (size_t i = 0; i < n; i++) {
        const struct vv_row *r = &vv->rows[i];
        fprintf(w->f, "%s\n[", i ? "," : "");
        jstr(w, r->proc ? r->proc : r->img ? r->img->name : "[unknown]");
        fprintf(w->f, ",%llu,", (unsigned long long)((r->img ? r->img->address : 0) + r->offset));
        jstr(w, value_any_kind_name(r->kind));
        fprintf(w->f, ",%llu,[", (unsigned long long)r->offered);
        for (size_t k = 0; k < r->nvalues && k < HTML_VALUE_TOP; k++) {
            const struct vv_value *x = &r->values[k];
            /* values as strings: JSON numbers lose 64-bit precision */
            fprintf(w->f, "%s[\"%llx\",", k ? "," : "", (unsigned long long)x->value);
            jnum(w, x->share);
            fputc(',', w->f);
            jnum(w, x->ci_lo);
            fputc(',', w->f);
            jnum(w, x->ci_hi);
            fputc(']', w->f);
        }
        fprintf(w->f, "],%zu]", r->nvalues);
    }
    fprintf(w->f, "]}");
}

/* ---------------------------------------------------------------- paths */

/* "paths": null, or {"bits", "interval", "samples", "used", "not_retired",
 * "no_code", "procs": [[procedure, image, samples, [outcomes by
 * pr_outcome], paths left out, [[samples, executions, from entry, path
 * text], ...]], ...]}: `alphaprof paths`'s numbers. */
static void paths(struct jw *w, const struct html_input *in)
{
    const struct path_profile *pp = in->paths;
    fprintf(w->f, "\"paths\": ");
    if (!pp || !pp->samples) {
        fprintf(w->f, "null");
        return;
    }
    fprintf(w->f, "{\"bits\": %u, \"interval\": ", pp->nbits);
    jnum(w, in->paths_interval);
    fprintf(w->f, ", \"samples\": %llu, \"used\": %llu, \"not_retired\": %llu, \"no_code\": %llu, \"outcomes\": [",
            (unsigned long long)pp->samples, (unsigned long long)pp->used, (unsigned long long)pp->not_retired,
            (unsigned long long)pp->no_code);
    for (unsigned x = 0; x < 5; x++) {
        if (x)
            fputc(',', w->f);
        jstr(w, pr_outcome_names[x]);
    }
    fprintf(w->f, "], \"procs\": [");
    for (size_t k = 0; k < pp->nprocs; k++) {
        const struct path_proc *pr = &pp->procs[k];
        size_t n = pr->nrows < HTML_PATH_ROWS ? pr->nrows : HTML_PATH_ROWS;
        fprintf(w->f, "%s\n[", k ? "," : "");
        jstr(w, pr->name);
        fputc(',', w->f);
        jstr(w, pr->img->name);
        fprintf(w->f, ",%llu,", (unsigned long long)pr->samples);
        counts(w, pr->outcomes, 5);
        fprintf(w->f, ",%zu,[", pr->nrows - n);
        for (size_t i = 0; i < n; i++) {
            const struct path_row *row = &pr->rows[i];
            char text[2048];
            path_row_text(pr, row, text, sizeof text);
            fprintf(w->f, "%s[%llu,", i ? "," : "", (unsigned long long)row->samples);
            jnum(w, row->executions);
            fprintf(w->f, ",%s,", row->seg.reached_entry ? "true" : "false");
            jstr(w, text);
            fputc(']', w->f);
        }
        fprintf(w->f, "]]");
    }
    fprintf(w->f, "]}");
}

/* ---------------------------------------------------------------- diff */

static void diff(struct jw *w, const struct html_input *in)
{
    fprintf(w->f, "\"diff\": ");
    if (!in->diff) {
        fprintf(w->f, "null");
        return;
    }
    const struct cmp_table *t = in->diff;
    fprintf(w->f, "{\"base\": ");
    jstr(w, in->base_path);
    fprintf(w->f, ", \"alpha\": ");
    jnum(w, in->alpha);
    fprintf(w->f, ", \"total_base\": %llu, \"total\": %llu, \"rows\": [", (unsigned long long)t->total[0],
            (unsigned long long)t->total[1]);
    for (size_t i = 0; i < t->nrows; i++) {
        const struct diff_rank *r = &in->diff_rows[i];
        fprintf(w->f, "%s\n[", i ? "," : "");
        jstr(w, r->row->proc[0] ? r->row->proc : "[outside any procedure]");
        fputc(',', w->f);
        jstr(w, r->row->image);
        fprintf(w->f, ",%llu,%llu,", (unsigned long long)r->row->count[0], (unsigned long long)r->row->count[1]);
        jnum(w, r->test.delta);
        fputc(',', w->f);
        jnum(w, r->test.z);
        fputc(',', w->f);
        jnum(w, r->p_holm);
        fprintf(w->f, ",%d]", r->p_holm <= in->alpha && r->test.valid);
    }
    fprintf(w->f, "]}");
}

/* ---------------------------------------------------------------- the whole */

int html_write_data(const struct html_input *in, FILE *out, struct ap_err *err)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return ap_err_set(err, "out of memory");
    struct jw w = {f};
    struct str_index names = {0};
    fprintf(f, "{\"format\": \"alphaprof-html-1\",\n");
    summary(&w, in);
    fprintf(f, ",\n");
    procedures(&w, in);
    fprintf(f, ",\n");
    int rc = stacks(&w, in, &names, err);
    if (!rc) {
        fprintf(f, ",\n\"names\": [");
        for (size_t k = 0; k < names.n; k++) {
            if (k)
                fputc(',', f);
            jstr(&w, names.keys[k]);
        }
        fprintf(f, "],\n");
        profileme(&w, in);
        fprintf(f, ",\n");
        values(&w, in);
        fprintf(f, ",\n");
        paths(&w, in);
        fprintf(f, ",\n");
        cycles(&w, in);
        fprintf(f, ",\n");
        diff(&w, in);
        fprintf(f, "}\n");
    }
    fclose(f);
    str_index_free(&names);
    if (!rc) {
        /* "</" would end the <script> element the document sits in */
        for (size_t i = 0; i < size; i++) {
            if (buf[i] == '<' && i + 1 < size && buf[i + 1] == '/')
                fputs("<\\", out);
            else
                fputc(buf[i], out);
        }
    }
    free(buf);
    return rc;
}
