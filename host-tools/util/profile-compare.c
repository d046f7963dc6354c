/*
 * Profiles side by side (profile-compare.h).  Added counts are kept as flat
 * entries (key, set, count) and merged by one sort: simpler than a hash
 * table and O(n log n) for any number of sets.
 */
#include "util/profile-compare.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/link-protocol.h"
#include "util/strvec.h"

struct cmp_entry {
    char *image, *proc, *where;
    uint64_t offset, address;
    size_t set;
    uint64_t count;
};

void cmp_init(struct cmp_table *t, enum cmp_level level, size_t nsets)
{
    memset(t, 0, sizeof *t);
    t->level = level;
    t->nsets = nsets;
    t->total = xmalloc((nsets ? nsets : 1) * sizeof *t->total);
    memset(t->total, 0, (nsets ? nsets : 1) * sizeof *t->total);
}

static void push(struct cmp_table *t, struct cmp_entry e)
{
    if (t->npending == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->pending = xrealloc(t->pending, t->cap * sizeof *t->pending);
    }
    t->pending[t->npending++] = e;
}

static char *line_of(const struct pv_image *img, uint64_t pc)
{
    const struct source_line *l = img->st ? symtab_line(img->st, pc) : NULL;
    if (!l)
        return NULL;
    const char *base = strrchr(l->file, '/');
    char buf[512];
    snprintf(buf, sizeof buf, "%s:%u", base ? base + 1 : l->file, l->line);
    return xstrdup(buf);
}

void cmp_add_view(struct cmp_table *t, size_t set, const struct profile_view *v, int e)
{
    if (set >= t->nsets || e < 0 || (size_t)e >= v->nevents)
        return;
    t->total[set] += v->total[e];
    if (t->level == CMP_PROCS) {
        for (size_t i = 0; i < v->nprocs; i++) {
            const struct pv_proc *p = &v->procs[i];
            if (p->count[e] == 0)
                continue;
            push(t, (struct cmp_entry){
                        .image = xstrdup(p->img->name),
                        .proc = xstrdup(p->sym ? p->name : ""),
                        .address = p->sym ? p->sym->start : p->img->address,
                        .set = set,
                        .count = p->count[e]});
        }
        return;
    }
    for (size_t i = 0; i < v->ninsns; i++) {
        const struct pv_insn *in = &v->insns[i];
        if (in->count[e] == 0)
            continue;
        uint64_t pc = in->img->address + in->offset;
        const struct symbol *sym = in->img->st ? symtab_lookup(in->img->st, pc) : NULL;
        push(t, (struct cmp_entry){
                    .image = xstrdup(in->img->name),
                    .proc = xstrdup(sym ? sym->name : ""),
                    .where = line_of(in->img, pc),
                    .offset = in->offset,
                    .address = pc,
                    .set = set,
                    .count = in->count[e]});
    }
}

static int cmp_key(const struct cmp_entry *x, const struct cmp_entry *y, enum cmp_level level)
{
    int c = strcmp(x->image, y->image);
    if (c)
        return c;
    if (level == CMP_INSNS) {
        if (x->offset != y->offset)
            return x->offset < y->offset ? -1 : 1;
        return 0;
    }
    return strcmp(x->proc, y->proc);
}

static int cmp_entry_procs(const void *a, const void *b)
{
    const struct cmp_entry *x = a, *y = b;
    int c = cmp_key(x, y, CMP_PROCS);
    return c ? c : (x->set > y->set) - (x->set < y->set);
}

static int cmp_entry_insns(const void *a, const void *b)
{
    const struct cmp_entry *x = a, *y = b;
    int c = cmp_key(x, y, CMP_INSNS);
    return c ? c : (x->set > y->set) - (x->set < y->set);
}

static void free_entry(struct cmp_entry *e)
{
    free(e->image);
    free(e->proc);
    free(e->where);
}

void cmp_finish(struct cmp_table *t)
{
    qsort(t->pending, t->npending, sizeof *t->pending,
          t->level == CMP_PROCS ? cmp_entry_procs : cmp_entry_insns);
    size_t cap = 0;
    for (size_t i = 0; i < t->npending; i++) {
        struct cmp_entry *e = &t->pending[i];
        struct cmp_row *r = t->nrows ? &t->rows[t->nrows - 1] : NULL;
        struct cmp_entry prev_key = {.image = r ? r->image : NULL, .proc = r ? r->proc : NULL,
                                     .offset = r ? r->offset : 0};
        if (!r || cmp_key(&prev_key, e, t->level) != 0) {
            if (t->nrows == cap) {
                cap = cap ? 2 * cap : 256;
                t->rows = xrealloc(t->rows, cap * sizeof *t->rows);
            }
            r = &t->rows[t->nrows++];
            *r = (struct cmp_row){.image = e->image, .proc = e->proc, .offset = e->offset,
                                  .address = e->address, .where = e->where};
            r->count = xmalloc(t->nsets * sizeof *r->count);
            memset(r->count, 0, t->nsets * sizeof *r->count);
            e->image = e->proc = e->where = NULL;   /* moved into the row */
        } else if (!r->where && e->where) {
            r->where = e->where;
            e->where = NULL;
        }
        if (r->count[e->set] == 0 && e->count > 0)
            r->present++;
        r->count[e->set] += e->count;
        free_entry(e);
    }
    free(t->pending);
    t->pending = NULL;
    t->npending = t->cap = 0;
}

void cmp_free(struct cmp_table *t)
{
    for (size_t i = 0; i < t->npending; i++)
        free_entry(&t->pending[i]);
    free(t->pending);
    for (size_t i = 0; i < t->nrows; i++) {
        free(t->rows[i].image);
        free(t->rows[i].proc);
        free(t->rows[i].where);
        free(t->rows[i].count);
    }
    free(t->rows);
    free(t->total);
    memset(t, 0, sizeof *t);
}

