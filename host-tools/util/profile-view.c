/*
 * Loading a profile view.  Invariants after pv_load: insns sorted by
 * (image index, offset) with distinct keys; every sample of the selection
 * is in exactly one insn and one proc; v->total[e] is their sum.
 */
#include "util/profile-view.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "firmware/abi/link-protocol.h"
#include "util/strvec.h"

static int sql_fail(sqlite3 *db, struct ap_err *err)
{
    return ap_err_set(err, "reading the profile database: %s", sqlite3_errmsg(db));
}

/* " AND epoch = ?1 AND core = ?2 AND image IN (name ?3)" as selected. */
static void where_clause(const struct pv_selection *sel, int64_t epoch, char *out, size_t n)
{
    snprintf(out, n, "WHERE (?1 < 0 OR epoch = ?1) AND (?2 < 0 OR core = ?2)%s",
             sel->image ? " AND image IN (SELECT id FROM images WHERE name = ?3)" : "");
    (void)epoch;
}

static void bind_selection(sqlite3_stmt *st, const struct pv_selection *sel, int64_t epoch)
{
    sqlite3_bind_int64(st, 1, epoch);
    sqlite3_bind_int(st, 2, sel->core);
    if (sel->image)
        sqlite3_bind_text(st, 3, sel->image, -1, SQLITE_STATIC);
}

/* The event's period and estimate (profile-view.h): per (epoch, core), its
 * samples times the achieved period where the board measured one (schema
 * 3), else the one it asked for.  A file of schema 2 or older read as it
 * is has no achieved_periods: the requested period, as it always had. */
static void load_period(sqlite3 *db, struct profile_view *v, size_t e)
{
    static const char by_core[] =
        "SELECT sum(s.n * coalesce(%s, p.period)), sum(CASE WHEN coalesce(%s, p.period) IS NOT NULL "
        "THEN s.n END), CAST(avg(p.period) AS INTEGER), count(DISTINCT s.core) "
        "FROM (SELECT epoch, core, sum(count) AS n FROM samples WHERE event = ?2 "
        "      AND (?1 < 0 OR epoch = ?1) GROUP BY epoch, core) s "
        "LEFT JOIN periods p ON p.epoch = s.epoch AND p.event = ?2 AND p.core = s.core %s";
    char sql[1024];
    sqlite3_stmt *st;
    snprintf(sql, sizeof sql, by_core, "a.period", "a.period",
             "LEFT JOIN achieved_periods a ON a.epoch = s.epoch AND a.event = ?2 AND a.core = s.core");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(sql, sizeof sql, by_core, "NULL", "NULL", "");
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
            return;
    }
    sqlite3_bind_int64(st, 1, v->epoch);
    sqlite3_bind_int64(st, 2, v->events[e]);
    if (sqlite3_step(st) == SQLITE_ROW) {
        double sum = sqlite3_column_double(st, 0), n = sqlite3_column_double(st, 1);
        v->estimate[e] = sum;
        v->periods[e] = n > 0 ? (uint64_t)(sum / n + 0.5) : 0;
        v->requested[e] = (uint64_t)sqlite3_column_int64(st, 2);
        v->cores[e] = (unsigned)sqlite3_column_int(st, 3);
    }
    sqlite3_finalize(st);
}

static int load_events(sqlite3 *db, const struct pv_selection *sel, struct profile_view *v,
                       struct ap_err *err)
{
    char where[256], sql[512];
    where_clause(sel, v->epoch, where, sizeof where);
    snprintf(sql, sizeof sql, "SELECT DISTINCT event FROM samples %s ORDER BY event", where);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch);
    while (sqlite3_step(st) == SQLITE_ROW && v->nevents < PV_MAX_EVENTS)
        v->events[v->nevents++] = (uint32_t)sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    for (size_t e = 0; e < v->nevents; e++) {
        snprintf(v->event_names[e], sizeof v->event_names[e], "event%u", v->events[e]);
        if (v->events[e] == LK_EVENT_TIMER)
            snprintf(v->event_names[e], sizeof v->event_names[e], "timer");
        if (sqlite3_prepare_v2(db, "SELECT name FROM names WHERE kind = 'event' AND idx = ?1",
                               -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, v->events[e]);
            if (sqlite3_step(st) == SQLITE_ROW)
                snprintf(v->event_names[e], sizeof v->event_names[e], "%s",
                         (const char *)sqlite3_column_text(st, 0));
            sqlite3_finalize(st);
        }
        load_period(db, v, e);
    }
    return 0;
}

