/*
 * A growable NULL-terminated vector of owned strings (an argv in the
 * making), and the allocation helpers every host tool uses.
 *
 * Invariants: v is NULL-terminated once anything was pushed and owns each
 * string; xmalloc, xrealloc and xstrdup never return NULL (out of memory
 * is reported and ends the command).
 */
#ifndef ALPHAPROF_UTIL_STRVEC_H
#define ALPHAPROF_UTIL_STRVEC_H

#include <stddef.h>

struct strvec {
    char **v;           /* always NULL-terminated once anything was pushed */
    size_t n;
    size_t cap;
};

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushf(struct strvec *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Pushes each whitespace-separated word of s. */
void strvec_push_words(struct strvec *sv, const char *s);
/* Joins with single spaces into a new malloc'ed string. */
char *strvec_join(const struct strvec *sv, const char *sep);
void strvec_free(struct strvec *sv);

/* Out-of-memory is not recoverable for a command-line tool: report and exit. */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
