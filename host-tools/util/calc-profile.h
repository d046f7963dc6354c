/*
 * calc over a profile (calc.h for the analysis): the model parameters of
 * the board the profile was recorded on, and one calc_proc per procedure
 * with samples, its words read from the image's ELF and its samples of the
 * events calc uses.
 *
 * Invariants: procedures are analysed in the view's order (samples
 * descending, then name), so output built from them is deterministic.
 */
#ifndef ALPHAPROF_UTIL_CALC_PROFILE_H
#define ALPHAPROF_UTIL_CALC_PROFILE_H

#include "util/calc.h"
#include "util/error.h"
#include "util/pme-view.h"
#include "util/profile-view.h"

/* The core of board name (boards/NAME/board.conf: its plugin_args' core=
 * and model parameters, read with the model's own parser). */
int calc_board_params(const char *board, struct model_params *p, struct ap_err *err);

/* The board whose core analyses a profile: `given` (--board) when not
 * NULL; else the board configuration record stored with the newest session
 * of the epoch (0: current, -1: every one) in the database at db_path;
 * else `fallback`.  Malloc'd.  *known (may be NULL) says whether the name
 * came from the profile or --board, not from the fallback. */
char *calc_profile_board(const char *given, const char *db_path, int64_t epoch, const char *fallback,
                         bool *known);

/* The view's index of each calc event, -1 if the profile has none. */
void calc_event_indices(const struct profile_view *v, int idx[CALC_NEV]);

/* Analyses procedure pp of the view; -1 (err set) if its code cannot be
 * read or it has no cycle samples. */
int calc_view_proc(const struct profile_view *v, const struct pv_proc *pp, const struct model_params *mp,
                   struct calc_proc *out, struct ap_err *err);
/* The same with the selection's ProfileMe data (NULL or empty: none):
 * each conditional branch's retired records and their taken bit are its
 * edge samples (calc_insn.dir_samples, dir_taken; DCPI section 7). */
int calc_view_proc_pme(const struct profile_view *v, const struct pme_view *pme, const struct pv_proc *pp,
                       const struct model_params *mp, struct calc_proc *out, struct ap_err *err);

/* Every sampled procedure with a symbol analysed, in the view's order
 * (procedures calc cannot read are left out). */
struct calc_analysed {
    struct calc_proc *procs;
    const struct pv_proc **pp;
    size_t n;
};
void calc_analyse_view(const struct profile_view *v, const struct model_params *mp, struct calc_analysed *a);
void calc_analyse_view_pme(const struct profile_view *v, const struct pme_view *pme, const struct model_params *mp,
                           struct calc_analysed *a);
void calc_analysed_free(struct calc_analysed *a);

/* Totals of one analysed procedure: cycles (samples x period) and the sum
 * of its instructions' stacks. */
struct calc_totals {
    double cycles, stack[CALC_NSTACK];
    double stall;               /* everything but base */
};
void calc_proc_totals(const struct calc_proc *p, struct calc_totals *t);

/* What calc's listing shows of instruction i (text, JSON and html alike):
 * the letters of its culprits, static first, '?' when some of its stall is
 * unexplained (calc_stack_letters; len >= 2); its stall cycles per
 * execution of its block, the listing's "bubbles" (0 when the block never
 * ran); the instruction it waited for (the dynamic culprit, else the
 * static one), or CALC_NONE. */
void calc_culprit_letters(const struct calc_insn *in, char *out, size_t len);
double calc_bubble_cycles(const struct calc_proc *p, uint32_t i);
uint32_t calc_culprit_of(const struct calc_insn *in);

#endif
