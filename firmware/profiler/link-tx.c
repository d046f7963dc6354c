/*
 * Transmit side of the profile link: a retransmit window in fixed RAM,
 * paced like a UART (see link-tx.h; the protocol is link-protocol.h
 * section 5).  Single producer and single consumer, both on the boot core:
 * no locks.
 *
 * Design notes and invariants
 *
 *  1. Frames are kept raw (header and payload, no CRC, no seq) in a ring,
 *     each behind a u16 length.  A frame's seq is not stored: it is its
 *     position in the link session (pos, counted from 0 at the session's
 *     HELLO, 32 bits, so it does not wrap) mod 2^16, put in when the frame
 *     is sealed (CRC, COBS) for the wire.  So renumbering a window for a
 *     new session (takeover) costs nothing.
 *  2. Positions: the session's context frames (HELLO, NAMES, LOADMAP, base
 *     FLUSH frames) are 0 .. ctx_n-1 and live in their own buffer for the
 *     whole session; ring frames follow: the frame at `acked` (the oldest
 *     one the host has not stored) is ring_pos, the next ring_pos + 1 ...
 *     up to head_pos (exclusive).  send_pos is the next frame to seal for
 *     the first time (send its byte offset in the ring) and only moves
 *     forward within a session; top_pos the highest position ever sealed
 *     + 1 (send_pos, but for a session that skipped stored frames);
 *     host_pos the host's last `expected`.  ring_pos <= send_pos <=
 *     head_pos (or send_pos in the context); host_pos <= top_pos.
 *  3. Reliable mode (after START or a LINK_ACK of this session): ring
 *     frames are freed only when the host says it stored them.  Best-effort
 *     mode (nobody acknowledges: `alphaprof record`): a frame is freed as
 *     soon as it is sealed, as before the protocol had acknowledgements.
 *  4. Sending again (selective repeat, link-protocol.h 5.3): which frames
 *     the host lacks is link-resend.c's to say, from each LINK_ACK's
 *     `expected` and bitmap and from the retransmit time: a frame goes
 *     again only when its last copy is known lost (a frame the host holds
 *     went out first after it), never because it is merely unacknowledged.
 *     The frames to send again go before any new frame, lowest first; a
 *     frame on the wire is finished first (a frame is never cut); then
 *     sending goes on at send_pos.  A resent frame is found in the ring by
 *     walking the length prefixes from a remembered (position, offset)
 *     pair at or before it (the oldest unstored frame's, else the last one
 *     found): the frames to resend lie within LK_IN_FLIGHT_FRAMES of the
 *     host's `expected`, which only moves forward, so a walk is short.
 *     Without progress of the host's `expected` for the retransmit time
 *     while frames are out, `expected` and every frame after it that the
 *     host's last bitmap did not show held go again.  The retransmit time
 *     starts at LK_RTO_MIN_MS (or 8 frame times of the link) and doubles
 *     while the host's `expected` does not move, up to LK_RTO_MAX_MS;
 *     but a LINK_ACK that shows a gap (frames held after `expected`, or a
 *     RESEND) puts it back to the least: the host is there and taking
 *     frames, only the one at the gap is lost, so it is retried at the
 *     least retransmit time.  (Go-back-N got its retries from the frames
 *     after the gap, which it sent again too; with nothing else to send,
 *     a gap frame lost again under heavy damage waited up to 4 s a try
 *     and the 6e-3 test's run ended as a cut link.)  A LINK_ACK that only
 *     moves `stored` leaves it: on a slow host that acknowledges late,
 *     resetting it sent 35-86 frames again in a short undamaged run.  A
 *     LINK_ACK that finds `expected` lost starts the retransmit time over
 *     too: the copy it queues is the one to time, and a clock still
 *     running from before the loss (a host that showed the gap late) fired
 *     at once and counted the one loss twice, so the frame went in pieces
 *     (note 9) where one whole copy was due.
 *  5. Freed frames are read once more: the samples each core's stored
 *     frames carried, and its last stored FLUSH, make the base FLUSH frames
 *     of the next session (takeover): what an earlier host stored is
 *     neither stored again nor counted as lost by the next one.
 *  6. Sizes against the baud budget: the ring is RING_SIZE bytes; the
 *     window (unacknowledged plus queued) uses at most window_cap of it:
 *     30 s of link time (at least 16 KiB), all of it unpaced.  Unsent bytes
 *     are kept to `cap`, a quarter second of link time (at least a largest
 *     frame plus the reserve), so a slow link pushes back on the profiler
 *     instead of queueing minutes of data; data frames are cut to a quarter
 *     second too, and the reserve kept for control frames shrinks to half a
 *     second.  What finds no room is counted by the profiler
 *     (LK_DROP_LINK_FULL); nothing here ever waits for the host, except
 *     link_tx_wait_free and link_tx_settle, which are bounded.
 *  7. Pacing (baud N > 0): each byte occupies the line for 10 bits =
 *     ceil(1e10 / N) ns of virtual time; a byte may start when the previous
 *     one has left, and an idle line saves up no more than a 16-byte FIFO.
 *  8. In flight (reliable mode): new frames go out only while send_pos is
 *     less than host_pos + LK_IN_FLIGHT_FRAMES; frames sent again lie
 *     below that anyway.  An unpaced line fills the socket buffers between
 *     here and the host, and a frame sent again after a gap would arrive
 *     only behind all of them: retries were seconds apart, a frame at the
 *     gap missed the end's settle and the run ended as a cut link.  The
 *     bound is also what the host's reorder buffer holds (LK_SACK_BITS)
 *     and what link-resend.c keeps stamps for.
 *  9. Parts (link-protocol.h 5.7): the frame at the host's `expected`,
 *     once its copies were lost twice (gap_tries >= 2 at gap_pos: a
 *     bitmap proved it lost, or the retransmit time ran out), goes again
 *     as PART frames, the piece halving with each further loss down to
 *     LK_PART_BYTES / 16; the resend moves on to the next frame only after
 *     its last piece (resend_pos holds it meanwhile), and drops the rest
 *     of the pieces when the host's `expected` passes it.  Frames built
 *     before the link turned bad keep their size; their pieces get
 *     through.
 * 10. Watching a frame (control latency, link-protocol.h section 6): the
 *     position of the frame last queued is remembered; when that frame
 *     (whole, or its last piece) is sealed its last wire byte is known,
 *     and when that byte is on the line the time it ends (next_ns on a
 *     paced line) is kept.  One frame at a time: a new watch replaces it.
 */
