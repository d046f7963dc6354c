/*
 * Event names and the event list grammar (see event-spec.h).  Freestanding
 * C11: no library calls, so the monitor and the host build the same code.
 */
#include "firmware/abi/event-spec.h"

#define EV_ENTRY_(NAME, name, what) #name,
static const char *const event_names[PMU_EV_COUNT] = {PMU_EVENTS(EV_ENTRY_)};
#undef EV_ENTRY_

#define EXPECT_RANGE "a period MIN-MAX with " GRAMMAR_STR(PMU_MIN_PERIOD) " <= MIN <= MAX <= " \
                     GRAMMAR_STR(GRAMMAR_NUMBER_MAX)
#define EXPECT_NAME "an event name (hw-model/pmu-window.h lists them)"
#define EXPECT_COUNT "at most " GRAMMAR_STR(LK_MAX_EVENTS) " events"
#define EXPECT_ITEM "a list NAME[:MIN-MAX],... of events"

static size_t text_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static size_t span_until(const char *s, size_t len, char c)
{
    size_t i = 0;
    while (i < len && s[i] != c)
        i++;
    return i;
}

int pmu_event_lookup(const char *name, size_t len)
{
    for (unsigned e = 0; e < PMU_EV_COUNT; e++) {
        const char *n = event_names[e];
        if (text_len(n) != len)
            continue;
        size_t i = 0;
        while (i < len && n[i] == name[i])
            i++;
        if (i == len)
            return (int)e;
    }
    return -1;
}

const char *pmu_event_name(unsigned e)
{
    return e < PMU_EV_COUNT ? event_names[e] : 0;
}

int grammar_uint(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (max - d) / 10)
            return -1;          /* v * 10 + d > max, without overflowing */
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int grammar_range(const char *s, size_t len, uint64_t lo_min, uint64_t hi_max, uint64_t *lo,
                  uint64_t *hi)
{
    size_t dash = span_until(s, len, '-');
    uint64_t a, b;
    if (dash == len || grammar_uint(s, dash, hi_max, &a) ||
        grammar_uint(s + dash + 1, len - dash - 1, hi_max, &b))
        return -1;
    if (a < lo_min || b < a)
        return -1;
    *lo = a;
    *hi = b;
    return 0;
}

static enum event_spec_error problem(struct event_spec_problem *why, enum event_spec_error e,
                                    const char *expect, const char *at, size_t at_len)
{
    *why = (struct event_spec_problem){e, expect, at, at_len};
    return e;
}

enum event_spec_error event_spec_parse(const char *text, size_t len, struct event_spec_list *out,
                                       struct event_spec_problem *why)
{
    struct event_spec_list list = {0};
    size_t pos = 0;
    do {
        const char *item = text + pos;
        size_t n = span_until(item, len - pos, ',');
        size_t name_len = span_until(item, n, ':');
        if (n == 0)
            return problem(why, EVENT_SPEC_EMPTY, EXPECT_ITEM, item, n);
        int e = pmu_event_lookup(item, name_len);
        if (e < 0)
            return problem(why, EVENT_SPEC_NO_EVENT, EXPECT_NAME, item, name_len);
        struct event_spec spec = {(unsigned)e, 0, 0};
        if (name_len < n && grammar_range(item + name_len + 1, n - name_len - 1, PMU_MIN_PERIOD,
                                          GRAMMAR_NUMBER_MAX, &spec.period_min, &spec.period_max))
            return problem(why, EVENT_SPEC_BAD_PERIOD, EXPECT_RANGE, item, n);
        if (list.n == EVENT_SPEC_MAX)
            return problem(why, EVENT_SPEC_TOO_MANY, EXPECT_COUNT, item, n);
        list.ev[list.n++] = spec;
        pos += n + 1;
    } while (pos <= len);
    *out = list;
    why->error = EVENT_SPEC_OK;
    return EVENT_SPEC_OK;
}
