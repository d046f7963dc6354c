/*
 * The profiler's entry points (profiler.h): start, each core's tick, the
 * IPI, the end of the run.  Everything else lives below, each in its own
 * file, and nothing below calls back up here:
 *
 *   control.c        host control frames (control-machine.c: the state
 *                    machine), the configuration, FLUSH frames
 *   session.c        HELLO, NAMES, LOADMAP, END
 *   flush.c          the flush protocol (its numbered notes: read them
 *                    before changing anything that moves samples)
 *   table-send.c     DCPI overflow buffers -> SAMPLES frames
 *   sampling.c       the current source and the sampling switch
 *   timer-source.c, counter-source.c, pme-capture.c: the sources
 *                    (sample-source.h)
 *   sample-table.c, link-tx.c: the per-core table, the transmit queue
 *
 * Ticks.  Each core's alarm fires at absolute deadlines (next_ns): at the
 * source's interval (the timer's random period while it samples, else
 * every millisecond to drain rings).  The tick runs the source's tick on
 * its core; on the boot core it also pumps the link, polls the control
 * channel and runs the periodic drain every flush_ms.  The fast path
 * (profiler_fast_clock, from arch/trap-entry.S with only the caller-saved
 * integer registers saved) does the same for every core but sends the boot
 * core's tick down the full path whenever that has work.
 *
 * Rate honesty (issue 12).  Every tick reads the virtual clock once (now;
 * the fast path from the cycle counter, alarm.h's clock_ns_near):
 *  1. a deadline already past when the next one is armed fires at once
 *     (a late alarm keeps the period's count: without -icount the host
 *     wakes QEMU's timers tens to hundreds of microseconds late), but one
 *     more than CATCH_UP_NS behind is given up and re-armed from now
 *     (counted: sampling_core.missed).  An unbounded backlog of past
 *     deadlines fired back to back and starved the workload (the livelock
 *     of 4 cores at 1000 ns);
 *  2. the boot core's duties (link, control polling, drain) are due by
 *     their own clock, compared with now, never with the sample schedule:
 *     a control frame waits at most POLL_IDLE_NS (control.c) plus one
 *     tick;
 *  3. the spacing of a timed source's ticks is measured per core
 *     (sampling.h): the achieved period the host stores and estimates by.
 *
 * 4. The timer's lean tick.  A timer tick that only samples (no value
 * sampling, not the boot core's duties) runs lean_timer_tick: the
 * table's update, the spacing and the next deadline inline, the same
 * code as tick()'s hooks (sample-table.h, timer-source.h).  Through
 * the hooks a tick cost about 300 modelled cycles on qsort, calls and
 * their saved registers a large part; the timer samples by virtual time,
 * which runs ahead of the core's cycles wherever it retires more than an
 * instruction a cycle, so it ticks up to 1.7 times as often as the cycle
 * counter does at the same period.
 *
 * 5. Value runs do not eat into the period.  A tick that runs the value
 * interpreter (value-sampling.c) takes tens of microseconds, a different
 * time for every window it interprets (qsort: 22,000-77,000
 * instructions against a 62 us period).  Had the deadline stayed where
 * tick() armed it, the workload would run only the period less that
 * time before the next tick, so where the next run lands would depend
 * on what this one interpreted, and the runs' density along the
 * program on the code around them (value-sampling.c note 8).  So after
 * a value run the deadline moves by the time the run and the tick's
 * duties took: the workload runs the whole drawn interval between
 * value runs, drawn independently of what was interpreted.  The alarm
 * is off during the run: re-arming a deadline that passed during it
 * would not take back the interrupt already raised (measured: half the
 * runs of a trial came back to back).  The spacing note 3 measures then
 * includes the run, as it always did.
 *
 * Invariants: a core samples only between profiler_core_start and its
 * final flush (active); profiling is set once everything is ready and
 * cleared after END is queued; only the boot core sends frames.
 */
#include "firmware/profiler/profiler.h"

#include "board.h"
#include "firmware/arch/pal.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/percpu.h"
#include "firmware/profiler/cct-drain.h"
#include "firmware/profiler/control.h"
#include "firmware/profiler/cost-probe.h"
#include "firmware/profiler/flush.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/pmu.h"
#include "firmware/profiler/sample-table.h"
#include "firmware/profiler/sampling.h"
#include "firmware/profiler/session.h"
#include "firmware/profiler/table-send.h"
#include "firmware/profiler/timer-source.h"
#include "firmware/profiler/value-sampling.h"
#include "hw-model/oracle-format.h"