#include "firmware/profiler/link-tx.h"

#include <string.h>
#include "firmware/drivers/alarm.h"
#include "firmware/drivers/uart.h"
#include "firmware/profiler/link-resend.h"

#define RING_SIZE (256u * 1024)         /* power of two */
#define CTX_SIZE (16u * 1024)
#define FIFO_BYTES UART_TX_FIFO_BYTES    /* the most an idle line saves up */
#define WAIT_LIMIT_NS 1000000000ull     /* beyond the queue's own link time */
#define LEN_BYTES 2u                    /* each stored frame's length prefix */
#define MAX_TRACKED_CORES 64
#define DATA_RAW_MIN 256u               /* smallest data frame on a damaged link (a ProfileMe aggregate fits) */

_Static_assert((RING_SIZE & (RING_SIZE - 1)) == 0, "ring size is a power of two");
_Static_assert(RING_SIZE / (LEN_BYTES + LK_HDR_SIZE + 1) < 32768,  /* every target frame has a payload */
               "a window never holds half of the seq space (link-protocol.h 5)");

struct core_base {
    int have;
    uint64_t samples, pme, pairs;       /* in frames the host stored */
    struct lk_flush flush;              /* its last stored FLUSH (flush.nstats 0: none) */
};

/* The buffers: every byte is written before it is read (the positions
 * in tx say which hold data), so a start does not clear them (320 KiB:
 * a long run's timer tick paid about 5 modelled cycles for it). */
static struct {
    uint8_t ring[RING_SIZE];
    uint8_t ctx[CTX_SIZE];              /* the session's context frames */
    uint8_t raw[LK_MAX_RAW];            /* the frame being sealed */
    uint8_t wire[LK_MAX_WIRE];          /* the frame on the line */
} txbuf;

static struct {
    uint32_t head, acked, send;         /* free-running byte offsets */
    uint32_t cap;                       /* unsent bytes, at most (pacing bounds latency) */
    uint32_t window_cap;                /* head - acked, at most */
    uint32_t reserve;                   /* left free by data frames */
    uint32_t data_raw;                  /* largest raw data frame now */
    uint32_t data_raw_max;              /* ... on a clean link */
    uint64_t clean_since_ns;            /* no RESEND since */

