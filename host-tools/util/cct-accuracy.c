/*
 * check --cct (util/cct-accuracy.h).
 */
#include "util/cct-accuracy.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/oracle-format.h"
#include "firmware/abi/path-region.h"
#include "util/instrument.h"
#include "util/oracle-file.h"
#include "util/symbols.h"

#define NO_CANON ((size_t)-1)
#define OUTSIDE ((size_t)-2)            /* an oracle record under a call from outside the image's code */

struct canon {
    size_t parent;
    uint64_t site, callee;
    int core;
    unsigned depth;
    const struct cv_node *node;
    uint64_t profile, oracle;
    uint64_t profile_m[CCT_ACC_NMETRICS], oracle_m[CCT_ACC_NMETRICS];  /* inclusive metrics */
    bool in_profile, in_oracle;
};

struct trie {
    struct canon *c;
    size_t n, cap;
    size_t *table;                      /* indices + 1; 0 empty */
    size_t tsize;
};

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ b * 0xc2b2ae3d27d4eb4fULL ^ c * 0x165667b19e3779f9ULL;
    return h ^ (h >> 31);
}

static void rehash(struct trie *t)
{
    free(t->table);
    t->tsize = t->tsize ? 2 * t->tsize : 1024;
    t->table = calloc(t->tsize, sizeof *t->table);
    if (!t->table)
        abort();
    for (size_t i = 0; i < t->n; i++) {
        size_t h = mix(t->c[i].parent, t->c[i].site, t->c[i].callee) & (t->tsize - 1);
        while (t->table[h])
            h = (h + 1) & (t->tsize - 1);
        t->table[h] = i + 1;
    }
}

/* The context (parent, site, callee), made if new.  Roots: parent
 * NO_CANON, site = the core. */
static size_t context(struct trie *t, size_t parent, uint64_t site, uint64_t callee, int core)
{
    if (t->tsize == 0 || 2 * (t->n + 1) > t->tsize)
        rehash(t);
    size_t h = mix(parent, site, callee) & (t->tsize - 1);
    for (; t->table[h]; h = (h + 1) & (t->tsize - 1)) {
        const struct canon *x = &t->c[t->table[h] - 1];
        if (x->parent == parent && x->site == site && x->callee == callee)
            return t->table[h] - 1;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->c = realloc(t->c, t->cap * sizeof *t->c);
        if (!t->c)
            abort();
    }
    t->c[t->n] = (struct canon){.parent = parent, .site = site, .callee = callee, .core = core,
                                .depth = parent == NO_CANON ? 0 : t->c[parent].depth + 1};
    t->table[h] = t->n + 1;
    return t->n++;
}

