/*
 * alphaprof calc [PROCEDURE]: DCPI's dcpicalc.  For a procedure, the
 * annotated listing: per block its frequency, best-case and actual CPI;
 * per instruction its samples, estimated executions with confidence, CPI
 * and the culprits of its stalls as "bubbles" above it (one line a cycle,
 * letters of the causes not ruled out: calc_stack_letters).  --summary
 * (or no PROCEDURE): where the cycles went, per procedure and image.
 * alphaprof topstalls: the instructions with the most stall cycles.
 *
 * Invariants: the analysis is util/calc*.c; this file parses and prints
 * it; text and JSON carry the same numbers, JSON in a fixed order.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "hw-model/isa/alpha-isa.h"
#include "util/calc-profile.h"
#include "util/json-out.h"
#include "util/loss-note.h"
#include "util/option-groups.h"
#include "util/pme-view.h"
#include "util/profile-db.h"
#include "util/profile-view.h"
#include "util/strvec.h"

#define CALC_DEFAULT_BOARD "clipper-ev5"

static const struct opt_command calc_command = {
    .name = "calc",
    .synopsis = "[options] [PROCEDURE]",
    .about = "DCPI's dcpicalc: from the cycle samples (and imiss, itbmiss, dmiss, l2miss,\n"
             "dtbmiss, branchmp samples when recorded) it estimates each instruction's\n"
             "executions (a CFG with jump tables' edges, frequency-equivalence classes,\n"
             "a static schedule by the model's issue rules, clustered S/M ratios, flow\n"
             "propagation and ProfileMe's taken bits for the edges; confidence\n"
             "low/medium/high), its CPI, and why it stalled: static stalls from the\n"
             "schedule, dynamic ones blamed on every culprit not ruled out, bounded by\n"
             "the event samples, the rest unexplained.  Bubble letters: i I-cache,\n"
             "I ITB, p mispredict, d D-cache, D DTB, a dependency, f unit busy or\n"
             "slotting, w write buffer, m barrier, ? unexplained.\n"
             "Without PROCEDURE (or with --summary) where the cycles went per procedure.",
};

static const struct opt_command topstalls_command = {
    .name = "topstalls",
    .synopsis = "[options]",
    .about = "The instructions with the most stall cycles across the profile (alphaprof\n"
             "calc's estimates), with their causes.",
};

struct calc_options {
    struct profile_opts po;
    const char *board;          /* --board, then the profile's (calc_profile_board) */
    bool board_known;           /* ... given or stored, not CALC_DEFAULT_BOARD by default */
    bool summary;
    unsigned limit;
};

static void stack_json(const double *stack)
{
    printf("{");
    for (unsigned c = 0, first = 1; c < CALC_NSTACK; c++) {
        if (stack[c] <= 0)
            continue;
        printf("%s\"%s\": ", first ? "" : ", ", calc_stack_names[c]);
        json_num(stdout, stack[c]);
        first = 0;
    }
    printf("}");
}

/* "cause share%" of a stack's largest slots (those of at least 0.5 %). */
static void stack_text(const double *stack, double total, bool stalls_only)
{
    bool done[CALC_NSTACK] = {false};
    for (unsigned k = 0; k < CALC_NSTACK; k++) {
        int best = -1;
        for (unsigned c = 0; c < CALC_NSTACK; c++)
            if (!done[c] && stack[c] > 0 && !(stalls_only && c == CAUSE_BASE) &&
                (best < 0 || stack[c] > stack[best]))
                best = (int)c;
        if (best < 0 || total <= 0 || stack[best] < 0.005 * total)
            break;
        done[best] = true;
        printf(" %s %.1f%%", calc_stack_names[best], 100 * stack[best] / total);
    }
}

static double insn_stall(const struct calc_insn *in)
{
    double s = 0;
    for (unsigned c = 0; c < CALC_NSTACK; c++)
        if (c != CAUSE_BASE)
            s += in->stack[c];
    return s;
}

