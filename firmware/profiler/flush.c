/*
 * The flush protocol (see flush.h).  Design notes and invariants:
 *
 * 1. Parties.  Each core owns its DCPI sample area (sample-table.h: hash
 *    table, two overflow buffers, the flush_request/flush_done pair) and
 *    its source's per-core state (ProfileMe banks: pme-capture.c, whose
 *    hand-over follows the same rules with switch_req/switch_ack).  The
 *    boot core (core 0) is the flusher: it alone sends frames (link-tx.h)
 *    and runs the host's control frames (control.c).
 *
 * 2. Buffer ownership.  ovf[i].ready == 0: the buffer is the owner's (it
 *    fills ovf[active]); ready == 1: the flusher's until it has sent the
 *    buffer, or discarded it counting its unsent samples LINK_FULL, and
 *    then cleared fill and ready, in that order (table-send.c).  The owner
 *    writes entries before setting ready (wmb); the flusher reads ready
 *    before the entries (mb).
 *
 * 3. Flush request.  The flusher asks core c (c > 0) to empty its table by
 *    incrementing c's st.flush_request (a generation number) and sending
 *    it an IPI.  In its IPI handler the core moves every table entry to
 *    its overflow buffers (waiting while both are ready), hands over the
 *    partly filled one, records pre_mask (note 4) and only then sets
 *    flush_done = flush_request.  A core owes a flush iff flush_done !=
 *    flush_request; it answers each generation at most once.  Core 0
 *    flushes its own table at once, with every interrupt masked (a
 *    performance interrupt must not add to the table meanwhile); flushing0
 *    is 1 while it does.
 *
 * 4. What goes before the answer.  During a host flush only data from
 *    before each core's flush is sent ahead of the flush's FLUSH frames
 *    and answer (EPOCH, ACK): until core c has flushed, every ready buffer
 *    of c counts as "before"; after, only those ready when it finished
 *    (pre_mask[c], bit i for ovf[i]).  pre_mask only loses bits, as those
 *    buffers are sent or discarded.  What a core collects after its flush
 *    waits in its buffers: the periodic drain (note 6) is held while a
 *    control frame is in progress (control_busy), so an epoch boundary is
 *    exact per core.
 *
 * 5. Host flush states (control-machine.h): IDLE -> FLUSHING at
 *    flush_begin -> REPLYING when flush_pending() is 0 (every core has
 *    answered, no pre-flush buffer and no source data is ready) or at the
 *    deadline (flush_give_up: pre-flush buffers discarded, their samples
 *    counted LINK_FULL) -> IDLE once the FLUSH frames and the answer are
 *    queued.  One host flush at a time; a control frame that arrives
 *    meanwhile is answered BUSY.
 *
 * 6. Periodic drain: every flush_ms of core 0's virtual time, from its
 *    tick, and not while a control frame is in progress.  Sources are
 *    asked to hand over what they hold (cores whose banks are empty are
 *    not asked: they might not drain again for a long time) and every
 *    ready buffer goes out as the link allows.  Tables are not flushed:
 *    entries leave them as they are evicted, and at a host or final flush.
 *
 * 7. Back-pressure: a core with both buffers ready while the link has no
 *    room loses its active buffer (counted LINK_FULL) rather than every
 *    entry it evicts next (table_relieve_link).
 *
 * 8. The end of the run (flush_final, IPL 7 on core 0): finishing is set
 *    before any request, so every core's flush also stops its sampling
 *    (profiler.c clears its active flag) and its source's last hand-over
 *    does not wait for the flusher; each core answers with an IPI to core
 *    0, which sleeps in WTINT between answers.  Everything ready is sent
 *    until nothing is pending, or for at most FINISH_TIMEOUT_NS of virtual
 *    time: then what is left is discarded and counted, and a core that
 *    never answered is reported (its table's samples appear in its FLUSH
 *    as taken, not sent).
 *
 * 9. Accounting: every sample a core took is, exactly once, in its hash
 *    table, in a buffer, sent, or counted as dropped with a reason
 *    (OVERFLOW_FULL when both buffers were ready, LINK_FULL); cumulative
 *    counters only grow, so FLUSH frames can repeat them safely.
 */
#include "firmware/profiler/flush.h"

#include "firmware/arch/pal.h"
#include "firmware/boot/smp.h"
#include "firmware/drivers/alarm.h"
#include "firmware/kernel/console.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/sample-table.h"
#include "firmware/profiler/sampling.h"
#include "firmware/profiler/table-send.h"

#define FINISH_TIMEOUT_NS 2000000000ull

struct flush_core {
    volatile uint32_t pre_mask; /* buffers ready when the core's last flush
                                   ended: what must go before the answer */
} __attribute__((aligned(64)));

static struct flush_core cores[MAX_CORES];
static unsigned ncores;
static volatile int finishing;  /* flush_final: the flush IPI also stops a core */
static volatile int flushing0;  /* core 0 inside flush_begin's table flush */
static uint8_t frame_buf[LK_MAX_RAW];

void flush_init(unsigned n)
{
    ncores = n;
    finishing = 0;
    flushing0 = 0;
    for (unsigned c = 0; c < n; c++)
        cores[c].pre_mask = 0;
}

static uint32_t ready_mask(const struct sample_area *a)
{
    return (a->ovf[0].ready ? 1u : 0u) | (a->ovf[1].ready ? 2u : 0u);
}

static int owes_flush(const struct sample_area *a)
{
    return a->st.flush_done != a->st.flush_request;
}

