/*
 * The host's reorder buffer of the profile link (selective repeat,
 * link-protocol.h 5.3): frames that arrive ahead of `expected` are held,
 * at most LK_SACK_BITS of them, and handed back in seq order once the gap
 * before them fills.  Fixed memory (LK_SACK_BITS whole frames); no
 * allocation.
 *
 * Invariants
 *  1. A held frame lies 1..LK_SACK_BITS ahead of the `expected` it was
 *     put with; `expected` only moves forward (by link_reorder_take or a
 *     caller that took a frame itself), so a slot (seq mod LK_SACK_BITS)
 *     holds at most one frame, and a held frame behind `expected` is
 *     stale and dropped at the next call that sees it (one at `expected`
 *     waits to be taken).
 *  2. The bitmap (link_reorder_sack) is LINK_ACK's sack: bit i set when
 *     frame expected + 1 + i is held.
 *  3. A PART (a piece, link-protocol.h 5.7) is never held: pieces belong
 *     to `expected` alone.
 */
#ifndef HOST_TOOLS_UTIL_LINK_REORDER_H
#define HOST_TOOLS_UTIL_LINK_REORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "firmware/abi/link-codec.h"

enum link_reorder_put {
    LINK_REORDER_HELD,          /* kept until the gap fills */
    LINK_REORDER_DUPLICATE,     /* held already: a second copy */
    LINK_REORDER_BEYOND,        /* not 1..LK_SACK_BITS ahead (or a PART): not kept */
};

struct link_reorder {
    struct {
        bool held;
        uint8_t type;
        uint16_t seq;
        uint16_t len;
        uint8_t payload[LK_MAX_PAYLOAD];
    } slot[LK_SACK_BITS];
    uint8_t out[LK_MAX_PAYLOAD];        /* the frame last taken (its payload) */
    unsigned nheld;
};

void link_reorder_init(struct link_reorder *r);
/* Forgets every held frame (a new link session). */
void link_reorder_clear(struct link_reorder *r);
/* A frame ahead of `expected`: keeps a copy of it. */
enum link_reorder_put link_reorder_put(struct link_reorder *r, uint16_t expected, const struct lk_frame *f);
/* The held frame `expected`, if any: true with *f set (its payload valid
 * until the next take), and the slot freed. */
bool link_reorder_take(struct link_reorder *r, uint16_t expected, struct lk_frame *f);
/* LINK_ACK's sack for `expected` (invariant 2). */
uint32_t link_reorder_sack(struct link_reorder *r, uint16_t expected);
unsigned link_reorder_held(const struct link_reorder *r);

#endif
