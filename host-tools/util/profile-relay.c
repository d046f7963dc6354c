/*
 * Watching the relayed profile link for stop means save (profile-relay.h).
 */
#include "util/profile-relay.h"

#include <string.h>

#define BUSY_PAUSE_S 0.1

void profile_relay_init(struct profile_relay *r, uint16_t first_seq)
{
    memset(r, 0, sizeof *r);
    lk_dec_init(&r->from_board);
    lk_dec_init(&r->from_host);
    r->ctl.fd = -1;
    r->ctl.seq = first_seq;
}

/* seq a is after b (mod 2^16, within half the space). */
static bool seq_after(uint16_t a, uint16_t b)
{
    uint16_t d = (uint16_t)(a - b);
    return d != 0 && d < 32768;
}

static void on_board_frame(struct profile_relay *r, const struct lk_frame *f)
{
    struct lk_hello h;
    struct lk_ack a;
    if (f->type == LK_T_HELLO && lk_parse_hello(f, &h) == LK_OK && h.nonce != r->nonce) {
        r->in_session = true;           /* a new session (a takeover): an old mark means nothing */
        r->nonce = h.nonce;
        r->have_mark = r->stored_past_mark = false;
        return;
    }
    if (f->type == LK_T_END) {
        r->ended = true;
        r->mark = f->seq;
        r->have_mark = true;
        return;
    }
    if (f->type != LK_T_ACK || lk_parse_ack(f, &a) != LK_OK || !link_control_answered(&r->ctl, &a))
        return;
    if (a.status == LK_ACK_BUSY) {
        r->busy_since = link_control_now();
        return;
    }
    r->stop_acked = true;               /* OK, or refused: either way it flushed what it had */
    if (!r->have_mark) {
        r->mark = f->seq;
        r->have_mark = true;
    }
}

void profile_relay_from_board(struct profile_relay *r, const uint8_t *buf, size_t n)
{
    while (n > 0) {
        size_t used;
        struct lk_frame f;
        int got = lk_dec_push(&r->from_board, buf, n, &used, &f);
        buf += used;
        n -= used;
        if (!got)
            break;
        on_board_frame(r, &f);
    }
}

void profile_relay_from_host(struct profile_relay *r, const uint8_t *buf, size_t n)
{
    while (n > 0) {
        size_t used;
        struct lk_frame f;
        struct lk_link_ack a;
        int got = lk_dec_push(&r->from_host, buf, n, &used, &f);
        buf += used;
        n -= used;
        if (!got)
            break;
        if (f.type == LK_T_LINK_ACK && lk_parse_link_ack(&f, &a) == LK_OK && r->in_session &&
            a.nonce == r->nonce && r->have_mark && seq_after(a.stored, r->mark))
            r->stored_past_mark = true;
    }
}

void profile_relay_host(struct profile_relay *r, bool attached)
{
    r->host_attached = attached;
    if (attached)
        lk_dec_init(&r->from_host);     /* a new daemon's stream */
}

bool profile_relay_stop(struct profile_relay *r, int fd)
{
    if (!r->host_attached || !r->in_session)
        return false;                   /* invariant 2 */
    r->ctl.fd = fd;
    if (r->ended)
        return true;                    /* the END is on its way: wait for it to be stored */
    r->stop_sent = link_control_send_simple(&r->ctl, LK_T_STOP) == 0;
    return r->stop_sent;
}

void profile_relay_tick(struct profile_relay *r)
{
    if (!r->stop_sent || r->stop_acked || r->ended)
        return;
    if (r->busy_since > 0) {
        if (link_control_now() - r->busy_since < BUSY_PAUSE_S)
            return;
        r->busy_since = 0;
        link_control_send_simple(&r->ctl, LK_T_STOP);  /* a new seq (invariant 3) */
        return;
    }
    link_control_retry(&r->ctl);
}

bool profile_relay_saved(const struct profile_relay *r)
{
    return r->stored_past_mark;
}
