/*
 * alphaprof cct: the calling context tree an instrumented image built
 * (alphaprof instrument --cct), per core: each context's calls and, for a
 * tree built with --metrics, its inclusive and exclusive cycles and
 * instructions, with the call site as a source line.  Analysis in
 * util/cct-view.c; this file prints.
 *
 * Invariants: children print below their parent, hottest (inclusive
 * cycles, then calls) first; every record the board made is printed or
 * counted as missing in the core's heading.  Exit status: 0 printed, 1 the
 * database holds no tree, 2 bad options.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "firmware/abi/event-spec.h"
#include "util/cct-view.h"
#include "util/json-out.h"
#include "util/option-groups.h"

static const struct opt_command cct_command = {
    .name = "cct",
    .synopsis = "[--db P] [--session N] [--core N] [--json]",
    .about = "Prints the calling context tree of an image instrumented with\n"
             "`alphaprof instrument --cct`: one line per calling context (call sites\n"
             "distinguished, recursion folded onto the ancestor) with its calls and,\n"
             "when instrumented with --cct --metrics, its inclusive and exclusive\n"
             "modelled cycles and retired instructions (counted by the\n"
             "instrumentation from the PMU page, its own cost included; zero on a\n"
             "board without the hardware model).  A tree of counts only says so.\n"
             "An image from `alphaprof instrument --both` counted each procedure's\n"
             "Ball-Larus paths per context: under each context its paths' executions\n"
             "and its hottest paths by number (alphaprof paths --context shows their\n"
             "blocks); with --both --metrics also their modelled cycles and event\n"
             "and each context's share of every context's path cycles and event.",
    .epilog = "Exit status: 0 printed, 1 no calling context tree in the database, 2 bad options.",
};

static size_t *sorted_children(const struct cct_view *v, const struct cv_node *n, size_t *count)
{
    size_t k = 0;
    for (size_t c = n->first_child; c != CV_NO_NODE; c = v->nodes[c].next_sibling)
        k++;
    size_t *out = malloc((k ? k : 1) * sizeof *out);
    k = 0;
    for (size_t c = n->first_child; c != CV_NO_NODE; c = v->nodes[c].next_sibling)
        out[k++] = c;
    /* insertion sort: hottest first */
    for (size_t i = 1; i < k; i++)
        for (size_t j = i; j > 0; j--) {
            const struct cv_node *a = &v->nodes[out[j - 1]], *b = &v->nodes[out[j]];
            if (a->cycles > b->cycles || (a->cycles == b->cycles && a->calls >= b->calls))
                break;
            size_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    *count = k;
    return out;
}


