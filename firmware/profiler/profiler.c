/*
 * Profiler control: sampling on each core, draining on the boot core.
 *
 * Sampling (interrupt context, each core alone): the alarm fires at a
 * random period drawn from [period_min, period_max] (absolute deadlines, so
 * handler time does not stretch the period); the interrupted PC goes into
 * the core's hash table.
 *
 * Draining (boot core, from its own alarm interrupt every flush_ms, and at
 * the end): every overflow buffer a core marked ready is sorted by
 * (event, PC), sent as SAMPLES frames (resuming where the link queue ran
 * out of room), and handed back.  A FLUSH frame per core carries its
 * cumulative statistics and drops, so every sample is accounted for.
 */
#include "firmware/profiler/profiler.h"

#include <stdlib.h>
#include <string.h>
#include "boards/clipper/board.h"
#include "firmware/abi/link-codec.h"
#include "firmware/arch/pal.h"
#include "firmware/boot/smp.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/cmdline.h"
#include "firmware/kernel/console.h"
#include "firmware/kernel/loader.h"
#include "firmware/kernel/percpu.h"
#include "firmware/profiler/control.h"
#include "firmware/profiler/cost-probe.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/pme-capture.h"
#include "firmware/profiler/rng.h"
#include "firmware/profiler/sample-table.h"
#include "hw-model/oracle-format.h"
#include "hw-model/pmu-window.h"

#define FINISH_TIMEOUT_NS 2000000000ull
/* After END: how long the board waits for a host to store what it holds. */
#define FINISH_SETTLE_NS 3000000000ull
#define FINISH_SETTLE_MAX_NS 30000000000ull    /* however much the host still takes */
/* With the hardware model each core drains its record ring this often. */
#define RING_TICK_NS 1000000ull
/* More events than counters: each core gives its counters to the next
 * group of events this often (virtual time, so deterministic). */
#define MUX_SLICE_NS 10000000ull

struct core_sampling {
    uint32_t rng;
    uint64_t next_ns;           /* absolute deadline of the next sample */
    volatile int active;
    volatile int draining;      /* inside drain_ring: an IPI (IPL 6) may
                                   interrupt the clock handler (IPL 5) */
    uint32_t mux_group;         /* the events the counters count now */
    uint64_t mux_next_ns;       /* when the next group takes over */
    uint32_t drain_pos[2];      /* entries of each ready buffer already sent */
    int sorted[2];
    uint64_t entries_sent, samples_sent;
    uint64_t link_full;         /* samples discarded: the link had no room */
    volatile uint32_t pre_mask; /* buffers ready when the core's last flush ended:
                                   what must go before the flush's answer */
    uint64_t flushes;
} __attribute__((aligned(64)));

static struct core_sampling sampling[MAX_CORES];
static int profiling;
static int counters_mode;       /* samples come from the hw-model's rings */
static volatile int sampling_on;    /* 0: stopped by the host (STOP, start=host) */
static int finishing;           /* profiler_finish: the flush IPI also stops a core */
static uint64_t next_drain_ns;
static uint64_t next_flush_frames_ns;  /* periodic FLUSH frames, paced on a slow link */
static uint8_t frame_buf[LK_MAX_RAW];

extern const char __build_id_note[] __attribute__((weak));
extern char __firmware_start[], __firmware_end[];

static struct pmu_window *window_of(unsigned core)
{
    return (struct pmu_window *)(KSEG_BASE + PMU_WINDOW_PHYS + (uint64_t)core * PMU_WINDOW_PER_CORE);
}

/* Has the hardware model write a snapshot of its oracle (oracle-format.h),
 * so that the host can tell the profiled interval's truth from the whole
 * run's. */
static void request_oracle(unsigned snapshot)
{
    struct pmu_window *w = window_of(this_core());
    if (w->magic == PMU_MAGIC) {
        mb();
        w->oracle_request = snapshot;
    }
}

/* Groups of events that take turns on the counters (1: no multiplexing). */
static unsigned mux_groups(void)
{
    unsigned n = boot_options.nevents;
    return n <= PMU_COUNTERS ? 1 : (n + PMU_COUNTERS - 1) / PMU_COUNTERS;
}

