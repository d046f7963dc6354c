/*
 * The exact truth of ProfileMe's paired-sample metrics (seed section 5.2,
 * host-tools/util/pme-estimate.h): for every retired instruction I, how
 * many other instructions issued while I was in progress, from I's fetch
 * to its retire-ready cycle, both included.  Every instruction the model
 * issues retires (the bad path is only fetched; a trapped instruction
 * issues when it runs again), so all of them are useful.  The oracle sums
 * the count per PC (oracle_pc.useful_issued) beside the in-progress
 * cycles (the first four stage latencies of lat_sum): the wasted issue
 * slots are C x cycles - useful, the useful concurrency useful / cycles.
 *
 * Design notes:
 *  1. Instructions step in program order and fetch in order, and an
 *     instruction issues after its fetch, so once an instruction fetched
 *     at f has stepped no later one issues before f: cycles below f are
 *     final.  I's range [fetch, retready] is final when a later fetch
 *     passes retready; until then I waits in a FIFO.  The FIFO is drained
 *     from its head while the head's range is final (ranges end out of
 *     order, so some wait longer; none is lost).
 *  2. Issues are counted per cycle slot in a ring of CONC_RING cycles.
 *     An issue leaves it when its cycle falls CONC_RING / 2 behind the
 *     final cycles (a FIFO of issues in program order, whose cycles are
 *     in order but for the core's reordering, far less than CONC_RING / 2).
 *  3. A range reaching further back than that (a stall of thousands of
 *     cycles) is counted from the oldest cycle kept, and in `clipped`.
 *  4. conc_flush() settles every waiting range at the end of the run.
 *  5. A range is the difference of two running sums of the slots,
 *     `prefix`, kept for the cycles [pf_lo, pf_hi] (fewer than CONC_RING
 *     of them, prefix[c] the issues of [pf_lo, c)): issues land at or
 *     after the final cycles and ranges end before them, so the sums are
 *     extended forward a cycle at a time, each cycle once (the Fenwick
 *     tree before them was about a fifth of a counters run, perf).  A slot that changes inside the
 *     window cuts the window there: from above (pf_hi) if a range may
 *     still reach it, from below (pf_lo) if it is older than any range
 *     can start (note 3's oldest kept cycle, which only grows).  The
 *     answers are those of counting the slots one by one, which the unit
 *     test does beside it.
 */
#ifndef HW_MODEL_CONCURRENCY_H
#define HW_MODEL_CONCURRENCY_H

#include <stdint.h>

#define CONC_RING   8192        /* cycles, power of two */
#define CONC_WAIT   4096        /* waiting ranges, power of two */
#define CONC_ISSUES 32768       /* issues kept, power of two */

struct conc_wait {
    uint64_t *useful;           /* where the count goes (the PC's oracle entry) */
    uint64_t fetch, retready;
};

struct concurrency {
    uint32_t slot[CONC_RING];           /* issues per cycle slot */
    uint32_t prefix[CONC_RING];         /* running sums of the slots (note 5), by cycle slot */
    uint64_t pf_lo, pf_hi;              /* prefix holds cycles [pf_lo, pf_hi] */
    uint64_t issue_cycle[CONC_ISSUES];  /* FIFO of the issues in the ring */
    uint64_t ihead, itail;
    struct conc_wait wait[CONC_WAIT];
    uint64_t head, tail;                /* FIFO of waiting ranges */
    uint64_t final_end;                 /* cycles below are final */
    uint64_t clipped;                   /* ranges cut short (note 3) */
};

void conc_init(struct concurrency *c);
/* A retired instruction fetched, issued and retire-ready at these cycles;
 * *useful gets the others issued in [fetch, retready] once final. */
void conc_note(struct concurrency *c, uint64_t fetch, uint64_t issue, uint64_t retready, uint64_t *useful);
/* Settles every waiting range (the end of the run). */
void conc_flush(struct concurrency *c);

#endif
