/*
 * alphaprof export: the profile in formats other tools read: pprof
 * (gzipped profile.proto, for `pprof` and the viewers that read it), folded
 * stacks (flame graphs) and callgrind (KCachegrind, callgrind_annotate).
 * Source lines and inlined frames come from each image's DWARF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "util/export-profile.h"
#include "util/options.h"
#include "util/profile-compare.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: alphaprof export --format pprof|folded|callgrind [options]\n"
            "\n"
            "Writes the profile for other tools, with source lines and inlined frames\n"
            "from each image's DWARF:\n"
            "  pprof      gzipped profile.proto: `pprof -top FILE`, pprof's web UI and\n"
            "             the viewers that read pprof files; every event is a sample\n"
            "             type, each instruction a location\n"
            "  folded     \"image;procedure;inlined;... count\" lines of one event, for\n"
            "             flame graphs (flamegraph.pl, inferno, speedscope)\n"
            "  callgrind  callgrind format for KCachegrind and callgrind_annotate, one\n"
            "             cost column per event, per-instruction and per-line costs;\n"
            "             inlined code appears as calls\n"
            "\n"
            "  --format F       pprof, folded or callgrind (required)\n"
            "  -o, --output FILE  write there (default: standard output; pprof, being\n"
            "                   binary, is not written to a terminal)\n"
            "  --db PATH        the profile database (default $ALPHAPROF_DB or alphaprof.db)\n"
            "  --epoch N|all    which epoch (default: the current one)\n"
            "  --core N         only samples from core N\n"
            "  --image NAME     only this image\n"
            "  --event E        folded: the event to count (default: the first)\n"
            "  -h, --help       this text\n"
            "\n"
            "Exit status: 0 written, 1 the profile could not be read or written,\n"
            "2 bad options.\n");
}

enum format { FMT_NONE, FMT_PPROF, FMT_FOLDED, FMT_CALLGRIND };

int cmd_export(int argc, char **argv)
{
    const char *db_path = pdb_default_path(), *output = NULL, *event_spec = NULL;
    struct pv_selection sel = {.epoch = 0, .core = -1, .image = NULL};
    enum format fmt = FMT_NONE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        bool missing = false;
        int sel_rc;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if ((v = opt_value(argc, argv, &i, "--format", &missing))) {
            fmt = !strcmp(v, "pprof") ? FMT_PPROF : !strcmp(v, "folded") ? FMT_FOLDED
                : !strcmp(v, "callgrind") ? FMT_CALLGRIND : FMT_NONE;
            if (fmt == FMT_NONE) {
                fprintf(stderr, "alphaprof export: --format '%s': give pprof, folded or callgrind\n", v);
                return 2;
            }
        } else if ((v = opt_value(argc, argv, &i, "-o", &missing)) ||
                   (v = opt_value(argc, argv, &i, "--output", &missing))) {
            output = v;
        } else if ((v = opt_value(argc, argv, &i, "--db", &missing))) {
            db_path = v;
        } else if ((sel_rc = pv_selection_option("alphaprof export", argc, argv, &i, &sel, &missing))) {
            if (sel_rc < 0)
                return 2;
        } else if ((v = opt_value(argc, argv, &i, "--event", &missing))) {
            event_spec = v;
        } else {
            fprintf(stderr, "alphaprof export: %s '%s'; see 'alphaprof export --help'\n",
                    missing ? "missing value for" : "unknown argument", a);
            return 2;
        }
    }
    if (fmt == FMT_NONE) {
        fprintf(stderr, "alphaprof export: give --format pprof, folded or callgrind\n");
        return 2;
    }
    if (fmt == FMT_PPROF && !output && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "alphaprof export: pprof output is binary (gzip); give -o FILE or redirect it\n");
        return 2;
    }

    struct ap_err err;
    struct pdb *db;
    if (pdb_open(db_path, PDB_READ, &db, &err)) {
        fprintf(stderr, "alphaprof export: %s\n", err.msg);
        return 1;
    }
    struct profile_view v;
    struct xp_profile x;
    bool have_view = false, have_x = false;
    int rc = 1;
    uint32_t event = 0;
    if ((event_spec && cmp_resolve_event(db, event_spec, &event, &err)) || cmp_check_epoch(db, sel.epoch, &err) ||
        pv_load(db, &sel, &v, &err)) {
        fprintf(stderr, "alphaprof export: %s\n", err.msg);
        goto out;
    }
    have_view = true;
    if (v.nevents == 0) {
        fprintf(stderr, "alphaprof export: %s holds no samples for this selection; record some with alphaprof record\n",
                db_path);
        goto out;
    }
    int e = event_spec ? pv_event_index(&v, event) : 0;
    if (e < 0) {
        fprintf(stderr, "alphaprof export: no samples of event %s in this selection\n", event_spec);
        goto out;
    }
    if (export_from_view(db, &v, &x, &err)) {
        fprintf(stderr, "alphaprof export: %s\n", err.msg);
        goto out;
    }
    have_x = true;
    FILE *f = output ? fopen(output, fmt == FMT_PPROF ? "wb" : "w") : stdout;
    if (!f) {
        fprintf(stderr, "alphaprof export: cannot write %s: %s\n", output, strerror(errno));
        goto out;
    }
    int wrc = fmt == FMT_PPROF    ? export_pprof(&x, f, &err)
              : fmt == FMT_FOLDED ? export_folded(&x, (size_t)e, f, &err)
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
    if (have_view)
        pv_free(&v);
    pdb_close(db);
    return rc;
}
