/*
 * The one line a host prints when the board cannot keep the timer period
 * it was asked for (issue 12, rate honesty): HELLO carries the period
 * configured and the one the timer samples at (link-protocol.h), and when
 * they differ the user is told at the session's start, before any number
 * is read.  What the board then achieved is measured and stored apart
 * (the database's achieved_periods).
 */
#ifndef ALPHAPROF_UTIL_RATE_NOTE_H
#define ALPHAPROF_UTIL_RATE_NOTE_H

#include <stddef.h>

#include "firmware/abi/link-codec.h"

/* Writes the note into out and returns 1 if HELLO says the board samples
 * at another period than configured; else 0 (out untouched). */
int rate_note(const struct lk_hello *h, char *out, size_t n);

#endif
