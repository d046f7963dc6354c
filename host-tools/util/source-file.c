/*
 * Source text for annotations (source-file.h).
 *
 * Invariants: each file is read at most once per cache (a file that cannot
 * be read, or is not a regular file, is remembered as empty); lines are
 * returned without their line ending.
 */
#include "util/source-file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/regular-file.h"
#include "util/strvec.h"

struct source {
    char *path;
    struct strvec lines;        /* empty when unreadable */
};

struct source_cache {
    struct source *files;
    size_t n;
};

struct source_cache *source_cache_new(void)
{
    struct source_cache *c = xmalloc(sizeof *c);
    c->files = NULL;
    c->n = 0;
    return c;
}

void source_cache_free(struct source_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->files[i].path);
        strvec_free(&c->files[i].lines);
    }
    free(c->files);
    free(c);
}

static struct source *load(struct source_cache *c, const char *path)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->files[i].path, path) == 0)
            return &c->files[i];
    c->files = xrealloc(c->files, (c->n + 1) * sizeof *c->files);
    struct source *s = &c->files[c->n++];
    s->path = xstrdup(path);
    memset(&s->lines, 0, sizeof s->lines);
    struct ap_err ignored;      /* a source we cannot read is shown without lines */
    FILE *f = regular_fopen_read(path, "a source file", &ignored);
    if (!f)
        return s;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        strvec_push(&s->lines, line);
    }
    free(line);
    fclose(f);
    return s;
}

const char *source_line_text(struct source_cache *c, const char *file, unsigned line)
{
    struct source *s = load(c, file);
    if (line == 0 || line > s->lines.n)
        return NULL;
    return s->lines.v[line - 1];
}
