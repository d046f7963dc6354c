/*
 * 16550 UART on COM1.  Transmit polls the line status register (QEMU's UART
 * sends instantly, so a byte never waits long); receive is interrupt driven
 * into a ring the console drains, so input typed before a workload reads
 * it is kept (up to the ring's size; beyond that bytes are counted lost).
 */
#include "firmware/drivers/uart.h"

#include <stdint.h>
#include "board.h"
#include "firmware/drivers/io.h"
#include "firmware/drivers/intc.h"

#define UART_RBR 0  /* receive buffer (read) / transmit holding (write) */
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_DATA_READY  0x01
#define LSR_THR_EMPTY   0x20
#define LSR_TX_IDLE     0x40
#define IER_RX_DATA     0x01
#define MCR_DTR_RTS_OUT2 0x0b

#define RX_RING_SIZE 1024   /* power of two */

static struct {
    volatile uint8_t buf[RX_RING_SIZE];
    volatile unsigned head;     /* written by the interrupt handler */
    volatile unsigned tail;     /* written by the reader */
    volatile unsigned long lost;
} rx;

void uart_init(void)
{
    /* 8N1; the PALcode left 8N2.  QEMU ignores the divisor. */
    outb(BOARD_COM1_PORT + UART_LCR, 0x03);
    outb(BOARD_COM1_PORT + UART_FCR, 0x07);    /* FIFOs on and cleared */
    outb(BOARD_COM1_PORT + UART_IER, 0);
}

void uart_putc(char c)
{
    while (!uart_port_can_send(BOARD_COM1_PORT))
        ;
    outb(BOARD_COM1_PORT + UART_RBR, (uint8_t)c);
}

void uart_port_init(unsigned port)
{
    outb(port + UART_LCR, 0x03);
    /* FIFOs on and cleared, receive trigger at 14 bytes: QEMU hands a
     * polled receiver up to the trigger level at once (at level 1, one
     * byte per poll). */
    outb(port + UART_FCR, 0xc7);
    outb(port + UART_IER, 0);
    outb(port + UART_MCR, MCR_DTR_RTS_OUT2);
}

int uart_port_can_send(unsigned port)
{
    return (inb(port + UART_LSR) & LSR_THR_EMPTY) != 0;
}

/* THR empty with the FIFOs on means the whole transmit FIFO is free, so a
 * burst needs one status read, not one per byte (the link's bytes are the
 * monitor's hottest loop under ProfileMe). */
size_t uart_port_send_burst(unsigned port, const uint8_t *bytes, size_t n)
{
    if (!uart_port_can_send(port))
        return 0;
    if (n > UART_TX_FIFO_BYTES)
        n = UART_TX_FIFO_BYTES;
    for (size_t i = 0; i < n; i++)
        outb(port + UART_RBR, bytes[i]);
    return n;
}

int uart_port_receive(unsigned port)
{
    if (!(inb(port + UART_LSR) & LSR_DATA_READY))
        return -1;
    return inb(port + UART_RBR);
}

void uart_drain(void)
{
    while (!(inb(BOARD_COM1_PORT + UART_LSR) & LSR_TX_IDLE))
        ;
}

void uart_enable_rx_interrupt(void)
{
    outb(BOARD_COM1_PORT + UART_MCR, MCR_DTR_RTS_OUT2);
    outb(BOARD_COM1_PORT + UART_IER, IER_RX_DATA);
    intc_enable_isa_irq(BOARD_COM1_IRQ);
}

void uart_rx_interrupt(void)
{
    /* Level-triggered: drain everything before the EOI. */
    while (inb(BOARD_COM1_PORT + UART_LSR) & LSR_DATA_READY) {
        uint8_t c = inb(BOARD_COM1_PORT + UART_RBR);
        unsigned next = (rx.head + 1) % RX_RING_SIZE;
        if (next == rx.tail) {
            rx.lost++;
            continue;
        }
        rx.buf[rx.head] = c;
        __asm__ volatile("wmb" ::: "memory");
        rx.head = next;
    }
}

int uart_getc_nonblock(void)
{
    if (rx.tail == rx.head)
        return -1;
    int c = rx.buf[rx.tail];
    __asm__ volatile("mb" ::: "memory");
    rx.tail = (rx.tail + 1) % RX_RING_SIZE;
    return c;
}