static uint64_t mean_period(unsigned event)
{
    if (counters_mode)
        for (unsigned i = 0; i < boot_options.nevents; i++)
            if (boot_options.events[i].event == event)   /* counted 1/groups of the time */
                return (boot_options.events[i].period_min + boot_options.events[i].period_max) / 2 *
                       mux_groups();
    return (boot_options.period_min + boot_options.period_max) / 2;
}

/* Names of the hw-model's event numbers, so the host needs no copy. */
static void send_event_names(void)
{
    static const char *const names[] = {PMU_EVENT_NAMES};
    struct lk_writer w;
    lk_names_begin(&w, frame_buf, sizeof frame_buf, LK_NAMES_EVENT, 0);
    for (unsigned e = 0; e < sizeof names / sizeof names[0]; e++)
        lk_names_add(&w, (struct lk_bytes){(const uint8_t *)names[e], strlen(names[e])});
    link_tx_send(&w);
}

/* Gives w's counters to events group * PMU_COUNTERS .. + PMU_COUNTERS - 1;
 * the caller bumps config_gen. */
static void program_group(struct pmu_window *w, unsigned group)
{
    for (unsigned i = 0; i < PMU_COUNTERS; i++) {
        unsigned k = group * PMU_COUNTERS + i;
        int on = k < boot_options.nevents;
        w->counters[i].enable = (uint32_t)on;
        w->counters[i].event = on ? boot_options.events[k].event : 0;
        w->counters[i].period_min = on ? boot_options.events[k].period_min : 0;
        w->counters[i].period_max = on ? boot_options.events[k].period_max : 0;
    }
}

/* From the tick: the next group's turn on this core's counters.  Records
 * already in the ring carry their event, so nothing is drained first. */
static void multiplex(unsigned core, struct core_sampling *s)
{
    if (s->next_ns < s->mux_next_ns)
        return;
    s->mux_next_ns += MUX_SLICE_NS;
    s->mux_group = s->mux_group + 1 == mux_groups() ? 0 : s->mux_group + 1;
    struct pmu_window *w = window_of(core);
    program_group(w, s->mux_group);
    wmb();
    w->config_gen++;
}

/* Programs every core's counters from the boot options (defaults: cycles
 * over the period range).  False when the board has no hardware model. */
static int configure_counters(void)
{
    if (window_of(0)->magic != PMU_MAGIC) {
        mon_printf("monitor: warning: profile=counters needs the hardware model (--board clipper-pm); "
                   "sampling with the timer instead\n");
        return 0;
    }
    if (boot_options.nevents == 0) {
        boot_options.nevents = 1;
        boot_options.events[0].event = PMU_EV_CYCLES;
    }
    for (unsigned i = 0; i < boot_options.nevents; i++)
        if (boot_options.events[i].period_min == 0) {
            int cycles = boot_options.events[i].event == PMU_EV_CYCLES;
            boot_options.events[i].period_min = cycles ? boot_options.period_min : 4000;
            boot_options.events[i].period_max = cycles ? boot_options.period_max : 4400;
        }
    for (unsigned c = 0; c < ncores; c++) {
        struct pmu_window *w = window_of(c);
        program_group(w, 0);
        sampling[c].mux_group = 0;
        w->seed = boot_options.seed * 7919u + c + 1;
        w->ring_tail = w->ring_head;
        /* Interrupt when a quarter of the ring is full: one interrupt
         * delivers many records (ProfileMe 4.3), and the 1 ms tick still
         * drains whatever is left. */
        w->irq_ack = w->interrupts;
        w->irq_threshold = w->irq_mode == PMU_IRQ_IPI ? PMU_RING_ENTRIES / 4 : 0;
        mb();
        w->config_gen++;
    }
    return 1;
}

/* Moves this core's new overflow records into its hash table. */
static void drain_ring(unsigned core)
{
    struct pmu_window *w = window_of(core);
    struct sample_area *a = sample_area_of(core);
    uint64_t head = w->ring_head, tail = w->ring_tail;
    sampling[core].draining = 1;
    mb();
    if (head - tail > PMU_RING_ENTRIES)     /* garbage: resynchronise */
        tail = head - PMU_RING_ENTRIES;
    for (; tail != head; tail++) {
        const struct pmu_record *r = &w->ring[tail % PMU_RING_ENTRIES];
        sample_table_record(a, r->pc, r->event);
    }
    mb();
    w->ring_tail = tail;
    sampling[core].draining = 0;
}

