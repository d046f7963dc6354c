/*
 * How accurate is a sampled profile, against the hardware model's oracle
 * of the same run (what `alphaprof check` prints): the instruction- and
 * procedure-level error of one event (util/accuracy: half the L1 distance
 * between the profile's and the oracle's shares), the instructions whose
 * shares differ most, and the oracle's own totals.
 *
 * Invariants:
 *   1. Both sides are compared as distributions of the same event over the
 *      same keys: PCs, or the start of the procedure (symbol) holding them,
 *      looked up in the profile's images for both sides.
 *   2. Cycle (and timer) samples are also compared with the exact
 *      time-proportional truth, the oracle's cycle stacks (util/cycle-stacks),
 *      as the time error; the oracle's cycles event is the retire gap, what
 *      the counters themselves attribute (hw-model/oracle-format.h).
 *   3. The record accounting (overflows, rings, interrupts) is always the
 *      whole run's (records are produced to its end); the per-PC truth and
 *      the instructions and cycles are those of the oracle given as truth
 *      (the profiled interval when the monitor took its snapshots).
 */
#ifndef ALPHAPROF_UTIL_PROFILE_ACCURACY_H
#define ALPHAPROF_UTIL_PROFILE_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/pmu-window.h"
#include "util/accuracy.h"
#include "util/oracle-file.h"
#include "util/profile-view.h"

/* The oracle event a profile event stands for ("timer" samples stand for
 * cycles); -1 if the oracle has none. */
int oracle_event_for(const char *profile_event);

/* The name of the procedure holding pc in the view's images, or report's
 * "[unknown]" when none does (the monitor, code outside every image). */
const char *pv_procedure_at(const struct profile_view *v, uint64_t pc);

/* One instruction's share of the event in the profile and in the oracle. */
struct share_diff {
    uint64_t pc;
    double profile, oracle;
};

struct profile_accuracy {
    double insn_error;          /* fraction of the event on the wrong instruction */
    double time_error;          /* cycles: ... against the exact TIP truth (cycle stacks); else -1 */
    double proc_error;          /* ... in the wrong procedure */
    size_t profile_pcs, oracle_pcs;     /* instructions with the event on each side */
    const char *top_profile, *top_oracle;   /* the procedure with most of it, each side */
    struct share_diff *diffs;   /* every instruction of either side, largest |difference| first */
    size_t ndiffs;
    uint64_t samples;           /* the profile's samples of the event */
    uint64_t instructions, cycles;      /* retired and cycles of the truth, all cores */
    uint64_t overflows, ring_dropped, ring_unread, interrupts;  /* of the whole run */
};

/* Compares the view's event e with oracle event oev of truth (per-PC) and
 * whole (the run's record accounting).  The result points into v. */
void profile_accuracy(const struct profile_view *v, int e, const struct oracle *truth,
                      const struct oracle *whole, int oev, struct profile_accuracy *a);
void profile_accuracy_free(struct profile_accuracy *a);

/* The oracle's sums over its cores and over its PCs (which must agree:
 * nothing counted that no instruction caused). */
struct oracle_sums {
    uint64_t cycles, instructions;
    uint64_t events[PMU_EV_COUNT];      /* summed over the cores */
    uint64_t events_by_pc[PMU_EV_COUNT];
};
void oracle_sums(const struct oracle *o, struct oracle_sums *s);

#endif
