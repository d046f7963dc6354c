/*
 * Host -> target control over the profile link's receive side (COM2 RX,
 * the same UART that carries the profile stream).  The boot core polls the
 * receiver from its profiler tick (at least every millisecond of virtual
 * time; no interrupt), decodes frames with the shared codec (a damaged
 * chunk costs only itself: the decoder is back in step at the next
 * delimiter) and runs one control frame at a time (link-protocol.h,
 * section 4):
 *
 *   START      new link session: HELLO, NAMES, LOADMAP, base FLUSH, then what
 *              the last host did not store (takeover, link-protocol.h 5.5); sample
 *   STOP       stop sampling, flush everything, FLUSH frames
 *   FLUSH_NOW  flush everything collected so far, FLUSH frames
 *   NEW_EPOCH  as FLUSH_NOW, then EPOCH: later data is the new epoch's
 *   CONFIG     mode, flush interval, events and periods (while stopped)
 *
 * Every control frame is answered with an ACK once done (status in the
 * header's LK_ACK_*).  A flush asks every core to empty its hash table
 * (IPI; core 0 at once), then sends the overflow buffers as the link
 * allows; after FLUSH_TIMEOUT what the link could not carry is counted as
 * LK_DROP_LINK_FULL and the answer goes out.  Only what a core held when
 * it flushed goes before the answer (EPOCH): what it collects after its
 * flush waits (the periodic drain pauses while a control frame is in
 * progress), so an epoch boundary is exact per core.
 *
 * Counters in FLUSH frames are cumulative since the first START (the
 * values then are taken off, control_rebase), so they never go back, not
 * even across link sessions.  A retried control frame (same seq and type)
 * is answered again, never done twice; LINK_ACK goes to link-tx.c.
 */
#ifndef FIRMWARE_PROFILER_CONTROL_H
#define FIRMWARE_PROFILER_CONTROL_H

#include <stdint.h>
#include "firmware/abi/link-codec.h"

/* Core 0's tick leaves the fast path once virtual time passes this. */
extern volatile uint64_t control_due_ns;

/* profiler_start, after link_tx_init: readies the receiver.  Returns 1 if
 * sampling waits for the host's START (boot option start=host). */
int control_init(void);
/* Boot core's profiler tick: polls the receiver, runs the control frame in
 * progress. */
void control_tick(void);
/* A control frame is in progress: the profiler's periodic drain waits
 * (the flush in progress decides what is sent before its answer). */
int control_busy(void);
/* Core 0's FLUSH: the control channel's own counters. */
void control_flush_counters(struct lk_flush *f);
/* Any FLUSH: cumulative values made relative to the session's start. */
void control_rebase(struct lk_flush *f);
/* profiler_finish, after the last FLUSH frames: answers a control frame
 * still in progress (EPOCH first for NEW_EPOCH). */
void control_finish(void);
/* Link sessions a host's START began (takeovers included). */
uint64_t control_takeovers(void);

/* ---- the profiler's side, for control.c (profiler.c) ---- */
int profiler_sampling(void);
int profiler_has_model(void);
int profiler_counters_mode(void);
void profiler_set_counters(int on);     /* while stopped: takes effect at resume */
void profiler_pause(void);              /* stop sampling; the model stops producing */
void profiler_resume(void);             /* program the sources, sample again */
void profiler_flush_begin(void);        /* every core empties its table */
int profiler_flush_pending(void);       /* a flush or a buffer still to send */
void profiler_flush_give_up(void);      /* ready buffers counted as LINK_FULL */
void profiler_drain(void);              /* send ready buffers as the link allows */
void profiler_send_flushes(void);       /* a FLUSH frame per core */
unsigned profiler_ncores(void);
void profiler_flush_values(unsigned core, struct lk_flush *f);
void profiler_new_session(uint64_t nonce);  /* a link session: HELLO, NAMES, LOADMAP, base FLUSH */
int profiler_ended(void);               /* the workload ended: profiler_finish runs */

#endif
