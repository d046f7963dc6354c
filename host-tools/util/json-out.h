/* Small helpers for the analyses' --json output. */
#ifndef ALPHAPROF_UTIL_JSON_OUT_H
#define ALPHAPROF_UTIL_JSON_OUT_H

#include <stdio.h>

/* s as a JSON string literal (quotes, escapes); NULL prints null. */
void json_str(FILE *f, const char *s);
/* A finite number with up to 17 significant digits; NaN/inf print null. */
void json_num(FILE *f, double x);

#endif
