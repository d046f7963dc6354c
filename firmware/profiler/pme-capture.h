/*
 * ProfileMe capture (profile=profileme|paired): the hardware model's
 * ProfileMe ring (hw-model/pmu-window.h) -> per-core aggregates and whole
 * paired samples in the core's fixed profiler RAM (linker/ram-map.h) ->
 * PME_AGG and PAIRS frames (firmware/abi/link-protocol.h).
 *
 * Each core owns two banks; it fills the active one from its own tick
 * (pme_drain: interrupt context, no locks, no divisions) and hands it over
 * (ready = 1) when the flusher asks, when its aggregate table nears full or
 * when its pair buffer is full.  The boot core sends ready banks (pme_send,
 * resuming where the link queue ran out of room), clears them and hands
 * them back (ready = 0).  Every record drained is counted (PME_TAKEN) and
 * either sent (PME_SENT) or dropped with a reason (AGG_FULL, LINK_FULL);
 * the model's own ring overflows are reported as RING_OVERFLOW.  Pairs
 * likewise (PAIRS_TAKEN, PAIRS_SENT, PAIR_FULL, HALF_PAIR).
 */
#ifndef FIRMWARE_PROFILER_PME_CAPTURE_H
#define FIRMWARE_PROFILER_PME_CAPTURE_H

#include <stdint.h>
#include "firmware/abi/link-codec.h"

/* Boot core, profiler_start: programs every core's ProfileMe unit from the
 * boot options (mode profileme or paired) and readies the banks.  False
 * (with a warning) when the board has no hardware model with ProfileMe. */
int pme_start(unsigned ncores);
/* ProfileMe is collecting (pme_start succeeded, pme_stop not yet called). */
int pme_active(void);
/* HELLO caps bits the board's model offers (LK_CAP_PROFILEME, _PAIRED). */
uint32_t pme_caps(void);
/* NAMES frames of the event bits and latency fields. */
void pme_send_names(uint8_t *buf, size_t cap);

/* Owner core (its tick, interrupt context): moves new records from its
 * ring into its active bank; hands the bank over if the flusher asked. */
void pme_drain(unsigned core);
/* Owner core, IPI: a performance interrupt from the model (its ProfileMe
 * ring a quarter full) drains the ring and acknowledges it. */
void pme_interrupt(unsigned core);
/* Boot core: ask every core to hand its active bank over at its next
 * drain (core 0's own is drained and handed over at once).  all: ask idle
 * cores too (the caller sends them an IPI, which drains). */
void pme_request_flush(unsigned ncores, int all);
/* Boot core: the core has a bank ready to send or a hand-over request
 * not yet honoured. */
int pme_pending(unsigned core);
int pme_any_pending(unsigned ncores);
/* Boot core: sends the core's ready banks; false if the link queue filled
 * first (the rest goes next time). */
int pme_send(unsigned core, uint8_t *buf, size_t cap);
/* Boot core, when the link cannot carry the rest in time: gives the core's
 * ready banks back unsent, their records counted LINK_FULL (pairs:
 * PAIR_FULL). */
void pme_discard(unsigned core);
/* Boot core: adds the core's ProfileMe stats and drops to a FLUSH. */
void pme_flush_counters(unsigned core, struct lk_flush *f);

/* Boot core at the end: turns the model's ProfileMe units off. */
void pme_stop(unsigned ncores);
/* Owner core at the end (after pme_stop): drains its ring and hands its
 * active bank over without waiting (both banks may then be ready). */
void pme_final(unsigned core);

/* Boot core at the end: the monitor's summary line of ProfileMe. */
void pme_summary(unsigned ncores);

#endif