_Static_assert(BOARD_RAM_ZERO_AT_RESET, "sample-table.h invariant 5: on a board whose RAM is not zero at "
               "reset, clear the profiler's RAM (PROFILER_PHYS) once at boot");

/* After END: how long the board waits for a host to store what it holds
 * (link-protocol.h 5.2), after the host last made progress, and at most. */
#define FINISH_SETTLE_NS 3000000000ull
#define FINISH_SETTLE_MAX_NS 120000000000ull     /* a host still storing is worth waiting for */

/* How far behind a core still fires its past deadlines (note 1): the
 * boot core's duties' own period, so a catch-up never outlasts it. */
#define CATCH_UP_NS 1000000ull

static int profiling;
static const struct profiler_config *config;
static uint64_t next_drain_ns;
static uint64_t next_flush_frames_ns;  /* periodic FLUSH frames, paced on a slow link */

/* Has the hardware model write a snapshot of its oracle (oracle-format.h),
 * so that the host can tell the profiled interval's truth from the whole
 * run's. */
static void request_oracle(unsigned snapshot)
{
    struct pmu_window *w = pmu_window_of(this_core());
    if (w->magic == PMU_MAGIC) {
        mb();
        w->oracle_request = snapshot;
    }
}

static int profiling_mode(unsigned mode)
{
    return mode == LK_MODE_TIMER || mode == LK_MODE_COUNTERS || profiler_config_is_pme(mode);
}

void profiler_start(void)
{
    config = control_load_config(&boot_options);
    if (config->probe)
        cost_probe_run((enum table_policy)config->table_policy);   /* before the tables are set up */
    if (!profiling_mode(config->mode))
        return;
    sampling_init(config, ncores);
    value_sampling_init(&boot_options, ncores, config->flush_ms);
    request_oracle(ORACLE_SNAPSHOT_START);
    link_tx_init(BOARD_COM2_PORT, config->baud);
    for (unsigned c = 0; c < ncores; c++)
        sample_table_init(sample_area_of(c), (enum table_policy)config->table_policy);
    table_send_init(config, ncores);
    flush_init(ncores);
    session_init(config, ncores);
    control_init(ncores);
    sampling_boot(!config->start_host);
    if (sampling_on())
        session_boot();
    profiling = 1;
    next_drain_ns = clock_ns() + config->flush_ms * 1000000ull;
    mb();
    sampling_source()->announce(ncores);
}

/* The next deadline, interval after the last one; re-armed from now if it
 * is past already (note 1).  timing: the interval spaces samples of a
 * timed source (note 3). */
static inline __attribute__((always_inline)) void arm_after(struct sampling_core *s,
                                                            uint64_t interval, uint64_t now, int timing)
{
    s->next_ns += interval;
    if (s->next_ns + CATCH_UP_NS <= now) {
        s->next_ns = now + interval;
        s->missed++;
    }
    s->timing = timing;
    pal_cserve(CSERVE_SET_ALARM_ABS, s->next_ns);
}

static void arm_next(unsigned core, struct sampling_core *s, uint64_t now)
{
    const struct sample_source *src = sampling_source();
    int on = sampling_on();
    arm_after(s, source_interval(src, core, on), now, on && src->timed);
}

/* Note 5: after a value run the next deadline moves by the time the run
 * (and this tick's duties) took, so the workload runs the whole drawn
 * interval before the next tick whatever the run cost. */
static void defer_past_value_run(struct sampling_core *s, uint64_t now)
{
    uint64_t end = clock_ns();
    if (end > now)
        s->next_ns += end - now;
    pal_cserve(CSERVE_SET_ALARM_ABS, s->next_ns);
}

void profiler_core_start(unsigned core)
{
    if (!profiling)
        return;
    struct sampling_core *s = &sampling_cores[core];
    s->next_ns = s->last_ns = clock_ns();
    source_core_start(sampling_source(), core, s->next_ns);
    s->active = 1;
    arm_next(core, s, s->next_ns);
}

/* The core from the kernel stack we run on (one 64 KiB slot per core in
 * linker/ram-map.h): cheaper than the WHAMI PAL call on the sampling path. */
