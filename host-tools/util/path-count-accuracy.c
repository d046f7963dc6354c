/* Instrumented path counts against the model's: see path-count-accuracy.h. */
#include "util/path-count-accuracy.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/abi/path-region.h"
#include "hw-model/oracle-format.h"
#include "util/instrument.h"
#include "util/oracle-file.h"
#include "util/symbols.h"

static int sql_error(sqlite3 *db, struct ap_err *err)
{
    return ap_err_set(err, "cannot read the path counts: %s", sqlite3_errmsg(db));
}

static void note_worst(struct path_count_accuracy *a, uint64_t proc, uint64_t path, uint64_t profile, uint64_t truth)
{
    uint64_t d = profile > truth ? profile - truth : truth - profile;
    unsigned i = a->nworst < PCA_WORST ? a->nworst++ : PCA_WORST - 1;
    const struct path_count_mismatch *last = &a->worst[i];
    if (i == PCA_WORST - 1 && a->nworst == PCA_WORST &&
        (last->profile > last->truth ? last->profile - last->truth : last->truth - last->profile) >= d)
        return;
    a->worst[i] = (struct path_count_mismatch){.proc = proc, .path = path, .profile = profile, .truth = truth};
    for (; i > 0; i--) {
        const struct path_count_mismatch *x = &a->worst[i - 1];
        if ((x->profile > x->truth ? x->profile - x->truth : x->truth - x->profile) >= d)
            break;
        struct path_count_mismatch t = a->worst[i - 1];
        a->worst[i - 1] = a->worst[i];
        a->worst[i] = t;
    }
}

/* The oracle's PATH.blpaths (header and records, by proc then path). */
static struct oracle_blpath *read_blpaths(const char *oracle_path, struct oracle_blpaths_header *h,
                                          struct ap_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s.blpaths", oracle_path);
    FILE *f = fopen(path, "rb");
    if (!f) {
        ap_err_set(err, "%s: %s; record the instrumented image with --oracle %s", path, strerror(errno),
                   oracle_path);
        return NULL;
    }
    struct oracle_blpath *p = NULL;
    if (fread(h, sizeof *h, 1, f) != 1 || h->magic != ORACLE_BLPATHS_MAGIC || h->version != ORACLE_BLPATHS_VERSION ||
        h->n > (1ull << 32) || !(p = calloc(h->n + 1, sizeof *p)) || fread(p, sizeof *p, h->n, f) != h->n) {
        free(p);
        p = NULL;
        ap_err_set(err, "%s: not the model's path counts of this build; record again", path);
    }
    fclose(f);
    struct oracle_header oh;
    if (p && oracle_read_header(oracle_path, &oh, err)) {
        free(p);
        p = NULL;
    } else if (p && oh.run_id != h->run_id) {
        ap_err_set(err, "%s is of another run than %s; record again", path, oracle_path);
        free(p);
        p = NULL;
    }
    return p;
}

/* A hashed path's count (path-region.h note 14), summed over cores. */
struct hashed_count {
    uint32_t id;
    uint64_t path, count;
    bool named;
};

static int by_id_path(const void *a, const void *b)
{
    const struct hashed_count *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

static struct hashed_count *push_hashed(struct hashed_count **h, size_t *n, size_t *cap)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *h = realloc(*h, *cap * sizeof **h);
        if (!*h)
            abort();
    }
    return &(*h)[(*n)++];
}

/* Sorted by (id, path), with the counts of equal ones summed into one (a
 * --both path counted in several contexts and context-free, path-region.h
 * note 15); the new count. */
static size_t sort_hashed(struct hashed_count *h, size_t n)
{
    if (!n)
        return 0;
    qsort(h, n, sizeof *h, by_id_path);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (by_id_path(&h[i], &h[m - 1]) == 0)
            h[m - 1].count += h[i].count;
        else
            h[m++] = h[i];
    return m;
}

/* The first of t[0, n) at or after (proc, path). */
static uint64_t truth_from(const struct oracle_blpath *t, uint64_t n, uint64_t proc, uint64_t path)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (t[mid].proc < proc || (t[mid].proc == proc && t[mid].path < path))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One path of an instrumented procedure: got counted, want by the truth. */
static void one_path(struct path_count_accuracy *a, uint64_t proc, uint64_t path, uint64_t got, uint64_t want)
{
    a->paths_profile += got;
    a->paths_truth += want;
    a->distinct_profile += got > 0;
    a->distinct_truth += want > 0;
    a->distinct_equal += got == want && got > 0;
    if (got != want) {
        a->path_count_error += got > want ? got - want : want - got;
        note_worst(a, proc, path, got, want);
    }
}

