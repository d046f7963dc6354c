/*
 * alphaprof paths [--proc NAME]: hot paths.  A session of an image
 * instrumented with `instrument --paths [--metrics]` shows its counted
 * Ball-Larus paths (util/path-metrics.h): ranked by --sort count, cycles
 * or the event, each metric's share, and the share of the event (D-cache
 * misses by default) the top 5, 10 and 28 paths hold (the seed's finding).
 * Otherwise (or with --sampled): hot paths per procedure, reconstructed
 * from paired ProfileMe samples' branch history (seed section 5.3;
 * util/path-profile.h groups, util/path-recon.h reconstructs).  Each path
 * is shown as its blocks, oldest first, with their source lines, and its
 * samples, share of the procedure's samples and estimated executions.
 * `check --paths` measures how often the reconstruction is right.
 *
 * Invariants: the analysis is in util/; this file parses and prints; text
 * and JSON carry the same numbers; every sample of a procedure is in a
 * path or in the counts of samples without one (ambiguous, none,
 * unresolved), never dropped silently.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "firmware/abi/event-spec.h"
#include "firmware/abi/path-region.h"
#include "util/cct-view.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/path-metrics.h"
#include "util/path-profile.h"
#include "util/strvec.h"

static const struct opt_command paths_command = {
    .name = "paths",
    .synopsis = "[options] [PROC]",
    .about = "Hot paths per procedure from paired ProfileMe samples (record --paired): each\n"
             "sample's recent path is reconstructed backwards over the CFG from its PC\n"
             "with its global branch history (and the paired sample's PC); samples whose\n"
             "path is unique are grouped.  A path ends at the sampled block and reaches\n"
             "back --bits conditional branches or to the procedure's entry; callees on\n"
             "it show as [name].  Estimated executions: samples x the ProfileMe\n"
             "interval / the sampled block's length.  alphaprof check --paths measures\n"
             "the reconstruction against the model's exact paths.\n"
             "\n"
             "A session of an image from `alphaprof instrument --paths [--metrics]`\n"
             "shows the counted Ball-Larus paths instead (--sampled: the ProfileMe ones):\n"
             "ranked by --sort count|cycles|EVENT, with each one's share, and the share\n"
             "of the event the top 5, 10 and 28 paths hold.  A path's metrics run from\n"
             "its start to its end, callees included.  An image from `instrument --both`\n"
             "counted each path in its calling context: the counts are summed per path,\n"
             "or with --context ranked per (context, path), each context shown as its\n"
             "chain of calls from the root (alphaprof cct shows the tree).",
};

struct paths_options {
    struct profile_opts po;
    const char *proc, *sort;
    unsigned bits, limit;
    bool sampled, context;
    struct cct_view cv;         /* --context: the tree that names the contexts */
    bool have_cv;
};

#define CHAIN_MAX 64

/* Path h's chain of calls, innermost first, into chain[CHAIN_MAX]: how
 * many; *cut when the root lies farther up.  0 when h has no record or its
 * record is not in the tree. */
static size_t context_chain(const struct paths_options *o, const struct hot_path *h,
                            const struct cv_node *chain[CHAIN_MAX], bool *cut)
{
    const struct cv_node *n = h->record >= 0 && o->have_cv ? cv_find(&o->cv, h->core, (uint64_t)h->record) : NULL;
    size_t k = 0;
    for (; n && n->id != 0 && k < CHAIN_MAX; n = n->parent != CV_NO_NODE ? &o->cv.nodes[n->parent] : NULL)
        chain[k++] = n;
    *cut = n && n->id != 0;
    return k;
}

/* Path h's context as its chain of calls from the root, or what it has
 * instead (--context); with sites, each call's site after its callee
 * (callee@file:line), so that two calls of one procedure from the same
 * caller are told apart. */