static void print_listing_text(const struct calc_proc *p, const struct pv_proc *pp, const char *board)
{
    struct calc_totals t;
    calc_proc_totals(p, &t);
    printf("Procedure %s in image %s: %zu instructions, %zu blocks, %zu frequency classes%s\n", pp->name,
           pp->img->name, p->n, p->nblocks, p->nclasses,
           p->missing_edges ? " (CFG missing edges: an indirect jump; one class per block)" : "");
    for (size_t i = 0; i < p->n; i++)
        if (p->insns[i].jump)
            printf("  jmp at %llx: %s\n", (unsigned long long)p->insns[i].pc,
                   p->insns[i].jump == JUMP_TABLE ? "a jump table, an edge to each target" : "targets unknown");
    printf("Core: %s (board %s).  Cycles: %.0f, stalls %.1f%%:", p->params.inorder ? "in order" : "out of order",
           board, t.cycles, t.cycles > 0 ? 100 * t.stall / t.cycles : 0.0);
    stack_text(t.stack, t.cycles, true);
    printf("\n\n%8s  %-30s %9s %12s %-6s %8s  %s\n", "address", "instruction", "samples", "executions", "conf",
           "CPI", "culprit");
    for (uint32_t b = 0; b < p->nblocks; b++) {
        const struct calc_block *blk = &p->blocks[b];
        const struct calc_class *k = &p->classes[blk->cls];
        double f = p->insns[blk->first].freq, m = 0;
        for (uint32_t i = blk->first; i < blk->first + blk->n; i++)
            m += p->insns[i].m;
        printf("*** block %llx: executions %.0f (%s%s), best case %.0f/%u = %.2f CPI",
               (unsigned long long)p->insns[blk->first].pc, f, calc_confidence_names[k->confidence],
               k->propagated ? ", by propagation" : "", m, blk->n, m / blk->n);
        double actual = 0;
        for (uint32_t i = blk->first; i < blk->first + blk->n; i++)
            actual += p->insns[i].m + (f > 0 ? (p->insns[i].dynamic) / f : 0);
        if (f > 0)
            printf(", actual %.1f/%u = %.2f CPI", actual, blk->n, actual / blk->n);
        printf("\n");
        for (uint32_t i = blk->first; i < blk->first + blk->n; i++) {
            const struct calc_insn *in = &p->insns[i];
            double per = calc_bubble_cycles(p, i);
            char letters[16];
            calc_culprit_letters(in, letters, sizeof letters);
            if (per >= 1 && letters[0]) {
                unsigned lines = per > 3 ? 3 : (unsigned)per;
                for (unsigned l = 0; l < lines; l++)
                    printf("          %s\n", letters);
                if (per > 3)
                    printf("          %s ... %.1fcy\n", letters, per);
            }
            char text[96];
            alpha_disassemble(in->s.word, in->pc, text, sizeof text);
            double cpi = in->freq > 0 ? in->m + in->dynamic / in->freq : 0;
            printf("%8llx  %-30s %9.0f %12.0f %-6s ", (unsigned long long)in->pc, text,
                   in->samples[CALC_EV_CYCLES], in->freq, calc_confidence_names[k->confidence]);
            if (in->m == 0 && in->dynamic <= 0)
                printf("%8s", "(paired)");
            else
                printf("%6.1fcy", cpi);
            uint32_t culprit = calc_culprit_of(in);
            if (culprit != CALC_NONE && (per >= 0.5))
                printf("  %llx", (unsigned long long)p->insns[culprit].pc);
            printf("\n");
        }
    }
}