static void send_hello(void)
{
    static const char board[] = BOARD_NAME, fw[] = "alphaprof monitor";
    struct lk_hello h = {
        .ncores = ncores,
        .caps = (counters_mode ? LK_CAP_COUNTERS : pme_active() ? 0 : LK_CAP_TIMER) | pme_caps(),
        .timebase_hz = 1000000000u,
        .board = {(const uint8_t *)board, sizeof board - 1},
        .firmware = {(const uint8_t *)fw, sizeof fw - 1},
        .baud = boot_options.baud,
        .nonce = link_tx_nonce(),
    };
    struct lk_writer w;
    if (lk_enc_hello(&w, frame_buf, sizeof frame_buf, &h) == LK_OK)
        link_tx_send(&w);
}

/* The GNU build-id note the linker put into the monitor, if any. */
static uint32_t monitor_build_id(uint8_t id[LK_BUILD_ID_SIZE])
{
    memset(id, 0, LK_BUILD_ID_SIZE);
    if (!__build_id_note)
        return 0;
    const uint32_t *n = (const uint32_t *)__build_id_note;
    uint32_t namesz = n[0], descsz = n[1];
    const uint8_t *desc = (const uint8_t *)(n + 3) + ((namesz + 3) & ~3u);
    uint32_t size = descsz < LK_BUILD_ID_SIZE ? descsz : LK_BUILD_ID_SIZE;
    memcpy(id, desc, size);
    return size;
}

static void send_loadmap(void)
{
    struct lk_writer w;
    static const char monitor_name[] = "monitor-" BOARD_NAME;   /* = its ELF file name */
    struct lk_loadmap_entry e = {
        .action = LK_LOADMAP_LOAD,
        .address = (uint64_t)__firmware_start,
        .size = (uint64_t)(__firmware_end - __firmware_start),
        .name = {(const uint8_t *)monitor_name, sizeof monitor_name - 1},
    };
    e.build_id_size = monitor_build_id(e.build_id);
    lk_loadmap_begin(&w, frame_buf, sizeof frame_buf);
    lk_loadmap_add(&w, &e);
    for (unsigned i = 0; i < nimages; i++) {
        const struct image_header *h = images[i].hdr;
        struct lk_loadmap_entry ie = {
            .action = LK_LOADMAP_LOAD,
            .address = h->load_base,
            .size = h->bss_end - h->load_base,
            .name = {(const uint8_t *)h->name, strlen(h->name)},
        };
        ie.build_id_size = h->build_id_size < LK_BUILD_ID_SIZE ? h->build_id_size : LK_BUILD_ID_SIZE;
        memcpy(ie.build_id, h->build_id, ie.build_id_size);
        if (lk_loadmap_add(&w, &ie) == LK_E_FULL) {
            link_tx_send(&w);
            lk_loadmap_begin(&w, frame_buf, sizeof frame_buf);
            lk_loadmap_add(&w, &ie);
        }
    }
    link_tx_send(&w);
}

static void send_session(void)
{
    send_hello();
    if (counters_mode)
        send_event_names();
    if (pme_active())
        pme_send_names(frame_buf, sizeof frame_buf);
    send_loadmap();
}

/* The hardware model stops producing records (host STOP). */
static void stop_sources(void)
{
    if (counters_mode)
        for (unsigned c = 0; c < ncores; c++) {
            struct pmu_window *w = window_of(c);
            for (unsigned i = 0; i < PMU_COUNTERS; i++)
                w->counters[i].enable = 0;
            mb();
            w->config_gen++;
        }
    pme_stop(ncores);
}

