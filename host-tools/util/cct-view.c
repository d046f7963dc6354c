/*
 * Reading the calling context trees (util/cct-view.h).
 */
#include "util/cct-view.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/path-region.h"
#include "hw-model/pmu-window.h"
#include "util/instrument.h"

static int sql_error(sqlite3 *db, struct ap_err *err)
{
    return ap_err_set(err, "cannot read the calling context tree: %s", sqlite3_errmsg(db));
}

static void *grow(void *p, size_t n, size_t size)
{
    void *q = realloc(p, n * size);
    if (!q)
        abort();
    return q;
}

static int load_images(sqlite3 *db, int64_t session, struct cct_view *v, struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db,
                           "SELECT i.id, i.name, i.path, "
                           "  (SELECT address FROM loadmaps l WHERE l.image = i.id AND l.session = ?1 LIMIT 1), "
                           "  i.build_id FROM images i WHERE i.id IN "
                           "  (SELECT callee_image FROM cct_records WHERE session = ?1 "
                           "   UNION SELECT site_image FROM cct_records WHERE session = ?1) ORDER BY i.id",
                           -1, &st, NULL) != SQLITE_OK)
        return sql_error(db, err);
    sqlite3_bind_int64(st, 1, session);
    return pv_read_images(db, st, &v->images, &v->nimages, err);
}

static void describe(struct cct_view *v, struct cv_node *n)
{
    const struct pv_image *ci = pv_image_by_id(v->images, v->nimages, n->callee_image);
    const struct pv_image *si = pv_image_by_id(v->images, v->nimages, n->site_image);
    n->callee_addr = (ci ? ci->address : 0) + n->callee;
    n->site_addr = (si ? si->address : 0) + n->site;
    if (n->id == 0)
        snprintf(n->name, sizeof n->name, "[root]");
    else if (n->callee == 0 && n->callee_image == PDB_IMAGE_UNKNOWN)
        snprintf(n->name, sizeof n->name, "[overflow]");
    else {
        const struct symbol *s = ci && ci->st ? symtab_lookup(ci->st, n->callee_addr) : NULL;
        if (s && s->start == n->callee_addr)
            snprintf(n->name, sizeof n->name, "%s", s->name);
        else
            snprintf(n->name, sizeof n->name, "0x%llx", (unsigned long long)n->callee_addr);
    }
    if (n->site || n->site_image != PDB_IMAGE_UNKNOWN) {
        const struct symbol *s = si && si->st ? symtab_lookup(si->st, n->site_addr) : NULL;
        if (s)
            snprintf(n->site_proc, sizeof n->site_proc, "%s", s->name);
        const struct source_line *l = si && si->st ? symtab_line(si->st, n->site_addr) : NULL;
        if (l) {
            n->site_file = l->file;
            n->site_line = l->line;
        }
    }
}

