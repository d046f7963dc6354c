/*
 * Source text for annotations: files read once, lines by number.
 *
 * Invariants: a file is read at most once per cache, and only if it is a
 * regular file (util/regular-file); an unreadable one has no lines, which
 * is no error (annotate shows the listing without source text).
 */
#ifndef ALPHAPROF_UTIL_SOURCE_FILE_H
#define ALPHAPROF_UTIL_SOURCE_FILE_H

struct source_cache;

struct source_cache *source_cache_new(void);
void source_cache_free(struct source_cache *c);
/* Line `line` (1-based) of file without its newline, or NULL if the file
 * cannot be read or is shorter. */
const char *source_line_text(struct source_cache *c, const char *file, unsigned line);

#endif