    uint32_t ctx_len, ctx_n;
    int capturing;                      /* link_tx_send goes to ctx */

    uint32_t ring_pos, head_pos, send_pos, top_pos, host_pos;
    uint64_t nonce;
    uint64_t prev_nonce, prev_pos;      /* the session this one took over */
    int session_acked;                  /* a LINK_ACK of the current session came */
    int reliable;
    uint64_t rto_ns, rto_min_ns, progress_ns;
    uint64_t host_progress_ns;          /* when the host's `expected` last moved */
    uint64_t host_heard_ns;             /* when a LINK_ACK of the session last came */
    uint32_t gap_pos, gap_tries;        /* the frame at the host's `expected` lost, how often */
    uint32_t resend_pos;                /* the frame going again in pieces (note 9) */
    uint32_t part_off;                  /* its next piece (0: none under way) */
    struct link_resend rs;              /* what the host lacks (note 4) */
    uint32_t hint_pos, hint_off;        /* a ring frame's position and offset (note 4) */
    int ending;                         /* the run ends: retransmit time kept short */
    int go_back_n;                      /* the host asked for go-back-N (link-protocol.h 5.9) */
    uint64_t frames_sent, retransmits, retransmit_bytes;
    int watching, watch_sealed, watch_done;   /* note 10 */
    uint32_t watch_pos;
    uint64_t watch_ns, watch_sent;      /* when its last byte ended, bytes sent by then */

    size_t wire_len, wire_pos;

    unsigned port;
    unsigned baud;
    uint64_t byte_ns;                   /* line time of one 10-bit character */
    uint64_t next_ns;                   /* when the next byte may start */
    uint64_t sent;
    int ready;
    struct core_base base[MAX_TRACKED_CORES];
} tx;

static uint32_t ring_get16(uint32_t off)
{
    return (uint32_t)txbuf.ring[off % RING_SIZE] | (uint32_t)txbuf.ring[(off + 1) % RING_SIZE] << 8;
}

/* The ring's bytes go in and out in at most two pieces (the wrap). */
static void ring_copy_out(uint32_t off, uint8_t *dst, uint32_t n)
{
    uint32_t at = off % RING_SIZE, first = RING_SIZE - at < n ? RING_SIZE - at : n;
    memcpy(dst, txbuf.ring + at, first);
    memcpy(dst + first, txbuf.ring, n - first);
}

static void ring_copy_in(uint32_t off, const uint8_t *src, uint32_t n)
{
    uint32_t at = off % RING_SIZE, first = RING_SIZE - at < n ? RING_SIZE - at : n;
    memcpy(txbuf.ring + at, src, first);
    memcpy(txbuf.ring, src + first, n - first);
}

void link_tx_init(unsigned port, unsigned baud)
{
    memset(&tx, 0, sizeof tx);
    tx.port = port;
    tx.baud = baud;
    tx.cap = RING_SIZE;
    tx.window_cap = RING_SIZE;
    tx.reserve = LINK_TX_RESERVE;
    tx.data_raw = LK_MAX_RAW;
    tx.rto_min_ns = LK_RTO_MIN_MS * 1000000ull;
    if (baud) {
        tx.byte_ns = (10000000000ull + baud - 1) / baud;
        uint64_t quarter = (uint64_t)baud / 40;     /* bytes in 250 ms */
        if (quarter < LK_MAX_RAW)   /* at least 256: a ProfileMe aggregate fits */
            tx.data_raw = quarter < 256 ? 256 : (uint32_t)quarter;
        if (2 * quarter < LINK_TX_RESERVE)
            tx.reserve = 2 * quarter < 512 ? 512 : (uint32_t)(2 * quarter);
        uint64_t least = LK_MAX_WIRE + tx.reserve;  /* a LOADMAP always fits */
        if (quarter < least)
            quarter = least;
        if (quarter < RING_SIZE)
            tx.cap = (uint32_t)quarter;
        uint64_t window = (uint64_t)baud * 3;       /* 30 s of 10-bit bytes */
        if (window < 16384)
            window = 16384;
        if (window < RING_SIZE)
            tx.window_cap = (uint32_t)window;
        uint64_t frames8 = 8 * LK_MAX_WIRE * tx.byte_ns;
        if (frames8 > tx.rto_min_ns)
            tx.rto_min_ns = frames8;
    }
    tx.rto_ns = tx.rto_min_ns;
    tx.data_raw_max = tx.data_raw;
    tx.next_ns = clock_ns();
    tx.ready = 1;
    uart_port_init(port);
}