static void context_text(const struct paths_options *o, const struct hot_path *h, bool sites, char *buf, size_t len)
{
    if (h->record < 0) {
        snprintf(buf, len, "(context-free: entered by no standard call, or before the first)");
        return;
    }
    const struct cv_node *chain[CHAIN_MAX];
    bool cut;
    size_t k = context_chain(o, h, chain, &cut);
    if (!k) {
        snprintf(buf, len, "core %d record %lld", h->core, (long long)h->record);
        return;
    }
    size_t at = (size_t)snprintf(buf, len, "%s", cut ? "... > " : "");
    while (k-- > 0 && at + 1 < len) {
        char site[160] = "";
        if (sites && chain[k]->parent != CV_NO_NODE && o->cv.nodes[chain[k]->parent].id != 0)
            cv_site_text(chain[k], site + 1, sizeof site - 1);
        if (site[1])
            site[0] = '@';
        at += (size_t)snprintf(buf + at, len - at, "%s%s%s", at && buf[at - 1] != ' ' ? " > " : "", chain[k]->name,
                               site);
    }
}

/* --json --context: the call sites' addresses along h's chain, root's
 * first (two calls on one source line share their file:line). */
static void print_site_addrs(const struct paths_options *o, const struct hot_path *h)
{
    printf(", \"context_site_addrs\": ");
    if (h->record < 0) {
        printf("null");
        return;
    }
    const struct cv_node *chain[CHAIN_MAX];
    bool cut;
    size_t k = context_chain(o, h, chain, &cut);
    printf("[");
    for (size_t i = 0; i < k; i++)
        printf("%s%llu", i ? ", " : "", (unsigned long long)chain[k - 1 - i]->site_addr);
    printf("]");
}

static const size_t top_k[] = {5, 10, 28};     /* the seed's: 3-28 hot paths */

static const char *key_name(const struct path_metrics *pm, enum pm_key k)
{
    return k == PM_COUNT ? "count" : k == PM_CYCLES ? "cycles" : pmu_event_name((unsigned)pm->event);
}

static double share(const struct path_metrics *pm, const struct hot_path *h, enum pm_key k)
{
    return pm->total[k] ? (double)h->v[k] / (double)pm->total[k] : 0;
}

static void print_counted_json(const struct paths_options *o, struct path_metrics *pm, enum pm_key key)
{
    int nkeys = pm->metered ? PM_NKEYS : 1;
    printf("{\"instrumented\": true, \"session\": %lld, \"image\": ", (long long)pm->session);
    json_str(stdout, pm->image);
    printf(", \"metered\": %s, \"event\": ", pm->metered ? "true" : "false");
    if (pm->metered)
        json_str(stdout, key_name(pm, PM_EVENT));
    else
        printf("null");
    printf(", \"sort\": \"%s\", \"paths_counted\": %zu", key_name(pm, key), pm->n);
    for (int k = 0; k < nkeys; k++)
        printf(", \"total_%s\": %llu", k == PM_EVENT ? "event" : key_name(pm, (enum pm_key)k),
               (unsigned long long)pm->total[k]);
    printf(", \"top_share\": {");
    for (int k = 0; k < nkeys; k++) {
        printf("%s\"%s\": {", k ? ", " : "", key_name(pm, (enum pm_key)k));
        for (size_t t = 0; t < sizeof top_k / sizeof *top_k; t++) {
            printf("%s\"%zu\": ", t ? ", " : "", top_k[t]);
            json_num(stdout, path_metrics_top_share(pm, (enum pm_key)k, top_k[t]));
        }
        printf("}");
    }
    printf("}, \"unmetered\": %llu, \"lost_paths\": %llu, \"unmatched_exits\": %llu, \"bad_paths\": %llu, "
           "\"unnamed\": %llu, \"left_alone_too_many_paths\": ", (unsigned long long)pm->unmetered,
           (unsigned long long)pm->lost_paths, (unsigned long long)pm->unmatched_exits,
           (unsigned long long)pm->bad_paths, (unsigned long long)pm->unnamed);
    json_str(stdout, pm->too_many ? pm->too_many : "");
    printf(", \"paths\": [");
    for (size_t i = 0; i < pm->n && (!o->limit || i < o->limit); i++) {
        const struct hot_path *h = &pm->paths[i];
        char name[256], text[2048];
        path_metrics_describe(pm, i, name, sizeof name, text, sizeof text);
        printf("%s\n  {\"procedure\": ", i ? "," : "");
        json_str(stdout, name);
        printf(", \"start\": %llu, \"path\": %llu", (unsigned long long)h->proc, (unsigned long long)h->path);
        if (o->context) {
            char ctx[1024];
            context_text(o, h, false, ctx, sizeof ctx);
            printf(", \"core\": %d, \"record\": %lld, \"context\": ", h->core, (long long)h->record);
            if (h->record >= 0)
                json_str(stdout, ctx);
            else
                printf("null");
            context_text(o, h, true, ctx, sizeof ctx);
            printf(", \"context_sites\": ");
            if (h->record >= 0)
                json_str(stdout, ctx);
            else
                printf("null");
            print_site_addrs(o, h);
        }
        for (int k = 0; k < nkeys; k++) {
            const char *n = k == PM_EVENT ? "event" : key_name(pm, (enum pm_key)k);
            printf(", \"%s\": %llu, \"%s_share\": ", n, (unsigned long long)h->v[k], n);
            json_num(stdout, share(pm, h, (enum pm_key)k));
        }
        printf(", \"blocks\": ");
        json_str(stdout, text);
        printf("}");
    }
    printf("]}\n");
}

