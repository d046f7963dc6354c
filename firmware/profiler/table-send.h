/*
 * The boot core's side of the cores' DCPI overflow buffers
 * (sample-table.h): a ready buffer is sorted by (event, PC), sent as
 * SAMPLES frames (resuming where the link queue ran out of room) and
 * handed back, or given back unsent with its samples counted as
 * LK_DROP_LINK_FULL.  Used alike by every source that feeds the table.
 *
 * Invariants (per core): a sample of a ready buffer is either sent
 * (counted in samples_sent, its entry in entries_sent) or counted in
 * link_full, exactly once; drain_pos[i] entries of ovf[i] are already
 * sent; the counts only grow.
 */
#ifndef FIRMWARE_PROFILER_TABLE_SEND_H
#define FIRMWARE_PROFILER_TABLE_SEND_H

#include <stdint.h>
#include "firmware/profiler/profiler-config.h"

struct table_send_stats {
    uint64_t entries_sent, samples_sent;
    uint64_t link_full;         /* samples discarded: the link had no room */
};

/* profiler_start: every core's counts from zero. */
void table_send_init(const struct profiler_config *c, unsigned ncores);
/* Sends ovf[bi] of the core from where it stopped; false if the link
 * queue filled first (the rest goes next time). */
int table_send_buffer(unsigned core, unsigned bi);
/* Gives ovf[bi] back unsent: its samples not yet sent count LINK_FULL. */
void table_discard_buffer(unsigned core, unsigned bi);
/* Back-pressure: a core with both buffers waiting would drop whatever it
 * evicts next (and its flush would wait on a slow link for as long as a
 * whole buffer takes).  When the link has no room, the buffer the core
 * writes next (its active one) goes instead: what was not sent of it is
 * counted. */
void table_relieve_link(unsigned core);
const struct table_send_stats *table_send_stats(unsigned core);

#endif