/* Asks a secondary core to flush (note 3). */
static void request_flush(unsigned core)
{
    struct sample_area *a = sample_area_of(core);
    a->st.flush_request++;
    mb();
    smp_send_ipi(core);
}

void flush_send_ready(void)
{
    const struct sample_source *src = sampling_source();
    for (unsigned c = 0; c < ncores; c++) {
        struct sample_area *a = sample_area_of(c);
        for (unsigned bi = 0; bi < 2; bi++)
            if (a->ovf[bi].ready && !table_send_buffer(c, bi))
                break;
        table_relieve_link(c);
        source_send(src, c, frame_buf, link_tx_data_frame());
    }
    link_tx_pump();
}

void flush_periodic(void)
{
    source_request_flush(sampling_source(), ncores, 0);
    flush_send_ready();
}

/* During a host flush: which of a core's ready buffers hold data from
 * before its flush (note 4). */
static uint32_t pre_flush_buffers(unsigned c)
{
    struct sample_area *a = sample_area_of(c);
    uint32_t ready = ready_mask(a);
    if (c == 0 ? flushing0 : owes_flush(a))
        return ready;
    mb();
    cores[c].pre_mask &= ready;         /* sent ones are done with */
    return cores[c].pre_mask;
}

void flush_send_pre_flush(void)
{
    const struct sample_source *src = sampling_source();
    for (unsigned c = 0; c < ncores; c++) {
        uint32_t pre = pre_flush_buffers(c);
        for (unsigned bi = 0; bi < 2; bi++)
            if ((pre & (1u << bi)) && !table_send_buffer(c, bi))
                break;
        pre = pre_flush_buffers(c);
        if (pre == 3u && !link_tx_has_room())   /* both waiting: note 7 */
            table_discard_buffer(c, sample_area_of(c)->st.active & 1);
        source_send(src, c, frame_buf, link_tx_data_frame());
    }
    link_tx_pump();
}

void flush_begin(void)
{
    const struct sample_source *src = sampling_source();
    source_request_flush(src, ncores, 1);   /* before the IPIs: they honour it */
    for (unsigned c = 1; c < ncores; c++)
        request_flush(c);
    source_flush(src, 0, 0);
    /* core 0 at once; a performance interrupt (IPL 6) must not add to the
     * table meanwhile */
    unsigned ipl = pal_swpipl(IPL_ALL_MASKED);
    struct sample_area *a0 = sample_area_of(0);
    flushing0 = 1;
    sample_table_flush(a0, flush_send_pre_flush);
    flushing0 = 0;
    cores[0].pre_mask = ready_mask(a0);
    pal_swpipl(ipl);
    flush_send_pre_flush();
}

int flush_pending(void)
{
    const struct sample_source *src = sampling_source();
    for (unsigned c = 0; c < ncores; c++) {
        if ((c != 0 && owes_flush(sample_area_of(c))) || pre_flush_buffers(c) || source_pending(src, c))
            return 1;
    }
    return 0;
}

void flush_give_up(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        uint32_t pre = pre_flush_buffers(c);
        for (unsigned bi = 0; bi < 2; bi++)
            if (pre & (1u << bi))
                table_discard_buffer(c, bi);
        cores[c].pre_mask = 0;
    }
}

int flush_finishing(void)
{
    return finishing;
}

int flush_requested(unsigned core)
{
    const struct sample_area *a = sample_area_of(core);
    return a->st.flush_request && owes_flush(a);
}

void flush_core(unsigned core)
{
    struct sample_area *a = sample_area_of(core);
    source_flush(sampling_source(), core, finishing);
    sample_table_flush(a, mb);
    cores[core].pre_mask = ready_mask(a);
    wmb();
    a->st.flush_done = a->st.flush_request;
    if (finishing)
        smp_send_ipi(0);        /* wakes the boot core's wait in flush_final */
}

/* Every ready buffer of every core given back unsent (counted). */
static void discard_ready(void)
{
    const struct sample_source *src = sampling_source();
    for (unsigned c = 0; c < ncores; c++) {
        for (unsigned bi = 0; bi < 2; bi++)
            if (sample_area_of(c)->ovf[bi].ready)
                table_discard_buffer(c, bi);
        source_discard(src, c);
    }
}

static int secondary_flush_pending(void)
{
    for (unsigned c = 1; c < ncores; c++)
        if (owes_flush(sample_area_of(c)))
            return 1;
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

void flush_final(unsigned ipl)
{
    const struct sample_source *src = sampling_source();
    finishing = 1;
    mb();
    if (src->stop_before_final_flush && src->stop)
        src->stop(ncores);
    source_flush(src, 0, 1);
    for (unsigned c = 1; c < ncores; c++)
        request_flush(c);
    sample_table_flush(sample_area_of(0), flush_send_ready);
    uint64_t deadline = clock_ns() + FINISH_TIMEOUT_NS;
    for (;;) {
        flush_send_ready();
        int pending = 0;
        for (unsigned c = 0; c < ncores; c++) {
            struct sample_area *a = sample_area_of(c);
            if (owes_flush(a) || ready_mask(a) || source_pending(src, c))
                pending = 1;
        }
        if (!pending)
            return;
        if (secondary_flush_pending())
            sleep_until_ipi(ipl, deadline);
        if (clock_ns() > deadline) {
            /* the link cannot carry the rest in time: counted, not lost */
            discard_ready();
            if (secondary_flush_pending())
                mon_printf("monitor: warning: a core did not flush its samples in time; "
                           "the profile's accounting shows them as not flushed\n");
            return;
        }
    }
}
