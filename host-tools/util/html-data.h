/*
 * The data of `alphaprof html`'s report as one JSON document, which the
 * report's own script (host-tools/html/report.js) renders: the summary
 * (workloads, board, cores, events, achieved periods, samples, drops with
 * what each means), every procedure's samples, the flame graph's stacks
 * (image, procedure, inlined calls, source line), the heat-mapped listings
 * of the hottest procedures, ProfileMe aggregates, hot paths from paired
 * ProfileMe samples (util/path-profile, at most HTML_PATH_ROWS per
 * procedure, as `alphaprof paths` prints them), value profiles (the
 * top values of each sampled instruction and value kind, semi-invariants
 * first, at most HTML_VALUE_ROWS of them), cycle stacks and, given a base
 * profile, the per-procedure diff.
 *
 * Cycle stacks ("cycles", and per listing and listing row): the cycles
 * of each instruction by cause (hw-model/cycle-causes.h, then calc's
 * "unexplained"), from paired ProfileMe samples as `pme --stacks`
 * estimates them (util/pme-stacks) and, on an in-order core, from cycle
 * samples with dcpicalc's executions, CPI, culprits and bubbles as `calc`
 * estimates them (util/calc-profile); a listing's stack is the sum of its
 * rows' (as pme --stacks sums a procedure's); the procedure tables are
 * `pme --stacks`'s (pme_stacks_by_procedure) and `calc --summary`'s.  Estimates are written to 10 significant digits
 * (the subcommands' values to far below any difference they can show).
 *
 * The flame graph's stacks are the exports' (export_from_view): with a
 * calling context tree (instrument --cct) they are real call stacks
 * (export_add_contexts: each procedure's samples split among its contexts
 * by their measured exclusive cycles), else image, procedure, inlined
 * calls, line; "flame" says which.
 *
 * Sizes: the report stays small for large profiles because everything is
 * aggregated (stacks are distinct (image, procedure, inline chain, line)
 * paths, not samples) and listings are written for the hottest procedures
 * only, until a byte budget or a count is spent (each listing reads the
 * image's DWARF per instruction, the slow part of a large report); the
 * others say so.
 *
 * Invariants:
 *   1. Per event, the stacks' counts and the procedures' counts each sum
 *      to the view's total (every sample once).
 *   2. The document is valid JSON and holds no "</" (written "<\/"), so it
 *      can sit inside an HTML <script> element.
 *   3. Every drop reason the database names is explained (html_drop_what).
 */
#ifndef ALPHAPROF_UTIL_HTML_DATA_H
#define ALPHAPROF_UTIL_HTML_DATA_H

#include <stddef.h>
#include <stdio.h>

#include "util/compare-rank.h"
#include "util/calc-profile.h"
#include "util/cct-view.h"
#include "util/error.h"
#include "util/path-profile.h"
#include "util/pme-loops.h"
#include "util/pme-stacks.h"
#include "util/pme-view.h"
#include "util/profile-db.h"
#include "util/profile-view.h"
#include "util/value-view.h"

#define HTML_VALUE_ROWS 2000    /* value rows written (the rest are counted) */
#define HTML_VALUE_TOP  4       /* values per row */
#define HTML_PATH_ROWS  10      /* paths per procedure written (as paths prints; the rest are counted) */
#define HTML_LOOP_ROWS  300     /* ProfileMe's loops written, most cycles first (the rest are counted) */

struct html_input {
    struct pdb *db;
    const char *db_path;
    const struct profile_view *v;
    const struct pme_view *pv;          /* may be empty */
    const struct value_view *vals;      /* may be empty */
    const struct cct_view *cct;         /* NULL: no calling context tree */
    const struct path_profile *paths;   /* NULL: no paired samples */
    double paths_interval;              /* the ProfileMe interval of the paths' estimates */
    /* cycle stacks (html-data.c's "cycles"), each NULL when absent: */
    const char *board;                  /* the board whose core they were estimated for */
    const struct pme_stack *pme_stacks; /* one per pv->insns[] (util/pme-stacks, as pme --stacks) */
    const struct pme_loop *pme_loops;   /* their natural loops (util/pme-loops, as pme --stacks), */
    size_t npme_loops;                  /* most cycles first */
    const struct calc_analysed *calc;   /* every sampled procedure (util/calc-profile, as calc) */
    /* diff, or all NULL: */
    const char *base_path;
    const struct cmp_table *diff;       /* set 0 the base, set 1 this profile */
    const struct diff_rank *diff_rows;
    double alpha;
    size_t listing_budget;              /* bytes of listings at most */
    size_t max_listings;                /* and at most this many */
};

/* Writes the document to out (0), or -1 with err set. */
int html_write_data(const struct html_input *in, FILE *out, struct ap_err *err);

/* What a drop reason means, for people; NULL if the name is unknown. */
const char *html_drop_what(const char *reason);

#endif
