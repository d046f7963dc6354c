/*
 * Link control (see control.h): the receiver, the profiler's configuration,
 * FLUSH frames, and the actions the control state machine
 * (control-machine.c) decides on.  Boot core only.
 */
#include "firmware/profiler/control.h"

#include <string.h>
#include "board.h"
#include "firmware/drivers/alarm.h"
#include "firmware/drivers/uart.h"
#include "firmware/kernel/console.h"
#include "firmware/profiler/control-machine.h"
#include "firmware/profiler/flush.h"
#include "firmware/profiler/link-tx.h"
#include "firmware/profiler/pmu.h"
#include "firmware/profiler/sample-table.h"
#include "firmware/profiler/sampling.h"
#include "firmware/profiler/session.h"
#include "firmware/profiler/table-send.h"

/* The receiver is polled every POLL_NS while anything is under way (bytes
 * came at the last poll, a frame is half decoded, the control machine is
 * busy, the link has bytes to send), else every POLL_IDLE_NS.  Each poll
 * is a tick down the full path (~350 modelled cycles); at 1 ms they were
 * a tenth of the timer's overhead on a long run.  A 16-byte receive FIFO
 * lasts 1.4 ms at 115200 baud, so a busy link keeps the fast poll; an idle
 * one answers a short control frame (FLUSH_NOW) within POLL_IDLE_NS,
 * a fifth of its 50 ms budget (link-protocol.h section 6). */
#define POLL_NS             1000000ull
#define POLL_IDLE_NS        10000000ull
#define RX_BATCH            64

volatile uint64_t control_due_ns;

static struct profiler_config config;      /* the one instance */
static struct ctl_machine machine;
static struct lk_decoder dec;
static uint64_t rx_next_ns;     /* paced link: when the next byte may be read */
static uint64_t flushes[MAX_CORES];         /* FLUSH frames sent per core */
static unsigned ncores;
static uint8_t reply_buf[256];
static uint64_t start_nonce;    /* the START in progress: its link session's nonce */
static int based;               /* the counters' zero point is taken (first START) */
static uint64_t takeovers;      /* link sessions a START began */
/* The last ACK, to answer a retried control frame (same seq and type) the
 * same way without doing its work again (link-protocol.h section 4). */
static struct {
    int valid;
    uint16_t seq;
    uint8_t type;
    uint32_t status;
    char msg[64];
} last;
static uint8_t frame_buf[LK_MAX_RAW];

/* Control latency in virtual time (issue 12: polling is never starved;
 * link-protocol.h section 6).  A frame decoded at a poll arrived after the
 * poll before it, so "from arrival" is bounded by the time since that
 * poll: to the cut (its flush begun: what it covers is decided), to its
 * ACK queued (after the data ahead of it), and to the ACK's last byte on
 * the line (the answer on the wire), with the line time of the bytes sent
 * from the cut to then (the flush's own frames, link-bound) and the rest
 * (the wait the board or its host added).  The slowest of each type is
 * the monitor's "control latency" line at the end. */
#define LATENCY_TYPES (LK_T_LINK_ACK - LK_T_START + 1)
static struct {
    uint64_t cuts, cut_max;     /* flushes begun */
    uint64_t answers, answer_max;
    uint64_t wired, wire_max;   /* answers whose last byte left the line */
    uint64_t wire_busy;         /* ... the line time within the slowest */
    uint64_t wait_max;          /* answer on the wire minus line time, the most */
} latency[LATENCY_TYPES];
static uint64_t last_poll_ns;   /* the receiver's last poll */
static uint64_t last_rx_ns;     /* when the host's last byte came */
static uint64_t op_arrived_ns;  /* the control frame in progress arrived after this */
static uint64_t op_sent;        /* link bytes sent when it was cut (or taken) */
static struct {
    int active;
    uint8_t type;
    uint64_t arrived, sent;
} watch;                        /* the answer waiting to leave the line */

static void note_latency(uint8_t type, uint64_t arrived, int cut)
{
    if (type < LK_T_START || type >= LK_T_START + LATENCY_TYPES)
        return;
    uint64_t ns = clock_ns() - arrived;
    if (cut) {
        latency[type - LK_T_START].cuts++;
        if (ns > latency[type - LK_T_START].cut_max)
            latency[type - LK_T_START].cut_max = ns;
        return;
    }
    latency[type - LK_T_START].answers++;
    if (ns > latency[type - LK_T_START].answer_max)
        latency[type - LK_T_START].answer_max = ns;
}

