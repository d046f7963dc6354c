/*
 * A source of samples: the timer (PC sampling from the alarm), the
 * hardware model's event counters, ProfileMe capture.  Siblings behind one
 * small ops table, so that the profiler core (profiler.c), the flush
 * protocol (flush.c) and the host control (control.c) never ask which
 * source runs; a new source (value sampling, cycle accounting) is a new
 * table, not new branches.
 *
 * Who calls what, and where:
 *   init               boot core, once, at profiler_start (every source)
 *   start, stop        boot core, sampling stopped or starting (sampling.c)
 *   core_start         each core as it enters the workload
 *   tick               owner core's alarm tick, interrupt context, only the
 *                      caller-saved integer registers saved (-mno-fp-regs):
 *                      no floating point, no blocking
 *   interrupt          owner core, IPI: the model's performance interrupt
 *   flush              owner core, asked by the flusher (flush.c)
 *   send, discard,
 *   pending, request_flush   boot core: data the source keeps outside the
 *                      core's DCPI sample table (ProfileMe banks)
 *   add_counters, summary    boot core: FLUSH frame counters, monitor line
 * Samples of the timer and the counters go into the core's DCPI sample
 * table (sample-table.h), which flush.c empties and table-send.c sends for
 * every source alike.  A NULL hook does nothing (see the wrappers below).
 */
#ifndef FIRMWARE_PROFILER_SAMPLE_SOURCE_H
#define FIRMWARE_PROFILER_SAMPLE_SOURCE_H

#include <stddef.h>
#include <stdint.h>
#include "firmware/abi/link-codec.h"
#include "firmware/profiler/profiler-config.h"

/* Ticks of a source that drains a ring (counters, ProfileMe), and of any
 * source while the host has sampling stopped. */
#define SOURCE_RING_TICK_NS 1000000ull

struct sample_source {
    const char *name;
    /* HELLO capability bit of this source while it samples (the board's
     * ProfileMe bits are added apart: pme_caps). */
    uint32_t (*caps)(void);
    /* Per-core state from scratch; c is the profiler's one configuration,
     * kept and read live (CONFIG changes it only while sampling is stopped). */
    void (*init)(const struct profiler_config *c, unsigned ncores);
    /* Programs every core's unit from the configuration; false (after a
     * warning line) when the board lacks it: the timer samples instead. */
    int (*start)(unsigned ncores);
    /* The unit stops producing records (host STOP). */
    void (*stop)(unsigned ncores);
    /* 1: the alarm spaces its samples (one per tick while sampling), so
     * the tick's spacing is the achieved sampling period (sampling.h). */
    int timed;
    /* profiler_finish stops the unit before the final flush (1) or lets
     * it run through it (0: the event counters, as before issue 12). */
    int stop_before_final_flush;
    void (*core_start)(unsigned core, uint64_t now_ns);
    /* The core's tick due at due_ns: takes the sample at pc or moves new
     * records into the core's tables.  sampling: 0 while the host has
     * sampling stopped. */
    void (*tick)(unsigned core, uint64_t pc, uint64_t due_ns, int sampling);
    /* ns from this tick's deadline to the core's next (NULL:
     * SOURCE_RING_TICK_NS). */
    uint64_t (*interval)(unsigned core, int sampling);
    /* collecting: the core samples and the host has not stopped it. */
    void (*interrupt)(unsigned core, int collecting);
    /* Everything the core's unit holds goes where the flusher sends it
     * from; final: the last time (the run ends, nothing is collected after). */
    void (*flush)(unsigned core, int final);
    /* False if the link queue filled first (the rest goes next time). */
    int (*send)(unsigned core, uint8_t *buf, size_t cap);
    /* Gives ready data back unsent, counted as dropped with a reason. */
    void (*discard)(unsigned core);
    /* The core has data ready to send or a hand-over not yet done. */
    int (*pending)(unsigned core);
    /* Ask every core to hand over what it holds at its next tick; all:
     * idle cores too (an IPI follows). */
    void (*request_flush)(unsigned ncores, int all);
    /* Mean events per sample of `event`, as SAMPLES frames carry it
     * (NULL: the timer's mean period). */
    uint64_t (*mean_period)(unsigned event);
    /* NAMES frames the host needs to read this source's data. */
    void (*send_names)(uint8_t *buf, size_t cap);
    /* The source's stats and drops, added to the core's FLUSH. */
    void (*add_counters)(unsigned core, struct lk_flush *f);
    /* "monitor: profiling ..." line at start. */
    void (*announce)(unsigned ncores);
    /* The source's line of the monitor's summary at the end. */
    void (*summary)(unsigned ncores);
};

/* Adds value to the counter `id` of a FLUSH list, or appends it. */
static inline void flush_add_counter(uint32_t *n, struct lk_counter *list, uint32_t id, uint64_t value)
{
    for (uint32_t i = 0; i < *n; i++)
        if (list[i].id == id) {
            list[i].value += value;
            return;
        }
    if (*n < LK_MAX_COUNTERS)
        list[(*n)++] = (struct lk_counter){id, value};
}

/* ---- dispatch: a NULL hook does nothing ---- */

static inline void source_core_start(const struct sample_source *s, unsigned core, uint64_t now)
{
    if (s->core_start)
        s->core_start(core, now);
}

static inline uint64_t source_interval(const struct sample_source *s, unsigned core, int sampling)
{
    return s->interval ? s->interval(core, sampling) : SOURCE_RING_TICK_NS;
}

static inline uint64_t source_mean_period(const struct sample_source *s, const struct profiler_config *c,
                                          unsigned event)
{
    return s->mean_period ? s->mean_period(event) : (c->period_min + c->period_max) / 2;
}

static inline void source_interrupt(const struct sample_source *s, unsigned core, int collecting)
{
    if (s->interrupt)
        s->interrupt(core, collecting);
}

static inline void source_flush(const struct sample_source *s, unsigned core, int final)
{
    if (s->flush)
        s->flush(core, final);
}

static inline int source_send(const struct sample_source *s, unsigned core, uint8_t *buf, size_t cap)
{
    return s->send ? s->send(core, buf, cap) : 1;
}

static inline void source_discard(const struct sample_source *s, unsigned core)
{
    if (s->discard)
        s->discard(core);
}

static inline int source_pending(const struct sample_source *s, unsigned core)
{
    return s->pending ? s->pending(core) : 0;
}

static inline int source_any_pending(const struct sample_source *s, unsigned ncores)
{
    if (!s->pending)
        return 0;
    for (unsigned c = 0; c < ncores; c++)
        if (s->pending(c))
            return 1;
    return 0;
}

static inline void source_request_flush(const struct sample_source *s, unsigned ncores, int all)
{
    if (s->request_flush)
        s->request_flush(ncores, all);
}

static inline void source_add_counters(const struct sample_source *s, unsigned core, struct lk_flush *f)
{
    if (s->add_counters)
        s->add_counters(core, f);
}

static inline void source_send_names(const struct sample_source *s, uint8_t *buf, size_t cap)
{
    if (s->send_names)
        s->send_names(buf, cap);
}

static inline void source_summary(const struct sample_source *s, unsigned ncores)
{
    if (s->summary)
        s->summary(ncores);
}

#endif
