/*
 * check --cct (util/cct-accuracy.h).
 */
#include "util/cct-accuracy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/oracle-format.h"
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
        ap_err_set(err, "%s: calling-context oracle version %u, this alphaprof reads %u; record again", path,
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

int cct_accuracy(const struct cct_view *v, const char *oracle_path, struct cct_accuracy *a, struct ap_err *err)
{
    memset(a, 0, sizeof *a);
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
        else if (nmap) {
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
        t.c[c].in_profile |= n->parent != CV_NO_NODE || n->id == 0 || n->calls > 0;
        if (!t.c[c].node)
            t.c[c].node = n;
    }
    for (size_t k = 0; k < v->ncores; k++) {
        a->skipped_calls += v->cores[k].skipped_calls;
        a->overflow_calls += v->cores[k].overflow_calls;
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
            a->outside_calls += r->calls;
            continue;
        }
        if (trampoline) {
            const struct instrument_site_map *m = find_call(map, nmap, site);
            site = m ? m->site : 0;
        }
        if (parent == NO_CANON || site == 0) {      /* the instrumentation's own call, or under one */
            ocanon[i] = NO_CANON;
            a->instrumentation_calls += r->calls;
            continue;
        }
        size_t c = context(&t, parent, site, r->callee, (int)r->core);
        ocanon[i] = c;
        t.c[c].oracle += r->calls;
        t.c[c].in_oracle = true;
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
    }
    free(canon_of);
    free(ocanon);
    free(t.c);
    free(t.table);
    free(recs);
    free(map);
    if (code)
        symtab_close(code);
    return 0;
}