struct pv_image *pv_image_by_id(struct pv_image *images, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (images[i].id == id)
            return &images[i];
    return NULL;
}

static int load_images(sqlite3 *db, const struct pv_selection *sel, struct profile_view *v,
                       struct ap_err *err)
{
    char where[256], sql[768];
    where_clause(sel, v->epoch, where, sizeof where);
    snprintf(sql, sizeof sql,
             "SELECT s.image, coalesce(i.name, '[unknown]'), i.path, "
             "       (SELECT address FROM loadmaps l WHERE l.image = s.image ORDER BY session DESC LIMIT 1), "
             "       i.build_id "
             "FROM (SELECT DISTINCT image FROM samples %s) s LEFT JOIN images i ON i.id = s.image "
             "ORDER BY s.image", where);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch);
    return pv_read_images(db, st, &v->images, &v->nimages, err);
}

/* Is the ELF at the image's path still the build the profile recorded?
 * (A rebuilt ELF's symbols and lines would describe other instructions.) */
static bool same_build(const struct pv_image *img)
{
    return symtab_is_build(img->st, img->build_id, img->build_id_size);
}

static void hex_of(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * n] = 0;
}

/* Drops the symbols of a rebuilt ELF, saying why. */
static void wrong_build(struct pv_image *img)
{
    size_t n;
    const uint8_t *id = symtab_build_id(img->st, &n);
    char have[2 * 64 + 1], want[2 * sizeof img->build_id + 1];
    hex_of(id, n < 64 ? n : 64, have);
    hex_of(img->build_id, img->build_id_size, want);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s is build-id %s, but the profile was recorded from build-id %s: "
             "the ELF was rebuilt since; record again (or restore that build)",
             img->path, have[0] ? have : "none", want);
    img->st_error = xstrdup(msg);
    symtab_close(img->st);
    img->st = NULL;
}

void pv_warn_images(FILE *f, const char *cmd, const struct pv_image *images, size_t n,
                    const struct pv_image *also, size_t nalso)
{
    for (size_t i = 0; i < n; i++) {
        if (!images[i].id || !images[i].st_error)
            continue;
        bool said = false;
        for (size_t j = 0; j < nalso && !said; j++)
            said = also[j].st_error && !strcmp(also[j].name, images[i].name);
        if (!said)
            fprintf(f, "%s: no symbols for %s: %s\n", cmd, images[i].name, images[i].st_error);
    }
}

int pv_read_images(sqlite3 *db, sqlite3_stmt *st, struct pv_image **images, size_t *n, struct ap_err *err)
{
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            *images = xrealloc(*images, cap * sizeof **images);
        }
        struct pv_image *img = &(*images)[(*n)++];
        memset(img, 0, sizeof *img);
        img->id = sqlite3_column_int64(st, 0);
        snprintf(img->name, sizeof img->name, "%s", (const char *)sqlite3_column_text(st, 1));
        if (sqlite3_column_type(st, 2) != SQLITE_NULL)
            img->path = xstrdup((const char *)sqlite3_column_text(st, 2));
        img->address = (uint64_t)sqlite3_column_int64(st, 3);
        img->build_id_size = (size_t)sqlite3_column_bytes(st, 4);
        if (img->build_id_size > sizeof img->build_id)
            img->build_id_size = sizeof img->build_id;
        if (img->build_id_size)
            memcpy(img->build_id, sqlite3_column_blob(st, 4), img->build_id_size);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return sql_fail(db, err);
    for (size_t i = 0; i < *n; i++) {
        struct pv_image *img = &(*images)[i];
        struct ap_err e2;
        if (img->path && access(img->path, F_OK) != 0 && errno == ENOENT) {
            /* (symtab_open's hint, build/workloads/NAME.elf, is for a path the user gave) */
            char msg[PATH_MAX + 160];
            snprintf(msg, sizeof msg, "%s: %s (the profile was recorded from it); put that image back there, or "
                     "record again", img->path, strerror(ENOENT));
            img->st_error = xstrdup(msg);
        } else if (img->path && symtab_open(img->path, &img->st, &e2) != 0)
            img->st_error = xstrdup(e2.msg);
        else if (img->st && !same_build(img))
            wrong_build(img);
    }
    return 0;
}

