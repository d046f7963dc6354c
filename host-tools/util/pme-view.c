/*
 * Loading the ProfileMe view.  Invariants after pme_view_load: insns sorted
 * by (image index, offset) with distinct keys; every pme row of the
 * selection is in exactly one insn; every pair record whose image is in
 * the view is analysed into its insn's pair sums.
 */
#include "util/pme-view.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/pmu-window.h"
#include "util/strvec.h"

static int sql_fail(sqlite3 *db, struct ap_err *err)
{
    return ap_err_set(err, "reading the ProfileMe tables of the profile database: %s", sqlite3_errmsg(db));
}

/* ?1 epoch (-1 all), ?2 core (-1 all), ?3 image name (when selected). */
static void bind_selection(sqlite3_stmt *st, const struct pv_selection *sel, int64_t epoch)
{
    sqlite3_bind_int64(st, 1, epoch);
    sqlite3_bind_int(st, 2, sel->core);
    if (sel->image)
        sqlite3_bind_text(st, 3, sel->image, -1, SQLITE_STATIC);
}

static const char *image_filter(const struct pv_selection *sel, const char *col)
{
    static char buf[128];
    if (!sel->image)
        return "";
    snprintf(buf, sizeof buf, " AND %s IN (SELECT id FROM images WHERE name = ?3)", col);
    return buf;
}

static int load_names(sqlite3 *db, struct pme_view *v, struct ap_err *err)
{
    static const char *const bit_names[] = {PME_EVENT_BIT_NAMES};
    static const char *const lat_names[] = {PME_LATENCY_NAMES};
    for (size_t i = 0; i < LK_MAX_BITS; i++)
        snprintf(v->bit_names[i], sizeof v->bit_names[i], "%s", i < PME_EVB_COUNT ? bit_names[i] : "");
    for (size_t i = 0; i < LK_MAX_LAT; i++)
        snprintf(v->lat_names[i], sizeof v->lat_names[i], "%s", i < PME_LAT_COUNT ? lat_names[i] : "");
    v->nbits = PME_EVB_COUNT;
    v->nlat = PME_LAT_COUNT;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT kind, idx, name FROM names WHERE kind IN (?1, ?2)", -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    sqlite3_bind_text(st, 1, PDB_NAMES_PME_BIT, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, PDB_NAMES_PME_LAT, -1, SQLITE_STATIC);
    int rc = 0;
    while (!rc && sqlite3_step(st) == SQLITE_ROW) {
        bool lat = !strcmp((const char *)sqlite3_column_text(st, 0), PDB_NAMES_PME_LAT);
        int64_t idx = sqlite3_column_int64(st, 1);
        const char *name = (const char *)sqlite3_column_text(st, 2);
        if (idx < 0 || idx >= (lat ? LK_MAX_LAT : LK_MAX_BITS))
            continue;
        if (lat && idx < PME_LAT_COUNT && strcmp(name, lat_names[idx]) != 0) {
            rc = ap_err_set(err, "the database names ProfileMe latency field %lld '%s' where this build has '%s': "
                            "it was recorded by a different hardware model; analyse it with that build",
                            (long long)idx, name, lat_names[idx]);
            break;
        }
        char *dst = lat ? v->lat_names[idx] : v->bit_names[idx];
        snprintf(dst, 32, "%s", name);
        size_t *n = lat ? &v->nlat : &v->nbits;
        if ((size_t)idx + 1 > *n)
            *n = (size_t)idx + 1;
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < LK_MAX_BITS; i++)
        if (!v->bit_names[i][0])
            snprintf(v->bit_names[i], sizeof v->bit_names[i], "bit%zu", i);
    for (size_t i = 0; i < LK_MAX_LAT; i++)
        if (!v->lat_names[i][0])
            snprintf(v->lat_names[i], sizeof v->lat_names[i], "latency%zu", i);
    return rc;
}

