/* ProfileMe path reconstruction against the oracle: see path-accuracy.h. */
#include "util/path-accuracy.h"

#include "util/oracle-file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int pmepath_oracle_read(const char *oracle_path, struct pmepath_oracle *o, struct ap_err *err)
{
    memset(o, 0, sizeof *o);
    char path[4200];
    snprintf(path, sizeof path, "%s.pmepaths", oracle_path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return ap_err_set(err, "%s: %s; the sample-path oracle is written beside the oracle by a run with "
                          "--oracle on a board with the hardware model", path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fread(&o->h, sizeof o->h, 1, f) != 1 || o->h.magic != ORACLE_PMEPATH_MAGIC)
        rc = ap_err_set(err, "%s: not a sample-path oracle file", path);
    else if (o->h.version != ORACLE_PMEPATH_VERSION || o->h.depth != ORACLE_PMEPATH_DEPTH)
        rc = ap_err_set(err, "%s: sample-path oracle version %u, this build reads version %d; rerun the "
                        "record with this build", path, o->h.version, ORACLE_PMEPATH_VERSION);
    else if (fstat(fileno(f), &st) != 0 ||
             (uint64_t)st.st_size != sizeof o->h + o->h.nsamples * sizeof(struct oracle_pmepath_sample))
        rc = ap_err_set(err, "%s: damaged file: its size does not match its %llu samples; record it again",
                        path, (unsigned long long)o->h.nsamples);
    if (!rc) {
        o->s = malloc((o->h.nsamples ? o->h.nsamples : 1) * sizeof *o->s);
        if (!o->s || fread(o->s, sizeof *o->s, o->h.nsamples, f) != o->h.nsamples)
            rc = ap_err_set(err, "%s: cannot read its %llu samples", path, (unsigned long long)o->h.nsamples);
    }
    fclose(f);
    if (rc)
        pmepath_oracle_free(o);
    return rc;
}

void pmepath_oracle_free(struct pmepath_oracle *o)
{
    free(o->s);
    memset(o, 0, sizeof *o);
}

/* Sorted by (core, pc, history, fetch_cycle): each key found by bisection. */
static const struct pmepath_oracle *sort_ctx;

static int key_cmp(const struct oracle_pmepath_sample *x, uint32_t core, uint64_t pc, uint32_t history,
                   uint64_t fetch)
{
    if (x->core != core)
        return x->core < core ? -1 : 1;
    if (x->pc != pc)
        return x->pc < pc ? -1 : 1;
    if (x->history != history)
        return x->history < history ? -1 : 1;
    if (x->fetch_cycle != fetch)
        return x->fetch_cycle < fetch ? -1 : 1;
    return 0;
}

static int by_key(const void *a, const void *b)
{
    const struct oracle_pmepath_sample *x = &sort_ctx->s[*(const uint32_t *)a],
                                       *y = &sort_ctx->s[*(const uint32_t *)b];
    return key_cmp(x, y->core, y->pc, y->history, y->fetch_cycle);
}

/* First index in order[] not below the key. */
static size_t lower(const struct pmepath_oracle *o, const uint32_t *order, size_t n, uint32_t core, uint64_t pc,
                    uint32_t history, uint64_t fetch)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&o->s[order[mid]], core, pc, history, fetch) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The oracle's record of second sample s whose first is f (note 1), or NULL. */
static const struct oracle_pmepath_sample *match(const struct pmepath_oracle *o, const uint32_t *order, size_t n,
                                                 const struct ps_sample *first, const struct ps_sample *s,
                                                 const struct oracle_pmepath_sample **first_out)
{
    for (size_t i = lower(o, order, n, s->core, s->pc, s->history, 0); i < n; i++) {
        const struct oracle_pmepath_sample *x = &o->s[order[i]];
        if (x->core != s->core || x->pc != s->pc || x->history != s->history)
            break;
        if (x->fetch_cycle < s->distance)
            continue;
        uint64_t fetch = x->fetch_cycle - s->distance;
        size_t j = lower(o, order, n, s->core, first->pc, first->history, fetch);
        if (j < n && key_cmp(&o->s[order[j]], s->core, first->pc, first->history, fetch) == 0) {
            *first_out = &o->s[order[j]];
            return x;
        }
    }
    return NULL;
}