static inline unsigned core_from_stack(void)
{
    uint64_t sp;
    __asm__("mov $30, %0" : "=r"(sp));
    return (unsigned)((sp - KSEG_BASE - FW_STACK_PHYS) / FW_STACK_SIZE) % MAX_CORES;
}

/* Note 3: the spacing of a timed source's samples, measured at the tick
 * at virtual time now. */
static inline __attribute__((always_inline)) void time_the_tick(struct sampling_core *s,
                                                                uint64_t now, int on)
{
    if (on && s->timing) {
        s->timer_ns += now - s->last_ns;
        s->timed++;
    }
    s->last_ns = now;
}

/* The core's tick at virtual time now: its source samples, the spacing
 * is measured (note 3), the next deadline is armed. */
static inline void tick(unsigned core, struct sampling_core *s, uint64_t pc, uint64_t now)
{
    const struct sample_source *src = sampling_source();
    int on = sampling_on();
    src->tick(core, pc, s->next_ns, on);
    time_the_tick(s, now, on);
    arm_next(core, s, now);
}

/* The timer's tick while it samples (note 4), all inline: what tick()
 * does through the source's hooks, without a call, so the fast path
 * needs no registers beyond the ones trap-entry.S saved. */
static inline __attribute__((always_inline)) void lean_timer_tick(unsigned core, struct sampling_core *s,
                                                                  uint64_t pc, uint64_t now)
{
    uint64_t interval = timer_draw_interval(core);
    sample_table_record_inline(sample_area_of(core), pc, LK_EVENT_TIMER);
    time_the_tick(s, now, 1);
    arm_after(s, interval, now, 1);
}

/* The fast path's rest, out of line so that the lean tick's path makes
 * no call (note 4): 1 when the tick was handled, 0 for the full path. */
static __attribute__((noinline)) long fast_clock_through_hooks(unsigned core, struct sampling_core *s,
                                                                uint64_t pc, uint64_t now)
{
    if (core == 0 && source_any_pending(sampling_source(), ncores))
        return 0;
    if (value_sampling_fast_tick(core))
        return 0;               /* a value-sampling run: the full path has every register */
    tick(core, s, pc, now);
    return 1;
}

long profiler_fast_clock(uint64_t pc, uint64_t ps)
{
    (void)ps;
    unsigned core = core_from_stack();
    struct sampling_core *s = &sampling_cores[core];
    sample_table_touch(sample_area_of(core), pc, LK_EVENT_TIMER);   /* the misses overlap the checks */
    if (!profiling || !s->active)
        return 0;
    uint64_t now = clock_ns_near(s->last_ns);  /* ticks are at most ~1 ms apart */
    if (core == 0 && (now >= next_drain_ns || now >= control_due_ns))
        return 0;
    /* the timer has no pending hook (source_any_pending) */
    if (sampling_lean()) {
        lean_timer_tick(core, s, pc, now);
        return 1;
    }
    return fast_clock_through_hooks(core, s, pc, now);
}

/* Boot core, after its tick: the link, the control channel, the periodic
 * drain (flush.c, note 6) and FLUSH frames, each by its own clock (note 2). */
static void boot_core_duties(uint64_t now)
{
    link_tx_pump();
    control_tick();
    int busy = control_busy();  /* a host flush decides what goes first */
    if (source_any_pending(sampling_source(), ncores) && !busy)
        flush_send_ready();
    if (now >= next_drain_ns && !busy) {
        next_drain_ns += config->flush_ms * 1000000ull;
        if (next_drain_ns <= now)
            next_drain_ns = now + config->flush_ms * 1000000ull;
        flush_periodic();
        value_sampling_send();
        /* silent without a session.  FLUSH frames go ahead of waiting
         * data (data frames leave the reserve free), but on a slow link
         * take at most ~10% of it: ~64 bytes a core a round (counters are
         * cumulative: a round skipped loses nothing) */
        if (sampling_on() && now >= next_flush_frames_ns && link_tx_free() >= link_tx_reserve()) {
            for (unsigned c = 0; c < ncores; c++)
                control_send_flush(c);
            next_flush_frames_ns = now + 10ull * 64 * ncores * link_tx_byte_ns();
        }
    }
    if (!link_tx_idle())
        control_poll_soon(now);     /* what was queued goes out at the busy poll's pace */
}

