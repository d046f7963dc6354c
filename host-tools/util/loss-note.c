/*
 * The lost-samples warning (see loss-note.h).
 */
#include "util/loss-note.h"

#include <inttypes.h>

/* Drop reasons that count frames, not samples (util/ingest.c). */
#define FRAME_REASONS "('link_bad_frames', 'link_lost_frames', 'link_malformed_frames')"

static uint64_t query(struct pdb *db, const char *fmt, int64_t epoch, int *failed)
{
    char sql[512], where[64] = "1";
    if (epoch >= 0)
        snprintf(where, sizeof where, "epoch = %" PRId64, epoch);
    snprintf(sql, sizeof sql, fmt, where);
    int64_t v = 0;
    struct ap_err err;
    if (pdb_query_int(db, sql, &v, &err) != 0)
        *failed = 1;
    return v > 0 ? (uint64_t)v : 0;
}

int loss_totals(struct pdb *db, int64_t epoch, struct loss_totals *t)
{
    int failed = 0;
    t->stored = query(db, "SELECT coalesce(sum(count), 0) FROM samples WHERE %s", epoch, &failed) +
                query(db, "SELECT coalesce(sum(samples), 0) FROM pme WHERE %s", epoch, &failed);
    t->unknown = query(db, "SELECT coalesce(sum(count), 0) FROM samples WHERE image = 0 AND %s", epoch,
                       &failed) +
                 query(db, "SELECT coalesce(sum(samples), 0) FROM pme WHERE image = 0 AND %s", epoch,
                       &failed);
    t->lost = query(db, "SELECT coalesce(sum(count), 0) FROM drops WHERE reason NOT IN "
                    FRAME_REASONS " AND %s", epoch, &failed);
    return failed ? -1 : 0;
}

int loss_note(struct pdb *db, int64_t epoch, const char *cmd, FILE *out)
{
    struct loss_totals t;
    if (loss_totals(db, epoch, &t) != 0)
        return 0;
    uint64_t taken = t.stored + t.lost;
    double lost_pct = taken ? 100.0 * (double)t.lost / (double)taken : 0;
    double unknown_pct = t.stored ? 100.0 * (double)t.unknown / (double)t.stored : 0;
    int lost = lost_pct > LOSS_NOTE_PCT, unknown = unknown_pct > LOSS_NOTE_PCT;
    if (!lost && !unknown)
        return 0;
    fprintf(out, "%s: warning:", cmd);
    if (lost)
        fprintf(out, " %" PRIu64 " of %" PRIu64 " samples taken (%.1f%%) were lost (see alphaprof "
                "stats), so shares may be biased%s", t.lost, taken, lost_pct, unknown ? ";" : "");
    if (unknown)
        fprintf(out, " %" PRIu64 " of %" PRIu64 " samples stored (%.1f%%) are in no image", t.unknown,
                t.stored, unknown_pct);
    fprintf(out, "\n");
    return 1;
}
