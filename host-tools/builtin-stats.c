/*
 * alphaprof stats: how much each procedure's samples vary across epochs or
 * runs (DCPI's dcpistats, SOSP'97 Figure 3): normalised range, sum, sum %,
 * N, mean, std-dev, min and max per procedure, sorted by normalised range,
 * so the procedures whose time changes from run to run stand out.
 *
 * Invariants: the variation and ranking are util/compare-rank's; this file
 * parses and prints.  Fewer than two sets is an error (exit 1), never a
 * table of zeros.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/compare-rank.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/profile-compare.h"
#include "util/profile-stats.h"
#include "util/regular-file.h"
#include "util/strvec.h"

#define MAX_DBS    16
#define MAX_EPOCHS 256

static const struct opt_command stats_command = {
    .name = "stats",
    .synopsis = "[options]",
    .about = "Variation of each procedure's samples across epochs (DCPI's dcpistats):\n"
             "start an epoch per run with `alphaprof db new-epoch`, record, repeat, then\n"
             "compare.  Each epoch that holds samples of the event is one set; with\n"
             "several --db, every such epoch of every database is.",
    .epilog = "Columns, per procedure, over the N sets compared:\n"
              "  range%          (max - min) / sum: the normalised range\n"
              "  sum, sum%       samples in all sets, and their share of all samples\n"
              "  N               sets in which the procedure has samples\n"
              "  mean, std-dev   mean and sample standard deviation (n - 1) over every\n"
              "                  set, counting 0 where the procedure has none\n"
              "  min, max        fewest and most samples in one set\n"
              "  sd/sqrt(mean)   about 1 when the variation is only sampling noise\n"
              "                  (Poisson counts); well above 1: the runs really differ\n"
              "\n"
              "Exit status: 0 done, 1 the database could not be read or has fewer\n"
              "than two sets, 2 bad options.",
};

static const char *const sort_names[] = {"range", "sum", NULL};

struct set_source {
    const char *db;
    int64_t epoch;
    uint32_t event;         /* resolved in this database */
};

static const char *proc_label(const struct cmp_row *r)
{
    return r->proc[0] ? r->proc : "[outside any procedure]";
}

static void print_text(const struct cmp_table *t, const struct set_source *sets, size_t ndbs,
                       const char *event_name, const struct stats_rank *rows, size_t n, size_t limit)
{
    uint64_t all = 0;
    for (size_t s = 0; s < t->nsets; s++)
        all += t->total[s];
    printf("Event %s: %zu sets, %llu samples in all.\n\n", event_name, t->nsets, (unsigned long long)all);
    printf("%5s %12s  %s\n", "set", "samples", "source");
    for (size_t s = 0; s < t->nsets; s++) {
        printf("%5zu %12llu  ", s + 1, (unsigned long long)t->total[s]);
        if (ndbs > 1)
            printf("%s ", sets[s].db);
        printf("epoch %lld\n", (long long)sets[s].epoch);
    }
    printf("\n%8s %12s %7s %4s %12s %10s %10s %10s %13s  %-32s %s\n", "range%", "sum", "sum%", "N", "mean",
           "std-dev", "min", "max", "sd/sqrt(mean)", "procedure", "image");
    size_t shown = limit && limit < n ? limit : n;
    for (size_t i = 0; i < shown; i++) {
        const struct stats_rank *r = &rows[i];
        printf("%7.2f%% %12.0f %6.2f%% %4zu %12.2f %10.2f %10.0f %10.0f %13.2f  %-32s %s\n",
               100 * r->var.range_norm, r->var.sum, all ? 100 * r->var.sum / (double)all : 0.0,
               r->row->present, r->var.mean, r->var.sd, r->var.min, r->var.max, r->dispersion,
               proc_label(r->row), r->row->image);
    }
    if (shown < n)
        printf("(%zu more procedures; --limit 0 shows all)\n", n - shown);
}