/* Room the window has (reliable: only the host's LINK_ACK makes more). */
static uint32_t window_room(void)
{
    uint32_t used = tx.head - tx.acked;
    return used < tx.window_cap ? tx.window_cap - used : 0;
}

static uint32_t unsent_bytes(void)
{
    return tx.head - tx.send;
}

uint32_t link_tx_free(void)
{
    uint32_t used = tx.head - tx.acked, unsent = unsent_bytes();
    uint32_t by_window = used < tx.window_cap ? tx.window_cap - used : 0;
    uint32_t by_latency = unsent < tx.cap ? tx.cap - unsent : 0;
    return by_window < by_latency ? by_window : by_latency;
}

uint32_t link_tx_reserve(void)
{
    return tx.reserve;
}

uint32_t link_tx_capacity(void)
{
    return tx.cap;
}

size_t link_tx_data_frame(void)
{
    return tx.data_raw;
}

int link_tx_has_room(void)
{
    return link_tx_free() >= LEN_BYTES + tx.data_raw + tx.reserve;
}

/* ------------------------------------------------------------ queueing */

int link_tx_send(struct lk_writer *w)
{
    if (!tx.ready)
        return 0;
    size_t n = lk_frame_raw(w);
    if (n == 0)
        return 0;
    if (tx.capturing) {
        if (tx.ctx_len + LEN_BYTES + n > CTX_SIZE)
            return 0;
        txbuf.ctx[tx.ctx_len] = (uint8_t)n;
        txbuf.ctx[tx.ctx_len + 1] = (uint8_t)(n >> 8);
        memcpy(txbuf.ctx + tx.ctx_len + LEN_BYTES, w->buf, n);
        tx.ctx_len += LEN_BYTES + (uint32_t)n;
        tx.ctx_n++;
        return 1;
    }
    if (LEN_BYTES + n > link_tx_free())
        return 0;
    txbuf.ring[tx.head % RING_SIZE] = (uint8_t)n;
    txbuf.ring[(tx.head + 1) % RING_SIZE] = (uint8_t)(n >> 8);
    ring_copy_in(tx.head + LEN_BYTES, w->buf, (uint32_t)n);
    tx.head += LEN_BYTES + (uint32_t)n;
    tx.head_pos++;
    link_tx_pump();
    return 1;
}

/* ------------------------------------------------- freeing what is stored */

static void note_stored_frame(const uint8_t *raw, uint32_t n)
{
    struct lk_frame f;
    if (lk_frame_of_raw(raw, n, &f) != LK_OK)
        return;
    struct lk_reader r;
    if (f.type == LK_T_SAMPLES) {
        struct lk_samples_hdr h;
        uint64_t pc, count;
        if (lk_samples_open(&f, &h, &r) != LK_OK || h.core >= MAX_TRACKED_CORES)
            return;
        while (lk_samples_next(&r, &pc, &count) == 1)
            tx.base[h.core].samples += count;
        tx.base[h.core].have = 1;
    } else if (f.type == LK_T_PME_AGG) {
        struct lk_pme_hdr h;
        static struct lk_pme_agg a;
        if (lk_pme_open(&f, &h, &r) != LK_OK || h.core >= MAX_TRACKED_CORES)
            return;
        while (lk_pme_next(&r, &a) == 1)
            tx.base[h.core].pme += a.samples;
        tx.base[h.core].have = 1;
    } else if (f.type == LK_T_PAIRS) {
        struct lk_pme_hdr h;
        if (lk_pairs_open(&f, &h, &r) != LK_OK || h.core >= MAX_TRACKED_CORES)
            return;
        tx.base[h.core].pairs += h.count;
        tx.base[h.core].have = 1;
    } else if (f.type == LK_T_FLUSH) {
        static struct lk_flush fl;
        if (lk_parse_flush(&f, &fl) != LK_OK || fl.core >= MAX_TRACKED_CORES)
            return;
        tx.base[fl.core].flush = fl;
        tx.base[fl.core].have = 1;
    }
}

/* Frees ring frames before position `pos` (the host stored them). */
static void free_before(uint32_t pos)
{
    while (tx.ring_pos < pos && tx.acked != tx.head && tx.acked != tx.send) {
        uint32_t n = ring_get16(tx.acked);
        if (tx.reliable) {
            ring_copy_out(tx.acked + LEN_BYTES, txbuf.raw, n);
            note_stored_frame(txbuf.raw, n);
        }
        tx.acked += LEN_BYTES + n;
        tx.ring_pos++;
    }
}

