/*
 * The board's own word on the period it keeps (rate-note.h).
 */
#include "util/rate-note.h"

#include <inttypes.h>
#include <stdio.h>

int rate_note(const struct lk_hello *h, char *out, size_t n)
{
    if (!h->timer_min || (h->timer_min == h->period_min && h->timer_max == h->period_max))
        return 0;
    snprintf(out, n, "note: the board cannot keep the timer period %" PRIu64 "-%" PRIu64 " ns on %u cores "
             "sharing virtual time; it samples every %" PRIu64 "..%" PRIu64 " ns (the periods it achieves "
             "are stored and used by report)", h->period_min, h->period_max, h->ncores, h->timer_min,
             h->timer_max);
    return 1;
}