void profiler_start(void)
{
    if (boot_options.profile_probe)
        cost_probe_run();       /* before the tables are set up for real */
    if (boot_options.profile != LK_MODE_TIMER && boot_options.profile != LK_MODE_COUNTERS &&
        boot_options.profile != LK_MODE_PROFILEME && boot_options.profile != LK_MODE_PAIRED)
        return;
    counters_mode = boot_options.profile == LK_MODE_COUNTERS && configure_counters();
    request_oracle(ORACLE_SNAPSHOT_START);
    link_tx_init(BOARD_COM2_PORT, boot_options.baud);
    for (unsigned c = 0; c < ncores; c++) {
        sample_table_init(c, (enum table_policy)boot_options.table_policy);
        memset(&sampling[c], 0, sizeof sampling[c]);
        sampling[c].rng = minstd_seed(boot_options.seed * 7919u + c + 1);
    }
    sampling_on = !control_init();
    /* ProfileMe starts with sampling (else at START): records from before
     * the session would reach no database */
    if (sampling_on && (boot_options.profile == LK_MODE_PROFILEME || boot_options.profile == LK_MODE_PAIRED))
        pme_start(ncores);
    if (sampling_on) {
        /* sampling from boot: a session of the target's own, best effort
         * until a host acknowledges it (link-protocol.h 5.6) */
        link_tx_session_begin(((uint64_t)boot_options.seed << 32 | 0x5eed) ^ clock_ns(), 0);
        send_session();
        link_tx_session_ready();
    } else {
        stop_sources();
    }
    profiling = 1;
    next_drain_ns = clock_ns() + boot_options.flush_ms * 1000000ull;
    mb();
    if (counters_mode)
        mon_printf("monitor: profiling %u event(s) on the hardware counters%s on %u cores, link on COM2%s\n",
                   boot_options.nevents, mux_groups() > 1 ? " (multiplexed, 10 ms each)" : "",
                   ncores, boot_options.baud ? " (paced)" : "");
    else if ((boot_options.profile == LK_MODE_PROFILEME || boot_options.profile == LK_MODE_PAIRED) &&
             pme_caps())
        mon_printf("monitor: profiling with %s every %lu..%lu fetched instructions on %u cores, link on COM2%s\n",
                   boot_options.profile == LK_MODE_PAIRED ? "ProfileMe pairs" : "ProfileMe",
                   (unsigned long)boot_options.pme_min, (unsigned long)boot_options.pme_max, ncores,
                   boot_options.baud ? " (paced)" : "");
    else
        mon_printf("monitor: profiling with the timer every %lu..%lu ns on %u cores, link on COM2%s\n",
                   (unsigned long)boot_options.period_min, (unsigned long)boot_options.period_max,
                   ncores, boot_options.baud ? " (paced)" : "");
}

static void arm_next(struct core_sampling *s)
{
    s->next_ns += counters_mode || pme_active() || !sampling_on ? RING_TICK_NS
                                : minstd_between(&s->rng, boot_options.period_min, boot_options.period_max);
    pal_cserve(CSERVE_SET_ALARM_ABS, s->next_ns);
}

void profiler_core_start(unsigned core)
{
    if (!profiling)
        return;
    struct core_sampling *s = &sampling[core];
    s->next_ns = clock_ns();
    s->mux_next_ns = s->next_ns + MUX_SLICE_NS;
    s->active = 1;
    arm_next(s);
}