static void print_json(const struct cmp_table *t, const struct set_source *sets, uint32_t event,
                       const char *event_name, const struct stats_rank *rows, size_t n, size_t limit)
{
    uint64_t all = 0;
    for (size_t s = 0; s < t->nsets; s++)
        all += t->total[s];
    printf("{\"event\": %u, \"event_name\": ", event);
    json_str(stdout, event_name);
    printf(", \"total\": %llu, \"sets\": [", (unsigned long long)all);
    for (size_t s = 0; s < t->nsets; s++) {
        printf("%s{\"db\": ", s ? ", " : "");
        json_str(stdout, sets[s].db);
        printf(", \"epoch\": %lld, \"samples\": %llu}", (long long)sets[s].epoch,
               (unsigned long long)t->total[s]);
    }
    printf("],\n \"procedures\": [");
    size_t shown = limit && limit < n ? limit : n;
    for (size_t i = 0; i < shown; i++) {
        const struct stats_rank *r = &rows[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_str(stdout, r->row->proc);
        printf(", \"image\": ");
        json_str(stdout, r->row->image);
        printf(", \"range\": ");
        json_num(stdout, r->var.range_norm);
        printf(", \"sum\": %.0f, \"sum_share\": ", r->var.sum);
        json_num(stdout, all ? r->var.sum / (double)all : 0.0);
        printf(", \"n\": %zu, \"mean\": ", r->row->present);
        json_num(stdout, r->var.mean);
        printf(", \"sd\": ");
        json_num(stdout, r->var.sd);
        printf(", \"min\": %.0f, \"max\": %.0f, \"dispersion\": ", r->var.min, r->var.max);
        json_num(stdout, r->dispersion);
        printf(", \"counts\": [");
        for (size_t s = 0; s < t->nsets; s++)
            printf("%s%llu", s ? ", " : "", (unsigned long long)r->row->count[s]);
        printf("]}");
    }
    printf("]}\n");
}

/* Every set of one database: its epochs holding the event (or those asked
 * for), each loaded as a profile view and added to the table later. */
static int collect_sets(const char *db_path, const char *event_spec, const int64_t *want, size_t nwant,
                        const char *image, int core, struct set_source *sets, size_t *nsets,
                        struct ap_err *err)
{
    struct pdb *db;
    if (pdb_open(db_path, PDB_READ, &db, err))
        return -1;
    uint32_t event;
    int64_t *epochs = NULL;
    size_t n = 0;
    int rc = cmp_resolve_event(db, event_spec, &event, err);
    for (size_t i = 0; !rc && i < nwant; i++)
        rc = cmp_check_epoch(db, want[i], err);
    if (!rc)
        rc = cmp_epochs_with_event(db, event, image, core, &epochs, &n, err);
    for (size_t i = 0; !rc && i < n; i++) {
        bool wanted = nwant == 0;
        for (size_t k = 0; k < nwant; k++)
            wanted |= want[k] == epochs[i];
        if (!wanted)
            continue;
        if (*nsets == MAX_EPOCHS) {
            rc = ap_err_set(err, "more than %d sets; choose epochs with --epoch", MAX_EPOCHS);
            break;
        }
        sets[(*nsets)++] = (struct set_source){db_path, epochs[i], event};
    }
    free(epochs);
    pdb_close(db);
    return rc;
}

/* Loads set s into the table (as set number s). */
static int load_set(struct cmp_table *t, size_t s, const struct set_source *src, const char *image, int core,
                    char *event_name, size_t name_size, struct ap_err *err)
{
    struct pdb *db;
    if (pdb_open(src->db, PDB_READ, &db, err))
        return -1;
    struct profile_view v;
    struct pv_selection sel = {.epoch = src->epoch, .core = core, .image = image};
    int rc = pv_load(db, &sel, &v, err);
    pdb_close(db);
    if (rc)
        return -1;
    int e = pv_event_index(&v, src->event);
    if (e >= 0) {
        cmp_add_view(t, s, &v, e);
        snprintf(event_name, name_size, "%s", v.event_names[e]);
    }
    pv_free(&v);
    return 0;
}

/* The command line of one stats, parsed. */
struct stats_options {
    struct profile_opts po;
    struct strvec dbs;
    int64_t want[MAX_EPOCHS];
    struct epoch_list epochs;
    const char *event_spec;
    unsigned limit;
    int sort;                   /* index in sort_names */
};

static int stats_report(const struct stats_options *o);

int cmd_stats(int argc, char **argv)
{
    struct stats_options o = {.po = PROFILE_OPTS_INIT, .limit = OPT_LIMIT_UNSET};
    o.epochs = (struct epoch_list){o.want, 0, MAX_EPOCHS, false, "too many --epoch"};
    const struct option options[] = {
        OPT_LIST(0, "db", &o.dbs, "PATH", "a profile database (default $ALPHAPROF_DB or alphaprof.db);\n"
                 "repeat to compare runs kept in separate databases"),
        OPT_CALLBACK(0, "epoch", &o.epochs, "N", "compare only these epochs (repeatable; default: all)",
                     opt_epoch_list),
        OPT_CALLBACK(0, "event", &o.event_spec, "E", "event name or number (default: the first, as in report)",
                     opt_event),
        OPT_PROFILE_IMAGE(&o.po), OPT_PROFILE_CORE(&o.po),
        OPT_CHOICE(0, "sort", &o.sort, sort_names, "range|sum", "order by normalised range (default) or by sum"),
        OPT_LIMIT(&o.limit, "procedures"),
        OPT_PROFILE_JSON(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&stats_command, options, argc, argv, NULL, NULL);
    int rc = r != OPT_PARSED ? opt_exit(r)
             : o.dbs.n > MAX_DBS ? opt_usage_error(&stats_command, "at most %d databases", MAX_DBS) : -1;
    if (rc < 0) {
        if (o.dbs.n == 0)
            strvec_push(&o.dbs, profile_opts_db(&o.po));
        rc = stats_report(&o);
    }
    strvec_free(&o.dbs);
    return rc;
}

/* The variation across the sets of the databases and epochs chosen. */
static int stats_report(const struct stats_options *o)
{
    const char *const *dbs = (const char *const *)o->dbs.v, *event_spec = o->event_spec, *image = o->po.sel.image;
    size_t ndbs = o->dbs.n, nwant = o->epochs.n;
    const int64_t *want = o->want;
    int core = o->po.sel.core;
    unsigned limit = opt_limit(o->limit, o->po.json);
    bool json = o->po.json, sort_sum = o->sort == 1;
    struct ap_err err;
    static struct set_source sets[MAX_EPOCHS];
    size_t nsets = 0;
    for (size_t d = 0; d < ndbs; d++)
        for (size_t e = 0; e < d; e++)
            if (same_file(dbs[e], dbs[d])) {
                /* Its epochs would count twice and halve the variation seen. */
                fprintf(stderr, "alphaprof stats: %s and %s are the same database; give each --db once\n",
                        dbs[e], dbs[d]);
                return 1;
            }
    for (size_t d = 0; d < ndbs; d++)
        if (collect_sets(dbs[d], event_spec, want, nwant, image, core, sets, &nsets, &err)) {
            fprintf(stderr, "alphaprof stats: %s\n", err.msg);
            return 1;
        }
    if (nsets < 2) {
        fprintf(stderr,
                "alphaprof stats: %zu set%s with samples of this event%s; stats compares two or more: "
                "start an epoch per run with `alphaprof db new-epoch` (or give several --db)\n",
                nsets, nsets == 1 ? "" : "s", image || core >= 0 ? " in this selection" : "");
        return 1;
    }
    struct cmp_table t;
    cmp_init(&t, CMP_PROCS, nsets);
    char event_name[32] = "?";
    for (size_t s = 0; s < nsets; s++)
        if (load_set(&t, s, &sets[s], image, core, event_name, sizeof event_name, &err)) {
            fprintf(stderr, "alphaprof stats: %s\n", err.msg);
            cmp_free(&t);
            return 1;
        }
    cmp_finish(&t);

    struct stats_rank *rows = rank_stats(&t, sort_sum);
    if (json)
        print_json(&t, sets, sets[0].event, event_name, rows, t.nrows, limit);
    else {
        print_text(&t, sets, ndbs, event_name, rows, t.nrows, limit);
    }
    free(rows);
    cmp_free(&t);
    return 0;
}
