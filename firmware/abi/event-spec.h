/*
 * The hardware model's events by name, and the event list grammar
 *     NAME[:MIN-MAX],...
 * that events= on the boot line, alphaprof record --events and alphaprof
 * daemon --events all speak.  The names come from PMU_EVENTS in
 * hw-model/pmu-window.h, the one list; this is the one name -> event
 * lookup.  Freestanding C11, built for the firmware and the host.
 *
 * Invariants:
 *  1. A list parses whole or not at all: on a problem *out is unchanged.
 *  2. A list has 1..EVENT_SPEC_MAX items (more events than the model's
 *     counters take turns); an empty list or item is a problem.
 *  3. A period, when given, is MIN-MAX with
 *     PMU_MIN_PERIOD <= MIN <= MAX <= GRAMMAR_NUMBER_MAX; none means the
 *     sampling's default period (period_min = period_max = 0).
 */
#ifndef FIRMWARE_ABI_EVENT_SPEC_H
#define FIRMWARE_ABI_EVENT_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "firmware/abi/link-protocol.h"
#include "hw-model/pmu-window.h"

#define EVENT_SPEC_MAX LK_MAX_EVENTS
/* Every number of the boot line and the event lists is at most this: the
 * one limit of host and monitor. */
#define GRAMMAR_NUMBER_MAX 1000000
/* A limit as text, for messages: the macro must be a plain number. */
#define GRAMMAR_STR_(x) #x
#define GRAMMAR_STR(x) GRAMMAR_STR_(x)

struct event_spec {
    unsigned event;                 /* enum pmu_event */
    uint64_t period_min, period_max;    /* 0, 0: the default period */
};

struct event_spec_list {
    unsigned n;
    struct event_spec ev[EVENT_SPEC_MAX];
};

/* The event called name (len bytes), or -1. */
int pmu_event_lookup(const char *name, size_t len);
/* The name of event e, or NULL. */
const char *pmu_event_name(unsigned e);

enum event_spec_error {
    EVENT_SPEC_OK,
    EVENT_SPEC_EMPTY,           /* an empty list or item */
    EVENT_SPEC_NO_EVENT,        /* a name PMU_EVENTS does not have */
    EVENT_SPEC_BAD_PERIOD,      /* a period outside the limits (invariant 3) */
    EVENT_SPEC_TOO_MANY,        /* more than EVENT_SPEC_MAX items */
};

struct event_spec_problem {
    enum event_spec_error error;
    const char *expect;         /* what the offending part must be */
    const char *at;             /* that part of the text */
    size_t at_len;
};

/* Parses a list of len bytes: EVENT_SPEC_OK, or why says what is wrong. */
enum event_spec_error event_spec_parse(const char *text, size_t len, struct event_spec_list *out,
                                       struct event_spec_problem *why);

/*
 * MIN-MAX with lo_min <= MIN <= MAX <= hi_max: the range grammar of the
 * boot line and the event lists.  0 on success.
 */
int grammar_range(const char *s, size_t len, uint64_t lo_min, uint64_t hi_max,
                  uint64_t *lo, uint64_t *hi);
/* Decimal digits only, at most max.  0 on success. */
int grammar_uint(const char *s, size_t len, uint64_t max, uint64_t *out);

#endif