/* The answer just queued (its ACK): watched until it leaves the line. */
static void watch_answer(uint8_t type, uint64_t arrived)
{
    if (type < LK_T_START || type >= LK_T_START + LATENCY_TYPES)
        return;
    watch.active = 1;
    watch.type = type;
    watch.arrived = arrived;
    watch.sent = op_sent;
    link_tx_watch_last();
}

static void check_watch(void)
{
    uint64_t done, sent;
    if (!watch.active || link_tx_watched(&done, &sent) != 1)
        return;
    watch.active = 0;
    uint64_t ns = done > watch.arrived ? done - watch.arrived : 0;
    uint64_t busy = (sent - watch.sent) * link_tx_byte_ns();
    if (busy > ns)
        busy = ns;              /* a FIFO's worth may leave before the cut's clock */
    typeof(latency[0]) *l = &latency[watch.type - LK_T_START];
    l->wired++;
    if (ns > l->wire_max) {
        l->wire_max = ns;
        l->wire_busy = busy;
    }
    if (ns - busy > l->wait_max)
        l->wait_max = ns - busy;
}

const struct profiler_config *control_load_config(const struct boot_options *b)
{
    profiler_config_from_boot(&config, b);
    return &config;
}

void control_init(unsigned n)
{
    ncores = n;
    ctl_init(&machine);
    lk_dec_init(&dec);
    rx_next_ns = 0;
    memset(flushes, 0, sizeof flushes);
    memset(latency, 0, sizeof latency);
    last_poll_ns = clock_ns();
    control_due_ns = last_poll_ns + POLL_NS;
}

int control_busy(void)
{
    return machine.state != CTL_IDLE;
}

static int send_ack(uint16_t seq, uint8_t type, uint32_t status, const char *msg)
{
    if (msg != last.msg) {
        size_t n = strlen(msg) < sizeof last.msg - 1 ? strlen(msg) : sizeof last.msg - 1;
        memcpy(last.msg, msg, n);
        last.msg[n] = 0;
    }
    last.valid = 1;
    last.seq = seq;
    last.type = type;
    last.status = status;
    struct lk_ack a = {
        .seq = seq,
        .type = type,
        .status = status,
        .message = {(const uint8_t *)msg, strlen(msg)},
    };
    struct lk_writer w;
    if (lk_enc_ack(&w, reply_buf, sizeof reply_buf, &a) != LK_OK)
        return 0;
    link_tx_wait_free(sizeof reply_buf);    /* data frames leave a reserve: short */
    return link_tx_send(&w);
}

static void send_epoch(uint64_t epoch)
{
    struct lk_epoch e = {.epoch = epoch, .time = clock_ns()};
    struct lk_writer w;
    if (lk_enc_epoch(&w, reply_buf, sizeof reply_buf, &e) != LK_OK)
        return;
    link_tx_wait_free(sizeof reply_buf);
    link_tx_send(&w);
}

/* The core's cumulative counters as a FLUSH carries them (before the
 * session's bases are taken off). */
static void flush_values(unsigned core, struct lk_flush *out)
{
    const struct sample_area *a = sample_area_of(core);
    const struct table_send_stats *s = table_send_stats(core);
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
                  {LK_DROP_RING_OVERFLOW, 0},
                  {LK_DROP_LINK_FULL, s->link_full}},
    };
    const struct sampling_core *t = &sampling_cores[core];
    if (t->timed || t->missed) {        /* the achieved period (sampling.h) */
        f.stats[f.nstats++] = (struct lk_counter){LK_STAT_TIMER_NS, t->timer_ns};
        f.stats[f.nstats++] = (struct lk_counter){LK_STAT_TIMER_TIMED, t->timed};
        f.stats[f.nstats++] = (struct lk_counter){LK_STAT_MISSED_TICKS, t->missed};
    }
    if (core == 0 && f.nstats + 3 <= LK_MAX_COUNTERS) {
        f.stats[f.nstats++] = (struct lk_counter){LK_STAT_BYTES_SENT, link_tx_bytes_sent()};
        f.stats[f.nstats++] = (struct lk_counter){LK_STAT_CTRL_FRAMES, machine.frames};
        f.stats[f.nstats++] = (struct lk_counter){LK_STAT_CTRL_BAD, dec.st.frames_bad};
    }
    source_add_counters(sampling_source(), core, &f);
    *out = f;
}

