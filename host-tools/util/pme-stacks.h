/*
 * Cycle stacks from ProfileMe samples (TEA, ISCA 2023, on ProfileMe's
 * sampled instructions): per instruction the time-proportional cycles
 * (TIP's rules, hw-model/model/core-model.h) split by cause
 * (hw-model/cycle-causes.h), estimated from what each sampled record says
 * about its own instruction: its event bits, its stage latencies and its
 * retire-gap register (cycles since the previous retirement,
 * hw-model/pmu-window.h), and from the paired samples, which instructions
 * retired in the same cycle.  Nothing in a record is a cycle stack: the
 * splitting of a retire cycle, the moving of a flush's bubble to its
 * branch and every cause are estimated here.
 *
 * One record (its times from its own fetch: map M, data ready D, issue I,
 * retire ready RR, retire R; the previous retirement at R - gap):
 *  1. retired: its share of its retire cycle, 1/n for n retiring together
 *     (estimated: design note 3), as base;
 *  2. the cycles (R - gap, R) it owed nothing else to: the part before M is
 *     an empty window: with its own I-cache or ITB miss bit, or when its
 *     fetch came less than half the mispredict penalty late, its own
 *     (icache, itb or base up to the fetch, queue_full after: map held
 *     back); else the bubble of a flush, booked to the branch or trap that
 *     caused it (note 4), not here.
 *     From M on the instruction is the oldest and
 *     the phase says why: [M, M+1) base, [M+1, D) waiting for data,
 *     [D, I) fu_busy, [I, RR) its own execution, [RR, R) other;
 *  3. waiting for data: the wait's length names the miss it waited for
 *     (the model's latencies, issue-rules.h): at least the L2's latency
 *     past the L1's, dcache_l2; at least half memory's more, dcache_mem;
 *     else dependency.  A wait inherited along a chain of consumers is
 *     as long as the miss, so it is named the same, as the truth does;
 *  4. a mispredicted branch: its flush's bubble, penalty - (R - RR) cycles
 *     (the refetch starts penalty cycles after it resolves at RR); a trap
 *     (aborted with the trap bit): penalty + 1 cycles, trap;
 *  5. its own execution: a barrier or PAL call (the instruction word in
 *     the image says so; model_class_serialises), serialise; a load with a
 *     DTB miss, dtb; other loads and stores, base; another instruction
 *     taking more than a cycle, execute.
 * Each record stands for S/2 fetched instructions, S the fetched
 * instructions per pair (both slots of a pair are uniform samples of the
 * fetched stream), so an instruction's stack is S/2 times its records'.
 *
 * Design notes:
 *  1. Records kept whole are needed (the estimate of a record is not a
 *     sum of its fields): the paired samples, which the board sends
 *     whole.  A profile without pairs has no stacks (the caller says to
 *     record with --paired).
 *  2. Pure functions (no I/O): the unit tests give them synthetic records
 *     with hand-computed answers.
 *  3. The share of a retire cycle: a record with retire-gap 0 retired in
 *     its predecessor's cycle.  With z(j) the share of j's retired
 *     records with gap 0, the others retiring with j are O older and Y
 *     younger: P(O >= k) = z(j) z(p(j)) ... (k factors) along the usual
 *     predecessors p (the fall-through from pc - 4 or the taken branch to
 *     j, whichever arrives more: records of taken transfers carry their
 *     target), P(Y >= k) = z'(j) z'(s(j)) ... with z'(j) the chance j's
 *     successor retires with it: z of pc + 4 when j falls through, of its
 *     target when taken, mixed by j's taken share; each at most retire
 *     width - 1 deep, the links taken as independent.  A record's share
 *     is E[1 / (1 + O + Y)] (not 1 / (1 + E[O + Y]), which is smaller
 *     whenever groups vary: Jensen), with O = 0 for a record with a gap
 *     (it opened its cycle) and O >= 1 for one without.  Exact for a loop
 *     whose instructions retire in fixed groups, and for independent
 *     links (tests/unit/test_pme_stacks.c); 1 / (1 + E) underestimated
 *     qsort's base cycles by 13 %.  The links are not independent where
 *     the grouping depends on the path (qsort: one instruction's share
 *     0.57 against its true 0.42, measured in the model over its tagged
 *     executions), so a record that carries its retire group's size
 *     (the model latches it, pmu-window.h PME_EVENTS_GROUP) is given
 *     exactly 1 / size; the links only serve records without it.
 *  4. A flush's bubble is booked at the branch (from the branch's record)
 *     and left out at the instruction after it (from that one's record),
 *     so each side is estimated from its own samples.
 *  5. Instructions of one frequency-equivalence class (calc's cycle
 *     equivalence over the procedure's CFG from the image: blocks that
 *     always run equally often, a block's instructions first of all) run
 *     as often as each other, so their executions are estimated from the
 *     class's retired records together (k_class / L_class per
 *     instruction) and each instruction's records give only its cycles
 *     per execution: an instruction's stack is scaled by (k_class /
 *     L_class) / k_i.  DCPI's calc pools its classes the same way.  It
 *     halved chase's stack error at 32 k records (its missing load's
 *     executions from the loop's four instructions' records, not its own)
 *     and took qsort's sampling noise from 6.0 to 4.1 %.  Without the
 *     image's symbols nothing is pooled.
 *  6. How much each instruction's records stand for comes from the
 *     per-PC aggregates when the view has them (paired mode aggregates
 *     every record drained, a dropped pair's two as well): an
 *     instruction's pair records give its cycles per record, its
 *     aggregate count how many records it had, each standing for the
 *     record interval (pme-view.h `interval`, its losses included):
 *     interval x samples / pair records, in place of S/2.  The board
 *     drops whole pairs when its banks are full, which happens while the
 *     link is behind, so the pairs lost are not a uniform sample: in
 *     qsort runs 2.4-3.5 % of the monitor's records and none of qsort's
 *     went (1 repetition), and spreading the loss evenly gave qsort too
 *     many cycles.  On qsort's runs stack / time error fell from 4.87 /
 *     4.47 to 4.45 / 4.15 % (1 repetition) and 2.53 / 2.31 to 2.23 / 2.14
 *     % (6).  The sampling noise (pme_stacks_noise) stays the pairs' own:
 *     each half is estimated without the aggregates, which both halves
 *     share.
 *  7. Since link protocol 5 the board no longer drops the pairs that come
 *     after its bank is full: a full bank keeps a uniform random subset
 *     of the pairs offered to it (reservoir sampling,
 *     firmware/profiler/pme-capture.h), and each kept pair stands for
 *     its bank's offered / kept (pairs.weight; 1 in older profiles).  A
 *     record counts with its pair's weight over the mean weight
 *     everywhere a record is counted (its cycles, its retired records,
 *     the links of note 3), so the weights move cycles between the
 *     banks' times and leave the total at S/2 a record; with the
 *     aggregates (note 6) they give the cycles per record.
 *  9. Note 6 only where it is needed: when the board dropped pairs
 *     (pair_full) and no pair weight stands for them (a board before
 *     link protocol 5).  The aggregates lose records too, when a bank's
 *     aggregate table is full while the other bank waits for the link
 *     (agg_full), and those fall on whatever runs then, as the pairs'
 *     did (main's qsort run of 6 repetitions lost 2 872).  Pairs a full
 *     bank thinned uniformly (note 7), or never dropped, are a uniform
 *     sample by themselves.  (On the first reservoir run, which lost no
 *     aggregate record, it changed 1.95 / 1.86 % to 1.97 / 1.88 %:
 *     noise.)
 *  8. A flush's bubble is seen from both sides (note 4): the branch books
 *     penalty - (R - RR), the cycles from its retirement to the refetch,
 *     and the first instruction refetched sees the same cycles as the
 *     empty window before its own fetch.  A long window is a flush's and
 *     that instruction books none of it; but when the branch waited to
 *     retire for most of the penalty (behind a barrier, say), the bubble
 *     is shorter than flush_bubble and the refetched instruction booked
 *     it as its own late fetch too: qsort's monitor loop exit (bne after
 *     an mb, then ret) gave the ret 4 cycles an execution against the
 *     truth's 3.  So each instruction's own late fetch (base) gives back
 *     the short bubbles the mispredicted branches whose correct path it
 *     starts booked (their records' taken bit and target say where that
 *     is), at most what it booked: in expectation each cycle once, with
 *     no record needing to know whether it followed a flush.
 * 10. The long bubble of a flush (at least flush_bubble) is seen from
 *     both sides too (note 4): the branch's records book penalty - (R -
 *     RR), and the records of the first instruction refetched on its
 *     correct path (its taken target, or pc + 4) see the same cycles as
 *     the empty window before their fetch (in qsort runs 7 and 7 in 85 %
 *     of the records, the totals within their noise).  Those are two
 *     independent samples of the same bubbles, one from the branch's
 *     executions and one from the refetched instruction's, so a branch's
 *     long bubbles are their mean: per refetched instruction n, the
 *     bubbles the branches' records booked into n and the windows n's
 *     records saw (both per record times their instruction's pooled
 *     executions, note 5: an instruction entered mostly after a flush
 *     sees one in nearly every record) are booked + seen, and each
 *     branch's are scaled by (booked + seen) / (2 booked), keeping its
 *     part; windows seen where no record booked one go half to n's
 *     usual predecessor (note 3) when that ever mispredicts (else they
 *     are a trap's or an interrupt's: nobody's here, as before).  The
 *     short bubbles stay note 8's.  It halves the variance of the
 *     mispredict cycles of a branch with one way back: on qsort's 1.08 M
 *     records (`-- 6`) the time error went from 1.77 to 1.64 %, its
 *     sampling noise from 1.63 to 1.44 %.
 * 11. Executions along the CFG's flow (DCPI's local propagation): a
 *     block runs as often as its in-edges together, an edge from a block
 *     with one way out as often as that block's class, one side of a
 *     conditional branch as the branch's class times the share of the
 *     branch's records that went that way; and as often as its out-edges
 *     together when each leads to a block entered only by it.  Each such
 *     sum is a second estimate of the block's class's executions (note
 *     5), with its variance from the records (Poisson counts, a binomial
 *     share; a branch with fewer than POOL_FLOW_MIN records gives none);
 *     the class takes the inverse-variance mean of its own and these, in
 *     record units (note 6's per-instruction worth taken as equal there).
 *     Entry, call-return, table and exit edges say nothing (their counts
 *     are not in the procedure's records).  The class's instructions'
 *     stacks scale with it.  On qsort `-- 6`: time error 1.64 -> 1.59 %.
 * 12. Time-sampled records (pme-view.h time_interval > 0; the model's
 *     time draw, hw-model/pmu-window.h PME_DRAW_TIME): the hardware
 *     tagged the execution TIP charges a random cycle to, so a record
 *     stands for time_interval cycles (times its pair's weight, note 7)
 *     of its own instruction: an instruction's time share is its share
 *     of the records, with no executions or cycles per execution to
 *     estimate.  Its stack splits each record's time by that record's
 *     own estimated causes (points 1-5 above, the group's size from the
 *     record) over its estimated total (Horvitz-Thompson: the record is
 *     `interval` cycles, in the fractions of its execution's time by
 *     cause); its executions are the sum over its retired records of
 *     interval / the record's estimated cycles (an execution of c cycles
 *     is sampled with chance c / interval).  An execution that owned k
 *     sample points is k consecutive identical records, so it counts k
 *     times, as it should.  Notes 3-11 correct the fetch-order estimate
 *     of time and are not used: the flush bubbles, the shares and the
 *     executions are the sampled truth's here; a record's pair partner
 *     (the next time sample) says nothing of it.  Trap records (owning
 *     their flush's cycles) count to their instruction's time.
 *
 * The check (`alphaprof check --pme`): stack_error = 1/2 sum over
 * (instruction, cause) of |estimate - truth| / the truth's cycles (as
 * check --calc's), time_error = 1/2 sum over instructions of |estimate
 * share - truth share| (as check's time error).
 */
