/*
 * alphaprof html: the profile as one self-contained HTML file, readable
 * offline in any browser: summary, zoomable flame graph (real call
 * stacks from the calling context tree of an instrumented run, as the
 * exports have them), sortable procedure table, heat-mapped listings,
 * ProfileMe charts, hot paths from paired samples (as `paths` finds them),
 * cycle stacks and loops (from paired samples as `pme --stacks` estimates them; on
 * an in-order core from cycle samples as `calc` does) and, with --base,
 * the diff against another profile.
 *
 * Invariants:
 *   1. One file, nothing fetched: the data (util/html-data), stylesheet and
 *      script (util/html-assets, written here) are inline, and the page's
 *      Content-Security-Policy forbids every network request.
 *   2. The databases are opened read-only.  The report is written to a
 *      temporary file beside -o and renamed, so a failure leaves no
 *      partial report.
 *   3. Exit status: 0 written, 1 a profile could not be read or the file
 *      not written, 2 bad options.
 *   4. The cycle analyses are the subcommands' own (util/pme-stacks,
 *      util/calc-profile), so the report's numbers are theirs.  A profile
 *      they cannot analyse gets a one-line warning and a report without
 *      them.
 *
 * Design note 1: which core.  HELLO names the board as the monitor does
 * ("clipper"), not the board configuration it ran on, so only the
 * configuration record stored with the sessions (sessions.board_config,
 * schema 7) says which core (out-of-order or in-order) the samples came
 * from.  --board names it; without it, that stored board is used, else
 * (a daemon's profile, an older file) ProfileMe's stacks take pme
 * --stacks's default (clipper-pm, the out-of-order core ProfileMe belongs
 * to) and calc's
 * columns are left out with a hint: calc's static schedule is the
 * in-order core's, and on the out-of-order core the stacks come from
 * ProfileMe.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "util/contents-hint.h"
#include "util/calc-profile.h"
#include "util/cct-view.h"
#include "util/compare-rank.h"
#include "util/html-assets.h"
#include "util/html-data.h"
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/path-profile.h"
#include "util/pme-stacks.h"
#include "util/pme-view.h"
#include "util/profile-compare.h"
#include "util/strvec.h"

#define HTML_PME_BOARD "clipper-pm"     /* pme --stacks's default board (design note 1) */

static const struct opt_command html_command = {
    .name = "html",
    .synopsis = "-o REPORT.html [options]",
    .about = "Writes the profile as one self-contained HTML file (no network, nothing\n"
             "else to copy): summary with drops explained, a zoomable flame graph\n"
             "(image, procedure, inlined calls, source line; with a calling context\n"
             "tree, from instrument --cct, the real call stacks as export has them),\n"
             "the procedures sortable, heat-mapped source and disassembly of the\n"
             "hottest procedures, ProfileMe charts when the profile has ProfileMe\n"
             "samples, hot paths per procedure when it has paired ones (record\n"
             "--paired; as alphaprof paths shows them), cycle stacks per instruction\n"
             "(from paired samples as alphaprof pme --stacks estimates them; on an\n"
             "in-order core from cycle samples with dcpicalc's columns, as alphaprof\n"
             "calc), and with --base the per-procedure diff against another profile.",
    .epilog = "A link may say where the report opens: REPORT.html#proc=NAME (its\n"
              "listing), #sort=COLUMN or #sort=-COLUMN (the procedure table by that\n"
              "column, - descending), #zoom=NAME (the flame graph zoomed to that frame),\n"
              "joined by '&'.\n"
              "\n"
              "Exit status: 0 written, 1 a profile could not be read or the report\n"
              "not written, 2 bad options.",
};

struct html_options {
    struct profile_opts po;
    const char *output, *base, *event_spec, *board;
    int64_t base_epoch;
    unsigned listing_kb, listings;
    double alpha;
};

static int html_report(const struct html_options *o);

