/*
 * The flush protocol: how what every core collected reaches the profile
 * link exactly once, and how a host flush (STOP, FLUSH_NOW, NEW_EPOCH, the
 * START of a new session) and the end of the run cut each core's stream at
 * one point.  The states and invariants are the numbered notes at the top
 * of flush.c.
 */
#ifndef FIRMWARE_PROFILER_FLUSH_H
#define FIRMWARE_PROFILER_FLUSH_H

#include <stdint.h>

/* profiler_start. */
void flush_init(unsigned ncores);

/* ---- boot core ---- */
/* Periodic drain (note 6): sources hand over what they hold, and every
 * ready buffer of every core goes out as the link allows. */
void flush_periodic(void);
/* Sends every ready buffer of every core it can (note 6). */
void flush_send_ready(void);
/* Host flush (note 5): every core empties its table (IPIs; core 0 at
 * once), then only data from before each core's flush is sent (note 4). */
void flush_begin(void);
/* Sends pre-flush data as the link allows. */
void flush_send_pre_flush(void);
/* A core has not flushed yet, or data from before its flush waits. */
int flush_pending(void);
/* The link cannot carry the rest in time: pre-flush buffers counted
 * LINK_FULL (note 5). */
void flush_give_up(void);
/* The end of the run (note 8), at IPL ipl masked: every core flushes for
 * the last time and stops; everything goes out, or is counted, within
 * FINISH_TIMEOUT_NS. */
void flush_final(unsigned ipl);

/* ---- every core ---- */
/* Inside the run's final flush: a core's flush also stops its sampling. */
int flush_finishing(void);
/* The flusher has asked this core to flush and it has not yet. */
int flush_requested(unsigned core);
/* Owner core, IPI (note 3): flushes its source and table, answers. */
void flush_core(unsigned core);

#endif