static int load_insns(sqlite3 *db, const struct pv_selection *sel, struct profile_view *v,
                      struct ap_err *err)
{
    char where[256], sql[512];
    where_clause(sel, v->epoch, where, sizeof where);
    snprintf(sql, sizeof sql,
             "SELECT image, offset, event, sum(count) FROM samples %s "
             "GROUP BY image, offset, event ORDER BY image, offset", where);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch);
    size_t cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        struct pv_image *img = pv_image_by_id(v->images, v->nimages, sqlite3_column_int64(st, 0));
        uint64_t offset = (uint64_t)sqlite3_column_int64(st, 1);
        int e = pv_event_index(v, (uint32_t)sqlite3_column_int64(st, 2));
        uint64_t count = (uint64_t)sqlite3_column_int64(st, 3);
        if (!img || e < 0)
            continue;
        struct pv_insn *last = v->ninsns ? &v->insns[v->ninsns - 1] : NULL;
        if (!last || last->img != img || last->offset != offset) {
            if (v->ninsns == cap) {
                cap = cap ? 2 * cap : 1024;
                v->insns = xrealloc(v->insns, cap * sizeof *v->insns);
            }
            last = &v->insns[v->ninsns++];
            memset(last, 0, sizeof *last);
            last->img = img;
            last->offset = offset;
        }
        last->count[e] += count;
        img->total[e] += count;
        v->total[e] += count;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : sql_fail(db, err);
}

static int cmp_proc(const void *a, const void *b)
{
    const struct pv_proc *x = a, *y = b;
    if (x->count[0] != y->count[0])
        return x->count[0] > y->count[0] ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void build_procs(struct profile_view *v)
{
    size_t cap = 0;
    for (size_t i = 0; i < v->ninsns; i++) {
        struct pv_insn *in = &v->insns[i];
        const struct symbol *sym = in->img->st ? symtab_lookup(in->img->st, in->img->address + in->offset) : NULL;
        struct pv_proc *p = NULL;
        /* insns are in address order, so a procedure's PCs arrive together;
         * PCs outside any symbol gather in one "[image]" entry per image. */
        if (v->nprocs && v->procs[v->nprocs - 1].img == in->img && v->procs[v->nprocs - 1].sym == sym)
            p = &v->procs[v->nprocs - 1];
        for (size_t k = 0; !p && !sym && k < v->nprocs; k++)
            if (v->procs[k].img == in->img && !v->procs[k].sym)
                p = &v->procs[k];
        if (!p) {
            if (v->nprocs == cap) {
                cap = cap ? 2 * cap : 256;
                v->procs = xrealloc(v->procs, cap * sizeof *v->procs);
            }
            p = &v->procs[v->nprocs++];
            memset(p, 0, sizeof *p);
            p->img = in->img;
            p->sym = sym;
            p->name = sym ? sym->name : in->img->name;
        }
        for (size_t e = 0; e < v->nevents; e++)
            p->count[e] += in->count[e];
    }
    if (v->nprocs)      /* a profile without samples (ProfileMe only) has none: no qsort(NULL) */
        qsort(v->procs, v->nprocs, sizeof *v->procs, cmp_proc);
}

int pv_load(struct pdb *db, const struct pv_selection *sel, struct profile_view *v,
            struct ap_err *err)
{
    memset(v, 0, sizeof *v);
    v->epoch = sel->epoch;
    if (v->epoch == 0 && pdb_current_epoch(db, &v->epoch, err) != 0)
        return -1;
    sqlite3 *s = pdb_sqlite(db);
    if (load_events(s, sel, v, err) || load_images(s, sel, v, err) || load_insns(s, sel, v, err)) {
        pv_free(v);
        return -1;
    }
    build_procs(v);
    return 0;
}

void pv_free_images(struct pv_image *images, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        symtab_close(images[i].st);
        free(images[i].path);
        free(images[i].st_error);
    }
    free(images);
}

void pv_free(struct profile_view *v)
{
    pv_free_images(v->images, v->nimages);
    free(v->insns);
    free(v->procs);
    memset(v, 0, sizeof *v);
}

int pv_event_index(const struct profile_view *v, uint32_t event)
{
    for (size_t e = 0; e < v->nevents; e++)
        if (v->events[e] == event)
            return (int)e;
    return -1;
}

const struct pv_proc *pv_find_proc(const struct profile_view *v, const char *name)
{
    for (size_t i = 0; i < v->nprocs; i++)
        if (strcmp(v->procs[i].name, name) == 0)
            return &v->procs[i];
    return NULL;
}