#ifndef ALPHAPROF_UTIL_PME_STACKS_H
#define ALPHAPROF_UTIL_PME_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw-model/cycle-causes.h"
#include "hw-model/model/issue-rules.h"
#include "hw-model/pmu-window.h"
#include "util/error.h"
#include "util/oracle-file.h"
#include "util/pme-view.h"


/* What the estimator knows of the machine (the model's parameters). */
struct pme_stack_params {
    double penalty;             /* mispredict penalty, cycles */
    double flush_bubble;        /* an empty window this long without a miss follows a flush */
    unsigned retire_width;      /* <= CYCLE_MAX_RETIRE_WIDTH */
    double l2_wait, mem_wait;   /* a data wait this long waited for the L2, for memory */
};
void pme_stack_params_of(const struct model_params *p, struct pme_stack_params *out);

/* One record as the estimator reads it. */
struct pme_rec_obs {
    bool retired, trap, imiss, itbmiss, dtbmiss, load, store, mispredict;
    bool serialising;                   /* a barrier or PAL call (from the image, not the record) */
    uint32_t lat[PME_LAT_COUNT];        /* enum pme_latency */
};

/* Adds one record's cycles by cause (unscaled) to out; share is its
 * estimated share of its retire cycle (note 3). */
void pme_record_stack(const struct pme_stack_params *p, const struct pme_rec_obs *r, double share,
                      double out[CAUSE_COUNT]);

