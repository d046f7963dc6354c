/*
 * alphaprof check --calc: calc's estimates against the oracle's exact
 * truth of the same run (issue 14, item 5).
 *
 *   freq_within_5/10/15  the share of cycle samples on instructions whose
 *                        estimated executions are within 5/10/15 % of the
 *                        oracle's retired count
 *   unexplained_share    calc's unexplained stall cycles over its stall
 *                        cycles (everything but base)
 *   cause_agreement      the share of calc's stall cycles that the oracle's
 *                        exact cycle stacks give the same instruction under
 *                        the same cause: sum over (pc, cause != base) of
 *                        min(estimate, truth) over calc's stall cycles
 *   edge_within_10       DCPI's figure 9: the share of edge executions
 *                        (the oracle's: a conditional branch's taken count
 *                        and executions minus it, a block's one way out
 *                        its last instruction's executions; ways out of a
 *                        jump table are not counted) on edges whose
 *                        estimate is within 10 %
 *   stack_error          half the sum over (pc, cause) of |estimate - truth|
 *                        over the oracle's total cycles (instructions calc
 *                        did not analyse count with an estimate of 0;
 *                        unexplained is a slot of its own, never true)
 *
 * Invariants: pcs are matched exactly; each metric but stack_error is in
 * [0, 1] (stack_error exceeds 1 only if calc's cycles exceed the truth's).
 */
#ifndef ALPHAPROF_UTIL_CALC_ACCURACY_H
#define ALPHAPROF_UTIL_CALC_ACCURACY_H

#include "util/calc-profile.h"
#include "util/oracle-file.h"

struct calc_accuracy {
    double freq_within[3];      /* 5, 10, 15 % */
    double unexplained_share, cause_agreement, stack_error;
    double samples;             /* cycle samples in the analysed procedures */
    double edge_within_10, edge_executions;     /* (the oracle's executions of the edges compared) */
    double est_cycles, est_stall, true_cycles;
    size_t procedures;
};

void calc_accuracy(const struct calc_analysed *a, const struct oracle *o, struct calc_accuracy *acc);

#endif
