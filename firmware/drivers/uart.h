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
void uart_port_send(unsigned port, uint8_t byte);
int uart_port_receive(unsigned port);      /* -1 when nothing is waiting */

#endif