int cmd_html(int argc, char **argv)
{
    struct html_options o = {.po = PROFILE_OPTS_INIT, .listing_kb = 2500, .listings = 200, .alpha = 0.05};
    const struct option options[] = {
        OPT_STRING('o', "output", &o.output, "FILE", "the report to write (required)"),
        OPT_STRING(0, "base", &o.base, "PATH", "diff against this database's profile"),
        OPT_CALLBACK(0, "base-epoch", &o.base_epoch, "N|all", "the base's epoch (default: its current one)",
                     opt_epoch),
        OPT_CALLBACK(0, "event", &o.event_spec, "E", "the diff's event (default: the first, as in report)",
                     opt_event),
        OPT_DOUBLE(0, "alpha", &o.alpha, "X", 0, 1, OPT_ABOVE_MIN | OPT_BELOW_MAX,
                   "the diff's significance level, after Holm's correction (default 0.05)"),
        OPT_UINT(0, "listing-kb", &o.listing_kb, "KB", 0, OPT_NUMBER_MAX,
                 "listings of the hottest procedures up to this size (default 2500)"),
        OPT_UINT(0, "listings", &o.listings, "N", 0, OPT_NUMBER_MAX,
                 "and of at most N procedures (default 200)"),
        OPT_STRING(0, "board", &o.board, "NAME", "the board recorded on, for the cycle stacks' core (an\n"
                   "in-order one, e.g. clipper-ev5, adds calc's columns; default for\n"
                   "ProfileMe's stacks clipper-pm, as pme --stacks)"),
        OPT_GROUP("selecting the profile"),
        OPT_PROFILE_DB(&o.po), OPT_PROFILE_EPOCH(&o.po), OPT_PROFILE_CORE(&o.po), OPT_PROFILE_IMAGE(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&html_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    if (!o.output)
        return opt_usage_error(&html_command, "give the report's file: -o REPORT.html");
    return html_report(&o);
}

/* The document around the data. */
static void write_page(FILE *f, const struct html_input *in, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>alphaprof: ", f);
    for (const char *p = title; *p; p++) {
        if (*p == '<')
            fputs("&lt;", f);
        else if (*p == '&')
            fputs("&amp;", f);
        else
            fputc(*p, f);
    }
    fputs("</title>\n<style>\n", f);
    fputs(html_report_css, f);
    fputs("</style></head>\n<body><noscript>This report needs JavaScript.</noscript>\n"
          "<script type=\"application/json\" id=\"alphaprof-data\">", f);
    (void)in;
}

static int load(const char *path, const struct pv_selection *sel, struct pdb **db, struct profile_view *v,
                struct ap_err *err)
{
    if (pdb_open(path, PDB_READ, db, err))
        return -1;
    if (cmp_check_epoch(*db, sel->epoch, err) || pv_load(*db, sel, v, err)) {
        pdb_close(*db);
        *db = NULL;
        return -1;
    }
    return 0;
}

static int html_report(const struct html_options *o)
{
    const char *db_path = profile_opts_db(&o->po);
    struct ap_err err;
    struct pdb *db = NULL, *bdb = NULL;
    struct profile_view v, bv;
    struct pme_view pv;
    struct value_view vals;
    struct cct_view cv;
    struct ps_samples ps;
    struct path_profile pp;
    bool have_v = false, have_bv = false, have_pv = false, have_t = false, have_vals = false;
    bool have_cv = false, have_ps = false, have_pp = false, have_ca = false;
    struct pme_stack *pst = NULL;
    struct pme_loop *loops = NULL;
    size_t nloops = 0;
    struct calc_analysed ca;
    char *board = NULL;
    struct cmp_table t;
    struct diff_rank *rows = NULL;
    char *tmp = NULL;
    FILE *f = NULL;
    int rc = 1;
    if (load(db_path, &o->po.sel, &db, &v, &err))
        goto fail;
    have_v = true;
    if (pme_view_load(db, &o->po.sel, 30, &pv, &err))
        goto fail;
    have_pv = true;
    if (vv_load(db, &o->po.sel, -1, NULL, &vals, &err))
        goto fail;
    have_vals = true;
    if (v.nevents == 0 && pv.samples == 0) {
        char held[512];
        profile_contents_hint(db, held, sizeof held);
        ap_err_set(&err, "%s holds no counter or ProfileMe samples for this selection; %s", db_path,
                   held[0] ? held : "record some with alphaprof record");
        goto fail;
    }
    /* an instrumented run's calling context tree (the newest session's, as
     * export takes it): the flame graph's real stacks */
    struct ap_err no_tree;
    have_cv = cv_load(db, 0, &cv, &no_tree) == 0;
    if (ps_load(db, &o->po.sel, &ps, &err))
        goto fail;
    have_ps = true;
    if (ps.n) {
        path_profile_build(&ps, PR_DEFAULT_BITS, NULL, &pp);
        have_pp = true;
    }
    /* cycle stacks: from ProfileMe pairs (pme --stacks), and on an in-order
     * core from cycle samples (calc), with the recording board's core
     * (invariant 4, note 1) */
    int idx[CALC_NEV];
    calc_event_indices(&v, idx);
    bool want_pme = pv.nraw > 0, want_calc = idx[CALC_EV_CYCLES] >= 0;
    struct model_params mp;
    bool have_mp = false;
    if (o->board) {
        board = xstrdup(o->board);
        if (calc_board_params(board, &mp, &err))
            goto fail;
        have_mp = true;
    } else if (want_pme || want_calc) {
        struct ap_err no_model;
        board = pdb_board_config(db, v.epoch);
        have_mp = board && calc_board_params(board, &mp, &no_model) == 0;
        if (!have_mp && want_pme) {         /* as pme --stacks without --board */
            free(board);
            board = xstrdup(HTML_PME_BOARD);
            if (calc_board_params(board, &mp, &err))
                goto fail;
            have_mp = true;
        } else if (!have_mp) {
            fprintf(stderr, "alphaprof html: the profile does not say which core its cycle samples are from; "
                            "for dcpicalc's columns give the in-order board, e.g. --board clipper-ev5\n");
            want_calc = false;
        }
    }
    if (have_mp && want_pme) {
        struct pme_stack_params sp;
        pme_stack_params_of(&mp, &sp);
        pst = xmalloc((pv.ninsns ? pv.ninsns : 1) * sizeof *pst);
        struct ap_err why;
        if (pme_stacks_estimate(&pv, &sp, pst, &why)) {
            fprintf(stderr, "alphaprof html: no cycle stacks from ProfileMe: %s\n", why.msg);
            free(pst);
            pst = NULL;
        } else {
            loops = pme_stacks_by_loop(pst, pv.ninsns, &mp, &nloops);
        }
    }
    if (have_mp && want_calc && mp.inorder) {
        calc_analyse_view_pme(&v, &pv, &mp, &ca);
        have_ca = true;
    }
    struct html_input in = {.db = db, .db_path = db_path, .v = &v, .pv = &pv, .vals = &vals, .alpha = o->alpha,
                            .board = board, .pme_stacks = pst, .pme_loops = loops, .npme_loops = nloops,
                            .calc = have_ca ? &ca : NULL,
                            .cct = have_cv ? &cv : NULL, .paths = have_pp ? &pp : NULL,
                            .paths_interval = ps.interval,
                            .listing_budget = (size_t)o->listing_kb * 1024,
                            .max_listings = o->listings};
    if (o->base) {
        struct pv_selection bsel = o->po.sel;
        bsel.epoch = o->base_epoch;
        uint32_t event;
        if (load(o->base, &bsel, &bdb, &bv, &err))
            goto fail;
        have_bv = true;
        if (cmp_resolve_event(db, o->event_spec, &event, &err))
            goto fail;
        int eb = pv_event_index(&bv, event), ev = pv_event_index(&v, event);
        if (eb < 0 || ev < 0) {
            ap_err_set(&err, "%s holds no samples of the diff's event %s; give --event", eb < 0 ? o->base : db_path,
                       o->event_spec ? o->event_spec : "(the first)");
            goto fail;
        }
        cmp_init(&t, CMP_PROCS, 2);
        have_t = true;
        cmp_add_view(&t, 0, &bv, eb);
        cmp_add_view(&t, 1, &v, ev);
        cmp_finish(&t);
        rows = rank_diff(&t, false);
        in.base_path = o->base;
        in.diff = &t;
        in.diff_rows = rows;
    }
    tmp = xmalloc(strlen(o->output) + 16);
    sprintf(tmp, "%s.tmp%ld", o->output, (long)getpid());
    f = fopen(tmp, "w");
    if (!f) {
        ap_err_set(&err, "cannot write %s: %s", o->output, strerror(errno));    /* (its temporary twin beside it) */
        goto fail;
    }
    write_page(f, &in, db_path);
    if (html_write_data(&in, f, &err))
        goto fail;
    fputs("</script>\n<script>\n", f);
    fputs(html_report_js, f);
    fputs("</script>\n</body></html>\n", f);
    if (fflush(f) != 0 || ferror(f)) {
        ap_err_set(&err, "writing %s failed: %s", o->output, strerror(errno));
        goto fail;
    }
    int c = fclose(f);
    f = NULL;
    if (c != 0 || rename(tmp, o->output) != 0) {
        ap_err_set(&err, "writing %s failed: %s", o->output, strerror(errno));
        goto fail;
    }
    rc = 0;
    goto out;
fail:
    fprintf(stderr, "alphaprof html: %s\n", err.msg);
    if (f)
        fclose(f);
    if (tmp)
        unlink(tmp);
out:
    free(tmp);
    free(board);
    free(pst);
    pme_loops_free(loops, nloops);
    if (have_ca)
        calc_analysed_free(&ca);
    free(rows);
    if (have_t)
        cmp_free(&t);
    if (have_bv)
        pv_free(&bv);
    if (bdb)
        pdb_close(bdb);
    if (have_pv)
        pme_view_free(&pv);
    if (have_vals)
        vv_free(&vals);
    if (have_pp)
        path_profile_free(&pp);
    if (have_ps)
        ps_free(&ps);
    if (have_cv)
        cv_free(&cv);
    if (have_v)
        pv_free(&v);
    if (db)
        pdb_close(db);
    return rc;
}
