/*
 * Growable vectors of owned strings and the allocation helpers (strvec.h).
 *
 * Invariants: v is NULL-terminated once anything was pushed; every string
 * is a copy the vector owns; x* helpers never return NULL (they report and
 * exit: out of memory is not recoverable for a command-line tool).
 */
#include "util/strvec.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "alphaprof: out of memory\n");
        exit(125);
    }
    return p;
}

void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) {
        fprintf(stderr, "alphaprof: out of memory\n");
        exit(125);
    }
    return p;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

static void push_owned(struct strvec *sv, char *s)
{
    if (sv->n + 2 > sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 16;
        sv->v = xrealloc(sv->v, sv->cap * sizeof *sv->v);
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

void strvec_push(struct strvec *sv, const char *s)
{
    push_owned(sv, xstrdup(s));
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    push_owned(sv, s);
}

void strvec_push_words(struct strvec *sv, const char *s)
{
    while (*s) {
        while (*s && isspace((unsigned char)*s))
            s++;
        const char *start = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (s > start) {
            size_t len = (size_t)(s - start);
            char *w = xmalloc(len + 1);
            memcpy(w, start, len);
            w[len] = '\0';
            push_owned(sv, w);
        }
    }
}

char *strvec_join(const struct strvec *sv, const char *sep)
{
    size_t len = 1, seplen = strlen(sep);
    for (size_t i = 0; i < sv->n; i++)
        len += strlen(sv->v[i]) + seplen;
    char *out = xmalloc(len);
    out[0] = '\0';
    char *p = out;
    for (size_t i = 0; i < sv->n; i++) {
        if (i) {
            memcpy(p, sep, seplen);
            p += seplen;
        }
        size_t l = strlen(sv->v[i]);
        memcpy(p, sv->v[i], l);
        p += l;
    }
    *p = '\0';
    return out;
}

void strvec_free(struct strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}