/* Note 8: the cycles r books as its own late fetch (the short empty
 * window before its fetch, with no miss of its own), and, for a
 * mispredicted branch, the bubble it books when that is as short. */
double pme_record_late_fetch(const struct pme_stack_params *p, const struct pme_rec_obs *r);
double pme_record_short_bubble(const struct pme_stack_params *p, const struct pme_rec_obs *r);

/* Note 10: a mispredicted branch's bubble when it is a flush's (at
 * least flush_bubble long: penalty - its wait to retire), else 0; and
 * the empty window before a refetched instruction's fetch when that long
 * (no miss of its own: a flush's, which pme_record_stack leaves to the
 * branch), else 0.  Both see the same cycles. */
double pme_record_long_bubble(const struct pme_stack_params *p, const struct pme_rec_obs *r);
double pme_record_flush_window(const struct pme_stack_params *p, const struct pme_rec_obs *r);

/* What one instruction's retired records say about retiring together
 * (note 3).  next, target: its fall-through (pc + 4) and taken successor;
 * prev: its usual predecessor (the fall-through from pc - 4 or the taken
 * branch to it that arrives most); SIZE_MAX when not sampled. */
struct pme_seq_stats {
    double retired, zero_gap, taken;    /* retired records; with retire-gap 0; taken */
    size_t prev, next, target;
};
/* The expected share of its retire cycle, E[1 / (1 + others retiring in
 * it)], of st[i] on a core retiring at most width a cycle (note 3): for a
 * record retiring after a gap (the first of its cycle), for one retiring
 * in its predecessor's cycle, and over all its retirements. */
