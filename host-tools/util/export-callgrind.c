/*
 * Callgrind format (valgrind's callgrind and KCachegrind; format version 1):
 * "positions: instr line", one cost column per event, one block per
 * function (ob= image, fl= its home file, fn= its name) with a cost
 * line "0xPC LINE counts..." per sampled instruction, "fi=" before lines
 * from another file.  Inlined code is shown as calls: the instruction's
 * self cost goes to the innermost inlined function, and each enclosing
 * frame gets a call (cfn=, calls=1 TARGET, then the call site
 * "0xPC LINE inclusive counts") to the frame inside it, one per distinct
 * call site, so inclusive costs add up as for real calls.  Names use
 * callgrind's compression: "(n) name" the first time, "(n)" after.
 *
 * A function's home file is the file DWARF declares it in when some of its
 * costs are there, else the file of its first cost line: a definition whose
 * DWARF declaration is a header prototype (newlib's qsort in stdlib.h) gets
 * the file of its code, as valgrind writes it; readers name functions by
 * (file of the cost lines, name), so the header would show an empty twin.
 */
#include <stdlib.h>
#include <string.h>

#include "util/export-profile.h"
#include "util/str-index.h"
#include "util/strvec.h"

/* One cost line: self (callee == NULL) or a call site. */
struct cg_cost {
    size_t mapping;
    const struct src_frame *fn;     /* the function the cost line is in */
    const struct src_frame *callee; /* NULL: self cost */
    uint64_t pc;                    /* position (the lowest PC of a call site) */
    const char *file;               /* position's file */
    uint32_t line;
    uint64_t target_pc;             /* call: the callee's first PC here */
    uint64_t count[PV_MAX_EVENTS];
};