static void print_counted_text(const struct paths_options *o, struct path_metrics *pm, enum pm_key key)
{
    int nkeys = pm->metered ? PM_NKEYS : 1;
    printf("Ball-Larus paths counted by the instrumented image %s (session %lld): %zu %s, %llu executions",
           pm->image, (long long)pm->session, pm->n, o->context ? "(context, path) pairs" : "paths",
           (unsigned long long)pm->total[PM_COUNT]);
    if (pm->metered)
        printf(";\nper path its modelled cycles and %s from its start to its end, callees included", key_name(pm, PM_EVENT));
    printf(".  By %s.\n", key_name(pm, key));
    for (int k = nkeys - 1; k >= 0; k--) {
        printf("  the top");
        for (size_t t = 0; t < sizeof top_k / sizeof *top_k; t++)
            printf("%s %zu", t ? "," : "", top_k[t]);
        printf(" paths by %s hold", key_name(pm, (enum pm_key)k));
        for (size_t t = 0; t < sizeof top_k / sizeof *top_k; t++)
            printf("%s %.1f %%", t ? "," : "", 100 * path_metrics_top_share(pm, (enum pm_key)k, top_k[t]));
        printf(" of %s\n", k == PM_COUNT ? "path executions" : key_name(pm, (enum pm_key)k));
    }
    if (pm->unmetered || pm->lost_paths || pm->unmatched_exits || pm->bad_paths || pm->unnamed)
        printf("  not here: %llu paths counted without metrics, %llu lost (register stack full or no hash slot), "
               "%llu unmatched "
               "exits, %llu bad numbers, %llu executions of unnamed counters\n",
               (unsigned long long)pm->unmetered, (unsigned long long)pm->lost_paths,
               (unsigned long long)pm->unmatched_exits, (unsigned long long)pm->bad_paths,
               (unsigned long long)pm->unnamed);
    if (pm->ntoo_many)
        printf("  left alone by the instrumenter: %zu procedure%s with too many paths for an array, not hashed "
               "(%s); alphaprof instrument --paths without --metrics (nor --hash-slots 0) counts their paths in a "
               "hash table\n", pm->ntoo_many, pm->ntoo_many == 1 ? "" : "s", pm->too_many);
    printf("\n  %12s %6s", "count", "%");
    if (pm->metered)
        printf(" %14s %6s %10s %6s", "cycles", "%", key_name(pm, PM_EVENT), "%");
    printf("  procedure:path  %sblocks (source lines)\n", o->context ? "[context]  " : "");
    size_t limit = o->limit ? o->limit : pm->n;
    for (size_t i = 0; i < pm->n && i < limit; i++) {
        const struct hot_path *h = &pm->paths[i];
        char name[256], text[2048];
        path_metrics_describe(pm, i, name, sizeof name, text, sizeof text);
        printf("  %12llu %6.2f", (unsigned long long)h->v[PM_COUNT], 100 * share(pm, h, PM_COUNT));
        if (pm->metered)
            printf(" %14llu %6.2f %10llu %6.2f", (unsigned long long)h->v[PM_CYCLES], 100 * share(pm, h, PM_CYCLES),
                   (unsigned long long)h->v[PM_EVENT], 100 * share(pm, h, PM_EVENT));
        char ctx[1024] = "";
        if (o->context) {
            ctx[0] = '[';
            context_text(o, h, true, ctx + 1, sizeof ctx - 4);
            strcat(ctx, "]  ");
        }
        printf("  %s:%llu  %s%s\n", name, (unsigned long long)h->path, ctx, text);
    }
    if (pm->n > limit)
        printf("  (%zu more paths: --limit N or --json)\n", pm->n - limit);
}

