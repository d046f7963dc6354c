/*
 * Tournament branch predictor after the Alpha 21264: a local predictor
 * (per-branch 10-bit histories indexing 3-bit counters), a global
 * predictor (2-bit counters indexed by 12 bits of global history) and a
 * chooser trained on which of the two was right.
 */
#ifndef HW_MODEL_BRANCH_PREDICTOR_H
#define HW_MODEL_BRANCH_PREDICTOR_H

#include <stdbool.h>
#include <stdint.h>

#define BP_LOCAL_HISTORIES  1024
#define BP_LOCAL_COUNTERS   1024
#define BP_GLOBAL_BITS      12
#define BP_GLOBAL_ENTRIES   (1u << BP_GLOBAL_BITS)

struct branch_predictor {
    uint16_t local_history[BP_LOCAL_HISTORIES];
    uint8_t local_counter[BP_LOCAL_COUNTERS];     /* 0..7, taken if >= 4 */
    uint8_t global_counter[BP_GLOBAL_ENTRIES];    /* 0..3, taken if >= 2 */
    uint8_t choice[BP_GLOBAL_ENTRIES];            /* 0..3, global if >= 2 */
    uint32_t global_history;                      /* newest outcome in bit 0 */
    uint64_t predictions, mispredictions;
};

void bp_init(struct branch_predictor *bp);
bool bp_predict(const struct branch_predictor *bp, uint64_t pc);
/* Trains on the outcome; returns whether the prediction was right. */
bool bp_update(struct branch_predictor *bp, uint64_t pc, bool taken);

#endif
