/*
 * Link control (see control.h): receiver polling, the control frames'
 * state machine and the session's counter bases.
 */
#include "firmware/profiler/control.h"

#include <string.h>
#include "boards/clipper/board.h"
#include "firmware/drivers/alarm.h"
#include "firmware/drivers/uart.h"
#include "firmware/kernel/cmdline.h"
#include "firmware/profiler/link-tx.h"
#include "hw-model/pmu-window.h"
#include "linker/ram-map.h"

#define POLL_NS             1000000ull      /* receiver polled at least this often */
#define FLUSH_TIMEOUT_NS    3000000000ull   /* then what is left is counted LINK_FULL */
#define ID_MAX              32              /* LK_STAT_* and LK_DROP_* ids kept */
#define RX_BATCH            64

volatile uint64_t control_due_ns;

enum { IDLE, FLUSHING, REPLYING };

static struct {
    struct lk_decoder dec;
    int state;
    uint8_t op;                 /* the control frame in progress */
    uint16_t op_seq;
    uint64_t epoch;             /* NEW_EPOCH's number */
    uint64_t deadline;
    uint64_t frames;            /* intact control frames received */
    uint64_t base_stats[MAX_CORES][ID_MAX], base_drops[MAX_CORES][ID_MAX];
    uint64_t rx_next_ns;        /* paced link: when the next byte may be read */
    uint64_t start_nonce;       /* START's nonce, for its reply */
    int based;                  /* the counters' zero point is taken (first START) */
    uint64_t takeovers;         /* link sessions started by START */
    /* the last control frame answered, to answer a retry the same way */
    int last_valid;
    uint16_t last_seq;
    uint8_t last_type;
    uint32_t last_status;
    char last_msg[64];
} ctl;

static uint8_t reply_buf[256];