/* The instrumented view; 0 printed, 1 error, -1 no path counts. */
static int counted_paths(struct paths_options *o, const char *db_path)
{
    struct ap_err err;
    struct pdb *db;
    struct path_metrics pm;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof paths: %s\n", err.msg);
        return 1;
    }
    int rc = path_metrics_load_contexts(db, 0, o->proc, o->context, &pm, &err);
    if (rc == 0 && o->context && pm.present) {
        struct ap_err e2;
        o->have_cv = cv_load(db, pm.session, &o->cv, &e2) == 0;
    }
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof paths: %s\n", err.msg);
        return 1;
    }
    if (o->context && (!pm.present || !pm.contexts)) {
        fprintf(stderr, "alphaprof paths: --context: %s counted no paths per calling context; instrument the "
                        "image with alphaprof instrument --both and record it\n", db_path);
        path_metrics_free(&pm);
        if (o->have_cv)
            cv_free(&o->cv);
        return 1;
    }
    if (!pm.present) {
        path_metrics_free(&pm);
        if (o->sort) {
            fprintf(stderr, "alphaprof paths: --sort ranks counted paths, and %s has none; instrument the image "
                            "with alphaprof instrument --paths and record it\n", db_path);
            return 1;
        }
        return -1;
    }
    const char *sel = profile_sel_given(&o->po.sel);
    if (sel) {
        fprintf(stderr, "alphaprof paths: counted paths are the newest session's, whole: %s selects ProfileMe "
                        "samples (add --sampled) and does not apply to them\n", sel);
        path_metrics_free(&pm);
        if (o->have_cv)
            cv_free(&o->cv);
        return 2;
    }
    if (pm.metered && pm.total[PM_COUNT] && !pm.total[PM_CYCLES])
        cv_metrics_unread_note("alphaprof paths", "path", stderr);
    enum pm_key key = PM_COUNT;
    if (o->sort && !strcmp(o->sort, "cycles"))
        key = PM_CYCLES;
    else if (o->sort && strcmp(o->sort, "count")) {
        int e = pmu_event_lookup(o->sort, strlen(o->sort));
        if (!pm.metered || e != pm.event) {
            fprintf(stderr, "alphaprof paths: --sort %s: sort by count%s%s%s\n", o->sort,
                    pm.metered ? ", cycles or " : " (the image counts no metrics: instrument with --metrics)",
                    pm.metered ? pmu_event_name((unsigned)pm.event) : "", pm.metered ? " (the image's event)" : "");
            path_metrics_free(&pm);
            return 2;
        }
        key = PM_EVENT;
    } else if (o->sort && !strcmp(o->sort, "cycles") && !pm.metered) {
        key = PM_COUNT;
    }
    if (key == PM_CYCLES && !pm.metered) {
        fprintf(stderr, "alphaprof paths: --sort cycles: the image counts no metrics; instrument with "
                        "alphaprof instrument --paths --metrics\n");
        path_metrics_free(&pm);
        return 2;
    }
    if (!pm.n && o->proc && pm.proc_status != PATH_INSTRUMENTED) {
        fprintf(stderr, "alphaprof paths: %s was left alone by the instrumenter (%s)%s\n", o->proc,
                path_skip_name(pm.proc_status), pm.proc_status == PATH_SKIP_TOO_MANY
                    ? "; alphaprof instrument --paths without --metrics (nor --hash-slots 0) counts its paths in a "
                      "hash table"
                    : "");
        path_metrics_free(&pm);
        return 1;
    }
    if (!pm.n) {
        fprintf(stderr, "alphaprof paths: no counted path%s%s in session %lld of %s\n", o->proc ? " of " : "",
                o->proc ? o->proc : "", (long long)pm.session, db_path);
        path_metrics_free(&pm);
        return 1;
    }
    path_metrics_sort(&pm, key);
    if (o->po.json)
        print_counted_json(o, &pm, key);
    else
        print_counted_text(o, &pm, key);
    path_metrics_free(&pm);
    if (o->have_cv)
        cv_free(&o->cv);
    return 0;
}

