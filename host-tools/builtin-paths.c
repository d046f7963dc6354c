/*
 * alphaprof paths [--proc NAME]: hot paths per procedure, reconstructed
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
#include "util/json-out.h"
#include "util/option-groups.h"
#include "util/path-profile.h"
#include "util/strvec.h"

static const struct opt_command paths_command = {
    .name = "paths",
    .synopsis = "[options]",
    .about = "Hot paths per procedure from paired ProfileMe samples (record --paired): each\n"
             "sample's recent path is reconstructed backwards over the CFG from its PC\n"
             "with its global branch history (and the paired sample's PC); samples whose\n"
             "path is unique are grouped.  A path ends at the sampled block and reaches\n"
             "back --bits conditional branches or to the procedure's entry; callees on\n"
             "it show as [name].  Estimated executions: samples x the ProfileMe\n"
             "interval / the sampled block's length.  alphaprof check --paths measures\n"
             "the reconstruction against the model's exact paths.",
};

struct paths_options {
    struct profile_opts po;
    const char *proc;
    unsigned bits, limit;
};

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

int cmd_paths(int argc, char **argv)
{
    struct paths_options o = {.po = PROFILE_OPTS_INIT, .bits = PR_DEFAULT_BITS, .limit = OPT_LIMIT_UNSET};
    const struct option options[] = {
        OPT_STRING(0, "proc", &o.proc, "NAME", "only this procedure"),
        OPT_UINT(0, "bits", &o.bits, "N", 1, PR_MAX_BITS,
                 "history bits a path reaches back (1-12, default 8; ProfileMe's\n"
                 "processors kept 8-12)"),
        OPT_LIMIT(&o.limit, "paths per procedure"),
        OPT_PROFILE_SELECT(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&paths_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    if (o.limit == OPT_LIMIT_UNSET)
        o.limit = o.po.json ? 0 : 10;
    const char *db_path = profile_opts_db(&o.po);
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
    struct path_profile pp;
    path_profile_build(&ps, o.bits, o.proc, &pp);
    rc = 0;
    if (!pp.samples) {
        if (o.proc)
            fprintf(stderr, "alphaprof paths: no retired paired ProfileMe sample in a procedure '%s' in %s; "
                            "alphaprof paths without --proc lists those with samples\n", o.proc, db_path);
        else
            fprintf(stderr, "alphaprof paths: no retired paired ProfileMe sample with code in %s; record with "
                            "--paired (single-mode samples keep no branch history)\n", db_path);
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