struct pme_share {
    double first, joined, mean;
};
void pme_share_estimates(const struct pme_seq_stats *st, size_t i, unsigned width, struct pme_share *out);
/* A retired record's share of its retire cycle: 1 / the size of its
 * retire group when the record says it (PME_EVENTS_GROUP in its event
 * word, hw-model/pmu-window.h: exact), else s's estimate from the links
 * (note 3): s->first after a gap, s->joined in its predecessor's cycle. */
double pme_record_share(uint32_t events, uint32_t retire_gap, const struct pme_share *s);
/* Its mean share (of n instructions). */
double pme_share_estimate(const struct pme_seq_stats *st, size_t n, size_t i, unsigned width);

/* An instruction's estimated stack, cycles. */
struct pme_stack {
    uint64_t pc;
    const struct pme_insn *in;          /* NULL in tests */
    double cause[CAUSE_COUNT];
    double records;                     /* pair records of it, weighted (note 7) */
    double executions;                  /* estimated: its retired records' worth, pooled (note 5) */
    double share;                       /* its estimated retire-cycle share (shares.mean) */
    struct pme_share shares;
};
double pme_stack_total(const struct pme_stack *s);

/*
 * Every instruction of the view (out[i] for v->insns[i], room for
 * v->ninsns), from the view's whole pairs with S = v->pair_interval.
 * -1 with err when the view has no pairs, no pair interval, or its bit
 * names lack one the estimator reads.
 */