static void print_json(const struct paths_options *o, const struct path_profile *pp, const struct ps_samples *ps)
{
    printf("{\"history_bits\": %u, \"interval\": ", pp->nbits);
    json_num(stdout, ps->interval);
    printf(", \"samples\": %llu, \"with_path\": %llu, \"not_retired\": %llu, \"no_code\": %llu, \"procedures\": [",
           (unsigned long long)pp->samples, (unsigned long long)pp->used, (unsigned long long)pp->not_retired,
           (unsigned long long)pp->no_code);
    for (size_t k = 0; k < pp->nprocs; k++) {
        const struct path_proc *pr = &pp->procs[k];
        printf("%s\n {\"procedure\": ", k ? "," : "");
        json_str(stdout, pr->name);
        printf(", \"image\": ");
        json_str(stdout, pr->img->name);
        printf(", \"samples\": %llu", (unsigned long long)pr->samples);
        for (unsigned x = 0; x < 5; x++)
            printf(", \"%s\": %llu", pr_outcome_names[x], (unsigned long long)pr->outcomes[x]);
        printf(", \"paths\": [");
        for (size_t i = 0; i < pr->nrows && (!o->limit || i < o->limit); i++) {
            const struct path_row *row = &pr->rows[i];
            char text[2048];
            path_row_text(pr, row, text, sizeof text);
            printf("%s\n  {\"samples\": %llu, \"share\": ", i ? "," : "", (unsigned long long)row->samples);
            json_num(stdout, pr->samples ? (double)row->samples / (double)pr->samples : 0);
            printf(", \"executions\": ");
            json_num(stdout, row->executions);
            printf(", \"branches\": %u, \"from_entry\": %s, \"blocks\": [", row->seg.nbits,
                   row->seg.reached_entry ? "true" : "false");
            for (size_t b = row->seg.nblocks; b-- > 0;) {
                char w[160];
                path_block_where(pr->img, row->seg.block[b], w, sizeof w);
                printf("%s{\"pc\": %llu, \"depth\": %u, \"line\": ", b + 1 == row->seg.nblocks ? "" : ", ",
                       (unsigned long long)row->seg.block[b], row->seg.depth[b]);
                json_str(stdout, w);
                printf("}");
            }
            printf("], \"path\": ");
            json_str(stdout, text);
            printf("}");
        }
        printf("]}");
    }
    printf("]}\n");
}

static void print_text(const struct paths_options *o, const struct path_profile *pp, const struct ps_samples *ps)
{
    printf("Hot paths from %llu paired ProfileMe samples (%u history bits; %llu samples with a unique path,\n"
           "%llu aborted, %llu outside any procedure's code).  Estimated executions use the interval %.0f.\n",
           (unsigned long long)pp->samples, pp->nbits, (unsigned long long)pp->used,
           (unsigned long long)pp->not_retired, (unsigned long long)pp->no_code, ps->interval);
    for (size_t k = 0; k < pp->nprocs; k++) {
        const struct path_proc *pr = &pp->procs[k];
        if (!o->proc && k >= OPT_TEXT_LIMIT) {
            printf("\n(%zu more procedures: --proc NAME or --json)\n", pp->nprocs - k);
            break;
        }
        printf("\n%s (%s): %llu samples; %llu on a unique path, %llu ambiguous, %llu none, %llu unresolved\n",
               pr->name, pr->img->name, (unsigned long long)pr->samples, (unsigned long long)pr->outcomes[PR_UNIQUE],
               (unsigned long long)pr->outcomes[PR_AMBIGUOUS], (unsigned long long)pr->outcomes[PR_NONE],
               (unsigned long long)pr->outcomes[PR_UNRESOLVED]);
        if (!pr->nrows)
            continue;
        printf("  %8s %7s %12s  %s\n", "samples", "share%", "executions", "path (oldest block first)");
        size_t limit = o->limit ? o->limit : pr->nrows;
        for (size_t i = 0; i < pr->nrows && i < limit; i++) {
            const struct path_row *row = &pr->rows[i];
            char text[2048];
            path_row_text(pr, row, text, sizeof text);
            printf("  %8llu %7.1f %12.0f  %s%s\n", (unsigned long long)row->samples,
                   100.0 * (double)row->samples / (double)pr->samples, row->executions,
                   row->seg.reached_entry ? "(entry) " : "", text);
        }
        if (pr->nrows > limit)
            printf("  (%zu more paths)\n", pr->nrows - limit);
    }
}