static int load_images(sqlite3 *db, const struct pv_selection *sel, struct pme_view *v, struct ap_err *err)
{
    char sql[1024];
    char f1[128], f2[128];
    snprintf(f1, sizeof f1, "%s", image_filter(sel, "image"));
    snprintf(f2, sizeof f2, "%s", image_filter(sel, "r.image"));
    snprintf(sql, sizeof sql,
             "SELECT s.image, coalesce(i.name, '[unknown]'), i.path, "
             "       (SELECT address FROM loadmaps l WHERE l.image = s.image ORDER BY session DESC LIMIT 1), "
             "       i.build_id "
             "FROM (SELECT image FROM pme WHERE (?1 < 0 OR epoch = ?1) AND (?2 < 0 OR core = ?2)%s "
             "      UNION SELECT r.image FROM pair_records r JOIN pairs p ON p.id = r.pair "
             "      WHERE (?1 < 0 OR p.epoch = ?1) AND (?2 < 0 OR p.core = ?2)%s) s "
             "LEFT JOIN images i ON i.id = s.image ORDER BY s.image", f1, f2);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch);
    return pv_read_images(db, st, &v->images, &v->nimages, err);
}

static int key_cmp(const struct pv_image *ia, uint64_t oa, const struct pv_image *ib, uint64_t ob)
{
    if (ia != ib)
        return ia < ib ? -1 : 1;
    return oa < ob ? -1 : oa > ob;
}

