/*
 * The ProfileMe estimators (seed: profileme-micro97 sections 5 and 6), as
 * pure functions of sample counts and paired-sample observations, so the
 * unit tests can feed them synthetic sample sets with known answers.
 * `alphaprof pme`, `annotate` and `check --oracle` use them.
 *
 * Event frequencies (section 5.1).  With one sample every S fetched
 * instructions on average and k samples of instruction I with property P
 * (retired, missed in the D-cache, ...), kS estimates the number of
 * fetches of I with P; its coefficient of variation is about 1/sqrt(k).
 *
 * Paired samples (section 5.2).  A pair <I1, I2> is taken every S fetched
 * instructions, I2 a uniform 1..W fetched instructions after I1, with
 * `distance` cycles between their fetches.  From each record's stage
 * latencies (hw-model/pmu-window.h enum pme_latency) its timeline relative
 * to its own fetch is
 *     issue    = fetch-map + map-data + data-issue
 *     retready = issue + issue-retready         ("in progress" ends here)
 *     retire   = retready + retready-retire
 * and I2's times are shifted by `distance`.  For an instruction I:
 *   useful overlap: the partner issues while I is in progress (between
 *     I's fetch and I's retire-ready, both ends included) and retires;
 *   U = pairs <I, x> and <x, I> with useful overlap; the useful
 *     instructions issued while I was in progress: U W S;
 *   L = sum of fetch-to-retire-ready latencies of I over the pairs holding
 *     it (each slot counted); total latency of I: L S / 2 cycles, issue
 *     slots available during it L C S / 2 with C the issue width;
 *   wasted issue slots: L C S / 2 - U W S;
 *   useful concurrency: useful instructions issued per cycle in progress,
 *     U W S / (L S / 2) = 2 U W / L;
 *   IPC near I (section 5.2.4): with R = pairs where I and its partner both
 *     retired within T/2 cycles of each other, out of n pairs in which I
 *     retired, the other instructions retiring within T/2 cycles of I number
 *     2 W R / n on average; divided by T it is the retire rate (IPC) in a
 *     T-cycle window around I (the seed uses T = 30).  Instructions further
 *     than W fetches from I are not seen: W must cover the window.
 *
 * Invariants: pure functions (no I/O, no state); an estimate from k = 0
 * samples is 0 with an infinite coefficient of variation, never a
 * division by zero.
 */
#ifndef ALPHAPROF_UTIL_PME_ESTIMATE_H
#define ALPHAPROF_UTIL_PME_ESTIMATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw-model/pmu-window.h"

/* Two-sided 95 % normal quantile: the default confidence of intervals. */
#define PME_Z95 1.959963984540054

/*
 * kS with its coefficient of variation 1/sqrt(k) and a confidence
 * interval: k taken as Poisson with mean m, the score interval
 * (k - m)^2 <= z^2 m, i.e. m = k + z^2/2 -+ z sqrt(k + z^2/4), times S.
 * For k = 0 the estimate is 0, cv infinite, the interval [0, z^2 S].
 */
struct pme_count_est {
    uint64_t k;
    double estimate;
    double cv;
    double lo, hi;
};
void pme_count_estimate(uint64_t k, double interval, double z, struct pme_count_est *out);

/* Is estimate within the one-standard-deviation envelope of the truth,
 * |estimate / truth - 1| <= 1 / sqrt(k) (seed Figure 3)?  False when k
 * or truth is 0. */
bool pme_within_envelope(double estimate, double truth, uint64_t k);

/*
 * k of n samples of an instruction had a property (a D-cache miss, a
 * mispredict): the rate k/n with Wilson's score interval.  n = 0 gives
 * rate 0 and the interval [0, 1].
 */
struct pme_rate_est {
    uint64_t k, n;
    double rate, lo, hi;
};
void pme_rate_estimate(uint64_t k, uint64_t n, double z, struct pme_rate_est *out);

/* --- paired samples ---------------------------------------------------- */

/* One record's times, cycles after its own fetch. */
struct pme_times {
    bool retired;
    double issue, retready, retire;
};
/* From the record's latency fields (lat[] indexed by enum pme_latency). */
void pme_times_from_latencies(const uint64_t *lat, size_t nlat, bool retired, struct pme_times *t);

struct pme_pair_obs {
    double distance;                    /* cycles from the first fetch to the second */
    struct pme_times rec[2];            /* 0 the first fetched, 1 the second */
};

/* What one pair says about each of its two instructions. */
struct pme_pair_effect {
    bool useful;            /* the partner overlapped usefully with this one */
    bool retired;           /* this one retired */
    bool near;              /* both retired within ipc_window/2 cycles of each other */
    double latency;         /* this one's fetch-to-retire-ready cycles */
};
void pme_pair_analyse(const struct pme_pair_obs *p, double ipc_window, struct pme_pair_effect out[2]);

/* Per-instruction sums over the pairs holding it (one slot at a time). */
struct pme_pair_acc {
    uint64_t pairs;         /* records of I in pairs */
    uint64_t useful_fwd;    /* U^F: I first, partner useful */
    uint64_t useful_bwd;    /* U^B: I second, partner useful */
    uint64_t retired;       /* records of I that retired */
    uint64_t near;          /* R */
    double latency;         /* L */
};
/* Adds effect e of slot (0 first, 1 second) to a. */
void pme_pair_acc_add(struct pme_pair_acc *a, int slot, const struct pme_pair_effect *e);

struct pme_concurrency {
    double latency_total;   /* L S / 2: cycles I was in progress, all executions */
    double slots;           /* L C S / 2 */
    double useful;          /* U W S */
    double wasted;          /* slots - useful */
    double concurrency;     /* 2 U W / L, 0 when L = 0 */
    double ipc_near;        /* 2 W R / (retired T), 0 without retired records */
    double mean_latency;    /* L / pairs: mean fetch-to-retire-ready cycles */
};
/* S: fetched instructions per pair; W: pair window; C: issue width;
 * T: the IPC window in cycles. */
void pme_concurrency_estimate(const struct pme_pair_acc *a, double S, double W, double C, double T,
                              struct pme_concurrency *out);

/* W estimated from n gaps seen (uniform 1..W) whose largest is max_gap:
 * the minimum-variance unbiased estimate max + max/n - 1, never below
 * max_gap; 0 without pairs. */
double pme_window_estimate(uint64_t max_gap, uint64_t n);

#endif
