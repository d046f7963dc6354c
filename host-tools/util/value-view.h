/*
 * Value profiles from the database (value_lists, value_counts: value
 * sampling's Gibbons-Matias hotlists summed over frames and cores): per
 * (instruction, value kind), the values with their estimated frequency
 * and a 95 % confidence interval.
 *
 * Estimates: a value's occurrences are estimated by the sum of count * tau
 * (unbiased; value-hotlist.h note 2) with variance the sum of
 * count * tau * (tau - 1); its share is that over the values offered,
 * which the board counts exactly.  The interval is the normal one,
 * share +- 1.96 sd, clipped to [0, 1], with the variance of the concise
 * sample and that of sampling executions (binomial over offered) added.
 *
 * Invariants: rows are sorted semi-invariants first (the lower end of the
 * top value's Wilson interval, descending, then offered, descending); each
 * row's values by estimate, descending.
 */
#ifndef ALPHAPROF_UTIL_VALUE_VIEW_H
#define ALPHAPROF_UTIL_VALUE_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/profile-db.h"
#include "util/profile-view.h"

struct vv_value {
    uint64_t value;
    uint64_t samples;           /* sampled occurrences (sum of counts) */
    double estimate;            /* occurrences */
    double share, ci_lo, ci_hi; /* of the offered values, 95 % interval */
};

struct vv_row {
    struct pv_image *img;
    uint64_t offset;
    unsigned kind;              /* VALUE_* (firmware/abi/value-capture.h) */
    const char *proc;           /* procedure name, or NULL */
    uint64_t offered;
    size_t nvalues;
    struct vv_value *values;
};

struct value_view {
    int64_t epoch;              /* selected (-1: all) */
    struct pv_image *images;
    size_t nimages;
    struct vv_row *rows;
    size_t nrows;
};

/* Reads the selection's value profiles of one kind (-1: every kind); proc
 * (or NULL) keeps the rows of that procedure only. */
int vv_load(struct pdb *db, const struct pv_selection *sel, int kind, const char *proc,
            struct value_view *v, struct ap_err *err);
void vv_free(struct value_view *v);

/* Load-latency bins of the hardware model (model_params_default): a
 * latency up to the middle of the L1 and L2 latencies is an L1 hit, up to
 * the middle of the L2 and memory latencies an L2 hit, beyond memory. */
enum vv_bin { VV_L1, VV_L2, VV_MEMORY, VV_NBINS };
enum vv_bin vv_latency_bin(uint64_t cycles);
const char *vv_bin_name(enum vv_bin b);

#endif
