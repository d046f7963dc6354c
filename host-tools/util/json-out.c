#include "util/json-out.h"

void json_str(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void json_num(FILE *f, double x)
{
    if (x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308)
        fputs("null", f);
    else
        fprintf(f, "%.17g", x);
}