static void print_listing_json(const struct calc_proc *p, const struct pv_proc *pp, const char *board,
                               double period)
{
    struct calc_totals t;
    calc_proc_totals(p, &t);
    printf("{\"procedure\": ");
    json_str(stdout, pp->name);
    printf(", \"image\": ");
    json_str(stdout, pp->img->name);
    printf(", \"board\": ");
    json_str(stdout, board);
    printf(", \"core\": \"%s\", \"cycles_period\": ", p->params.inorder ? "inorder" : "ooo");
    json_num(stdout, period);
    printf(", \"missing_edges\": %s, \"classes\": %zu, \"cycles\": ", p->missing_edges ? "true" : "false",
           p->nclasses);
    json_num(stdout, t.cycles);
    printf(", \"stall_cycles\": ");
    json_num(stdout, t.stall);
    printf(", \"stack\": ");
    stack_json(t.stack);
    printf(",\n \"blocks\": [");
    for (uint32_t b = 0; b < p->nblocks; b++) {
        const struct calc_block *blk = &p->blocks[b];
        const struct calc_class *k = &p->classes[blk->cls];
        printf("%s\n  {\"address\": %llu, \"instructions\": %u, \"class\": %u, \"executions\": ", b ? "," : "",
               (unsigned long long)p->insns[blk->first].pc, blk->n, blk->cls);
        json_num(stdout, p->insns[blk->first].freq);
        printf(", \"confidence\": \"%s\", \"propagated\": %s}", calc_confidence_names[k->confidence],
               k->propagated ? "true" : "false");
    }
    printf("],\n \"edges\": [");
    for (size_t e = 0; e < p->nedges; e++) {
        const struct calc_edge *x = &p->edges[e];
        printf("%s{\"from\": ", e ? ", " : "");
        if (x->from == CALC_NONE)
            printf("\"entry\"");
        else
            printf("%llu", (unsigned long long)p->insns[p->blocks[x->from].first].pc);
        printf(", \"to\": ");
        if (x->to == CALC_EXIT)
            printf("\"exit\"");
        else
            printf("%llu", (unsigned long long)p->insns[p->blocks[x->to].first].pc);
        printf(", \"kind\": \"%s\", \"class\": %u, \"executions\": ", calc_edge_kind_names[x->kind], x->cls);
        json_num(stdout, x->freq);
        printf(", \"by\": \"%s\"}", calc_by_names[p->classes[x->cls].by]);
    }
    printf("],\n \"instructions\": [");
    for (size_t i = 0; i < p->n; i++) {
        const struct calc_insn *in = &p->insns[i];
        char text[96];
        alpha_disassemble(in->s.word, in->pc, text, sizeof text);
        printf("%s\n  {\"address\": %llu, \"instruction\": ", i ? "," : "", (unsigned long long)in->pc);
        json_str(stdout, text);
        if (in->jump)
            printf(", \"jump\": \"%s\"", in->jump == JUMP_TABLE ? "table" : "unknown");
        printf(", \"samples\": {");
        for (unsigned e = 0, first = 1; e < CALC_NEV; e++) {
            if (in->samples[e] <= 0)
                continue;
            printf("%s\"%s\": %.0f", first ? "" : ", ", calc_event_names[e], in->samples[e]);
            first = 0;
        }
        printf("}");
        if (in->dir_samples > 0)
            printf(", \"edge_samples\": {\"sampled\": %.0f, \"taken\": %.0f}", in->dir_samples, in->dir_taken);
        printf(", \"executions\": ");
        json_num(stdout, in->freq);
        printf(", \"confidence\": \"%s\", \"m\": %u, \"cpi\": ",
               calc_confidence_names[p->classes[p->blocks[in->block].cls].confidence], in->m);
        json_num(stdout, in->freq > 0 ? in->m + in->dynamic / in->freq : 0);
        printf(", \"dynamic_stall\": ");
        json_num(stdout, in->dynamic);
        printf(", \"culprits\": [");
        for (unsigned c = 0, first = 1; c < CALC_NSTACK; c++)
            if (in->culprits & (1u << c)) {
                printf("%s\"%s\"", first ? "" : ", ", calc_stack_names[c]);
                first = 0;
            }
        printf("], \"culprit\": ");
        uint32_t culprit = calc_culprit_of(in);
        if (culprit != CALC_NONE)
            printf("%llu", (unsigned long long)p->insns[culprit].pc);
        else
            printf("null");
        printf(", \"stack\": ");
        stack_json(in->stack);
        printf("}");
    }
    printf("]}\n");
}

/* Loads the profile (with its ProfileMe data, for the branches' edge
 * samples: an empty view without) and the board's parameters. */
static int load(const struct calc_options *o, const char *cmd, struct profile_view *v, struct pme_view *pme,
                struct model_params *mp)
{
    struct ap_err err;
    struct pdb *db;
    if (calc_board_params(o->board, mp, &err)) {
        fprintf(stderr, "%s: %s\n", cmd, err.msg);
        return 1;
    }
    if (pdb_open(profile_opts_db(&o->po), PDB_READ, &db, &err)) {
        fprintf(stderr, "%s: %s\n", cmd, err.msg);
        return 1;
    }
    struct pv_selection sel = o->po.sel;
    int rc = pv_load(db, &sel, v, &err);
    if (!rc && pme_view_load(db, &sel, 30, pme, &err)) {
        pv_free(v);
        rc = -1;
    }
    if (!rc) {
        loss_note(db, v->epoch, cmd, stderr);
        pv_warn_images(stderr, cmd, v->images, v->nimages, NULL, 0);
        pv_warn_images(stderr, cmd, pme->images, pme->nimages, v->images, v->nimages);
    }
    pdb_close(db);
    if (rc) {
        fprintf(stderr, "%s: %s\n", cmd, err.msg);
        return 1;
    }
    int idx[CALC_NEV];
    calc_event_indices(v, idx);
    if (idx[CALC_EV_CYCLES] < 0) {
        fprintf(stderr, "%s: the profile has no cycles samples: record with --events "
                        "cycles,dmiss,l2miss,branchmp on a board with the hardware model (e.g. --board %s)\n",
                cmd, CALC_DEFAULT_BOARD);
        pv_free(v);
        pme_view_free(pme);
        return 1;
    }
    return 0;
}