/* The byte offset of ring frame pos (ring_pos <= pos < head_pos): a walk
 * over the length prefixes from the nearest known frame (note 4). */
static uint32_t ring_offset(uint32_t pos)
{
    uint32_t p = tx.ring_pos, off = tx.acked;
    if (tx.hint_pos >= tx.ring_pos && tx.hint_pos <= pos) {
        p = tx.hint_pos;
        off = tx.hint_off;
    }
    for (; p < pos && off != tx.head; p++)
        off += LEN_BYTES + ring_get16(off);
    tx.hint_pos = pos;
    tx.hint_off = off;
    return off;
}

/* The frame at position pos: its raw bytes into txbuf.raw.  `again`: a
 * frame sent before (found by its position), else the next new one (at
 * send).  Returns the length, 0 if there is none. */
static uint32_t load_frame(uint32_t pos, int again)
{
    if (pos < tx.ctx_n) {
        uint32_t off = 0;
        for (uint32_t i = 0; i < pos; i++)
            off += LEN_BYTES + (txbuf.ctx[off] | (uint32_t)txbuf.ctx[off + 1] << 8);
        uint32_t n = txbuf.ctx[off] | (uint32_t)txbuf.ctx[off + 1] << 8;
        memcpy(txbuf.raw, txbuf.ctx + off + LEN_BYTES, n);
        return n;
    }
    uint32_t off = tx.send;
    if (again) {
        if (pos < tx.ring_pos || pos >= tx.send_pos)
            return 0;                   /* stored already, or never sent */
        off = ring_offset(pos);
    }
    if (off == tx.head)
        return 0;
    uint32_t n = ring_get16(off);
    ring_copy_out(off + LEN_BYTES, txbuf.raw, n);
    return n;
}

/* The piece size for the frame at pos (note 9), 0 to send it whole. */
static uint32_t part_bytes(uint32_t pos)
{
    if (!tx.reliable || pos != tx.gap_pos || tx.gap_tries < 2)
        return 0;
    uint32_t halvings = tx.gap_tries - 2 < 4 ? tx.gap_tries - 2 : 4;
    return LK_PART_BYTES >> halvings;
}

/* The frame to seal next: a piece under way, a frame the host lacks
 * (note 4), or the next new one within the in-flight bound (note 8).
 * 0 when there is none. */
static int pick_frame(uint32_t *pos, int *again)
{
    if (tx.part_off) {
        *pos = tx.resend_pos;
        *again = 1;
        return 1;
    }
    *again = 1;
    while (tx.reliable && link_resend_next(&tx.rs, pos))
        if (*pos < tx.ctx_n || (*pos >= tx.ring_pos && *pos < tx.send_pos))
            return 1;                   /* else stored meanwhile: nothing to send */
    *again = 0;
    *pos = tx.send_pos;
    return !(tx.reliable && tx.send_pos >= tx.host_pos + LK_IN_FLIGHT_FRAMES);
}

/* Seals the next frame (or piece of one) for the wire; 0 when there is
 * nothing to send. */
