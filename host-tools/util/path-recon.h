/*
 * Statistical paths from ProfileMe (seed section 5.3, Figure 6): a
 * sample's recent path reconstructed backwards over the CFG from its PC,
 * using its global branch history (pmu-window.h: newest outcome in bit 0)
 * and, for the second of a pair, the first's PC.  The CFGs are calc's
 * (calc.h), built on demand per procedure from the image's words.
 *
 * Design notes:
 *  1. A segment is intraprocedural as in Figure 6's left graph: it grows
 *     backwards until it holds nbits conditional branches or reaches the
 *     entry of the sampled procedure's activation.  A call on the way back
 *     (the block after a bsr) continues at the callee's returns and back
 *     to its entry and the call (the figure's footnote 2): the callee's
 *     branches use history bits too.  A jsr's callee: the function in the
 *     global offset table slot its block loads the register from (ldq pv,
 *     disp(gp)), else (a function pointer) every function whose address
 *     the code forms (gp-relative lda), the history deciding; a jsr with
 *     no such function leaves the segment unresolved.
 *  2. A segment is written as the oracle writes the truth
 *     (oracle-format.h, PATH.pmepaths): the control-flow instructions on
 *     it, newest first, each PC with its kind in bits 0-1 (fall, taken,
 *     other transfer).  Two segments are the same path iff these
 *     sequences and reached_entry are equal: given the sample's PC, they
 *     fix every block on it (a transfer's target is static, except jmp's,
 *     which no segment crosses: its target block's only CFG way in from
 *     the jump is unknown).
 *  3. The truth of a sample is cut from the oracle's log by the same rule
 *     (pr_truth): a call seen at depth 0 is the activation's start; a
 *     discontinuity that is no transfer (an interrupt, a trap, a system
 *     call) or a PC outside the image makes the truth "polluted": the
 *     history holds branches no CFG of the image has (footnote 1), so no
 *     reconstruction can be right and the sample counts as a failure.
 *  4. With the paired PC (pair = true): a candidate at least gap
 *     instructions long must contain pair_pc (gap counts fetched
 *     instructions, bad path included, so the true path, retired ones
 *     only, holds the first sample within its last gap instructions).
 *  5. Success (Figure 6): exactly one candidate, equal to the truth.
 *     ignore_history gives the baseline a reconstructor without the
 *     history bits reaches (unique only where no branch joins).
 *  6. A candidate that reaches the procedure's entry with history bits
 *     left is kept only if some caller (a bsr to the procedure) has a
 *     path back that uses up those bits (callers of callers up to 4
 *     levels; a procedure a jsr may call, or one without known callers,
 *     is never refuted).  The segment shown stays intraprocedural; the
 *     bits outside it only rule out the impossible: a loop head reached
 *     both from the entry and round the loop, with the bits saying the
 *     loop ran before.
 */
#ifndef ALPHAPROF_UTIL_PATH_RECON_H
#define ALPHAPROF_UTIL_PATH_RECON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"
#include "util/calc.h"
#include "util/symbols.h"

#define PR_MAX_BITS       PME_HISTORY_BITS
#define PR_MAX_TRANS      ORACLE_PMEPATH_DEPTH
#define PR_MAX_BLOCKS     128
#define PR_MAX_CANDIDATES 64
#define PR_MAX_DEPTH      8             /* callees entered on the way back */

struct pr_caller {
    int callee, proc;           /* symbol indices */
    uint32_t block;             /* the caller's block ending in the bsr */
};

/* One image's code: a CFG per function symbol, built when first needed. */
struct pr_program {
    const struct symtab *st;
    const struct symbol *syms;
    size_t nsyms;
    struct calc_proc *cfg;              /* per symbol */
    uint8_t *state;                     /* 0 not built, 1 built, 2 unreadable */
    bool *address_taken;                /* per symbol: the code forms its address (a function pointer) */
    uint64_t gp;                        /* the image's global pointer, if have_gp */
    bool have_gp;
    struct pr_caller *callers;          /* every bsr, by callee (pr_build_callers) */
    size_t ncallers;
    bool callers_built;
    bool *unknown_callers;              /* per symbol: a jsr may call it (address taken, or in the GOT) */
    struct model_params mp;
};

void pr_program_init(struct pr_program *p, const struct symtab *st);
void pr_program_free(struct pr_program *p);
/* The callers index (every CFG built); done once, on first need. */
void pr_build_callers(struct pr_program *p);
/* The symbol index of pc's function and its CFG, or -1. */
int pr_proc_at(struct pr_program *p, uint64_t pc, const struct calc_proc **cfg);

struct pr_segment {
    uint64_t trans[PR_MAX_TRANS];       /* note 2, newest first */
    size_t ntrans;
    unsigned nbits;                     /* conditional branches on it */
    bool reached_entry;
    uint64_t insns;                     /* instructions before the sample on it */
    uint64_t block[PR_MAX_BLOCKS];      /* start PCs of its blocks, newest (the sample's) first */
    uint8_t depth[PR_MAX_BLOCKS];       /* 0 the sampled procedure, 1 a callee of it... */
    size_t nblocks;                     /* (blocks past PR_MAX_BLOCKS are left out) */
};

struct pr_query {
    uint64_t pc;
    uint32_t history;
    unsigned nbits;                     /* 1..PR_MAX_BITS */
    bool pair;                          /* note 4 */
    uint64_t pair_pc;
    uint32_t gap;
    bool ignore_history;                /* the baseline: every way back at a branch */
};

enum pr_outcome { PR_UNIQUE, PR_AMBIGUOUS, PR_NONE, PR_UNRESOLVED, PR_NO_CODE };
extern const char *const pr_outcome_names[5];

struct pr_result {
    enum pr_outcome outcome;
    size_t ncandidates;                 /* (capped at PR_MAX_CANDIDATES + 1) */
    struct pr_segment seg;              /* PR_UNIQUE: the one */
};

void pr_reconstruct(struct pr_program *p, const struct pr_query *q, struct pr_result *res);

enum pr_truth { PR_TRUTH_OK, PR_TRUTH_POLLUTED, PR_TRUTH_UNKNOWN };
/* The sample's true segment of nbits (note 3).  PR_TRUTH_UNKNOWN: the log
 * does not reach back far enough.  *history_ok: the log's branch
 * directions agree with the sample's history (a check of the oracle). */
enum pr_truth pr_truth(struct pr_program *p, const struct oracle_pmepath_sample *s, unsigned nbits,
                       struct pr_segment *out, bool *history_ok);

bool pr_same_path(const struct pr_segment *a, const struct pr_segment *b);

#endif