int profiler_clock_interrupt(struct trap_frame *f)
{
    unsigned core = this_core();
    struct sampling_core *s = &sampling_cores[core];
    if (!profiling || !s->active)
        return 0;
    uint64_t now = clock_ns();
    tick(core, s, f->pal.pc, now);
    int value_run = value_sampling_due(core);
    if (value_run)
        pal_cserve(CSERVE_SET_ALARM_ABS, 0);    /* note 5: no tick latched during the run */
    value_sampling_tick(core, f, now);
    if (core == 0)
        boot_core_duties(now);
    if (value_run)
        defer_past_value_run(s, now);
    return 1;
}

void profiler_ipi(void)
{
    unsigned core = this_core();
    struct sampling_core *s = &sampling_cores[core];
    source_interrupt(sampling_source(), core, s->active && sampling_on());
    if (!profiling || !flush_requested(core))
        return;
    if (flush_finishing())
        s->active = 0;
    flush_core(core);
}

/* Until the host has stored everything (link-protocol.h 5.2), bounded:
 * FINISH_SETTLE_NS after the host last made progress, last acknowledged,
 * asked again or sent any byte at all (retransmission under damage can
 * take a while per frame, and under heavy damage both ways its LINK_ACKs
 * may all arrive spoiled for longer than that; a host still talking is
 * waited for), or a new host took over (a daemon that stopped answering
 * costs the run that long), never more than FINISH_SETTLE_MAX_NS. */
static void settle_link(void)
{
    uint64_t takeovers = control_takeovers();
    uint64_t deadline = clock_ns() + FINISH_SETTLE_NS;
    uint64_t hard_deadline = clock_ns() + FINISH_SETTLE_MAX_NS;
    link_tx_ending();
    while (!link_tx_settled() && clock_ns() < deadline) {
        link_tx_pump();
        control_tick();
        uint64_t heard = link_tx_host_heard_ns(), moved = link_tx_host_progress_ns(), rx = control_last_rx_ns();
        uint64_t last = heard > moved ? heard : moved;
        uint64_t progress = (rx > last ? rx : last) + FINISH_SETTLE_NS;
        if (control_takeovers() != takeovers) {
            takeovers = control_takeovers();
            progress = clock_ns() + FINISH_SETTLE_NS;
        }
        if (progress > deadline && progress < hard_deadline)
            deadline = progress;
    }
}

void profiler_finish(long status, unsigned how)
{
    if (!profiling)
        return;
    unsigned ipl = pal_swpipl(IPL_ALL_MASKED);  /* our own alarm must not sample now */
    request_oracle(ORACLE_SNAPSHOT_STOP);       /* what follows is the final flush */
    sampling_cores[0].active = 0;
    pal_cserve(CSERVE_SET_ALARM_ABS, 0);
    flush_final(ipl);
    value_sampling_finish();
    cct_drain(ncores);      /* an instrumented image's calling context trees */
    link_tx_wait_free(link_tx_reserve());   /* the FLUSH frames must get through */
    uint64_t taken = 0, hits = 0, misses = 0, entries = 0, dropped = 0;
    for (unsigned c = 0; c < ncores; c++) {
        control_send_flush(c);
        const struct sample_area *a = sample_area_of(c);
        taken += a->st.samples;
        hits += a->st.hits;
        misses += a->st.misses;
        dropped += a->st.dropped;
        entries += table_send_stats(c)->entries_sent;
    }
    control_finish();
    session_end(status, how);
    link_tx_drain();
    settle_link();
    profiling = 0;
    mon_printf("monitor: profile: %lu samples, %lu hash hits, %lu misses, %lu entries sent, "
               "%lu dropped, %lu link bytes\n", (unsigned long)taken, (unsigned long)hits,
               (unsigned long)misses, (unsigned long)entries, (unsigned long)dropped,
               (unsigned long)link_tx_bytes_sent());
    /* what selective repeat cost (link-tx.c note 4) */
    mon_printf("monitor: link: %lu frames sent, %lu sent again, %lu of the link bytes sent again\n",
               (unsigned long)link_tx_frames_sent(), (unsigned long)link_tx_retransmits(),
               (unsigned long)link_tx_retransmit_bytes());
    source_summary(sampling_source(), ncores);
    control_summary();
    value_sampling_summary(ncores);
}

void profiler_abort(void)
{
    profiler_finish(1, LK_END_FATAL);   /* best effort: what was collected */
}
