#include "util/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "--opt=VAL" or "--opt VAL": the value, advancing *i; NULL if not this option. */
const char *opt_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

bool parse_unsigned(const char *s, unsigned *out)
{
    if (!isdigit((unsigned char)*s))
        return false;
    errno = 0;
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > 1000000)
        return false;
    *out = (unsigned)v;
    return true;
}
