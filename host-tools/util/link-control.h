/*
 * The host's side of the control channel (link-protocol.h section 4), as
 * `alphaprof daemon` and `alphaprof record` both use it: one control frame
 * outstanding at a time, sent again with the same seq every
 * LINK_CONTROL_RETRY_S until the target's ACK for it comes.
 *
 * Invariants:
 *  1. At most one frame is outstanding; link_control_answered takes only
 *     the ACK of that frame's seq and type (anything else is stray).
 *  2. A retry is byte for byte the frame first sent: the target answers a
 *     repeated seq without doing the work twice.
 *  3. The seq starts where the caller says (a random value): a new host's
 *     frames are not taken for retries of a killed one's.
 */
#ifndef ALPHAPROF_UTIL_LINK_CONTROL_H
#define ALPHAPROF_UTIL_LINK_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "firmware/abi/link-codec.h"

#define LINK_CONTROL_RETRY_S 1.0   /* send a control frame again after this long */

struct link_control {
    int fd;                         /* the link (written with write_all) */
    uint16_t seq;                   /* the next frame's seq */
    bool outstanding;               /* waiting for the ACK of: */
    uint8_t out_type;
    uint16_t out_seq;
    double out_sent, out_first;     /* last and first send (link_control_now) */
    uint8_t out_wire[LK_MAX_WIRE];
    size_t out_len;
    uint64_t retries;               /* frames sent again, all told */
};

/* Monotonic seconds. */
double link_control_now(void);
/* Seals the writer's frame with the next seq and sends it; it becomes
 * outstanding.  -1 when the link cannot be written. */
int link_control_send(struct link_control *c, struct lk_writer *w, uint8_t type);
/* A frame without payload (STOP, FLUSH_NOW, START without nonce). */
int link_control_send_simple(struct link_control *c, uint8_t type);
/* Sends the outstanding frame again when its ACK is RETRY_S late: 1 sent
 * again, 0 not due, -1 the link cannot be written. */
int link_control_retry(struct link_control *c);
/* An ACK from the target: true (and nothing outstanding any more) when it
 * answers the outstanding frame. */
bool link_control_answered(struct link_control *c, const struct lk_ack *a);

#endif
