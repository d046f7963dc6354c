/*
 * alphaprof trend: one procedure across the runs of the fleet store, in
 * time order: per run its samples of one event in the procedure, the
 * run's samples of that event, and the share with its 95 % (Wilson)
 * interval, so a slow creep shows across builds and boards.  The store
 * does the work (util/fleet-store.c, fleet_trend); this file prints.
 *
 * Invariants: a run whose build of the image has no such procedure (or
 * whose ELF is not at hand) is listed and says so, never left out; exit
 * status 0 listed, 1 nothing could be read, 2 bad options.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/fleet-store.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/strvec.h"

static const struct opt_command trend_command = {
    .name = "trend",
    .synopsis = "--db 'postgresql://...#SELECTION' [--image NAME] [--event E] [--last N] PROCEDURE",
    .about = "PROCEDURE across the fleet store's runs that the selection matches (board=,\n"
             "workload=, build_id=, since=, until= joined by '&'; every match, oldest\n"
             "first): per run its samples in PROCEDURE, the run's samples and the share,\n"
             "with a 95% interval.  The procedure is found in each run's own build of\n"
             "the image (by name, or GCC's clone of it such as NAME.constprop.0, through\n"
             "the ELF the run was pushed with).",
    .epilog = "  alphaprof trend --db 'postgresql://ci@fleet/fleet#workload=app&board=clipper-pm' mix_b\n"
              "\n"
              "Exit status: 0 listed, 1 the store could not be read or matches nothing,\n"
              "2 bad options.",
};

static void wilson(uint64_t k, uint64_t n, double *lo, double *hi)
{
    if (!n) {
        *lo = *hi = 0;
        return;
    }
    double z = 1.959964, p = (double)k / (double)n, d = 1 + z * z / (double)n;
    double c = (p + z * z / (2 * (double)n)) / d;
    double h = z * sqrt(p * (1 - p) / (double)n + z * z / (4.0 * (double)n * (double)n)) / d;
    *lo = fmax(0, c - h);
    *hi = fmin(1, c + h);
}

/* The workload= of the URI's fragment (the image by default), or NULL. */
static char *fragment_workload(const char *uri)
{
    const char *h = strchr(uri, '#');
    for (const char *p = h; p && *p; p = strchr(p + 1, '&')) {
        const char *kv = p + 1;
        if (!strncmp(kv, "workload=", 9)) {
            size_t n = strcspn(kv + 9, "&");
            char *w = xmalloc(n + 1);
            memcpy(w, kv + 9, n);
            w[n] = '\0';
            return w;
        }
    }
    return NULL;
}

static const char *why_not(const struct fleet_trend_point *x)
{
    return !x->has_image ? "no such image in this run" : "procedure not found in this build (or its ELF is not here)";
}

static void print_text(const struct fleet_trend *t, const char *image, const char *proc)
{
    printf("%s in %s, event %s, over %zu run%s (oldest first)\n\n", proc, image, t->event_name, t->n,
           t->n == 1 ? "" : "s");
    printf("%6s  %-24s  %-12s  %-12s %10s %10s %7s  %s\n", "run", "started", "board", "build", "samples", "in proc",
           "share%", "[95% interval]");
    for (size_t i = 0; i < t->n; i++) {
        const struct fleet_trend_point *x = &t->pts[i];
        printf("%6lld  %-24s  %-12s  %-12.12s %10llu ", (long long)x->run, x->started, x->board, x->build_id,
               (unsigned long long)x->total);
        if (!x->found) {
            printf("%10s %7s  (%s)\n", "-", "-", why_not(x));
            continue;
        }
        double lo, hi;
        wilson(x->samples, x->total, &lo, &hi);
        printf("%10llu %7.2f  [%.2f, %.2f]\n", (unsigned long long)x->samples,
               x->total ? 100.0 * (double)x->samples / (double)x->total : 0.0, 100 * lo, 100 * hi);
    }
}

static void print_json(const struct fleet_trend *t, const char *image, const char *proc)
{
    printf("{\"procedure\": ");
    json_str(stdout, proc);
    printf(", \"image\": ");
    json_str(stdout, image);
    printf(", \"event\": ");
    json_str(stdout, t->event_name);
    printf(", \"runs\": [");
    for (size_t i = 0; i < t->n; i++) {
        const struct fleet_trend_point *x = &t->pts[i];
        printf("%s\n  {\"run\": %lld, \"started\": ", i ? "," : "", (long long)x->run);
        json_str(stdout, x->started);
        printf(", \"board\": ");
        json_str(stdout, x->board);
        printf(", \"build_id\": ");
        json_str(stdout, x->build_id);
        printf(", \"total\": %llu, \"found\": %s", (unsigned long long)x->total, x->found ? "true" : "false");
        if (x->found) {
            double lo, hi;
            wilson(x->samples, x->total, &lo, &hi);
            printf(", \"samples\": %llu, \"share\": ", (unsigned long long)x->samples);
            json_num(stdout, x->total ? (double)x->samples / (double)x->total : 0);
            printf(", \"ci\": [");
            json_num(stdout, lo);
            printf(", ");
            json_num(stdout, hi);
            printf("]");
        } else {
            printf(", \"why\": ");
            json_str(stdout, why_not(x));
        }
        printf("}");
    }
    printf("]}\n");
}

int cmd_trend(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    struct strvec operands = {0};
    const char *image = NULL, *event = NULL;
    unsigned last = 50;
    const struct option options[] = {
        OPT_PROFILE_DB(&po),
        OPT_STRING(0, "image", &image, "NAME", "the image holding PROCEDURE (default: the selection's workload=)"),
        OPT_STRING(0, "event", &event, "NAME", "the event (default: the lowest-numbered one sampled)"),
        OPT_UINT(0, "last", &last, "N", 0, OPT_NUMBER_MAX, "the newest N matching runs (default 50; 0 all)"),
        OPT_PROFILE_JSON(&po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&trend_command, options, argc, argv, &operands, NULL);
    const char *db = r == OPT_PARSED ? profile_opts_db(&po) : NULL;
    char *workload = db ? fragment_workload(db) : NULL;
    int rc = r != OPT_PARSED ? opt_exit(r)
             : !fleet_is_uri(db) ? opt_usage_error(&trend_command, "trend reads the fleet store: --db 'postgresql://...#workload=NAME'")
             : operands.n != 1 ? opt_usage_error(&trend_command, operands.n ? "one procedure, please" : "which procedure?")
             : !image && !workload ? opt_usage_error(&trend_command, "which image? give --image NAME or #workload=NAME")
                                   : -1;
    if (rc < 0) {
        if (!image)
            image = workload;
        struct fleet_trend t;
        struct ap_err err;
        if (fleet_trend(db, image, operands.v[0], event, last, &t, &err)) {
            fprintf(stderr, "alphaprof trend: %s\n", err.msg);
            rc = 1;
        } else {
            if (po.json)
                print_json(&t, image, operands.v[0]);
            else
                print_text(&t, image, operands.v[0]);
            fleet_trend_free(&t);
            rc = 0;
        }
    }
    free(workload);
    strvec_free(&operands);
    return rc;
}
