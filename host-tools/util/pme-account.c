/* ProfileMe accounting against the oracle (see pme-account.h). */
#include "util/pme-account.h"

#include <inttypes.h>
#include <string.h>

static int query(struct pdb *db, const char *sql, int64_t epoch, uint64_t *out, struct ap_err *err)
{
    char text[512], where[64];
    if (epoch < 0)
        snprintf(where, sizeof where, "1");
    else
        snprintf(where, sizeof where, "epoch = %" PRId64, epoch);
    snprintf(text, sizeof text, sql, where);
    int64_t v = 0;
    if (pdb_query_int(db, text, &v, err) != 0)
        return -1;
    *out = v > 0 ? (uint64_t)v : 0;
    return 0;
}

static int drop(struct pdb *db, int64_t epoch, const char *reason, uint64_t *out, struct ap_err *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT coalesce(sum(count), 0) FROM drops WHERE %%s AND reason = '%s'", reason);
    return query(db, sql, epoch, out, err);
}

static int stat(struct pdb *db, int64_t epoch, const char *name, uint64_t *out, struct ap_err *err)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT coalesce(sum(value), 0) FROM stats WHERE %%s AND name = '%s'", name);
    return query(db, sql, epoch, out, err);
}

int pme_account(struct pdb *db, int64_t epoch, const struct oracle *o, struct pme_account *a,
                struct ap_err *err)
{
    memset(a, 0, sizeof *a);
    if (epoch == 0 && pdb_current_epoch(db, &epoch, err) != 0)
        return -1;
    for (uint32_t c = 0; c < o->h.ncores; c++) {
        a->produced += o->cores[c].pme_samples;
        a->ring_dropped += o->cores[c].pme_dropped;
        a->unread += o->cores[c].pme_unread;
    }
    if (query(db, "SELECT coalesce(sum(samples), 0) FROM pme WHERE %s", epoch, &a->stored, err) ||
        query(db, "SELECT count(*) FROM pairs WHERE %s", epoch, &a->pairs, err) ||
        query(db, "SELECT count(*) FROM pair_records WHERE pair IN (SELECT id FROM pairs WHERE %s)",
              epoch, &a->pair_records, err) ||
        stat(db, epoch, lk_stat_name(LK_STAT_PAIRS_TAKEN), &a->pairs_taken, err) ||
        drop(db, epoch, lk_drop_name(LK_DROP_AGG_FULL), &a->agg_full, err) ||
        drop(db, epoch, lk_host_drop_name(LK_HOST_DROP_LINK_LOST_PME), &a->link_lost, err) ||
        drop(db, epoch, lk_drop_name(LK_DROP_LINK_FULL), &a->link_full, err) ||
        drop(db, epoch, lk_drop_name(LK_DROP_RING_OVERFLOW), &a->ring_overflow, err) ||
        drop(db, epoch, lk_drop_name(LK_DROP_PAIR_FULL), &a->pair_full, err) ||
        drop(db, epoch, lk_drop_name(LK_DROP_HALF_PAIR), &a->half_pair, err) ||
        drop(db, epoch, lk_host_drop_name(LK_HOST_DROP_LINK_LOST_PAIRS), &a->pairs_link_lost, err))
        return -1;
    a->balanced = a->produced == a->stored + a->agg_full + a->link_full + a->link_lost + a->ring_dropped +
                                 a->unread;
    a->pairs_balanced = a->pairs_taken == a->pairs + a->pair_full + a->pairs_link_lost &&
                        a->pair_records == 2 * a->pairs;
    return a->produced || a->stored || a->pairs ? 1 : 0;
}

void pme_account_print(FILE *f, const struct pme_account *a)
{
    fprintf(f, "ProfileMe: the model produced %" PRIu64 " records: %" PRIu64 " stored, %" PRIu64
            " dropped (%" PRIu64 " aggregate table full, %" PRIu64 " unsent: link full, %" PRIu64
            " lost on the link),\n"
            "  %" PRIu64 " lost in full rings, %" PRIu64 " still in the rings at exit: %s\n",
            a->produced, a->stored, a->agg_full + a->link_full + a->link_lost, a->agg_full, a->link_full,
            a->link_lost,
            a->ring_dropped, a->unread,
            a->balanced ? "all accounted for" : "NOT all accounted for");
    if (a->pairs_taken || a->pairs)
        fprintf(f, "  pairs: %" PRIu64 " taken, %" PRIu64 " stored whole (%" PRIu64 " records), %" PRIu64
                " dropped (%" PRIu64 " buffer full, %" PRIu64 " lost on the link), %" PRIu64
                " halves without a partner: %s\n",
                a->pairs_taken, a->pairs, a->pair_records, a->pair_full + a->pairs_link_lost,
                a->pair_full, a->pairs_link_lost, a->half_pair,
                a->pairs_balanced ? "all accounted for" : "NOT all accounted for");
}

void pme_account_json(FILE *f, const struct pme_account *a)
{
    fprintf(f, "{\"produced\": %" PRIu64 ", \"stored\": %" PRIu64 ", \"agg_full\": %" PRIu64
            ", \"link_full\": %" PRIu64 ", \"link_lost\": %" PRIu64 ", \"ring_dropped\": %" PRIu64 ", \"ring_overflow_reported\": %" PRIu64
            ", \"unread\": %" PRIu64 ", \"balanced\": %s, \"pairs_taken\": %" PRIu64 ", \"pairs\": %" PRIu64
            ", \"pair_records\": %" PRIu64 ", \"pair_full\": %" PRIu64 ", \"half_pair\": %" PRIu64
            ", \"pairs_link_lost\": %" PRIu64 ", \"pairs_balanced\": %s}",
            a->produced, a->stored, a->agg_full, a->link_full, a->link_lost, a->ring_dropped, a->ring_overflow,
            a->unread, a->balanced ? "true" : "false", a->pairs_taken, a->pairs, a->pair_records,
            a->pair_full, a->half_pair, a->pairs_link_lost, a->pairs_balanced ? "true" : "false");
}
