/* Value profiles from the database: see value-view.h. */
#include "util/value-view.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/model/issue-rules.h"

static int sql_fail(sqlite3 *db, struct ap_err *err)
{
    return ap_err_set(err, "reading the value tables of the profile database: %s", sqlite3_errmsg(db));
}

static const char *image_filter(const struct pv_selection *sel, const char *col)
{
    static char buf[128];
    if (!sel->image)
        return "";
    snprintf(buf, sizeof buf, " AND %s IN (SELECT id FROM images WHERE name = ?3)", col);
    return buf;
}

static void bind_selection(sqlite3_stmt *st, const struct pv_selection *sel, int64_t epoch, int kind)
{
    sqlite3_bind_int64(st, 1, epoch);
    sqlite3_bind_int(st, 2, sel->core);
    if (sel->image)
        sqlite3_bind_text(st, 3, sel->image, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 4, kind);
}

static int load_images(sqlite3 *db, const struct pv_selection *sel, struct value_view *v, struct ap_err *err)
{
    char sql[768];
    snprintf(sql, sizeof sql,
             "SELECT s.image, coalesce(i.name, '[unknown]'), i.path, "
             "       (SELECT address FROM loadmaps l WHERE l.image = s.image ORDER BY session DESC LIMIT 1), "
             "       i.build_id "
             "FROM (SELECT DISTINCT image FROM value_lists WHERE (?1 < 0 OR epoch = ?1) "
             "      AND (?2 < 0 OR core = ?2)%s AND (?4 < 0 OR kind = ?4)) s "
             "LEFT JOIN images i ON i.id = s.image ORDER BY s.image", image_filter(sel, "image"));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch, -1);
    return pv_read_images(db, st, &v->images, &v->nimages, err);
}

static const char *proc_of(const struct pv_image *img, uint64_t offset)
{
    if (!img || !img->st)
        return NULL;
    const struct symbol *s = symtab_lookup(img->st, img->address + offset);
    return s ? s->name : NULL;
}

static int cmp_values(const void *a, const void *b)
{
    const struct vv_value *x = a, *y = b;
    if (x->estimate != y->estimate)
        return x->estimate > y->estimate ? -1 : 1;
    return x->value < y->value ? -1 : x->value > y->value;
}

/* The Wilson score interval's lower end of the top value's share among
 * the values offered: ranks a value seen 18000 times in 18000 above one
 * seen 5 times in 5. */
static double top_share(const struct vv_row *r)
{
    if (!r->nvalues || !r->offered)
        return 0;
    double p = r->values[0].share, n = (double)r->offered, z = 1.96;
    return (p + z * z / (2 * n) - z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n);
}

static int cmp_rows(const void *a, const void *b)
{
    const struct vv_row *x = a, *y = b;
    double sx = top_share(x), sy = top_share(y);
    if (sx != sy)
        return sx > sy ? -1 : 1;
    if (x->offered != y->offered)
        return x->offered > y->offered ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return (int)x->kind - (int)y->kind;
}

int vv_load(struct pdb *pdb, const struct pv_selection *sel, int kind, const char *proc,
            struct value_view *v, struct ap_err *err)
{
    memset(v, 0, sizeof *v);
    sqlite3 *db = pdb_sqlite(pdb);
    v->epoch = sel->epoch;
    if (v->epoch == 0 && pdb_current_epoch(pdb, &v->epoch, err) != 0)
        return -1;
    if (load_images(db, sel, v, err))
        return -1;

