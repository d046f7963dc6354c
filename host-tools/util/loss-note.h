/*
 * The one-line warning report, annotate and check print before their
 * table when the profile is not the whole truth: more than LOSS_NOTE_PCT
 * percent of the samples the target took were lost (dropped with a
 * reason: overflow buffers, link, ring...) or are in no image.  Losses
 * are not uniform (frames full of distinct PCs are the likeliest to go),
 * so shares may be biased: the user has to know.
 *
 * Samples only: frame counts (link_bad_frames, link_lost_frames,
 * link_malformed_frames) are frames, never added to sample drops.
 */
#ifndef ALPHAPROF_UTIL_LOSS_NOTE_H
#define ALPHAPROF_UTIL_LOSS_NOTE_H

#include <stdint.h>
#include <stdio.h>

#include "util/profile-db.h"

#define LOSS_NOTE_PCT 1.0

struct loss_totals {
    uint64_t stored;            /* samples (timer/counter and ProfileMe) in the database */
    uint64_t lost;              /* samples counted as dropped */
    uint64_t unknown;           /* stored samples in no image */
};

/* Totals of an epoch (-1: every epoch); 0 or -1 on a database error. */
int loss_totals(struct pdb *db, int64_t epoch, struct loss_totals *t);
/* Prints "CMD: warning: ..." to out when a threshold is passed; 1 if it did. */
int loss_note(struct pdb *db, int64_t epoch, const char *cmd, FILE *out);

#endif