static int next_frame(void)
{
    if (tx.send_pos >= tx.ctx_n && tx.send_pos < tx.ring_pos) {
        tx.send_pos = tx.ring_pos;      /* stored already: skip */
        tx.send = tx.acked;
    }
    uint32_t pos;
    int again;
    if (!pick_frame(&pos, &again))
        return 0;
    uint32_t n = load_frame(pos, again);
    if (n == 0) {
        tx.part_off = 0;
        return 0;
    }
    uint32_t piece = again ? part_bytes(pos) : 0;
    if (piece && n > piece) {
        static uint8_t part[LK_MAX_RAW];
        struct lk_writer w;
        uint32_t off = tx.part_off, len = n - off < piece ? n - off : piece;
        txbuf.raw[2] = txbuf.raw[3] = 0;      /* a piece of the frame as queued: seq 0 */
        tx.part_off = 0;
        if (lk_enc_part(&w, part, sizeof part, txbuf.raw, n, off, len) != LK_OK)
            return 0;
        size_t plen = lk_frame_raw(&w);
        tx.wire_len = plen ? lk_seal(part, plen, (uint16_t)pos, txbuf.wire, sizeof txbuf.wire) : 0;
        tx.wire_pos = 0;
        link_resend_sent(&tx.rs, pos, 1);
        tx.retransmit_bytes += tx.wire_len;
        if (off + len < n) {
            tx.part_off = off + len;    /* the frame stays under way */
            tx.resend_pos = pos;
            return tx.wire_len != 0;
        }
    } else {
        tx.part_off = 0;
        tx.wire_len = lk_seal(txbuf.raw, n, (uint16_t)pos, txbuf.wire, sizeof txbuf.wire);
        tx.wire_pos = 0;
        link_resend_sent(&tx.rs, pos, again);
        if (again)
            tx.retransmit_bytes += tx.wire_len;
    }
    if (tx.watching && !tx.watch_done && pos == tx.watch_pos)
        tx.watch_sealed = 1;            /* its last byte is this wire frame's */
    if (again) {
        tx.retransmits++;
        return tx.wire_len != 0;
    }
    tx.frames_sent++;
    if (tx.send_pos >= tx.ctx_n)
        tx.send += LEN_BYTES + n;
    if (tx.top_pos == tx.host_pos)
        tx.progress_ns = clock_ns();    /* the first frame out: its clock starts */
    tx.send_pos++;
    if (tx.send_pos > tx.top_pos)
        tx.top_pos = tx.send_pos;
    if (!tx.reliable)
        free_before(tx.send_pos);
    return tx.wire_len != 0;
}

/* The frame at the host's `expected` was lost again (note 9). */
static void lost_again(uint32_t pos)
{
    if (pos == tx.gap_pos) {
        tx.gap_tries++;
    } else {
        tx.gap_pos = pos;
        tx.gap_tries = 1;
    }
}

static void check_timeout(void)
{
    if (!tx.reliable || tx.top_pos == tx.host_pos)
        return;
    uint64_t now = clock_ns();
    if (now - tx.progress_ns < tx.rto_ns)
        return;
    if ((tx.go_back_n ? link_resend_go_back(&tx.rs) : link_resend_timeout(&tx.rs)) & 1)
        lost_again(tx.host_pos);
    tx.progress_ns = now;
    uint64_t max = tx.ending ? 2 * tx.rto_min_ns : LK_RTO_MAX_MS * 1000000ull;
    tx.rto_ns = 2 * tx.rto_ns < max ? 2 * tx.rto_ns : max;
}

/* A damaged link (the host asked again, or a frame was found lost)
 * halves the data frames built from now on, down to DATA_RAW_MIN: at byte
 * error rate e a frame of n bytes gets through with (1-e)^n, and a lost
 * frame goes again whole.  A second without a loss doubles them again, up
 * to the clean size. */
static void adapt_frames(int damaged)
{
    uint64_t now = clock_ns();
    if (damaged) {
        tx.data_raw = tx.data_raw / 2 < DATA_RAW_MIN ? DATA_RAW_MIN : tx.data_raw / 2;
        tx.clean_since_ns = now;
    } else if (tx.data_raw < tx.data_raw_max && now - tx.clean_since_ns > 1000000000ull) {
        tx.data_raw = 2 * tx.data_raw > tx.data_raw_max ? tx.data_raw_max : 2 * tx.data_raw;
        tx.clean_since_ns = now;
    }
}

/* A u16 seq the host names, as a position: at most top_pos, within 2^15 of it. */
static int unwrap(uint16_t seq, uint32_t *pos)
{
    uint16_t back = (uint16_t)((uint16_t)tx.top_pos - seq);
    if (back > tx.top_pos || back >= 32768)
        return 0;
    *pos = tx.top_pos - back;
    return 1;
}