static int compare_entries(const void *a, const void *b)
{
    const struct sample_entry *x = a, *y = b;
    if (x->event != y->event)
        return x->event < y->event ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Sends one ready buffer from where it stopped; false if the link queue
 * filled first (the rest goes next time). */
static int drain_buffer(unsigned core, unsigned bi)
{
    struct sample_area *a = sample_area_of(core);
    struct overflow_buffer *b = &a->ovf[bi];
    struct core_sampling *s = &sampling[core];
    mb();
    if (!s->sorted[bi]) {
        qsort(b->e, b->fill, sizeof b->e[0], compare_entries);
        s->sorted[bi] = 1;
    }
    while (s->drain_pos[bi] < b->fill) {
        if (!link_tx_has_room())
            return 0;
        struct lk_writer w;
        uint32_t i = s->drain_pos[bi];
        unsigned event = b->e[i].event;
        lk_samples_begin(&w, frame_buf, link_tx_data_frame(), core, event, mean_period(event));
        uint64_t samples = 0;
        while (i < b->fill && b->e[i].event == event &&
               lk_samples_add(&w, b->e[i].pc, b->e[i].count) == LK_OK) {
            samples += b->e[i].count;
            i++;
        }
        if (!link_tx_send(&w))
            return 0;
        s->entries_sent += i - s->drain_pos[bi];
        s->samples_sent += samples;
        s->drain_pos[bi] = i;
    }
    s->drain_pos[bi] = 0;
    s->sorted[bi] = 0;
    b->fill = 0;
    wmb();
    b->ready = 0;
    return 1;
}

/* The core's cumulative counters as a FLUSH carries them (before the
 * session's bases are taken off). */
static void flush_values(unsigned core, struct lk_flush *out)
{
    struct sample_area *a = sample_area_of(core);
    struct core_sampling *s = &sampling[core];
    struct lk_flush f = {
        .core = core,
        .time = clock_ns(),
        .nstats = 5,
        .stats = {
            {LK_STAT_SAMPLES_TAKEN, a->st.samples},
            {LK_STAT_SAMPLES_SENT, s->samples_sent},
            {LK_STAT_ENTRIES_SENT, s->entries_sent},
            {LK_STAT_HASH_HITS, a->st.hits},
            {LK_STAT_HASH_MISSES, a->st.misses},
        },
        .ndrops = 3,
        .drops = {{LK_DROP_OVERFLOW_FULL, a->st.dropped},
                  {LK_DROP_RING_OVERFLOW, counters_mode ? window_of(core)->ring_dropped : 0},
                  {LK_DROP_LINK_FULL, s->link_full}},
    };
    if (core == 0) {
        f.stats[f.nstats++] = (struct lk_counter){LK_STAT_BYTES_SENT, link_tx_bytes_sent()};
        control_flush_counters(&f);
    }
    pme_flush_counters(core, &f);
    *out = f;
}

static void send_flush(unsigned core)
{
    struct lk_flush f;
    flush_values(core, &f);
    f.flush_no = ++sampling[core].flushes;
    control_rebase(&f);
    struct lk_writer w;
    if (lk_enc_flush(&w, frame_buf, sizeof frame_buf, &f) == LK_OK)
        link_tx_send(&w);
}

/* Gives a ready buffer back unsent: its samples not yet sent are counted
 * as LK_DROP_LINK_FULL. */
static void discard_buffer(unsigned core, unsigned bi)
{
    struct overflow_buffer *b = &sample_area_of(core)->ovf[bi];
    struct core_sampling *s = &sampling[core];
    mb();
    for (uint32_t i = s->drain_pos[bi]; i < b->fill; i++)
        s->link_full += b->e[i].count;
    s->drain_pos[bi] = 0;
    s->sorted[bi] = 0;
    b->fill = 0;
    wmb();
    b->ready = 0;
}

/* Back-pressure: a core with both buffers waiting would drop whatever it
 * evicts next (and its flush would wait on a slow link for as long as a
 * whole buffer takes).  When the link has no room, the buffer the core
 * writes next (its active one) goes instead: what was not sent of it is
 * counted. */
static void relieve_link(unsigned core)
{
    struct sample_area *a = sample_area_of(core);
    if (!a->ovf[0].ready || !a->ovf[1].ready || link_tx_has_room())
        return;
    discard_buffer(core, a->st.active & 1);
}

/* Boot core: sends every ready buffer of every core it can. */
static void drain_all(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        struct sample_area *a = sample_area_of(c);
        for (unsigned bi = 0; bi < 2; bi++)
            if (a->ovf[bi].ready && !drain_buffer(c, bi))
                break;
        relieve_link(c);
        pme_send(c, frame_buf, link_tx_data_frame());
    }
    link_tx_pump();
}

/* The core from the kernel stack we run on (one 64 KiB slot per core in
 * linker/ram-map.h): cheaper than the WHAMI PAL call on the sampling path. */
static inline unsigned core_from_stack(void)
{
    uint64_t sp;
    __asm__("mov $30, %0" : "=r"(sp));
    return (unsigned)((sp - KSEG_BASE - FW_STACK_PHYS) / FW_STACK_SIZE) % MAX_CORES;
}