/* The insn of (img, offset), added in order if new. */
/* The first instruction not before (img, offset) in the sorted insns. */
static size_t lower_bound(const struct pme_view *v, const struct pv_image *img, uint64_t offset)
{
    size_t lo = 0, hi = v->ninsns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(v->insns[mid].img, v->insns[mid].offset, img, offset) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct pme_insn *insn_at(struct pme_view *v, size_t *cap, struct pv_image *img, uint64_t offset)
{
    size_t lo = lower_bound(v, img, offset);
    if (lo < v->ninsns && key_cmp(v->insns[lo].img, v->insns[lo].offset, img, offset) == 0)
        return &v->insns[lo];
    if (v->ninsns == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        v->insns = xrealloc(v->insns, *cap * sizeof *v->insns);
    }
    memmove(&v->insns[lo + 1], &v->insns[lo], (v->ninsns - lo) * sizeof *v->insns);
    v->ninsns++;
    struct pme_insn *in = &v->insns[lo];
    memset(in, 0, sizeof *in);
    in->img = img;
    in->offset = offset;
    return in;
}

/* kind 0: pme, 1: pme_bits, 2: pme_latency */
static int load_rows(sqlite3 *db, const struct pv_selection *sel, struct pme_view *v, size_t *cap, int kind,
                     struct ap_err *err)
{
    static const char *const queries[] = {
        "SELECT image, offset, 0, sum(samples), sum(retired), sum(aborted) FROM pme",
        "SELECT image, offset, bit, sum(count), 0, 0 FROM pme_bits",
        "SELECT image, offset, field, sum(sum), 0, 0 FROM pme_latency",
    };
    static const char *const group[] = {"image, offset", "image, offset, bit", "image, offset, field"};
    char sql[512];
    snprintf(sql, sizeof sql, "%s WHERE (?1 < 0 OR epoch = ?1) AND (?2 < 0 OR core = ?2)%s GROUP BY %s ORDER BY image, offset",
             queries[kind], image_filter(sel, "image"), group[kind]);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct pv_image *img = pv_image_by_id(v->images, v->nimages, sqlite3_column_int64(st, 0));
        int64_t idx = sqlite3_column_int64(st, 2);
        int64_t a = sqlite3_column_int64(st, 3), b = sqlite3_column_int64(st, 4), c = sqlite3_column_int64(st, 5);
        if (!img)
            continue;
        if (a < 0 || b < 0 || c < 0 || (kind == 0 && b + c > a)) {
            sqlite3_finalize(st);
            return ap_err_set(err, "the ProfileMe tables hold impossible counts (negative, or more retired and "
                              "aborted than samples): the database is damaged");
        }
        struct pme_insn *in = insn_at(v, cap, img, (uint64_t)sqlite3_column_int64(st, 1));
        if (kind == 0) {
            in->samples += (uint64_t)a;
            in->retired += (uint64_t)b;
            in->aborted += (uint64_t)c;
            v->samples += (uint64_t)a;
            v->retired += (uint64_t)b;
            v->aborted += (uint64_t)c;
        } else if (kind == 1 && idx >= 0 && idx < LK_MAX_BITS) {
            in->bits[idx] += (uint64_t)a;
            if ((size_t)idx + 1 > v->nbits)
                v->nbits = (size_t)idx + 1;
        } else if (kind == 2 && idx >= 0 && idx < LK_MAX_LAT) {
            in->lat[idx] += (uint64_t)a;
            if ((size_t)idx + 1 > v->nlat)
                v->nlat = (size_t)idx + 1;
        }
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sql_fail(db, err);
}

/* "[1,2,3]" into lat; false if it is not such a list. */
static bool parse_latencies(const char *s, uint64_t *lat, size_t *n)
{
    *n = 0;
    if (!s || *s++ != '[')
        return false;
    while (*s == ' ')
        s++;
    if (*s == ']')
        return true;
    for (;;) {
        char *end;
        if (*s < '0' || *s > '9')
            return false;
        unsigned long long x = strtoull(s, &end, 10);
        if (*n < LK_MAX_LAT)
            lat[(*n)++] = x;
        s = end;
        while (*s == ' ')
            s++;
        if (*s == ']')
            return true;
        if (*s++ != ',')
            return false;
        while (*s == ' ')
            s++;
    }
}

static int load_pairs(sqlite3 *db, const struct pv_selection *sel, struct pme_view *v, size_t *cap,
                      struct ap_err *err)
{
    int retired_bit = pme_bit_index(v, "retired");
    if (retired_bit < 0)
        retired_bit = PME_EVB_RETIRED;
    sqlite3_stmt *st;
    /* pairs.weight since schema 9; a file read as it is may be older (its pairs stand for one each) */
    bool weighted = sqlite3_table_column_metadata(db, NULL, "pairs", "weight", NULL, NULL, NULL, NULL, NULL) ==
                    SQLITE_OK;
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT p.id, p.distance, p.gap, r.slot, r.image, r.offset, r.events, r.latencies, r.addr, %s "
             "FROM pairs p JOIN pair_records r ON r.pair = p.id "
             "WHERE (?1 < 0 OR p.epoch = ?1) AND (?2 < 0 OR p.core = ?2) ORDER BY p.id, r.slot",
             weighted ? "p.weight" : "1.0");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch);
    int rc;
    int64_t cur = -1;
    int have = 0;
    struct pme_pair_obs obs;
    struct pv_image *img[2] = {NULL, NULL};
    uint64_t off[2] = {0, 0};
    uint32_t raw_events[2] = {0, 0}, raw_lat[2][PME_LAT_COUNT];
    uint64_t raw_addr[2] = {0, 0};
    size_t raw_cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        int64_t slot = sqlite3_column_int64(st, 3);
        if (id != cur) {
            cur = id;
            have = 0;
            memset(&obs, 0, sizeof obs);
        }
        int64_t distance = sqlite3_column_int64(st, 1), gap = sqlite3_column_int64(st, 2);
        double weight = sqlite3_column_double(st, 9);
        uint64_t lat[LK_MAX_LAT];
        size_t nlat;
        if (slot < 0 || slot > 1 || distance < 0 || gap < 0 || !(weight >= 1) || !(weight < 1e12) ||
            !parse_latencies((const char *)sqlite3_column_text(st, 7), lat, &nlat)) {
            sqlite3_finalize(st);
            return ap_err_set(err, "paired sample %lld is malformed (slot, distance, gap, weight or latencies): "
                              "the database is damaged", (long long)id);
        }
        uint64_t events = (uint64_t)sqlite3_column_int64(st, 6);
        raw_events[slot] = (uint32_t)events;
        raw_addr[slot] = (uint64_t)sqlite3_column_int64(st, 8);
        for (size_t f = 0; f < PME_LAT_COUNT; f++)
            raw_lat[slot][f] = f < nlat ? (uint32_t)(lat[f] > UINT32_MAX ? UINT32_MAX : lat[f]) : 0;
        obs.distance = (double)distance;
        pme_times_from_latencies(lat, nlat, (events >> retired_bit) & 1, &obs.rec[slot]);
        img[slot] = pv_image_by_id(v->images, v->nimages, sqlite3_column_int64(st, 4));
        off[slot] = (uint64_t)sqlite3_column_int64(st, 5);
        have |= 1 << slot;
        if (have != 3)
            continue;
        have = 0;
        struct pme_pair_effect e[2];
        pme_pair_analyse(&obs, v->ipc_window, e);
        if (v->nraw == raw_cap) {
            raw_cap = raw_cap ? 2 * raw_cap : 1024;
            v->raw = xrealloc(v->raw, raw_cap * sizeof *v->raw);
        }
        struct pme_pair_raw *pr = &v->raw[v->nraw++];
        pr->distance = (double)distance;
        pr->weight = weight;
        pr->gap = gap > UINT32_MAX ? UINT32_MAX : (uint32_t)gap;
        for (int k = 0; k < 2; k++) {
            pr->rec[k].img = img[k];
            pr->rec[k].offset = off[k];
            pr->rec[k].events = raw_events[k];
            pr->rec[k].addr = raw_addr[k];
            memcpy(pr->rec[k].lat, raw_lat[k], sizeof raw_lat[k]);
        }
        v->npairs++;
        if ((uint64_t)gap > v->max_gap)
            v->max_gap = (uint64_t)gap;
        for (int k = 0; k < 2; k++)     /* images outside the selection are partners only */
            if (img[k])
                pme_pair_acc_add(&insn_at(v, cap, img[k], off[k])->pair, k, &e[k]);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sql_fail(db, err);
}

