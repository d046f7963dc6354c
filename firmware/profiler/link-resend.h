/*
 * The target's choice of frames to send again (selective repeat,
 * link-protocol.h 5.3): from the host's LINK_ACKs (`expected` and the sack
 * bitmap) and its own retransmit time, which frames of the in-flight
 * window the host lacks and must get again.  Pure bookkeeping on
 * positions (link-tx.c note 2), no I/O: link-tx.c seals what it says.
 *
 * Invariants
 *  1. base is the host's last `expected`; every frame sealed lies in
 *     [base, top) with top - base <= LK_IN_FLIGHT_FRAMES while reliable
 *     (link-tx.c note 8).  Bit i of `held` and `lack` stands for
 *     position base + i; bit 0 of `held` is never set (the host lacks
 *     `expected` by definition).
 *  2. Every transmission gets a stamp from one counter: first[] and
 *     last[] (by position mod LK_IN_FLIGHT_FRAMES) are a frame's first
 *     and latest.  The link delivers in order, so a frame the host lacks
 *     whose latest copy went out before the first copy of a frame the
 *     host holds is lost; one sent after it may still be on its way.
 *     Only lost frames go into `lack`: a LINK_ACK delayed, repeated or
 *     replayed asks for nothing twice.
 *  3. `held` only grows while base stays (the host never lets go of a
 *     frame it holds within a session); it shifts with base.
 */
#ifndef FIRMWARE_PROFILER_LINK_RESEND_H
#define FIRMWARE_PROFILER_LINK_RESEND_H

#include <stdint.h>
#include "firmware/abi/link-protocol.h"

struct link_resend {
    uint32_t base, top;
    uint32_t held;                      /* bit i: the host holds base + i */
    uint32_t lack;                      /* bit i: send base + i again */
    uint64_t stamps;
    uint64_t first[LK_IN_FLIGHT_FRAMES], last[LK_IN_FLIGHT_FRAMES];
};

/* A new link session whose first frame to send is at pos. */
void link_resend_reset(struct link_resend *r, uint32_t pos);
/* The frame at pos went out: new (again 0: the next after top) or again. */
void link_resend_sent(struct link_resend *r, uint32_t pos, int again);
/* The host's `expected` moved forward to pos. */
void link_resend_advance(struct link_resend *r, uint32_t pos);
/* A LINK_ACK of the session: expected (a position, may be behind base:
 * a stale one), its sack bitmap and whether it asked (LK_LACK_RESEND).
 * Returns the frames it proved lost (bit i: base + i), now in `lack`. */
uint32_t link_resend_ack(struct link_resend *r, uint32_t expected, uint32_t sack, int asked);
/* The retransmit time passed without progress: `expected` and every
 * frame after it sent but not known held go into `lack` (returned). */
uint32_t link_resend_timeout(struct link_resend *r);
/* Go-back-N (link-protocol.h 5.9): every frame sent from base on goes
 * into `lack` (returned). */
uint32_t link_resend_go_back(struct link_resend *r);
/* The lowest frame to send again: 1 with *pos set and its bit cleared,
 * 0 when none. */
int link_resend_next(struct link_resend *r, uint32_t *pos);

#endif
