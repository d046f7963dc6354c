/*
 * How good are the ProfileMe estimates (util/pme-estimate) against the
 * hardware model's oracle (oracle format v2) of the same run, per
 * instruction:
 *   retire counts   k_retired S            vs executions
 *   event bits      k_bit S                vs pme_events[bit] (fetches with the bit)
 *   stage latencies latency sum / samples  vs lat_sum / executions
 * For the counts: the fraction of sampled instructions whose estimate lies
 * within the one-sigma envelope |estimate/truth - 1| <= 1/sqrt(k) (seed
 * section 5.1: about two thirds), the fraction whose true count lies in
 * the 95 % interval (pme_count_estimate), the whole run's total against the
 * oracle's, and the sample-weighted mean relative error.  For latencies: the sample-weighted mean absolute error
 * in cycles over instructions with at least PME_ACC_MIN_SAMPLES samples.
 */
#ifndef ALPHAPROF_UTIL_PME_ACCURACY_H
#define ALPHAPROF_UTIL_PME_ACCURACY_H

#include <stdio.h>

#include "util/oracle-file.h"
#include "util/pme-view.h"

#define PME_ACC_MIN_SAMPLES 10

struct pme_acc_count {
    const char *name;
    size_t sampled;             /* instructions with k >= 1 and a true count > 0 */
    size_t within;              /* of those, inside the envelope */
    size_t sampled_k10, within_k10;     /* the same over k >= PME_ACC_MIN_SAMPLES */
    size_t covered;             /* sampled instructions whose true count is inside the 95 % interval */
    size_t covered_k10;         /* ... of those with k >= PME_ACC_MIN_SAMPLES (an instruction
                                 * sampled once though run fewer than S times lies outside) */
    double estimate_total;      /* sum of kS over the sampled instructions the oracle counts */
    double true_total;          /* the oracle's sum over every PC */
    double true_sampled;        /* ... over the sampled instructions */
    double estimate_all;        /* sum of kS over every sample: the whole run's estimate */
    double total_error;         /* estimate_all / true_total - 1: the whole run's error (the
                                 * sampled PCs alone are biased: a PC sampled once stands for
                                 * S fetches however rarely it ran, one never sampled for none) */
    double weighted_rel_error;  /* sum k |est/truth - 1| / sum k */
};

struct pme_acc_latency {
    const char *name;
    size_t instructions;        /* with >= PME_ACC_MIN_SAMPLES samples and executions */
    double mean_abs_error;      /* cycles, sample-weighted */
    double mean_true;           /* cycles, sample-weighted */
};

struct pme_accuracy {
    double interval;            /* S used */
    bool interval_from_oracle;  /* the database lacked it: fetched / records of the oracle */
    double oracle_interval;     /* the oracle's fetched / ProfileMe records produced */
    size_t oracle_pcs_missed;   /* PCs the oracle executed that no sample hit */
    double missed_executions;   /* their share of all executions */
    struct pme_acc_count retired;
    size_t nbits;
    struct pme_acc_count bits[PME_EVB_COUNT];
    size_t nlat;
    struct pme_acc_latency lat[PME_LAT_COUNT];
};

/*
 * The paired-sample metrics (pme_concurrency_estimate) against the
 * oracle's exact values (oracle_pc.useful_issued and the in-progress
 * cycles, the first four stages of lat_sum), over the instructions with
 * at least PME_PAIR_ACC_MIN pair records:
 *   useful_error  sum |U W S - useful| / sum useful;
 *   latency_error sum |L S/2 - in-progress cycles| / sum of those cycles;
 *   wasted_error  sum |wasted estimate - C cycles + useful| / sum |C cycles - useful|;
 *   concurrency_error  mean |2 U W / L - useful / cycles|, weighted by pair records;
 *   top_wasted_agrees  the instruction with the most wasted slots is the same.
 */
#define PME_PAIR_ACC_MIN 30
struct pme_pair_accuracy {
    size_t instructions;
    double useful_error, latency_error, wasted_error, concurrency_error;
    double useful_estimate, useful_true, wasted_estimate, wasted_true;
    uint64_t top_estimate_pc, top_true_pc;
    bool top_wasted_agrees;
};
/* C: issue slots per cycle.  -1 when no instruction has enough pairs or S, W are unknown. */
int pme_pair_accuracy(const struct pme_view *v, const struct oracle *o, double C, struct pme_pair_accuracy *a);

/* Fills a; -1 (with err) when neither the view nor the oracle gives S. */
int pme_accuracy(const struct pme_view *v, const struct oracle *o, struct pme_accuracy *a, struct ap_err *err);
void pme_accuracy_print(FILE *f, const struct pme_accuracy *a);
void pme_accuracy_json(FILE *f, const struct pme_accuracy *a);

#endif
