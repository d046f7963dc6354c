/*
 * The one JSON writer of the host tools: every --json output, `db dump`
 * and the JSON the profile database stores go through these.
 *
 * Invariants:
 *   1. Output is valid JSON text for any input: strings are escaped (quote,
 *      backslash, control characters as \u00XX; other bytes pass through,
 *      so UTF-8 stays UTF-8), and numbers that JSON cannot hold (NaN,
 *      infinities) are written as null.
 *   2. Nothing here allocates or fails: output goes straight to the stream
 *      (or into the caller's buffer, truncated at its size).
 */
#ifndef ALPHAPROF_UTIL_JSON_OUT_H
#define ALPHAPROF_UTIL_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* s as a JSON string literal (quotes, escapes); NULL prints null. */
void json_str(FILE *f, const char *s);
/* The n bytes at s (NULs included) as a JSON string literal. */
void json_strn(FILE *f, const char *s, size_t n);
/* A finite number with up to 17 significant digits; NaN/inf print null. */
void json_num(FILE *f, double x);
/* v[0..n) as a JSON array of integers into buf (NUL-terminated; an array
 * that does not fit is cut short and has no closing bracket). */
void json_u64_array(char *buf, size_t cap, const uint64_t *v, size_t n);

#endif
