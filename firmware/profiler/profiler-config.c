/*
 * The profiler's configuration (see profiler-config.h).  Pure: no
 * hardware, no globals; the firmware keeps its one instance in control.c.
 */
#include "firmware/profiler/profiler-config.h"

#include "firmware/abi/event-spec.h"
#include "hw-model/pmu-window.h"

/* A period range within the limits of the boot line's grammar. */
static int period_ok(uint64_t lo_min, uint64_t min, uint64_t max)
{
    return min >= lo_min && max >= min && max <= GRAMMAR_NUMBER_MAX;
}

/* Every event gets a period range; no events: cycles. */
static void fill_event_defaults(struct profiler_config *c)
{
    if (c->nevents == 0) {
        c->nevents = 1;
        c->events[0] = (struct profiler_event){.event = PMU_EV_CYCLES};
    }
    for (unsigned i = 0; i < c->nevents; i++)
        if (c->events[i].period_min == 0) {
            int cycles = c->events[i].event == PMU_EV_CYCLES;
            c->events[i].period_min = cycles ? c->period_min : BOOT_DEFAULT_EVENT_PERIOD_MIN;
            c->events[i].period_max = cycles ? c->period_max : BOOT_DEFAULT_EVENT_PERIOD_MAX;
        }
}

void profiler_config_from_boot(struct profiler_config *c, const struct boot_options *b)
{
    *c = (struct profiler_config){
        .mode = b->profile,
        .period_min = b->period_min,
        .period_max = b->period_max,
        .nevents = b->nevents <= PROFILER_MAX_EVENTS ? b->nevents : PROFILER_MAX_EVENTS,
        .pme_min = b->pme_min,
        .pme_max = b->pme_max,
        .pme_draw = b->pme_draw,
        .pair_window = b->pair_window,
        .flush_ms = b->flush_ms,
        .baud = b->baud,
        .seed = b->seed,
        .table_policy = b->table_policy,
        .start_host = b->start_host,
        .link_nonce = b->link_nonce,
        .probe = b->profile_probe,
    };
    for (unsigned i = 0; i < c->nevents; i++)
        c->events[i] = (struct profiler_event){b->events[i].event, b->events[i].period_min,
                                               b->events[i].period_max};
    fill_event_defaults(c);
}

int profiler_config_is_pme(unsigned mode)
{
    return mode == LK_MODE_PROFILEME || mode == LK_MODE_PAIRED;
}

static uint32_t refuse(const char **why, uint32_t status, const char *message)
{
    *why = message;
    return status;
}

uint32_t profiler_config_apply(const struct profiler_config *cur, const struct lk_config *req,
                               int has_model, struct profiler_config *next, const char **why)
{
    struct profiler_config c = *cur;
    if (profiler_config_is_pme(req->mode) != profiler_config_is_pme(cur->mode) ||
        (profiler_config_is_pme(req->mode) && req->mode != cur->mode))
        return refuse(why, LK_ACK_UNSUPPORTED, "ProfileMe modes are chosen at boot (profile=profileme|paired)");
    switch (req->mode) {
    case LK_MODE_TIMER:
        if (req->nevents > 1 || (req->nevents == 1 && req->events[0].event != LK_EVENT_TIMER))
            return refuse(why, LK_ACK_UNSUPPORTED, "timer mode: one event, 255 (the timer)");
        if (req->nevents == 1 && !period_ok(BOOT_PERIOD_MIN, req->events[0].period_min, req->events[0].period_max))
            return refuse(why, LK_ACK_BAD_FRAME, "timer period: " GRAMMAR_STR(BOOT_PERIOD_MIN)
                          " <= min <= max <= " GRAMMAR_STR(GRAMMAR_NUMBER_MAX) " ns");
        if (req->nevents == 1) {
            c.period_min = req->events[0].period_min;
            c.period_max = req->events[0].period_max;
        }
        break;
    case LK_MODE_COUNTERS:
        if (!has_model)
            return refuse(why, LK_ACK_UNSUPPORTED, "no hardware model on this board (clipper-pm has one)");
        if (req->nevents > PROFILER_MAX_EVENTS)
            return refuse(why, LK_ACK_UNSUPPORTED, "more events than the profiler multiplexes");
        for (uint32_t i = 0; i < req->nevents; i++) {
            const struct lk_event_config *e = &req->events[i];
            if (e->event >= PMU_EV_COUNT)
                return refuse(why, LK_ACK_UNSUPPORTED, "no such hardware event");
            if ((e->period_min || e->period_max) && !period_ok(PMU_MIN_PERIOD, e->period_min, e->period_max))
                return refuse(why, LK_ACK_BAD_FRAME, "event period: " GRAMMAR_STR(PMU_MIN_PERIOD)
                              " <= min <= max <= " GRAMMAR_STR(GRAMMAR_NUMBER_MAX));
        }
        c.nevents = req->nevents;
        for (uint32_t i = 0; i < req->nevents; i++)
            c.events[i] = (struct profiler_event){req->events[i].event, req->events[i].period_min,
                                                  req->events[i].period_max};
        fill_event_defaults(&c);
        break;
    case LK_MODE_PROFILEME:
    case LK_MODE_PAIRED:
        if (req->pme_min) {
            if (req->pme_max < req->pme_min)
                return refuse(why, LK_ACK_BAD_FRAME, "ProfileMe interval: min <= max");
            c.pme_min = req->pme_min;
            c.pme_max = req->pme_max;
        }
        if (req->pair_window)
            c.pair_window = req->pair_window;
        break;
    default:
        return refuse(why, LK_ACK_UNSUPPORTED, "unknown mode (STOP stops sampling)");
    }
    c.mode = req->mode;
    if (req->flush_ms)
        c.flush_ms = req->flush_ms;
    *next = c;
    *why = "configured; applies at START";
    return LK_ACK_OK;
}