void control_send_flush(unsigned core)
{
    struct lk_flush f;
    flush_values(core, &f);
    f.flush_no = ++flushes[core];
    ctl_rebase(&machine, &f);
    struct lk_writer w;
    if (lk_enc_flush(&w, frame_buf, sizeof frame_buf, &f) == LK_OK)
        link_tx_send(&w);
}

static void send_flushes(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        link_tx_wait_free(512);     /* a reply's FLUSH must get through (< 400 bytes) */
        control_send_flush(c);
    }
}

/* The session's zero point of every cumulative counter. */
static void take_bases(void)
{
    for (unsigned c = 0; c < ncores; c++) {
        struct lk_flush f;
        flush_values(c, &f);
        ctl_set_base(&machine, &f);
    }
}

/* After the workload ended (flush_final): only a new host's START, which
 * takes over what the board still holds, does anything; the rest is
 * answered at once. */
static int handle_after_end(const struct lk_frame *f)
{
    if (!flush_finishing() || f->type == LK_T_START)
        return 0;
    if (f->type == LK_T_NEW_EPOCH && lk_parse_new_epoch(f, &machine.epoch) == LK_OK)
        send_epoch(machine.epoch);
    send_ack(f->seq, f->type, f->type == LK_T_CONFIG ? LK_ACK_BUSY : LK_ACK_OK, "the workload ended");
    return 1;
}

/* What the state machine does not see: LINK_ACK (link-tx.c's), retries of
 * a control frame, frames after the end.  1 when handled here. */
static int handle_link(const struct lk_frame *f)
{
    if (f->type == LK_T_LINK_ACK) {
        struct lk_link_ack a;
        if (lk_parse_link_ack(f, &a) == LK_OK)
            link_tx_ack(&a);
        return 1;
    }
    if (machine.state != CTL_IDLE && f->seq == machine.op_seq && f->type == machine.op)
        return 1;               /* a retry of the frame in progress: answered when done */
    if (machine.state == CTL_IDLE && last.valid && f->seq == last.seq && f->type == last.type) {
        send_ack(f->seq, f->type, last.status, last.msg);   /* a retry: the same answer */
        return 1;
    }
    if (machine.state == CTL_IDLE && f->type == LK_T_START && lk_parse_start(f, &start_nonce) != LK_OK) {
        send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "START payload malformed");
        return 1;
    }
    return handle_after_end(f);
}

static void handle(const struct lk_frame *f, uint64_t arrived)
{
    if (handle_link(f))
        return;
    if (machine.state == CTL_IDLE) {
        op_arrived_ns = arrived;
        op_sent = link_tx_bytes_sent();
    }
    struct ctl_view v = {
        .sampling = sampling_on(),
        .has_model = pmu_present(),
        .now_ns = clock_ns(),
        .config = &config,
    };
    struct ctl_decision d;
    ctl_on_frame(&machine, f, &v, &d);
    switch (d.action) {
    case CTL_ANSWER:
        send_ack(f->seq, f->type, d.status, d.message);
        note_latency(f->type, arrived, 0);
        break;
    case CTL_CONFIGURE:
        config = d.config;
        sampling_select();
        send_ack(f->seq, f->type, LK_ACK_OK, d.message);
        note_latency(f->type, arrived, 0);
        break;
    case CTL_STOP_AND_FLUSH:
        note_latency(f->type, arrived, 1);
        op_sent = link_tx_bytes_sent();
        sampling_pause();
        flush_begin();
        break;
    case CTL_FLUSH:
        note_latency(f->type, arrived, 1);
        op_sent = link_tx_bytes_sent();
        flush_begin();
        break;
    case CTL_REPLY_LATER:
        break;
    }
}

static void send_reply(const struct ctl_reply *r)
{
    if (r->start_session) {
        if (!based) {           /* counting starts with the first START, once: */
            take_bases();       /* cumulative values never go back (section 5) */
            based = 1;
        }
        if (!sampling_on() && !flush_finishing())
            sampling_resume();
        uint64_t nonce = start_nonce;
        if (nonce == 0)         /* an old host's START: the target picks one */
            nonce = (clock_ns() * 0x9e3779b97f4a7c15ull) ^ (machine.frames << 32) ^ 1;
        takeovers++;
        session_restart(nonce);
    }
    if (r->send_flushes)
        send_flushes();
    if (r->send_epoch)
        send_epoch(r->epoch);
    if (send_ack(r->seq, r->type, LK_ACK_OK, r->message))
        watch_answer(r->type, op_arrived_ns);
    note_latency(r->type, op_arrived_ns, 0);
}

