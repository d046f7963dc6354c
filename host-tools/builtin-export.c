/*
 * alphaprof export: the profile in formats other tools read: pprof
 * (gzipped profile.proto, for `pprof` and the viewers that read it), folded
 * stacks (flame graphs), callgrind (KCachegrind, callgrind_annotate) and
 * speedscope's JSON.
 * Source lines and inlined frames come from each image's DWARF.
 *
 * Invariants:
 *  1. The database is opened read-only: export never changes it.
 *  2. pprof is binary, so it is never written to a terminal: without -o
 *     and with a terminal on stdout that is a usage error (2).
 *  3. A failed write leaves no partial -o FILE: the file is removed.
 *  4. Exit status: 0 written, 1 nothing to export or the profile could
 *     not be read or written, 2 bad options.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "util/contents-hint.h"
#include "util/cct-view.h"
#include "util/export-profile.h"
#include "util/option-groups.h"
#include "util/profile-compare.h"
#include "util/regular-file.h"

static const struct opt_command export_command = {
    .name = "export",
    .synopsis = "--format pprof|folded|callgrind|speedscope [options]",
    .about = "Writes the profile for other tools, with source lines and inlined frames\n"
             "from each image's DWARF:\n"
             "  pprof      gzipped profile.proto: `pprof -top FILE`, pprof's web UI and\n"
             "             the viewers that read pprof files; every event is a sample\n"
             "             type, each instruction a location\n"
             "  folded     \"image;procedure;inlined;... count\" lines of one event, for\n"
             "             flame graphs (flamegraph.pl, inferno, speedscope)\n"
             "  callgrind  callgrind format for KCachegrind and callgrind_annotate, one\n"
             "             cost column per event, per-instruction and per-line costs;\n"
             "             inlined code appears as calls\n"
             "  speedscope speedscope's JSON (speedscope FILE, or open it at speedscope.app),\n"
             "             one profile per event; timer samples weighted as nanoseconds",
    .epilog = "Exit status: 0 written, 1 the profile could not be read or written,\n"
              "2 bad options.",
};

enum format { FMT_PPROF, FMT_FOLDED, FMT_CALLGRIND, FMT_SPEEDSCOPE, FMT_NONE };
static const char *const format_names[] = {"pprof", "folded", "callgrind", "speedscope", NULL};

/* Writes the selected profile as fmt to output (NULL: stdout). */
static int export_to(const char *db_path, const struct pv_selection *sel, const char *event_spec,
                     enum format fmt, const char *output);

