/*
 * alphaprof report: where the samples went, per image and per procedure,
 * for each event (DCPI's dcpiprof, Figure 1: counts, %, cumulative %),
 * sorted by the first event; filtered by epoch, core and image.
 *
 * Invariants:
 *  1. The database is opened read-only and closed before the table is
 *     printed: report never changes it.
 *  2. The table or JSON document goes to stdout; notes (losses, images
 *     without symbols) go to stderr, so stdout stays clean to parse.
 *  3. --limit cuts only the procedure list, and the output says so: the
 *     count left out (text) or procedures_total (JSON).
 *  4. Exit status: 0 printed, 1 the database could not be read or holds
 *     no samples for the selection, 2 bad options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/contents-hint.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/profile-db.h"
#include "util/loss-note.h"
#include "util/profile-view.h"

static const struct opt_command report_command = {
    .name = "report",
    .synopsis = "[options]",
    .about = "Samples per image and per procedure for each event, most first.",
};

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void print_text(const struct profile_view *v, size_t limit)
{
    if (v->epoch < 0)
        printf("Every epoch.\n");
    else
        printf("Epoch %lld.\n", (long long)v->epoch);
    for (size_t e = 0; e < v->nevents; e++) {
        printf("Total samples for event %s = %llu", v->event_names[e], (unsigned long long)v->total[e]);
        if (v->periods[e])
            printf(", mean period %llu", (unsigned long long)v->periods[e]);
        if (v->periods[e] && v->events[e] == LK_EVENT_TIMER) {
            /* the estimate of time uses the period each core achieved */
            if (v->requested[e] && v->requested[e] != v->periods[e])
                printf(" ns achieved (%llu asked)", (unsigned long long)v->requested[e]);
            else
                printf(" ns");
            printf(", about %.1f ms of virtual time sampled per core on %u cores",
                   v->estimate[e] / 1e6 / (v->cores[e] ? v->cores[e] : 1), v->cores[e]);
        }
        printf("\n");
    }
    printf("\n%12s %7s  %s\n", "samples", "%", "image");
    for (size_t i = 0; i < v->nimages; i++) {
        const struct pv_image *img = &v->images[i];
        printf("%12llu %7.2f  %s%s\n", (unsigned long long)img->total[0],
               pct(img->total[0], v->total[0]), img->name, img->st_error ? "  (no symbols: see the message on stderr)" : "");
    }
    pv_warn_images(stderr, "alphaprof report", v->images, v->nimages, NULL, 0);
    printf("\n");
    for (size_t e = 0; e < v->nevents; e++)
        printf("%12s %7s %7s  ", v->event_names[e], "%", "cum%");
    printf("%-32s %s\n", "procedure", "image");
    uint64_t cum[PV_MAX_EVENTS] = {0};
    size_t n = limit && limit < v->nprocs ? limit : v->nprocs;
    for (size_t i = 0; i < n; i++) {
        const struct pv_proc *p = &v->procs[i];
        for (size_t e = 0; e < v->nevents; e++) {
            cum[e] += p->count[e];
            printf("%12llu %7.2f %7.2f  ", (unsigned long long)p->count[e],
                   pct(p->count[e], v->total[e]), pct(cum[e], v->total[e]));
        }
        printf("%-32s %s\n", p->sym ? p->name : "[outside any procedure]", p->img->name);
    }
    if (n < v->nprocs)
        printf("(%zu more procedures; --limit 0 shows all)\n", v->nprocs - n);
}

static void print_json(const struct profile_view *v, size_t limit)
{
    printf("{\"epoch\": %lld, \"events\": [", (long long)v->epoch);
    for (size_t e = 0; e < v->nevents; e++) {
        printf("%s{\"event\": %u, \"name\": ", e ? ", " : "", v->events[e]);
        json_str(stdout, v->event_names[e]);
        printf(", \"total\": %llu, \"period\": %llu, \"requested_period\": %llu, \"estimate\": %.0f, "
               "\"cores\": %u}", (unsigned long long)v->total[e], (unsigned long long)v->periods[e],
               (unsigned long long)v->requested[e], v->estimate[e], v->cores[e]);
    }
    printf("],\n \"images\": [");
    for (size_t i = 0; i < v->nimages; i++) {
        printf("%s{\"name\": ", i ? ", " : "");
        json_str(stdout, v->images[i].name);
        printf(", \"samples\": [");
        for (size_t e = 0; e < v->nevents; e++)
            printf("%s%llu", e ? ", " : "", (unsigned long long)v->images[i].total[e]);
        printf("]}");
    }
    size_t n = limit && limit < v->nprocs ? limit : v->nprocs;
    /* every procedure unless --limit asked for fewer: the total says so */
    printf("],\n \"procedures_total\": %zu, \"procedures\": [", v->nprocs);
    for (size_t i = 0; i < n; i++) {
        const struct pv_proc *p = &v->procs[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_str(stdout, p->sym ? p->name : "");
        printf(", \"image\": ");
        json_str(stdout, p->img->name);
        printf(", \"address\": %llu, \"samples\": [",
               (unsigned long long)(p->sym ? p->sym->start : p->img->address));
        for (size_t e = 0; e < v->nevents; e++)
            printf("%s%llu", e ? ", " : "", (unsigned long long)p->count[e]);
        printf("]}");
    }
    printf("]}\n");
}

int cmd_report(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    unsigned limit = OPT_LIMIT_UNSET;
    const struct option options[] = {
        OPT_PROFILE_SELECT(&po),
        OPT_LIMIT(&limit, "procedures"),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&report_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    limit = opt_limit(limit, po.json);
    const char *db_path = profile_opts_db(&po);
    struct pv_selection sel = po.sel;
    bool json = po.json;
    struct ap_err err;
    struct pdb *db;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof report: %s\n", err.msg);
        return 1;
    }
    struct profile_view v;
    int rc = pv_load(db, &sel, &v, &err);
    if (rc == 0 && v.nevents)
        loss_note(db, v.epoch, "alphaprof report", stderr);     /* one line before the table */
    char held[512] = "";
    if (rc == 0 && v.nevents == 0)
        profile_contents_hint(db, held, sizeof held);
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof report: %s\n", err.msg);
        return 1;
    }
    if (v.nevents == 0) {
        fprintf(stderr, "alphaprof report: %s holds no counter samples for this selection; %s\n", db_path,
                held[0] ? held : "record some with alphaprof record");
        pv_free(&v);
        return 1;
    }
    if (json)
        print_json(&v, limit);
    else
        print_text(&v, limit);
    pv_free(&v);
    return 0;
}