/* Reads what the receiver has; on a paced link no faster than the baud
 * rate (a 16-byte FIFO's worth saved up at most), so the host's control
 * frames, too, travel as over an N-baud UART: the rest waits in the UART
 * and, behind it, in the host's socket. */
/* Returns the bytes read. */
static size_t poll_rx(void)
{
    uint8_t buf[RX_BATCH];
    size_t n = 0, room = sizeof buf;
    uint64_t byte_ns = link_tx_byte_ns(), now = clock_ns();
    uint64_t arrived = last_poll_ns;    /* what completes now came after the last poll */
    last_poll_ns = now;
    if (byte_ns) {
        uint64_t saved = 16 * byte_ns;
        if (now > saved && rx_next_ns < now - saved)
            rx_next_ns = now - saved;
        uint64_t due = rx_next_ns <= now ? (now - rx_next_ns) / byte_ns + 1 : 0;
        if (due < room)
            room = (size_t)due;
    }
    int ch;
    while (n < room && (ch = uart_port_receive(BOARD_COM2_PORT)) >= 0)
        buf[n++] = (uint8_t)ch;
    rx_next_ns += n * byte_ns;
    if (n)
        last_rx_ns = now;
    size_t got_bytes = n;
    const uint8_t *p = buf;
    while (n > 0) {
        size_t used;
        struct lk_frame f;
        int got = lk_dec_push(&dec, p, n, &used, &f);
        p += used;
        n -= used;
        if (got)
            handle(&f, arrived);
    }
    return got_bytes;
}

void control_tick(void)
{
    uint64_t now = clock_ns();
    check_watch();
    size_t got = poll_rx();
    if (machine.state == CTL_FLUSHING) {
        flush_send_pre_flush();
        if (ctl_flush_step(&machine, flush_pending(), clock_ns()) == CTL_GIVE_UP)
            flush_give_up();    /* the link cannot carry it in time: counted */
    }
    struct ctl_reply r;
    if (ctl_take_reply(&machine, link_tx_free() >= link_tx_reserve(), &r))
        send_reply(&r);
    int under_way = got || dec.len || dec.chunk_bytes || machine.state != CTL_IDLE || !link_tx_idle();
    control_due_ns = now + (under_way ? POLL_NS : POLL_IDLE_NS);
}

void control_poll_soon(uint64_t now)
{
    if (control_due_ns > now + POLL_NS)
        control_due_ns = now + POLL_NS;
}

uint64_t control_takeovers(void)
{
    return takeovers;
}

uint64_t control_last_rx_ns(void)
{
    return last_rx_ns;
}

void control_finish(void)
{
    struct ctl_reply r;
    if (!ctl_finish(&machine, &r))
        return;
    if (r.send_epoch)
        send_epoch(r.epoch);
    if (send_ack(r.seq, r.type, LK_ACK_OK, r.message))
        watch_answer(r.type, op_arrived_ns);
    note_latency(r.type, op_arrived_ns, 0);
}

void control_summary(void)
{
    check_watch();
    for (unsigned i = 0; i < LATENCY_TYPES; i++) {
        if (!latency[i].cuts && !latency[i].answers)
            continue;
        mon_printf("monitor: control latency: %s, virtual time from arrival: %lu flushes begun "
                   "within %lu us, %lu answered within %lu us; %lu on the wire within %lu us "
                   "(%lu us of it line time), waited at most %lu us\n",
                   lk_type_name((uint8_t)(LK_T_START + i)), (unsigned long)latency[i].cuts,
                   (unsigned long)(latency[i].cut_max / 1000), (unsigned long)latency[i].answers,
                   (unsigned long)(latency[i].answer_max / 1000), (unsigned long)latency[i].wired,
                   (unsigned long)(latency[i].wire_max / 1000), (unsigned long)(latency[i].wire_busy / 1000),
                   (unsigned long)(latency[i].wait_max / 1000));
    }
}
