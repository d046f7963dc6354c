/* Hot instrumented paths by count and metric: see path-metrics.h. */
#include "util/path-metrics.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/path-region.h"
#include "util/ball-larus.h"
#include "util/calc.h"
#include "util/instrument.h"
#include "util/path-count-accuracy.h"
#include "util/path-plan.h"
#include "util/symbols.h"

static int sql_error(sqlite3 *db, struct ap_err *err)
{
    return ap_err_set(err, "cannot read the path counts: %s", sqlite3_errmsg(db));
}


static struct hot_path *add_path(struct path_metrics *pm, size_t *cap)
{
    if (pm->n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        pm->paths = realloc(pm->paths, *cap * sizeof *pm->paths);
        if (!pm->paths)
            abort();
    }
    struct hot_path *h = &pm->paths[pm->n++];
    memset(h, 0, sizeof *h);
    h->record = -1;
    return h;
}

int path_metrics_load(struct pdb *db, int64_t session, const char *proc, struct path_metrics *pm,
                      struct ap_err *err)
{
    return path_metrics_load_contexts(db, session, proc, false, pm, err);
}

/* What the instrumenter left alone that the user can count (path-
 * region.h note 14: too many paths for an array, not hashed), named from
 * the image's symbols, and with want_proc the procedure's own status;
 * -1 out of memory. */
static int left_alone(struct path_metrics *pm, const struct path_table_proc *table, size_t ntable, bool want_proc,
                      uint64_t proc_start)
{
    pm->proc_status = want_proc ? PATH_SKIP_NUMBERING : PATH_INSTRUMENTED;     /* (no entry: no numbering) */
    struct symtab *sy = NULL;
    struct ap_err e2;
    size_t len = 0;
    for (size_t k = 0; k < ntable; k++) {
        const struct path_table_proc *p = &table[k];
        if (want_proc && p->start == proc_start)
            pm->proc_status = p->instrumented ? PATH_INSTRUMENTED : p->status;
        if (p->instrumented || p->status != PATH_SKIP_TOO_MANY || (want_proc && p->start != proc_start))
            continue;
        if (!sy && symtab_open(pm->image, &sy, &e2))
            return 0;           /* (the image's symbols are gone: the paths show addresses too) */
        const struct symbol *sym = symtab_lookup(sy, p->start);
        const char *name = sym ? sym->name : "?";
        char *grown = realloc(pm->too_many, len + strlen(name) + 3);
        if (!grown) {
            symtab_close(sy);
            return -1;
        }
        pm->too_many = grown;
        len += (size_t)sprintf(pm->too_many + len, "%s%s", len ? ", " : "", name);
        pm->ntoo_many++;
    }
    if (sy)
        symtab_close(sy);
    return 0;
}

