/*
 * ProfileMe accounting against the hardware model's oracle: every record
 * the model produced is stored (pme.samples), dropped with a reason (drops
 * agg_full, link_full and link_lost_pme; the model's own full-ring
 * losses), or was
 * still in the ring at exit (oracle pme_unread).  Pairs likewise: every
 * pair the firmware took is stored whole (two pair_records) or dropped
 * (pair_full, link_lost_pairs).
 *
 * Invariants: balanced means produced == stored + every drop + unread,
 * exactly (no tolerance); drops are read by the names of
 * firmware/abi/counter-names.def.
 */
#ifndef ALPHAPROF_UTIL_PME_ACCOUNT_H
#define ALPHAPROF_UTIL_PME_ACCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/error.h"
#include "util/oracle-file.h"
#include "util/profile-db.h"

struct pme_account {
    /* the model (oracle, all cores) */
    uint64_t produced, ring_dropped, unread;
    /* the database (the epoch asked for) */
    uint64_t stored;            /* sum of pme.samples */
    uint64_t agg_full, link_full, link_lost;
    uint64_t ring_overflow;     /* as the firmware reported it (counter rings too) */
    uint64_t pairs_taken;       /* the firmware's pairs_taken stat */
    uint64_t pairs, pair_records;
    uint64_t pair_full, half_pair, pairs_link_lost;
    /* produced == stored + agg_full + link_full + link_lost + ring_dropped + unread */
    bool balanced;
    /* pairs_taken == pairs + pair_full + pairs_link_lost, 2 records each */
    bool pairs_balanced;
};

/* epoch: > 0 that one, 0 the current one, < 0 all.  Returns 1 with *a
 * filled when the database or the oracle has ProfileMe records, 0 when
 * neither has any, -1 on a database error. */
int pme_account(struct pdb *db, int64_t epoch, const struct oracle *o, struct pme_account *a,
                struct ap_err *err);
void pme_account_print(FILE *f, const struct pme_account *a);
/* A JSON object (no trailing newline). */
void pme_account_json(FILE *f, const struct pme_account *a);

#endif