/* One sample at every history length. */
static void evaluate(struct ps_samples *ps, struct pr_program *prog, const struct ps_sample *s,
                     const struct oracle_pmepath_sample *truth, struct path_accuracy *a)
{
    bool hist_ok_all = true;
    for (unsigned n = 1; n <= PR_MAX_BITS; n++) {
        struct path_success *row = &a->rows[n - 1];
        struct pr_segment t;
        bool hist_ok;
        enum pr_truth tr = pr_truth(prog, truth, n, &t, &hist_ok);
        hist_ok_all &= hist_ok;
        if (tr == PR_TRUTH_UNKNOWN) {
            row->truth_unknown++;
            continue;
        }
        struct pr_query q;
        struct pr_result r;
        ps_query(s, n, false, &q);
        pr_reconstruct(prog, &q, &r);
        bool ok = tr == PR_TRUTH_OK && r.outcome == PR_UNIQUE && pr_same_path(&r.seg, &t);
        row->evaluated++;
        row->polluted += tr == PR_TRUTH_POLLUTED;
        row->unresolved += r.outcome == PR_UNRESOLVED;
        row->unique += r.outcome == PR_UNIQUE;
        row->success += ok;
        q.ignore_history = true;
        pr_reconstruct(prog, &q, &r);
        row->baseline_success += tr == PR_TRUTH_OK && r.outcome == PR_UNIQUE && pr_same_path(&r.seg, &t);
        q.ignore_history = false;
        if (s->slot == 1) {
            row->seconds++;
            row->seconds_success += ok;
            ps_query(s, n, true, &q);
            if (q.pair) {
                pr_reconstruct(prog, &q, &r);
                ok = tr == PR_TRUTH_OK && r.outcome == PR_UNIQUE && pr_same_path(&r.seg, &t);
            }
            row->pair_evaluated++;
            row->pair_unique += r.outcome == PR_UNIQUE;
            row->pair_success += ok;
        }
    }
    a->history_mismatch += !hist_ok_all;
    (void)ps;
}