/* A hashed procedure's paths (path-region.h note 14): its counted ones
 * h[0, nh) (by path) merged with the truth's, by path. */
static void hashed_paths(struct path_count_accuracy *a, const struct path_table_proc *p, struct hashed_count *h,
                         size_t nh, const struct oracle_blpath *t, uint64_t n)
{
    uint64_t i = truth_from(t, n, p->start, 0);
    size_t k = 0;
    a->procs_hashed++;
    while (k < nh || (i < n && t[i].proc == p->start)) {
        bool tk = i < n && t[i].proc == p->start;
        uint64_t path = k < nh && (!tk || h[k].path <= t[i].path) ? h[k].path : t[i].path;
        uint64_t got = 0, want = 0;
        if (k < nh && h[k].path == path) {
            got = h[k].count;
            h[k++].named = true;
        }
        if (tk && t[i].path == path)
            want = t[i++].count;
        one_path(a, p->start, path, got, want);
    }
}

static const struct oracle_blpath *truth_of(const struct oracle_blpath *t, uint64_t n, uint64_t proc, uint64_t path)
{
    uint64_t lo = truth_from(t, n, proc, path);
    return lo < n && t[lo].proc == proc && t[lo].path == path ? &t[lo] : NULL;
}

int path_session_image(sqlite3 *s, int64_t session, char **image, struct path_table_proc **table, size_t *ntable,
                       struct ap_err *err)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(s, "SELECT DISTINCT i.path, i.build_id FROM images i JOIN loadmaps l ON l.image = i.id "
                              "WHERE l.session = ? AND i.path IS NOT NULL", -1, &st, NULL) != SQLITE_OK)
        return sql_error(s, err);
    sqlite3_bind_int64(st, 1, session);
    *table = NULL;
    *ntable = 0;
    struct ap_err why = {{0}};
    while (*ntable == 0 && sqlite3_step(st) == SQLITE_ROW) {
        struct ap_err e2;
        const char *path = (const char *)sqlite3_column_text(st, 0);
        free(*table);
        *table = NULL;
        if (instrument_path_table(path, table, ntable, &e2))
            *ntable = 0;
        else if (*ntable && !symtab_same_build(path, sqlite3_column_blob(st, 1),
                                               (size_t)sqlite3_column_bytes(st, 1), &why)) {
            free(*table);
            *table = NULL;
            *ntable = 0;
        }
        if (*ntable && image) {
            *image = strdup(path);
            if (!*image)
                abort();
        }
    }
    sqlite3_finalize(st);
    if (!*ntable && why.msg[0])
        return ap_err_set(err, "session %lld's path counts: %s", (long long)session, why.msg);
    if (!*ntable)
        return ap_err_set(err, "session %lld has path counts but no image of it with a path table can be read; "
                          "keep the instrumented image where it was recorded", (long long)session);
    return 0;
}

int path_counts_session(sqlite3 *s, int64_t *session, struct ap_err *err)
{
    sqlite3_stmt *st;
    int64_t has = 0;
    if (sqlite3_prepare_v2(s, "SELECT count(*) FROM sqlite_schema WHERE name = 'path_cores'", -1, &st, NULL) !=
        SQLITE_OK)
        return sql_error(s, err);
    if (sqlite3_step(st) == SQLITE_ROW)
        has = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (!has) {
        *session = 0;
        return 0;
    }
    if (*session == 0) {
        if (sqlite3_prepare_v2(s, "SELECT coalesce(max(session), 0) FROM path_cores", -1, &st, NULL) != SQLITE_OK)
            return sql_error(s, err);
        if (sqlite3_step(st) == SQLITE_ROW)
            *session = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
    }
    return 0;
}

/* The procedures the report names, by their symbols (left empty when the
 * image's symbols cannot be read: the report shows addresses then). */
static void name_procs(struct path_count_accuracy *a, const char *image)
{
    struct symtab *sy = NULL;
    struct ap_err e2;
    if (!image || symtab_open(image, &sy, &e2))
        return;
    for (unsigned i = 0; i < a->nworst; i++) {
        const struct symbol *sym = symtab_lookup(sy, a->worst[i].proc);
        snprintf(a->worst[i].name, sizeof a->worst[i].name, "%s", sym ? sym->name : "");
    }
    for (unsigned i = 0; i < a->nleft_alone; i++) {
        const struct symbol *sym = symtab_lookup(sy, a->left_alone[i].start);
        snprintf(a->left_alone[i].name, sizeof a->left_alone[i].name, "%s", sym ? sym->name : "");
    }
    symtab_close(sy);
}