int path_metrics_load_contexts(struct pdb *db, int64_t session, const char *proc, bool by_context,
                               struct path_metrics *pm, struct ap_err *err)
{
    memset(pm, 0, sizeof *pm);
    pm->event = -1;
    sqlite3 *s = pdb_sqlite(db);
    sqlite3_stmt *st;
    if (path_counts_session(s, &session, err))
        return -1;
    if (session == 0)
        return 0;
    bool v8 = sqlite3_table_column_metadata(s, NULL, "path_counts", "cycles", NULL, NULL, NULL, NULL, NULL) ==
              SQLITE_OK;      /* schema 8's metrics */
    pm->session = session;
    pm->present = true;
    if (sqlite3_prepare_v2(s, v8 ? "SELECT sum(lost_paths), sum(unmatched_exits), sum(bad_paths), "
                                   "coalesce(max(metered), 0), coalesce(sum(unmetered), 0) FROM path_cores "
                                   "WHERE session = ?"
                                 : "SELECT sum(lost_paths), sum(unmatched_exits), sum(bad_paths), 0, 0 "
                                   "FROM path_cores WHERE session = ?", -1, &st, NULL) != SQLITE_OK)
        return sql_error(s, err);
    sqlite3_bind_int64(st, 1, session);
    if (sqlite3_step(st) == SQLITE_ROW) {
        pm->lost_paths = (uint64_t)sqlite3_column_int64(st, 0);
        pm->unmatched_exits = (uint64_t)sqlite3_column_int64(st, 1);
        pm->bad_paths = (uint64_t)sqlite3_column_int64(st, 2);
        pm->metered = sqlite3_column_int64(st, 3) != 0;
        pm->unmetered = (uint64_t)sqlite3_column_int64(st, 4);
    }
    sqlite3_finalize(st);
    struct path_table_proc *table;
    size_t ntable;
    if (path_session_image(s, pm->session, &pm->image, &table, &ntable, err))
        return -1;
    uint64_t proc_start = 0;
    bool want_proc = proc != NULL;
    struct symtab *sy = NULL;
    if (want_proc) {
        const struct symbol *sym = NULL;
        if (symtab_open(pm->image, &sy, err) == 0)
            sym = symtab_find(sy, proc);
        if (!sym) {
            if (sy)
                symtab_close(sy);
            free(table);
            return ap_err_set(err, "no procedure '%s' in %s; alphaprof paths without --proc lists the hot ones",
                              proc, pm->image);
        }
        proc_start = sym->start;
        symtab_close(sy);
    }
    for (size_t k = 0; k < ntable && pm->metered; k++)
        if (table[k].metrics)
            pm->event = (int)table[k].metrics - 1;
    if (left_alone(pm, table, ntable, want_proc, proc_start)) {
        free(table);
        return ap_err_set(err, "out of memory");
    }
    if (sqlite3_prepare_v2(s, v8 ? "SELECT counter, sum(count), coalesce(sum(cycles), 0), coalesce(sum(event), 0) "
                                   "FROM path_counts WHERE session = ? GROUP BY counter ORDER BY counter"
                                 : "SELECT counter, sum(count), 0, 0 FROM path_counts WHERE session = ? "
                                   "GROUP BY counter ORDER BY counter", -1, &st, NULL) != SQLITE_OK) {
        free(table);
        return sql_error(s, err);
    }
    sqlite3_bind_int64(st, 1, session);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        uint64_t i = (uint64_t)sqlite3_column_int64(st, 0);
        const struct path_table_proc *p = NULL;
        uint32_t hid = 0;
        uint64_t hpath = 0;
        bool hashed = sqlite3_column_int64(st, 0) < 0;  /* a hashed path (path-region.h note 14) */
        if (hashed)
            path_hash_uncounter(sqlite3_column_int64(st, 0), &hid, &hpath);
        for (size_t k = 0; k < ntable && !p; k++)
            if (!table[k].instrumented || !(table[k].instrumented & PATH_HASHED) != !hashed)
                continue;
            else if (hashed ? table[k].base == hid && hpath < table[k].npaths
                            : i >= table[k].base && i < table[k].base + table[k].npaths)
                p = &table[k];
        uint64_t v[PM_NKEYS];
        for (int k = 0; k < PM_NKEYS; k++)
            v[k] = (uint64_t)sqlite3_column_int64(st, 1 + k);
        if (!p) {
            pm->unnamed += v[PM_COUNT];
            continue;
        }
        if (want_proc && p->start != proc_start)
            continue;
        struct hot_path *h = add_path(pm, &cap);
        h->proc = p->start;
        h->path = hashed ? hpath : i - p->base;
        for (int k = 0; k < PM_NKEYS; k++) {
            h->v[k] = v[k];
            pm->total[k] += v[k];
        }
    }
    sqlite3_finalize(st);
    /* --both: the counts per context (cct_path_counts, schema v11), with
     * --both --metrics their cycles and event (v12; an older file read as
     * it is has counts alone) */
#define CTX_PATHS_SQL(metrics)                                                                              \
    "SELECT (SELECT address FROM loadmaps l WHERE l.image = r.callee_image AND l.session = ?1 LIMIT 1) + "  \
    "r.callee, c.path, c.core, c.record, sum(c.count)" metrics " FROM cct_path_counts c JOIN cct_records r " \
    "ON r.session = c.session AND r.core = c.core AND r.id = c.record WHERE c.session = ?1 "               \
    "GROUP BY c.core, c.record, c.path"
    bool v12 = sqlite3_prepare_v2(s, CTX_PATHS_SQL(", coalesce(sum(c.cycles), 0), coalesce(sum(c.event), 0)"),
                                  -1, &st, NULL) == SQLITE_OK;
    if (v12 || sqlite3_prepare_v2(s, CTX_PATHS_SQL(""), -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, session);
        while (sqlite3_step(st) == SQLITE_ROW) {
            uint64_t start = (uint64_t)sqlite3_column_int64(st, 0), path = (uint64_t)sqlite3_column_int64(st, 1);
            uint64_t n = (uint64_t)sqlite3_column_int64(st, 4);
            bool named = false;
            for (size_t k = 0; k < ntable && !named; k++)
                named = table[k].start == start && (table[k].instrumented & PATH_PER_CONTEXT) &&
                        path < table[k].npaths;
            pm->contexts = true;
            if (!named) {
                pm->unnamed += n;
                continue;
            }
            if (want_proc && start != proc_start)
                continue;
            struct hot_path *h = NULL;
            for (size_t i = 0; i < pm->n && !by_context && !h; i++)
                if (pm->paths[i].proc == start && pm->paths[i].path == path)
                    h = &pm->paths[i];
            if (!h) {
                h = add_path(pm, &cap);
                h->proc = start;
                h->path = path;
                if (by_context) {
                    h->core = sqlite3_column_int(st, 2);
                    h->record = sqlite3_column_int64(st, 3);
                }
            }
            h->v[PM_COUNT] += n;
            pm->total[PM_COUNT] += n;
            for (int k = PM_CYCLES; k <= PM_EVENT && v12 && pm->metered; k++) {
                uint64_t m = (uint64_t)sqlite3_column_int64(st, 5 + k - PM_CYCLES);
                h->v[k] += m;
                pm->total[k] += m;
            }
        }
        sqlite3_finalize(st);
    }
