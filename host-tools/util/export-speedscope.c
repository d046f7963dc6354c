/*
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json,
 * shipped as dist/release/file-format-schema.json in its npm package): one
 * "sampled" profile per event over one shared frame table.  A stack is
 * image, procedure, inlined calls (outermost first), as in the folded
 * export; each distinct stack is one sample whose weight is its samples,
 * or, for the timer with a known mean period, its estimated nanoseconds
 * (samples x period, unit "nanoseconds").  Frames are unique by (name,
 * declaring file, declaration line).
 *
 * Invariants: each event's weights sum to its samples (times the period
 * for timer nanoseconds), so endValue is the event's whole; output is
 * valid JSON for any names (util/json-out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/export-profile.h"
#include "util/json-out.h"
#include "util/str-index.h"
#include "util/strvec.h"

struct frame_ref {
    const char *name, *file;
    uint32_t line;
};

static size_t frame_number(struct str_index *ix, struct frame_ref **frames, size_t *cap, const char *name,
                           const char *file, uint32_t line)
{
    char key[1024];
    snprintf(key, sizeof key, "%s\x1f%s\x1f%u", name, file ? file : "", line);
    bool added;
    size_t k = str_index_get(ix, key, &added);
    if (added) {
        if (k >= *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *frames = xrealloc(*frames, *cap * sizeof **frames);
        }
        (*frames)[k] = (struct frame_ref){name, file, line};
    }
    return k;
}

static bool timer_ns(const struct xp_profile *x, size_t e)
{
    return !strcmp(x->event_names[e], "timer") && x->periods[e] > 0;
}

int export_speedscope(const struct xp_profile *x, FILE *out, struct ap_err *err)
{
    struct str_index frames_ix = {0}, stacks_ix = {0};
    struct frame_ref *frames = NULL;
    size_t frames_cap = 0;
    /* every site's stack as frame numbers, and its distinct-stack number */
    size_t *site_stack = xmalloc((x->nsites ? x->nsites : 1) * sizeof *site_stack);
    for (size_t i = 0; i < x->nsites; i++) {
        const struct xp_site *s = &x->sites[i];
        char key[XP_MAX_FRAMES * 12 + 24];
        int len = snprintf(key, sizeof key, "%zu", frame_number(&frames_ix, &frames, &frames_cap,
                                                               x->mappings[s->mapping].name, x->mappings[s->mapping].path, 0));
        for (size_t f = s->nframes; f-- > 0;) {
            const struct src_frame *fr = &s->frames[f];
            len += snprintf(key + len, sizeof key - (size_t)len, ",%zu",
                            frame_number(&frames_ix, &frames, &frames_cap, fr->func, fr->func_file, fr->func_line));
        }
        site_stack[i] = str_index_get(&stacks_ix, key, NULL);
    }
    size_t nstacks = stacks_ix.n;
    uint64_t *weight = xmalloc((nstacks ? nstacks : 1) * sizeof *weight);

    fprintf(out, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\", \"exporter\": "
                 "\"alphaprof\", \"name\": ");
    json_str(out, x->source ? x->source : "alphaprof profile");
    fprintf(out, ", \"activeProfileIndex\": 0,\n \"shared\": {\"frames\": [");
    for (size_t k = 0; k < frames_ix.n; k++) {
        fprintf(out, "%s\n  {\"name\": ", k ? "," : "");
        json_str(out, frames[k].name);
        if (frames[k].file) {
            fprintf(out, ", \"file\": ");
            json_str(out, frames[k].file);
        }
        if (frames[k].line)
            fprintf(out, ", \"line\": %u", frames[k].line);
        fprintf(out, "}");
    }
    fprintf(out, "]},\n \"profiles\": [");
    for (size_t e = 0; e < x->nevents; e++) {
        memset(weight, 0, (nstacks ? nstacks : 1) * sizeof *weight);
        bool ns = timer_ns(x, e);
        uint64_t scale = ns ? x->periods[e] : 1, total = 0;
        for (size_t i = 0; i < x->nsites; i++)
            weight[site_stack[i]] += x->sites[i].count[e] * scale;
        for (size_t k = 0; k < nstacks; k++)
            total += weight[k];
        char name[96];
        snprintf(name, sizeof name, "%s %s", x->event_names[e], ns ? "(samples x mean period)" : "samples");
        fprintf(out, "%s\n  {\"type\": \"sampled\", \"name\": ", e ? "," : "");
        json_str(out, name);
        fprintf(out, ", \"unit\": \"%s\", \"startValue\": 0, \"endValue\": %llu,\n   \"samples\": [",
                ns ? "nanoseconds" : "none", (unsigned long long)total);
        bool first = true;
        for (size_t k = 0; k < nstacks; k++) {
            if (!weight[k])
                continue;
            fprintf(out, "%s[%s]", first ? "" : ",", stacks_ix.keys[k]);
            first = false;
        }
        fprintf(out, "],\n   \"weights\": [");
        first = true;
        for (size_t k = 0; k < nstacks; k++) {
            if (!weight[k])
                continue;
            fprintf(out, "%s%llu", first ? "" : ",", (unsigned long long)weight[k]);
            first = false;
        }
        fprintf(out, "]}");
    }
    fprintf(out, "]}\n");
    free(weight);
    free(site_stack);
    free(frames);
    str_index_free(&frames_ix);
    str_index_free(&stacks_ix);
    if (ferror(out))
        return ap_err_set(err, "speedscope export: writing the output failed");
    return 0;
}