int path_count_accuracy(struct pdb *db, int64_t session, const char *oracle_path, struct path_count_accuracy *a,
                        struct ap_err *err)
{
    memset(a, 0, sizeof *a);
    sqlite3 *s = pdb_sqlite(db);
    sqlite3_stmt *st;
    if (path_counts_session(s, &session, err))
        return -1;
    if (session == 0)
        return 0;
    a->session = session;
    a->present = true;
    if (sqlite3_prepare_v2(s, "SELECT sum(lost_paths), sum(unmatched_exits), sum(bad_paths), "
                              "coalesce(max(metered), 0), coalesce(sum(unmetered), 0) FROM path_cores "
                              "WHERE session = ?", -1, &st, NULL) != SQLITE_OK)
        return sql_error(s, err);
    sqlite3_bind_int64(st, 1, session);
    if (sqlite3_step(st) == SQLITE_ROW) {
        a->lost_paths = (uint64_t)sqlite3_column_int64(st, 0);
        a->unmatched_exits = (uint64_t)sqlite3_column_int64(st, 1);
        a->bad_paths = (uint64_t)sqlite3_column_int64(st, 2);
        a->metered = sqlite3_column_int64(st, 3) != 0;
        a->unmetered = (uint64_t)sqlite3_column_int64(st, 4);
    }
    a->event = -1;
    sqlite3_finalize(st);
    /* the instrumented image: the session's image with a path table */
    struct path_table_proc *table = NULL;
    size_t ntable = 0;
    char *image = NULL;
    if (path_session_image(s, session, &image, &table, &ntable, err))
        return -1;
    /* counters by index, summed over cores */
    uint64_t ncount = 0;
    for (size_t k = 0; k < ntable; k++)
        if (table[k].instrumented && !(table[k].instrumented & PATH_HASHED) &&
            table[k].base + table[k].npaths > ncount)
            ncount = table[k].base + table[k].npaths;
    for (size_t k = 0; k < ntable && a->metered; k++)
        if (table[k].metrics)
            a->event = (int)table[k].metrics - 1;
    uint64_t *count = calloc(3 * (ncount + 1), sizeof *count);    /* count, cycles, event */
    struct hashed_count *hashed = NULL;
    size_t nhashed = 0, hcap = 0;
    if (sqlite3_prepare_v2(s, "SELECT counter, sum(count), coalesce(sum(cycles), 0), coalesce(sum(event), 0) "
                              "FROM path_counts WHERE session = ? GROUP BY counter", -1, &st, NULL) != SQLITE_OK) {
        free(table);
        free(count);
        free(image);
        return sql_error(s, err);
    }
    sqlite3_bind_int64(st, 1, session);
    while (sqlite3_step(st) == SQLITE_ROW) {
        uint64_t i = (uint64_t)sqlite3_column_int64(st, 0), n = (uint64_t)sqlite3_column_int64(st, 1);
        if (sqlite3_column_int64(st, 0) < 0) {     /* a hashed path (path-region.h note 14) */
            struct hashed_count *x = push_hashed(&hashed, &nhashed, &hcap);
            path_hash_uncounter(sqlite3_column_int64(st, 0), &x->id, &x->path);
            x->count = n;
            x->named = false;
        } else if (i < ncount) {
            count[3 * i] += n;
            count[3 * i + 1] += (uint64_t)sqlite3_column_int64(st, 2);
            count[3 * i + 2] += (uint64_t)sqlite3_column_int64(st, 3);
        } else {
            a->unnamed += n;
        }
    }
    sqlite3_finalize(st);
    /* --both (cct-region.h note 13): the paths counted per context add to
     * their procedure's context-free counters, with --both --metrics their
     * metrics too (note 16; schema v12's columns: an older file, read as it
     * is, has counts alone) */
#define CTX_PATHS_SQL(metrics)                                                                             \
    "SELECT (SELECT address FROM loadmaps l WHERE l.image = r.callee_image AND l.session = ?1 LIMIT 1) + " \
    "r.callee, c.path, sum(c.count)" metrics " FROM cct_path_counts c JOIN cct_records r ON "            \
    "r.session = c.session AND r.core = c.core AND r.id = c.record WHERE c.session = ?1 GROUP BY 1, 2"
    bool v12 = sqlite3_prepare_v2(s, CTX_PATHS_SQL(", coalesce(sum(c.cycles), 0), coalesce(sum(c.event), 0)"),
                                  -1, &st, NULL) == SQLITE_OK;
    if (v12 || sqlite3_prepare_v2(s, CTX_PATHS_SQL(""), -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, session);
        while (sqlite3_step(st) == SQLITE_ROW) {
            uint64_t proc = (uint64_t)sqlite3_column_int64(st, 0), path = (uint64_t)sqlite3_column_int64(st, 1);
            uint64_t n = (uint64_t)sqlite3_column_int64(st, 2);
            const struct path_table_proc *p = NULL;
            for (size_t k = 0; k < ntable && !p; k++)
                if (table[k].start == proc && (table[k].instrumented & PATH_PER_CONTEXT) && path < table[k].npaths)
                    p = &table[k];
            a->context_paths += n;
            if (p && (p->instrumented & PATH_HASHED)) {    /* per context in the hash table (note 15) */
                *push_hashed(&hashed, &nhashed, &hcap) = (struct hashed_count){.id = p->base, .path = path, .count = n};
            } else if (p) {
                count[3 * (p->base + path)] += n;
                if (v12) {
                    count[3 * (p->base + path) + 1] += (uint64_t)sqlite3_column_int64(st, 3);
                    count[3 * (p->base + path) + 2] += (uint64_t)sqlite3_column_int64(st, 4);
                }
            } else {
                a->unnamed += n;
            }
        }
        sqlite3_finalize(st);
    }
#undef CTX_PATHS_SQL
    nhashed = sort_hashed(hashed, nhashed);
    struct oracle_blpaths_header h;
    struct oracle_blpath *truth = read_blpaths(oracle_path, &h, err);
    if (!truth) {
        free(table);
        free(count);
        free(hashed);
        free(image);
        return -1;
    }
    a->truth_unknown = h.unknown;
    a->truth_lost = h.lost;
    for (size_t k = 0; k < ntable; k++) {
        const struct path_table_proc *p = &table[k];
        if (!p->instrumented) {
            uint64_t ran = 0;
            for (uint64_t i = 0; i < h.n; i++)
                if (truth[i].proc == p->start)
                    ran += truth[i].count;
            a->paths_left_alone += ran;
            a->procs_left_alone_run += ran > 0;
            if (ran && a->nleft_alone < PCA_WORST) {
                a->left_alone[a->nleft_alone].start = p->start;
                a->left_alone[a->nleft_alone].executions = ran;
                a->left_alone[a->nleft_alone++].why = p->status;
            }
            continue;
        }
        a->procs_instrumented++;
        if (p->instrumented & PATH_HASHED) {
            size_t lo = 0;
            while (lo < nhashed && hashed[lo].id < p->base)
                lo++;
            size_t hi = lo;
            while (hi < nhashed && hashed[hi].id == p->base && hashed[hi].path < p->npaths)
                hi++;
            hashed_paths(a, p, hashed + lo, hi - lo, truth, h.n);
            continue;
        }
        for (uint64_t r = 0; r < p->npaths; r++) {
            const struct oracle_blpath *tp = truth_of(truth, h.n, p->start, r);
            uint64_t got = count[3 * (p->base + r)], want = tp ? tp->count : 0;
            if (a->event >= 0 && tp) {
                const uint64_t truth_m[2] = {tp->metric[PMU_EV_CYCLES], tp->metric[a->event]};
                for (unsigned k = 0; k < 2; k++) {
                    uint64_t pm = count[3 * (p->base + r) + 1 + k];
                    a->metric_profile[k] += pm;
                    a->metric_truth[k] += truth_m[k];
                    a->metric_abs_diff[k] += pm > truth_m[k] ? pm - truth_m[k] : truth_m[k] - pm;
                }
            }
            one_path(a, p->start, r, got, want);
        }
    }
    for (size_t k = 0; k < nhashed; k++)    /* no hashed procedure of the table's, or past its npaths */
        if (!hashed[k].named)
            a->unnamed += hashed[k].count;
    for (unsigned k = 0; k < 2 && a->event >= 0; k++) {
        a->path_metric_error[k] = a->metric_truth[k] ? (double)a->metric_abs_diff[k] / (double)a->metric_truth[k]
                                                     : (a->metric_abs_diff[k] ? 1 : 0);
        a->metric_bias[k] = a->paths_profile ? ((double)a->metric_profile[k] - (double)a->metric_truth[k]) /
                                                   (double)a->paths_profile
                                             : 0;
    }
    free(truth);
    free(table);
    free(count);
    free(hashed);
    name_procs(a, image);
    free(image);
    return 0;
}
