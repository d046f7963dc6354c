/*
 * How accurate are the value profiles?  The value oracle (the model's
 * exact loaded values per load PC, hw-model/oracle-format.h PATH.values)
 * against the database's value profiles of loads (kind result):
 *
 *   top_value_recall      of the loads whose true top value covers at
 *                         least 10 % of their executions (and with at
 *                         least min_offered values sampled), the share
 *                         whose profile ranks that value first;
 *   top_value_freq_error  the mean over the same loads of |estimated share
 *                         - true share| of the true top value, in points.
 *
 * Invariants: loads the profile has but the oracle lacks are counted
 * (not_in_oracle), never silently skipped; so are loads with too few
 * samples (too_few) and those without a dominant value (no_top).
 */
#ifndef ALPHAPROF_UTIL_VALUE_ACCURACY_H
#define ALPHAPROF_UTIL_VALUE_ACCURACY_H

#include <stddef.h>
#include <stdint.h>

#include "hw-model/oracle-format.h"
#include "util/error.h"
#include "util/value-view.h"

struct value_oracle {
    struct oracle_values_header h;
    struct oracle_value_pc *pcs;        /* sorted by pc */
};

/* Reads oracle_path + ".values"; 0, or -1 with err (one line). */
int value_oracle_read(const char *oracle_path, struct value_oracle *vo, struct ap_err *err);
void value_oracle_free(struct value_oracle *vo);
const struct oracle_value_pc *value_oracle_find(const struct value_oracle *vo, uint64_t pc);

#define VALUE_TOP_MIN_SHARE 0.10

struct value_check_row {
    const struct vv_row *row;
    uint64_t true_value;
    double true_share, est_share;
    int hit;                            /* ranked first */
};

struct value_accuracy {
    size_t checked, hits, too_few, no_top, not_in_oracle;
    double recall, freq_error;          /* freq_error in points (0..100) */
    struct value_check_row *rows;       /* the checked loads, worst error first */
};

int value_accuracy(const struct value_view *v, const struct value_oracle *vo, uint64_t min_offered,
                   struct value_accuracy *out);
void value_accuracy_free(struct value_accuracy *a);

#endif