static int cmp_node(const void *a, const void *b)
{
    const struct cv_node *x = a, *y = b;
    if (x->core != y->core)
        return x->core < y->core ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

const struct cv_node *cv_find(const struct cct_view *v, int core, uint64_t id)
{
    struct cv_node key = {.core = core, .id = id};
    return bsearch(&key, v->nodes, v->nnodes, sizeof key, cmp_node);
}

void cv_site_text(const struct cv_node *n, char *buf, size_t cap)
{
    const char *slash = n->site_file ? strrchr(n->site_file, '/') : NULL;
    if (n->site_file)
        snprintf(buf, cap, "%s:%u", slash ? slash + 1 : n->site_file, n->site_line);
    else if (n->site_proc[0])
        snprintf(buf, cap, "%s", n->site_proc);
    else if (n->site_addr)
        snprintf(buf, cap, "0x%llx", (unsigned long long)n->site_addr);
    else if (cap)
        buf[0] = '\0';
}

int cv_load(struct pdb *db, int64_t session, struct cct_view *v, struct ap_err *err)
{
    memset(v, 0, sizeof *v);
    sqlite3 *s = pdb_sqlite(db);
    sqlite3_stmt *st;
    if (session == 0) {
        if (sqlite3_prepare_v2(s, "SELECT coalesce(max(session), 0) FROM cct_cores", -1, &st, NULL) != SQLITE_OK)
            return sql_error(s, err);
        if (sqlite3_step(st) == SQLITE_ROW)
            session = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        if (session == 0)
            return ap_err_set(err, "%s holds no calling context tree; record an image instrumented with "
                              "`alphaprof instrument --cct IMAGE.elf -o OUT.elf`", pdb_path(db));
    }
    v->session = session;
    /* metrics: NULL (and no column, a file older than schema 9 read as it
     * is) is a tree from before counts-only trees, with metrics */
    v->metrics = true;
    if (sqlite3_prepare_v2(s, "SELECT core, total, skipped_calls, overflow_calls, coalesce(metrics, 1) "
                              "FROM cct_cores WHERE session = ? ORDER BY core", -1, &st, NULL) != SQLITE_OK &&
        sqlite3_prepare_v2(s, "SELECT core, total, skipped_calls, overflow_calls, 1 FROM cct_cores "
                              "WHERE session = ? ORDER BY core", -1, &st, NULL) != SQLITE_OK)
        return sql_error(s, err);
    sqlite3_bind_int64(st, 1, session);
    while (sqlite3_step(st) == SQLITE_ROW) {
        v->metrics &= sqlite3_column_int(st, 4) != 0;
        v->cores = grow(v->cores, v->ncores + 1, sizeof *v->cores);
        struct cv_core *c = &v->cores[v->ncores++];
        memset(c, 0, sizeof *c);
        c->core = sqlite3_column_int(st, 0);
        c->total = (uint64_t)sqlite3_column_int64(st, 1);
        c->skipped_calls = (uint64_t)sqlite3_column_int64(st, 2);
        c->overflow_calls = (uint64_t)sqlite3_column_int64(st, 3);
        c->root = CV_NO_NODE;
    }
    sqlite3_finalize(st);
    if (v->ncores == 0)
        return ap_err_set(err, "%s: session %lld has no calling context tree; `alphaprof cct` without "
                          "--session takes the newest that has one", pdb_path(db), (long long)session);
    if (load_images(s, session, v, err))
        return -1;
    if (sqlite3_prepare_v2(s, "SELECT core, id, parent, callee_image, callee, site_image, site, calls, cycles, "
                              "retired FROM cct_records WHERE session = ? ORDER BY core, id", -1, &st, NULL) != SQLITE_OK)
        return sql_error(s, err);
    sqlite3_bind_int64(st, 1, session);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (v->nnodes == cap) {
            cap = cap ? 2 * cap : 256;
            v->nodes = grow(v->nodes, cap, sizeof *v->nodes);
        }
        struct cv_node *n = &v->nodes[v->nnodes++];
        memset(n, 0, sizeof *n);
        n->core = sqlite3_column_int(st, 0);
        n->id = (uint64_t)sqlite3_column_int64(st, 1);
        n->parent_id = (uint64_t)sqlite3_column_int64(st, 2);
        n->callee_image = sqlite3_column_int64(st, 3);
        n->callee = (uint64_t)sqlite3_column_int64(st, 4);
        n->site_image = sqlite3_column_int64(st, 5);
        n->site = (uint64_t)sqlite3_column_int64(st, 6);
        n->calls = (uint64_t)sqlite3_column_int64(st, 7);
        n->cycles = (uint64_t)sqlite3_column_int64(st, 8);
        n->retired = (uint64_t)sqlite3_column_int64(st, 9);
        n->parent = n->first_child = n->next_sibling = CV_NO_NODE;
    }
    sqlite3_finalize(st);
    /* links, in reverse so children come in id order */
    for (size_t i = v->nnodes; i-- > 0;) {
        struct cv_node *n = &v->nodes[i];
        describe(v, n);
        n->cycles_excl = n->cycles;
        n->retired_excl = n->retired;
        if (n->parent_id == n->id)
            continue;
        const struct cv_node *p = cv_find(v, n->core, n->parent_id);
        if (!p)
            continue;
        n->parent = (size_t)(p - v->nodes);
        n->next_sibling = p->first_child;
        v->nodes[n->parent].first_child = i;
    }
    /* --both: each record's paths (schema v11), hottest first; with
     * --both --metrics their cycles and event (v12: NULL without; an older
     * file read as it is has no such columns) */
    v->path_event = -1;
#define CTX_PATHS_SQL(metrics)                                                                          \
    "SELECT core, record, path, count" metrics " FROM cct_path_counts WHERE session = ? "              \
    "ORDER BY core, record, count DESC, path"
    bool v12 = sqlite3_prepare_v2(s, CTX_PATHS_SQL(", cycles, event"), -1, &st, NULL) == SQLITE_OK;
    if (v12 || sqlite3_prepare_v2(s, CTX_PATHS_SQL(""), -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, session);
        while (sqlite3_step(st) == SQLITE_ROW) {
            struct cv_node *n = (struct cv_node *)cv_find(v, sqlite3_column_int(st, 0),
                                                          (uint64_t)sqlite3_column_int64(st, 1));
            v->paths = true;
            if (!n)
                continue;
            uint64_t count = (uint64_t)sqlite3_column_int64(st, 3);
            bool metered = v12 && sqlite3_column_type(st, 4) != SQLITE_NULL;
            uint64_t m[2] = {0, 0};
            if (metered) {
                v->path_metrics = true;
                for (int k = 0; k < 2; k++) {
                    m[k] = (uint64_t)sqlite3_column_int64(st, 4 + k);
                    v->path_total[k] += m[k];
                }
            }
            n->path_executions += count;
            n->path_cycles += m[0];
            n->path_event += m[1];
            n->paths_distinct++;
            if (n->nhot < CV_HOT_PATHS) {
                n->hot[n->nhot].path = (uint64_t)sqlite3_column_int64(st, 2);
                n->hot[n->nhot].cycles = m[0];
                n->hot[n->nhot].event = m[1];
                n->hot[n->nhot++].count = count;
            }
        }
        sqlite3_finalize(st);
    }
#undef CTX_PATHS_SQL
    /* the event: the instrumented image's path table names it */
    for (size_t i = 0; i < v->nimages && v->path_metrics && v->path_event < 0; i++) {
        struct path_table_proc *table = NULL;
        size_t ntable = 0;
        struct ap_err e2;
        if (v->images[i].path && instrument_path_table(v->images[i].path, &table, &ntable, &e2) == 0)
            for (size_t k = 0; k < ntable; k++)
                if (table[k].metrics && table[k].metrics <= PMU_EV_COUNT)
                    v->path_event = (int)table[k].metrics - 1;
        free(table);
    }
    /* the root measures nothing itself: it spans its children */
    for (size_t i = 0; i < v->nnodes; i++)
        if (v->nodes[i].id == 0)
            for (size_t c = v->nodes[i].first_child; c != CV_NO_NODE; c = v->nodes[c].next_sibling) {
                v->nodes[i].cycles += v->nodes[c].cycles;
                v->nodes[i].retired += v->nodes[c].retired;
            }
    for (size_t i = 0; i < v->nnodes; i++) {
        struct cv_node *n = &v->nodes[i];
        if (n->id == 0) {
            n->cycles_excl = n->retired_excl = 0;
        }
        for (size_t c = n->first_child; c != CV_NO_NODE; c = v->nodes[c].next_sibling) {
            n->cycles_excl -= n->cycles_excl >= v->nodes[c].cycles ? v->nodes[c].cycles : n->cycles_excl;
            n->retired_excl -= n->retired_excl >= v->nodes[c].retired ? v->nodes[c].retired : n->retired_excl;
        }
        if (n->parent != CV_NO_NODE)
            n->depth = v->nodes[n->parent].depth + 1;   /* parents have smaller ids */
        for (size_t k = 0; k < v->ncores; k++)
            if (v->cores[k].core == n->core) {
                v->cores[k].received++;
                if (n->id == 0)
                    v->cores[k].root = i;
            }
    }
    return 0;
}

void cv_free(struct cct_view *v)
{
    free(v->nodes);
    free(v->cores);
    pv_free_images(v->images, v->nimages);
    memset(v, 0, sizeof *v);
}

bool cv_metrics_unread(const struct cct_view *v)
{
    uint64_t calls = 0, cycles = 0;
    for (size_t i = 0; i < v->nnodes; i++) {
        calls += v->nodes[i].calls;
        cycles += v->nodes[i].cycles;
    }
    return v->metrics && calls && !cycles;
}

void cv_metrics_unread_note(const char *cmd, const char *what, FILE *out)
{
    fprintf(out, "%s: warning: every %s's cycles are 0: the image reads the hardware counters and ran on a "
                 "board without them; record it on a board with the hardware model (--board clipper-pm)\n",
            cmd, what);
}
