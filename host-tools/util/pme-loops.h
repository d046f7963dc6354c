/*
 * ProfileMe's cycle stacks per loop (pme --stacks, check --pme): the
 * natural loops (util/calc-loops.c) of every procedure with estimated
 * stacks (util/pme-stacks.h), each with its cycles by cause and its
 * header's executions, and the same from the oracle's truth.
 *
 * Design notes:
 *  1. A loop's cycles are the sum of its body's instructions' stacks,
 *     inner loops included (an inner loop's cycles are in its parent's
 *     too); a call from a loop is not in it (the callee's instructions are
 *     another procedure's).
 *  2. Executions are the header block's: once per entry and once per back
 *     edge taken.  Estimated from the retired records of the instructions
 *     of the header's frequency-equivalence class (calc's cycle
 *     equivalence: its block's and those of every block that always runs
 *     as often), which all run as often: k records over its L
 *     instructions give k S / L (S the fetched instructions per record),
 *     with the 95 % interval of k S scaled the same way.  The truth is the
 *     mean of the oracle's executions over the header block's PCs.
 *  3. Loops come most cycles first, so a loop follows the loop around it;
 *     each names its header (the first PC of its header block, with its
 *     source line) and its parent's.
 *  4. The check (check --pme): each loop's share of the cycles, estimate
 *     against truth (the shares of all cycles on each side, as time_error
 *     for instructions); share errors in share points, the largest and the
 *     mean weighted by the true cycles; executions' relative error,
 *     weighted the same, over loops whose header block has at least
 *     PME_LOOP_MIN_RECORDS retired records (fewer are mostly noise); and
 *     whether the loop with the most cycles is the truth's.
 */
#ifndef ALPHAPROF_UTIL_PME_LOOPS_H
#define ALPHAPROF_UTIL_PME_LOOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw-model/cycle-causes.h"
#include "hw-model/model/issue-rules.h"
#include "util/oracle-file.h"
#include "util/pme-estimate.h"
#include "util/pme-stacks.h"

#define PME_LOOP_MIN_RECORDS 30

/* A body's PCs [lo, hi): one per run of consecutive blocks. */
struct pme_span {
    uint64_t lo, hi;
};

struct pme_loop {
    const char *proc, *image;
    uint64_t header;                    /* PC of the header block's first instruction */
    uint64_t parent;                    /* the header of the loop around it, 0: outermost */
    unsigned depth;                     /* 1: outermost */
    const char *file;                   /* the header's source file and line (NULL: unknown) */
    unsigned line;
    double cause[CAUSE_COUNT], total;   /* cycles (note 1) */
    uint64_t header_retired;            /* retired records of the header's class's instructions */
    unsigned header_len;                /* instructions in the header's class (note 2) */
    unsigned header_block;              /* instructions in the header block */
    unsigned nblocks;
    struct pme_span *spans;             /* the body, ascending */
    size_t nspans;
};

/* The loops of the procedures of n stacks (any order, each with its
 * instruction, in), most cycles first (note 3): malloc'd, *nl of them;
 * procedures whose code or symbols cannot be read have none. */
struct pme_loop *pme_stacks_by_loop(const struct pme_stack *st, size_t n, const struct model_params *mp,
                                    size_t *nl);
void pme_loops_free(struct pme_loop *loops, size_t n);

/* A loop's header executions from its records, interval S (note 2). */
void pme_loop_executions(const struct pme_loop *l, double interval, struct pme_count_est *out);

/* The truth of a loop: its body's cycles and its header block's mean
 * executions (note 2). */
void pme_loop_truth(const struct pme_loop *l, const struct oracle *o, double *cycles, double *executions);

struct pme_loop_accuracy {
    size_t loops, executions_checked;
    double share_error_max, share_error_mean;   /* share points (note 4) */
    double executions_error;                    /* relative, weighted by true cycles */
    uint64_t top_estimate, top_oracle;          /* headers of the loops with the most cycles */
};
/* Compares n loops with the truth (note 4); estimate_cycles and
 * true_cycles are all cycles on each side (the shares' denominators).
 * interval 0 (no fetch interval: time-sampled records, pme-stacks.h
 * note 12) checks no executions.  -1 when there is no loop or no
 * cycles, else 0. */
int pme_loop_accuracy(const struct pme_loop *l, size_t n, double interval, double estimate_cycles,
                      const struct oracle *o, double true_cycles, struct pme_loop_accuracy *out);

#endif
