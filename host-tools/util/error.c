#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

int ap_err_set(struct ap_err *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}
