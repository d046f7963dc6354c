/*
 * alphaprof report: where the samples went, per image and per procedure,
 * for each event (DCPI's dcpiprof, Figure 1: counts, %, cumulative %),
 * sorted by the first event; filtered by epoch, core and image.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "util/options.h"
#include "util/profile-db.h"
#include "util/loss-note.h"
#include "util/profile-view.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: alphaprof report [options]\n"
            "\n"
            "Samples per image and per procedure for each event, most first.\n"
            "\n"
            "  --db PATH        the profile database (default $ALPHAPROF_DB or alphaprof.db)\n"
            "  --epoch N|all    which epoch (default: the current one)\n"
            "  --core N         only samples from core N\n"
            "  --image NAME     only this image\n"
            "  --limit N        at most N procedures (default 30, 0 = all)\n"
            "  --json           JSON instead of tables\n"
            "  -h, --help       this text\n");
}

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
        printf("\n");
    }
    printf("\n%12s %7s  %s\n", "samples", "%", "image");
    for (size_t i = 0; i < v->nimages; i++) {
        const struct pv_image *img = &v->images[i];
        printf("%12llu %7.2f  %s%s\n", (unsigned long long)img->total[0],
               pct(img->total[0], v->total[0]), img->name, img->st_error ? "  (no symbols: the ELF is unreadable)" : "");
    }
    for (size_t i = 0; i < v->nimages; i++)
        if (v->images[i].st_error)
            fprintf(stderr, "alphaprof report: no symbols for %s: %s\n", v->images[i].name,
                    v->images[i].st_error);
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

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static void print_json(const struct profile_view *v, size_t limit)
{
    printf("{\"epoch\": %lld, \"events\": [", (long long)v->epoch);
    for (size_t e = 0; e < v->nevents; e++) {
        printf("%s{\"event\": %u, \"name\": ", e ? ", " : "", v->events[e]);
        json_string(v->event_names[e]);
        printf(", \"total\": %llu, \"period\": %llu}", (unsigned long long)v->total[e],
               (unsigned long long)v->periods[e]);
    }
    printf("],\n \"images\": [");
    for (size_t i = 0; i < v->nimages; i++) {
        printf("%s{\"name\": ", i ? ", " : "");
        json_string(v->images[i].name);
        printf(", \"samples\": [");
        for (size_t e = 0; e < v->nevents; e++)
            printf("%s%llu", e ? ", " : "", (unsigned long long)v->images[i].total[e]);
        printf("]}");
    }
    printf("],\n \"procedures\": [");
    size_t n = limit && limit < v->nprocs ? limit : v->nprocs;
    for (size_t i = 0; i < n; i++) {
        const struct pv_proc *p = &v->procs[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        json_string(p->sym ? p->name : "");
        printf(", \"image\": ");
        json_string(p->img->name);
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
    const char *db_path = getenv("ALPHAPROF_DB") ? getenv("ALPHAPROF_DB") : "alphaprof.db";
    struct pv_selection sel = {.epoch = 0, .core = -1, .image = NULL};
    unsigned limit = 30;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        int sel_rc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if ((v = opt_value(argc, argv, &i, "--db", &missing))) {
            db_path = v;
        } else if ((sel_rc = pv_selection_option("alphaprof report", argc, argv, &i, &sel, &missing))) {
            if (sel_rc < 0)
                return 2;
        } else if ((v = opt_value(argc, argv, &i, "--limit", &missing))) {
            if (!parse_unsigned(v, &limit)) {
                fprintf(stderr, "alphaprof report: --limit '%s': give a number\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "alphaprof report: %s '%s'; see 'alphaprof report --help'\n",
                    missing ? "missing value for" : "unknown argument", a);
            return 2;
        }
    }
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
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "alphaprof report: %s\n", err.msg);
        return 1;
    }
    if (v.nevents == 0) {
        fprintf(stderr, "alphaprof report: %s holds no samples for this selection; record some with alphaprof record\n",
                db_path);
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