static int read_oracle(const char *oracle_path, struct oracle_cct_record **recs, uint64_t *n, struct ap_err *err)
{
    struct oracle_header oh;
    if (oracle_read_header(oracle_path, &oh, err))
        return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s.cct", oracle_path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ap_err_set(err, "%s: no calling-context oracle beside the oracle; record with this alphaprof "
                          "and --oracle on the hardware model's full mode", path);
    struct oracle_cct_header h;
    int rc = -1;
    if (fread(&h, sizeof h, 1, f) != 1 || h.magic != ORACLE_CCT_MAGIC)
        ap_err_set(err, "%s: not a calling-context oracle", path);
    else if (h.version != ORACLE_CCT_VERSION)
        ap_err_set(err, "%s: calling-context oracle version %u, this alphaprof reads %u (with each context's "
                   "cycles and instructions); record again with this alphaprof and --oracle", path,
                   h.version, ORACLE_CCT_VERSION);
    else if (h.run_id != oh.run_id)
        ap_err_set(err, "%s is of another run than %s; record again", path, oracle_path);
    else if (h.nrecords > (1u << 28))
        ap_err_set(err, "%s: %llu records is more than a run makes; the file is damaged", path,
                   (unsigned long long)h.nrecords);
    else {
        *recs = malloc((h.nrecords ? h.nrecords : 1) * sizeof **recs);
        if (fread(*recs, sizeof **recs, h.nrecords, f) != h.nrecords) {
            ap_err_set(err, "%s: cut short; record again", path);
            free(*recs);
            *recs = NULL;
        } else {
            *n = h.nrecords;
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

static const struct instrument_site_map *find_call(const struct instrument_site_map *m, size_t n, uint64_t call)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m[mid].call == call)
            return &m[mid];
        if (m[mid].call < call)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void keep_worst(struct cct_accuracy *a, const struct canon *c)
{
    uint64_t d = c->profile > c->oracle ? c->profile - c->oracle : c->oracle - c->profile;
    size_t k = a->nworst < CCT_ACC_WORST ? a->nworst++ : CCT_ACC_WORST - 1;
    if (k == CCT_ACC_WORST - 1 && a->nworst == CCT_ACC_WORST) {
        const struct cct_mismatch *w = &a->worst[k];
        uint64_t dw = w->profile > w->oracle ? w->profile - w->oracle : w->oracle - w->profile;
        if (dw >= d)
            return;
    }
    a->worst[k] = (struct cct_mismatch){c->core, c->site, c->callee, c->depth, c->node, c->profile, c->oracle};
    for (; k > 0; k--) {
        struct cct_mismatch *x = &a->worst[k - 1], *y = &a->worst[k];
        uint64_t dx = x->profile > x->oracle ? x->profile - x->oracle : x->oracle - x->profile;
        if (dx >= d)
            break;
        struct cct_mismatch t = *x;
        *x = *y;
        *y = t;
    }
}

/* Both trees on one trie (the header's matching): canon_of[i] the context
 * of the profile's node i, ocanon[k] that of the oracle's record k
 * (NO_CANON: the instrumentation's own call, or under one; OUTSIDE: a
 * call from code in no function of the image, or under one). */
struct match {
    struct trie t;
    size_t *canon_of, *ocanon;
    struct oracle_cct_record *recs;
    uint64_t nrecs;
    uint64_t instrumentation_calls;
    uint64_t outside_calls;             /* under a call from code in no function of the image */
};

static void match_free(struct match *m)
{
    free(m->canon_of);
    free(m->ocanon);
    free(m->t.c);
    free(m->t.table);
    free(m->recs);
}

static int match(const struct cct_view *v, const char *oracle_path, struct match *mt, struct ap_err *err)
{
    memset(mt, 0, sizeof *mt);
    struct oracle_cct_record *recs = NULL;
    uint64_t nrecs = 0;
    if (read_oracle(oracle_path, &recs, &nrecs, err))
        return -1;
    struct instrument_site_map *map = NULL;
    size_t nmap = 0;
    uint64_t lo = 0, hi = 0;
    struct symtab *code = NULL;         /* the instrumented image's functions */
    for (size_t i = 0; i < v->nimages && nmap == 0; i++) {
        if (!v->images[i].path)
            continue;
        free(map);
        struct ap_err e2;
        if (instrument_site_table(v->images[i].path, &map, &nmap, &lo, &hi, &e2))
            nmap = 0;
        else if (nmap && v->images[i].st_error) {
            /* another build's site table would map the trampolines to other sites */
            ap_err_set(err, "%s", v->images[i].st_error);
            free(map);
            free(recs);
            if (code)
                symtab_close(code);
            return -1;
        } else if (nmap) {
            if (code)
                symtab_close(code);
            if (symtab_open(v->images[i].path, &code, &e2))
                code = NULL;
        }
    }
    struct trie t = {0};
    /* the profile: records come parents first (by core, id) */
    size_t *canon_of = malloc((v->nnodes ? v->nnodes : 1) * sizeof *canon_of);
    for (size_t i = 0; i < v->nnodes; i++) {
        const struct cv_node *n = &v->nodes[i];
        size_t c;
        if (n->id == 0)
            c = context(&t, NO_CANON, (uint64_t)n->core, 0, n->core);
        else if (n->parent == CV_NO_NODE)       /* the overflow record: no context of the truth */
            c = context(&t, context(&t, NO_CANON, (uint64_t)n->core, 0, n->core), 0, 1, n->core);
        else
            c = context(&t, canon_of[n->parent], n->site_addr, n->callee_addr, n->core);
        canon_of[i] = c;
        t.c[c].profile += n->calls;
        t.c[c].profile_m[CCT_ACC_CYCLES] += n->cycles;
        t.c[c].profile_m[CCT_ACC_RETIRED] += n->retired;
        t.c[c].in_profile |= n->parent != CV_NO_NODE || n->id == 0 || n->calls > 0;
        if (!t.c[c].node)
            t.c[c].node = n;
    }
    /* the truth: records come parents first (by core, id) */
    size_t *ocanon = malloc((nrecs ? nrecs : 1) * sizeof *ocanon);
    uint64_t first = 0;
    for (uint64_t i = 0; i < nrecs; i++) {
        const struct oracle_cct_record *r = &recs[i];
        if (i == 0 || r->core != recs[i - 1].core)
            first = i;
        if (r->id == 0) {
            ocanon[i] = context(&t, NO_CANON, r->core, 0, (int)r->core);
            continue;
        }
        size_t parent = r->parent < r->id && first + r->parent < i ? ocanon[first + r->parent] : NO_CANON;
        uint64_t site = r->site;
        bool trampoline = nmap && site >= lo && site < hi;
        if (parent == OUTSIDE || (parent != NO_CANON && !trampoline && code && !symtab_lookup(code, site))) {
            ocanon[i] = OUTSIDE;                    /* code the image made at run time, or under it */
            mt->outside_calls += r->calls;
            continue;
        }
        if (trampoline) {
            const struct instrument_site_map *m = find_call(map, nmap, site);
            site = m ? m->site : 0;
        }
        if (parent == NO_CANON || site == 0) {      /* the instrumentation's own call, or under one */
            ocanon[i] = NO_CANON;
            mt->instrumentation_calls += r->calls;
            continue;
        }
        size_t c = context(&t, parent, site, r->callee, (int)r->core);
        ocanon[i] = c;
        t.c[c].oracle += r->calls;
        t.c[c].oracle_m[CCT_ACC_CYCLES] += r->cycles;
        t.c[c].oracle_m[CCT_ACC_RETIRED] += r->retired;
        t.c[c].in_oracle = true;
    }
    free(map);
    if (code)
        symtab_close(code);
    mt->t = t;
    mt->canon_of = canon_of;
    mt->ocanon = ocanon;
    mt->recs = recs;
    mt->nrecs = nrecs;
    return 0;
}

int cct_accuracy(const struct cct_view *v, const char *oracle_path, struct cct_accuracy *a, struct ap_err *err)
{
    memset(a, 0, sizeof *a);
    struct match mt;
    if (match(v, oracle_path, &mt, err))
        return -1;
    const struct trie t = mt.t;
    a->instrumentation_calls = mt.instrumentation_calls;
    a->outside_calls = mt.outside_calls;
    for (size_t k = 0; k < v->ncores; k++) {
        a->skipped_calls += v->cores[k].skipped_calls;
        a->overflow_calls += v->cores[k].overflow_calls;
    }
    for (size_t i = 0; i < t.n; i++) {
        const struct canon *c = &t.c[i];
        if (c->parent == NO_CANON)
            continue;
        a->contexts_profile += c->in_profile;
        a->contexts_oracle += c->in_oracle;
        a->calls_profile += c->profile;
        a->calls_oracle += c->oracle;
        if (c->profile == c->oracle && c->in_profile && c->in_oracle)
            a->contexts_equal++;
        if (c->profile != c->oracle) {
            a->count_error += c->profile > c->oracle ? c->profile - c->oracle : c->oracle - c->profile;
            keep_worst(a, c);
        }
        for (unsigned k = 0; k < CCT_ACC_NMETRICS && v->metrics; k++) {
            uint64_t p = c->profile_m[k], o = c->oracle_m[k];
            a->metric_profile[k] += p;
            a->metric_truth[k] += o;
            a->metric_abs_diff[k] += p > o ? p - o : o - p;
        }
    }
    a->metrics = v->metrics;
    for (unsigned k = 0; k < CCT_ACC_NMETRICS && v->metrics; k++) {
        a->metric_error[k] = a->metric_truth[k] ? (double)a->metric_abs_diff[k] / (double)a->metric_truth[k]
                                                : (a->metric_abs_diff[k] ? 1 : 0);
        a->metric_bias[k] = a->calls_profile ? ((double)a->metric_profile[k] - (double)a->metric_truth[k]) /
                                                   (double)a->calls_profile
                                             : 0;
    }
    match_free(&mt);
    return 0;
}

/* ---- paths per context (instrument --both) ---- */

struct ctx_key {
    size_t canon;
    uint64_t proc, path, profile, truth;
    uint64_t profile_m[2], truth_m[2];  /* cycles and the event (--both --metrics) */
};

static int by_key(const void *a, const void *b)
{
    const struct ctx_key *x = a, *y = b;
    if (x->canon != y->canon)
        return x->canon < y->canon ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->path < y->path ? -1 : x->path > y->path;
}

static void push_key(struct ctx_key **k, size_t *n, size_t *cap, struct ctx_key e)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        *k = realloc(*k, *cap * sizeof **k);
        if (!*k)
            abort();
    }
    (*k)[(*n)++] = e;
}