    /* the hotlists: one row per (image, offset, kind), cores summed */
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT image, offset, kind, sum(offered) FROM value_lists "
             "WHERE (?1 < 0 OR epoch = ?1) AND (?2 < 0 OR core = ?2)%s AND (?4 < 0 OR kind = ?4) "
             "GROUP BY image, offset, kind ORDER BY image, offset, kind", image_filter(sel, "image"));
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    bind_selection(st, sel, v->epoch, kind);
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        struct pv_image *img = pv_image_by_id(v->images, v->nimages, sqlite3_column_int64(st, 0));
        uint64_t offset = (uint64_t)sqlite3_column_int64(st, 1);
        const char *p = proc_of(img, offset);
        if (proc && (!p || strcmp(p, proc) != 0))
            continue;
        if (v->nrows == cap) {
            cap = cap ? cap * 2 : 64;
            v->rows = realloc(v->rows, cap * sizeof *v->rows);
            if (!v->rows) {
                sqlite3_finalize(st);
                return ap_err_set(err, "out of memory");
            }
        }
        v->rows[v->nrows++] = (struct vv_row){img, offset, (unsigned)sqlite3_column_int(st, 2), p,
                                              (uint64_t)sqlite3_column_int64(st, 3), 0, NULL};
    }
    sqlite3_finalize(st);

    /* the values of each row, cores summed */
    snprintf(sql, sizeof sql,
             "SELECT value, sum(samples), sum(estimate), sum(variance) FROM value_counts "
             "WHERE (?1 < 0 OR epoch = ?1) AND (?2 < 0 OR core = ?2) AND image = ?5 AND offset = ?6 AND kind = ?4 "
             "GROUP BY value");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return sql_fail(db, err);
    for (size_t i = 0; i < v->nrows; i++) {
        struct vv_row *r = &v->rows[i];
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, v->epoch);
        sqlite3_bind_int(st, 2, sel->core);
        sqlite3_bind_int(st, 4, (int)r->kind);
        sqlite3_bind_int64(st, 5, r->img ? r->img->id : 0);
        sqlite3_bind_int64(st, 6, (int64_t)r->offset);
        size_t vcap = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            if (r->nvalues == vcap) {
                vcap = vcap ? vcap * 2 : 16;
                r->values = realloc(r->values, vcap * sizeof *r->values);
                if (!r->values) {
                    sqlite3_finalize(st);
                    return ap_err_set(err, "out of memory");
                }
            }
            struct vv_value *x = &r->values[r->nvalues++];
            x->value = (uint64_t)sqlite3_column_int64(st, 0);
            x->samples = (uint64_t)sqlite3_column_int64(st, 1);
            x->estimate = sqlite3_column_double(st, 2);
            /* two sources of error: the concise sample's (its variance)
             * and which executions value sampling saw (binomial) */
            double n = r->offered ? (double)r->offered : 1;
            x->share = fmin(1, x->estimate / n);
            double sd = sqrt(sqlite3_column_double(st, 3) / (n * n) + x->share * (1 - x->share) / n);
            x->ci_lo = fmax(0, x->share - 1.96 * sd);
            x->ci_hi = fmin(1, x->share + 1.96 * sd);
        }
        if (r->nvalues)
            qsort(r->values, r->nvalues, sizeof *r->values, cmp_values);
    }
    sqlite3_finalize(st);
    if (v->nrows)
        qsort(v->rows, v->nrows, sizeof *v->rows, cmp_rows);
    return 0;
}

void vv_free(struct value_view *v)
{
    for (size_t i = 0; i < v->nrows; i++)
        free(v->rows[i].values);
    free(v->rows);
    pv_free_images(v->images, v->nimages);
    memset(v, 0, sizeof *v);
}

enum vv_bin vv_latency_bin(uint64_t cycles)
{
    struct model_params p;
    model_params_default(&p);
    if (cycles <= (p.l1_latency + p.l2_latency) / 2)
        return VV_L1;
    if (cycles <= (p.l2_latency + p.memory_latency) / 2)
        return VV_L2;
    return VV_MEMORY;
}

const char *vv_bin_name(enum vv_bin b)
{
    static const char *const names[VV_NBINS] = {"L1", "L2", "memory"};
    return b < VV_NBINS ? names[b] : "?";
}
