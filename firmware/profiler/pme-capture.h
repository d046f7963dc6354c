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
 *
 * Design note (dropped pairs): a bank's pair buffer fills while the other
 * bank still waits for the link, and the link waits for the host, so
 * dropping the pairs that come after it is full would drop whatever runs
 * while the link is behind (the monitor's own sending code, mostly).  A
 * full bank instead keeps a uniform random subset of all the pairs offered
 * to it (reservoir sampling), and its PAIRS frames say how many it was
 * offered and kept: each kept pair stands for offered / kept pairs of its
 * bank's time, which the host's estimates weight by (pme-stacks.h).
 *
 * As a sample source (sample-source.h): start programs every core's
 * ProfileMe unit (a restart after STOP keeps the banks, the counts and the
 * records in the rings); tick and interrupt drain the core's ring into its
 * active bank (even while stopped: what the ring still holds); flush hands
 * the active bank over (final: without waiting for the other bank, which
 * may then be ready too, and nothing is filled after); request_flush asks
 * every core for its bank at its next drain (core 0 at once); send,
 * discard and pending are the boot core's side of the banks.
 */
#ifndef FIRMWARE_PROFILER_PME_CAPTURE_H
#define FIRMWARE_PROFILER_PME_CAPTURE_H

#include <stdint.h>
#include "firmware/profiler/sample-source.h"

extern const struct sample_source pme_source;

/* HELLO caps bits the board's model offers (LK_CAP_PROFILEME, _PAIRED). */
uint32_t pme_caps(void);

#endif