static int summary(const struct calc_options *o, const struct profile_view *v, const struct pme_view *pme,
                   const struct model_params *mp)
{
    struct calc_analysed a;
    calc_analyse_view_pme(v, pme, mp, &a);
    double all[CALC_NSTACK] = {0}, all_cycles = 0;
    struct calc_totals *t = calc_zalloc(a.n + 1, sizeof *t);
    for (size_t k = 0; k < a.n; k++) {
        calc_proc_totals(&a.procs[k], &t[k]);
        for (unsigned c = 0; c < CALC_NSTACK; c++)
            all[c] += t[k].stack[c];
        all_cycles += t[k].cycles;
    }
    unsigned limit = opt_limit(o->limit, o->po.json);
    size_t shown = limit && limit < a.n ? limit : a.n;
    if (o->po.json) {
        printf("{\"board\": ");
        json_str(stdout, o->board);
        printf(", \"cycles\": ");
        json_num(stdout, all_cycles);
        printf(", \"stack\": ");
        stack_json(all);
        printf(", \"procedures\": [");
        for (size_t k = 0; k < shown; k++) {
            printf("%s\n  {\"procedure\": ", k ? "," : "");
            json_str(stdout, a.pp[k]->name);
            printf(", \"image\": ");
            json_str(stdout, a.pp[k]->img->name);
            printf(", \"cycles\": ");
            json_num(stdout, t[k].cycles);
            printf(", \"stall_cycles\": ");
            json_num(stdout, t[k].stall);
            printf(", \"stack\": ");
            stack_json(t[k].stack);
            printf("}");
        }
        printf("]}\n");
    } else {
        printf("Where the cycles went (alphaprof calc, board %s): %.0f cycles in %zu procedures\n", o->board,
               all_cycles, a.n);
        printf("  all:");
        stack_text(all, all_cycles, false);
        printf("\n\n%8s %7s %7s  %-24s %s\n", "cycles%", "stall%", "unexpl%", "procedure", "stall causes");
        for (size_t k = 0; k < shown; k++) {
            printf("%8.2f %7.1f %7.1f  %-24s", all_cycles > 0 ? 100 * t[k].cycles / all_cycles : 0.0,
                   t[k].cycles > 0 ? 100 * t[k].stall / t[k].cycles : 0.0,
                   t[k].stall > 0 ? 100 * t[k].stack[CALC_UNEXPLAINED] / t[k].stall : 0.0, a.pp[k]->name);
            stack_text(t[k].stack, t[k].cycles, true);
            printf("\n");
        }
        if (shown < a.n)
            printf("(%zu more procedures: --limit 0 shows all)\n", a.n - shown);
    }
    free(t);
    calc_analysed_free(&a);
    return 0;
}

/* Does the selected profile have ProfileMe pairs and no cycle samples (so
 * cycle stacks only from its records, alphaprof pme --stacks)? */
static bool has_pme_pairs(const struct calc_options *o)
{
    struct ap_err err;
    struct pdb *db;
    if (pdb_open(profile_opts_db(&o->po), PDB_READ, &db, &err))
        return false;
    struct pme_view pv;
    bool pairs = false;
    if (!pme_view_load(db, &o->po.sel, 30, &pv, &err)) {      /* (freed on failure) */
        pairs = pv.nraw > 0;
        pme_view_free(&pv);
    }
    struct profile_view v;      /* with cycle samples, calc's own analysis */
    if (pairs && !pv_load(db, &o->po.sel, &v, &err)) {
        int idx[CALC_NEV];
        calc_event_indices(&v, idx);
        pairs = idx[CALC_EV_CYCLES] < 0;
        pv_free(&v);
    }
    pdb_close(db);
    return pairs;
}