/* The events the database has, "timer (255), 3 (3)" style, for errors. */
static void list_events(sqlite3 *s, char *out, size_t n)
{
    out[0] = '\0';
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s,
                           "SELECT DISTINCT s.event, n.name FROM samples s LEFT JOIN names n "
                           "ON n.kind = 'event' AND n.idx = s.event ORDER BY s.event",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    size_t used = 0;
    while (sqlite3_step(st) == SQLITE_ROW && used + 1 < n) {
        unsigned ev = (unsigned)sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        if (!name)
            name = ev == LK_EVENT_TIMER ? "timer" : NULL;
        int w = name ? snprintf(out + used, n - used, "%s%s (event %u)", used ? ", " : "", name, ev)
                     : snprintf(out + used, n - used, "%s%u", used ? ", " : "", ev);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    sqlite3_finalize(st);
}

int cmp_resolve_event(struct pdb *db, const char *spec, uint32_t *event, struct ap_err *err)
{
    sqlite3 *s = pdb_sqlite(db);
    char have[512];
    list_events(s, have, sizeof have);
    if (!have[0])
        return ap_err_set(err, "%s holds no samples; record some with alphaprof record", pdb_path(db));
    sqlite3_stmt *st;
    int64_t found = -1;
    if (!spec) {
        if (sqlite3_prepare_v2(s, "SELECT min(event) FROM samples", -1, &st, NULL) != SQLITE_OK)
            return ap_err_set(err, "reading %s: %s", pdb_path(db), sqlite3_errmsg(s));
        if (sqlite3_step(st) == SQLITE_ROW)
            found = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    } else {
        char *end;
        long num = strtol(spec, &end, 10);
        if (*spec && !*end && num >= 0 && num <= 0xffff)
            found = num;
        else if (!strcmp(spec, "timer"))
            found = LK_EVENT_TIMER;
        else if (sqlite3_prepare_v2(s, "SELECT idx FROM names WHERE kind = 'event' AND name = ?1",
                                    -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_text(st, 1, spec, -1, SQLITE_STATIC);
            if (sqlite3_step(st) == SQLITE_ROW)
                found = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
        }
        int64_t any = 0;
        if (found >= 0 && sqlite3_prepare_v2(s, "SELECT count(*) FROM samples WHERE event = ?1", -1, &st,
                                             NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, found);
            if (sqlite3_step(st) == SQLITE_ROW)
                any = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
        }
        if (found < 0 || !any)
            return ap_err_set(err, "%s holds no samples of event '%s'; it has: %s", pdb_path(db), spec, have);
    }
    if (found < 0)
        return ap_err_set(err, "%s holds no samples; record some with alphaprof record", pdb_path(db));
    *event = (uint32_t)found;
    return 0;
}

int cmp_check_epoch(struct pdb *db, int64_t epoch, struct ap_err *err)
{
    if (epoch <= 0)
        return 0;
    char sql[128];
    int64_t n = 0, last = 0;
    snprintf(sql, sizeof sql, "SELECT count(*) FROM epochs WHERE id = %lld", (long long)epoch);
    if (pdb_query_int(db, sql, &n, err) || pdb_query_int(db, "SELECT coalesce(max(id), 0) FROM epochs", &last, err))
        return -1;
    if (!n)
        return ap_err_set(err, "%s has no epoch %lld (epochs 1..%lld); see alphaprof db epochs", pdb_path(db),
                          (long long)epoch, (long long)last);
    return 0;
}

int cmp_epochs_with_event(struct pdb *db, uint32_t event, const char *image, int core,
                          int64_t **epochs, size_t *n, struct ap_err *err)
{
    sqlite3 *s = pdb_sqlite(db);
    sqlite3_stmt *st;
    *epochs = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(s,
                           "SELECT DISTINCT epoch FROM samples WHERE event = ?1 AND (?2 < 0 OR core = ?2) "
                           "AND (?3 IS NULL OR image IN (SELECT id FROM images WHERE name = ?3)) ORDER BY epoch",
                           -1, &st, NULL) != SQLITE_OK)
        return ap_err_set(err, "reading %s: %s", pdb_path(db), sqlite3_errmsg(s));
    sqlite3_bind_int64(st, 1, event);
    sqlite3_bind_int(st, 2, core);
    if (image)
        sqlite3_bind_text(st, 3, image, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 3);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *epochs = xrealloc(*epochs, cap * sizeof **epochs);
        }
        (*epochs)[(*n)++] = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free(*epochs);
        *epochs = NULL;
        *n = 0;
        return ap_err_set(err, "reading %s: %s", pdb_path(db), sqlite3_errmsg(s));
    }
    return 0;
}

int cmp_image_build_id(struct pdb *db, int64_t image, char hex[41], struct ap_err *err)
{
    sqlite3 *s = pdb_sqlite(db);
    sqlite3_stmt *st;
    hex[0] = '\0';
    if (sqlite3_prepare_v2(s, "SELECT build_id FROM images WHERE id = ?1", -1, &st, NULL) != SQLITE_OK)
        return ap_err_set(err, "reading %s: %s", pdb_path(db), sqlite3_errmsg(s));
    sqlite3_bind_int64(st, 1, image);
    if (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *id = sqlite3_column_blob(st, 0);
        int len = sqlite3_column_bytes(st, 0);
        for (int i = 0; id && i < len && i < 20; i++)
            snprintf(hex + 2 * i, 3, "%02x", id[i]);
    }
    sqlite3_finalize(st);
    return 0;
}
