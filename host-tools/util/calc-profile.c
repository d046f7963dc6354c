/*
 * calc over a profile (calc-profile.h).
 */
#include "util/calc-profile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/isa/alpha-isa.h"
#include "util/board.h"
#include "util/profile-db.h"
#include "util/strvec.h"

int calc_board_params(const char *board, struct model_params *p, struct ap_err *err)
{
    char home[PATH_MAX];
    struct board b;
    if (alphaprof_home(home, sizeof home, err) || board_load(home, board, &b, err))
        return -1;
    if (!b.plugin[0]) {
        ap_err_set(err, "board %s has no hardware model (its board.conf names no plugin): give the board "
                   "the profile was recorded on with --board", board);
        return -1;
    }
    model_params_default(p);
    /* core= first: the other keys change its defaults (as the plugin does) */
    char args[BOARD_STR_MAX];
    for (int pass = 0; pass < 2; pass++) {
        snprintf(args, sizeof args, "%s", b.plugin_args);
        for (char *save = NULL, *kv = strtok_r(args, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            if (!eq)
                continue;
            *eq = '\0';
            if (pass == 0 && !strcmp(kv, "core") && !model_params_core(p, eq + 1)) {
                ap_err_set(err, "board %s: core=%s is not a core (ooo, inorder)", board, eq + 1);
                return -1;
            }
            if (pass == 1)
                model_params_set(p, kv, eq + 1);    /* the plugin's other keys are not the model's */
        }
    }
    return 0;
}

char *calc_profile_board(const char *given, const char *db_path, int64_t epoch, const char *fallback,
                         bool *known)
{
    char *name = NULL;
    if (given) {
        name = xstrdup(given);
    } else {
        struct pdb *db;
        struct ap_err ignored;      /* a database that cannot be read is the profile load's to report */
        if (pdb_open(db_path, PDB_READ, &db, &ignored) == 0) {
            name = pdb_board_config(db, epoch);
            pdb_close(db);
        }
    }
    if (known)
        *known = name != NULL;
    return name ? name : xstrdup(fallback);
}

void calc_event_indices(const struct profile_view *v, int idx[CALC_NEV])
{
    for (unsigned e = 0; e < CALC_NEV; e++) {
        idx[e] = -1;
        for (size_t k = 0; k < v->nevents; k++)
            if (!strcmp(v->event_names[k], calc_event_names[e]))
                idx[e] = (int)k;
    }
}

static int by_image_offset(const void *key, const void *elem)
{
    const struct pv_insn *k = key, *x = elem;
    if (k->img != x->img)
        return k->img < x->img ? -1 : 1;
    return k->offset < x->offset ? -1 : k->offset > x->offset;
}

static bool read_image(const void *ctx, uint64_t addr, void *buf, size_t len)
{
    return symtab_read(ctx, addr, buf, len);
}

/* Edge samples from ProfileMe: retired records of each conditional
 * branch of the procedure and those with the taken bit. */
static void edge_samples(const struct pme_view *pme, struct calc_proc *p)
{
    int taken = pme ? pme_bit_index(pme, "taken") : -1;
    if (taken < 0)
        return;
    uint64_t end = p->start + 4 * p->n;
    for (size_t k = 0; k < pme->ninsns; k++) {
        const struct pme_insn *r = &pme->insns[k];
        uint64_t pc = pme_insn_pc(r);
        if (pc < p->start || pc >= end || (pc & 3))
            continue;
        struct calc_insn *in = &p->insns[(pc - p->start) / 4];
        if (in->s.cls != ALPHA_BRANCH_COND)
            continue;
        in->dir_samples += (double)r->retired;
        in->dir_taken += (double)(r->bits[taken] < r->retired ? r->bits[taken] : r->retired);
    }
}

int calc_view_proc(const struct profile_view *v, const struct pv_proc *pp, const struct model_params *mp,
                   struct calc_proc *out, struct ap_err *err)
{
    return calc_view_proc_pme(v, NULL, pp, mp, out, err);
}

int calc_view_proc_pme(const struct profile_view *v, const struct pme_view *pme, const struct pv_proc *pp,
                       const struct model_params *mp, struct calc_proc *out, struct ap_err *err)
{
    int idx[CALC_NEV];
    calc_event_indices(v, idx);
    if (idx[CALC_EV_CYCLES] < 0 || !v->periods[idx[CALC_EV_CYCLES]]) {
        ap_err_set(err, "the profile has no cycles samples with a known period: record with "
                   "--events cycles,dmiss,l2miss,branchmp on a board with the hardware model");
        return -1;
    }
    if (!pp->sym || !pp->img->st) {
        ap_err_set(err, "%s: no symbol or ELF for its code", pp->name);
        return -1;
    }
    uint64_t start = pp->sym->start, end = symtab_symbol_end(pp->img->st, pp->sym);
    size_t n = (size_t)((end - start) / 4);
    if (!n) {
        ap_err_set(err, "%s: an empty procedure", pp->name);
        return -1;
    }
    uint32_t *words = xmalloc(n * sizeof *words);
    if (!symtab_read(pp->img->st, start, words, n * 4)) {
        free(words);
        ap_err_set(err, "%s: its code is not in %s", pp->name, pp->img->path ? pp->img->path : pp->img->name);
        return -1;
    }
    struct calc_rates r = {{0}};
    for (unsigned e = 0; e < CALC_NEV; e++)
        if (idx[e] >= 0)
            r.period[e] = (double)v->periods[idx[e]];
    const struct calc_image img = {read_image, pp->img->st, .local_entry = true};
    if (calc_cfg_build_image(out, mp, start, words, n, &img)) {
        free(words);
        ap_err_set(err, "%s: no instructions", pp->name);
        return -1;
    }
    free(words);
    /* the procedure's samples: a run of the view's (image, offset) order */
    struct pv_insn key = {.img = pp->img, .offset = start - pp->img->address};
    size_t lo = 0, hi = v->ninsns;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (by_image_offset(&v->insns[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k < v->ninsns && v->insns[k].img == pp->img; k++) {
        uint64_t pc = pp->img->address + v->insns[k].offset;
        if (pc >= end)
            break;
        if (pc < start || (pc & 3))
            continue;
        for (unsigned e = 0; e < CALC_NEV; e++)
            if (idx[e] >= 0)
                out->insns[(pc - start) / 4].samples[e] += (double)v->insns[k].count[idx[e]];
    }
    edge_samples(pme, out);
    calc_equivalence(out);
    calc_schedule(out);
    calc_estimate(out, &r);
    calc_refine(out, &r);
    return 0;
}

void calc_proc_totals(const struct calc_proc *p, struct calc_totals *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < p->n; i++) {
        for (unsigned c = 0; c < CALC_NSTACK; c++)
            t->stack[c] += p->insns[i].stack[c];
    }
    for (unsigned c = 0; c < CALC_NSTACK; c++) {
        t->cycles += t->stack[c];
        if (c != CAUSE_BASE)
            t->stall += t->stack[c];
    }
}

void calc_culprit_letters(const struct calc_insn *in, char *out, size_t len)
{
    size_t k = 0;
    if (in->m > 1 && k + 1 < len)
        out[k++] = calc_stack_letters[in->static_cause];
    for (unsigned c = 0; c < CALC_NSTACK && k + 1 < len; c++)
        if (in->culprits & (1u << c) && !memchr(out, calc_stack_letters[c], k))
            out[k++] = calc_stack_letters[c];       /* (d: the L2 and memory alike) */
    if (in->stack[CALC_UNEXPLAINED] > 0 && k + 1 < len)
        out[k++] = '?';
    out[k] = '\0';
}

double calc_bubble_cycles(const struct calc_proc *p, uint32_t i)
{
    const struct calc_insn *in = &p->insns[i];
    double f = p->insns[p->blocks[in->block].first].freq;
    double per = f > 0 ? (in->dynamic + (in->m > 1 ? f * (in->m - 1) : 0)) / f : 0;
    /* to the 10 digits the HTML report's data carries, so calc's listing
     * and the page draw the same bubbles: 16799.999999999996 cycles over
     * 16800.000000000004 executions drew one on the page, none here */
    char digits[32];
    snprintf(digits, sizeof digits, "%.10g", per);
    return strtod(digits, NULL);
}

uint32_t calc_culprit_of(const struct calc_insn *in)
{
    return in->culprit_insn != CALC_NONE ? in->culprit_insn : in->static_culprit;
}

void calc_analyse_view(const struct profile_view *v, const struct model_params *mp, struct calc_analysed *a)
{
    calc_analyse_view_pme(v, NULL, mp, a);
}

void calc_analyse_view_pme(const struct profile_view *v, const struct pme_view *pme, const struct model_params *mp,
                           struct calc_analysed *a)
{
    a->procs = calc_zalloc(v->nprocs + 1, sizeof *a->procs);
    a->pp = calc_zalloc(v->nprocs + 1, sizeof *a->pp);
    a->n = 0;
    for (size_t k = 0; k < v->nprocs; k++) {
        struct ap_err err;
        if (!v->procs[k].sym)
            continue;
        if (calc_view_proc_pme(v, pme, &v->procs[k], mp, &a->procs[a->n], &err) == 0)
            a->pp[a->n++] = &v->procs[k];
    }
}

void calc_analysed_free(struct calc_analysed *a)
{
    for (size_t k = 0; k < a->n; k++)
        calc_proc_free(&a->procs[k]);
    free(a->procs);
    free(a->pp);
    memset(a, 0, sizeof *a);
}