long profiler_fast_clock(uint64_t pc, uint64_t ps)
{
    (void)ps;
    unsigned core = core_from_stack();
    struct core_sampling *s = &sampling[core];
    if (!profiling || !s->active)
        return 0;
    if (core == 0 && (s->next_ns >= next_drain_ns || pme_any_pending(ncores) ||
                      s->next_ns >= control_due_ns))
        return 0;
    if (counters_mode && sampling_on) {  /* stopped: the ring is discarded at START */
        drain_ring(core);
        multiplex(core, s);
    } else if (pme_active())
        pme_drain(core);
    else if (sampling_on)
        sample_table_record(sample_area_of(core), pc, LK_EVENT_TIMER);
    arm_next(s);
    return 1;
}

int profiler_clock_interrupt(struct trap_frame *f)
{
    unsigned core = this_core();
    struct core_sampling *s = &sampling[core];
    if (!profiling || !s->active)
        return 0;
    if (counters_mode && sampling_on) {
        drain_ring(core);
        multiplex(core, s);
    } else if (pme_active())
        pme_drain(core);
    else if (sampling_on)
        sample_table_record(sample_area_of(core), f->pal.pc, LK_EVENT_TIMER);
    arm_next(s);
    if (core == 0) {
        link_tx_pump();
        control_tick();
        int busy = control_busy();  /* a host flush decides what goes first */
        if (pme_any_pending(ncores) && !busy)
            drain_all();
        if (s->next_ns >= next_drain_ns && !busy) {
            next_drain_ns += boot_options.flush_ms * 1000000ull;
            pme_request_flush(ncores, 0);
            drain_all();
            /* silent without a session.  FLUSH frames go ahead of waiting
             * data (data frames leave the reserve free), but on a slow
             * link take at most ~10% of it: ~64 bytes a core a round
             * (counters are cumulative: a round skipped loses nothing) */
            if (sampling_on && s->next_ns >= next_flush_frames_ns &&
                link_tx_free() >= link_tx_reserve()) {
                for (unsigned c = 0; c < ncores; c++)
                    send_flush(c);
                next_flush_frames_ns = s->next_ns + 10ull * 64 * ncores * link_tx_byte_ns();
            }
        }
    }
    return 1;
}

/* A performance interrupt from the hardware model (pmu-window.h): drain
 * the rings while this core samples; after its final flush the records
 * stay in the ring, where the oracle counts them as never drained.  If the
 * interrupt came in the middle of the clock handler's drain, that drain
 * goes on when we return: draining here too would count records twice. */
static void pmu_interrupt(unsigned core)
{
    struct pmu_window *w = window_of(core);
    uint64_t raised = w->interrupts;
    if (raised == w->irq_ack)
        return;
    if (sampling[core].active && sampling_on && !sampling[core].draining)
        drain_ring(core);
    mb();
    w->irq_ack = raised;
}

void profiler_ipi(void)
{
    unsigned core = this_core();
    struct sample_area *a = sample_area_of(core);
    if (counters_mode)
        pmu_interrupt(core);
    else
        pme_interrupt(core);
    if (!profiling || !a->st.flush_request || a->st.flush_done == a->st.flush_request)
        return;
    if (finishing)
        sampling[core].active = 0;
    if (counters_mode)
        drain_ring(core);
    if (finishing)
        pme_final(core);
    else
        pme_drain(core);        /* hands the ProfileMe bank over if asked */
    sample_table_flush(a, mb);
    sampling[core].pre_mask = (a->ovf[0].ready ? 1u : 0u) | (a->ovf[1].ready ? 2u : 0u);
    wmb();
    a->st.flush_done = a->st.flush_request;
    if (finishing)
        smp_send_ipi(0);        /* wakes the boot core's wait in profiler_finish */
}

/* Every ready buffer of every core given back unsent (counted). */
static void discard_ready(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        for (unsigned bi = 0; bi < 2; bi++)
            if (sample_area_of(c)->ovf[bi].ready)
                discard_buffer(c, bi);
        pme_discard(c);
    }
}

/* A secondary core has not yet flushed for profiler_finish. */
static int secondary_flush_pending(void)
{
    for (unsigned c = 1; c < ncores; c++) {
        const struct sample_area *a = sample_area_of(c);
        if (a->st.flush_done != a->st.flush_request)
            return 1;
    }
    return 0;
}

