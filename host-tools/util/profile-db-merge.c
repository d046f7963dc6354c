/*
 * Merges of the profile database (interface: profile-db.h): samples,
 * periods, ProfileMe aggregates, drops and stats are summed in an
 * open-addressing map in memory, paired samples queued, and pdb_commit
 * writes them all as sorted UPSERTs in one transaction.
 *
 * Invariants:
 *   1. A merge is either pending here or on disk, never both and never
 *      lost: a failed commit rolls back and keeps every merge pending.
 *   2. Each (table, key) has one pending row; adding to it sums (periods:
 *      the last one wins), exactly as the UPSERT sums on disk.
 *   3. Drop reasons and stat names are interned: a row's key holds the
 *      name's index in strs, written as the name itself.
 */
#include "util/profile-db-internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/json-out.h"
#include "util/strvec.h"

/* What a pending merge row goes to. */
enum mtab { M_SAMPLES, M_PERIOD, M_PME, M_PME_BIT, M_PME_LAT, M_DROP, M_STAT, M_VLIST, M_VALUE, M_NTAB };

struct mrow {
    int64_t k[5];               /* the table's key columns, in order */
    int64_t v[3];
    uint8_t tab;
    bool used;
};

struct mmap {
    struct mrow *slots;
    size_t cap, n;
};

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