void link_tx_ack(const struct lk_link_ack *a)
{
    if (!tx.ready || a->nonce != tx.nonce)
        return;                         /* another session's: a replay or a killed host's */
    uint32_t stored, expected;
    if (!unwrap(a->stored, &stored) || !unwrap(a->expected, &expected) || stored > expected)
        return;
    tx.reliable = 1;
    tx.session_acked = 1;
    tx.host_heard_ns = clock_ns();
    free_before(stored);
    if (expected > tx.host_pos) {
        tx.host_pos = expected;
        tx.progress_ns = tx.host_progress_ns = clock_ns();
        tx.rto_ns = tx.rto_min_ns;
        if (tx.part_off && tx.resend_pos < expected)
            tx.part_off = 0;            /* the host has it: the rest of its pieces is moot */
    }
    tx.go_back_n = (a->flags & LK_LACK_GO_BACK) != 0;
    uint32_t lost = 0;
    if (!tx.go_back_n) {
        lost = link_resend_ack(&tx.rs, expected, a->sack, (a->flags & LK_LACK_RESEND) != 0);
    } else {
        link_resend_advance(&tx.rs, expected);
        if (a->flags & LK_LACK_RESEND)
            lost = link_resend_go_back(&tx.rs);
    }
    if (lost & 1) {
        lost_again(tx.host_pos);
        tx.progress_ns = clock_ns();    /* its copy goes now: a clock of its own (note 4) */
    }
    if (a->sack || (a->flags & LK_LACK_RESEND))
        tx.rto_ns = tx.rto_min_ns;      /* a gap, not a slow host: note 4 */
    adapt_frames(lost || (a->flags & LK_LACK_RESEND));
}

/* ---------------------------------------------------------- sessions */

void link_tx_session_begin(uint64_t nonce, int reliable)
{
    /* the session taken over is the last one a host acknowledged: one that
     * never heard a LINK_ACK (its host died before storing anything)
     * renumbered nothing a host knows, so its own predecessor stays the
     * one named (link-protocol.h 5.5) */
    if (tx.session_acked || !tx.prev_nonce) {
        tx.prev_nonce = tx.nonce;
        tx.prev_pos = tx.ring_pos;      /* the first frame to go again, old numbering */
    }
    tx.session_acked = 0;
    tx.nonce = nonce;
    tx.reliable = reliable;
    tx.ctx_len = tx.ctx_n = 0;
    tx.capturing = 1;
}

/* Base FLUSH of one core: its last stored FLUSH's values with the sample
 * counts of every frame the host stored. */
static void send_base(unsigned core)
{
    static struct lk_flush f;
    static uint8_t buf[LK_MAX_RAW];
    struct core_base *b = &tx.base[core];
    f = b->flush;
    f.core = core;
    f.base = 1;
    uint64_t want[3] = {b->samples, b->pme, b->pairs};
    static const uint32_t ids[3] = {LK_STAT_SAMPLES_SENT, LK_STAT_PME_SENT, LK_STAT_PAIRS_SENT};
    for (unsigned k = 0; k < 3; k++) {
        uint32_t i = 0;
        while (i < f.nstats && f.stats[i].id != ids[k])
            i++;
        if (i == f.nstats && f.nstats < LK_MAX_COUNTERS)
            f.stats[f.nstats++].id = ids[k];
        if (i < f.nstats)
            f.stats[i].value = want[k];
    }
    struct lk_writer w;
    if (lk_enc_flush(&w, buf, sizeof buf, &f) == LK_OK)
        link_tx_send(&w);
}

void link_tx_session_ready(void)
{
    for (unsigned c = 0; c < MAX_TRACKED_CORES; c++)
        if (tx.base[c].have)
            send_base(c);
    tx.capturing = 0;
    /* the old session's unstored frames follow the new context */
    tx.ring_pos = tx.ctx_n;
    tx.head_pos = tx.ring_pos;
    for (uint32_t off = tx.acked; off != tx.head; off += LEN_BYTES + ring_get16(off))
        tx.head_pos++;
    tx.send_pos = tx.top_pos = tx.host_pos = 0;
    tx.send = tx.acked;
    tx.part_off = 0;
    link_resend_reset(&tx.rs, 0);
    tx.go_back_n = 0;
    tx.hint_pos = tx.ring_pos;
    tx.hint_off = tx.acked;
    tx.gap_pos = tx.gap_tries = 0;
    tx.rto_ns = tx.rto_min_ns;
    tx.progress_ns = clock_ns();
}

uint64_t link_tx_nonce(void)
{
    return tx.nonce;
}

void link_tx_previous(uint64_t *nonce, uint64_t *pos)
{
    *nonce = tx.prev_nonce;
    *pos = tx.prev_pos;
}

int link_tx_reliable(void)
{
    return tx.reliable;
}

int link_tx_idle(void)
{
    return tx.wire_pos == tx.wire_len && tx.send == tx.head && tx.send_pos >= tx.ctx_n &&
           !tx.part_off && !(tx.reliable && tx.rs.lack);
}

int link_tx_settled(void)
{
    return link_tx_idle() && (!tx.reliable || tx.acked == tx.head);
}

