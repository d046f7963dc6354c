/*
 * The host's reorder buffer of the profile link (link-reorder.h).
 */
#include "util/link-reorder.h"

#include <string.h>

void link_reorder_init(struct link_reorder *r)
{
    for (unsigned i = 0; i < LK_SACK_BITS; i++)
        r->slot[i].held = false;
    r->nheld = 0;
}

void link_reorder_clear(struct link_reorder *r)
{
    link_reorder_init(r);
}

/* Frames 1..LK_SACK_BITS ahead of expected are in the window. */
static unsigned ahead_of(uint16_t expected, uint16_t seq)
{
    return (uint16_t)(seq - expected);
}

/* Drops a held frame that `expected` has passed (invariant 1); one at
 * `expected` waits to be taken. */
static void drop_stale(struct link_reorder *r, unsigned i, uint16_t expected)
{
    unsigned a = ahead_of(expected, r->slot[i].seq);
    if (r->slot[i].held && a > LK_SACK_BITS) {
        r->slot[i].held = false;
        r->nheld--;
    }
}

enum link_reorder_put link_reorder_put(struct link_reorder *r, uint16_t expected, const struct lk_frame *f)
{
    unsigned a = ahead_of(expected, f->seq);
    if (a == 0 || a > LK_SACK_BITS || f->type == LK_T_PART || f->len > LK_MAX_PAYLOAD)
        return LINK_REORDER_BEYOND;
    unsigned i = f->seq % LK_SACK_BITS;
    drop_stale(r, i, expected);
    if (r->slot[i].held)
        return LINK_REORDER_DUPLICATE;  /* the same seq: a slot holds one frame (invariant 1) */
    r->slot[i].held = true;
    r->slot[i].type = f->type;
    r->slot[i].seq = f->seq;
    r->slot[i].len = (uint16_t)f->len;
    memcpy(r->slot[i].payload, f->payload, f->len);
    r->nheld++;
    return LINK_REORDER_HELD;
}

bool link_reorder_take(struct link_reorder *r, uint16_t expected, struct lk_frame *f)
{
    if (r->nheld == 0)
        return false;
    unsigned i = expected % LK_SACK_BITS;
    if (!r->slot[i].held || r->slot[i].seq != expected) {
        drop_stale(r, i, expected);
        return false;
    }
    r->slot[i].held = false;
    r->nheld--;
    memcpy(r->out, r->slot[i].payload, r->slot[i].len);
    f->type = r->slot[i].type;
    f->seq = expected;
    f->payload = r->out;
    f->len = r->slot[i].len;
    return true;
}

uint32_t link_reorder_sack(struct link_reorder *r, uint16_t expected)
{
    uint32_t sack = 0;
    if (r->nheld == 0)
        return 0;
    for (unsigned i = 0; i < LK_SACK_BITS; i++) {
        drop_stale(r, i, expected);
        unsigned a = ahead_of(expected, r->slot[i].seq);
        if (r->slot[i].held && a > 0)
            sack |= (uint32_t)1 << (a - 1);
    }
    return sack;
}

unsigned link_reorder_held(const struct link_reorder *r)
{
    return r->nheld;
}
