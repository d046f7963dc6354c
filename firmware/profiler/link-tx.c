/*
 * Transmit queue of the profile link.  Single producer and single
 * consumer, both on the boot core: no locks.  The baud budget is
 * (elapsed virtual ns) * baud / 10 / 1e9 bytes since start.
 */
#include "firmware/profiler/link-tx.h"

#include "firmware/drivers/alarm.h"
#include "firmware/drivers/uart.h"

#define QUEUE_SIZE 65536u   /* power of two */

static struct {
    uint8_t q[QUEUE_SIZE];
    uint32_t head, tail;        /* free-running; used = head - tail */
    unsigned port;
    unsigned baud;
    uint64_t start_ns;
    uint64_t sent;
    uint16_t seq;
    int ready;
} tx;

void link_tx_init(unsigned port, unsigned baud)
{
    tx.port = port;
    tx.baud = baud;
    tx.start_ns = clock_ns();
    tx.head = tx.tail = 0;
    tx.sent = 0;
    tx.seq = 0;
    tx.ready = 1;
    uart_port_init(port);
}

int link_tx_has_room(void)
{
    return QUEUE_SIZE - (tx.head - tx.tail) >= LK_MAX_WIRE;
}

int link_tx_send(struct lk_writer *w)
{
    if (!tx.ready || !link_tx_has_room())
        return 0;
    uint8_t wire[LK_MAX_WIRE];
    size_t n = lk_finish(w, tx.seq, wire, sizeof wire);
    if (n == 0)
        return 0;
    tx.seq++;
    for (size_t i = 0; i < n; i++)
        tx.q[(tx.head + i) % QUEUE_SIZE] = wire[i];
    tx.head += (uint32_t)n;
    link_tx_pump();
    return 1;
}

static uint64_t budget(void)
{
    if (!tx.baud)
        return UINT64_MAX;
    uint64_t elapsed = clock_ns() - tx.start_ns;
    /* bytes = elapsed * baud / 1e10, in two steps to stay within 64 bits */
    uint64_t allowed = elapsed / 1000 * tx.baud / 10000000;
    return allowed > tx.sent ? allowed - tx.sent : 0;
}

void link_tx_pump(void)
{
    if (!tx.ready)
        return;
    uint64_t room = budget();
    while (tx.tail != tx.head && room > 0 && uart_port_can_send(tx.port)) {
        uart_port_send(tx.port, tx.q[tx.tail % QUEUE_SIZE]);
        tx.tail++;
        tx.sent++;
        room--;
    }
}

void link_tx_drain(void)
{
    while (tx.ready && tx.tail != tx.head)
        link_tx_pump();
}

uint64_t link_tx_bytes_sent(void)
{
    return tx.sent;
}