int cmd_export(int argc, char **argv)
{
    struct profile_opts po = PROFILE_OPTS_INIT;
    const char *output = NULL, *event_spec = NULL;
    int fmt = FMT_NONE;
    const struct option options[] = {
        OPT_CHOICE(0, "format", &fmt, format_names, "F", "pprof, folded, callgrind or speedscope (required)"),
        OPT_STRING('o', "output", &output, "FILE", "write there (default: standard output; pprof, being\n"
                   "binary, is not written to a terminal)"),
        OPT_CALLBACK(0, "event", &event_spec, "E", "folded: the event to count (default: the first)", opt_event),
        OPT_GROUP("selecting the profile"),
        OPT_PROFILE_DB(&po), OPT_PROFILE_EPOCH(&po), OPT_PROFILE_CORE(&po), OPT_PROFILE_IMAGE(&po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&export_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    if (fmt == FMT_NONE)
        return opt_usage_error(&export_command, "give --format pprof, folded, callgrind or speedscope");
    struct stat st;     /* (a FIFO nobody reads would hang the export) */
    if (output && stat(output, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
        return opt_usage_error(&export_command, "-o %s is %s: give a regular file to write, or no -o for "
                               "standard output", output, file_kind(st.st_mode));
    if (fmt == FMT_PPROF && !output && isatty(STDOUT_FILENO))
        return opt_usage_error(&export_command, "pprof output is binary (gzip); give -o FILE or redirect it");
    return export_to(profile_opts_db(&po), &po.sel, event_spec, (enum format)fmt, output);
}

static int export_to(const char *db_path, const struct pv_selection *sel, const char *event_spec,
                     enum format fmt, const char *output)
{
    struct ap_err err;
    struct pdb *db;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof export: %s\n", err.msg);
        return 1;
    }
    struct profile_view v;
    struct xp_profile x;
    struct cct_view cv;
    bool have_view = false, have_x = false, have_cv = false;
    int rc = 1;
    uint32_t event = 0;
    if ((event_spec && cmp_resolve_event(db, event_spec, &event, &err)) || cmp_check_epoch(db, sel->epoch, &err) ||
        pv_load(db, sel, &v, &err)) {
        fprintf(stderr, "alphaprof export: %s\n", err.msg);
        goto out;
    }
    have_view = true;
    pv_warn_images(stderr, "alphaprof export", v.images, v.nimages, NULL, 0);
    if (v.nevents == 0) {
        char held[512];
        profile_contents_hint(db, held, sizeof held);
        fprintf(stderr, "alphaprof export: %s holds no counter samples for this selection (export writes those); %s\n",
                db_path, held[0] ? held : "record some with alphaprof record");
        goto out;
    }
    int e = event_spec ? pv_event_index(&v, event) : 0;
    if (e < 0) {
        fprintf(stderr, "alphaprof export: no samples of event %s in this selection\n", event_spec);
        goto out;
    }
    /* the output must not be one of the inputs: opening it would truncate
     * the database, or an image whose symbols are mapped (SIGBUS) */
    const char *input = output && same_file(output, db_path) ? db_path : NULL;
    for (size_t i = 0; output && !input && i < v.nimages; i++)
        if (v.images[i].path && same_file(output, v.images[i].path))
            input = v.images[i].path;
    if (input) {
        fprintf(stderr, "alphaprof export: -o %s is %s, which export reads; give another file\n", output,
                input == db_path ? "the database" : "the profiled image");
        rc = 2;
        goto out;
    }
    if (export_from_view(db, &v, &x, &err)) {
        fprintf(stderr, "alphaprof export: %s\n", err.msg);
        goto out;
    }
    have_x = true;
    /* opened before the notes below, so an output that cannot be written
     * gets its one line alone */
    FILE *f = output ? fopen(output, fmt == FMT_PPROF ? "wb" : "w") : stdout;
    if (!f) {
        fprintf(stderr, "alphaprof export: cannot write %s: %s\n", output, strerror(errno));
        goto out;
    }
    /* an instrumented run's calling context tree gives the samples real
     * stacks (the newest session's tree) */
    struct ap_err no_tree;
    if (cv_load(db, 0, &cv, &no_tree) == 0) {
        have_cv = true;
        if (export_add_contexts(&x, &cv) && !cv.metrics)
            fprintf(stderr, "alphaprof export: note: the calling context tree has call counts only (no cycles "
                    "per call: instrument --cct --metrics keeps them), so each procedure's samples are split among "
                    "its contexts by their calls\n");
    }
    int wrc = fmt == FMT_PPROF    ? export_pprof(&x, f, &err)
              : fmt == FMT_FOLDED ? export_folded(&x, (size_t)e, f, &err)
              : fmt == FMT_SPEEDSCOPE ? export_speedscope(&x, f, &err)
                                  : export_callgrind(&x, f, &err);
    if (fflush(f) != 0 && !wrc)
        wrc = ap_err_set(&err, "writing %s failed", output ? output : "standard output");
    if (output && fclose(f) != 0 && !wrc)
        wrc = ap_err_set(&err, "writing %s failed", output);
    if (wrc) {
        fprintf(stderr, "alphaprof export: %s\n", err.msg);
        if (output)
            unlink(output);
        goto out;
    }
    rc = 0;
out:
    if (have_x)
        export_free(&x);
    if (have_cv)
        cv_free(&cv);
    if (have_view)
        pv_free(&v);
    pdb_close(db);
    return rc;
}
