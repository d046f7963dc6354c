/*
 * The profile link's transmit side (COM2): whole frames are queued by the
 * boot core and trickled out by link_tx_pump(), never faster than the
 * configured baud rate in the board's virtual time (8N1: 10 bits a byte),
 * so link budgets measured here hold for a real UART.  Frames stay in a
 * retransmit window until the host says it stored them, and are sent again
 * when the host asks or stays silent (link-protocol.h section 5; the
 * design notes are in link-tx.c).  A full window is back-pressure: the
 * caller keeps its data (the overflow buffers fill; the profiler then
 * counts drops: LK_DROP_LINK_FULL, LK_DROP_OVERFLOW_FULL); nothing waits
 * for the host.
 */
#ifndef FIRMWARE_PROFILER_LINK_TX_H
#define FIRMWARE_PROFILER_LINK_TX_H

#include <stddef.h>
#include <stdint.h>
#include "firmware/abi/link-codec.h"

/* Queue space data frames leave free for control frames (FLUSH, EPOCH,
 * ACK, HELLO, NAMES, LOADMAP); on a slow link half a second of it, at
 * least 512 bytes (link_tx_reserve). */
#define LINK_TX_RESERVE 2048u

/* baud 0: as fast as the UART takes bytes. */
void link_tx_init(unsigned port, unsigned baud);
/* Room for one more data frame of the largest size (beyond the reserve). */
int link_tx_has_room(void);
/* The largest raw data frame (SAMPLES, PME_AGG, PAIRS) to build: a
 * quarter second of a slow link, LK_MAX_RAW otherwise. */
size_t link_tx_data_frame(void);
uint32_t link_tx_reserve(void);
uint32_t link_tx_capacity(void);
/* Free bytes in the queue. */
uint32_t link_tx_free(void);
/* Seals the writer's frame with the next sequence number and queues it;
 * 0 if the queue has no room for it (the frame is not sent). */
int link_tx_send(struct lk_writer *w);
/* A new link session (section 5.1): frames sent until
 * link_tx_session_ready are its context (HELLO, NAMES, LOADMAP); ready adds
 * the base FLUSH frames and puts every frame the last host did not store
 * behind them.  reliable: a host that acknowledges started it (START);
 * else frames are freed as they are sent until a LINK_ACK of the nonce
 * comes. */
void link_tx_session_begin(uint64_t nonce, int reliable);
void link_tx_session_ready(void);
uint64_t link_tx_nonce(void);
/* The session the current one took over and its first resent frame's
 * position there (HELLO's prev_nonce, prev_pos). */
void link_tx_previous(uint64_t *nonce, uint64_t *pos);
int link_tx_reliable(void);
/* A host's LINK_ACK: frees what it stored, sends again what it lacks
 * (link-tx.c note 4). */
void link_tx_ack(const struct lk_link_ack *a);
/* Nothing waits to be sent (frames in flight may wait for their ack). */
int link_tx_idle(void);
/* Nothing left to send, and (reliable) everything stored by the host. */
int link_tx_settled(void);
/* The run ends: retransmit time kept short (at most twice its least). */
void link_tx_ending(void);
/* Virtual time the host last took a new frame (LINK_ACK's expected moved). */
uint64_t link_tx_host_progress_ns(void);
/* Virtual time a LINK_ACK of the session last came (the host is there). */
uint64_t link_tx_host_heard_ns(void);
/* Frames sealed again (retransmissions, a frame in pieces once), their
 * wire bytes (pieces included), and frames sealed the first time. */
uint64_t link_tx_retransmits(void);
uint64_t link_tx_retransmit_bytes(void);
uint64_t link_tx_frames_sent(void);
/* Moves queued bytes to the UART as the baud budget allows. */
void link_tx_pump(void);
/* Pumps until every frame has been sent once (not waiting for the host),
 * or until the frames in flight wait for its LINK_ACK (link-tx.c note 8). */
void link_tx_drain(void);
/* Pumps until at least `bytes` are free (bounded by the queue size), or
 * until the queue's link time plus a second has passed, or until the
 * frames in flight wait for the host's LINK_ACK (link-tx.c note 8). */
void link_tx_wait_free(uint32_t bytes);
/* Line time of one character at the configured baud rate (0: unpaced). */
uint64_t link_tx_byte_ns(void);
uint64_t link_tx_bytes_sent(void);
/* Watches the frame link_tx_send queued last (note 10): link_tx_watched
 * gives 1, the virtual time its last byte left the line (the first time)
 * and link_tx_bytes_sent() at that moment, once it has; 0 before, -1 when
 * nothing is watched. */
void link_tx_watch_last(void);
int link_tx_watched(uint64_t *done_ns, uint64_t *sent);

#endif