static double share(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

static const char *event_name(const struct cct_view *v)
{
    return v->path_event >= 0 ? pmu_event_name((unsigned)v->path_event) : "event";
}

static void print_text(const struct cct_view *v, size_t i)
{
    const struct cv_node *n = &v->nodes[i];
    char site[160];
    cv_site_text(n, site, sizeof site);
    printf("%10" PRIu64, n->calls);
    if (v->metrics)
        printf(" %14" PRIu64 " %14" PRIu64 " %14" PRIu64 " %14" PRIu64, n->cycles, n->cycles_excl, n->retired,
               n->retired_excl);
    printf("  %*s%s%s%s%s\n", 2 * (int)n->depth, "", n->name, site[0] ? "  (" : "", site,
           site[0] ? ")" : "");
    if (n->nhot) {          /* instrument --both: its hottest paths in this context */
        printf("%10s%s  %*s  paths: %" PRIu64 " executions of %u:", "", v->metrics ? "      " : "", 2 * (int)n->depth,
               "", n->path_executions, n->paths_distinct);
        for (unsigned k = 0; k < n->nhot; k++)
            printf("%s #%" PRIu64 " %" PRIu64 " (%.1f %%)", k ? "," : "", n->hot[k].path, n->hot[k].count,
                   100.0 * (double)n->hot[k].count / (double)n->path_executions);
        printf("\n");
        if (v->path_metrics)    /* --both --metrics: what its paths cost, and their share of all contexts' */
            printf("%10s%s  %*s  path cycles %" PRIu64 " (%.1f %%), %s %" PRIu64 " (%.1f %%) of every context's "
                   "paths\n", "", v->metrics ? "      " : "", 2 * (int)n->depth, "", n->path_cycles,
                   share(n->path_cycles, v->path_total[0]), event_name(v), n->path_event,
                   share(n->path_event, v->path_total[1]));
    }
    size_t k;
    size_t *ch = sorted_children(v, n, &k);
    for (size_t j = 0; j < k; j++)
        print_text(v, ch[j]);
    free(ch);
}

static void print_json_node(const struct cct_view *v, size_t i, bool *first)
{
    const struct cv_node *n = &v->nodes[i];
    printf("%s\n    {\"core\": %d, \"id\": %" PRIu64 ", \"parent\": %" PRIu64 ", \"depth\": %u, \"procedure\": ",
           *first ? "" : ",", n->core, n->id, n->parent_id, n->depth);
    *first = false;
    json_str(stdout, n->name);
    printf(", \"callee_address\": %" PRIu64 ", \"site_address\": %" PRIu64 ", \"site_procedure\": ",
           n->callee_addr, n->site_addr);
    json_str(stdout, n->site_proc);
    printf(", \"site_file\": ");
    if (n->site_file)
        json_str(stdout, n->site_file);
    else
        printf("null");
    printf(", \"site_line\": %u, \"calls\": %" PRIu64, n->site_line, n->calls);
    if (v->metrics)
        printf(", \"cycles\": %" PRIu64 ", \"cycles_exclusive\": %" PRIu64 ", \"retired\": %" PRIu64
               ", \"retired_exclusive\": %" PRIu64, n->cycles, n->cycles_excl, n->retired, n->retired_excl);
    else
        printf(", \"cycles\": null, \"cycles_exclusive\": null, \"retired\": null, \"retired_exclusive\": null");
    if (v->paths) {
        printf(", \"path_executions\": %" PRIu64 ", \"paths_distinct\": %u, \"hot_paths\": [", n->path_executions,
               n->paths_distinct);
        for (unsigned k = 0; k < n->nhot; k++) {
            printf("%s{\"path\": %" PRIu64 ", \"count\": %" PRIu64, k ? ", " : "", n->hot[k].path, n->hot[k].count);
            if (v->path_metrics)
                printf(", \"cycles\": %" PRIu64 ", \"event\": %" PRIu64, n->hot[k].cycles, n->hot[k].event);
            printf("}");
        }
        printf("]");
        if (v->path_metrics) {
            printf(", \"path_cycles\": %" PRIu64 ", \"path_cycles_share\": ", n->path_cycles);
            json_num(stdout, share(n->path_cycles, v->path_total[0]) / 100);
            printf(", \"path_event\": %" PRIu64 ", \"path_event_share\": ", n->path_event);
            json_num(stdout, share(n->path_event, v->path_total[1]) / 100);
        }
    }
    printf("}");
    size_t k;
    size_t *ch = sorted_children(v, n, &k);
    for (size_t j = 0; j < k; j++)
        print_json_node(v, ch[j], first);
    free(ch);
}

static int cct(const char *db_path, int64_t session, int core, bool json)
{
    struct pdb *db;
    struct ap_err err;
    struct cct_view v;
    if (pdb_open(db_path, PDB_READ, &db, &err) || cv_load(db, session, &v, &err)) {
        fprintf(stderr, "alphaprof cct: %s\n", err.msg);
        if (db)
            pdb_close(db);
        return 1;
    }
    bool have_core = core < 0;
    for (size_t c = 0; c < v.ncores && !have_core; c++)
        have_core = v.cores[c].core == core;
    if (!have_core) {
        fprintf(stderr, "alphaprof cct: session %lld of %s has no calling context tree of core %d (cores:",
                (long long)v.session, db_path, core);
        for (size_t c = 0; c < v.ncores; c++)
            fprintf(stderr, " %d", v.cores[c].core);
        fprintf(stderr, "); give one of them\n");
        cv_free(&v);
        pdb_close(db);
        return 1;
    }
    pv_warn_images(stderr, "alphaprof cct", v.images, v.nimages, NULL, 0);
    if (cv_metrics_unread(&v))
        cv_metrics_unread_note("alphaprof cct", "context", stderr);
    if (json) {
        printf("{\"session\": %lld, \"metrics\": %s, \"path_metrics\": %s, \"path_event\": ", (long long)v.session,
               v.metrics ? "true" : "false", v.path_metrics ? "true" : "false");
        if (v.path_metrics)
            json_str(stdout, event_name(&v));
        else
            printf("null");
        printf(", \"cores\": [");
        for (size_t c = 0; c < v.ncores; c++)
            printf("%s{\"core\": %d, \"records\": %" PRIu64 ", \"received\": %" PRIu64 ", \"skipped_calls\": %" PRIu64
                   ", \"overflow_calls\": %" PRIu64 "}", c ? ", " : "", v.cores[c].core, v.cores[c].total,
                   v.cores[c].received, v.cores[c].skipped_calls, v.cores[c].overflow_calls);
        printf("],\n  \"records\": [");
        bool first = true;
        for (size_t c = 0; c < v.ncores; c++)
            if ((core < 0 || v.cores[c].core == core) && v.cores[c].root != CV_NO_NODE)
                print_json_node(&v, v.cores[c].root, &first);
        printf("\n  ]\n}\n");
    } else {
        for (size_t c = 0; c < v.ncores; c++) {
            const struct cv_core *k = &v.cores[c];
            if (core >= 0 && k->core != core)
                continue;
            printf("calling context tree of session %lld, core %d: %" PRIu64 " records", (long long)v.session,
                   k->core, k->total);
            if (k->received != k->total)
                printf(" (%" PRIu64 " missing: the link had no room)", k->total - k->received);
            printf(", %" PRIu64 " calls skipped (shadow stack full), %" PRIu64 " calls on the overflow record\n",
                   k->skipped_calls, k->overflow_calls);
            if (v.metrics)
                printf("%10s %14s %14s %14s %14s  %s\n", "calls", "cycles", "cycles-excl", "retired",
                       "retired-excl", "context (call site)");
            else if (v.path_metrics)
                printf("call counts only (instrument --both keeps no cycles per call; with --metrics its paths' "
                       "cycles and %s per context are under each context)\n%10s  %s\n", event_name(&v), "calls",
                       "context (call site)");
            else
                printf("call counts only (instrumented without --metrics: no cycles or instructions per "
                       "context)\n%10s  %s\n", "calls", "context (call site)");
            if (k->root != CV_NO_NODE)
                print_text(&v, k->root);
            const struct cv_node *o = cv_find(&v, k->core, 1);
            if (o && o->calls)
                print_text(&v, (size_t)(o - v.nodes));
        }
    }
    cv_free(&v);
    pdb_close(db);
    return 0;
}

int cmd_cct(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    unsigned session = 0;
    const struct option options[] = {
        OPT_PROFILE_DB(&po),
        OPT_UINT(0, "session", &session, "N", 1, 1u << 30, "the session (boot) to show (default: the newest with a tree)"),
        OPT_PROFILE_CORE(&po),
        OPT_PROFILE_JSON(&po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&cct_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    return cct(profile_opts_db(&po), session, po.sel.core, po.json);
}
