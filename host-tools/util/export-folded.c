/*
 * Folded stacks, the input of flame-graph tools (Brendan Gregg's
 * flamegraph.pl, inferno, speedscope): one line per distinct stack,
 * "frame;frame;...;frame count", outermost frame first.  Our stacks are
 * image;procedure;inlined call;...;innermost inlined call, so inlined code
 * shows as deeper frames.  Frames cannot hold ';' or line breaks (they
 * separate frames and lines): those become ':' and ' '.  Lines are sorted
 * and each stack appears once.
 */
#include <stdlib.h>
#include <string.h>

#include "util/export-profile.h"
#include "util/strvec.h"

struct folded_line {
    char *stack;
    uint64_t count;
};

static int by_stack(const void *a, const void *b)
{
    return strcmp(((const struct folded_line *)a)->stack, ((const struct folded_line *)b)->stack);
}

static void append_frame(char *buf, size_t size, size_t *len, const char *name)
{
    if (*len && *len + 1 < size)
        buf[(*len)++] = ';';
    for (const char *p = name; *p && *len + 1 < size; p++) {
        char c = *p;
        buf[(*len)++] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
    }
    buf[*len] = '\0';
}

int export_folded(const struct xp_profile *x, size_t e, FILE *out, struct ap_err *err)
{
    if (e >= x->nevents)
        return ap_err_set(err, "folded export: no such event");
    struct folded_line *lines = xmalloc((x->nsites ? x->nsites : 1) * sizeof *lines);
    size_t n = 0;
    for (size_t i = 0; i < x->nsites; i++) {
        const struct xp_site *s = &x->sites[i];
        if (!s->count[e])
            continue;
        char buf[4096];
        size_t len = 0;
        buf[0] = '\0';
        append_frame(buf, sizeof buf, &len, x->mappings[s->mapping].name);
        for (size_t f = s->nframes; f-- > 0;)
            append_frame(buf, sizeof buf, &len, s->frames[f].func);
        lines[n++] = (struct folded_line){xstrdup(buf), s->count[e]};
    }
    qsort(lines, n, sizeof *lines, by_stack);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t sum = lines[i].count;
        while (i + 1 < n && !strcmp(lines[i].stack, lines[i + 1].stack)) {
            free(lines[i].stack);
            sum += lines[++i].count;
        }
        if (fprintf(out, "%s %llu\n", lines[i].stack, (unsigned long long)sum) < 0)
            rc = -1;
        free(lines[i].stack);
    }
    free(lines);
    if (rc || ferror(out))
        return ap_err_set(err, "folded export: writing the output failed");
    return 0;
}