static void send_ack(uint16_t seq, uint8_t type, uint32_t status, const char *msg)
{
    ctl.last_valid = 1;
    ctl.last_seq = seq;
    ctl.last_type = type;
    ctl.last_status = status;
    size_t n = strlen(msg) < sizeof ctl.last_msg - 1 ? strlen(msg) : sizeof ctl.last_msg - 1;
    if (msg != ctl.last_msg) {
        memcpy(ctl.last_msg, msg, n);
        ctl.last_msg[n] = 0;
    }
    struct lk_ack a = {
        .seq = seq,
        .type = type,
        .status = status,
        .message = {(const uint8_t *)msg, strlen(msg)},
    };
    struct lk_writer w;
    if (lk_enc_ack(&w, reply_buf, sizeof reply_buf, &a) != LK_OK)
        return;
    link_tx_wait_free(sizeof reply_buf);    /* data frames leave a reserve: short */
    link_tx_send(&w);
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

/* The session's zero point of every cumulative counter. */
static void take_bases(void)
{
    memset(ctl.base_stats, 0, sizeof ctl.base_stats);
    memset(ctl.base_drops, 0, sizeof ctl.base_drops);
    unsigned n = profiler_ncores();
    for (unsigned c = 0; c < n && c < MAX_CORES; c++) {
        struct lk_flush f;
        profiler_flush_values(c, &f);
        for (uint32_t i = 0; i < f.nstats; i++)
            if (f.stats[i].id < ID_MAX)
                ctl.base_stats[c][f.stats[i].id] = f.stats[i].value;
        for (uint32_t i = 0; i < f.ndrops; i++)
            if (f.drops[i].id < ID_MAX)
                ctl.base_drops[c][f.drops[i].id] = f.drops[i].value;
    }
}

void control_rebase(struct lk_flush *f)
{
    if (f->core >= MAX_CORES)
        return;
    for (uint32_t i = 0; i < f->nstats; i++) {
        struct lk_counter *k = &f->stats[i];
        if (k->id < ID_MAX && k->value >= ctl.base_stats[f->core][k->id])
            k->value -= ctl.base_stats[f->core][k->id];     /* else: restarted from 0 */
    }
    for (uint32_t i = 0; i < f->ndrops; i++) {
        struct lk_counter *k = &f->drops[i];
        if (k->id < ID_MAX && k->value >= ctl.base_drops[f->core][k->id])
            k->value -= ctl.base_drops[f->core][k->id];
    }
}

int control_busy(void)
{
    return ctl.state != IDLE;
}

void control_flush_counters(struct lk_flush *f)
{
    if (f->nstats + 2 > LK_MAX_COUNTERS)
        return;
    f->stats[f->nstats++] = (struct lk_counter){LK_STAT_CTRL_FRAMES, ctl.frames};
    f->stats[f->nstats++] = (struct lk_counter){LK_STAT_CTRL_BAD, ctl.dec.st.frames_bad};
}

int control_init(void)
{
    memset(&ctl, 0, sizeof ctl);
    lk_dec_init(&ctl.dec);
    control_due_ns = clock_ns() + POLL_NS;
    return boot_options.start_host;
}

static void begin_flush(const struct lk_frame *f)
{
    ctl.op = f->type;
    ctl.op_seq = f->seq;
    ctl.deadline = clock_ns() + FLUSH_TIMEOUT_NS;
    ctl.state = FLUSHING;
    profiler_flush_begin();
}

static void reply_now(const struct lk_frame *f)
{
    ctl.op = f->type;
    ctl.op_seq = f->seq;
    ctl.state = REPLYING;
}

static int pme_mode(unsigned mode)
{
    return mode == LK_MODE_PROFILEME || mode == LK_MODE_PAIRED;
}

/* CONFIG: checked whole before anything changes. */
static void configure(const struct lk_frame *f)
{
    struct lk_config c;
    if (lk_parse_config(f, &c) != LK_OK) {
        send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "CONFIG payload malformed");
        return;
    }
    if (profiler_sampling()) {
        send_ack(f->seq, f->type, LK_ACK_BUSY, "CONFIG while sampling: send STOP first");
        return;
    }
    if (pme_mode(c.mode) != pme_mode(boot_options.profile) ||
        (pme_mode(c.mode) && c.mode != boot_options.profile)) {
        send_ack(f->seq, f->type, LK_ACK_UNSUPPORTED,
                 "ProfileMe modes are chosen at boot (profile=profileme|paired)");
        return;
    }
    switch (c.mode) {
    case LK_MODE_TIMER:
        if (c.nevents > 1 || (c.nevents == 1 && c.events[0].event != LK_EVENT_TIMER)) {
            send_ack(f->seq, f->type, LK_ACK_UNSUPPORTED, "timer mode: one event, 255 (the timer)");
            return;
        }
        if (c.nevents == 1 && (c.events[0].period_min < 1000 ||
                               c.events[0].period_max < c.events[0].period_min)) {
            send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "timer period: 1000 <= min <= max ns");
            return;
        }
        if (c.nevents == 1) {
            boot_options.period_min = c.events[0].period_min;
            boot_options.period_max = c.events[0].period_max;
        }
        profiler_set_counters(0);
        break;
    case LK_MODE_COUNTERS:
        if (!profiler_has_model()) {
            send_ack(f->seq, f->type, LK_ACK_UNSUPPORTED,
                     "no hardware model on this board (clipper-pm has one)");
            return;
        }
        if (c.nevents > BOOT_MAX_EVENTS) {
            send_ack(f->seq, f->type, LK_ACK_UNSUPPORTED, "more events than the profiler multiplexes");
            return;
        }
        for (uint32_t i = 0; i < c.nevents; i++) {
            const struct lk_event_config *e = &c.events[i];
            if (e->event >= PMU_EV_COUNT) {
                send_ack(f->seq, f->type, LK_ACK_UNSUPPORTED, "no such hardware event");
                return;
            }
            if ((e->period_min || e->period_max) &&
                (e->period_min < PMU_MIN_PERIOD || e->period_max < e->period_min)) {
                send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "event period: 1000 <= min <= max");
                return;
            }
        }
        boot_options.nevents = c.nevents;
        for (uint32_t i = 0; i < c.nevents; i++) {
            boot_options.events[i].event = c.events[i].event;
            boot_options.events[i].period_min = c.events[i].period_min;
            boot_options.events[i].period_max = c.events[i].period_max;
        }
        profiler_set_counters(1);
        break;
    case LK_MODE_PROFILEME:
    case LK_MODE_PAIRED:
        if (c.pme_min) {
            if (c.pme_max < c.pme_min) {
                send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "ProfileMe interval: min <= max");
                return;
            }
            boot_options.pme_min = c.pme_min;
            boot_options.pme_max = c.pme_max;
        }
        if (c.pair_window)
            boot_options.pair_window = c.pair_window;
        break;
    default:
        send_ack(f->seq, f->type, LK_ACK_UNSUPPORTED, "unknown mode (STOP stops sampling)");
        return;
    }
    boot_options.profile = c.mode;
    if (c.flush_ms)
        boot_options.flush_ms = c.flush_ms;
    send_ack(f->seq, f->type, LK_ACK_OK, "configured; applies at START");
}

/* After the workload ended: only a new host's START (it takes over what
 * the board still holds) does anything. */
static void handle_after_end(const struct lk_frame *f)
{
    if (f->type == LK_T_START && lk_parse_start(f, &ctl.start_nonce) == LK_OK) {
        reply_now(f);
        return;
    }
    if (f->type == LK_T_NEW_EPOCH && lk_parse_new_epoch(f, &ctl.epoch) == LK_OK)
        send_epoch(ctl.epoch);
    send_ack(f->seq, f->type, f->type == LK_T_CONFIG ? LK_ACK_BUSY : LK_ACK_OK, "the workload ended");
}

