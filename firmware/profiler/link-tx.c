/*
 * Transmit queue of the profile link.  Single producer and single
 * consumer, both on the boot core: no locks.
 *
 * Pacing (baud N > 0): the link behaves like an N-baud 8N1 UART in the
 * board's virtual time.  Each byte occupies the line for 10 bits =
 * ceil(1e10 / N) ns; a byte may start when the previous one has left, and
 * an idle line saves up no more than a 16-byte FIFO's worth, so no interval
 * of virtual time carries more than N/10 bytes a second (plus that FIFO).
 * The queue holds about a quarter second of link time (at least one
 * largest frame plus the reserve), data frames are cut to a quarter second
 * too, and the reserve kept for control frames shrinks to half a second:
 * a slow link pushes back on the profiler instead of queueing minutes of
 * data.  Data frames wait (link_tx_has_room), and what cannot wait is
 * counted as dropped (LK_DROP_LINK_FULL) by the profiler.
 */
#include "firmware/profiler/link-tx.h"

#include "firmware/drivers/alarm.h"
#include "firmware/drivers/uart.h"

#define QUEUE_SIZE 65536u   /* power of two */
#define FIFO_BYTES 16u      /* a 16550's transmit FIFO: the most an idle line saves up */
#define WAIT_LIMIT_NS 1000000000ull     /* beyond the queue's own link time */

static struct {
    uint8_t q[QUEUE_SIZE];
    uint32_t head, tail;        /* free-running; used = head - tail */
    uint32_t cap;               /* usable part of q (pacing bounds the latency) */
    uint32_t reserve;           /* left free by data frames */
    uint32_t data_raw;          /* largest raw data frame */
    unsigned port;
    unsigned baud;
    uint64_t byte_ns;           /* line time of one 10-bit character */
    uint64_t next_ns;           /* when the next byte may start */
    uint64_t sent;
    uint16_t seq;
    int ready;
} tx;

void link_tx_init(unsigned port, unsigned baud)
{
    tx.port = port;
    tx.baud = baud;
    tx.head = tx.tail = 0;
    tx.sent = 0;
    tx.seq = 0;
    tx.cap = QUEUE_SIZE;
    tx.reserve = LINK_TX_RESERVE;
    tx.data_raw = LK_MAX_RAW;
    tx.byte_ns = 0;
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
        if (quarter < QUEUE_SIZE)
            tx.cap = (uint32_t)quarter;
    }
    tx.next_ns = clock_ns();
    tx.ready = 1;
    uart_port_init(port);
}

uint32_t link_tx_free(void)
{
    return tx.cap - (tx.head - tx.tail);
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
    return link_tx_free() >= LK_COBS_MAX(tx.data_raw) + 2 + tx.reserve;
}

void link_tx_new_session(void)
{
    tx.seq = 0;
}

int link_tx_send(struct lk_writer *w)
{
    if (!tx.ready)
        return 0;
    uint8_t wire[LK_MAX_WIRE];
    size_t n = lk_finish(w, tx.seq, wire, sizeof wire);
    if (n == 0 || n > link_tx_free())
        return 0;
    tx.seq++;
    for (size_t i = 0; i < n; i++)
        tx.q[(tx.head + i) % QUEUE_SIZE] = wire[i];
    tx.head += (uint32_t)n;
    link_tx_pump();
    return 1;
}

void link_tx_pump(void)
{
    if (!tx.ready)
        return;
    if (!tx.baud) {
        while (tx.tail != tx.head && uart_port_can_send(tx.port)) {
            uart_port_send(tx.port, tx.q[tx.tail % QUEUE_SIZE]);
            tx.tail++;
            tx.sent++;
        }
        return;
    }
    uint64_t now = clock_ns();
    uint64_t saved = FIFO_BYTES * tx.byte_ns;
    if (now > saved && tx.next_ns < now - saved)
        tx.next_ns = now - saved;       /* an idle line saves up only a FIFO */
    while (tx.tail != tx.head && tx.next_ns <= now && uart_port_can_send(tx.port)) {
        uart_port_send(tx.port, tx.q[tx.tail % QUEUE_SIZE]);
        tx.tail++;
        tx.sent++;
        tx.next_ns += tx.byte_ns;
    }
}

void link_tx_drain(void)
{
    while (tx.ready && tx.tail != tx.head)
        link_tx_pump();
}

void link_tx_wait_free(uint32_t bytes)
{
    if (bytes > tx.cap)
        bytes = tx.cap;
    /* bounded: a host that stopped reading must not hang the boot core */
    uint64_t deadline = clock_ns() + WAIT_LIMIT_NS + (uint64_t)tx.cap * tx.byte_ns;
    while (tx.ready && link_tx_free() < bytes && clock_ns() < deadline)
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