void link_tx_ending(void)
{
    tx.ending = 1;
    tx.rto_ns = tx.rto_min_ns;
}

uint64_t link_tx_host_progress_ns(void)
{
    return tx.host_progress_ns;
}

uint64_t link_tx_host_heard_ns(void)
{
    return tx.host_heard_ns;
}

uint64_t link_tx_retransmits(void)
{
    return tx.retransmits;
}

uint64_t link_tx_retransmit_bytes(void)
{
    return tx.retransmit_bytes;
}

uint64_t link_tx_frames_sent(void)
{
    return tx.frames_sent;
}

/* ------------------------------------------------------------ the line */

/* Puts what the line takes now of the wire frame: unpaced, a FIFO's
 * worth per status read (the link's bytes are the monitor's hottest loop
 * under paired ProfileMe); paced, a byte whose time has come per status
 * read, as before: bursts of the due bytes left a 9600-baud line at a
 * third of its rate in non-deterministic runs
 * (test_low_baud_link_budget_and_link_full_drops failed 2 of 3). */
static int line_put(uint64_t now)
{
    size_t n = tx.wire_len - tx.wire_pos;
    size_t burst = tx.baud ? 1 : UART_TX_FIFO_BYTES;
    if (n > burst)
        n = burst;
    if (tx.baud) {
        size_t due = 0;
        for (uint64_t t = tx.next_ns; due < n && t <= now; t += tx.byte_ns)
            due++;
        n = due;
    }
    if (n == 0)
        return 0;
    n = uart_port_send_burst(tx.port, txbuf.wire + tx.wire_pos, n);
    if (n == 0)
        return 0;
    tx.wire_pos += n;
    tx.sent += n;
    tx.next_ns += n * tx.byte_ns;
    if (tx.watch_sealed && tx.wire_pos == tx.wire_len) {
        tx.watch_sealed = 0;
        tx.watch_done = 1;
        tx.watch_ns = tx.baud ? tx.next_ns : clock_ns();
        tx.watch_sent = tx.sent;
    }
    return 1;
}

void link_tx_pump(void)
{
    if (!tx.ready)
        return;
    check_timeout();
    uint64_t now = tx.baud ? clock_ns() : 0;
    if (tx.baud) {
        uint64_t saved = FIFO_BYTES * tx.byte_ns;
        if (now > saved && tx.next_ns < now - saved)
            tx.next_ns = now - saved;   /* an idle line saves up only a FIFO */
    }
    for (;;) {
        if (tx.wire_pos == tx.wire_len && !next_frame())
            return;
        if (!line_put(now))
            return;
    }
}

/* The frames in flight wait for the host's LINK_ACK (note 8), which only
 * the control channel reads: a loop here would wait for nothing. */
static int held_for_host(void)
{
    return tx.wire_pos == tx.wire_len && tx.reliable && tx.send_pos >= tx.host_pos + LK_IN_FLIGHT_FRAMES &&
           !tx.part_off && !tx.rs.lack;
}

void link_tx_drain(void)
{
    while (tx.ready && !link_tx_idle() && !held_for_host())
        link_tx_pump();
}

void link_tx_wait_free(uint32_t bytes)
{
    if (bytes > tx.cap)
        bytes = tx.cap;
    /* bounded: a host that stopped reading must not hang the boot core */
    uint64_t deadline = clock_ns() + WAIT_LIMIT_NS + (uint64_t)tx.cap * tx.byte_ns;
    while (tx.ready && link_tx_free() < bytes && clock_ns() < deadline && !held_for_host() &&
           !(tx.reliable && window_room() < bytes))
        link_tx_pump();
}

uint64_t link_tx_byte_ns(void)
{
    return tx.byte_ns;
}

uint64_t link_tx_bytes_sent(void)
{
    return tx.sent;
}

void link_tx_watch_last(void)
{
    tx.watching = !tx.capturing && tx.head_pos > 0;
    tx.watch_pos = tx.head_pos - 1;
    tx.watch_sealed = tx.watch_done = 0;
    link_tx_pump();
}

int link_tx_watched(uint64_t *done_ns, uint64_t *sent)
{
    if (!tx.watching)
        return -1;
    if (!tx.watch_done)
        return 0;
    *done_ns = tx.watch_ns;
    *sent = tx.watch_sent;
    tx.watching = 0;
    return 1;
}
