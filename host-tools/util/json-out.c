/*
 * The JSON writer (interface and invariants: json-out.h).
 */
#include "util/json-out.h"

#include <inttypes.h>
#include <string.h>

void json_strn(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void json_str(FILE *f, const char *s)
{
    if (!s)
        fputs("null", f);
    else
        json_strn(f, s, strlen(s));
}

void json_num(FILE *f, double x)
{
    if (x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308)
        fputs("null", f);
    else
        fprintf(f, "%.17g", x);
}

void json_u64_array(char *buf, size_t cap, const uint64_t *v, size_t n)
{
    if (cap == 0)
        return;
    size_t o = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < n && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%" PRIu64, i ? "," : "", v[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "]");
}
