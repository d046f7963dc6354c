/*
 * One error message carried back to the caller: util functions fill it and
 * return -1, the command prints it.  Messages name the file or option at
 * fault and what to do about it.
 *
 * Invariants: a message is one line (no newline), at most AP_ERR_MAX - 1
 * bytes; the function that fills it returns -1.
 */
#ifndef ALPHAPROF_UTIL_ERROR_H
#define ALPHAPROF_UTIL_ERROR_H

#define AP_ERR_MAX 1024

struct ap_err {
    char msg[AP_ERR_MAX];
};

/* Formats the message into e (if not NULL) and returns -1. */
int ap_err_set(struct ap_err *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
