/*
 * Real stacks in the exports from a calling context tree
 * (export-profile.h, export_add_contexts).
 */
#include <stdlib.h>
#include <string.h>

#include "util/cct-view.h"
#include "util/export-profile.h"
#include "util/strvec.h"

struct context {
    const struct cv_node *node;
    uint64_t weight;
};

/* The contexts of the procedure called name, with their weights: their
 * exclusive cycles, or their calls when the tree has no metrics (counts
 * only) or none of them took a measured cycle. */
static size_t contexts_of(const struct cct_view *v, const char *name, struct context *out, size_t max)
{
    size_t n = 0;
    uint64_t cycles = 0;
    for (size_t i = 0; i < v->nnodes && n < max; i++) {
        const struct cv_node *c = &v->nodes[i];
        if (c->id > 1 && c->calls && !strcmp(c->name, name)) {
            out[n++] = (struct context){c, c->cycles_excl};
            cycles += c->cycles_excl;
        }
    }
    if (cycles == 0 || !v->metrics)
        for (size_t k = 0; k < n; k++)
            out[k].weight = out[k].node->calls;
    return n;
}

/* A procedure's declaration as the profile's own frames have it, so a
 * caller frame and the procedure's samples are one function to the
 * writers (callgrind keys functions by name and declaring file). */
struct decl {
    const char *func, *file;
    uint32_t line;
};

static int cmp_decl(const void *a, const void *b)
{
    return strcmp(((const struct decl *)a)->func, ((const struct decl *)b)->func);
}

static struct decl *decls;
static size_t ndecls;

static void collect_decls(const struct xp_profile *x)
{
    decls = xmalloc((x->nsites ? x->nsites : 1) * sizeof *decls);
    ndecls = 0;
    for (size_t i = 0; i < x->nsites; i++)
        if (x->sites[i].nframes) {
            const struct src_frame *f = &x->sites[i].frames[x->sites[i].nframes - 1];
            decls[ndecls++] = (struct decl){f->func, f->func_file, f->func_line};
        }
    qsort(decls, ndecls, sizeof *decls, cmp_decl);
}

static struct src_frame caller_frame(const char *func, const char *file, uint32_t line)
{
    struct decl key = {.func = func};
    const struct decl *d = ndecls ? bsearch(&key, decls, ndecls, sizeof key, cmp_decl) : NULL;
    return (struct src_frame){.func = func, .func_file = d ? d->file : NULL, .func_line = d ? d->line : 0,
                              .file = file, .line = line};
}

/* Appends the callers of node (outward) to s's frames. */
static void add_callers(const struct cct_view *v, const struct cv_node *node, struct xp_site *s)
{
    for (const struct cv_node *a = node; a && a->id > 1 && s->nframes < XP_MAX_FRAMES;) {
        const struct cv_node *p = a->parent != CV_NO_NODE ? &v->nodes[a->parent] : NULL;
        const char *caller = a->site_proc[0] ? a->site_proc : p && p->id > 1 ? p->name : NULL;
        if (!caller)
            break;
        s->frames[s->nframes++] = caller_frame(caller, a->site_file, a->site_line);
        a = p;
    }
}

size_t export_add_contexts(struct xp_profile *x, const struct cct_view *v)
{
    enum { MAX_CONTEXTS = 4096 };
    struct context *ctx = xmalloc(MAX_CONTEXTS * sizeof *ctx);
    uint64_t *rem = xmalloc(MAX_CONTEXTS * sizeof *rem);
    uint64_t (*share)[PV_MAX_EVENTS] = xmalloc(MAX_CONTEXTS * sizeof *share);
    size_t cap = x->nsites + 16, n = 0, split = 0;
    collect_decls(x);
    struct xp_site *out = xmalloc(cap * sizeof *out);
    for (size_t i = 0; i < x->nsites; i++) {
        const struct xp_site *s = &x->sites[i];
        size_t k = s->nframes ? contexts_of(v, s->frames[s->nframes - 1].func, ctx, MAX_CONTEXTS) : 0;
        uint64_t total = 0;
        for (size_t j = 0; j < k; j++)
            total += ctx[j].weight;
        if (k == 0 || total == 0) {
            if (n == cap)
                out = xrealloc(out, (cap *= 2) * sizeof *out);
            out[n++] = *s;
            continue;
        }
        split++;
        for (size_t e = 0; e < x->nevents; e++) {
            /* largest remainder: floor shares, then one more to the largest fractions */
            uint64_t c = s->count[e], given = 0;
            for (size_t j = 0; j < k; j++) {
                unsigned __int128 p = (unsigned __int128)c * ctx[j].weight;
                share[j][e] = (uint64_t)(p / total);
                rem[j] = (uint64_t)(p % total);
                given += share[j][e];
            }
            while (given < c) {
                size_t best = 0;
                for (size_t j = 1; j < k; j++)
                    if (rem[j] > rem[best])
                        best = j;
                share[best][e]++;
                rem[best] = 0;
                given++;
            }
        }
        for (size_t j = 0; j < k; j++) {
            bool any = false;
            for (size_t e = 0; e < x->nevents; e++)
                any |= share[j][e] != 0;
            if (!any)
                continue;
            if (n == cap)
                out = xrealloc(out, (cap *= 2) * sizeof *out);
            struct xp_site *d = &out[n++];
            *d = *s;
            for (size_t e = 0; e < x->nevents; e++)
                d->count[e] = share[j][e];
            add_callers(v, ctx[j].node, d);
        }
    }
    free(x->sites);
    x->sites = out;
    x->nsites = n;
    free(ctx);
    free(rem);
    free(share);
    free(decls);
    decls = NULL;
    return split;
}