static int paths_run(struct paths_options *op);

int cmd_paths(int argc, char **argv)
{
    struct paths_options o = {.po = PROFILE_OPTS_INIT, .bits = PR_DEFAULT_BITS, .limit = OPT_LIMIT_UNSET};
    const struct option options[] = {
        OPT_STRING(0, "proc", &o.proc, "NAME", "only this procedure"),
        OPT_UINT(0, "bits", &o.bits, "N", 1, PR_MAX_BITS,
                 "history bits a path reaches back (1-12, default 8; ProfileMe's\n"
                 "processors kept 8-12)"),
        OPT_LIMIT(&o.limit, "paths per procedure (counted paths: in all)"),
        OPT_STRING(0, "sort", &o.sort, "KEY", "counted paths: rank by count (default), cycles or the image's event"),
        OPT_BOOLEAN(0, "sampled", &o.sampled, "the ProfileMe paths even when the session has counted ones"),
        OPT_BOOLEAN(0, "context", &o.context, "counted per context (instrument --both): rank (context, path) pairs"),
        OPT_PROFILE_SELECT(&o.po),
        OPT_END(),
    };
    struct strvec operands = {0};
    enum opt_result r = opt_parse(&paths_command, options, argc, argv, &operands, NULL);
    int rc = r != OPT_PARSED ? opt_exit(r)
             : operands.n > 1 ? opt_usage_error(&paths_command, "unexpected argument '%s': give one procedure",
                                                operands.v[1])
             : operands.n == 1 && o.proc && strcmp(o.proc, operands.v[0])
                 ? opt_usage_error(&paths_command, "two procedures, '%s' and --proc %s: give one", operands.v[0],
                                   o.proc)
                 : -1;
    if (rc < 0) {
        if (operands.n == 1)
            o.proc = operands.v[0];         /* PROC is --proc PROC */
        rc = paths_run(&o);
    }
    strvec_free(&operands);
    return rc;
}

static int paths_run(struct paths_options *op)
{
    struct paths_options o = *op;
    if (o.limit == OPT_LIMIT_UNSET)
        o.limit = o.po.json ? 0 : OPT_TEXT_LIMIT;
    const char *db_path = profile_opts_db(&o.po);
    if (!o.sampled) {
        int c = counted_paths(&o, db_path);
        if (c >= 0)
            return c;
    }
    struct ap_err err;
    struct pdb *db;
    struct ps_samples ps;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof paths: %s\n", err.msg);
        return 1;
    }
    int rc = ps_load(db, &o.po.sel, &ps, &err);
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof paths: %s\n", err.msg);
        return 1;
    }
    pv_warn_images(stderr, "alphaprof paths", ps.images, ps.nimages, NULL, 0);
    bool unreadable = false;
    for (size_t i = 0; i < ps.nimages; i++)
        unreadable |= ps.images[i].id != 0 && ps.images[i].st_error != NULL;
    struct path_profile pp;
    path_profile_build(&ps, o.bits, o.proc, &pp);
    rc = 0;
    if (!pp.samples) {
        if (o.proc)
            fprintf(stderr, "alphaprof paths: no retired paired ProfileMe sample in a procedure '%s' in %s; "
                            "alphaprof paths without --proc lists those with samples\n", o.proc, db_path);
        else if (unreadable)
            fprintf(stderr, "alphaprof paths: no retired paired ProfileMe sample in code it can read in %s: "
                            "the images above have no symbols (see their lines)\n", db_path);
        else if (o.sampled)
            fprintf(stderr, "alphaprof paths: --sampled: no retired paired ProfileMe sample with code in %s; "
                            "record with --paired (paths estimated from branch history), or drop --sampled for "
                            "the counted paths it may hold\n", db_path);
        else
            fprintf(stderr, "alphaprof paths: no path counts and no retired paired ProfileMe sample with code in "
                            "%s; record an image instrumented with `alphaprof instrument --paths` (exact counts, "
                            "sent when it exits) or record with --paired (estimated from branch history)\n",
                    db_path);
        rc = 1;
    } else if (o.po.json) {
        print_json(&o, &pp, &ps);
    } else {
        print_text(&o, &pp, &ps);
    }
    path_profile_free(&pp);
    ps_free(&ps);
    return rc;
}