static bool per_context(const struct path_table_proc *t, size_t n, uint64_t proc)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].start == proc)
            return (t[i].instrumented & PATH_PER_CONTEXT) != 0;
    return false;
}

int cct_path_accuracy(struct pdb *db, const struct cct_view *v, const char *oracle_path,
                      struct cct_path_accuracy *a, struct ap_err *err)
{
    memset(a, 0, sizeof *a);
    a->event = -1;
    sqlite3 *s = pdb_sqlite(db);
    sqlite3_stmt *st;
    /* metrics since schema v12 (a file read as it is may be older) */
    bool v12 = sqlite3_prepare_v2(s, "SELECT core, record, path, sum(count), sum(cycles), sum(event), "
                                     "count(cycles) FROM cct_path_counts WHERE session = ? "
                                     "GROUP BY core, record, path", -1, &st, NULL) == SQLITE_OK;
    if (!v12 && sqlite3_prepare_v2(s, "SELECT core, record, path, sum(count) FROM cct_path_counts "
                                      "WHERE session = ? GROUP BY core, record, path", -1, &st, NULL) != SQLITE_OK)
        return 0;       /* no such table: no paths per context */
    struct path_table_proc *table = NULL;
    size_t ntable = 0;
    for (size_t i = 0; i < v->nimages && ntable == 0; i++) {
        struct ap_err e2;
        free(table);
        table = NULL;
        if (!v->images[i].path || instrument_path_table(v->images[i].path, &table, &ntable, &e2))
            ntable = 0;
    }
    struct ctx_key *keys = NULL;
    size_t nkeys = 0, cap = 0;
    sqlite3_bind_int64(st, 1, v->session);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const struct cv_node *n = cv_find(v, sqlite3_column_int(st, 0), (uint64_t)sqlite3_column_int64(st, 1));
        uint64_t count = (uint64_t)sqlite3_column_int64(st, 3);
        bool metered = v12 && sqlite3_column_int64(st, 6) > 0;
        a->present = true;
        a->paths_profile += count;
        a->metered |= metered;
        if (v12 && !metered)
            a->unmetered += count;
        if (!n) {
            a->unnamed += count;
            continue;
        }
        struct ctx_key k = {.canon = n - v->nodes, .proc = n->callee_addr,
                            .path = (uint64_t)sqlite3_column_int64(st, 2), .profile = count};
        if (metered) {
            k.profile_m[0] = (uint64_t)sqlite3_column_int64(st, 4);
            k.profile_m[1] = (uint64_t)sqlite3_column_int64(st, 5);
        }
        push_key(&keys, &nkeys, &cap, k);
    }
    sqlite3_finalize(st);
    if (a->metered) {
        for (size_t k = 0; k < ntable; k++)
            if (table[k].metrics)
                a->event = (int)table[k].metrics - 1;
        if (a->event < 0 || a->event >= PMU_EV_COUNT) {
            free(table);
            free(keys);
            memset(a, 0, sizeof *a);
            return ap_err_set(err, "session %lld has paths per context with metrics but its image's path table "
                              "names no event; keep the instrumented image where it was recorded",
                              (long long)v->session);
        }
    }
    if (!a->present) {
        free(table);
        free(keys);
        return 0;
    }
    struct match mt;
    if (match(v, oracle_path, &mt, err)) {
        free(table);
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < nkeys; i++)
        keys[i].canon = mt.canon_of[keys[i].canon];
    /* the truth: PATH.cctpaths, each under its oracle record's context when
     * that record is the path's procedure's (note 13 of cct-region.h) */
    char path[4200];
    snprintf(path, sizeof path, "%s.cctpaths", oracle_path);
    FILE *f = fopen(path, "rb");
    struct oracle_cctpaths_header h;
    int rc = -1;
    if (!f)
        ap_err_set(err, "%s: no paths per context beside the oracle; record the --both image with this "
                   "alphaprof and --oracle", path);
    else if (fread(&h, sizeof h, 1, f) != 1 || h.magic != ORACLE_CCTPATHS_MAGIC ||
             (h.version != ORACLE_CCTPATHS_VERSION && h.version != 1) || h.n > (1ull << 32))
        ap_err_set(err, "%s: not the model's paths per context of this build; record again", path);
    else if (a->metered && h.version < 2)
        ap_err_set(err, "%s: the model's paths per context without metrics (version %u); record the "
                   "--both --metrics image again with this alphaprof and --oracle", path, (unsigned)h.version);
    else {
        /* version 1: the record without its metrics */
        size_t rec = h.version >= 2 ? sizeof(struct oracle_cctpath) : offsetof(struct oracle_cctpath, metric);
        rc = 0;
        /* the oracle's records by core: ids run 0.. in order */
        uint64_t first[64] = {0}, count[64] = {0};
        for (uint64_t k = 0; k < mt.nrecs; k++)
            if (mt.recs[k].core < 64) {
                if (!count[mt.recs[k].core]++)
                    first[mt.recs[k].core] = k;
            }
        struct oracle_cctpath e;
        for (uint64_t i = 0; i < h.n && rc == 0; i++) {
            memset(&e, 0, sizeof e);
            if (fread(&e, rec, 1, f) != 1) {
                rc = ap_err_set(err, "%s: cut short; record again", path);
                break;
            }
            a->paths_truth_all += e.count;
            if (e.core >= 64 || e.record >= count[e.core])
                continue;
            uint64_t k = first[e.core] + e.record;
            size_t c = mt.ocanon[k];
            if (c == NO_CANON || c == OUTSIDE || mt.recs[k].callee != e.proc || !per_context(table, ntable, e.proc))
                continue;       /* context-free on both sides */
            a->paths_truth += e.count;
            struct ctx_key t = {.canon = c, .proc = e.proc, .path = e.path, .truth = e.count};
            if (a->metered) {
                t.truth_m[0] = e.metric[PMU_EV_CYCLES];
                t.truth_m[1] = e.metric[a->event];
            }
            push_key(&keys, &nkeys, &cap, t);
        }
    }
    if (f)
        fclose(f);
    if (rc == 0) {
        qsort(keys, nkeys, sizeof *keys, by_key);
        for (size_t i = 0; i < nkeys;) {
            struct ctx_key k = keys[i++];
            while (i < nkeys && by_key(&keys[i], &k) == 0) {
                k.profile += keys[i].profile;
                k.truth += keys[i].truth;
                for (unsigned m = 0; m < 2; m++) {
                    k.profile_m[m] += keys[i].profile_m[m];
                    k.truth_m[m] += keys[i].truth_m[m];
                }
                i++;
            }
            a->keys++;
            a->keys_equal += k.profile == k.truth;
            for (unsigned m = 0; m < 2 && a->metered; m++) {
                uint64_t p = k.profile_m[m], t = k.truth_m[m], d = p > t ? p - t : t - p;
                a->metric_profile[m] += p;
                a->metric_truth[m] += t;
                a->metric_abs_diff[m] += d;
                if (d > a->metric_worst[m].diff) {
                    a->metric_worst[m] = (struct cct_path_metric_mismatch){
                        k.canon != NO_CANON ? mt.t.c[k.canon].node : NULL, k.proc, k.path, p, t, d};
                }
            }
            if (k.profile != k.truth) {
                uint64_t d = k.profile > k.truth ? k.profile - k.truth : k.truth - k.profile;
                a->context_path_error += d;
                if (a->nworst < CCT_ACC_WORST)
                    a->worst[a->nworst++] = (struct cct_path_mismatch){
                        k.canon != NO_CANON ? mt.t.c[k.canon].node : NULL, k.proc, k.path, k.profile, k.truth};
            }
        }
    }
    for (unsigned m = 0; m < 2 && rc == 0 && a->metered; m++) {
        a->context_path_metric_error[m] = a->metric_truth[m]
                                              ? (double)a->metric_abs_diff[m] / (double)a->metric_truth[m]
                                              : (a->metric_abs_diff[m] ? 1 : 0);
        a->metric_bias[m] = a->paths_profile ? ((double)a->metric_profile[m] - (double)a->metric_truth[m]) /
                                                   (double)a->paths_profile
                                             : 0;
    }
    match_free(&mt);
    free(table);
    free(keys);
    return rc;
}