/* calc on a ProfileMe profile: the out-of-order core's cycle stacks come
 * from the sampled records (util/pme-stacks.h), so calc hands over to
 * alphaprof pme --stacks with the same selection. */
static int calc_from_profileme(const struct calc_options *o, const char *proc)
{
    char epoch[32], core[32], limit[32];
    const char *argv[20];
    int n = 0;
    argv[n++] = "pme";
    argv[n++] = "--stacks";
    argv[n++] = "--db";
    argv[n++] = profile_opts_db(&o->po);
    argv[n++] = "--board";
    argv[n++] = o->board_known ? o->board : "clipper-pm";
    snprintf(epoch, sizeof epoch, "--epoch=%lld", (long long)o->po.sel.epoch);
    if (o->po.sel.epoch > 0)
        argv[n++] = epoch;
    else if (o->po.sel.epoch < 0)
        argv[n++] = "--epoch=all";
    snprintf(core, sizeof core, "--core=%d", o->po.sel.core);
    if (o->po.sel.core >= 0)
        argv[n++] = core;
    if (o->po.sel.image) {
        argv[n++] = "--image";
        argv[n++] = o->po.sel.image;
    }
    snprintf(limit, sizeof limit, "--limit=%u", o->limit);
    if (o->limit != OPT_LIMIT_UNSET)
        argv[n++] = limit;
    if (o->po.json)
        argv[n++] = "--json";
    if (proc)
        argv[n++] = proc;
    argv[n] = NULL;
    fprintf(stderr, "alphaprof calc: a ProfileMe profile: the cycle stacks estimated from its paired records "
                    "(alphaprof pme --stacks)\n");
    return cmd_pme(n, (char **)argv);
}

/* calc once its options are parsed and its board is known. */
static int calc_run(const struct calc_options *o, const struct strvec *operands)
{
    if (operands->n > 1)
        return opt_usage_error(&calc_command, "unexpected argument '%s'", operands->v[1]);
    if (has_pme_pairs(o))
        return calc_from_profileme(o, operands->n ? operands->v[0] : NULL);
    struct profile_view v;
    struct pme_view pme;
    struct model_params mp;
    if (load(o, "alphaprof calc", &v, &pme, &mp))
        return 1;
    int rc = 0;
    if (o->summary || operands->n == 0) {
        rc = summary(o, &v, &pme, &mp);
    } else {
        const struct pv_proc *pp = pv_find_proc(&v, operands->v[0]);
        struct calc_proc p;
        struct ap_err err;
        if (!pp) {
            fprintf(stderr, "alphaprof calc: no samples in a procedure '%s' in %s; alphaprof report lists "
                            "the procedures with samples\n", operands->v[0], profile_opts_db(&o->po));
            rc = 1;
        } else if (calc_view_proc_pme(&v, &pme, pp, &mp, &p, &err)) {
            fprintf(stderr, "alphaprof calc: %s\n", err.msg);
            rc = 1;
        } else {
            int idx[CALC_NEV];
            calc_event_indices(&v, idx);
            if (o->po.json)
                print_listing_json(&p, pp, o->board, (double)v.periods[idx[CALC_EV_CYCLES]]);
            else
                print_listing_text(&p, pp, o->board);
            calc_proc_free(&p);
        }
    }
    pv_free(&v);
    pme_view_free(&pme);
    return rc;
}