#undef CTX_PATHS_SQL
    free(table);
    return 0;
}

static enum pm_key sort_key;

static int by_key(const void *a, const void *b)
{
    const struct hot_path *x = a, *y = b;
    if (x->v[sort_key] != y->v[sort_key])
        return x->v[sort_key] > y->v[sort_key] ? -1 : 1;
    if (x->v[PM_COUNT] != y->v[PM_COUNT])
        return x->v[PM_COUNT] > y->v[PM_COUNT] ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

void path_metrics_sort(struct path_metrics *pm, enum pm_key key)
{
    sort_key = key;
    if (pm->n)
        qsort(pm->paths, pm->n, sizeof *pm->paths, by_key);
}

double path_metrics_top_share(const struct path_metrics *pm, enum pm_key key, size_t k)
{
    if (!pm->total[key])
        return 0;
    uint64_t *v = malloc((pm->n + 1) * sizeof *v);
    if (!v)
        abort();
    for (size_t i = 0; i < pm->n; i++)
        v[i] = pm->paths[i].v[key];
    /* the k largest: a partial selection is enough for k << n */
    uint64_t sum = 0;
    for (size_t t = 0; t < k && t < pm->n; t++) {
        size_t best = t;
        for (size_t i = t + 1; i < pm->n; i++)
            if (v[i] > v[best])
                best = i;
        uint64_t x = v[t];
        v[t] = v[best];
        v[best] = x;
        sum += v[t];
    }
    free(v);
    return (double)sum / (double)pm->total[key];
}

void path_metrics_describe(const struct path_metrics *pm, size_t i, char *name, size_t nlen, char *buf,
                           size_t len)
{
    const struct hot_path *h = &pm->paths[i];
    snprintf(name, nlen, "0x%llx", (unsigned long long)h->proc);
    snprintf(buf, len, "(blocks unknown)");
    struct symtab *sy;
    struct ap_err err;
    if (symtab_open(pm->image, &sy, &err))
        return;
    const struct symbol *sym = symtab_lookup(sy, h->proc);
    struct path_patch *patches = NULL;
    size_t npatches = 0;
    if (sym && sym->start == h->proc) {
        snprintf(name, nlen, "%s", sym->name);
        instrument_path_patches(pm->image, &patches, &npatches, &err);
        struct calc_proc cfg;
        struct bl_proc bl;
        if (path_plan_number(sy, sym, patches, npatches, &cfg, &bl) == 0) {
            struct bl_path p;
            if (bl_regenerate(&bl, h->path, &p) == 0) {
                size_t at = 0;
                buf[0] = 0;
                const char *last_file = NULL;
                uint32_t last_line = 0;
                if (p.from_backedge && len > 2)
                    at += (size_t)snprintf(buf, len, "(loop) ");
                for (size_t b = 0; b < p.n && at + 1 < len; b++) {
                    uint64_t pc = cfg.insns[cfg.blocks[p.blocks[b]].first].pc;
                    const struct source_line *l = symtab_line(sy, pc);
                    if (l && l->file == last_file && l->line == last_line)
                        continue;
                    const char *base = l ? strrchr(l->file, '/') : NULL;
                    if (l)
                        at += (size_t)snprintf(buf + at, len - at, "%s%s:%u", at && b ? " > " : "",
                                               base ? base + 1 : l->file, l->line);
                    else
                        at += (size_t)snprintf(buf + at, len - at, "%s0x%llx", at && b ? " > " : "",
                                               (unsigned long long)pc);
                    if (l) {
                        last_file = l->file;
                        last_line = l->line;
                    }
                }
                if (at + 1 < len)
                    snprintf(buf + at, len - at, p.to_backedge ? " (backedge)" : "");
                bl_path_free(&p);
            }
            bl_free(&bl);
            calc_proc_free(&cfg);
        }
    }
    free(patches);
    symtab_close(sy);
}

void path_metrics_free(struct path_metrics *pm)
{
    free(pm->paths);
    free(pm->image);
    free(pm->too_many);
    memset(pm, 0, sizeof *pm);
}
