/*
 * The one error message a util function hands back (error.h).
 *
 * Invariant: ap_err_set always returns -1 and always leaves a
 * NUL-terminated message (truncated to AP_ERR_MAX) when e is not NULL.
 */
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
