/*
 * The profile link's transmit side (COM2): whole frames are queued by the
 * boot core and trickled out by link_tx_pump(), never faster than the
 * configured baud rate in the board's virtual time (8N1: 10 bits a byte),
 * so link budgets measured here hold for a real UART.  A full queue is
 * back-pressure: the caller keeps its data (the overflow buffers fill, and
 * the table then counts drops).
 */
#ifndef FIRMWARE_PROFILER_LINK_TX_H
#define FIRMWARE_PROFILER_LINK_TX_H

#include <stddef.h>
#include <stdint.h>
#include "firmware/abi/link-codec.h"

/* baud 0: as fast as the UART takes bytes. */
void link_tx_init(unsigned port, unsigned baud);
/* Room in the queue for one more frame of the largest size. */
int link_tx_has_room(void);
/* Seals the writer's frame with the next sequence number and queues it;
 * 0 if the queue has no room (the frame is not sent). */
int link_tx_send(struct lk_writer *w);
/* Moves queued bytes to the UART as the baud budget allows. */
void link_tx_pump(void);
/* Pumps until the queue is empty (end of run). */
void link_tx_drain(void);
uint64_t link_tx_bytes_sent(void);

#endif
