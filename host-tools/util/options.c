#include "util/options.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw-model/pmu-window.h"

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

const char *parse_model_mode(const char *cmd, const char *value)
{
    if (!strcmp(value, PMU_MODE_FULL))
        return PMU_MODE_FULL;
    if (!strcmp(value, PMU_MODE_COUNTERS))
        return PMU_MODE_COUNTERS;
    fprintf(stderr, "%s: --model '%s': use full (the timing model) or counters (counts only, near QEMU speed)\n",
            cmd, value);
    return NULL;
}