static void handle(const struct lk_frame *f)
{
    if (f->type == LK_T_LINK_ACK) {     /* not a control frame of the state machine */
        struct lk_link_ack a;
        if (lk_parse_link_ack(f, &a) == LK_OK)
            link_tx_ack(&a);
        return;
    }
    ctl.frames++;
    if (ctl.state != IDLE && f->seq == ctl.op_seq && f->type == ctl.op)
        return;                 /* a retry of the frame in progress: answered when done */
    if (ctl.state == IDLE && ctl.last_valid && f->seq == ctl.last_seq && f->type == ctl.last_type) {
        send_ack(f->seq, f->type, ctl.last_status, ctl.last_msg);   /* a retry: the same answer */
        return;
    }
    if (ctl.state != IDLE) {
        send_ack(f->seq, f->type, LK_ACK_BUSY, "busy with the last control frame");
        return;
    }
    if (profiler_ended()) {
        handle_after_end(f);
        return;
    }
    switch (f->type) {
    case LK_T_START:
        /* what the board holds stays in the retransmit window: the new
         * session carries it (link-protocol.h 5.5), no flush first */
        if (lk_parse_start(f, &ctl.start_nonce) != LK_OK) {
            send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "START payload malformed");
            break;
        }
        reply_now(f);
        break;
    case LK_T_STOP:
        if (!profiler_sampling()) {
            send_ack(f->seq, f->type, LK_ACK_OK, "not sampling");
            break;
        }
        profiler_pause();
        begin_flush(f);
        break;
    case LK_T_FLUSH_NOW:
        begin_flush(f);
        break;
    case LK_T_NEW_EPOCH:
        if (lk_parse_new_epoch(f, &ctl.epoch) != LK_OK) {
            send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "NEW_EPOCH payload malformed");
            break;
        }
        begin_flush(f);
        break;
    case LK_T_CONFIG:
        configure(f);
        break;
    default:
        send_ack(f->seq, f->type, LK_ACK_BAD_FRAME, "not a control frame");
        break;
    }
}

/* The control frame in progress is done: its frames, then its ACK. */
static void reply(void)
{
    switch (ctl.op) {
    case LK_T_START: {
        if (!ctl.based) {       /* counting starts with the first START, once */
            take_bases();
            ctl.based = 1;
        }
        if (!profiler_sampling() && !profiler_ended())
            profiler_resume();
        uint64_t nonce = ctl.start_nonce;
        if (nonce == 0)         /* an old host: the target picks one */
            nonce = (clock_ns() * 0x9e3779b97f4a7c15ull) ^ (ctl.frames << 32) ^ 1;
        ctl.takeovers++;
        profiler_new_session(nonce);
        send_ack(ctl.op_seq, ctl.op, LK_ACK_OK, "started");
        break;
    }
    case LK_T_STOP:
        profiler_send_flushes();
        send_ack(ctl.op_seq, ctl.op, LK_ACK_OK, "stopped");
        break;
    case LK_T_NEW_EPOCH:
        profiler_send_flushes();
        send_epoch(ctl.epoch);
        send_ack(ctl.op_seq, ctl.op, LK_ACK_OK, "new epoch");
        break;
    default:
        profiler_send_flushes();
        send_ack(ctl.op_seq, ctl.op, LK_ACK_OK, "flushed");
        break;
    }
    ctl.state = IDLE;
}

/* Reads what the receiver has; on a paced link no faster than the baud
 * rate (a 16-byte FIFO's worth saved up at most), so the host's control
 * frames, too, travel as over an N-baud UART: the rest waits in the UART
 * and, behind it, in the host's socket. */
static void poll_rx(void)
{
    uint8_t buf[RX_BATCH];
    size_t n = 0, room = sizeof buf;
    uint64_t byte_ns = link_tx_byte_ns(), now = clock_ns();
    if (byte_ns) {
        uint64_t saved = 16 * byte_ns;
        if (now > saved && ctl.rx_next_ns < now - saved)
            ctl.rx_next_ns = now - saved;
        uint64_t due = ctl.rx_next_ns <= now ? (now - ctl.rx_next_ns) / byte_ns + 1 : 0;
        if (due < room)
            room = (size_t)due;
    }
    int ch;
    while (n < room && (ch = uart_port_receive(BOARD_COM2_PORT)) >= 0)
        buf[n++] = (uint8_t)ch;
    ctl.rx_next_ns += n * byte_ns;
    const uint8_t *p = buf;
    while (n > 0) {
        size_t used;
        struct lk_frame f;
        int got = lk_dec_push(&ctl.dec, p, n, &used, &f);
        p += used;
        n -= used;
        if (got)
            handle(&f);
    }
}

void control_tick(void)
{
    uint64_t now = clock_ns();
    control_due_ns = now + POLL_NS;
    poll_rx();
    if (ctl.state == FLUSHING) {
        profiler_drain();
        if (!profiler_flush_pending()) {
            ctl.state = REPLYING;
        } else if (clock_ns() > ctl.deadline) {
            profiler_flush_give_up();   /* the link cannot carry it in time: counted */
            ctl.state = REPLYING;
        }
    }
    if (ctl.state == REPLYING && link_tx_free() >= link_tx_reserve())
        reply();
}

uint64_t control_takeovers(void)
{
    return ctl.takeovers;
}

void control_finish(void)
{
    if (ctl.state == IDLE)
        return;
    if (ctl.op == LK_T_NEW_EPOCH)
        send_epoch(ctl.epoch);
    send_ack(ctl.op_seq, ctl.op, LK_ACK_OK, "the workload ended");
    ctl.state = IDLE;
}