static double sum_of(sqlite3 *db, const char *sql, const struct pv_selection *sel, int64_t epoch)
{
    sqlite3_stmt *st;
    double x = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(st, 1, epoch);
    sqlite3_bind_int(st, 2, sel->core);
    if (sqlite3_step(st) == SQLITE_ROW)
        x = sqlite3_column_double(st, 0);
    sqlite3_finalize(st);
    return x;
}

/*
 * Records lost between the unit and the database: agg_full and
 * link_lost_pme, and the hardware ring's overflows when no counter sampled
 * in the epoch (the firmware's ring_overflow counts both kinds of ring).
 * Pairs: of the pairs the firmware took (pairs_taken) only npairs were
 * stored, and ring overflows lost pairs as they lost records.
 */
static void loss_factors(sqlite3 *db, const struct pv_selection *sel, struct pme_view *v)
{
    static const char drops[] = "SELECT coalesce(sum(count), 0) FROM drops WHERE (?1 < 0 OR epoch = ?1) "
                                "AND (?2 < 0 OR core = ?2) AND reason = ";
    char sql[256];
    snprintf(sql, sizeof sql, "%s'%s'", drops, lk_drop_name(LK_DROP_AGG_FULL));
    double agg_full = sum_of(db, sql, sel, v->epoch);
    snprintf(sql, sizeof sql, "%s'%s'", drops, lk_host_drop_name(LK_HOST_DROP_LINK_LOST_PME));
    double link = sum_of(db, sql, sel, v->epoch);
    snprintf(sql, sizeof sql, "%s'%s'", drops, lk_drop_name(LK_DROP_PAIR_FULL));
    v->pair_full = sum_of(db, sql, sel, v->epoch);
    snprintf(sql, sizeof sql, "%s'%s'", drops, lk_drop_name(LK_DROP_RING_OVERFLOW));
    double ring = sum_of(db, sql, sel, v->epoch);
    if (sum_of(db, "SELECT count(*) FROM samples WHERE (?1 < 0 OR epoch = ?1) AND (?2 < 0 OR core = ?2)", sel,
               v->epoch) > 0)
        ring = 0;
    double stored = (double)v->samples;
    v->record_loss_factor = stored > 0 ? (stored + agg_full + link + ring) / stored : 1;
    static const char stats[] = "SELECT coalesce(sum(value), 0) FROM stats WHERE (?1 < 0 OR epoch = ?1) "
                                "AND (?2 < 0 OR core = ?2) AND name = ";
    snprintf(sql, sizeof sql, "%s'%s'", stats, lk_stat_name(LK_STAT_PAIRS_TAKEN));
    double taken = sum_of(db, sql, sel, v->epoch);
    snprintf(sql, sizeof sql, "%s'%s'", stats, lk_stat_name(LK_STAT_PME_TAKEN));
    double records_taken = sum_of(db, sql, sel, v->epoch);
    double np = (double)v->npairs;
    v->pair_loss_factor = 1;
    if (np > 0) {
        if (taken < np)
            taken = np;
        if (records_taken <= 0)
            records_taken = stored;
        v->pair_loss_factor = taken / np * (records_taken > 0 ? (records_taken + ring) / records_taken : 1);
    }
}