/* Halts the boot core until an interrupt (a secondary's "flushed" IPI, or
 * the alarm at deadline as a safety net), then lets it be taken at the
 * caller's IPL.  Spinning instead would keep the other vCPUs off the host
 * thread for QEMU's whole round-robin slice (100 ms of virtual time) in
 * deterministic mode, all of it charged to the monitor. */
static void sleep_until_ipi(unsigned ipl, uint64_t deadline)
{
    pal_cserve(CSERVE_SET_ALARM_ABS, deadline);
    pal_wtint();
    pal_swpipl(ipl);
    pal_swpipl(IPL_ALL_MASKED);
    pal_cserve(CSERVE_SET_ALARM_ABS, 0);
}

/* Until the host has stored everything (link-protocol.h 5.2), bounded:
 * FINISH_SETTLE_NS after the host last made progress or a new host took
 * over (a daemon that stopped answering costs the run that long). */
static void settle_link(void)
{
    uint64_t takeovers = control_takeovers();
    uint64_t deadline = clock_ns() + FINISH_SETTLE_NS;
    uint64_t hard_deadline = clock_ns() + FINISH_SETTLE_MAX_NS;
    link_tx_ending();
    while (!link_tx_settled() && clock_ns() < deadline) {
        link_tx_pump();
        control_tick();
        uint64_t progress = link_tx_host_progress_ns() + FINISH_SETTLE_NS;
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
    finishing = 1;
    mb();
    sampling[0].active = 0;
    pal_cserve(CSERVE_SET_ALARM_ABS, 0);
    /* the sources stop first: nothing the model counts from here on (ring
     * overflows during the final flush) is booked against the profile */
    stop_sources();
    if (counters_mode)
        drain_ring(0);
    pme_final(0);
    for (unsigned c = 1; c < ncores; c++) {
        struct sample_area *a = sample_area_of(c);
        a->st.flush_request++;
        mb();
        smp_send_ipi(c);
    }
    sample_table_flush(sample_area_of(0), drain_all);
    uint64_t deadline = clock_ns() + FINISH_TIMEOUT_NS;
    for (;;) {
        drain_all();
        int pending = 0;
        for (unsigned c = 0; c < ncores; c++) {
            struct sample_area *a = sample_area_of(c);
            if (a->st.flush_done != a->st.flush_request || a->ovf[0].ready || a->ovf[1].ready ||
                pme_pending(c))
                pending = 1;
        }
        if (!pending)
            break;
        if (secondary_flush_pending())
            sleep_until_ipi(ipl, deadline);
        if (clock_ns() > deadline) {
            /* the link cannot carry the rest in time: counted, not lost */
            discard_ready();
            for (unsigned c = 0; c < ncores; c++)
                if (sample_area_of(c)->st.flush_done != sample_area_of(c)->st.flush_request)
                    pending = 2;
            if (pending == 2)
                mon_printf("monitor: warning: a core did not flush its samples in time; "
                           "the profile's accounting shows them as not flushed\n");
            break;
        }
    }
    link_tx_wait_free(link_tx_reserve());   /* the FLUSH frames must get through */
    uint64_t taken = 0, hits = 0, misses = 0, entries = 0, dropped = 0;
    for (unsigned c = 0; c < ncores; c++) {
        send_flush(c);
        struct sample_area *a = sample_area_of(c);
        taken += a->st.samples;
        hits += a->st.hits;
        misses += a->st.misses;
        dropped += a->st.dropped;
        entries += sampling[c].entries_sent;
    }
    control_finish();
    struct lk_end e = {.status = status, .how = how, .time = clock_ns()};
    struct lk_writer w;
    if (lk_enc_end(&w, frame_buf, sizeof frame_buf, &e) == LK_OK)
        link_tx_send(&w);
    link_tx_drain();
    settle_link();
    profiling = 0;
    mon_printf("monitor: profile: %lu samples, %lu hash hits, %lu misses, %lu entries sent, "
               "%lu dropped, %lu link bytes\n", (unsigned long)taken, (unsigned long)hits,
               (unsigned long)misses, (unsigned long)entries, (unsigned long)dropped,
               (unsigned long)link_tx_bytes_sent());
    pme_summary(ncores);
    pal_swpipl(ipl);
}

/* ------------------------------------------- link control (control.c) */

int profiler_sampling(void)
{
    return sampling_on;
}

int profiler_has_model(void)
{
    return window_of(0)->magic == PMU_MAGIC;
}

int profiler_counters_mode(void)
{
    return counters_mode;
}

void profiler_set_counters(int on)
{
    counters_mode = on;
}

void profiler_pause(void)
{
    sampling_on = 0;
    mb();
    stop_sources();
}

void profiler_resume(void)
{
    if (counters_mode)
        counters_mode = configure_counters();
    if (boot_options.profile == LK_MODE_PROFILEME || boot_options.profile == LK_MODE_PAIRED)
        pme_start(ncores);
    mb();
    sampling_on = 1;        /* each core's sampling period returns at its next tick */
    mb();
}

static int flushing0;           /* core 0 inside profiler_flush_begin's table flush */

/* During a host flush: which of a core's ready buffers hold data from
 * before its flush (bit i: ovf[i]).  All of them until the core has
 * flushed; then those it marked (pre_mask), until they are sent. */
static uint32_t pre_flush_buffers(unsigned c)
{
    struct sample_area *a = sample_area_of(c);
    uint32_t ready = (a->ovf[0].ready ? 1u : 0u) | (a->ovf[1].ready ? 2u : 0u);
    if (c == 0 ? flushing0 : a->st.flush_done != a->st.flush_request)
        return ready;
    mb();
    sampling[c].pre_mask &= ready;      /* sent ones are done with */
    return sampling[c].pre_mask;
}

/* drain_all for a host flush: only data from before the flush, so what a
 * core collects after its flush goes after the answer (EPOCH). */
static void drain_pre_flush(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        uint32_t pre = pre_flush_buffers(c);
        for (unsigned bi = 0; bi < 2; bi++)
            if ((pre & (1u << bi)) && !drain_buffer(c, bi))
                break;
        pre = pre_flush_buffers(c);
        if (pre == 3u && !link_tx_has_room())   /* both waiting: as relieve_link */
            discard_buffer(c, sample_area_of(c)->st.active & 1);
        pme_send(c, frame_buf, link_tx_data_frame());
    }
    link_tx_pump();
}