int pme_stacks_estimate(const struct pme_view *v, const struct pme_stack_params *p, struct pme_stack *out,
                        struct ap_err *err);

/* The sampling noise of the estimate: stack_error and time_error between
 * the estimates from the view's even and odd pairs, halved (each half has
 * twice the whole's variance; a bias cancels): what check --pme's errors
 * would be with an unbiased estimator.  -1 with err as pme_stacks_estimate. */
int pme_stacks_noise(const struct pme_view *v, const struct pme_stack_params *p, double *stack_noise,
                     double *time_noise, struct ap_err *err);

/* Note 5 on one procedure: st[0..n) its sampled instructions (PCs in cfg,
 * whose frequency-equivalence classes are set: calc_equivalence), rec[k]
 * st[k]'s retired records; each stack is scaled by the records per
 * instruction of its class over its own. */
struct calc_proc;
void pme_stacks_pool(const struct calc_proc *cfg, struct pme_stack *st, const double *rec, size_t n);

/* Note 11 on one procedure after pme_stacks_pool: retired[k], taken[k]
 * st[k]'s retired records and of those taken (a branch's sides); each
 * class's stacks and executions scaled by its combined estimate over its
 * own. */
void pme_stacks_pool_flow(const struct calc_proc *cfg, struct pme_stack *st, const double *retired,
                          const double *taken, size_t n);

/* The procedure an instruction's stack is in, by its image's symbols ("":
 * outside any). */
const char *pme_stack_procedure(const struct pme_stack *s);

/* A procedure's stack: the sum of its instructions' (by procedure and
 * image), in their order. */
struct pme_proc_stack {
    const char *name, *image;
    double cause[CAUSE_COUNT], total;
    uint64_t retired;                   /* retired samples (the aggregates) */
};
/* The procedures of n stacks (each with its instruction, in), most cycles
 * first, then by name: malloc'd, *np of them (pme --stacks, html). */
struct pme_proc_stack *pme_stacks_by_procedure(const struct pme_stack *st, size_t n, size_t *np);

struct pme_stack_accuracy {
    double stack_error;                 /* over (instruction, cause), cycles / true cycles */
    double time_error;                  /* over instructions, shares */
    double share_stack_error;           /* over (instruction, cause), shares of each side */
    double estimate_cycles, true_cycles;
    double cause_estimate[CAUSE_COUNT], cause_true[CAUSE_COUNT];
    size_t estimated, true_pcs;         /* instructions with time on each side */
};
/* Compares n estimated stacks (distinct PCs, any order) with the truth's
 * per-PC stacks: -1 when either side has no time, else 0. */
int pme_stack_accuracy(const struct pme_stack *est, size_t n, const struct oracle *truth,
                       struct pme_stack_accuracy *out);

#endif
