/*
 * The target's choice of frames to send again (link-resend.h).
 */
#include "firmware/profiler/link-resend.h"

#include <string.h>

#define SLOT(pos) ((pos) % LK_IN_FLIGHT_FRAMES)

void link_resend_reset(struct link_resend *r, uint32_t pos)
{
    memset(r, 0, sizeof *r);
    r->base = r->top = pos;
}

void link_resend_sent(struct link_resend *r, uint32_t pos, int again)
{
    r->last[SLOT(pos)] = ++r->stamps;
    if (!again) {
        r->first[SLOT(pos)] = r->stamps;
        if (pos >= r->top)
            r->top = pos + 1;
    }
}

static uint32_t shifted(uint32_t bits, uint32_t by)
{
    return by >= 32 ? 0 : bits >> by;
}

void link_resend_advance(struct link_resend *r, uint32_t pos)
{
    if (pos <= r->base)
        return;
    r->held = shifted(r->held, pos - r->base) & ~1u;
    r->lack = shifted(r->lack, pos - r->base);
    r->base = pos;
    if (r->top < pos)
        r->top = pos;
}

/* Stamps are kept for the last LK_IN_FLIGHT_FRAMES positions sealed; an
 * older one (sealed before the window applied: a session that turned
 * reliable late) has none. */
static int stamped(const struct link_resend *r, uint32_t pos)
{
    return pos < r->top && r->top - pos <= LK_IN_FLIGHT_FRAMES;
}

uint32_t link_resend_ack(struct link_resend *r, uint32_t expected, uint32_t sack, int asked)
{
    link_resend_advance(r, expected);
    /* the frames this LINK_ACK shows held, relative to base, and the
     * latest first copy among them (invariant 2) */
    uint32_t now_held = 0;
    uint64_t newest_first = 0;
    for (uint32_t k = 0; k < LK_SACK_BITS; k++) {
        if (!(sack >> k & 1))
            continue;
        uint32_t pos = expected + 1 + k;
        if (pos <= r->base || pos >= r->top || pos - r->base >= 32)
            continue;                   /* behind `expected` now, or never sent */
        now_held |= (uint32_t)1 << (pos - r->base);
        if (stamped(r, pos) && r->first[SLOT(pos)] > newest_first)
            newest_first = r->first[SLOT(pos)];
    }
    r->held |= now_held;
    uint32_t lost = 0;
    if (now_held) {
        /* a hole below the highest frame held, as this LINK_ACK sees it */
        uint32_t highest = 31;
        while (!(now_held >> highest & 1))
            highest--;
        for (uint32_t i = 0; i < highest; i++) {
            uint32_t pos = r->base + i;
            if (r->held >> i & 1 || pos < expected)
                continue;
            if (!stamped(r, pos) || r->last[SLOT(pos)] < newest_first)
                lost |= (uint32_t)1 << i;
        }
    } else if (asked && expected == r->base && r->base < r->top) {
        lost = 1;                       /* a gap the bitmap does not place: `expected` alone */
    }
    r->lack |= lost;
    return lost;
}

uint32_t link_resend_timeout(struct link_resend *r)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < 32 && r->base + i < r->top; i++)
        if (!(r->held >> i & 1))
            out |= (uint32_t)1 << i;
    r->lack |= out;
    return out;
}

uint32_t link_resend_go_back(struct link_resend *r)
{
    uint32_t out = 0;
    for (uint32_t i = 0; i < 32 && r->base + i < r->top; i++)
        out |= (uint32_t)1 << i;
    r->lack |= out;
    return out;
}

int link_resend_next(struct link_resend *r, uint32_t *pos)
{
    if (!r->lack)
        return 0;
    uint32_t i = 0;
    while (!(r->lack >> i & 1))
        i++;
    r->lack &= ~((uint32_t)1 << i);
    *pos = r->base + i;
    return 1;
}