static uint64_t mrow_hash(uint8_t tab, const int64_t k[5])
{
    uint64_t h = tab;
    for (int i = 0; i < 5; i++)
        h = mix(h, (uint64_t)k[i]);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

static bool mrow_is(const struct mrow *r, uint8_t tab, const int64_t k[5])
{
    return r->tab == tab && r->k[0] == k[0] && r->k[1] == k[1] && r->k[2] == k[2] &&
           r->k[3] == k[3] && r->k[4] == k[4];
}

static void mmap_grow(struct mmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 4096;
    struct mrow *slots = calloc(cap, sizeof *slots);
    if (!slots) {
        fprintf(stderr, "alphaprof: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < m->cap; i++) {
        struct mrow *r = &m->slots[i];
        if (!r->used)
            continue;
        size_t j = mrow_hash(r->tab, r->k) & (cap - 1);
        while (slots[j].used)
            j = (j + 1) & (cap - 1);
        slots[j] = *r;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
}

/* The row for (tab, k), created zeroed if new. */
static struct mrow *mmap_get(struct mmap *m, uint8_t tab, const int64_t k[5])
{
    if ((m->n + 1) * 2 > m->cap)
        mmap_grow(m);
    size_t j = mrow_hash(tab, k) & (m->cap - 1);
    while (m->slots[j].used) {
        if (mrow_is(&m->slots[j], tab, k))
            return &m->slots[j];
        j = (j + 1) & (m->cap - 1);
    }
    struct mrow *r = &m->slots[j];
    memset(r, 0, sizeof *r);
    r->used = true;
    r->tab = tab;
    memcpy(r->k, k, sizeof r->k);
    m->n++;
    return r;
}

static void mmap_clear(struct mmap *m)
{
    if (m->n)
        memset(m->slots, 0, m->cap * sizeof *m->slots);
    m->n = 0;
}

struct pending_pair {
    int64_t epoch, session;
    int32_t core;
    uint64_t distance, gap;
    double weight;
    struct {
        int64_t image;
        uint64_t offset, events, addr, history;
        char lat[LK_MAX_LAT * 21 + 3];  /* JSON array */
    } rec[2];
};

struct pdb_merge {
    sqlite3_stmt *upsert[M_NTAB];
    sqlite3_stmt *ins_pair, *ins_pair_rec;
    struct mmap map;
    struct pending_pair *pairs;
    size_t npairs, cap_pairs;
    char **strs;                /* interned drop reasons and stat names */
    size_t nstrs;
};

static int prepare(struct pdb *db, const char *sql, sqlite3_stmt **st, struct ap_err *err)
{
    if (sqlite3_prepare_v3(db->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK)
        return pdb_sql_err(db, err, "preparing a statement");
    return 0;
}

static const char *const upsert_sql[M_NTAB] = {
    [M_SAMPLES] = "INSERT INTO samples(epoch,image,event,core,offset,count) VALUES(?1,?2,?3,?4,?5,?6)"
                  " ON CONFLICT DO UPDATE SET count = count + excluded.count",
    [M_PERIOD] = "INSERT INTO periods(epoch,event,core,period) VALUES(?1,?2,?3,?6)"
                 " ON CONFLICT DO UPDATE SET period = excluded.period",
    [M_PME] = "INSERT INTO pme(epoch,image,core,offset,samples,retired,aborted)"
              " VALUES(?1,?2,?3,?4,?6,?7,?8) ON CONFLICT DO UPDATE SET"
              " samples = samples + excluded.samples, retired = retired + excluded.retired,"
              " aborted = aborted + excluded.aborted",
    [M_PME_BIT] = "INSERT INTO pme_bits(epoch,image,core,offset,bit,count) VALUES(?1,?2,?3,?4,?5,?6)"
                  " ON CONFLICT DO UPDATE SET count = count + excluded.count",
    [M_PME_LAT] = "INSERT INTO pme_latency(epoch,image,core,offset,field,sum) VALUES(?1,?2,?3,?4,?5,?6)"
                  " ON CONFLICT DO UPDATE SET sum = sum + excluded.sum",
    [M_DROP] = "INSERT INTO drops(epoch,core,reason,count) VALUES(?1,?2,?3,?6)"
               " ON CONFLICT DO UPDATE SET count = count + excluded.count",
    [M_STAT] = "INSERT INTO stats(epoch,core,name,value) VALUES(?1,?2,?3,?6)"
               " ON CONFLICT DO UPDATE SET value = value + excluded.value",
    [M_VLIST] = "INSERT INTO value_lists(epoch,image,core,offset,kind,offered,hotlists)"
                " VALUES(?1,?2,?3,?4,?5,?6,?7) ON CONFLICT DO UPDATE SET"
                " offered = offered + excluded.offered, hotlists = hotlists + excluded.hotlists",
    /* key columns packed to five: ?4 is core << 8 | kind */
    [M_VALUE] = "INSERT INTO value_counts(epoch,image,core,offset,kind,value,samples,estimate,variance)"
                " VALUES(?1,?2,?4 >> 8,?3,?4 & 255,?5,?6,?7,?8) ON CONFLICT DO UPDATE SET"
                " samples = samples + excluded.samples, estimate = estimate + excluded.estimate,"
                " variance = variance + excluded.variance",
};

int pdb_merge_open(struct pdb *db, struct ap_err *err)
{
    struct pdb_merge *m = calloc(1, sizeof *m);
    if (!m)
        return ap_err_set(err, "out of memory");
    db->merge = m;
    for (int t = 0; t < M_NTAB; t++)
        if (prepare(db, upsert_sql[t], &m->upsert[t], err) != 0)
            return -1;
    if (prepare(db, "INSERT INTO pairs(epoch,session,core,distance,gap,weight) VALUES(?,?,?,?,?,?)",
                &m->ins_pair, err) != 0)
        return -1;
    return prepare(db, "INSERT INTO pair_records(pair,slot,image,offset,events,addr,history,latencies)"
                       " VALUES(?,?,?,?,?,?,?,?)", &m->ins_pair_rec, err);
}

void pdb_merge_close(struct pdb *db)
{
    struct pdb_merge *m = db->merge;
    if (!m)
        return;
    for (int t = 0; t < M_NTAB; t++)
        sqlite3_finalize(m->upsert[t]);
    sqlite3_finalize(m->ins_pair);
    sqlite3_finalize(m->ins_pair_rec);
    free(m->map.slots);
    free(m->pairs);
    for (size_t i = 0; i < m->nstrs; i++)
        free(m->strs[i]);
    free(m->strs);
    free(m);
    db->merge = NULL;
}

static int64_t intern(struct pdb *db, const char *s)
{
    for (size_t i = 0; i < db->merge->nstrs; i++)
        if (strcmp(db->merge->strs[i], s) == 0)
            return (int64_t)i;
    db->merge->strs = xrealloc(db->merge->strs, (db->merge->nstrs + 1) * sizeof *db->merge->strs);
    db->merge->strs[db->merge->nstrs] = xstrdup(s);
    return (int64_t)db->merge->nstrs++;
}

static struct mrow *row(struct pdb *db, enum mtab tab, int64_t a, int64_t b, int64_t c, int64_t d,
                        int64_t e)
{
    int64_t k[5] = {a, b, c, d, e};
    return mmap_get(&db->merge->map, (uint8_t)tab, k);
}

void pdb_add_samples(struct pdb *db, int64_t epoch, int64_t image, uint32_t event, int32_t core,
                     uint64_t offset, uint64_t count)
{
    row(db, M_SAMPLES, epoch, image, event, core, (int64_t)offset)->v[0] += (int64_t)count;
}

void pdb_set_period(struct pdb *db, int64_t epoch, uint32_t event, int32_t core, uint64_t period)
{
    row(db, M_PERIOD, epoch, event, core, 0, 0)->v[0] = (int64_t)period;
}

void pdb_add_pme(struct pdb *db, int64_t epoch, int64_t image, int32_t core, uint64_t offset,
                 const struct lk_pme_agg *a, uint32_t nbits, uint32_t nlat)
{
    struct mrow *r = row(db, M_PME, epoch, image, core, (int64_t)offset, 0);
    r->v[0] += (int64_t)a->samples;
    r->v[1] += (int64_t)a->retired;
    r->v[2] += (int64_t)a->aborted;
    for (uint32_t i = 0; i < nbits && i < LK_MAX_BITS; i++)
        if (a->bits[i])
            row(db, M_PME_BIT, epoch, image, core, (int64_t)offset, i)->v[0] += (int64_t)a->bits[i];
    for (uint32_t i = 0; i < nlat && i < LK_MAX_LAT; i++)
        row(db, M_PME_LAT, epoch, image, core, (int64_t)offset, i)->v[0] += (int64_t)a->lat[i];
}

void pdb_add_drop(struct pdb *db, int64_t epoch, int32_t core, const char *reason, uint64_t count)
{
    if (count)
        row(db, M_DROP, epoch, core, intern(db, reason), 0, 0)->v[0] += (int64_t)count;
}

void pdb_add_value_list(struct pdb *db, int64_t epoch, int64_t image, int32_t core, uint64_t offset,
                        uint32_t kind, uint64_t offered)
{
    struct mrow *r = row(db, M_VLIST, epoch, image, core, (int64_t)offset, kind);
    r->v[0] += (int64_t)offered;
    r->v[1] += 1;
}

void pdb_add_value(struct pdb *db, int64_t epoch, int64_t image, int32_t core, uint64_t offset,
                   uint32_t kind, uint64_t value, uint64_t count, uint64_t tau)
{
    struct mrow *r = row(db, M_VALUE, epoch, image, (int64_t)offset, (int64_t)core << 8 | (kind & 255),
                         (int64_t)value);
    r->v[0] += (int64_t)count;
    r->v[1] += (int64_t)(count * tau);
    r->v[2] += (int64_t)(count * tau * (tau - 1));
}

void pdb_add_stat(struct pdb *db, int64_t epoch, int32_t core, const char *name, uint64_t delta)
{
    row(db, M_STAT, epoch, core, intern(db, name), 0, 0)->v[0] += (int64_t)delta;
}

void pdb_add_pair(struct pdb *db, int64_t epoch, int64_t session, int32_t core,
                  const struct lk_pair *p, uint32_t nlat, const struct pdb_pair_record where[2], double weight)
{
    if (db->merge->npairs == db->merge->cap_pairs) {
        db->merge->cap_pairs = db->merge->cap_pairs ? db->merge->cap_pairs * 2 : 256;
        db->merge->pairs = xrealloc(db->merge->pairs, db->merge->cap_pairs * sizeof *db->merge->pairs);
    }
    struct pending_pair *q = &db->merge->pairs[db->merge->npairs++];
    q->epoch = epoch;
    q->session = session;
    q->core = core;
    q->distance = p->distance;
    q->gap = p->gap;
    q->weight = weight;
    if (nlat > LK_MAX_LAT)
        nlat = LK_MAX_LAT;
    for (int k = 0; k < 2; k++) {
        q->rec[k].image = where[k].image;
        q->rec[k].offset = where[k].offset;
        q->rec[k].events = where[k].rec->events;
        q->rec[k].addr = where[k].rec->addr;
        q->rec[k].history = where[k].rec->history;
        json_u64_array(q->rec[k].lat, sizeof q->rec[k].lat, where[k].rec->lat, nlat);
    }
}

size_t pdb_pending(const struct pdb *db)
{
    return db->merge->map.n + db->merge->npairs;
}

/* Rows in key order, so the B-tree is walked forward, not at random. */
static int cmp_rows(const void *a, const void *b)
{
    const struct mrow *x = *(const struct mrow *const *)a, *y = *(const struct mrow *const *)b;
    if (x->tab != y->tab)
        return x->tab < y->tab ? -1 : 1;
    for (int i = 0; i < 5; i++)
        if (x->k[i] != y->k[i])
            return x->k[i] < y->k[i] ? -1 : 1;
    return 0;
}

static int write_row(struct pdb *db, const struct mrow *r)
{
    sqlite3_stmt *st = db->merge->upsert[r->tab];
    for (int i = 0; i < 5; i++)
        sqlite3_bind_int64(st, i + 1, r->k[i]);
    if (r->tab == M_DROP || r->tab == M_STAT)     /* the name, not its interned number */
        sqlite3_bind_text(st, 3, db->merge->strs[r->k[2]], -1, SQLITE_STATIC);
    for (int i = 0; i < 3; i++)
        sqlite3_bind_int64(st, i + 6, r->v[i]);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int write_pairs(struct pdb *db)
{
    for (size_t i = 0; i < db->merge->npairs; i++) {
        const struct pending_pair *q = &db->merge->pairs[i];
        sqlite3_stmt *st = db->merge->ins_pair;
        sqlite3_bind_int64(st, 1, q->epoch);
        sqlite3_bind_int64(st, 2, q->session);
        sqlite3_bind_int64(st, 3, q->core);
        sqlite3_bind_int64(st, 4, (int64_t)q->distance);
        sqlite3_bind_int64(st, 5, (int64_t)q->gap);
        sqlite3_bind_double(st, 6, q->weight);
        int rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc != SQLITE_DONE)
            return -1;
        int64_t id = sqlite3_last_insert_rowid(db->db);
        for (int k = 0; k < 2; k++) {
            st = db->merge->ins_pair_rec;
            sqlite3_bind_int64(st, 1, id);
            sqlite3_bind_int64(st, 2, k);
            sqlite3_bind_int64(st, 3, q->rec[k].image);
            sqlite3_bind_int64(st, 4, (int64_t)q->rec[k].offset);
            sqlite3_bind_int64(st, 5, (int64_t)q->rec[k].events);
            sqlite3_bind_int64(st, 6, (int64_t)q->rec[k].addr);
            sqlite3_bind_int64(st, 7, (int64_t)q->rec[k].history);
            sqlite3_bind_text(st, 8, q->rec[k].lat, -1, SQLITE_STATIC);
            rc = sqlite3_step(st);
            sqlite3_reset(st);
            if (rc != SQLITE_DONE)
                return -1;
        }
    }
    return 0;
}

int pdb_commit(struct pdb *db, struct ap_err *err)
{
    if (pdb_need_write(db, err) != 0)
        return -1;
    if (pdb_pending(db) == 0)
        return 0;
    struct mrow **rows = malloc((db->merge->map.n ? db->merge->map.n : 1) * sizeof *rows);
    if (!rows)
        return ap_err_set(err, "out of memory committing %zu rows", db->merge->map.n);
    size_t n = 0;
    for (size_t i = 0; i < db->merge->map.cap; i++)
        if (db->merge->map.slots[i].used)
            rows[n++] = &db->merge->map.slots[i];
    qsort(rows, n, sizeof *rows, cmp_rows);

    int rc = pdb_exec(db, "BEGIN IMMEDIATE", err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (write_row(db, rows[i]) != 0)
            rc = pdb_sql_err(db, err, "merging samples");
    if (rc == 0 && write_pairs(db) != 0)
        rc = pdb_sql_err(db, err, "adding paired samples");
    if (rc == 0)
        rc = pdb_exec(db, "COMMIT", err);
    free(rows);
    if (rc != 0) {
        /* nothing of this batch is on disk; the merges stay pending */
        sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    mmap_clear(&db->merge->map);
    db->merge->npairs = 0;
    return 0;
}