/* 16550 UART on COM1: the console and the serial link. */
#ifndef FIRMWARE_DRIVERS_UART_H
#define FIRMWARE_DRIVERS_UART_H

#include <stddef.h>

void uart_init(void);
void uart_putc(char c);
/* Waits until every byte has left the transmitter (before QEMU exits). */
void uart_drain(void);
/* Receive side: filled by the RX interrupt, read by the console. */
void uart_rx_interrupt(void);
int uart_getc_nonblock(void);   /* -1 when nothing is waiting */
void uart_enable_rx_interrupt(void);

#endif