static int str_cmp0(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

static int cmp_fn(const struct cg_cost *x, const struct cg_cost *y)
{
    if (x->mapping != y->mapping)
        return x->mapping < y->mapping ? -1 : 1;
    int c = strcmp(x->fn->func, y->fn->func);
    return c ? c : str_cmp0(x->fn->func_file, y->fn->func_file);
}

/* Orders by function, then self costs by PC, then calls by callee and site. */
static int cmp_cost(const void *a, const void *b)
{
    const struct cg_cost *x = a, *y = b;
    int c = cmp_fn(x, y);
    if (c)
        return c;
    if (!x->callee != !y->callee)
        return x->callee ? 1 : -1;
    if (x->callee) {
        if ((c = strcmp(x->callee->func, y->callee->func)) || (c = str_cmp0(x->callee->func_file, y->callee->func_file)))
            return c;
        if ((c = str_cmp0(x->file, y->file)))
            return c;
        if (x->line != y->line)
            return x->line < y->line ? -1 : 1;
    }
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static bool same_call_site(const struct cg_cost *x, const struct cg_cost *y)
{
    return x->callee && y->callee && cmp_fn(x, y) == 0 && !strcmp(x->callee->func, y->callee->func) &&
           !str_cmp0(x->callee->func_file, y->callee->func_file) && !str_cmp0(x->file, y->file) &&
           x->line == y->line;
}

struct cg_names {
    struct str_index obs, files, fns;
};

/* "(n) name" on first use, "(n)" after. */
static void name(FILE *out, const char *key, struct str_index *ix, const char *s)
{
    bool added;
    size_t id = str_index_get(ix, s ? s : "???", &added) + 1;
    if (added)
        fprintf(out, "%s=(%zu) %s\n", key, id, s ? s : "???");
    else
        fprintf(out, "%s=(%zu)\n", key, id);
}

static void costs(FILE *out, const struct xp_profile *x, const uint64_t *count)
{
    for (size_t e = 0; e < x->nevents; e++)
        fprintf(out, " %llu", (unsigned long long)count[e]);
    fputc('\n', out);
}

/* Event names as callgrind wants them: one word each. */
static void event_word(FILE *out, const char *s)
{
    for (; *s; s++)
        fputc((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ? *s : '_', out);
}

static size_t collect(const struct xp_profile *x, struct cg_cost *c)
{
    size_t n = 0;
    for (size_t i = 0; i < x->nsites; i++) {
        const struct xp_site *s = &x->sites[i];
        c[n] = (struct cg_cost){.mapping = s->mapping, .fn = &s->frames[0], .pc = s->pc,
                                .file = s->frames[0].file, .line = s->frames[0].line};
        memcpy(c[n++].count, s->count, sizeof s->count);
        for (size_t f = 1; f < s->nframes; f++) {
            c[n] = (struct cg_cost){.mapping = s->mapping, .fn = &s->frames[f], .callee = &s->frames[f - 1],
                                    .pc = s->pc, .file = s->frames[f].file, .line = s->frames[f].line,
                                    .target_pc = s->pc};
            memcpy(c[n++].count, s->count, sizeof s->count);
        }
    }
    return n;
}

/* A function (mapping, name, declaring file) with its home file. */
struct cg_home {
    const struct cg_cost *key;
    const char *home;
};

static int cmp_home(const void *a, const void *b)
{
    return cmp_fn(((const struct cg_home *)a)->key, ((const struct cg_home *)b)->key);
}

/* One entry per function block of the sorted costs, in the same order. */
static struct cg_home *homes_of(const struct cg_cost *c, size_t n, size_t *nh)
{
    struct cg_home *h = xmalloc((n ? n : 1) * sizeof *h);
    *nh = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        int declared_here = 0;
        while (j < n && cmp_fn(&c[i], &c[j]) == 0) {
            declared_here |= c[i].fn->func_file && !str_cmp0(c[j].file, c[i].fn->func_file);
            j++;
        }
        h[*nh].key = &c[i];
        h[*nh].home = declared_here || !c[i].file ? c[i].fn->func_file : c[i].file;
        (*nh)++;
        i = j;
    }
    return h;
}

/* The home file of frame f's function in mapping m (its declaring file,
 * else its position's, when it has no costs of its own). */
static const char *home_file(const struct cg_home *h, size_t nh, size_t m, const struct src_frame *f)
{
    struct cg_cost probe = {.mapping = m, .fn = f};
    struct cg_home key = {.key = &probe};
    const struct cg_home *r = bsearch(&key, h, nh, sizeof *h, cmp_home);
    return r ? r->home : f->func_file ? f->func_file : f->file;
}

int export_callgrind(const struct xp_profile *x, FILE *out, struct ap_err *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < x->nsites; i++)
        cap += x->sites[i].nframes;
    struct cg_cost *c = xmalloc((cap ? cap : 1) * sizeof *c);
    size_t n = collect(x, c);
    qsort(c, n, sizeof *c, cmp_cost);
    size_t nh;
    struct cg_home *homes = homes_of(c, n, &nh);

    fprintf(out, "# callgrind format\nversion: 1\ncreator: alphaprof export\n");
    if (x->epoch < 0)
        fprintf(out, "cmd: alphaprof profile %s, every epoch\n", x->source ? x->source : "?");
    else
        fprintf(out, "cmd: alphaprof profile %s, epoch %lld\n", x->source ? x->source : "?", (long long)x->epoch);
    fprintf(out, "positions: instr line\nevents:");
    for (size_t e = 0; e < x->nevents; e++) {
        fputc(' ', out);
        event_word(out, x->event_names[e]);
    }
    fputc('\n', out);

    struct cg_names nm;
    memset(&nm, 0, sizeof nm);
    uint64_t totals[PV_MAX_EVENTS] = {0};
    const char *cur_file = NULL;
    for (size_t i = 0; i < n; i++) {
        struct cg_cost *k = &c[i];
        if (i == 0 || cmp_fn(&c[i - 1], k) != 0) {
            fputc('\n', out);
            name(out, "ob", &nm.obs, x->mappings[k->mapping].path ? x->mappings[k->mapping].path
                                                                  : x->mappings[k->mapping].name);
            cur_file = home_file(homes, nh, k->mapping, k->fn);
            name(out, "fl", &nm.files, cur_file);
            name(out, "fn", &nm.fns, k->fn->func);
        }
        /* A call site: sum its instructions into the first one's line. */
        uint64_t sum[PV_MAX_EVENTS];
        memcpy(sum, k->count, sizeof sum);
        uint64_t target = k->target_pc;
        while (k->callee && i + 1 < n && same_call_site(k, &c[i + 1])) {
            i++;
            for (size_t e = 0; e < x->nevents; e++)
                sum[e] += c[i].count[e];
            if (c[i].target_pc < target)
                target = c[i].target_pc;
        }
        if (str_cmp0(k->file, cur_file)) {
            cur_file = k->file;
            name(out, "fi", &nm.files, cur_file);
        }
        if (k->callee) {
            name(out, "cfi", &nm.files, home_file(homes, nh, k->mapping, k->callee));
            name(out, "cfn", &nm.fns, k->callee->func);
            fprintf(out, "calls=1 0x%llx %u\n", (unsigned long long)target, k->callee->func_line);
        } else {
            for (size_t e = 0; e < x->nevents; e++)
                totals[e] += sum[e];
        }
        fprintf(out, "0x%llx %u", (unsigned long long)k->pc, k->line);
        costs(out, x, sum);
    }
    fprintf(out, "\ntotals:");
    costs(out, x, totals);
    free(c);
    free(homes);
    str_index_free(&nm.obs);
    str_index_free(&nm.files);
    str_index_free(&nm.fns);
    if (ferror(out))
        return ap_err_set(err, "callgrind export: writing the output failed");
    return 0;
}