int cmd_calc(int argc, char **argv)
{
    struct calc_options o = {.po = PROFILE_OPTS_INIT, .limit = OPT_LIMIT_UNSET};
    struct strvec operands = {0};
    const struct option options[] = {
        OPT_STRING(0, "board", &o.board, "NAME", "the board the profile was recorded on: its core's\n"
                   "issue rules and latencies (default: the one record stored\n"
                   "with the profile, else " CALC_DEFAULT_BOARD ")"),
        OPT_BOOLEAN(0, "summary", &o.summary, "where the cycles went, per procedure and in all"),
        OPT_LIMIT(&o.limit, "procedures in the summary"),
        OPT_PROFILE_SELECT(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&calc_command, options, argc, argv, &operands, NULL);
    if (r != OPT_PARSED) {
        strvec_free(&operands);
        return opt_exit(r);
    }
    char *board = calc_profile_board(o.board, profile_opts_db(&o.po), o.po.sel.epoch, CALC_DEFAULT_BOARD,
                                     &o.board_known);
    o.board = board;
    int rc = calc_run(&o, &operands);
    free(board);
    strvec_free(&operands);
    return rc;
}

struct stall_row {
    const struct calc_proc *p;
    const struct pv_proc *pp;
    uint32_t i;
    double stall;
};

static int by_stall_desc(const void *a, const void *b)
{
    const struct stall_row *x = a, *y = b;
    if (x->stall != y->stall)
        return x->stall < y->stall ? 1 : -1;
    return x->p->insns[x->i].pc < y->p->insns[y->i].pc ? -1 : x->p->insns[x->i].pc > y->p->insns[y->i].pc;
}

int cmd_topstalls(int argc, char **argv)
{
    struct calc_options o = {.po = PROFILE_OPTS_INIT, .limit = OPT_LIMIT_UNSET};
    const struct option options[] = {
        OPT_STRING(0, "board", &o.board, "NAME", "the board the profile was recorded on (default: the one\n"
                   "record stored with the profile, else " CALC_DEFAULT_BOARD ")"),
        OPT_LIMIT(&o.limit, "instructions"),
        OPT_PROFILE_SELECT(&o.po),
        OPT_END(),
    };
    enum opt_result r = opt_parse(&topstalls_command, options, argc, argv, NULL, NULL);
    if (r != OPT_PARSED)
        return opt_exit(r);
    char *board = calc_profile_board(o.board, profile_opts_db(&o.po), o.po.sel.epoch, CALC_DEFAULT_BOARD,
                                     &o.board_known);
    o.board = board;
    struct profile_view v;
    struct pme_view pme;
    struct model_params mp;
    int failed = load(&o, "alphaprof topstalls", &v, &pme, &mp);
    free(board);
    if (failed)
        return 1;
    struct calc_analysed a;
    calc_analyse_view_pme(&v, &pme, &mp, &a);
    size_t n = 0, cap = 0;
    double total = 0;
    for (size_t k = 0; k < a.n; k++)
        cap += a.procs[k].n;
    struct stall_row *rows = calc_zalloc(cap + 1, sizeof *rows);
    for (size_t k = 0; k < a.n; k++)
        for (uint32_t i = 0; i < a.procs[k].n; i++) {
            double s = insn_stall(&a.procs[k].insns[i]);
            for (unsigned c = 0; c < CALC_NSTACK; c++)
                total += a.procs[k].insns[i].stack[c];
            if (s > 0)
                rows[n++] = (struct stall_row){&a.procs[k], a.pp[k], i, s};
        }
    qsort(rows, n, sizeof *rows, by_stall_desc);
    unsigned limit = opt_limit(o.limit, o.po.json);
    size_t shown = limit && limit < n ? limit : n;
    if (o.po.json)
        printf("{\"cycles\": %.6g, \"instructions\": [", total);
    else
        printf("%12s %7s %12s  %-20s %-28s %s\n", "stall cycles", "%total", "pc", "procedure", "instruction",
               "causes");
    for (size_t k = 0; k < shown; k++) {
        const struct calc_insn *in = &rows[k].p->insns[rows[k].i];
        char text[96];
        alpha_disassemble(in->s.word, in->pc, text, sizeof text);
        if (o.po.json) {
            printf("%s\n  {\"address\": %llu, \"procedure\": ", k ? "," : "", (unsigned long long)in->pc);
            json_str(stdout, rows[k].pp->name);
            printf(", \"instruction\": ");
            json_str(stdout, text);
            printf(", \"stall_cycles\": ");
            json_num(stdout, rows[k].stall);
            printf(", \"stack\": ");
            stack_json(in->stack);
            printf("}");
        } else {
            printf("%12.0f %7.2f %12llx  %-20s %-28s", rows[k].stall, total > 0 ? 100 * rows[k].stall / total : 0,
                   (unsigned long long)in->pc, rows[k].pp->name, text);
            stack_text(in->stack, rows[k].stall, true);
            printf("\n");
        }
    }
    if (o.po.json)
        printf("]}\n");
    else if (shown < n)
        printf("(%zu more: --limit 0 shows all)\n", n - shown);
    free(rows);
    calc_analysed_free(&a);
    pv_free(&v);
    pme_view_free(&pme);
    return 0;
}