void profiler_flush_begin(void)
{
    pme_request_flush(ncores, 1);   /* before the IPIs: they honour it */
    for (unsigned c = 1; c < ncores; c++) {
        struct sample_area *a = sample_area_of(c);
        a->st.flush_request++;
        mb();
        smp_send_ipi(c);
    }
    if (counters_mode)
        drain_ring(0);
    /* core 0 at once; a performance interrupt (IPL 6) must not add to the
     * table meanwhile */
    unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
    struct sample_area *a0 = sample_area_of(0);
    flushing0 = 1;
    sample_table_flush(a0, drain_pre_flush);
    flushing0 = 0;
    sampling[0].pre_mask = (a0->ovf[0].ready ? 1u : 0u) | (a0->ovf[1].ready ? 2u : 0u);
    pal_swpipl(ipl);
    drain_pre_flush();
}

int profiler_flush_pending(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        struct sample_area *a = sample_area_of(c);
        if ((c != 0 && a->st.flush_done != a->st.flush_request) || pre_flush_buffers(c) ||
            pme_pending(c))
            return 1;
    }
    return 0;
}

void profiler_flush_give_up(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        uint32_t pre = pre_flush_buffers(c);
        for (unsigned bi = 0; bi < 2; bi++)
            if (pre & (1u << bi))
                discard_buffer(c, bi);
        sampling[c].pre_mask = 0;
    }
}

void profiler_drain(void)
{
    drain_pre_flush();
}

void profiler_send_flushes(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        link_tx_wait_free(512);     /* a reply's FLUSH must get through (< 400 bytes) */
        send_flush(c);
    }
}

unsigned profiler_ncores(void)
{
    return ncores;
}

void profiler_flush_values(unsigned core, struct lk_flush *f)
{
    flush_values(core, f);
}

void profiler_new_session(uint64_t nonce)
{
    link_tx_session_begin(nonce, 1);
    send_session();
    link_tx_session_ready();
}

int profiler_ended(void)
{
    return finishing;
}
