#include "hw-model/model/branch-predictor.h"

#include <string.h>

void bp_init(struct branch_predictor *bp)
{
    memset(bp, 0, sizeof *bp);
    memset(bp->local_counter, 3, sizeof bp->local_counter);   /* weakly not taken */
    memset(bp->global_counter, 1, sizeof bp->global_counter);
    memset(bp->choice, 1, sizeof bp->choice);
}

static unsigned local_slot(uint64_t pc) { return (unsigned)(pc >> 2) % BP_LOCAL_HISTORIES; }

bool bp_predict(const struct branch_predictor *bp, uint64_t pc)
{
    unsigned h = bp->local_history[local_slot(pc)] % BP_LOCAL_COUNTERS;
    unsigned g = bp->global_history % BP_GLOBAL_ENTRIES;
    bool local = bp->local_counter[h] >= 4, global = bp->global_counter[g] >= 2;
    return bp->choice[g] >= 2 ? global : local;
}

static void train(uint8_t *c, bool up, uint8_t max)
{
    if (up && *c < max)
        (*c)++;
    else if (!up && *c > 0)
        (*c)--;
}

bool bp_update(struct branch_predictor *bp, uint64_t pc, bool taken)
{
    unsigned slot = local_slot(pc);
    unsigned h = bp->local_history[slot] % BP_LOCAL_COUNTERS;
    unsigned g = bp->global_history % BP_GLOBAL_ENTRIES;
    bool local = bp->local_counter[h] >= 4, global = bp->global_counter[g] >= 2;
    bool predicted = bp->choice[g] >= 2 ? global : local;
    if (local != global)
        train(&bp->choice[g], global == taken, 3);
    train(&bp->local_counter[h], taken, 7);
    train(&bp->global_counter[g], taken, 3);
    bp->local_history[slot] = (uint16_t)((bp->local_history[slot] << 1 | taken) & 0x3ff);
    bp->global_history = (bp->global_history << 1 | taken) & (BP_GLOBAL_ENTRIES - 1);
    bp->predictions++;
    if (predicted != taken)
        bp->mispredictions++;
    return predicted == taken;
}
