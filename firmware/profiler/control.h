/*
 * Host -> target control over the profile link's receive side (COM2 RX,
 * the same UART that carries the profile stream), and the profiler's one
 * configuration.  The boot core polls the receiver from its profiler tick
 * (at least every millisecond of virtual time; no interrupt), decodes
 * frames with the shared codec (a damaged chunk costs only itself: the
 * decoder is back in step at the next delimiter) and runs one control
 * frame at a time through the state machine of control-machine.h
 * (link-protocol.h, section 4).  A flush asks every core to empty its hash
 * table and sends what they held (flush.h); after CTL_FLUSH_TIMEOUT_NS
 * what the link could not carry is counted as LK_DROP_LINK_FULL and the
 * answer goes out.
 *
 * FLUSH frames are built here: every core's cumulative counters (its
 * table, what was sent, the source's own, the link's and the control
 * channel's), relative to the first START (bases taken once, so they
 * never go back, not even across link sessions).
 *
 * Link sessions (link-protocol.h section 5): START's nonce names the new
 * session (takeover: what the last host did not store goes into it);
 * LINK_ACK goes to link-tx.c; a retried control frame (same seq and type)
 * is answered again, never done twice; after the workload ended only a
 * START does anything (a new host takes over what the board still holds).
 */
#ifndef FIRMWARE_PROFILER_CONTROL_H
#define FIRMWARE_PROFILER_CONTROL_H

#include <stdint.h>
#include "firmware/kernel/cmdline.h"
#include "firmware/profiler/profiler-config.h"

/* Core 0's tick leaves the fast path once virtual time passes this. */
extern volatile uint64_t control_due_ns;

/* profiler_start, first: the profiler's configuration, copied from the
 * boot line; it changes only on the host's CONFIG. */
const struct profiler_config *control_load_config(const struct boot_options *b);
/* profiler_start, after link_tx_init: readies the receiver. */
void control_init(unsigned ncores);
/* Boot core's profiler tick: polls the receiver, runs the control frame in
 * progress. */
void control_tick(void);
/* The link has bytes to send: the next poll (and its pump) within POLL_NS. */
void control_poll_soon(uint64_t now);
/* A control frame is in progress: the profiler's periodic drain waits
 * (the flush in progress decides what is sent before its answer). */
int control_busy(void);
/* A FLUSH frame with the core's cumulative counters. */
void control_send_flush(unsigned core);
/* profiler_finish, after the last FLUSH frames: answers a control frame
 * still in progress (EPOCH first for NEW_EPOCH). */
void control_finish(void);
/* profiler_finish: a "control latency" line per control frame type
 * received, its slowest cut and answer. */
void control_summary(void);
/* Link sessions a host's START began (takeovers included). */
uint64_t control_takeovers(void);
/* When the host's last byte came (damaged or not), 0: never. */
uint64_t control_last_rx_ns(void);

#endif