void path_accuracy(struct ps_samples *ps, const struct pmepath_oracle *o, struct path_accuracy *a)
{
    memset(a, 0, sizeof *a);
    for (unsigned n = 1; n <= PR_MAX_BITS; n++)
        a->rows[n - 1].nbits = n;
    size_t n = (size_t)o->h.nsamples;
    uint32_t *order = calc_zalloc(n ? n : 1, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    sort_ctx = o;
    qsort(order, n, sizeof *order, by_key);
    for (size_t i = 0; i + 1 < ps->n; i++) {
        const struct ps_sample *f = &ps->s[i], *s = &ps->s[i + 1];
        if (f->pair_id != s->pair_id || f->slot != 0 || s->slot != 1)
            continue;
        struct pr_program *pf = ps_program(ps, f->img), *psec = ps_program(ps, s->img);
        const struct calc_proc *cfg;
        bool code_f = f->retired && pf && pr_proc_at(pf, f->pc, &cfg) >= 0;
        bool code_s = s->retired && psec && pr_proc_at(psec, s->pc, &cfg) >= 0;
        a->samples += code_f + code_s;
        if (!code_f && !code_s)
            continue;
        const struct oracle_pmepath_sample *tf = NULL, *ts = NULL;
        if (f->retired && s->retired)
            ts = match(o, order, n, f, s, &tf);
        if (!ts) {
            a->unmatched += code_f + code_s;
            continue;
        }
        a->matched += code_f + code_s;
        if (code_f)
            evaluate(ps, pf, f, tf, a);
        if (code_s)
            evaluate(ps, psec, s, ts, a);
    }
    free(order);
}

/* A whole little file of n records of size each after a header. */
static void *read_all(const char *path, void *hdr, size_t hsize, uint64_t magic, size_t each,
                      uint64_t (*count)(const void *hdr), struct ap_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ap_err_set(err, "%s: %s; it is written beside the oracle by a run with --oracle", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    void *data = NULL;
    if (fread(hdr, hsize, 1, f) != 1 || *(uint64_t *)hdr != magic)
        ap_err_set(err, "%s: not a file of this kind (or of another build); record again", path);
    else if (fstat(fileno(f), &st) != 0 || (uint64_t)st.st_size < hsize ||
             ((uint64_t)st.st_size - hsize) / each < count(hdr))
        ap_err_set(err, "%s: damaged file: shorter than its header says; record again", path);
    else if (!(data = malloc(count(hdr) * each + 1)) || fread(data, each, count(hdr), f) != count(hdr)) {
        ap_err_set(err, "%s: cannot read it", path);
        free(data);
        data = NULL;
    }
    fclose(f);
    return data;
}

static uint64_t blpath_records(const void *h)
{
    const struct oracle_blpaths_header *x = h;
    return x->n;
}

int bl_truth_read(const char *oracle_path, struct bl_truth *t, struct ap_err *err)
{
    memset(t, 0, sizeof *t);
    char path[4200];
    struct oracle_plan_header ph;
    snprintf(path, sizeof path, "%s.plan", oracle_path);
    /* the plan: procedures, then edges (read as one block of bytes) */
    FILE *f = fopen(path, "rb");
    if (!f)
        return ap_err_set(err, "%s: %s; alphaprof record --oracle writes it", path, strerror(errno));
    struct stat st;
    if (fread(&ph, sizeof ph, 1, f) != 1 || ph.magic != ORACLE_PLAN_MAGIC || ph.version != ORACLE_PLAN_VERSION ||
        fstat(fileno(f), &st) != 0 ||
        (uint64_t)st.st_size != sizeof ph + ph.nprocs * sizeof(struct oracle_plan_proc) +
                                    ph.nedges * sizeof(struct oracle_plan_edge)) {
        fclose(f);
        return ap_err_set(err, "%s: not a path plan of this build; record again", path);
    }
    struct oracle_plan_proc *procs = calc_zalloc(ph.nprocs + 1, sizeof *procs);
    struct oracle_plan_edge *edges = calc_zalloc(ph.nedges + 1, sizeof *edges);
    bool ok = fread(procs, sizeof *procs, ph.nprocs, f) == ph.nprocs &&
              fread(edges, sizeof *edges, ph.nedges, f) == ph.nedges;
    fclose(f);
    if (!ok) {
        free(procs);
        free(edges);
        return ap_err_set(err, "%s: cannot read it", path);
    }
    snprintf(path, sizeof path, "%s.blpaths", oracle_path);
    t->paths = read_all(path, &t->h, sizeof t->h, ORACLE_BLPATHS_MAGIC, sizeof *t->paths, blpath_records, err);
    struct oracle o;
    if (!t->paths || oracle_read(oracle_path, &o, err)) {
        free(procs);
        free(edges);
        bl_truth_free(t);
        return -1;
    }
    if (t->h.run_id != o.h.run_id) {
        oracle_free(&o);
        free(procs);
        free(edges);
        bl_truth_free(t);
        return ap_err_set(err, "%s is of another run than %s; record again", path, oracle_path);
    }
    t->procs = calc_zalloc(ph.nprocs + 1, sizeof *t->procs);
    for (uint32_t i = 0; i < ph.nprocs; i++) {
        const struct oracle_plan_proc *p = &procs[i];
        struct bl_proc_check c = {.start = p->start, .npaths = p->npaths};
        for (uint64_t k = 0; k < t->h.n; k++)
            if (t->paths[k].proc == p->start) {
                c.paths_seen++;
                c.counted += t->paths[k].count;
            }
        if (!c.counted)
            continue;
        for (uint32_t k = 0; k < p->nedges && p->first_edge + k < ph.nedges; k++) {
            const struct oracle_plan_edge *e = &edges[p->first_edge + k];
            if (e->action != ORACLE_PLAN_ACT_EXIT && e->action != ORACLE_PLAN_ACT_BACKEDGE)
                continue;
            const struct oracle_pc *x = oracle_find(&o, e->from);
            if (!x)
                continue;
            /* a conditional branch's two edges split its executions by
             * its taken count; any other block end's one edge has them all */
            const struct oracle_plan_edge *other = NULL;
            for (uint32_t m = 0; m < p->nedges && p->first_edge + m < ph.nedges; m++) {
                const struct oracle_plan_edge *y = &edges[p->first_edge + m];
                if (y != e && y->from == e->from && y->cfg_kind != ORACLE_PLAN_EDGE_ENTRY)
                    other = y;
            }
            uint64_t n = x->executions;
            if (other) {
                bool taken = e->cfg_kind == ORACLE_PLAN_EDGE_TAKEN ||
                             (e->cfg_kind != ORACLE_PLAN_EDGE_FALL && other->cfg_kind == ORACLE_PLAN_EDGE_FALL);
                n = taken ? x->taken : x->executions - x->taken;
            }
            c.edge_ends += n;
        }
        t->counted += c.counted;
        t->exact += c.counted == c.edge_ends;
        t->procs[t->nprocs++] = c;
    }
    oracle_free(&o);
    free(procs);
    free(edges);
    return 0;
}

void bl_truth_free(struct bl_truth *t)
{
    free(t->paths);
    free(t->procs);
    memset(t, 0, sizeof *t);
}