int pme_view_load(struct pdb *db, const struct pv_selection *sel, double ipc_window, struct pme_view *v,
                  struct ap_err *err)
{
    memset(v, 0, sizeof *v);
    v->epoch = sel->epoch;
    v->ipc_window = ipc_window;
    if (v->epoch == 0 && pdb_current_epoch(db, &v->epoch, err) != 0)
        return -1;
    sqlite3 *s = pdb_sqlite(db);
    size_t cap = 0;
    if (load_names(s, v, err) || load_images(s, sel, v, err) || load_rows(s, sel, v, &cap, 0, err) ||
        load_rows(s, sel, v, &cap, 1, err) || load_rows(s, sel, v, &cap, 2, err) ||
        load_pairs(s, sel, v, &cap, err)) {
        pme_view_free(v);
        return -1;
    }
    v->nominal_interval = pdb_mean_period(db, v->epoch, PDB_PERIOD_PME);
    v->nominal_pair_interval = pdb_mean_period(db, v->epoch, PDB_PERIOD_PME_PAIR);
    loss_factors(s, sel, v);
    v->interval = v->nominal_interval * v->record_loss_factor;
    v->pair_interval = v->nominal_pair_interval * v->pair_loss_factor;
    v->window = pdb_mean_period(db, v->epoch, PDB_PERIOD_PME_WINDOW);
    v->nominal_time_interval = pdb_mean_period(db, v->epoch, PDB_PERIOD_PME_CYCLES);
    v->time_interval = v->nominal_time_interval * v->pair_loss_factor;
    if (!v->window && v->npairs && !v->time_interval) {
        v->window = pme_window_estimate(v->max_gap, v->npairs);
        v->window_estimated = true;
    }
    return 0;
}

void pme_view_free(struct pme_view *v)
{
    pv_free_images(v->images, v->nimages);
    free(v->insns);
    free(v->raw);
    memset(v, 0, sizeof *v);
}

int pme_bit_index(const struct pme_view *v, const char *name)
{
    for (size_t i = 0; i < v->nbits && i < LK_MAX_BITS; i++)
        if (!strcmp(v->bit_names[i], name))
            return (int)i;
    return -1;
}

uint64_t pme_insn_pc(const struct pme_insn *in)
{
    return in->img->id == PDB_IMAGE_UNKNOWN ? in->offset : in->img->address + in->offset;
}

const struct pme_insn *pme_view_find(const struct pme_view *v, const struct pv_image *img, uint64_t offset)
{
    size_t lo = lower_bound(v, img, offset);
    if (lo < v->ninsns && key_cmp(v->insns[lo].img, v->insns[lo].offset, img, offset) == 0)
        return &v->insns[lo];
    return NULL;
}
