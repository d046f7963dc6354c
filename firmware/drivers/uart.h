/* 16550 UART on COM1: the console and the serial link. */
#ifndef FIRMWARE_DRIVERS_UART_H
#define FIRMWARE_DRIVERS_UART_H

#include <stddef.h>
#include <stdint.h>

void uart_init(void);
void uart_putc(char c);
/* Waits until every byte has left the transmitter (before QEMU exits). */
void uart_drain(void);
/* Receive side: filled by the RX interrupt, read by the console. */
void uart_rx_interrupt(void);
int uart_getc_nonblock(void);   /* -1 when nothing is waiting */
void uart_enable_rx_interrupt(void);

/* Any 16550 by its base port (COM2 carries the profile link): polled. */
void uart_port_init(unsigned port);
int uart_port_can_send(unsigned port);
/* Up to UART_TX_FIFO_BYTES of bytes[0..n) when the transmitter is empty
 * (port initialised by uart_port_init, FIFOs on); the bytes written. */
#define UART_TX_FIFO_BYTES 16u
size_t uart_port_send_burst(unsigned port, const uint8_t *bytes, size_t n);
int uart_port_receive(unsigned port);      /* -1 when nothing is waiting */

#endif
